"""Free text (issue 17): a field's Levenshtein distances are computed once, each unordered pair
of distinct texts once, whatever reads them (alpha, its interval, each annotator's alpha without
them, the per-task scores); the table gives what computing them again gives; a long table is
announced with an estimate and shows progress only to a listener."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import rapidfuzz.process
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import edit_distance

from iaa_gate.config import parse_config
from iaa_gate.core import progress
from iaa_gate.evaluation.scalar import analyse_field
from iaa_gate.metrics import alpha, bootstrap, distance
from iaa_gate.model import Annotation, Dataset, FieldValue


def _dataset(texts: list[list[str | None]]) -> Dataset:
    anns = [
        Annotation(u, f"a{a}", {"t": FieldValue("textarea", text)}, None, None)
        for u, row in enumerate(texts)
        for a, text in enumerate(row)
        if text is not None
    ]
    return Dataset("x.json", anns, list(range(len(texts))))


def _result(texts: list[list[str | None]]) -> Any:
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"t": {"distance": "levenshtein", "bootstrap": {"replicates": 50}}},
        }
    ).fields["t"]
    return analyse_field(_dataset(texts), "t", cfg)


def _texts(units: int, seed: int = 0) -> list[list[str | None]]:
    rng = np.random.default_rng(seed)
    out: list[list[str | None]] = []
    for _ in range(units):
        ref = "".join(rng.choice(list("abcdef"), size=int(rng.integers(3, 12))))
        out.append([ref if rng.random() < 0.6 else ref[::-1] + "x" * a for a in range(3)])
    return out


def test_each_pair_of_distinct_texts_is_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape: one table of n(n − 1)/2 edit distances for a whole field's evaluation (it was
    seven tables: alpha, the bootstrap's two, three annotators' alpha without them, the scores)."""
    measured: list[int] = []
    real = rapidfuzz.process.cdist

    def counted(a: list[str], b: list[str], **kw: Any) -> Any:
        measured.append(len(a) * (len(a) - 1) // 2 if a is b else len(a) * len(b))
        return real(a, b, **kw)

    monkeypatch.setattr(rapidfuzz.process, "cdist", counted)
    monkeypatch.setattr(distance, "TABULATE_MIN", 4)
    texts = _texts(60)
    result = _result(texts)
    n = len({t for row in texts for t in row})
    assert sum(measured) == n * (n - 1) // 2
    assert result.annotators and len(result.units) == 60


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(
        st.lists(
            st.one_of(st.none(), st.sampled_from(["", "a", "ab", "ba", "abc", "xyz"])),
            min_size=3,
            max_size=3,
        ),
        min_size=1,
        max_size=12,
    )
)
def test_the_table_gives_what_computing_again_gives(texts: list[list[str | None]]) -> None:
    assume(any(t is not None for row in texts for t in row))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(distance, "TABULATE_MIN", 10**9)
        plain = _result(texts)
        mp.setattr(distance, "TABULATE_MIN", 1)
        tabulated = _result(texts)
        for module in (alpha, bootstrap):  # values beyond the δ table: sums in blocks
            mp.setattr(module, "TABLE_MAX", 1)
        large = _result(texts)
    np.testing.assert_allclose(large.alpha, plain.alpha, rtol=1e-12, equal_nan=True)
    a, b = large.coefficients["alpha"], plain.coefficients["alpha"]
    assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), nan_ok=True)
    np.testing.assert_allclose(tabulated.alpha, plain.alpha, rtol=1e-12, equal_nan=True)
    assert [(u.id, u.status) for u in tabulated.units] == [(u.id, u.status) for u in plain.units]
    np.testing.assert_allclose(
        [u.score for u in tabulated.units], [u.score for u in plain.units], equal_nan=True
    )
    for x, y in zip(tabulated.annotators, plain.annotators, strict=True):
        np.testing.assert_allclose(x.alpha_without, y.alpha_without, equal_nan=True)
    a, b = tabulated.coefficients["alpha"], plain.coefficients["alpha"]
    assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), nan_ok=True)


def test_alpha_through_the_table_is_nltks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distance, "TABULATE_MIN", 4)
    texts = _texts(25, seed=3)
    data = [(f"a{a}", str(u), t) for u, row in enumerate(texts) for a, t in enumerate(row)]
    nltk = AnnotationTask(data, distance=lambda x, y: edit_distance(x, y) / max(len(x), len(y), 1))
    assert _result(texts).alpha == pytest.approx(nltk.alpha(), abs=1e-12)


def test_a_long_table_is_announced_with_an_estimate_and_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps: list[tuple[str, int, str, float | None]] = []
    advanced: list[int] = []

    class Listener:
        def __call__(self, what: str, total: int, unit: str, estimate: float | None) -> Any:
            steps.append((what, total, unit, estimate))
            return self

        def advance(self, n: int) -> None:
            advanced.append(n)

        def close(self) -> None: ...

    texts = [f"transcript number {i:05d} " + "x" * (i % 7) for i in range(1500)]
    with progress.reporting(Listener()):
        distance.levenshtein_table(texts)
    total = 1500 * 1499 // 2
    assert [(w, t, u) for w, t, u, _ in steps] == [
        ("Levenshtein distances between 1,500 distinct texts", total, "pairs")
    ]
    assert steps[0][3] is not None and steps[0][3] > 0  # seconds, measured on a sample
    assert sum(advanced) == total and len(advanced) > 1
    steps.clear()
    distance.levenshtein_table(texts[:10])  # nobody listens: nothing announced
    assert steps == []


def test_the_terminal_says_the_estimate_of_a_long_step(capsys: pytest.CaptureFixture[str]) -> None:
    step = progress.Terminal(bars=False)("Levenshtein distances", 8_000_000, "pairs", 42.0)
    step.advance(10)
    step.close()
    assert (
        capsys.readouterr().err == "iaa-gate: Levenshtein distances: 8,000,000 pairs, about 42 s\n"
    )
    progress.Terminal(bars=False)("short", 10, "pairs", 1.0)
    assert capsys.readouterr().err == ""


PATHS = st.lists(
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=6).map(" / ".join), unique=True, max_size=30
)


@settings(max_examples=100, deadline=None)
@given(paths=PATHS)
def test_the_taxonomy_table_is_the_per_pair_distance(paths: list[str]) -> None:
    table = distance.hierarchical_table(paths)
    expected = [[distance.hierarchical(np.array(a), np.array(b)) for b in paths] for a in paths]
    np.testing.assert_allclose(table, np.array(expected, dtype=float).reshape(table.shape))


def test_a_deep_taxonomy_makes_no_python_call_per_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shape: a 20-level taxonomy's distances come from one vectorised table (it was one
    Python call per pair of distinct paths, seven times over: 1,000 tasks took minutes)."""
    calls: list[int] = []
    per_pair = distance.NAMED["hierarchical"]

    def counted(a: Any, b: Any) -> Any:
        calls.append(np.broadcast(a, b).size)
        return per_pair(a, b)

    monkeypatch.setitem(distance.NAMED, "hierarchical", counted)
    monkeypatch.setattr(distance, "TABULATE_MIN", 4)
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(40):
        truth = [f"n{x}" for x in rng.integers(0, 3, 20)]
        rows.append([" / ".join(truth if rng.random() < 0.7 else [*truth[:5], "x"]) for _ in "abc"])
    anns = [
        Annotation(u, f"a{a}", {"t": FieldValue("taxonomy", path)}, None, None)
        for u, row in enumerate(rows)
        for a, path in enumerate(row)
    ]
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"t": {"distance": "hierarchical", "multiple": False}},
        }
    ).fields["t"]
    result = analyse_field(Dataset("x.json", anns, list(range(40))), "t", cfg)
    assert calls == [] and not np.isnan(result.alpha)
    monkeypatch.setattr(distance, "TABULATE_MIN", 10**9)
    assert analyse_field(Dataset("x.json", anns, list(range(40))), "t", cfg).alpha == pytest.approx(
        result.alpha, abs=1e-12
    )
    assert calls  # computed again per pair: the same alpha
