"""Charts for ``report.html``: matplotlib figures rendered to inline SVG strings.

matplotlib is the optional ``iaa-gate[html]`` dependency, imported only when a chart is drawn;
:func:`available` tells whether it is installed. Text stays text in the SVG (``svg.fonttype:
none``, escaped by matplotlib), ``$`` is never read as math, and each chart gets its own id salt
so several charts can share one page and the output is deterministic.
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FAIL, WARN, OK, MUTED = "#b42318", "#b54708", "#2e6f9e", "#98a2b3"
MAX_BARS = 40
MAX_CELL_TEXT = 16  # heatmaps with more rows than this show colours without numbers
MAX_LABEL = 28  # characters of a label on an axis; the tables show it whole


def _short(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def available() -> bool:
    """Whether matplotlib is installed (``pip install "iaa-gate[html]"``)."""
    return importlib.util.find_spec("matplotlib") is not None


CHAR = 0.068  # inches per character of a 9 pt label, on average


def _label_room(labels: Sequence[str]) -> float:
    """Inches that the longest of ``labels`` takes."""
    return 0.2 + CHAR * max((len(x) for x in labels), default=1)


@contextmanager
def _figure(
    salt: str, plot: tuple[float, float], left: float, bottom: float, top: float = 0.3
) -> Iterator[tuple[Figure, Axes]]:
    """A figure whose axes take ``plot`` (width, height) inches, with fixed margins in inches
    (no layout engine: one draw per chart)."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": salt,
            "text.parse_math": False,
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        right = 0.35
        width, height = plot[0] + left + right, plot[1] + bottom + top
        fig = Figure(figsize=(width, height))
        fig.subplots_adjust(
            left=left / width,
            right=1 - right / width,
            bottom=bottom / height,
            top=1 - top / height,
        )
        yield fig, fig.add_subplot()


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg") :]


def category_bars(
    salt: str, categories: dict[str, float | None], warn: float | None, fail: float | None
) -> str:
    """Horizontal bars, one per category (0–1), the lowest :data:`MAX_BARS` when there are more;
    the category check's thresholds drawn as lines; undefined ones labelled, without a bar."""
    items = list(categories.items())
    if len(items) > MAX_BARS:
        items = sorted(items, key=lambda kv: -1.0 if kv[1] is None else kv[1])[:MAX_BARS]
    labels = [_short(k) for k, _ in items]
    values = [v if v is not None else 0.0 for _, v in items]
    colors = [
        MUTED
        if v is None
        else FAIL
        if fail is not None and v < fail
        else WARN
        if warn is not None and v < warn
        else OK
        for _, v in items
    ]
    with _figure(salt, (3.4, 0.26 * len(items)), _label_room(labels), 0.5) as (fig, ax):
        y = range(len(items))
        ax.barh(y, values, color=colors, height=0.7)
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 1.12)
        ax.set_xlabel("agreement")
        for i, (_, v) in enumerate(items):
            ax.text((v or 0.0) + 0.01, i, "undefined" if v is None else f"{v:.3f}", va="center")
        for bar, color, name in ((fail, FAIL, "fail"), (warn, WARN, "warn")):
            if bar is not None:
                ax.axvline(bar, color=color, linestyle="--", linewidth=1)
                ax.text(bar, -0.9, f"{name} {bar:g}", color=color, ha="center", va="bottom")
        return _svg(fig)


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
    import numpy as np

    n = len(labels)
    data = np.array([[np.nan if x is None else x for x in row] for row in matrix], dtype=float)
    shown = [
        f"★ {_short(name)}" if i < len(marked) and marked[i] else _short(name)
        for i, name in enumerate(labels)
    ]
    side = min(6.0, 0.55 * n)
    room = _label_room(shown)
    with _figure(salt, (side, side), room, 0.15 + 0.7 * room, top=0.15) as (fig, ax):
        ax.spines[:].set_visible(False)
        ax.imshow(data, cmap="Blues", vmin=vmin, vmax=vmax, aspect="auto")
        ax.set_xticks(range(n), shown, rotation=40, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(n), shown)
        for ticks in (ax.get_xticklabels(), ax.get_yticklabels()):
            for i, tick in enumerate(ticks):
                if i < len(marked) and marked[i]:
                    tick.set_color(FAIL)
        if n <= MAX_CELL_TEXT:
            middle = (vmin + vmax) / 2
            for i in range(n):
                for j in range(n):
                    dark = not np.isnan(data[i, j]) and data[i, j] > middle
                    ax.text(
                        j,
                        i,
                        text[i][j],
                        ha="center",
                        va="center",
                        fontsize=7.5,
                        color="white" if dark else "#222",
                    )
        return _svg(fig)


def score_histogram(salt: str, edges: list[float], counts: list[int], disputed_below: float) -> str:
    """Tasks per score bin; bins below the disputed threshold in red, the threshold drawn."""
    widths = [b - a for a, b in itertools.pairwise(edges)]
    colors = [FAIL if a < disputed_below else OK for a in edges[:-1]]
    with _figure(salt, (4.4, 2.0), 0.6, 0.5) as (fig, ax):
        ax.bar(edges[:-1], counts, width=widths, align="edge", color=colors, edgecolor="white")
        ax.axvline(disputed_below, color="#222", linestyle="--", linewidth=1)
        ax.text(
            disputed_below,
            max(counts, default=0) or 1,
            f" disputed below {disputed_below:g}",
            va="top",
            ha="left" if disputed_below < 0.6 else "right",
        )
        ax.set_xlim(0, 1)
        ax.set_xlabel("task score (1 = every pair agrees)")
        ax.set_ylabel("tasks")
        return _svg(fig)


def trend_line(
    salt: str, series: list[dict[str, Any]], warn: float | None, fail: float | None
) -> str:
    """Alpha per round, oldest first, this round last; undefined rounds left as gaps."""
    x = list(range(1, len(series) + 1))
    y = [float("nan") if p["alpha"] is None else p["alpha"] for p in series]
    ticks = [str(p["generated_at"] or "")[:10] for p in series[:-1]] + ["this round"]
    with _figure(salt, (4.4, 1.7), 0.6, 0.7) as (fig, ax):
        ax.plot(x, y, marker="o", color=OK)
        for bar, color in ((fail, FAIL), (warn, WARN)):
            if bar is not None:
                ax.axhline(bar, color=color, linestyle="--", linewidth=1)
        ax.set_xticks(x, ticks, rotation=20, ha="right")
        ax.set_ylabel("alpha")
        return _svg(fig)


def _pair_text(values: list[list[float | None]], shared: list[list[int]]) -> list[list[str]]:
    """Heatmap cell text of an annotator pair matrix: the value and the tasks both rated."""
    return [
        [f"n={n}" if x is None else f"{x:.2f}\nn={n}" for x, n in zip(row, counts, strict=True)]
        for row, counts in zip(values, shared, strict=True)
    ]


def render_field(
    index: int, f: dict[str, Any], series: list[dict[str, Any]] | None = None
) -> dict[str, str]:
    """Every chart of one report field, by name: categories, coincidence, annotators, scores,
    and ``series`` (alpha over the last rounds) when it has two points or more."""
    out: dict[str, str] = {}
    salt = f"f{index}"
    category = next((c for c in f["checks"] if c["name"] == "category"), None)
    if f["categories"]:
        warn, fail = (category["warn"], category["fail"]) if category else (None, None)
        out["categories"] = category_bars(f"{salt}c", f["categories"], warn, fail)
    co = f["coincidence"]
    if co and co["labels"]:
        rows = co["matrix"]
        share = [[x / s if (s := sum(row)) else None for x in row] for row in rows]
        text = [[f"{x:.1f}".removesuffix(".0") for x in row] for row in rows]
        out["coincidence"] = heatmap(f"{salt}m", share, co["labels"], text)
    pw = f.get("pairwise")
    if pw and len(pw["annotators"]) >= 2:
        agree = pw["agreement"]
        text = _pair_text(agree, pw["shared"])
        marked = [a["outlier"] for a in f["annotators"]]
        lowest = min((x for row in agree for x in row if x is not None), default=1.0)
        out["pairwise"] = heatmap(
            f"{salt}p",
            agree,
            pw["annotators"],
            text,
            marked=marked,
            vmin=min(0.5, math.floor(lowest * 10) / 10),  # contrast where agreements sit
        )
    if series and len(series) >= 2:
        alpha = next((c for c in f["checks"] if c["name"] == "alpha"), None)
        bars = (alpha["warn"], alpha["fail"]) if alpha else (None, None)
        out["trend"] = trend_line(f"{salt}t", series, *bars)
    regions = f.get("regions")
    if regions:  # F1 per label is the field's categories
        ann = regions.get("annotators") or {}
        if len(ann.get("names", [])) >= 2:
            text = _pair_text(ann["f1"], ann["shared_tasks"])
            outliers = {a["name"] for a in f["annotators"] if a["outlier"]}
            marked = [name in outliers for name in ann["names"]]
            out["region_pairs"] = heatmap(f"{salt}q", ann["f1"], ann["names"], text, marked=marked)
    hist = f.get("score_histogram")
    if hist and sum(hist["counts"]):
        out["scores"] = score_histogram(
            f"{salt}s", hist["edges"], hist["counts"], f["disputed_below"]
        )
    return out
