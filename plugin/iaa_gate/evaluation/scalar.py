"""Fields with one value per unit (choices, ratings, numbers, taxonomy, free text): the ratings
matrix through the coefficients into a :class:`FieldResult`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import metrics
from ..config import COEFFICIENT_THRESHOLDS, FieldConfig
from ..core.errors import InputError
from ..kinds import registry
from ..metrics import Coded, LevelArg
from ..model import Dataset
from . import consensus
from .coefficients import Estimate, compute, default_coefficients, interpreted
from .matrix import RatingsMatrix, ratings_matrix
from .results import AnnotatorResult, FieldResult, Skill, UnitResult, UnitTable
from .sections import CategoriesUsed, Coincidence

MAX_COINCIDENCE_VALUES = 30


def field_level(kind: str, cfg: FieldConfig, multiple: bool) -> str:
    """The distance used for alpha: the configured level, a set distance, or the kind's default."""
    if multiple:
        return cfg.distance or "masi"
    known = registry().get(kind)
    return cfg.distance or cfg.level or (known and known.default_level) or "nominal"


DISTANCE_KINDS = {d: k.name for k in registry().values() for d in k.distances}
"""Distances that apply to one kind of control only (from the kinds registry)."""


def kind_problems(name: str, kind: str, cfg: FieldConfig) -> list[str]:
    """Options set on field ``name`` that its control ``kind`` cannot use."""
    out = []
    needs = DISTANCE_KINDS.get(cfg.distance or "")
    if needs is not None and kind != needs:
        out.append(
            f"fields.{name}.distance: {cfg.distance} applies to {needs} fields; "
            f"{name!r} is a {kind} field"
        )
    if "normalize" in cfg.model_fields_set and "normalize" not in _options(kind):
        out.append(
            f"fields.{name}.normalize applies to free text (textarea); {name!r} is a {kind} field"
        )
    return out


def is_multiple(dataset: Dataset, name: str, cfg: FieldConfig) -> bool:
    """Whether field ``name`` holds label sets: as the labeling config declares it when the
    source knows it, else ``multiple:`` in the config (default false)."""
    declared = dataset.declared_multiple.get(name)
    if declared is None:
        return bool(cfg.multiple)
    if cfg.multiple is not None and cfg.multiple != declared:
        said = "multi-select" if declared else "single-choice"
        raise InputError(
            dataset.source,
            [
                f"field {name!r}: fields.{name}.multiple is {cfg.multiple}, but the labeling "
                f"config declares a {said} control"
            ],
            hint=f"remove fields.{name}.multiple (the labeling config decides)",
        )
    return declared


def field_matrix(dataset: Dataset, name: str, cfg: FieldConfig) -> RatingsMatrix:
    """Scalar field ``name`` of ``dataset`` as metrics input, read as its config says."""
    return ratings_matrix(
        dataset,
        name,
        labels=cfg.labels,
        multiple=is_multiple(dataset, name, cfg),
        empty_set=cfg.empty == "empty_set",
        min_annotators=cfg.min_annotators,
        normalize=cfg.normalize,
    )


def analyse_field(dataset: Dataset, name: str, cfg: FieldConfig) -> FieldResult:
    matrix = field_matrix(dataset, name, cfg)
    level = field_level(matrix.kind, cfg, matrix.multiple)
    coded = matrix.coded
    if level in ("interval", "ratio") and coded.values.dtype.kind != "f" and coded.n_values:
        raise InputError(
            dataset.source,
            [
                f"field {name!r}: level {level} needs numbers, but the field holds text labels "
                f"such as {coded.values[0]!r}"
            ],
            hint=f"set fields.{name}.level to nominal, or ordinal with labels in scale order",
        )
    scale = _scale(matrix, level)
    if cfg.thresholds.disputed_tolerance is not None and scale is None:
        raise InputError(
            dataset.source,
            [f"field {name!r}: disputed_tolerance needs numeric ratings, the field has labels"],
            hint=f"remove fields.{name}.thresholds.disputed_tolerance",
        )
    names = [dataset.display_name(a) for a in matrix.annotators]
    distance = _distance(dataset, name, cfg, coded, level)
    units = _units(dataset, matrix, distance, cfg, scale)
    declared, categories = declared_scale(dataset, matrix, level, cfg)
    result = matrix_result(matrix, level, names, cfg, units, scale, declared, distance)
    result.categories_used = categories
    if isinstance(distance, metrics.Sampled):
        se = metrics.alpha_standard_error(coded, distance, result.alpha)
        result.alpha_sampling = (distance.pairs, se)
    result.skill = propose(matrix, level, names, units)
    return result


def _distance(dataset: Dataset, name: str, cfg: FieldConfig, coded: Coded, level: str) -> LevelArg:
    """What the metrics use for ``level``: a :class:`~iaa_gate.metrics.Sampled` distance when
    ``expected_sample`` is set and the distinct values have more pairs than it, else
    :func:`~iaa_gate.metrics.tabulate`'s (free text: its edit distances once)."""
    pairs = cfg.expected_sample
    if pairs is not None and level not in metrics.SAMPLED_LEVELS:
        raise InputError(
            dataset.source,
            [
                f"field {name!r}: fields.{name}.expected_sample applies to the "
                f"{' and '.join(metrics.SAMPLED_LEVELS)} distances; the field uses {level}"
            ],
            hint=f"remove fields.{name}.expected_sample",
        )
    v = coded.n_values
    if pairs is not None and v * (v - 1) // 2 > pairs:
        return metrics.Sampled(level, pairs, cfg.bootstrap.seed)
    return metrics.tabulate(coded.values, level)


def declared_scale(
    dataset: Dataset, matrix: RatingsMatrix, level: str, cfg: FieldConfig
) -> tuple[Coded | None, CategoriesUsed | None]:
    """An ordered field's codes on its declared scale, for the chance terms of the kappa family
    and AC2 (None: the codes as they are), and which categories they use: ``values`` and
    ``source`` (``labels``, the labeling config's ``maxRating``, or the values that occur)."""
    if level not in ("ordinal", "interval", "ratio") or matrix.multiple:
        return None, None
    values = matrix.coded.values.tolist()
    declared: list[Any] | None = None
    source = "the values that occur (declare the scale with labels: to use every category)"
    if cfg.labels and matrix.coded.values.dtype.kind != "f":
        source = "labels"  # the value table is the label set already
    elif cfg.labels:
        try:
            declared, source = [float(x) for x in cfg.labels], "labels"
        except ValueError:
            declared = None
    elif matrix.field in dataset.declared_scale:
        declared = list(dataset.declared_scale[matrix.field])
        source = "the labeling config's maxRating"
    if declared is None or not values or any(v not in declared for v in values):
        shown = [shown_value(v, False) for v in values]
        return None, CategoriesUsed(shown, source)
    index = np.array([declared.index(v) for v in values] + [-1], dtype=np.int64)
    codes = index[matrix.coded.codes.astype(np.int64)]
    scale_coded = Coded(codes, np.array(declared, dtype=np.float64))
    return scale_coded, CategoriesUsed([shown_value(v, False) for v in declared], source)


def propose(
    matrix: RatingsMatrix, level: str, names: list[str], units: Sequence[UnitResult]
) -> Skill | None:
    """Dawid–Skene on a nominal or multi-select field: fill ``units``' consensus and priority,
    return the annotators' skill; past :data:`~.consensus.MAX_CLASSES` labels the majority vote
    and no skill; an ordered field (ordinal, interval, ratio) gets the median rating and no
    skill; other levels neither."""
    if level in ("ordinal", "interval", "ratio") and not matrix.multiple:
        consensus.median(matrix.coded, units, matrix.unit_ids, lambda v: shown_value(v, False))
        return None
    if matrix.multiple:
        labels = sorted({x for v in matrix.coded.values for x in v})
        if len(labels) > consensus.MAX_CLASSES:  # the most common label set
            shown = lambda v: shown_value(v, True)  # noqa: E731
            consensus.majority(matrix.coded, units, matrix.unit_ids, shown)
            return None
        presence = {lab: matrix.label_presence(lab).codes for lab in labels}
        return consensus.label_sets(presence, units, matrix.unit_ids, matrix.annotators, names)
    if level != "nominal" or not matrix.coded.n_values:
        return None
    if matrix.coded.n_values > consensus.MAX_CLASSES:
        consensus.majority(matrix.coded, units, matrix.unit_ids, lambda v: shown_value(v, False))
        return None
    return consensus.nominal(
        matrix.coded,
        units,
        matrix.unit_ids,
        matrix.annotators,
        names,
        lambda v: shown_value(v, False),
    )


def matrix_result(
    matrix: RatingsMatrix,
    level: str,
    names: list[str],
    cfg: FieldConfig,
    units: Sequence[UnitResult],
    scale: np.ndarray[Any, np.dtype[np.float64]] | None = None,
    declared: Coded | None = None,
    distance: LevelArg | None = None,
) -> FieldResult:
    """A field's result from its ratings matrix; ``names``: display names of its annotators,
    ``scale``: numeric ratings for offsets (see :func:`_scale`); ``declared``: the codes on the
    declared scale, for every coefficient but alpha (see :func:`declared_scale`); ``distance``:
    what the metrics use for ``level`` when it is not the name (a
    :class:`~iaa_gate.metrics.Tabulated` one)."""
    metric = level if distance is None else distance
    coded = matrix.coded
    n_per_unit = np.count_nonzero(coded.codes >= 0, axis=1)
    n_paired = np.where(n_per_unit >= 2, n_per_unit, 0)  # the ratings alpha pairs
    coefficients = _coefficients(coded, level, matrix.multiple, cfg, metric, declared)
    alpha = coefficients["alpha"].value  # computed once, with its interval
    return FieldResult(
        name=matrix.field,
        kind=matrix.kind,
        level=level,
        multiple=matrix.multiple,
        n_tasks=len(matrix.unit_ids),
        n_rated=int(np.count_nonzero(n_paired)),
        n_pairable=int(np.count_nonzero(n_per_unit >= 2)),
        n_annotators=len(matrix.annotators),
        n_ratings=int(n_paired.sum()),
        alpha=alpha,
        category_method=cfg.category_method,
        categories=_categories(matrix, level, cfg.category_method, cfg.labels),
        coincidence=_coincidence(matrix),
        annotators=_annotators(matrix, metric, alpha, names, cfg, scale),
        units=units,
        coefficients=coefficients,
        pairwise=metrics.pairwise_agreement(coded),
    )


def _coefficients(
    coded: Coded,
    level: str,
    multiple: bool,
    cfg: FieldConfig,
    metric: LevelArg,
    declared: Coded | None = None,
) -> dict[str, Estimate]:
    chosen: list[str]
    if cfg.coefficients is not None:
        chosen = list(cfg.coefficients)
    elif multiple:
        chosen = ["alpha"]  # the kappa family does not apply to label sets
    else:
        chosen = default_coefficients(level, coded.codes.shape[1])
    t = cfg.thresholds
    gated = [n for n in COEFFICIENT_THRESHOLDS if t.for_coefficient(n) is not None]
    gated += [k for k in t.max_drop if k not in ("category", "annotator")]
    names = list(dict.fromkeys(["alpha", *chosen, *gated]))
    out = {}
    for name in names:
        est = compute(
            name,
            coded if declared is None or name == "alpha" else declared,
            metric,
            multiple=multiple,
            weights=cfg.weights,
            confidence=cfg.confidence,
            replicates=cfg.bootstrap.replicates,
            seed=cfg.bootstrap.seed,
            alpha_min=cfg.thresholds.alpha.fail,
        )
        out[name] = interpreted(est, cfg.interpretation, level)
    return out


def _categories(
    matrix: RatingsMatrix, level: str, method: str, configured: list[str] | None
) -> dict[str, float]:
    fn = getattr(metrics, method)
    if matrix.multiple:
        seen = {x for v in matrix.coded.values for x in v}
        order = list(configured or [])
        labels = [x for x in order if x in seen] + sorted(seen - set(order))
        return {
            lab: fn(matrix.label_presence(lab)).get(
                1.0,
                metrics.Undefined("the label was never chosen in a task with two or more ratings"),
            )
            for lab in labels
        }
    if level in ("interval", "ratio") and matrix.coded.n_values > MAX_COINCIDENCE_VALUES:
        return {}
    return {_key(k): v for k, v in fn(matrix.coded).items()}


def _key(v: Any) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _coincidence(matrix: RatingsMatrix) -> Coincidence | None:
    if matrix.multiple or not 0 < matrix.coded.n_values <= MAX_COINCIDENCE_VALUES:
        return None
    o, values = metrics.coincidence_matrix(matrix.coded)
    return Coincidence([_key(v) for v in values], o.round(6).tolist())


def _scale(matrix: RatingsMatrix, level: str) -> np.ndarray[Any, np.dtype[np.float64]] | None:
    """``(units, annotators)`` numbers for offsets and tolerance (NaN missing): the values when
    numeric, the ranks 1..K of an ordinal label scale; None for unordered labels."""
    if matrix.multiple:
        return None
    if matrix.coded.values.dtype == np.float64:
        return matrix.numeric()
    if level != "ordinal":
        return None
    codes = matrix.coded.codes
    return np.where(codes >= 0, codes + 1.0, np.nan)


def _annotators(
    matrix: RatingsMatrix,
    level: LevelArg,
    alpha: float,
    names: list[str],
    cfg: FieldConfig,
    scale: np.ndarray[Any, np.dtype[np.float64]] | None,
) -> list[AnnotatorResult]:
    result = metrics.annotator_agreement(matrix.coded, level)
    offsets = metrics.annotator_offsets(scale) if scale is not None else None
    gain_bar = cfg.thresholds.annotator_gain
    out = []
    for i, ann in enumerate(matrix.annotators):
        without = float(result.alpha_without[i])
        gain = without - alpha if not (math.isnan(without) or math.isnan(alpha)) else math.nan
        out.append(
            AnnotatorResult(
                id=ann,
                name=names[i],
                n_units=int(result.n_units[i]),
                pair_agreement=float(result.pair_agreement[i]),
                alpha_without=without,
                alpha_gain=gain,
                outlier=gain_bar is not None and not math.isnan(gain) and gain >= gain_bar,
                mean_offset=None if offsets is None else float(offsets[i]),
            )
        )
    return out


def _units(
    dataset: Dataset,
    matrix: RatingsMatrix,
    level: LevelArg,
    cfg: FieldConfig,
    scale: np.ndarray[Any, np.dtype[np.float64]] | None,
) -> UnitTable:
    """Every task someone answered this field on, with its score and status (by the share of
    pairs within ``disputed_tolerance`` when set), as arrays."""
    cols = dataset.columns()
    col = cols.fields[matrix.field]
    rows, codes = col.row_array(), col.code_array()
    if not (matrix.multiple and cfg.empty == "empty_set"):
        keep = np.array([v != () for v in col.values], dtype=bool)[codes]
        rows, codes = rows[keep], codes[keep]
    shown = [shown_value(v, matrix.multiple) for v in col.values]
    names = [dataset.display_name(a) for a in cols.annotators]
    place = {n: i for i, n in enumerate(sorted(set(names)))}
    rank = np.array([place[n] for n in names], dtype=np.int64)
    task, ann = cols.array("task")[rows], cols.array("annotator")[rows]
    key = task * max(len(place), 1) + rank[ann]  # by task, then annotator name: label order
    order = np.argsort(key, kind="stable")  # one key sorts faster than lexsort's two
    task = task[order]
    starts = np.flatnonzero(np.diff(task, prepend=-1))
    ends = np.append(starts[1:], len(task))
    tolerance = cfg.thresholds.disputed_tolerance
    if tolerance is not None and scale is not None:
        scores = metrics.tolerance_scores(scale, tolerance)
    else:
        scores = metrics.item_scores(matrix.coded, level)
    bar = cfg.thresholds.disputed_below
    status = np.where(np.isnan(scores), 2, np.where(scores < bar, 1, 0)).astype(np.int8)
    slot = cols.task_index
    ids = matrix.unit_ids
    if ids == cols.tasks:  # the usual: the units are the task slots, in order
        unit_slot: npt.NDArray[np.int64] = np.arange(len(ids), dtype=np.int64)
    else:
        unit_slot = np.fromiter(map(slot.get, ids, repeat(-1)), np.int64, len(ids))
    group = np.searchsorted(task[starts], unit_slot)  # the unit's rows, if it has any
    found = group < len(starts)
    found[found] = task[starts[group[found]]] == unit_slot[found]
    kept = np.flatnonzero(found)
    ids = (
        matrix.unit_ids if len(kept) == len(found) else [matrix.unit_ids[i] for i in kept.tolist()]
    )
    group = group[kept]
    return UnitTable(
        list(ids),
        status[kept],
        scores[kept],
        (starts[group], ends[group]),
        (names, ann[order], shown, codes[order]),
    )


def shown_value(v: tuple[str, ...] | float | str, multiple: bool) -> Any:
    """A value as the report shows it: a label, a sorted label list, or a number."""
    if isinstance(v, tuple):
        return sorted(v) if multiple or len(v) != 1 else v[0]
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _options(kind: str) -> frozenset[str]:
    known = registry().get(kind)
    return known.options if known else frozenset()
