"""Ground truth and round filters on the columns (issue 17): the same references, ratings and
round as the per-annotation rules, with the gold ids built once and an object made only for
each reference."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_gate import config as config_module
from iaa_gate.config import parse_config
from iaa_gate.evaluation import ground_truth
from iaa_gate.model import Annotation, Dataset, FieldValue, RoundFilter, apply_round, columns

T0 = datetime(2026, 11, 2, tzinfo=timezone.utc)

annotations = st.lists(
    st.tuples(
        st.integers(1, 12),  # task
        st.sampled_from(["a", "b", "c", "lead"]),
        st.booleans(),  # ground_truth flag
        st.one_of(st.none(), st.integers(0, 5)),  # created, in days after T0
        st.sampled_from(["A", "B"]),
    ),
    max_size=40,
    unique_by=lambda x: (x[0], x[1]),
)


def _dataset(rows: list[tuple[int, str, bool, int | None, str]]) -> Dataset:
    anns = [
        Annotation(
            task,
            who,
            {"f": FieldValue("choices", (label,))},
            None if day is None else T0 + timedelta(days=day),
            None,
            gt,
            annotation_id=f"{task}-{who}",
        )
        for task, who, gt, day, label in rows
    ]
    return Dataset("x.json", anns, sorted({r[0] for r in rows}))


def _config(gold: str | None, tasks: list[Any] | None, include: bool) -> Any:
    truth: dict[str, Any] = {}
    if gold is not None:
        truth["annotator"] = gold
    if tasks is not None:
        truth["tasks"] = tasks
    return parse_config(
        {
            "source": {
                "type": "label-studio-export",
                "path": "x.json",
                "include_ground_truth": include,
            },
            "fields": {"f": {}},
            **({"ground_truth": truth} if truth else {}),
        }
    )


@settings(max_examples=150, deadline=None)
@given(
    rows=annotations,
    gold=st.sampled_from([None, "lead", "b"]),
    tasks=st.sampled_from([None, ["1-6"], ["2", 9, "11-12"]]),
    include=st.booleans(),
)
def test_split_equals_the_rule_per_annotation(
    rows: list[Any], gold: str | None, tasks: list[Any] | None, include: bool
) -> None:
    dataset = _dataset(rows)
    config = _config(gold, tasks, include)
    kept, refs = ground_truth.split(dataset, config)
    expected_refs = [
        a for a in dataset.annotations if ground_truth.is_reference(a, dataset, config)
    ]
    assert list(refs) == expected_refs
    assert refs.task_ids() == [a.task_id for a in expected_refs]
    assert refs.keys() == {(a.task_id, a.annotator, a.annotation_id) for a in expected_refs}
    expected_kept = [a for a in dataset.annotations if include or a not in expected_refs]
    assert list(kept.annotations) == expected_kept


def _keeps(rnd: RoundFilter, ann: Annotation) -> bool:
    """The round's rule for one annotation: its task is in the round and it was created or
    updated within the round's dates (the reference the column-wise filter is held to)."""
    if not rnd.keeps_task(ann.task_id):
        return False
    if rnd.start is None and rnd.end is None:
        return True
    stamps = [t for t in (ann.created_at, ann.updated_at) if t is not None]
    return any(
        (rnd.start is None or t >= rnd.start) and (rnd.end is None or t <= rnd.end) for t in stamps
    )


@settings(max_examples=150, deadline=None)
@given(
    rows=annotations,
    start=st.one_of(st.none(), st.integers(0, 5)),
    end=st.one_of(st.none(), st.integers(0, 5)),
    ids=st.sampled_from([None, frozenset({1, 2, 3}), frozenset({"4", 5})]),
)
def test_round_filter_equals_the_rule_per_annotation(
    rows: list[Any], start: int | None, end: int | None, ids: frozenset[Any] | None
) -> None:
    dataset = _dataset(rows)
    rnd = RoundFilter(
        None if start is None else T0 + timedelta(days=start),
        None if end is None else T0 + timedelta(days=end, hours=23),
        ids,
    )
    got = apply_round(dataset, rnd)
    expected = [a for a in dataset.annotations if _keeps(rnd, a)] if rnd else dataset.annotations
    assert list(got.annotations) == list(expected)
    if rnd:
        assert got.stats.outside_round == len(dataset.annotations) - len(expected)


def test_gold_ids_are_built_once_and_objects_made_only_for_references(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [(t, w, False, 0, "A") for t in range(1, 2001) for w in ("a", "b", "lead")]
    plain = _dataset(rows)
    dataset = Dataset.of_columns("x.json", columns.Columns.of(plain.annotations), plain.task_ids)
    config = _config("lead", ["1-1000"], include=False)
    calls = {"ids": 0, "annotations": 0}
    real_ids = config_module.GroundTruthConfig.ids

    def counted_ids(self: Any) -> Any:
        calls["ids"] += 1
        return real_ids(self)

    real_annotations = columns.Columns.annotations

    def counted_annotations(self: columns.Columns) -> list[Annotation]:
        made = real_annotations(self)
        calls["annotations"] += len(made)
        return made

    monkeypatch.setattr(config_module.GroundTruthConfig, "ids", counted_ids)
    monkeypatch.setattr(columns.Columns, "annotations", counted_annotations)
    kept, refs = ground_truth.split(dataset, config)
    assert len(refs) == 1000 and len(kept.columns()) == 5000
    assert calls == {"ids": 1, "annotations": 0}  # the references stay rows until asked for
    assert len(list(refs)) == 1000 and calls == {"ids": 1, "annotations": 1000}


def _per_answer(
    name: str, cfg: Any, level: str, kind: str, dataset: Dataset, refs: list[Annotation]
) -> Any:
    """Each annotator against the references, one answer at a time (the loop the column-wise
    comparison replaced, kept here as its reference): per answer on a gold task that is not a
    reference itself, the kind's comparison and, for numbers, the offset."""
    compare, _ = ground_truth.COMPARISONS[kind](level, cfg)
    truth: dict[Any, Any] = {}
    conflicting: set[Any] = set()
    for r in refs:
        if name in r.fields:
            v = r.fields[name].value
            if r.task_id in truth and compare(truth[r.task_id], v) < 1:
                conflicting.add(r.task_id)
            truth.setdefault(r.task_id, v)
    for t in conflicting:
        del truth[t]
    keys = {(r.task_id, r.annotator, r.annotation_id) for r in refs}
    scores: dict[str, list[float]] = {}
    offsets: dict[str, list[float]] = {}
    for a in dataset.columns().annotations():
        if (a.task_id, a.annotator, a.annotation_id) in keys or name not in a.fields:
            continue
        if a.task_id not in truth:
            continue
        v, ref = a.fields[name].value, truth[a.task_id]
        scores.setdefault(a.annotator, []).append(compare(v, ref))
        if isinstance(v, float) and isinstance(ref, float):
            offsets.setdefault(a.annotator, []).append(v - ref)
    return [
        (a, len(s), sum(s) / len(s), sum(offsets[a]) / len(offsets[a]) if a in offsets else None)
        for a, s in sorted(scores.items())
    ]


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(1, 8),  # task
            st.sampled_from(["a", "b", "c", "lead"]),
            st.booleans(),  # ground_truth flag
            st.sampled_from([1.0, 2.0, 2.5, 4.0]),  # a rating
            st.sampled_from(["A", "B", ("A", "B")]),  # a choice or a multi-choice
        ),
        max_size=40,
    ),
    gold=st.sampled_from([None, "lead"]),
    tasks=st.sampled_from([None, ["1-4"], ["2", 7]]),
    include=st.booleans(),
    tolerance=st.sampled_from([None, 0.5]),
)
def test_each_annotator_against_ground_truth_by_column_equals_the_loop_over_answers(
    rows: list[Any],
    gold: str | None,
    tasks: list[Any] | None,
    include: bool,
    tolerance: float | None,
) -> None:
    """Repeated answers (the same annotator twice on a task), conflicting references, flagged
    and gold-annotator references, references left in or out of the agreement data, numbers
    with and without a tolerance, label sets: the column-wise comparison gives each annotator
    the count, mean agreement and mean offset of the loop over answers."""
    anns = [
        Annotation(
            task,
            who,
            {
                "score": FieldValue("rating", rating),
                "label": FieldValue("choices", label if isinstance(label, tuple) else (label,)),
            },
            T0,
            None,
            gt,
            annotation_id=f"{task}-{who}-{k}",
        )
        for k, (task, who, gt, rating, label) in enumerate(rows)
    ]
    dataset = Dataset("x.json", anns, sorted({r[0] for r in rows}))
    config = _config(gold, tasks, include)
    kept, refs = ground_truth.split(dataset, config)
    for name, kind, level in (("score", "rating", "interval"), ("label", "choices", "nominal")):
        cfg = parse_config(
            {
                "source": {"type": "label-studio-export", "path": "x.json"},
                "fields": {name: {"thresholds": {"disputed_tolerance": tolerance}}},
            }
        ).fields[name]
        got = ground_truth.field_truth(name, kind, level, cfg, kept, refs)
        # the references' column gives what their objects give
        assert got == ground_truth.field_truth(name, kind, level, cfg, kept, list(refs))
        expected = _per_answer(name, cfg, level, kind, kept, refs)
        if got is None:
            assert expected == []
            continue
        assert [(a.id, a.n_tasks, a.agreement, a.mean_offset) for a in got.annotators] == expected
