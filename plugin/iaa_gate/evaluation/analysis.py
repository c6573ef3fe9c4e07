"""Every configured field's result: scalar fields through :mod:`.scalar`, region fields through
:mod:`.regions`, chosen by the field's kind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..config import Config, FieldConfig
from ..core.errors import InputError
from ..core.extras import require
from ..kinds import REGION_SHAPES, SCALAR_KINDS, Answer, extras_of, registry
from ..kinds import kind as registered
from ..model import Dataset
from .messages import message_result
from .pairwise import with_position_bias
from .ranking import ranking_result
from .results import FieldResult, UnitResult
from .scalar import analyse_field, kind_problems

if TYPE_CHECKING:
    from .regions import RegionFields

ITEM_KINDS = frozenset(k.name for k in registry().values() if k.family == "items")
"""Kinds scored over (task, item) units: rankings, per-message answers."""
RANKINGS = frozenset(k.name for k in registry().values() if k.answer is Answer.RANKING)
"""Item kinds whose answer ranks the items (the others answer about each chat message)."""
SIDES = frozenset(k.name for k in registry().values() if k.sides)
"""Kinds whose answer picks one of two sides: their results add position bias."""


def analyse(
    dataset: Dataset,
    config: Config,
    *,
    units_known: Callable[[dict[str, Sequence[UnitResult]]], object] | None = None,
) -> dict[str, FieldResult]:
    """Every configured field's result; raises :class:`InputError` for fields not in the data or
    not supported, listing them all.

    Parameters
    ----------
    dataset : Dataset
        The round.
    config : Config
        Its config: the fields to score and how.
    units_known : callable, optional
        Called once with every field's units (by name, in config order) as soon as they are
        known: a region field's scores, proposals and disputes are found before its figures
        (alpha, F1, per annotator), so a caller may start writing its disputed tasks while
        they are computed.

    Returns
    -------
    dict of str to FieldResult
        Each field's result, in config order.
    """
    kinds = dataset.field_kinds()
    stats = dataset.stats
    if not kinds and stats.invalid:  # --skip-invalid left nothing: say why, not "no field"
        raise InputError(
            dataset.source,
            [
                "nothing is left to score: --skip-invalid skipped every task with answers "
                f"({stats.invalid_skipped} skipped); the first reason: {stats.invalid[0]}"
            ],
            hint="correct what the first reason names, or run without --skip-invalid to see "
            "every problem",
        )
    problems = []
    for name in config.fields:
        if name not in kinds:
            present = ", ".join(kinds) or "none"
            problems.append(
                f"field {name!r} does not occur in the data (fields present: {present})"
            )
        elif kinds[name] in SCALAR_KINDS:
            problems += kind_problems(name, kinds[name], config.fields[name])
        elif kinds[name] not in REGION_SHAPES and kinds[name] not in ITEM_KINDS:
            problems.append(
                f"field {name!r} is a {kinds[name]} control, which iaa-gate cannot evaluate "
                f"({why_not(kinds[name])}); remove it from fields (it is then listed as not "
                "evaluated)"
            )
    if problems:
        raise InputError(dataset.source, problems, hint="check the names and options under fields:")
    regions: RegionFields | None = None
    if not REGION_SHAPES.keys().isdisjoint(kinds.values()):  # region metrics: only for regions
        from .regions import RegionFields

        regions = RegionFields(dataset, config, kinds)
    for name, cfg in config.fields.items():  # an extra that is not installed: before scoring
        matched = regions is not None and regions.covers(name)
        for extra in extras_of(kinds[name], cfg.distance, matched=matched):
            require(extra, f"field {name!r}")

    def result(name: str, cfg: FieldConfig) -> FieldResult:
        if regions is not None and regions.covers(name):
            done = regions.result(name, cfg)
        elif kinds[name] in ITEM_KINDS:
            scored = ranking_result if kinds[name] in RANKINGS else message_result
            done = scored(dataset, name, cfg)
        else:
            done = analyse_field(dataset, name, cfg)
        return with_position_bias(dataset, name, done) if kinds[name] in SIDES else done

    # a region field's figures last: its units (and disputes) are known before them
    later = [n for n in config.fields if kinds[n] in REGION_SHAPES]
    results = {n: result(n, cfg) for n, cfg in config.fields.items() if n not in later}
    if units_known is not None:
        units_known(
            {
                n: regions.units(n) if regions is not None and n in later else results[n].units
                for n in config.fields
            }
        )
    results.update((n, result(n, config.fields[n])) for n in later)
    return {n: results[n] for n in config.fields}


def why_not(kind: str) -> str:
    """Why a control type is never scored: its registered reason, or that it is unknown."""
    known = registered(kind)
    if known is None:
        return f"iaa-gate does not read {kind} results"
    return known.reason or "not in the config"


def not_evaluated(dataset: Dataset, config: Config) -> dict[str, str]:
    """Fields present in the data but not in the config: name → control type, and for a
    control iaa-gate cannot score, ``": "`` and the reason."""
    return {
        k: v if v in SCALAR_KINDS or v in REGION_SHAPES or v in ITEM_KINDS else f"{v}: {why_not(v)}"
        for k, v in dataset.field_kinds().items()
        if k not in config.fields
    }


__all__ = ["FieldResult", "analyse", "not_evaluated"]
