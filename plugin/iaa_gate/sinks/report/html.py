"""``report.html``: one self-contained page (inline CSS, script and SVG charts; no network).

Jinja2 autoescapes every value; a Content-Security-Policy allows only the page's own script (by
its hash), so a label or an email holding markup is shown as text and never runs. The charts
are SVG written directly (:mod:`.charts`): no plotting library, no script needed to show them.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import functools
import hashlib
import itertools
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from ...adapters import SourceValue, registry
from ...core.extras import needed
from ...evaluation.document import (
    Disputed,
    DisputedTask,
    FieldReport,
    LowestTask,
    Report,
    lowest_scores,
)
from ...evaluation.sections import Point
from ...metrics.geometry import shape_of
from ...model import TaskId, annotator
from . import charts
from .format import (
    ALT_TEST_COLUMNS,
    ALT_TEST_HUMAN_COLUMNS,
    ICON_TEXT,
    MODEL_COLUMNS,
    alpha_name,
    alpha_without_note,
    alt_test_details,
    alt_test_human_rows,
    alt_test_line,
    alt_test_rows,
    alt_test_trend,
    alt_test_versions,
    bar_text,
    burn_down,
    categories_text,
    change_text,
    confused_pairs,
    disputes_line,
    fmt,
    model_label_rows,
    model_note,
    model_rows,
    overlap_text,
    plain,
    proposal,
    round_text,
    sampling_note,
    width_text,
    writeback_lines,
)

with needed("html"):  # the `html` extra: imported when the format is written
    import jinja2
    from jinja2 import Environment, PackageLoader, Template, select_autoescape
    from jinja2.bccache import Bucket, BytecodeCache, FileSystemBytecodeCache
    from markupsafe import Markup, escape

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
    n = len(excerpt)
    out = []
    for who, regions in details.regions.items():
        spans = [r for r in regions if "start" in r and "end" in r]
        # offsets into the excerpt, looked up once (a page has tens of thousands of segments)
        starts = [r["start"] - offset for r in spans]
        ends = [r["end"] - offset for r in spans]
        cuts = sorted({0, n, *(min(max(x, 0), n) for x in itertools.chain(starts, ends))})
        # a sweep over the spans by start: each segment looks at the spans open there only
        # (a scan of every span per segment took minutes for 20,000 spans)
        by_start = sorted(range(len(spans)), key=starts.__getitem__)
        open_: list[int] = []  # spans begun at or before the segment, in the spans' order
        k = 0
        segments = []
        for a, b in itertools.pairwise(cuts):
            while k < len(by_start) and starts[by_start[k]] <= a:
                bisect.insort(open_, by_start[k])
                k += 1
            if open_:
                open_ = [i for i in open_ if a < ends[i]]
            segments.append((excerpt[a:b], [spans[i]["label"] for i in open_]))
        out.append((who, segments))
    return out


def _escaped(text: str) -> str:
    """``text`` as :func:`markupsafe.escape` escapes it, as a plain str: a span cell escapes
    ~150,000 values on a page of 1,000 span tasks, and a :class:`Markup` made for each took
    half the page's time. Anything but a plain str (a Markup, an object with ``__html__``)
    goes through ``escape``, which knows those."""
    if type(text) is not str:
        return str(escape(text))
    return (
        text.replace("&", "&amp;")
        .replace(">", "&gt;")
        .replace("<", "&lt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


def spans_html(lines: list[tuple[str, list[Segment]]], colors: dict[str, str]) -> Markup:
    """:func:`span_lines` as the page shows them: per annotator, the excerpt with each span
    marked in its label's colour, every value escaped. Written here rather than in the
    template: a page of 1,000 span tasks has tens of thousands of segments, and the template's
    loop over them took a tenth of a region run (bench/README.md, issue 31)."""
    out = []
    marks: dict[tuple[str, ...], tuple[str, str]] = {}  # labels → the mark around a piece
    for who, segments in lines:
        out.append(f'<div><span class="who">{_escaped(who)}</span>: <span class="text">')
        for piece, labels in segments:
            if not labels:
                out.append(_escaped(piece))
                continue
            if (mark := marks.get(key := tuple(labels))) is None:
                shown = list(map(str, labels))
                color = _escaped(colors.get(labels[0], "#e4e7ec"))
                mark = marks[key] = (
                    f'<mark style="background: {color}" title="{_escaped(", ".join(shown))}">',
                    f"<sup>{_escaped('+'.join(shown))}</sup></mark>",
                )
            out += (mark[0], _escaped(piece), mark[1])
        out.append("</span></div>")
    return Markup("".join(out))


def disagreement_kinds(d: LowestTask) -> str:
    """A region task's disagreements counted by kind: "2 missed, 1 label swap"."""
    counts: dict[str, int] = {}
    for x in d.details.disagreements if d.details else []:
        counts[x.kind] = counts.get(x.kind, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in counts.items())


SCALES = ("ordinal", "interval", "ratio")
"""Levels whose per-value exact agreement is secondary: near ratings agree in alpha."""


def largest_offset(f: FieldReport) -> str | None:
    """A scale's first figure after alpha: who rates furthest from the others on average, as
    a sentence (None: not a scale, or no offsets)."""
    offsets = [a for a in f.annotators if a.mean_offset is not None]
    if f.level not in SCALES or not offsets:
        return None
    top = max(offsets, key=lambda a: abs(a.mean_offset or 0.0))
    return (
        f"Largest mean offset: {annotator(top.name)} rates {top.mean_offset:+.2f} from the "
        "others on average. On a scale, near ratings count as near agreement in alpha; exact "
        "agreement per value (below) is secondary."
    )


def skill_accuracy(f: FieldReport) -> dict[str, float | None]:
    """Annotator id → their Dawid–Skene accuracy (empty without a fit)."""
    return {a.id: a.accuracy for a in f.skill.annotators} if f.skill else {}


def num(x: float | None) -> str:
    """A number as the page shows it: an int as is, a float to 3 decimals, None as undefined."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    return fmt(x)


def task_url(source: Mapping[str, SourceValue], task: TaskId) -> str | None:
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


def proposal_why(f: FieldReport, task: Any) -> str:
    """Why a proposal goes against the task's majority label, from Dawid–Skene's confusion
    matrices: how reliably those who gave the proposed label give it, against those who gave
    the majority's ("" when the proposal is the majority's, a tie, a region list, or the field
    has no Dawid–Skene estimate)."""
    c, skill = task.consensus, f.skill
    if c is None or c.tie or skill is None or isinstance(c.value, list):
        return ""
    given = {k: plain(v) for k, v in task.labels.items()}
    counts = Counter(given.values()).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return ""  # no majority to go against
    majority, proposed = counts[0][0], plain(c.value)
    if proposed == majority:
        return ""
    by_name = {a.name: a for a in skill.annotators}

    def reliability(label: Any) -> tuple[list[str], float | None]:
        """Who gave ``label``, and their mean P(give it | it is true)."""
        who = [n for n, v in given.items() if v == label]
        k = skill.classes.index(str(label)) if str(label) in skill.classes else None
        rows = [by_name[n].confusion for n in who if n in by_name]
        vals = [m[k][k] for m in rows if k is not None and len(m) > k]
        return who, (sum(vals) / len(vals) if vals else None)

    (who, mine), (_, theirs) = reliability(proposed), reliability(majority)
    if mine is None or theirs is None:
        return ""
    names = ", ".join(annotator(n) for n in who)
    if mine > theirs:
        verb = "is" if len(who) == 1 else "are"
        return (
            f"against the majority ({majority}): {names} {verb} more reliable on this label "
            f"(Dawid–Skene): {mine:.2f} vs {theirs:.2f}"
        )
    return (
        f"against the majority ({majority}): Dawid–Skene weighs each answer by its "
        f"annotator's confusion matrix ({names}: {mine:.2f} on this label vs {theirs:.2f})"
    )


TEMPLATE = "report.html.j2"


def cache_dir() -> Path | None:
    """Where the compiled template is kept between runs: ``$XDG_CACHE_HOME/iaa-gate`` (else
    ``~/.cache/iaa-gate``), one folder per Jinja2 and Python version, whose compiled code
    differs; None without a home (a relative ``XDG_CACHE_HOME`` is ignored, as the XDG
    specification says, rather than caching in the current folder)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    home = os.path.expanduser("~")
    if os.path.isabs(xdg):
        base = Path(xdg)
    elif os.path.isabs(home):
        base = Path(home) / ".cache"
    else:
        return None
    version = f"jinja2-{jinja2.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return base / "iaa-gate" / "templates" / version


class _QuietBytecodeCache(FileSystemBytecodeCache):
    """Jinja2's file cache of compiled templates, where a cache that cannot be read or written
    (a read-only home, a full disk) only costs the compile, never the report."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError):
            bucket.reset()  # a truncated or foreign file: compiled again, and rewritten

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache() -> BytecodeCache | None:
    """The cache in :func:`cache_dir`, or None (compile on every run) when it cannot be made."""
    folder = cache_dir()
    try:
        if folder is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _QuietBytecodeCache(str(folder))


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("iaa_gate.sinks.report", "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters["num"] = num
    env.filters["shown"] = plain
    return env


@functools.cache
def _template() -> Template:
    """:data:`TEMPLATE`, compiled once per template and Jinja2 version and kept in
    :func:`cache_dir` (Jinja2 checks the template's checksum, so an edited template is compiled
    again): compiling it on every run was a noticeable part of the quick start
    (bench/README.md "2026-11-27 (3)")."""
    return _environment().get_template(TEMPLATE)


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
        tested = alt_test_versions(report.alt_test)
        rho = {f"{v.model_version} · {name}": v.advantage_probability for name, v in tested}
        return _template().render(
            doc=report,
            # the write-back table lists each value as it is, sections as JSON
            writeback_lines=[  # the overlap's sentence is its own paragraph (#overlap)
                line
                for line in (writeback_lines(report.writeback) if report.writeback else [])
                if line.strip() != overlap_text(report.writeback)
            ],
            writeback_counts=[
                (k.replace("_", " "), v)
                for k, v in (report.writeback.shown() if report.writeback else [])
                if isinstance(v, int) and not isinstance(v, bool)
            ],
            alt_test_columns=ALT_TEST_COLUMNS,
            alt_test_rows=alt_test_rows(report.alt_test),
            alt_test_chart=Markup(charts.advantage_bars(rho))
            if tested and charts.available()
            else None,
            alt_test_versions=[
                (alt_test_line(name, v), alt_test_human_rows(v), alt_test_details(v))
                for name, v in tested
            ],
            alt_test_human_columns=ALT_TEST_HUMAN_COLUMNS,
            alt_test_trend=alt_test_trend(report.trend),
            icon=ICON_TEXT,
            round_text=round_text(report.round),
            next_steps=report.next_steps.lines() if report.next_steps is not None else [],
            overlap=overlap_text(report.writeback),
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
            spans_html=spans_html,
            shape_of=shape_of,
            confused_pairs=confused_pairs,
            model_columns=MODEL_COLUMNS,
            model_rows=model_rows(report.models),
            model_label_rows=model_label_rows(report.models),
            model_note=model_note(report.models),
            label_colors=label_colors,
            disagreement_kinds=disagreement_kinds,
            proposal=proposal,
            disputes_line=disputes_line,
            burn_down=burn_down,
            categories_text=categories_text,
            alpha_name=alpha_name,
            sampling_note=sampling_note,
            width_text=width_text,
            bar_text=bar_text,
            alpha_without_note=alpha_without_note,
            skill_accuracy=skill_accuracy,
            largest_offset=largest_offset,
            proposal_why=proposal_why,
            scales=SCALES,
            max_rows=MAX_ROWS,
            script=Markup(script),
            script_hash=f"sha256-{digest}",
        )
