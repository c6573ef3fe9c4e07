"""Formatting the report formats share (Markdown, HTML, the terminal): numbers, verdict icons,
rounds, trend changes, the most confused label pairs, and plain values."""

from __future__ import annotations

from typing import Any

from ...evaluation.document import FieldReport
from ...evaluation.results import Consensus
from ...evaluation.sections import (
    CategoriesUsed,
    Change,
    Coincidence,
    Models,
    Pooled,
    Round,
    Writeback,
)

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


def consensus_text(writeback: Writeback | None) -> str | None:
    """The consensus predictions written back, in a line (None: none were asked for)."""
    c = writeback.consensus if writeback else None
    if not c:
        return None
    counts = (
        ("planned", c.planned),
        ("created", c.created),
        ("replaced", c.replaced),
        ("deleted", c.deleted),
        ("unchanged", c.unchanged),
        ("ties", c.ties),
        ("failed", c.failed),
    )
    head = "would change" if c.dry_run else "consensus predictions"
    return f"{head} ({c.model_version}): " + ", ".join(f"{k} {n}" for k, n in counts)


def categories_text(used: CategoriesUsed) -> str:
    """The categories an ordered field's kappa family and AC2 use, and where they come from:
    "1, 2, 3, 4, 5 (from the labeling config's maxRating)"."""
    return ", ".join(str(v) for v in used.values) + f" (from {used.source})"


def alpha_name(f: FieldReport) -> str:
    """What a field's alpha is, in words: region fields say per character or over matched
    regions."""
    shape = f.regions.shape if f.regions else None
    if shape == "span":
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


def alpha_without_note(f: FieldReport) -> str | None:
    """Region fields: what "alpha without" changes from (None elsewhere)."""
    if not f.regions:
        return None
    return (
        f"Alpha without (regions): the matched-region alpha without the annotator; the change is "
        f"from the matched-region alpha with everyone, {fmt(f.regions.annotator_alpha.value)}"
        + (" (not the per-character alpha above)." if f.regions.shape == "span" else ".")
    )
