"""Free-text alpha at its floor (issue 17): exact Levenshtein alpha needs every unordered pair of
distinct texts once; the expected disagreement measures each pair once, not twice."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_gate.metrics import alpha as alpha_module
from iaa_gate.metrics import distance, krippendorff_alpha


def _texts(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = ["".join(rng.choice(list("abcde "), 40)) for _ in range(n)]
    return np.array([[b, b[:-1] + "x", b if i % 3 else b.upper()] for i, b in enumerate(base)])


def test_each_unordered_pair_is_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _texts(120)
    whole = krippendorff_alpha(x, "levenshtein")  # the value table path: V × V in one call
    pairs = {"n": 0}

    def counted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = distance.levenshtein(a, b)
        pairs["n"] += out.size
        return out

    monkeypatch.setattr(alpha_module, "TABLE_MAX", 0)  # the blockwise path of large tables
    monkeypatch.setattr(alpha_module, "CHUNK_CELLS", 1 << 10)
    blocks = krippendorff_alpha(x, counted)
    assert blocks == pytest.approx(whole, abs=1e-12)
    v = len(set(x.ravel().tolist()))
    step = max(1, (1 << 10) // v)
    assert pairs["n"] <= v * (v + 1) // 2 + step * v  # the triangle and the diagonal blocks
    assert pairs["n"] < 0.6 * v * v


def test_the_value_table_passes_one_list_to_rapidfuzz(monkeypatch: pytest.MonkeyPatch) -> None:
    """rapidfuzz computes each pair once when queries and choices are the same list."""
    import rapidfuzz.process

    seen: list[bool] = []
    real = rapidfuzz.process.cdist

    def spy(queries: object, choices: object, **kw: object) -> object:
        seen.append(queries is choices)
        return real(queries, choices, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(rapidfuzz.process, "cdist", spy)
    values = np.array(["kitten", "sitting", "mitten"], dtype=object)
    table = distance.levenshtein(values[:, None], values[None, :])
    assert seen == [True] and table[0, 1] == pytest.approx(3 / 7)
