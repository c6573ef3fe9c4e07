"""``report.html``: one self-contained page (inline CSS, script and SVG charts; no network).

Jinja2 autoescapes every value; a Content-Security-Policy allows only the page's own script (by
its hash), so a label or an email holding markup is shown as text and never runs. The charts
are SVG written directly (:mod:`.charts`): no plotting library, no script needed to show them.
"""

from __future__ import annotations

import base64
import bisect
import functools
import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
import msgspec
from jinja2 import Environment, PackageLoader, Template, select_autoescape
from markupsafe import Markup

from ...adapters import registry
from ...evaluation.document import (
    Disputed,
    DisputedTask,
    FieldReport,
    LowestTask,
    Report,
    lowest_scores,
)
from ...evaluation.sections import Point
from ...evaluation.sections import plain as plain_value
from . import charts
from .format import (
    ICON_TEXT,
    MODEL_COLUMNS,
    alpha_name,
    alpha_without_note,
    categories_text,
    change_text,
    confused_pairs,
    fmt,
    model_label_rows,
    model_note,
    model_rows,
    plain,
    proposal,
    round_text,
    sampling_note,
)

MAX_ROWS = 1000  # disputed tasks per field in the page: the first in review order
MAX_LABEL_COLUMNS = 12  # more annotators than this: one "labels" column instead of one each
PALETTE = ("#fde68a", "#bfdbfe", "#fecaca", "#bbf7d0", "#ddd6fe", "#fed7aa", "#a5f3fc", "#fbcfe8")
Segment = tuple[str, list[str]]  # a piece of text and the labels of the spans covering it


def label_colors(f: FieldReport) -> dict[str, str]:
    """A background colour per label of a region field, in the report's label order."""
    labels = [*f.categories, *(f.regions.f1_by_label if f.regions else {})]
    return {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(dict.fromkeys(labels))}


def span_lines(d: LowestTask) -> list[tuple[str, list[Segment]]] | None:
    """A disputed span task's text excerpt, once per annotator, cut where their spans start and
    end; None when the task has no known text. Offsets are characters of the whole text."""
    details = d.details
    if details is None or not details.text or not details.regions:
        return None
    excerpt, offset = details.text.excerpt, details.text.offset
    regions = details.regions
    out = []
    for who, spans in regions.items():
        spans = [r for r in spans if "start" in r and "end" in r]
        inside = {min(max(r[k] - offset, 0), len(excerpt)) for r in spans for k in ("start", "end")}
        cuts = sorted({0, len(excerpt)} | inside)
        # a sweep over the spans by start: each segment looks at the spans open there only
        # (a scan of every span per segment took minutes for 20,000 spans)
        by_start = sorted(range(len(spans)), key=lambda i: spans[i]["start"])
        open_: list[int] = []  # spans begun at or before the segment, in the spans' order
        k = 0
        segments = []
        for a, b in itertools.pairwise(cuts):
            if a >= b:
                continue
            while k < len(by_start) and spans[by_start[k]]["start"] - offset <= a:
                bisect.insort(open_, by_start[k])
                k += 1
            open_ = [i for i in open_ if a < spans[i]["end"] - offset]
            segments.append((excerpt[a:b], [spans[i]["label"] for i in open_]))
        out.append((who, segments))
    return out


def disagreement_kinds(d: LowestTask) -> str:
    """A region task's disagreements counted by kind: "2 missed, 1 label swap"."""
    counts: dict[str, int] = {}
    for x in d.details.disagreements if d.details else []:
        counts[x.kind] = counts.get(x.kind, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in counts.items())


def skill_accuracy(f: FieldReport) -> dict[str, float | None]:
    """Annotator id → their Dawid–Skene accuracy (empty without a fit)."""
    return {a.id: a.accuracy for a in f.skill.annotators} if f.skill else {}


def num(x: float | None) -> str:
    """A number as the page shows it: an int as is, a float to 3 decimals, None as undefined."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    return fmt(x)


def task_url(source: dict[str, Any], task: Any) -> str | None:
    """Where a person opens the task (the source adapter's link, e.g. Label Studio's Data
    Manager); None without one, or when it is not an http(s) URL."""
    known = registry().get(str(source.get("type")))
    link = known.task_link(source, task) if known else None
    return link if link and link.startswith(("http://", "https://")) else None


def disputed_rows(
    f: FieldReport, tasks: Sequence[DisputedTask] | None = None
) -> tuple[Sequence[LowestTask], list[str] | None]:
    """The disputed tasks shown (in review order, at most :data:`MAX_ROWS`) and the
    annotator columns (None: one combined column). ``tasks``: every disputed task of the field
    (None: the report's lowest scores)."""
    rows = f.disputed.lowest[:MAX_ROWS] if tasks is None else lowest_scores(tasks, MAX_ROWS)
    names = sorted({k for d in rows for k in d.labels})
    return rows, names if len(names) <= MAX_LABEL_COLUMNS else None


def _trend_series(report: Report, name: str) -> list[Point]:
    t = report.trend.fields.get(name) if report.trend else None
    return t.series if t else []


def minority(labels: dict[str, Any]) -> set[str]:
    """The annotators whose label differs from the task's most common one (none on a tie)."""
    counts = Counter(plain(v) for v in labels.values()).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return set()
    return {k for k, v in labels.items() if plain(v) != counts[0][0]}


TEMPLATE = "report.html.j2"
COMPILED = Path(__file__).with_name("html_compiled.py")
"""The template compiled by Jinja2 into a module (:func:`compiled_module`), shipped beside this
file: compiling it at run time took ~0.1 s of every run that writes the page."""


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("iaa_gate.sinks.report", "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = num
    env.filters["shown"] = plain
    return env


def _source() -> str:
    return files("iaa_gate.sinks.report").joinpath(f"templates/{TEMPLATE}").read_text("utf-8")


def _fingerprint(source: str) -> str:
    """What the compiled module must have been compiled from: the template and Jinja2."""
    return f"{hashlib.sha256(source.encode()).hexdigest()} jinja2 {jinja2.__version__}"


@functools.cache
def _template() -> Template:
    """:data:`TEMPLATE`, from its compiled module when that was compiled from this template by
    this Jinja2 version, else compiled here (the same template either way)."""
    env = _environment()
    from . import html_compiled as compiled

    if getattr(compiled, "FINGERPRINT", None) == _fingerprint(_source()):
        return env.template_class.from_module_dict(env, vars(compiled), env.make_globals(None))
    return env.get_template(TEMPLATE)


def compiled_module() -> str:
    """The text of :data:`COMPILED`: :data:`TEMPLATE` compiled by Jinja2, with its fingerprint
    (after changing the template or Jinja2, :func:`write_compiled` writes it again)."""
    source = _source()
    code = _environment().compile(source, TEMPLATE, TEMPLATE, raw=True, defer_init=True)
    return (
        f"# Generated from templates/{TEMPLATE} by html.write_compiled(): do not edit.\n"
        f"FINGERPRINT = {_fingerprint(source)!r}\n{code}\n"
    )


def write_compiled() -> Path:
    """Write :data:`COMPILED` from the template:
    ``python -c "from iaa_gate.sinks.report import html; html.write_compiled()"``."""
    COMPILED.write_text(compiled_module(), encoding="utf-8")
    return COMPILED


class HtmlWriter:
    filename = "report.html"

    def render(self, report: Report, disputed: Disputed | None = None) -> str:
        """``disputed``: every disputed task by field, for up to :data:`MAX_ROWS` rows a field
        (None: the report's lowest scores)."""
        script = files("iaa_gate.sinks.report").joinpath("templates/report.js").read_text("utf-8")
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        figures = {}
        if charts.available():
            figures = {
                name: {
                    k: Markup(svg)
                    for k, svg in charts.render_field(i, f, _trend_series(report, name)).items()
                }
                for i, (name, f) in enumerate(report.fields.items())
            }
        return _template().render(
            doc=report,
            # the write-back table lists each value as it is, sections as JSON
            writeback=msgspec.to_builtins(report.writeback, enc_hook=plain_value),
            icon=ICON_TEXT,
            round_text=round_text(report.round),
            change=change_text,
            problems=[
                (name, c)
                for name, f in report.fields.items()
                for c in f.checks
                if c.verdict != "pass"
            ],
            charts=figures,
            charts_available=charts.available(),
            disputed_rows=lambda name, f: disputed_rows(f, (disputed or {}).get(name)),
            minority=minority,
            task_url=task_url,
            span_lines=span_lines,
            confused_pairs=confused_pairs,
            model_columns=MODEL_COLUMNS,
            model_rows=model_rows(report.models),
            model_label_rows=model_label_rows(report.models),
            model_note=model_note(report.models),
            label_colors=label_colors,
            disagreement_kinds=disagreement_kinds,
            proposal=proposal,
            categories_text=categories_text,
            alpha_name=alpha_name,
            sampling_note=sampling_note,
            alpha_without_note=alpha_without_note,
            skill_accuracy=skill_accuracy,
            max_rows=MAX_ROWS,
            script=Markup(script),
            script_hash=f"sha256-{digest}",
        )
