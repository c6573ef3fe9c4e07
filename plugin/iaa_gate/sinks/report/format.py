"""Formatting the report formats share (Markdown, HTML, the terminal): numbers, verdict icons,
rounds, trend changes, the most confused label pairs, and plain values."""

from __future__ import annotations

from typing import Any

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


def round_text(r: dict[str, Any] | None) -> str:
    if not r:
        return "all annotations"
    parts = []
    if r.get("from") or r.get("to"):
        parts.append(f"annotations from {r.get('from') or '…'} to {r.get('to') or '…'}")
    if r.get("task_ids"):
        parts.append(f"tasks {r['task_ids']}")
    return "; ".join(parts)


def confused_pairs(co: dict[str, Any] | None, top: int = 5) -> list[tuple[str, str, float]]:
    """The ``top`` label pairs with the most coincidences off the diagonal: (a, b, count)."""
    if not co:
        return []
    labels, m = co["labels"], co["matrix"]
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


def change_text(rec: dict[str, Any]) -> str:
    """A trend record's change as ▲/▼ and a signed number, or its note."""
    if rec["change"] is None:
        return rec["note"] or "—"
    arrow = "▲" if rec["change"] > 0 else "▼" if rec["change"] < 0 else "="
    return f"{arrow} {rec['change']:+.3f}"


def proposal(c: dict[str, Any] | None) -> str:
    """A consensus in words: "PER (0.93)", "tie: A or B (0.50)", regions as their labels."""
    if c is None:
        return "—"
    v = c["value"]
    if isinstance(v, list):
        shown = ", ".join(
            str(x.get("label") or "(no label)") if isinstance(x, dict) else str(x) for x in v
        )
        v = shown or "nothing"
    return f"{'tie: ' if c['tie'] else ''}{v} ({c['posterior']:.2f})"


def categories_text(used: dict[str, Any]) -> str:
    """The categories an ordered field's kappa family and AC2 use, and where they come from:
    "1, 2, 3, 4, 5 (from the labeling config's maxRating)"."""
    return ", ".join(str(v) for v in used["values"]) + f" (from {used['source']})"


def alpha_name(f: dict[str, Any]) -> str:
    """What a field's alpha is, in words: region fields say per character or over matched
    regions."""
    shape = (f.get("regions") or {}).get("shape")
    if shape == "span":
        return (
            "Krippendorff's alpha per character (nominal: each character a unit, labelled by "
            "the span covering it)"
        )
    if shape:
        return 'Krippendorff\'s alpha over matched regions (nominal, "(unmatched)" a category)'
    return f"Krippendorff's alpha ({f['level']})"


def alpha_without_note(f: dict[str, Any]) -> str | None:
    """Region fields: what "alpha without" changes from (None elsewhere)."""
    base = (f.get("regions") or {}).get("annotator_alpha")
    if not base:
        return None
    return (
        f"Alpha without (regions): the matched-region alpha without the annotator; the change is "
        f"from the matched-region alpha with everyone, {fmt(base['value'])}"
        + (" (not the per-character alpha above)." if f["regions"]["shape"] == "span" else ".")
    )
