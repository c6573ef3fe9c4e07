"""The change since the previous round: report documents compared field by field, and the
``max_drop`` checks. Pure: the previous reports come in already read (see :mod:`.history`).

Values are compared only where both reports measured the same thing: a field whose level or
kind changed, a label or annotator present in one round only, or a value undefined in either is
given with a ``note`` instead of a change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..config import Config, DropThreshold
from .document import SCHEMA_VERSION
from .gate import Check, Verdict

Doc = dict[str, Any]
SAME_KEYS = (1, SCHEMA_VERSION)
"""Schema versions whose compared keys are this version's (2 only moved the disputed list out)."""


@dataclass(frozen=True)
class PreviousReport:
    """A report of an earlier run: where it was read from and its parsed ``report.json``."""

    path: str
    doc: Doc


def _number(x: Any) -> float | None:
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
    return float(x) if ok else None


def change(previous: Any, current: Any, missing: str | None = None) -> Doc:
    """``{previous, current, change, note}``; ``change`` is null with a ``note`` saying why."""
    before, now = _number(previous), _number(current)
    note = missing
    if note is None and (before is None or now is None):
        note = "undefined in the previous round" if before is None else "undefined in this round"
    delta = None if note is not None or before is None or now is None else now - before
    return {"previous": before, "current": now, "change": delta, "note": note}


def _keyed(current: dict[str, Any], previous: dict[str, Any], what: str) -> dict[str, Doc]:
    out = {}
    for key in [*current, *(k for k in previous if k not in current)]:
        if key not in previous:
            out[key] = change(None, current[key], f"new {what}: not in the previous round")
        elif key not in current:
            out[key] = change(previous[key], None, f"{what} not in this round")
        else:
            out[key] = change(previous[key], current[key])
    return out


def _incomparable(cur: Doc, prev: Doc) -> str | None:
    for key in ("kind", "level", "multiple"):
        if key in prev and prev[key] != cur[key]:
            return f"{key} changed from {prev[key]} to {cur[key]}: values are not comparable"
    return None


def _share(f: Doc) -> float | None:
    agreed, disputed = _number(f.get("n_agreed")), _number(f.get("n_disputed"))
    if agreed is None or disputed is None or agreed + disputed == 0:
        return None
    return disputed / (agreed + disputed)


def compare_field(cur: Doc, prev: Doc) -> Doc:
    """One field's changes: alpha, each coefficient, label and annotator, the disputed share."""
    why = _incomparable(cur, prev)
    if why is not None:
        return {"comparable": False, "note": why}
    prev_coefs = prev.get("coefficients") or {}
    coefs = {
        name: change(
            (prev_coefs.get(name) or {}).get("value"),
            c["value"],
            None if name in prev_coefs else "not in the previous report",
        )
        for name, c in cur["coefficients"].items()
    }
    same_method = prev.get("category_method") == cur["category_method"]
    categories = (
        _keyed(cur["categories"], prev.get("categories") or {}, "label") if same_method else {}
    )
    prev_ann = {a["id"]: a for a in prev.get("annotators") or [] if isinstance(a, dict)}
    cur_ann = {a["id"]: a for a in cur["annotators"]}
    pair = _keyed(
        {k: a["pair_agreement"] for k, a in cur_ann.items()},
        {k: a.get("pair_agreement") for k, a in prev_ann.items()},
        "annotator",
    )
    annotators = {
        k: {"name": (cur_ann.get(k) or prev_ann[k]).get("name", k), "pair_agreement": v}
        for k, v in pair.items()
    }
    same_bar = prev.get("disputed_below") == cur["disputed_below"] and prev.get(
        "disputed_tolerance"
    ) == cur.get("disputed_tolerance")
    return {
        "comparable": True,
        "note": None if same_method else "category_method changed: labels not compared",
        "alpha": change(prev.get("alpha"), cur["alpha"]),
        "coefficients": coefs,
        "categories": categories,
        "annotators": annotators,
        "disputed_share": change(
            _share(prev), _share(cur), None if same_bar else "the disputed threshold changed"
        ),
    }


def _when(doc: Doc) -> str:
    return str(doc.get("generated_at") or "an unknown time")


def compare(doc: Doc, previous: PreviousReport, history: list[PreviousReport], rounds: int) -> Doc:
    """The report's ``trend`` section: this run's report ``doc`` against ``previous``, with each
    field's alpha over the last ``rounds`` runs of ``history`` (oldest first, this run last)."""
    prev, fields = previous.doc, doc["fields"]
    notes = []
    version = prev.get("schema_version")
    if version not in SAME_KEYS:
        notes.append(
            f"the previous report has schema_version {version}, this one {SCHEMA_VERSION}: "
            "compared where the same keys exist"
        )
    for key in ("source",):
        if key in prev and prev[key] != doc[key]:
            notes.append(f"the previous report's {key} differs: {prev[key]}")
    prev_fields = prev.get("fields") or {}
    out: dict[str, Doc] = {}
    for name, f in fields.items():
        before = prev_fields.get(name)
        if not isinstance(before, dict):
            out[name] = {"comparable": False, "note": "not in the previous report"}
        else:
            out[name] = compare_field(f, before)
        out[name]["series"] = _series(name, f, history, rounds)
    gone = sorted(set(prev_fields) - set(fields))
    if gone:
        notes.append(f"in the previous report only: {', '.join(gone)}")
    out_doc: Doc = {
        "previous": {
            "path": previous.path,
            "generated_at": prev.get("generated_at"),
            "schema_version": version,
            "verdict": prev.get("verdict"),
            "source": prev.get("source"),
            "round": prev.get("round"),
        },
        "notes": notes,
        "fields": out,
    }
    alt = compare_alt_tests(doc.get("alt_test"), prev.get("alt_test"))
    if alt:
        out_doc["alt_test"] = alt
    return out_doc


def _versions(section: Any) -> dict[tuple[str, str], Doc]:
    fields = section.get("fields") if isinstance(section, dict) else None
    return {
        (name, v["model_version"]): v
        for name, vs in (fields or {}).items()
        if isinstance(vs, list)
        for v in vs
        if isinstance(v, dict) and "model_version" in v
    }


def compare_alt_tests(current: Any, previous: Any) -> dict[str, dict[str, Doc]]:
    """Each model version's alt-test against the previous round's, by field: the change in ω
    (``winning_rate``) and ρ (``advantage_probability``); a version tested in one round only,
    or with another ε, is given with a note instead of a change."""
    now, before = _versions(current), _versions(previous)
    out: dict[str, dict[str, Doc]] = {}
    for key in [*now, *(k for k in before if k not in now)]:
        cur, prev = now.get(key), before.get(key)
        note = None
        if prev is None:
            note = "new model version: not in the previous round"
        elif cur is None:
            note = "model version not in this round"
        elif prev.get("epsilon") != cur.get("epsilon"):
            note = f"ε changed from {prev.get('epsilon')} to {cur.get('epsilon')}: not comparable"
        out.setdefault(key[0], {})[key[1]] = {
            k: change((prev or {}).get(k), (cur or {}).get(k), note)
            for k in ("winning_rate", "advantage_probability")
        }
    return out


def _series(name: str, current: Doc, history: list[PreviousReport], rounds: int) -> list[Doc]:
    """Each run's alpha, oldest first, this run last; with ``adjudication:`` also its disputes
    by state (the burn-down; null for a run that did not count them)."""
    burn_down = isinstance(current.get("disputes"), dict)
    points = []
    for h in history:
        f = (h.doc.get("fields") or {}).get(name)
        if isinstance(f, dict) and _incomparable(current, f) is None:
            point = {"generated_at": h.doc.get("generated_at"), "alpha": _number(f["alpha"])}
            points.append({**point, "disputes": _states(f)} if burn_down else point)
    point = {"generated_at": None, "alpha": _number(current["alpha"])}
    points.append({**point, "disputes": _states(current)} if burn_down else point)
    return points[-rounds:]


def _states(f: Doc) -> dict[str, int] | None:
    """A field's disputes by state (open, routed, settled, resolved), if its run counted them."""
    d = f.get("disputes")
    states = d.get("states") if isinstance(d, dict) else None
    return dict(states) if isinstance(states, dict) else None


def _drop_value(t: Doc, key: str) -> tuple[float | None, str, str | None]:
    """(change, what, why undefined) for a ``max_drop`` key from a field's trend."""
    if not t["comparable"]:
        return None, key, t["note"]
    if key == "alpha":
        rec = t["alpha"]
        return rec["change"], "alpha", rec["note"]
    if key in ("category", "annotator"):
        table = t["categories"] if key == "category" else t["annotators"]
        recs = {k: (v if key == "category" else v["pair_agreement"]) for k, v in table.items()}
        known = {k: r["change"] for k, r in recs.items() if r["change"] is not None}
        if not known:
            return None, key, f"no {key} measured in both rounds"
        worst = min(known, key=lambda k: known[k])
        what = f"agreement on label {worst}" if key == "category" else f"annotator {worst}'s"
        if key == "annotator":
            what += " pair agreement"
        return known[worst], what, None
    rec = t["coefficients"].get(key)
    if rec is None:
        return None, key.replace("_", " "), "not computed in this run"
    return rec["change"], key.replace("_", " "), rec["note"]


def drop_checks(config: Config, trend: Doc) -> list[Check]:
    """The ``max_drop`` checks of every field against the trend; an incomparable value takes the
    field's ``on_undefined`` verdict."""
    since = _when({"generated_at": trend["previous"]["generated_at"]})
    checks = []
    for name, cfg in config.fields.items():
        t = trend["fields"].get(name)
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
