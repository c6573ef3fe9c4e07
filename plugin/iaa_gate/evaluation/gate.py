"""Thresholds → verdicts: every check of every field, the field's verdict, the overall verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from .. import metrics
from ..config import FieldConfig, Threshold, WidthThreshold
from ..metrics import Undefined, undefined_reason
from ..model import annotator
from . import ground_truth
from .results import FieldResult, status_count

VerdictName = Literal["pass", "warn", "fail"]
"""A verdict as the report writes it."""


class Verdict(str, Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"

    @property
    def rank(self) -> int:
        return ("pass", "warn", "fail").index(self.value)

    @property
    def word(self) -> VerdictName:
        """The verdict as the report writes it."""
        return self.value


SMALL_SAMPLE = 10
"""Fewer tasks with two or more ratings than this: too few to judge agreement."""


def small_sample(result: FieldResult) -> str | None:
    """Why the field's round is too small to judge (None: it is not)."""
    n = result.n_pairable
    if n >= SMALL_SAMPLE:
        return None
    tasks = "task" if n == 1 else "tasks"
    return (
        f"small sample: {n} {tasks} with two or more ratings, too few to judge "
        f"(fewer than {SMALL_SAMPLE}); the intervals are wide and the verdict is provisional"
    )


def worst(verdicts: list[Verdict]) -> Verdict:
    return max(verdicts, key=lambda v: v.rank, default=Verdict.PASS)


@dataclass(frozen=True)
class Check:
    """One threshold applied to one number.

    ``field``: the field; ``name``: what was checked (``alpha``, ``category``, a coefficient,
    ``annotator_gain``, a ``max_drop``…); ``value``: the number checked (None: undefined);
    ``fail``/``warn``: the thresholds (None: not set); ``verdict``: pass, warn or fail;
    ``message``: why, in words."""

    field: str
    name: str
    value: float | None
    fail: float | None
    warn: float | None
    verdict: Verdict
    message: str


def _threshold(
    field: str, name: str, what: str, value: float, bar: Threshold, on_undefined: str
) -> Check | None:
    if bar.fail is None and bar.warn is None:
        return None
    if math.isnan(value):
        verdict = Verdict(on_undefined)
        reason = undefined_reason(value) or "undefined"
        return Check(
            field, name, None, bar.fail, bar.warn, verdict, f"{what} is undefined: {reason}"
        )
    if bar.fail is not None and value < bar.fail:
        verdict, msg = Verdict.FAIL, f"{what} {value:.3f} is below the fail threshold {bar.fail:g}"
    elif bar.warn is not None and value < bar.warn:
        verdict, msg = Verdict.WARN, f"{what} {value:.3f} is below the warn threshold {bar.warn:g}"
    else:
        lowest = bar.warn if bar.warn is not None else bar.fail
        verdict, msg = Verdict.PASS, f"{what} {value:.3f} meets {lowest:g}"
    return Check(field, name, value, bar.fail, bar.warn, verdict, msg)


def threshold_check(
    field: str, name: str, what: str, value: float, bar: Threshold, on_undefined: str
) -> Check | None:
    """Threshold ``bar`` applied to ``value`` (``what`` it is, in words) as check ``name`` of
    ``field``; None when ``bar`` sets neither fail nor warn. An undefined (NaN) value gets the
    ``on_undefined`` verdict with its reason."""
    return _threshold(field, name, what, value, bar, on_undefined)


def _estimate_check(
    result: FieldResult, name: str, bar: Threshold, on_undefined: str
) -> Check | None:
    est = result.coefficients[name]  # alpha is always among them
    value, what = est.value, name.replace("_", " ")
    if bar.use == "lower_bound":  # never falls back to the estimate
        value = (
            est.lower
            if est.lower is not None
            else Undefined(
                undefined_reason(est.value) or "its confidence interval could not be computed"
            )
        )
        what = f"lower {round((est.confidence or 0.95) * 100)}% bound of {what}"
    return _threshold(result.name, name, what, value, bar, on_undefined)


def interval_width(result: FieldResult) -> float:
    """The width (upper − lower) of alpha's confidence interval; undefined, with the reason,
    when there is none."""
    est = result.coefficients["alpha"]
    if est.lower is None or est.upper is None:
        return Undefined(undefined_reason(est.value) or "alpha has no confidence interval")
    return est.upper - est.lower


def width_goal(bar: WidthThreshold) -> float | None:
    """The widest interval the field's ``interval_width`` allows without a warning (None:
    not set)."""
    return bar.warn if bar.warn is not None else bar.fail


def _width_check(result: FieldResult, bar: WidthThreshold, on_undefined: str) -> Check | None:
    goal = width_goal(bar)
    if goal is None:
        return None
    width = interval_width(result)
    conf = round((result.coefficients["alpha"].confidence or 0.95) * 100)
    what = f"alpha's {conf}% interval width"
    value: float | None = width
    if math.isnan(width):
        value, verdict = None, Verdict(on_undefined)
        msg = f"{what} is undefined: {undefined_reason(width) or 'undefined'}"
    elif width <= goal:
        verdict, msg = Verdict.PASS, f"{what} {width:.3f} meets {goal:g}"
    else:
        failed = bar.fail is not None and width > bar.fail
        verdict = Verdict.FAIL if failed else Verdict.WARN
        more = metrics.more_units(result.n_pairable, width, goal)
        msg = (
            f"{what} {width:.3f} is wider than the {'fail' if failed else 'warn'} threshold "
            f"{bar.fail if failed else bar.warn:g}: about {more:,} more tasks with two or more "
            f"ratings would narrow it to {goal:g}"
        )
    return Check(result.name, "interval_width", value, bar.fail, bar.warn, verdict, msg)


def field_checks(result: FieldResult, cfg: FieldConfig) -> list[Check]:
    """Every configured check of one field, in a fixed order."""
    t = cfg.thresholds
    checks = [
        _estimate_check(result, "alpha", t.alpha, t.on_undefined),
        _width_check(result, t.interval_width, t.on_undefined),
    ]
    lowest = result.lowest_category
    if lowest is not None or result.categories:
        value = lowest[1] if lowest else math.nan
        label = f"lowest category agreement ({lowest[0]})" if lowest else "category agreement"
        checks.append(_threshold(result.name, "category", label, value, t.category, t.on_undefined))
    evaluated = len(result.units) - status_count(result.units, "too_few")
    if evaluated:
        share = 1 - status_count(result.units, "disputed") / evaluated
        checks.append(
            _threshold(
                result.name,
                "disputed_share",
                "share of undisputed tasks",
                share,
                t.disputed_share,
                t.on_undefined,
            )
        )
    truth = ground_truth.lowest(result.ground_truth) if result.ground_truth else None
    if truth is not None:
        what = f"{truth.name}'s agreement with ground truth"
        checks.append(
            _threshold(
                result.name,
                "ground_truth",
                what,
                math.nan if truth.agreement is None else truth.agreement,
                t.ground_truth,
                t.on_undefined,
            )
        )
    for name in result.coefficients:
        bar = t.for_coefficient(name)
        if bar is not None:
            checks.append(_estimate_check(result, name, bar, t.on_undefined))
    for name, bar in (("f1", t.f1), ("unitizing_alpha", t.unitizing_alpha)):
        if name in result.coefficients:  # region fields
            checks.append(_estimate_check(result, name, bar, t.on_undefined))
    outliers = [a for a in result.annotators if a.outlier]
    if t.annotator_gain is not None and t.annotator_severity != "info":
        names = ", ".join(f"{annotator(a.name)} (+{a.alpha_gain:.3f})" for a in outliers)
        checks.append(
            Check(
                result.name,
                "annotators",
                float(len(outliers)),
                None,
                None,
                Verdict(t.annotator_severity) if outliers else Verdict.PASS,
                f"alpha rises by at least {t.annotator_gain:g} without: {names}"
                if outliers
                else "no outlier annotator",
            )
        )
    small = small_sample(result)
    return [
        c
        if small is None or c.verdict == Verdict.PASS
        else Check(c.field, c.name, c.value, c.fail, c.warn, c.verdict, f"{c.message} ({small})")
        for c in checks
        if c is not None
    ]
