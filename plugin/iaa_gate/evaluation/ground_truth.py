"""Agreement with ground truth: each annotator's answers against reference annotations.

A reference is an annotation Label Studio marks ``ground_truth: true``, or one by the configured
gold annotator, on a gold task when ``ground_truth.tasks`` names them. Each field is compared
task by task with the field kind's :data:`Compare` function (0–1); a field kind plugs in its
own comparison through :func:`register_comparison`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property, partial
from itertools import repeat
from typing import Any, overload

import numpy as np

from ..config import Config, FieldConfig
from ..kinds import registry
from ..metrics.distance import NAMED, SET_DISTANCES
from ..model import (
    Annotation,
    Columns,
    Dataset,
    FieldColumn,
    FieldValue,
    LazyAnnotations,
    RegionSet,
    TaskId,
    intern,
    normalise_text,
    task_mask,
)
from .results import AnnotatorTruth, FieldTruth

Compare = Callable[[Any, Any], float]
"""Agreement of two annotations of one field on one task: 1 = same answer, 0 = nothing shared."""
ComparisonFactory = Callable[[str, FieldConfig], tuple[Compare, str]]
"""(level, field config) → (comparison, how it compares, in words)."""


def _exact(a: Any, b: Any) -> float:
    return 1.0 if a == b else 0.0


def _scalar(level: str, cfg: FieldConfig) -> tuple[Compare, str]:
    tol = cfg.thresholds.disputed_tolerance
    if tol is not None:

        def near(a: Any, b: Any) -> float:
            ok = isinstance(a, float) and isinstance(b, float) and abs(a - b) <= tol + 1e-9
            return 1.0 if ok else _exact(a, b)

        return near, f"within {tol:g} of the reference"
    if level in SET_DISTANCES:
        dist = SET_DISTANCES[level]

        def sets(a: Any, b: Any) -> float:
            x, y = (frozenset(v if isinstance(v, tuple) else (v,)) for v in (a, b))
            return 1.0 - dist(x, y)

        return sets, f"1 − {level} distance of the label sets"
    return _exact, "exact match"


def _named(level: str, cfg: FieldConfig) -> tuple[Compare, str]:
    """Taxonomy paths and free text: 1 − the field's distance (hierarchical, levenshtein) or an
    exact match; free text is normalised as the field's ``normalize`` says."""
    dist = NAMED.get(level) if level in ("hierarchical", "levenshtein") else None

    def norm(v: Any) -> Any:
        return normalise_text(v, cfg.normalize) if isinstance(v, str) else v

    def compare(a: Any, b: Any) -> float:
        a, b = norm(a), norm(b)
        if dist is None or not isinstance(a, str) or not isinstance(b, str):
            return _exact(a, b)
        return 1.0 - float(dist(np.array([a], dtype=object), np.array([b], dtype=object))[0])

    if dist is None and level not in ("nominal",):
        return _scalar(level, cfg)
    return compare, (f"1 − {level} distance" if dist is not None else "exact match")


def _regions(kind: str, level: str, cfg: FieldConfig) -> tuple[Compare, str]:
    """Region fields: pairwise F1 of an annotator's regions against the reference's, matched one
    to one as the field's ``matching`` says (two empty answers agree: 1)."""
    from .region_columns import match  # region analysis imports this module's results

    def f1(a: Any, b: Any) -> float:
        if not isinstance(a, RegionSet) or not isinstance(b, RegionSet):
            return _exact(a, b)
        if not len(a) and not len(b):
            return 1.0
        pair = [Annotation(0, w, {"f": FieldValue(kind, "", s)}) for w, s in (("a", a), ("b", b))]
        matched = match(Dataset("ground truth", pair, [0]), "f", cfg)
        return 2 * len(matched.matching.first) / (len(a) + len(b))

    m = cfg.matching
    how = "exact boundaries" if m.mode == "exact" else f"IoU ≥ {m.iou:g}"
    return f1, f"pairwise F1 of matched regions ({how}{', same label' if m.labels else ''})"


BY_COMPARISON: dict[str, Callable[[str], ComparisonFactory]] = {
    "exact": lambda kind: _scalar,
    "named": lambda kind: _named,
    "regions": lambda kind: partial(_regions, kind),
}
"""A field kind's ``comparison`` (see :class:`~iaa_gate.kinds.Kind`) → its factory."""

COMPARISONS: dict[str, ComparisonFactory] = {
    k.name: BY_COMPARISON[k.comparison](k.name)
    for k in registry().values()
    if k.comparison in BY_COMPARISON
}
"""Control type → how its answers are compared with a reference (from the kinds registry)."""


def register_comparison(kind: str, factory: ComparisonFactory) -> None:
    """Compare fields of control ``kind`` with ``factory(level, cfg)`` against ground truth."""
    COMPARISONS[kind] = factory


def is_reference(ann: Annotation, dataset: Dataset, config: Config) -> bool:
    """Whether ``ann`` is ground truth under the config (flag or gold annotator, gold tasks)."""
    gt = config.ground_truth
    gold = gt.annotator if gt else None
    ref = ann.ground_truth or (
        gold is not None and gold in (ann.annotator, dataset.display_name(ann.annotator))
    )
    tasks = gt.ids() if gt else None
    return ref and (tasks is None or ann.task_id in tasks or str(ann.task_id) in tasks)


def reference_rows(dataset: Dataset, config: Config) -> Any:
    """``(rows,)`` bool over ``dataset.columns()``: the references, as :func:`is_reference`
    decides, computed on the columns (the gold ids built once, one look-up per task)."""
    cols = dataset.columns()
    gt = config.ground_truth
    flagged = cols.array("ground_truth") == 1
    gold = gt.annotator if gt else None
    if gold is not None:
        by_gold = np.array(
            [gold in (a, dataset.display_name(a)) for a in cols.annotators] or [False]
        )
        flagged |= by_gold[cols.array("annotator")]
    return flagged & task_mask(cols, gt.ids() if gt else None)


class References(Sequence[Annotation]):
    """The reference annotations as rows of the source's columns (``cols``). A field of values
    is compared with them column by column (:func:`field_truth`); :class:`Annotation` objects
    are made only when one is asked for (a region field, a model's section), so a gold
    annotator on every task of a large round costs no object per answer."""

    def __init__(self, cols: Columns) -> None:
        self.cols = cols

    def __len__(self) -> int:
        return len(self.cols)

    @cached_property
    def objects(self) -> list[Annotation]:
        """One :class:`Annotation` per reference, in the source's order."""
        return self.cols.annotations()

    @overload
    def __getitem__(self, i: int) -> Annotation: ...
    @overload
    def __getitem__(self, i: slice) -> list[Annotation]: ...
    def __getitem__(self, i: int | slice) -> Annotation | list[Annotation]:
        return self.objects[i]

    def __iter__(self) -> Iterator[Annotation]:
        return iter(self.objects)

    def task_ids(self) -> list[TaskId]:
        """Each reference's task, in order."""
        tasks = self.cols.tasks
        return [tasks[t] for t in self.cols.array("task").tolist()]

    def keys(self) -> set[tuple[TaskId, str, Any]]:
        """Each reference's (task, annotator, annotation id)."""
        c = self.cols
        annotators = [c.annotators[a] for a in c.array("annotator").tolist()]
        return set(zip(self.task_ids(), annotators, c.annotation_ids, strict=True))

    def on_tasks(self, keep: Callable[[TaskId], bool]) -> References:
        """The references on the tasks ``keep`` keeps (asked once per task)."""
        task = self.cols.array("task")
        kept = np.zeros(len(self.cols.tasks), dtype=bool)
        distinct = np.unique(task)
        kept[distinct] = [keep(self.cols.tasks[t]) for t in distinct.tolist()]
        return References(self.cols.select(kept[task]))


def split(dataset: Dataset, config: Config) -> tuple[Dataset, References]:
    """The dataset for inter-annotator agreement and the reference annotations; references are
    left out of the former when ``source.include_ground_truth`` is false (and counted). The
    references are rows of the source's columns (:class:`References`)."""
    cols = dataset.columns()
    if (config.ground_truth is None or config.ground_truth.annotator is None) and not any(
        cols.ground_truth
    ):  # nothing marked, no gold annotator: no references
        return dataset, References(cols.select(np.zeros(len(cols), dtype=bool)))
    is_ref = reference_rows(dataset, config)
    refs = References(cols.select(is_ref))
    if not refs or getattr(config.source, "include_ground_truth", True):
        return dataset, refs
    excluded = dataset.stats.ground_truth_excluded + len(refs)
    stats = replace(dataset.stats, ground_truth_excluded=excluded)
    return replace(dataset, annotations=LazyAnnotations(cols.select(~is_ref)), stats=stats), refs


def field_truth(
    name: str,
    kind: str,
    level: str,
    cfg: FieldConfig,
    dataset: Dataset,
    refs: Sequence[Annotation],
) -> FieldTruth | None:
    """Each annotator of field ``name`` against the references (None: no reference answers it)."""
    factory = COMPARISONS.get(kind)
    compare, how = factory(level, cfg) if factory is not None else (_exact, "")
    truth: dict[TaskId, Any] = {}
    conflicting: set[TaskId] = set()
    for task, v in _reference_answers(name, refs):
        if task in truth and compare(truth[task], v) < 1:
            conflicting.add(task)
        truth.setdefault(task, v)
    for t in conflicting:
        del truth[t]
    if not truth and not conflicting:
        return None
    if factory is None:  # never compare with a rule made for another kind of answer
        how = f"not evaluated: no ground-truth comparison for {kind} fields yet"
        return FieldTruth(how, len(truth), sorted(conflicting, key=str))
    ref_keys = (
        refs.keys()
        if isinstance(refs, References)
        else {(r.task_id, r.annotator, r.annotation_id) for r in refs}
    )
    cols = dataset.columns()
    column = cols.fields.get(name)
    if column is not None and column.regions is None:  # answers are values: by column
        annotators = _by_column(dataset, column, truth, ref_keys, compare)
        return FieldTruth(how, len(truth), sorted(conflicting, key=str), annotators)
    scores: dict[str, list[float]] = {}
    offsets: dict[str, list[float]] = {}
    on_gold = cols.select(task_mask(cols, frozenset(truth)))  # only the gold tasks' answers
    for a in on_gold.annotations():
        if (a.task_id, a.annotator, a.annotation_id) in ref_keys or name not in a.fields:
            continue
        if a.task_id not in truth:
            continue
        v, ref = _answer(a.fields[name]), truth[a.task_id]
        scores.setdefault(a.annotator, []).append(compare(v, ref))
        if isinstance(v, float) and isinstance(ref, float):
            offsets.setdefault(a.annotator, []).append(v - ref)
    annotators = [
        AnnotatorTruth(
            ann,
            dataset.display_name(ann),
            len(s),
            sum(s) / len(s),
            sum(offsets[ann]) / len(offsets[ann]) if ann in offsets else None,
        )
        for ann, s in sorted(scores.items())
    ]
    return FieldTruth(how, len(truth), sorted(conflicting, key=str), annotators)


def _by_column(
    dataset: Dataset,
    column: FieldColumn,
    truth: dict[TaskId, Any],
    refs: set[tuple[TaskId, str, Any]],
    compare: Compare,
) -> list[AnnotatorTruth]:
    """Each annotator against ``truth`` (gold task → its reference answer) on a field whose
    answers are values, in one pass over the field's column: no object per answer, and each
    distinct (answer, reference) pair compared once. ``refs``: (task, annotator, annotation id)
    of the references, which are not compared with themselves. The sums run in row order, as
    the loop over answers they replace added them."""
    cols = dataset.columns()
    ref_values: list[Any] = []
    ref_index: dict[Any, int] = {}
    ref_of_task = np.full(len(cols.tasks), -1, dtype=np.int64)
    for task, value in truth.items():
        slot = cols.task_index.get(task)
        if slot is not None:
            ref_of_task[slot] = intern(ref_index, ref_values, value)
    rows = column.row_array()
    rows_order = np.argsort(rows, kind="stable")  # answers in row order
    rows, codes = rows[rows_order], column.code_array()[rows_order]
    task, who = cols.array("task")[rows], cols.array("annotator")[rows]
    ref = ref_of_task[task]
    keep = ref >= 0
    if refs:  # a reference is not an answer: matched by (task, annotator), then by its id
        n_ann = max(len(cols.annotators), 1)
        ref_tasks, ref_annotators, _ = zip(*refs, strict=True)
        t_at = np.fromiter(map(cols.task_index.get, ref_tasks, repeat(-1)), np.int64, len(refs))
        a_at = np.fromiter(
            map(cols.annotator_index.get, ref_annotators, repeat(-1)), np.int64, len(refs)
        )
        ref_pairs = (t_at * n_ann + a_at)[(t_at >= 0) & (a_at >= 0)]
        maybe = np.flatnonzero(keep & np.isin(task * n_ann + who, ref_pairs))
        tasks, annotators, ids = cols.tasks, cols.annotators, cols.annotation_ids
        at = zip(rows[maybe].tolist(), task[maybe].tolist(), who[maybe].tolist(), strict=True)
        for k, (r, t, a) in zip(maybe.tolist(), at, strict=True):
            if (tasks[t], annotators[a], ids[r]) in refs:
                keep[k] = False
    codes, ref, who = codes[keep], ref[keep], who[keep]
    values, n_refs = column.values, max(len(ref_values), 1)
    distinct, inverse = np.unique(codes * n_refs + ref, return_inverse=True)
    score_of, offset_of, numbers = [], [], []
    for pair in distinct.tolist():
        v, r = values[pair // n_refs], ref_values[pair % n_refs]
        score_of.append(compare(v, r))
        numbers.append(isinstance(v, float) and isinstance(r, float))
        offset_of.append(v - r if numbers[-1] else 0.0)
    inverse = inverse.reshape(-1)
    score = np.array(score_of, dtype=np.float64)[inverse]
    offset = np.array(offset_of, dtype=np.float64)[inverse]
    has_offset = np.array(numbers, dtype=bool)[inverse]
    n = np.bincount(who, minlength=len(cols.annotators))
    total = np.bincount(who, weights=score, minlength=len(cols.annotators))
    n_off = np.bincount(who[has_offset], minlength=len(cols.annotators))
    off = np.bincount(who[has_offset], weights=offset[has_offset], minlength=len(cols.annotators))
    out = []
    for a in sorted(np.flatnonzero(n).tolist(), key=cols.annotators.__getitem__):
        ann = cols.annotators[a]
        mean_offset = float(off[a] / n_off[a]) if n_off[a] else None
        out.append(
            AnnotatorTruth(
                ann, dataset.display_name(ann), int(n[a]), float(total[a] / n[a]), mean_offset
            )
        )
    return out


def _reference_answers(name: str, refs: Sequence[Annotation]) -> Iterator[tuple[TaskId, Any]]:
    """Each reference's (task, answer) on field ``name``, in the references' order: of
    :class:`References` on a field of values, from its column (no object per reference)."""
    column = refs.cols.fields.get(name) if isinstance(refs, References) else None
    if isinstance(refs, References) and (column is None or column.regions is None):
        if column is None:
            return iter(())
        tasks, task, values = refs.cols.tasks, refs.cols.array("task"), column.values
        rows, codes = column.row_array(), column.code_array()
        order = np.argsort(rows, kind="stable")  # the references' order, as the objects come
        return zip(
            map(tasks.__getitem__, task[rows[order]].tolist()),
            map(values.__getitem__, codes[order].tolist()),
            strict=True,
        )
    return ((r.task_id, _answer(r.fields[name])) for r in refs if name in r.fields)


def _answer(fv: FieldValue) -> Any:
    """What a field's answer is compared by: its regions for a region field, else its value."""
    return fv.regions if fv.regions is not None else fv.value


def lowest(t: FieldTruth) -> AnnotatorTruth | None:
    """The annotator who agrees least with ground truth (an undefined agreement first: it is
    the one to look at)."""
    return min(
        t.annotators,
        key=lambda a: (a.agreement is not None, a.agreement or 0.0),
        default=None,
    )


__all__ = [
    "Compare",
    "FieldTruth",
    "References",
    "field_truth",
    "is_reference",
    "lowest",
    "register_comparison",
    "split",
]
