"""The change since the previous round: report documents compared field by field, and the
``max_drop`` checks. Pure: the previous reports come in already read (see :mod:`.history`).

Values are compared only where both reports measured the same thing: a field whose level or
kind changed, a label or annotator present in one round only, or a value undefined in either is
given with a ``note`` instead of a change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from ..adapters import SourceValue
from ..config import Config, DropThreshold
from .document import SCHEMA_VERSION, AltTestReport, AnnotatorReport, FieldReport
from .gate import Check, Verdict
from .sections import (
    AltTestChange,
    AnnotatorChange,
    Change,
    FieldTrend,
    Point,
    PreviousInfo,
    Trend,
)

SAME_KEYS = (1, SCHEMA_VERSION)
"""Schema versions whose compared keys are this version's (2 only moved the disputed list out)."""


class EarlierCoefficient(msgspec.Struct):
    """A coefficient of an earlier report: its ``value``."""

    value: Any = None


class EarlierAnnotator(msgspec.Struct):
    """An annotator of an earlier report's field."""

    id: str
    name: str | UnsetType = UNSET
    pair_agreement: Any = None


class EarlierDisputes(msgspec.Struct):
    """An earlier report's disputes of a field by state (open, routed, settled, resolved)."""

    states: dict[str, int] | None = None


class EarlierField(msgspec.Struct):
    """What the trend reads of a field of an earlier report. Every key may be missing (a report
    of another version) and every value is checked where it is read (:func:`_number`): an
    earlier report is compared where it says the same thing, never refused for a key it
    lacks."""

    kind: Any = UNSET
    level: Any = UNSET
    multiple: Any = UNSET
    alpha: Any = None
    coefficients: dict[str, EarlierCoefficient] = msgspec.field(default_factory=dict)
    category_method: Any = None
    categories: dict[str, object] = msgspec.field(default_factory=dict)
    annotators: list[EarlierAnnotator] = msgspec.field(default_factory=list)
    disputed_below: Any = None
    disputed_tolerance: Any = None
    n_agreed: Any = None
    n_disputed: Any = None
    disputes: EarlierDisputes | None = None


class EarlierAltVersion(msgspec.Struct):
    """What the trend reads of a model version's alt-test in an earlier report."""

    model_version: str
    epsilon: Any = None
    winning_rate: Any = None
    advantage_probability: Any = None


class EarlierAltTest(msgspec.Struct):
    """An earlier report's alt-test: each field's model versions."""

    fields: dict[str, list[EarlierAltVersion]] = msgspec.field(default_factory=dict)


class Earlier(msgspec.Struct):
    """An earlier ``report.json`` as the trend reads it, decoded by msgspec from any
    ``schema_version`` (1 and 2 hold these keys alike; :data:`SAME_KEYS`): its version, time,
    verdict, source, round and fields."""

    fields: dict[str, EarlierField]
    schema_version: Any = None
    generated_at: Any = None
    verdict: Any = None
    source: Any = UNSET
    round: Any = None
    alt_test: EarlierAltTest | None = None


@dataclass(frozen=True)
class PreviousReport:
    """A report of an earlier run: where it was read from and what it says (:class:`Earlier`)."""

    path: str
    doc: Earlier


def _number(x: Any) -> float | None:
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
    return float(x) if ok else None


def change(previous: Any, current: Any, missing: str | None = None) -> Change:
    """The change from ``previous`` to ``current``; ``change`` is null with a ``note`` saying
    why."""
    before, now = _number(previous), _number(current)
    note = missing
    if note is None and (before is None or now is None):
        note = "undefined in the previous round" if before is None else "undefined in this round"
    delta = None if note is not None or before is None or now is None else now - before
    return Change(before, now, delta, note)


def _keyed(
    current: Mapping[str, object], previous: Mapping[str, object], what: str
) -> dict[str, Change]:
    out = {}
    for key in [*current, *(k for k in previous if k not in current)]:
        if key not in previous:
            out[key] = change(None, current[key], f"new {what}: not in the previous round")
        elif key not in current:
            out[key] = change(previous[key], None, f"{what} not in this round")
        else:
            out[key] = change(previous[key], current[key])
    return out


def _incomparable(cur: FieldReport, prev: EarlierField) -> str | None:
    for key in ("kind", "level", "multiple"):
        was, now = getattr(prev, key), getattr(cur, key)
        if was is not UNSET and was != now:
            return f"{key} changed from {was} to {now}: values are not comparable"
    return None


def _share(agreed: Any, disputed: Any) -> float | None:
    a, d = _number(agreed), _number(disputed)
    if a is None or d is None or a + d == 0:
        return None
    return d / (a + d)


def compare_field(cur: FieldReport, prev: EarlierField) -> FieldTrend:
    """One field's changes: alpha, each coefficient, label and annotator, the disputed share."""
    why = _incomparable(cur, prev)
    if why is not None:
        return FieldTrend(comparable=False, note=why)
    coefs = {
        name: change(
            prev.coefficients[name].value if name in prev.coefficients else None,
            c.value,
            None if name in prev.coefficients else "not in the previous report",
        )
        for name, c in cur.coefficients.items()
    }
    same_method = prev.category_method == cur.category_method
    categories = _keyed(cur.categories, prev.categories, "label") if same_method else {}
    prev_ann = {a.id: a for a in prev.annotators}
    cur_ann = {a.id: a for a in cur.annotators}
    pair = _keyed(
        {k: a.pair_agreement for k, a in cur_ann.items()},
        {k: a.pair_agreement for k, a in prev_ann.items()},
        "annotator",
    )
    annotators = {k: AnnotatorChange(_name(k, cur_ann, prev_ann), v) for k, v in pair.items()}
    same_bar = (
        prev.disputed_below == cur.disputed_below
        and prev.disputed_tolerance == cur.disputed_tolerance
    )
    return FieldTrend(
        comparable=True,
        note=None if same_method else "category_method changed: labels not compared",
        alpha=change(prev.alpha, cur.alpha),
        coefficients=coefs,
        categories=categories,
        annotators=annotators,
        disputed_share=change(
            _share(prev.n_agreed, prev.n_disputed),
            _share(cur.n_agreed, cur.n_disputed),
            None if same_bar else "the disputed threshold changed",
        ),
    )


def _name(key: str, cur: dict[str, AnnotatorReport], prev: dict[str, EarlierAnnotator]) -> str:
    if key in cur:
        return cur[key].name
    name = prev[key].name
    return key if name is UNSET else name


def compare(
    fields: dict[str, FieldReport],
    source: dict[str, SourceValue],
    previous: PreviousReport,
    history: list[PreviousReport],
    rounds: int,
    alt_test: AltTestReport | None = None,
) -> Trend:
    """The report's ``trend`` section: this run's ``fields`` (read from ``source``) and
    ``alt_test`` against ``previous``, with each field's alpha over the last ``rounds`` runs of
    ``history`` (oldest first, this run last)."""
    prev = previous.doc
    notes = []
    version = prev.schema_version
    if version not in SAME_KEYS:
        notes.append(
            f"the previous report has schema_version {version}, this one {SCHEMA_VERSION}: "
            "compared where the same keys exist"
        )
    if prev.source is not UNSET and prev.source != source:
        notes.append(f"the previous report's source differs: {prev.source}")
    out: dict[str, FieldTrend] = {}
    for name, f in fields.items():
        before = prev.fields.get(name)
        if before is None:
            t = FieldTrend(comparable=False, note="not in the previous report")
        else:
            t = compare_field(f, before)
        t.series = _series(name, f, history, rounds)
        out[name] = t
    gone = sorted(set(prev.fields) - set(fields))
    if gone:
        notes.append(f"in the previous report only: {', '.join(gone)}")
    return Trend(
        previous=PreviousInfo(
            path=previous.path,
            generated_at=prev.generated_at,
            schema_version=version,
            verdict=prev.verdict,
            source=None if prev.source is UNSET else prev.source,
            round=prev.round,
        ),
        notes=notes,
        fields=out,
        alt_test=compare_alt_tests(alt_test, prev.alt_test) or UNSET,
    )


def compare_alt_tests(
    current: AltTestReport | EarlierAltTest | None, previous: EarlierAltTest | None
) -> dict[str, dict[str, AltTestChange]]:
    """Each model version's alt-test against the previous round's, by field: the change in ω
    (``winning_rate``) and ρ (``advantage_probability``); a version tested in one round only,
    or with another ε, is given with a note instead of a change."""
    now = {
        (name, v.model_version): v
        for name, vs in (current.fields if current else {}).items()
        for v in vs
    }
    before = {
        (name, v.model_version): v
        for name, vs in (previous.fields if previous else {}).items()
        for v in vs
    }
    out: dict[str, dict[str, AltTestChange]] = {}
    for key in [*now, *(k for k in before if k not in now)]:
        cur, was = now.get(key), before.get(key)
        note = None
        if was is None:
            note = "new model version: not in the previous round"
        elif cur is None:
            note = "model version not in this round"
        elif was.epsilon != cur.epsilon:
            note = f"ε changed from {was.epsilon} to {cur.epsilon}: not comparable"
        out.setdefault(key[0], {})[key[1]] = AltTestChange(
            winning_rate=change(
                was.winning_rate if was else None, cur.winning_rate if cur else None, note
            ),
            advantage_probability=change(
                was.advantage_probability if was else None,
                cur.advantage_probability if cur else None,
                note,
            ),
        )
    return out


def _series(
    name: str, current: FieldReport, history: list[PreviousReport], rounds: int
) -> list[Point]:
    """Each run's alpha, oldest first, this run last; with ``adjudication:`` also its disputes
    by state (the burn-down; null for a run that did not count them)."""
    burn_down = current.disputes is not None
    points = []
    for h in history:
        f = h.doc.fields.get(name)
        if f is not None and _incomparable(current, f) is None:
            point = Point(h.doc.generated_at, _number(f.alpha))
            if burn_down:
                point.disputes = f.disputes.states if f.disputes else None
            points.append(point)
    point = Point(None, _number(current.alpha))
    if current.disputes is not None:
        point.disputes = dict(current.disputes.states)
    points.append(point)
    return points[-rounds:]


def _drop_value(t: FieldTrend, key: str) -> tuple[float | None, str, str | None]:
    """(change, what, why undefined) for a ``max_drop`` key from a field's trend."""
    if not t.comparable:
        return None, key, t.note
    if key == "alpha":
        assert t.alpha
        return t.alpha.change, "alpha", t.alpha.note
    if key in ("category", "annotator"):
        recs = (
            t.categories
            if key == "category"
            else {k: a.pair_agreement for k, a in (t.annotators or {}).items()}
        )
        known = {k: r.change for k, r in (recs or {}).items() if r.change is not None}
        if not known:
            return None, key, f"no {key} measured in both rounds"
        worst = min(known, key=lambda k: known[k])
        what = f"agreement on label {worst}" if key == "category" else f"annotator {worst}'s"
        if key == "annotator":
            what += " pair agreement"
        return known[worst], what, None
    rec = (t.coefficients or {}).get(key)
    if rec is None:
        return None, key.replace("_", " "), "not computed in this run"
    return rec.change, key.replace("_", " "), rec.note


def drop_checks(config: Config, trend: Trend) -> list[Check]:
    """The ``max_drop`` checks of every field against the trend; an incomparable value takes the
    field's ``on_undefined`` verdict."""
    when = trend.previous.generated_at
    since = str(when or "an unknown time")
    checks = []
    for name, cfg in config.fields.items():
        t = trend.fields.get(name)
        for key in cfg.thresholds.max_drop:
            bar = cfg.thresholds.drop(key)
            assert bar is not None
            value, what, why = _drop_value(t, key) if t else (None, key, "no trend")
            checks.append(_drop_check(name, key, what, value, why, bar, since, cfg))
    return checks


def _drop_check(
    field: str,
    key: str,
    what: str,
    value: float | None,
    why: str | None,
    bar: DropThreshold,
    since: str,
    cfg: Any,
) -> Check:
    fail = -bar.fail if bar.fail is not None else None
    warn = -bar.warn if bar.warn is not None else None
    name = f"max_drop.{key}"
    if value is None:
        verdict = Verdict(cfg.thresholds.on_undefined)
        return Check(field, name, None, fail, warn, verdict, f"change in {what}: {why}")
    fell = f"{what} changed by {value:+.3f} since {since}"
    if fail is not None and value < fail:
        return Check(
            field, name, value, fail, warn, Verdict.FAIL, f"{fell}: fell more than {-fail:g}"
        )
    if warn is not None and value < warn:
        return Check(
            field, name, value, fail, warn, Verdict.WARN, f"{fell}: fell more than {-warn:g}"
        )
    allowed = -(warn if warn is not None else fail or 0.0)
    return Check(field, name, value, fail, warn, Verdict.PASS, f"{fell}: within {allowed:g}")
