"""Charts for ``report.html``: inline SVG drawn directly, with no plotting library.

Four shapes cover every chart of the report: horizontal bars (agreement per category), a
heatmap (coincidences, annotator × annotator agreement), a histogram (per-task scores) and a
line (alpha over the last rounds). Each is a few dozen SVG elements written as text: the page
stays self-contained, needs no script to show them, passes its content security policy, and
drawing all of a report's charts costs less than importing a plotting library
(bench/README.md). Every piece of text is XML-escaped; the output is deterministic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from html import escape
from typing import Any

from ...evaluation.document import FieldReport
from ...evaluation.sections import Point

FAIL, WARN, OK, MUTED, INK, GRID = "#b42318", "#b54708", "#2e6f9e", "#98a2b3", "#222", "#d0d5dd"
MAX_BARS = 40
MAX_CELL_TEXT = 16  # heatmaps with more rows than this show colours without numbers
MAX_LABEL = 28  # characters of a label on an axis; the tables show it whole
CHAR = 6.2  # pixels per character of an 11 px label, on average
FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="11"'
BLUES = ((247, 251, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107))
"""Stops of the heatmaps' colour scale, light to dark (the "Blues" of ColorBrewer)."""


def available() -> bool:
    """Whether charts can be drawn: always, since they need no plotting library. (Kept so a
    page can still be rendered with tables alone.)"""
    return True


def _short(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def _text(x: float, y: float, s: str, **attrs: Any) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{escape(str(v))}"' for k, v in attrs.items())
    return f'<text x="{x:.1f}" y="{y:.1f}"{extra}>{escape(s)}</text>'


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(title)}" {FONT} '
        f'fill="{INK}"><title>{escape(title)}</title>' + "".join(body) + "</svg>"
    )


def _nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top`` (whole numbers for counts)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    step = 10 ** math.floor(math.log10(raw))
    step = next(m * step for m in (1, 2, 5, 10) if m * step >= raw)
    step = max(step, 1.0) if top >= 1 else step
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def _fmt_tick(v: float) -> str:
    return f"{v:g}"


def category_bars(
    salt: str,
    categories: dict[str, float | None],
    warn: float | None,
    fail: float | None,
    *,
    title: str = "Agreement per category",
    axis: str = "agreement",
) -> str:
    """Horizontal bars, one per category (0–1), the lowest :data:`MAX_BARS` when there are more;
    the category check's thresholds drawn as lines; undefined ones labelled, without a bar.
    ``title`` and ``axis`` name the chart and its axis."""
    items = list(categories.items())
    if len(items) > MAX_BARS:
        items = sorted(items, key=lambda kv: -1.0 if kv[1] is None else kv[1])[:MAX_BARS]
    labels = [_short(k) for k, _ in items]
    left = 12 + CHAR * max((len(x) for x in labels), default=1)
    plot, row, top = 300.0, 20.0, 22.0
    scale = plot / 1.12
    height = top + row * len(items) + 36
    body = []
    for t in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        x = left + t * scale
        body.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{height - 32:.1f}" stroke="{GRID}"/>'
        )
        body.append(_text(x, height - 18, _fmt_tick(t), text_anchor="middle"))
    body.append(_text(left + plot / 2, height - 4, axis, text_anchor="middle"))
    for i, (label, (_, v)) in enumerate(zip(labels, items, strict=True)):
        y = top + i * row
        color = (
            MUTED
            if v is None
            else FAIL
            if fail is not None and v < fail
            else WARN
            if warn is not None and v < warn
            else OK
        )
        body.append(_text(left - 6, y + row / 2 + 4, label, text_anchor="end"))
        width = 0.0 if v is None else max(v, 0.0) * scale
        body.append(
            f'<rect x="{left:.1f}" y="{y + 3:.1f}" width="{width:.1f}" height="{row - 6:.1f}" '
            f'fill="{color}"/>'
        )
        shown = "undefined" if v is None else f"{v:.3f}"
        body.append(_text(left + width + 4, y + row / 2 + 4, shown))
    for bar, color, name in ((fail, FAIL, "fail"), (warn, WARN, "warn")):
        if bar is not None:
            x = left + bar * scale
            body.append(
                f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - 32:.1f}" '
                f'stroke="{color}" stroke-dasharray="4 3"/>'
            )
            body.append(_text(x, top - 8, f"{name} {bar:g}", text_anchor="middle", fill=color))
    return _svg(left + plot + 60, height, title, body)


def advantage_bars(rho: dict[str, float | None]) -> str:
    """The alt-test's advantage probability ρ, one bar per model version and field (0–1,
    higher is better); a version that could not be tested is labelled without a bar."""
    return category_bars(
        "alt",
        rho,
        None,
        None,
        title="Advantage probability ρ per model version",
        axis="ρ: how often the model is as good as or better than a human",
    )


def _blue(t: float) -> tuple[str, bool]:
    """The colour at ``t`` (0–1) on :data:`BLUES`, and whether text on it should be white."""
    t = min(max(t, 0.0), 1.0) * (len(BLUES) - 1)
    i = min(int(t), len(BLUES) - 2)
    f = t - i
    rgb = [round(a + (b - a) * f) for a, b in zip(BLUES[i], BLUES[i + 1], strict=True)]
    return "#{:02x}{:02x}{:02x}".format(*rgb), t > (len(BLUES) - 1) / 2


def heatmap(
    salt: str,
    matrix: Sequence[Sequence[float | None]],
    labels: list[str],
    text: list[list[str]],
    *,
    marked: Sequence[bool] = (),
    vmin: float = 0.0,
    vmax: float = 1.0,
) -> str:
    """A square heatmap with ``text`` in each cell (when it fits); ``None`` cells are blank;
    labels with ``marked`` True are drawn in red and starred."""
    n = len(labels)
    shown = [
        f"★ {_short(name)}" if i < len(marked) and marked[i] else _short(name)
        for i, name in enumerate(labels)
    ]
    cell = max(12.0, min(44.0, 440.0 / max(n, 1)))
    room = 12 + CHAR * max((len(x) for x in shown), default=1)
    below = 10 + room * 0.7  # the column labels, at 40 degrees
    width, height = room + n * cell + 10, 8 + n * cell + below
    body = []
    span = (vmax - vmin) or 1.0
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            x, y = room + j * cell, 8 + i * cell
            if v is None or (isinstance(v, float) and math.isnan(v)):
                fill, dark = "#ffffff", False
            else:
                fill, dark = _blue((v - vmin) / span)
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                f'fill="{fill}" stroke="#ffffff"/>'
            )
            if n <= MAX_CELL_TEXT and text[i][j]:
                lines = text[i][j].split("\n")
                color = "#ffffff" if dark else INK
                for k, line in enumerate(lines):
                    dy = (k - (len(lines) - 1) / 2) * 10
                    body.append(
                        _text(
                            x + cell / 2,
                            y + cell / 2 + 3 + dy,
                            line,
                            text_anchor="middle",
                            font_size="8.5",
                            fill=color,
                        )
                    )
    for i, name in enumerate(shown):
        color = FAIL if i < len(marked) and marked[i] else INK
        y = 8 + i * cell + cell / 2 + 4
        body.append(_text(room - 6, y, name, text_anchor="end", fill=color))
        x, y0 = room + i * cell + cell / 2, 8 + n * cell + 10
        body.append(
            _text(
                x,
                y0,
                name,
                text_anchor="end",
                fill=color,
                transform=f"rotate(-40 {x:.1f} {y0:.1f})",
            )
        )
    return _svg(width, height, "Heatmap", body)


def score_histogram(salt: str, edges: list[float], counts: list[int], disputed_below: float) -> str:
    """Tasks per score bin; bins below the disputed threshold in red, the threshold drawn. The
    count axis has whole-number ticks."""
    left, top, plot_w, plot_h = 44.0, 14.0, 400.0, 140.0
    ticks = _nice_ticks(max(counts, default=0))
    ymax = ticks[-1] or 1.0
    body = []
    for t in ticks:
        y = top + plot_h - t / ymax * plot_h
        body.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{GRID}"/>'
        )
        body.append(_text(left - 6, y + 4, f"{t:.0f}", text_anchor="end"))
    for (a, b), c in zip(itertools.pairwise(edges), counts, strict=True):
        h = c / ymax * plot_h
        color = FAIL if a < disputed_below else OK
        body.append(
            f'<rect x="{left + a * plot_w + 0.5:.1f}" y="{top + plot_h - h:.1f}" '
            f'width="{max((b - a) * plot_w - 1, 0.5):.1f}" height="{h:.1f}" fill="{color}"/>'
        )
    for t in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        body.append(_text(left + t * plot_w, top + plot_h + 14, _fmt_tick(t), text_anchor="middle"))
    x = left + disputed_below * plot_w
    body.append(
        f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="{INK}" '
        'stroke-dasharray="4 3"/>'
    )
    anchor = "start" if disputed_below < 0.6 else "end"
    body.append(
        _text(
            x + (4 if anchor == "start" else -4),
            top + 10,
            f"disputed below {disputed_below:g}",
            text_anchor=anchor,
        )
    )
    body.append(
        _text(
            left + plot_w / 2,
            top + plot_h + 30,
            "task score (1 = every pair agrees)",
            text_anchor="middle",
        )
    )
    y_mid = top + plot_h / 2
    body.append(
        _text(12, y_mid, "tasks", text_anchor="middle", transform=f"rotate(-90 12 {y_mid})")
    )
    return _svg(left + plot_w + 16, top + plot_h + 38, "Per-task scores", body)


def trend_line(salt: str, series: list[Point], warn: float | None, fail: float | None) -> str:
    """Alpha per round, oldest first, this round last; undefined rounds left as gaps."""
    left, top, plot_w, plot_h = 44.0, 12.0, 400.0, 110.0
    values = [p.alpha for p in series]
    known = [v for v in values if v is not None] + [b for b in (warn, fail) if b is not None]
    lo = math.floor(min(known, default=0.0) * 10) / 10
    hi = math.ceil(max(known, default=1.0) * 10) / 10
    if hi - lo < 0.2:
        lo, hi = lo - 0.1, hi + 0.1
    n = len(series)

    def px(i: int) -> float:
        return left + (plot_w * (i + 0.5) / n)

    def py(v: float) -> float:
        return top + plot_h - (v - lo) / (hi - lo) * plot_h

    body = []
    steps = round((hi - lo) / 0.1)
    for k in range(0, steps + 1, max(1, steps // 5)):
        v = lo + k * 0.1
        y = py(v)
        body.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{GRID}"/>'
        )
        body.append(_text(left - 6, py(v) + 4, f"{v:.1f}", text_anchor="end"))
    for bar, color in ((fail, FAIL), (warn, WARN)):
        if bar is not None:
            body.append(
                f'<line x1="{left}" y1="{py(bar):.1f}" x2="{left + plot_w}" y2="{py(bar):.1f}" '
                f'stroke="{color}" stroke-dasharray="4 3"/>'
            )
    runs: list[list[tuple[float, float]]] = [[]]
    for i, value in enumerate(values):
        if value is None:
            runs.append([])
        else:
            runs[-1].append((px(i), py(value)))
    for run in runs:
        if len(run) > 1:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            body.append(f'<polyline points="{points}" fill="none" stroke="{OK}" stroke-width="2"/>')
        body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{OK}"/>' for x, y in run]
    y0 = top + plot_h + 12
    for i, p in enumerate(series):
        label = "this round" if i == n - 1 else str(p.generated_at or "")[:10]
        x = px(i)
        body.append(_text(x, y0, label, text_anchor="end", transform=f"rotate(-20 {x:.1f} {y0})"))
    y_mid = top + plot_h / 2
    body.append(
        _text(12, y_mid, "alpha", text_anchor="middle", transform=f"rotate(-90 12 {y_mid})")
    )
    return _svg(left + plot_w + 16, top + plot_h + 62, "Alpha over the last rounds", body)


def _pair_text(values: list[list[float | None]], shared: list[list[int]]) -> list[list[str]]:
    """Heatmap cell text of an annotator pair matrix: the value and the tasks both rated."""
    return [
        [f"n={n}" if x is None else f"{x:.2f}\nn={n}" for x, n in zip(row, counts, strict=True)]
        for row, counts in zip(values, shared, strict=True)
    ]


def render_field(index: int, f: FieldReport, series: list[Point] | None = None) -> dict[str, str]:
    """Every chart of one report field, by name: categories, coincidence, annotators, scores,
    and ``series`` (alpha over the last rounds) when it has two points or more."""
    out: dict[str, str] = {}
    salt = f"f{index}"
    category = next((c for c in f.checks if c.name == "category"), None)
    if f.categories:
        warn, fail = (category.warn, category.fail) if category else (None, None)
        out["categories"] = category_bars(f"{salt}c", f.categories, warn, fail)
    co = f.coincidence
    if co and co.labels:
        rows = co.matrix
        share = [[x / s if (s := sum(row)) else None for x in row] for row in rows]
        text = [[f"{x:.1f}".removesuffix(".0") for x in row] for row in rows]
        out["coincidence"] = heatmap(f"{salt}m", share, co.labels, text)
    pw = f.pairwise
    if pw and len(pw.annotators) >= 2:
        agree = pw.agreement
        text = _pair_text(agree, pw.shared)
        marked = [a.outlier for a in f.annotators]
        lowest = min((x for row in agree for x in row if x is not None), default=1.0)
        out["pairwise"] = heatmap(
            f"{salt}p",
            agree,
            pw.annotators,
            text,
            marked=marked,
            vmin=min(0.5, math.floor(lowest * 10) / 10),  # contrast where agreements sit
        )
    if series and len(series) >= 2:
        alpha = next((c for c in f.checks if c.name == "alpha"), None)
        bars = (alpha.warn, alpha.fail) if alpha else (None, None)
        out["trend"] = trend_line(f"{salt}t", series, *bars)
    if f.regions:  # F1 per label is the field's categories
        ann = f.regions.annotators
        if len(ann.names) >= 2:
            text = _pair_text(ann.f1, ann.shared_tasks)
            outliers = {a.name for a in f.annotators if a.outlier}
            marked = [name in outliers for name in ann.names]
            out["region_pairs"] = heatmap(f"{salt}q", ann.f1, ann.names, text, marked=marked)
    hist = f.score_histogram
    if sum(hist.counts):
        out["scores"] = score_histogram(f"{salt}s", hist.edges, hist.counts, f.disputed_below)
    return out
