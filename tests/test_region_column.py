"""A region field held flat (``model.RegionColumn``): what goes in as region sets comes back out
the same through appends, selects, joins and rollbacks, and ``region_table`` (its slices) gives
the table the loop over one ``RegionSet`` per answer gave (kept here as the reference)."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iaa_gate.core.errors import InputError
from iaa_gate.evaluation.matrix import _natural, region_table
from iaa_gate.kinds import REGION_SHAPES
from iaa_gate.kinds import kind as registered
from iaa_gate.metrics.geometry import shape_of
from iaa_gate.model import Annotation, Columns, Dataset, FieldValue, RegionColumn, RegionSet

IDS = st.sampled_from(["a", "b", "c", "7"])
LABELS = st.sampled_from(["", "A", "B", "C"])
NUMBERS = st.integers(0, 20).map(float)


@st.composite
def region_sets(draw: Any, shape: str) -> RegionSet:
    """A region set as the readers make one: ``shape``'s coordinates, points for polygons and
    masks (and, as Prodigy's boxes, sometimes for boxes), relations between its ids, an attribute
    or two, relations dropped."""
    if shape == "box" and draw(st.booleans()):
        shape = "polygon"  # Prodigy image_manual: a box field with a non-rectangle shape
    n = draw(st.integers(0, 4))
    ids = draw(st.lists(IDS, min_size=n, max_size=n))
    width = shape_of(shape).width
    rs = RegionSet(
        shape,
        ids,
        draw(st.lists(LABELS, min_size=n, max_size=n)),
        draw(st.lists(NUMBERS, min_size=n * width, max_size=n * width)),
    )
    if shape in ("polygon", "mask") or (shape == "box" and draw(st.booleans())):
        pair = st.tuples(NUMBERS, NUMBERS)
        rs.points = draw(st.lists(st.lists(pair, min_size=1, max_size=3), min_size=n, max_size=n))
    if n:
        ends = st.sampled_from(ids)
        rs.relations = draw(st.lists(st.tuples(ends, ends, LABELS), max_size=2))
        for name in draw(st.lists(st.sampled_from(["certainty", "note"]), max_size=2, unique=True)):
            at = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n))
            kind = "choices" if name == "certainty" else "textarea"
            rs.attributes[name] = (kind, [(i, draw(st.sampled_from(["x", "y"]))) for i in at])
    rs.dropped_relations = draw(st.integers(0, 1))
    return rs


KINDS = st.sampled_from(
    ["labels", "rectanglelabels", "polygonlabels", "brushlabels", "spans", "image"]
)


@st.composite
def answers(draw: Any) -> tuple[str, list[tuple[int, str, RegionSet | None]]]:
    """A region field's kind and its answers: (task, annotator, region set or None)."""
    kind = draw(KINDS)
    shape = REGION_SHAPES[kind]
    one = st.tuples(
        st.integers(1, 4),
        st.sampled_from(["1", "2", "10", "x"]),
        st.one_of(region_sets(shape), st.none()) if draw(st.booleans()) else region_sets(shape),
    )
    return kind, draw(st.lists(one, max_size=8))


def _annotations(kind: str, given: list[tuple[int, str, RegionSet | None]]) -> list[Annotation]:
    """One annotation per answer (a repeated task and annotator is a second answer), a choices
    field beside the region field on every other one."""
    out = []
    for k, (t, a, rs) in enumerate(given):
        fields = {"ner": FieldValue(kind, "", rs)}
        if k % 2:
            fields["c"] = FieldValue("choices", ("A",))
        out.append(Annotation(t, a, fields, annotation_id=k))
    return out


def _sets(cols: Columns) -> list[RegionSet | None]:
    col = cols.fields.get("ner")
    return [] if col is None else (col.region_sets() or [None] * len(col.rows))


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(field=answers(), cut=st.integers(0, 8), keep=st.lists(st.booleans(), min_size=8, max_size=8))
def test_region_sets_come_back_as_they_went_in(
    field: tuple[str, list[tuple[int, str, RegionSet | None]]], cut: int, keep: list[bool]
) -> None:
    """Appended, selected, joined and rolled back, the columns give back each answer's region
    set as it was read."""
    kind, given = field
    sets = [rs for _, _, rs in given]
    cols = Columns.of(_annotations(kind, given))
    assert _sets(cols) == sets
    assert _sets(pickle.loads(pickle.dumps(cols))) == sets  # as a forked reader sends them
    mask = np.array(keep[: len(given)], dtype=bool)
    assert _sets(cols.select(mask)) == [rs for rs, k in zip(sets, mask, strict=True) if k]
    first, later = (
        Columns.of(_annotations(kind, given[:cut])),
        Columns.of(_annotations(kind, given[cut:])),
    )
    first.extend(later)
    assert _sets(first) == sets
    rolled = Columns.of(_annotations(kind, given[:cut]))
    mark = rolled.mark()
    for ann in _annotations(kind, given[cut:]):
        rolled.add(ann)
    rolled.rollback(mark)
    assert _sets(rolled) == sets[:cut]


SHARED = "r" + str(10)  # one object, made at run time (not a constant of the module)


@pytest.mark.parametrize(
    "ids",
    [[], [""], ["", ""], ["r1", "", "r2"], ["a\x00b", "c"], ["\x00"], ["r1", 7], [SHARED] * 3],
)
def test_region_ids_come_back_from_a_pickle_as_they_were(ids: list[Any]) -> None:
    """A region column's ids, pickled as one string, come back as the same list: empty ids,
    one holding the separator, one that is no string; ids sharing one object still do (as
    Prodigy's ids by place, which would take memory per region otherwise)."""
    rc = RegionColumn()
    rc.answer("span")
    rc.ids += ids
    back = pickle.loads(pickle.dumps(rc))
    assert back.ids == ids and list(map(type, back.ids)) == list(map(type, ids))
    assert len(set(map(id, back.ids))) == len(set(map(id, ids)))


def _reference_table(dataset: Dataset, name: str, labels: Sequence[str] | None) -> dict[str, Any]:
    """``region_table`` as it was before the regions were held flat: a loop over one
    ``RegionSet`` per answer (the table's columns as plain lists)."""
    kind = dataset.field_kinds()[name]
    cols = dataset.columns()
    col = cols.fields.get(name)
    tasks, who = cols.tasks, cols.annotators
    sets = [
        (tasks[cols.task[r]], who[cols.annotator[r]], rs)
        for r, rs in zip(col.rows, col.region_sets() or [], strict=True)
        if rs is not None
    ]
    shape = shape_of(REGION_SHAPES[kind])
    if shape.widens_to and any(s.shape == shape.widens_to for _, _, s in sets):
        shape = shape_of(shape.widens_to)
    unit_ids = list(dataset.task_ids)
    unit_index = dict(zip(unit_ids, range(len(unit_ids)), strict=True))
    answered = (
        [(tasks[t], who[a]) for t, a in zip(cols.task, cols.annotator, strict=True)]
        if (fk := registered(kind)) is None or not fk.own_view
        else [(t, a) for t, a, _ in sets]
    )
    for t, _ in answered:
        if t not in unit_index:
            unit_index[t] = len(unit_ids)
            unit_ids.append(t)
    annotators = sorted({a for _, a in answered}, key=_natural)
    ann_index = {a: i for i, a in enumerate(annotators)}
    rated = np.zeros((len(unit_ids), len(annotators)), dtype=bool)
    for t, a in answered:
        rated[unit_index[t], ann_index[a]] = True
    units, anns, label_list, ids, coords, points, rel = [], [], [], [], [], [], []
    attrs: dict[str, tuple[str, list[int], list[Any]]] = {}
    dropped = 0
    for t, a, s in sets:
        start, k = len(units), len(s)
        units += [unit_index[t]] * k
        anns += [ann_index[a]] * k
        label_list += s.labels
        ids += s.ids
        if shape.points is not None:
            points += [shape.points(p).tolist() for p in s.points]
        own = shape_of(s.shape).width
        coords += [c for i in range(k) for c in s.coords[i * own : i * own + shape.width]]
        if s.relations:
            row = {rid: start + i for i, rid in reversed(list(enumerate(s.ids)))}
            rel += [(row[f], row[to], lab) for f, to, lab in s.relations]
        dropped += s.dropped_relations
        for attr, (akind, values) in s.attributes.items():
            entry = attrs.setdefault(attr, (akind, [], []))
            entry[1].extend(start + i for i, _ in values)
            entry[2].extend(v for _, v in values)
    if labels is not None:
        bad = sorted({lab for lab in label_list if lab and lab not in labels})
        if bad:
            return {"error": bad}
    table = list(labels or []) + sorted(set(label_list) - set(labels or []) - {""})
    code = {lab: i for i, lab in enumerate(table)} | {"": -1}
    rel_table = sorted({lab for *_, lab in rel} - {""})
    rel_code = {lab: i for i, lab in enumerate(rel_table)} | {"": -1}
    return {
        "shape": shape.name,
        "unit_ids": unit_ids,
        "annotators": annotators,
        "unit": units,
        "annotator": anns,
        "label": [code[lab] for lab in label_list],
        "labels": tuple(table),
        "geometry": np.asarray(coords, dtype=np.float64).reshape(-1, shape.width).tolist(),
        "region_ids": ids,
        "points": points if shape.points is not None else None,
        "rated": rated.tolist(),
        "rel": [(f, to, rel_code[lab]) for f, to, lab in rel],
        "rel_labels": tuple(rel_table),
        "dropped": dropped,
        "attributes": {k: (v[0], v[1], v[2]) for k, v in sorted(attrs.items())},
    }


def _table(dataset: Dataset, name: str, labels: Sequence[str] | None) -> dict[str, Any]:
    try:
        t = region_table(dataset, name, labels=labels)
    except InputError as e:
        return {
            "error": sorted({p.split("label ")[1].split(" ")[0].strip("'") for p in e.problems})
        }
    return {
        "shape": t.shape,
        "unit_ids": t.unit_ids,
        "annotators": t.annotators,
        "unit": t.unit.tolist(),
        "annotator": t.annotator.tolist(),
        "label": t.label.tolist(),
        "labels": t.labels,
        "geometry": t.geometry.tolist(),
        "region_ids": t.region_ids,
        "points": None if t.points is None else [p.tolist() for p in t.points],
        "rated": t.rated.tolist(),
        "rel": list(zip(t.rel_from.tolist(), t.rel_to.tolist(), t.rel_label.tolist(), strict=True)),
        "rel_labels": t.rel_labels,
        "dropped": t.dropped_relations,
        "attributes": {k: (v[0], v[1].tolist(), v[2]) for k, v in t.attributes.items()},
    }


@SETTINGS
@given(
    field=answers(),
    task_ids=st.lists(st.integers(1, 5), unique=True, max_size=5),
    labels=st.one_of(st.none(), st.just(["B", "A"]), st.just(["A", "B", "C"])),
    keep=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_the_region_table_is_the_one_the_region_sets_gave(
    field: tuple[str, list[tuple[int, str, RegionSet | None]]],
    task_ids: list[int],
    labels: list[str] | None,
    keep: list[bool],
) -> None:
    """Every column of ``region_table``, from the flat regions (also after a select, whose
    columns share the tables of the ones selected from), is the loop's over region sets."""
    kind, given = field
    if not any(rs is not None for _, _, rs in given):
        return  # no region field
    cols = Columns.of(_annotations(kind, given))
    mask = np.array(keep[: len(given)], dtype=bool)
    for c in (cols, cols.select(mask)):
        if "ner" not in c.fields or c.fields["ner"].kind != kind:
            continue
        dataset = Dataset.of_columns("test", c, list(task_ids))
        assert _table(dataset, "ner", labels) == _reference_table(
            Dataset.of_columns("test", c, list(task_ids)), "ner", labels
        )


def test_a_relation_names_the_first_region_of_its_id_in_its_own_answer() -> None:
    """Two answers with the same ids: each relation links the regions of its own answer."""
    first = RegionSet("span", ["a", "b", "a"], ["A", "B", "A"], [0, 1, 2, 3, 4, 5])
    first.relations = [("b", "a", "r")]
    second = RegionSet("span", ["a", "b"], ["A", "B"], [0, 1, 2, 3], relations=[("a", "b", "")])
    anns = [
        Annotation(1, "1", {"ner": FieldValue("labels", "", first)}),
        Annotation(1, "2", {"ner": FieldValue("labels", "", second)}),
    ]
    t = region_table(Dataset("test", anns, [1]), "ner")
    assert (t.rel_from.tolist(), t.rel_to.tolist(), t.rel_label.tolist()) == (
        [1, 3],
        [0, 4],
        [0, -1],
    )


@pytest.mark.parametrize("labels", [["A"], ["A", "B"]])
def test_a_region_label_outside_the_set_names_its_task(labels: list[str]) -> None:
    anns = [
        Annotation(
            t, "1", {"ner": FieldValue("labels", "", RegionSet("span", ["a"], [lab], [0, 1]))}
        )
        for t, lab in ((1, "A"), (2, "B"), (3, "B"))
    ]
    dataset = Dataset("test", anns, [1, 2, 3])
    if "B" in labels:
        assert region_table(dataset, "ner", labels=labels).labels == ("A", "B")
        return
    with pytest.raises(InputError) as e:
        region_table(dataset, "ner", labels=labels)
    assert e.value.problems == [
        "task 2, field 'ner', annotator 1: label 'B' is not in the configured label set ['A'] "
        "(and 1 more annotations)"
    ]
