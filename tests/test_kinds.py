"""Each field kind carries what differs for it: a Label Studio answer it proposes (the consensus
written back) is read back as the same answer, a value it cannot read is refused with the key
and what to do, and what the other layers derive from the registry holds every kind."""

from __future__ import annotations

from typing import Any

import pytest

from iaa_gate.kinds import REGION_SHAPES, Answer, AnswerError, Kind, kind, registry
from iaa_gate.metrics.geometry import SHAPES


def _kind(name: str) -> Kind:
    k = kind(name)
    assert k is not None
    return k


@pytest.mark.parametrize(
    ("name", "answer", "written"),
    [
        ("choices", ("yes", "no"), {"choices": ["yes", "no"]}),
        ("taxonomy", ("Animal / Cat",), {"taxonomy": [["Animal", "Cat"]]}),
        ("rating", 4.0, {"rating": 4}),
        ("number", 2.5, {"number": 2.5}),
        ("number", 3.0, {"number": 3}),
        ("textarea", "two\nlines", {"text": ["two\nlines"]}),
    ],
)
def test_a_proposed_answer_is_read_back_as_itself(name: str, answer: Any, written: Any) -> None:
    k = _kind(name)
    assert k.propose is not None and k.read is not None
    assert k.propose(answer) == written
    assert k.read(written, "field") == answer


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("choices", {"choices": [1]}, "'choices' must be a list of strings, got [1]"),
        ("rating", {"rating": "4"}, "'rating' must be a number, got '4'"),
        ("number", {"number": float("inf")}, "'number' is inf, not a number agreement can"),
        ("pairwise", {"selected": ""}, "'selected' must be 'left' or 'right', got ''"),
        ("taxonomy", {"taxonomy": ["a"]}, "'taxonomy' must be a list of paths"),
        ("ranker", {"ranker": {"order": ["a", "a"]}}, "an item occurs twice in the ranking"),
    ],
)
def test_a_value_its_kind_cannot_read_is_refused_with_why(
    name: str, value: dict[str, Any], said: str
) -> None:
    read = _kind(name).read
    assert read is not None
    with pytest.raises(AnswerError, match="^" + said.replace("[", r"\[").replace("]", r"\]")):
        read(value, "order")


def test_a_consensus_that_is_not_an_answer_is_not_proposed() -> None:
    propose = _kind("rating").propose
    assert propose is not None
    with pytest.raises(AnswerError, match="a rating consensus must be a number, not 'x'"):
        propose("x")


def test_a_ranking_reads_its_own_list_or_its_buckets() -> None:
    read = _kind("ranker").read
    assert read is not None
    assert read({"ranker": {"order": ["b", "a"]}}, "order") == ("b", "a")
    assert read({"ranker": {"order": ["c"], "top": ["a", "b"], "low": []}}, "order") == ("a\x1fb",)


def test_every_kind_says_what_its_answers_are() -> None:
    kinds = registry().values()
    assert {k.name for k in kinds if k.answer is Answer.NUMBER} == {"rating", "number"}
    assert {k.name for k in kinds if k.family == "scalar" and k.multiple} == {
        "choices",
        "taxonomy",
    }
    for k in kinds:  # a kind read from a Label Studio value says under which key
        assert (k.read is None) or k.value_key is not None, k.name
        assert (k.family == "region") == (k.name in REGION_SHAPES), k.name
        assert k.family != "region" or k.shape in SHAPES, k.name  # a geometry metrics knows
        assert not k.drawn or k.family == "region", k.name
