"""Formatting the report formats share (Markdown, HTML, the terminal): numbers, verdict icons,
rounds, trend changes, the most confused label pairs, and plain values."""

from __future__ import annotations

from typing import Any, Literal

from msgspec import UNSET

from ...evaluation.document import (
    AltTestReport,
    AltTestVersion,
    CheckReport,
    DisputeStates,
    FieldReport,
)
from ...evaluation.results import Consensus
from ...evaluation.sections import (
    CategoriesUsed,
    Change,
    Coincidence,
    Models,
    Point,
    Pooled,
    Round,
    Trend,
    Writeback,
)
from ...metrics.geometry import shape_of

ICON_TEXT = {"pass": "✓ pass", "warn": "⚠ warn", "fail": "✗ fail"}


def fmt(x: float | None, digits: int = 3) -> str:
    return "undefined" if x is None else f"{x:.{digits}f}"


def plain(v: Any) -> str:
    """A setting or count as a person reads it: ``yes``/``no`` for booleans, ``—`` for none,
    lists joined by commas; never a Python repr such as ``False`` or ``None``."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "—"
    if isinstance(v, (list, tuple)):
        return ", ".join(plain(x) for x in v)
    return str(v)


def round_text(r: Round | None) -> str:
    if not r:
        return "all annotations"
    parts = []
    if r.from_ or r.to:
        parts.append(f"annotations from {r.from_ or '…'} to {r.to or '…'}")
    if r.task_ids:
        parts.append(f"tasks {r.task_ids}")
    return "; ".join(parts)


def confused_pairs(co: Coincidence | None, top: int = 5) -> list[tuple[str, str, float]]:
    """The ``top`` label pairs with the most coincidences off the diagonal: (a, b, count)."""
    if not co:
        return []
    labels, m = co.labels, co.matrix
    pairs = sorted(
        (
            (m[i][j], labels[i], labels[j])
            for i in range(len(labels))
            for j in range(i + 1, len(labels))
            if m[i][j] > 0
        ),
        reverse=True,
    )[:top]
    return [(a, b, w) for w, a, b in pairs]


def change_text(rec: Change) -> str:
    """A trend record's change as ▲/▼ and a signed number, or its note."""
    if rec.change is None:
        return rec.note or "—"
    arrow = "▲" if rec.change > 0 else "▼" if rec.change < 0 else "="
    return f"{arrow} {rec.change:+.3f}"


def proposal(c: Consensus | None) -> str:
    """A consensus in words: "PER (0.93)", "tie: A or B (0.50)", regions as their labels."""
    if c is None:
        return "—"
    v = c.value
    if isinstance(v, list):
        shown = ", ".join(
            str(x.get("label") or "(no label)") if isinstance(x, dict) else str(x) for x in v
        )
        v = shown or "nothing"
    return f"{'tie: ' if c.tie else ''}{v} ({c.posterior:.2f})"


MODEL_COLUMNS = (
    "field",
    "model version",
    "tasks",
    "agreement with consensus",
    "annotators (mean)",
    "started from it",
    "did not",
)
"""The columns of the model predictions table (:func:`model_rows`)."""


def _group(g: Pooled | None) -> str:
    """Human–prediction agreement of one group of annotations, with its count."""
    if not g or not g.n:
        return "—"
    return f"{fmt(g.agreement)} (n={g.n})"


def model_rows(models: Models | None) -> list[tuple[str, ...]]:
    """One row of text per field and model version, in :data:`MODEL_COLUMNS` order: its
    agreement with the human consensus, the annotators' mean against the same consensus, and
    the human–prediction agreement of annotations that started from the prediction or not."""
    rows: list[tuple[str, ...]] = []
    for name, f in (models.fields if models else {}).items():
        people = [a.agreement for a in f.annotators if a.agreement is not None]
        mean = sum(people) / len(people) if people else None
        for v in f.versions:
            rows.append(
                (
                    name,
                    v.model_version,
                    str(v.n_tasks),
                    fmt(v.agreement),
                    fmt(mean),
                    _group(v.started_from_it or None),
                    _group(v.not_started_from_it or None),
                )
            )
    return rows


def model_label_rows(models: Models | None) -> list[tuple[str, str, str, str, str]]:
    """``(field, model version, label, tasks, agreement)`` per consensus label."""
    return [
        (name, v.model_version, label, str(rec.n_tasks), fmt(rec.agreement))
        for name, f in (models.fields if models else {}).items()
        for v in f.versions
        for label, rec in (v.labels or {}).items()
    ]


def model_note(models: Models | None) -> str | None:
    """Why some model predictions were not compared (None: all were read)."""
    n = models.ids_only if models else 0
    if not n:
        return None
    return (
        f"{n} model prediction(s) are given by id only in the source, so they were not "
        "compared: export the predictions in full (an export snapshot with "
        "serialization_options.predictions.only_id false) or read the project live"
    )


ALT_TEST_COLUMNS = (
    "field",
    "model version",
    "result",
    "ω winning rate",
    "ρ advantage",
    "ε",
    "humans tested",
    "instances",
    "scoring",
)
"""The columns of the alt-test table (:func:`alt_test_rows`)."""
ALT_TEST_HUMAN_COLUMNS = (
    "annotator",
    "instances",
    "p-value",
    "decision",
    "model ≥ human",
    "human ≥ model",
    "human's score",
    "model's score",
)
"""The columns of one model version's per-human table (:func:`alt_test_human_rows`)."""


def alt_test_versions(alt: AltTestReport | None) -> list[tuple[str, AltTestVersion]]:
    """``(field, version)`` of every model version tested, field by field."""
    return [(name, v) for name, vs in (alt.fields if alt else {}).items() for v in vs]


def alt_test_result(v: AltTestVersion) -> str:
    """ "passes", "does not pass" or "not tested"."""
    return {True: "passes", False: "does not pass", None: "not tested"}[v.passed]


def alt_test_line(field: str, v: AltTestVersion) -> str:
    """One model version on one field in a line: "gpt-4o on sentiment: passes the alt-test
    (ω 0.75, ρ 0.77, ε 0.15, 4 humans)", or why it was not tested."""
    head = f"{v.model_version} on {field}: "
    if v.passed is None:
        return head + f"not tested ({v.not_tested})"
    n = v.n_humans_tested
    return head + (
        f"{alt_test_result(v)} the alt-test (ω {fmt(v.winning_rate, 2)}, "
        f"ρ {fmt(v.advantage_probability, 2)}, ε {v.epsilon:g}, {n} human{'s' * (n != 1)})"
    )


def alt_test_rows(alt: AltTestReport | None) -> list[tuple[str, ...]]:
    """One row of text per field and model version, in :data:`ALT_TEST_COLUMNS` order."""
    return [
        (
            name,
            v.model_version,
            alt_test_result(v),
            fmt(v.winning_rate) if v.passed is not None else "—",
            fmt(v.advantage_probability) if v.passed is not None else "—",
            f"{v.epsilon:g}",
            str(v.n_humans_tested),
            str(v.n_instances),
            v.scoring,
        )
        for name, v in alt_test_versions(alt)
    ]


def alt_test_human_rows(v: AltTestVersion) -> list[tuple[str, ...]]:
    """One model version's humans, in :data:`ALT_TEST_HUMAN_COLUMNS` order."""
    rows: list[tuple[str, ...]] = []
    for h in v.humans:
        p = h.p_value
        shown = (
            "—"
            if not h.tested
            else f"undefined ({h.p_value_undefined_reason})"
            if p is None
            else f"{p:.3g}"
        )
        figures = (h.model_advantage, h.human_advantage, h.human_score, h.model_score)
        rows.append(
            (
                h.name,
                str(h.n_instances),
                shown,
                h.decision,
                *(fmt(x) if h.tested else "—" for x in figures),
            )
        )
    return rows


def alt_test_trend(trend: Trend | None) -> list[str]:
    """Each model version's ω and ρ against the previous round, a line each."""
    out = []
    for name, versions in (trend.alt_test or {} if trend else {}).items():
        for version, rec in versions.items():
            parts = []
            for r, sign in ((rec.winning_rate, "ω"), (rec.advantage_probability, "ρ")):
                if r.change is None:
                    parts.append(f"{sign} {fmt(r.current, 2)} ({r.note})")
                else:
                    parts.append(
                        f"{sign} {fmt(r.previous, 2)} → {fmt(r.current, 2)} ({r.change:+.2f})"
                    )
            out.append(f"{version} on {name} since the previous round: " + ", ".join(parts))
    return out


def alt_test_details(v: AltTestVersion) -> list[str]:
    """The comparisons beside the test, one sentence each: against the humans' consensus, the
    label distribution or the mean offset."""
    out = []
    c = v.consensus
    if c and c.n_tasks:
        out.append(
            f"{c.measure.capitalize()}: the model {fmt(c.model)} over {c.n_tasks} "
            f"tasks; each human against the others' {c.measure.split()[-1]} (leave one out) "
            f"{fmt(c.humans)}"
        )
    if v.labels:
        shares = ", ".join(
            f"{label} {s.model:.0%} (humans {s.humans:.0%})" for label, s in v.labels.items()
        )
        out.append(f"Labels the model gives: {shares}")
    if v.mean_offset is not None:
        out.append(f"Mean offset from the humans' mean rating: {v.mean_offset:+.3f}")
    return out


def consensus_text(writeback: Writeback | None) -> str | None:
    """The consensus predictions written back, in a line (None: none were asked for)."""
    c = writeback.consensus if writeback else None
    if not c:
        return None
    head = f"consensus predictions ({c.model_version}): "
    if c.dry_run:
        text = head + f"{c.planned} would change (dry run)"
    else:
        done = (
            ("created", c.created),
            ("replaced", c.replaced),
            ("deleted", c.deleted),
            ("unchanged", c.unchanged),
        )
        text = head + ", ".join(f"{n} {k}" for k, n in done)
    if c.ties:
        text += f"; {c.ties} disputed answer(s) tie, so nothing is proposed for them"
    if c.failed:
        text += f"; {c.failed} failed (a re-run writes them)"
    return text


def overlap_text(writeback: Writeback | None) -> str | None:
    """The overlap that follows the plan, in a line (None: not asked for): "overlap: sentiment:
    width 0.09 ≤ 0.10 after 412 overlapped tasks; 1,588 tasks set to one annotator (83 kept for
    audit): 1,505 annotations saved"."""
    o = writeback.overlap if writeback else None
    if not o:
        return None
    if o.error:  # the tasks could not be listed: the next run tries again
        return f"overlap: not set ({o.error})"
    goal = o.target_width
    parts = []
    for f in o.fields:
        if f.width is None:
            width = f"width undefined ({f.undefined or 'no interval'})"
        else:
            width = f"width {f.width:.2f} {'≤' if f.width <= goal else '>'} {goal:.2f}"
        parts.append(f"{f.field}: {width} after {f.overlapped_tasks:,} overlapped tasks")
    if not parts:
        parts.append("no field with alpha's interval")
    if o.settled:
        verb = "would be set" if o.dry_run else "set"
        parts.append(
            f"{o.open_tasks:,} tasks {verb} to one annotator ({o.audit:,} kept for audit): "
            f"{o.annotations_saved:,} annotations saved"
        )
    else:
        parts.append(
            f"the {o.open_tasks:,} tasks not yet labelled keep the project's overlap "
            f"({o.maximum_annotations} annotators)"
            + (f", {o.raised:,} raised again" if o.raised else "")
        )
    if o.dry_run:
        parts.append(f"dry run: {o.planned:,} tasks would change")
    elif o.planned:
        parts.append(f"{o.done:,} tasks written")
    if o.answered_meanwhile:
        parts.append(f"{o.answered_meanwhile:,} answered meanwhile, left as they are")
    if o.failed:
        parts.append(f"{o.failed:,} failed (a re-run writes them)")
    if o.note:
        parts.append(o.note)
    return "overlap: " + "; ".join(parts)


def categories_text(used: CategoriesUsed) -> str:
    """The categories an ordered field's kappa family and AC2 use, and where they come from:
    "1, 2, 3, 4, 5 (from the labeling config's maxRating)"."""
    return ", ".join(str(v) for v in used.values) + f" (from {used.source})"


def alpha_name(f: FieldReport) -> str:
    """What a field's alpha is, in words: region fields say per character or over matched
    regions."""
    shape = f.regions.shape if f.regions else None
    if shape and shape_of(shape).linear:
        return (
            "Krippendorff's alpha per character (nominal: each character a unit, labelled by "
            "the span covering it)"
        )
    if shape:
        return 'Krippendorff\'s alpha over matched regions (nominal, "(unmatched)" a category)'
    return f"Krippendorff's alpha ({f.level})"


def sampling_note(f: FieldReport) -> str | None:
    """A field whose alpha has a sampled expected disagreement (``alpha_sampling``) says so,
    with alpha's standard error from the sampling; None when alpha is exact."""
    s = f.alpha_sampling
    if not s:
        return None
    se = "undefined" if s.standard_error is None else f"{s.standard_error:.2g}"
    return (
        f"Sampled: alpha's expected disagreement is estimated from {s.pairs:,} drawn pairs "
        f"of ratings (expected_sample), not every pair; standard error of alpha from the "
        f"sampling {se}"
    )


CEILINGS = ("interval_width",)
"""Checks whose bars are ceilings (the value must not be above them), under the reports'
"fail below / warn below" columns."""


def bar_text(check: CheckReport, key: Literal["fail", "warn"]) -> str:
    """A check's ``fail`` or ``warn`` bar as its column shows it: ``0.8``, or ``above 0.1`` for
    a ceiling; ``—`` when not set."""
    x = check.fail if key == "fail" else check.warn
    if x is None:
        return "—"
    return f"above {x:g}" if check.name in CEILINGS else f"{x:g}"


def width_text(f: FieldReport) -> str | None:
    """Alpha's interval width beside alpha, in words: ``95% interval width 0.101`` and, with
    a goal (``thresholds.interval_width``), ``, wider than 0.1: about 166 more tasks would
    narrow it`` or ``, at most 0.1``; None when alpha has no interval and no goal is set."""
    w = f.interval_width
    if not w or (w.width is None and w.goal is None):
        return None
    if w.width is None:
        return f"alpha's interval width is undefined ({w.undefined_reason})"
    text = f"{w.confidence or 0:.0%} interval width {w.width:.3f}"
    if w.goal is None:
        return text
    if w.more_tasks is None:
        return f"{text}, at most {w.goal:g}"
    return (
        f"{text}, wider than {w.goal:g}: about {w.more_tasks:,} more tasks with two or "
        "more ratings would narrow it"
    )


def alpha_without_note(f: FieldReport) -> str | None:
    """Region fields: what "alpha without" changes from (None elsewhere)."""
    if not f.regions:
        return None
    return (
        f"Alpha without (regions): the matched-region alpha without the annotator; the change is "
        f"from the matched-region alpha with everyone, {fmt(f.regions.annotator_alpha.value)}"
        + (" (not the per-character alpha above)." if shape_of(f.regions.shape).linear else ".")
    )


DISPUTE_STATES = ("resolved", "settled", "routed", "open")
"""The states of a dispute as the reports list them, from final to waiting."""


def disputes_line(d: DisputeStates | None) -> str | None:
    """A field's disputes by state (``fields.<f>.disputes``) in words: "57 disputed: 12
    resolved, 8 settled, 9 routed, 28 open" and, when there are any, the adjudicated answers
    that confirmed the proposal and the tasks that need a person (None: not counted)."""
    if not d:
        return None
    states = ", ".join(f"{d.states[s]} {s}" for s in DISPUTE_STATES)
    line = f"{d.n_disputed} disputed: {states}"
    if d.proposal_compared:
        line += f"; proposal confirmed {d.proposal_confirmed} of {d.proposal_compared}"
    if d.needs_a_person:
        line += f"; {d.needs_a_person} need a person (routed to the most annotators allowed)"
    if d.conflicting:
        ids = ", ".join(map(str, d.conflicting))
        line += f"; adjudications disagree on {ids} (left open)"
    return line


def burn_down(series: list[Point]) -> str | None:
    """Open disputes run by run, oldest first ("28 → 20 → 9"; ? for a run that did not count
    them); None when this run did not count them."""
    if not series or series[-1].disputes is UNSET:
        return None
    return " → ".join(str(p.disputes["open"]) if p.disputes else "?" for p in series)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def writeback_lines(wb: Writeback) -> list[str]:
    """The write-back in words (the terminal summary, Markdown, HTML): a sentence with its
    counts, the consensus predictions' sentence, then (a dry run) what would change on each
    task, indented."""
    dry = wb.dry_run
    if wb.target == "label-studio":
        where = f"Label Studio project {wb.project}"
        if dry:
            head = (
                f"write-back (dry run, nothing written): {_n(wb.planned or 0, 'task')} of "
                f"{where} would change, {wb.unchanged} unchanged ({wb.disputed} disputed in all)"
            )
        else:
            head = (
                f"write-back: {_n(wb.done or 0, 'task')} flagged in {where}, "
                f"{wb.unchanged} unchanged ({wb.disputed} disputed in all)"
            )
            more = [
                (wb.already_done or 0, "already written by another run"),
                (wb.skipped or 0, "skipped: edited in Label Studio since the pull"),
                (wb.failed or 0, "failed: a re-run writes them"),
                (wb.routed or 0, "re-opened for one more annotator"),
            ]
            head += "".join(f"; {n} {what}" for n, what in more if n)
        if wb.view:
            view = {"would create": "would be created", "would update": "would be updated"}
            head += f"; tab {wb.view_title!r} {view.get(wb.view, wb.view)}"
        lines = [head]
    elif wb.disputed_examples is not UNSET:  # Prodigy: the review file
        verb = "would write" if dry else "wrote"
        lines = [
            f"write-back: {verb} {_n(wb.disputed_examples, 'disputed example')} to "
            f"{wb.target} for prodigy review ({wb.consensus_lines} with a proposed answer)"
        ]
    else:
        lines = [
            "write-back: " + ", ".join(f"{k.replace('_', ' ')} {plain(v)}" for k, v in wb.shown())
        ]
    lines += [f"  {text}" for text in (consensus_text(wb), overlap_text(wb)) if text]
    changes = wb.changes or []
    for c in changes[:50]:  # --dry-run: what would change on each task
        was = None if c.was is UNSET else c.was
        lines.append(f"  task {c.id}: {task_change_text(was, c.now, c.data or False)}")
    if len(changes) > 50:
        lines.append(f"  … and {len(changes) - 50} more (all in report.json)")
    return lines


def task_change_text(was: str | None, now: str | None, data: bool | None = False) -> str:
    """What a write-back would change on one task, in words (``was``/``now``: its status)."""
    if was is None and now is not None:
        text = f"would be flagged {now} (no entry yet)"
    elif now is None:
        text = f"its {was or ''} entry would be removed (the task is no longer evaluated)"
    elif was != now:
        text = f"would go from {was} to {now}"
    else:
        text = f"stays {now}; its scores would be updated"
    return text + ("; its data columns too" if data else "")
