"""A disputed task's state read from the columns only where it can be other than open (an
adjudicated or a routed task): the same states, in the same order, as deciding every disputed
task from its proposal (``tests/lifecycle_reference.py``), on the unit table and on its
objects."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from iaa_gate.config import parse_config
from iaa_gate.evaluation import results
from iaa_gate.evaluation.lifecycle import field_lifecycle
from iaa_gate.evaluation.scalar import analyse_field
from iaa_gate.model import Annotation, Dataset, FieldValue
from lifecycle_reference import states as reference_states

rows = st.lists(
    st.tuples(
        st.integers(1, 6),  # task
        st.sampled_from(["a", "b", "c", "d"]),
        st.sampled_from(["A", "B", "C"]),
    ),
    max_size=24,
    unique_by=lambda x: (x[0], x[1]),
)
adjudicated = st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["A", "B"])), max_size=4)


@settings(max_examples=150, deadline=None)
@given(
    rows=rows,
    adjudicated=adjudicated,
    routed=st.dictionaries(st.integers(1, 6), st.integers(1, 4), max_size=6),
    max_annotations=st.one_of(st.none(), st.integers(1, 4)),
    settle_at=st.sampled_from([0.5, 0.9, 1.0]),
)
@example(  # routed, answered and still unsure: needs a person (rarely drawn)
    rows=[(1, "a", "A"), (1, "b", "B"), (1, "c", "A")],
    adjudicated=[],
    routed={1: 2},
    max_annotations=3,
    settle_at=1.0,
)
def test_states_only_where_they_can_differ_say_what_every_task_said(
    rows: list[tuple[int, str, str]],
    adjudicated: list[tuple[int, str]],
    routed: dict[int, int],
    max_annotations: int | None,
    settle_at: float,
) -> None:
    if not rows:
        return
    anns = [
        Annotation(t, who, {"f": FieldValue("choices", (v,))}, None, None) for t, who, v in rows
    ]
    ds = Dataset("x.json", anns, sorted({t for t, _, _ in rows}))
    config = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"f": {"bootstrap": {"replicates": 0}}},
            "adjudication": {"by": ["lead"], "settle_at": settle_at},
        }
    )
    result = analyse_field(ds, "f", config.fields["f"])
    assert isinstance(result.units, results.UnitTable)
    lead = [
        Annotation(t, "lead", {"f": FieldValue("choices", (v,))}, None, None)
        for t, v in adjudicated
    ]
    plain = results.FieldResult(**{**result.__dict__, "units": list(result.units)})
    for r in (result, plain):
        lc = field_lifecycle(r, config.fields["f"], ds, lead, config, routed, max_annotations)
        want, confirmed, compared = reference_states(
            r.units, lc.adjudicated, settle_at, routed, max_annotations
        )
        assert list(lc.states.items()) == list(want.items())
        assert (lc.confirmed, lc.compared) == (confirmed, compared)
