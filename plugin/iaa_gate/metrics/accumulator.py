"""Mergeable sums for Krippendorff's alpha and per-category agreement, block by block.

Alpha and the per-category rates are ratios of sums over units, and every sum they need is a
linear function of one table per rating count m: the integer matrix

    M_m = Σ_{u: m_u = m} (c_u c_uᵀ − diag c_u)    ``(V, V)``

with c_u the unit's value counts ``(V,)``: how often value v was paired with v' (ordered pairs
of distinct ratings) in units with m ratings. The coincidence matrix is o = Σ_m M_m / (m − 1);
the rates of seed 004 and Uebersax's specific agreement read the diagonal and the row sums.

:class:`AlphaAccumulator` keeps these as int64 (exact), keyed by m, over a value table that
grows as blocks bring new values. So ``update`` on any split of the units into blocks, and
``merge`` of accumulators in any order, give the same integers (and ``remove`` of a block
added before takes exactly its integers out again), and :meth:`~AlphaAccumulator.
result` (a fixed sequence of float operations on them) gives bit-identical results. Against
:func:`~iaa_gate.metrics.krippendorff_alpha` on the whole matrix, which sums floats block by
block, alpha agrees to rounding (|Δα| of a few 1e-16); the per-category rates are equal.

A unit must be whole within one block: its ratings enter through c_u c_uᵀ, which is not
additive. Ratings of one unit spread over partitions are first gathered by unit (see
``examples/dask/``). Memory is O(A·V²) integers (A: most ratings of a unit).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.arguments import instance
from ._base import CHUNK_CELLS, Coded, FloatArray, encode, ratings_array, row_blocks
from .alpha import COUNTS_MAX, LevelArg, alpha_from_sums, check_level, delta_table
from .categories import category_rates, value_count_blocks

Int64Array = npt.NDArray[np.int64]

__all__ = ["AccumulatedAgreement", "AlphaAccumulator"]


@dataclass(frozen=True)
class AccumulatedAgreement:
    """What :meth:`AlphaAccumulator.result` gives.

    Attributes
    ----------
    alpha : float
        Krippendorff's alpha at the level asked, or :class:`Undefined`.
    categories : dict
        ``{value: rate}``, agreements over potential agreements (seed 004, as
        :func:`~iaa_gate.metrics.category_agreement`).
    specific : dict
        ``{value: rate}``, Uebersax's specific agreement (as
        :func:`~iaa_gate.metrics.specific_agreement`).
    coincidence : ndarray
        Krippendorff's coincidence matrix ``(V, V)`` over ``values``.
    values : ndarray
        ``(V,)`` the values in code order.
    units : int
        Units seen.
    pairable_units : int
        Units with two or more ratings.

    Examples
    --------
    >>> from iaa_gate.metrics import alpha, categories
    >>> r = AlphaAccumulator().update([[1, 1], [2, 2], [1, 2]]).result()
    >>> round(r.alpha, 4), r.categories, r.pairable_units
    (0.4444, {1: 0.5, 2: 0.5}, 3)
    """

    alpha: float
    categories: dict[Any, float]
    specific: dict[Any, float]
    coincidence: FloatArray
    values: npt.NDArray[Any]
    units: int
    pairable_units: int


def _block(block: npt.ArrayLike | Coded) -> Coded:
    """A block of whole units as codes; a :class:`UsageError` naming ``block`` when it is not
    ``(units, annotators)``."""
    return block if isinstance(block, Coded) else encode(ratings_array(block, "block"))


class AlphaAccumulator:
    """Exact integer sums for alpha and per-category agreement over blocks of whole units.

    Blocks come through :meth:`update` (and go through :meth:`remove`); :meth:`merge` adds another
    accumulator's sums; :meth:`result` gives an :class:`AccumulatedAgreement`. The sums are exact
    integers, so any split into blocks and any merge order give bit-identical results.

    Attributes
    ----------
    values : ndarray
        ``(V,)`` every value seen so far, in code order.
    units : int
        Units added (less those removed).

    Examples
    --------
    >>> from iaa_gate.metrics import alpha
    >>> acc = AlphaAccumulator().update([[1, 1], [2, 2]])
    >>> acc.merge(AlphaAccumulator().update([[1, 2]])).result().alpha
    0.4444444444444444
    """

    def __init__(self) -> None:
        self.values: npt.NDArray[Any] = np.empty(0, dtype=np.float64)
        self.pairs: dict[int, Int64Array] = {}  # m → M_m (V, V)
        self.units = 0

    def update(self, block: npt.ArrayLike | Coded) -> AlphaAccumulator:
        """Add a block of whole units: ratings ``(units, annotators)`` (NaN/``None`` missing) or
        their :class:`~iaa_gate.metrics.Coded` codes. Columns need not be the same annotators
        from block to block (only which ratings share a unit matters). Returns ``self``."""
        coded = _block(block)
        self.units += coded.codes.shape[0]
        v = coded.n_values
        if v == 0:
            return self
        part = _pairs_by_counts(coded) if v <= COUNTS_MAX else _pairs_by_annotators(coded)
        self._add(part, coded.values)
        return self

    def remove(self, block: npt.ArrayLike | Coded) -> AlphaAccumulator:
        """Take out a block of whole units added before (as :meth:`update` takes them): its
        sums are subtracted, so a unit changed since is updated by removing its old ratings and
        adding the new ones. The value table keeps values no unit has any more (with zero
        counts, which change no result). Returns ``self``."""
        coded = _block(block)
        self.units -= coded.codes.shape[0]
        if coded.n_values == 0:
            return self
        v = coded.n_values
        part = _pairs_by_counts(coded) if v <= COUNTS_MAX else _pairs_by_annotators(coded)
        self._add({m: -t for m, t in part.items()}, coded.values)
        return self

    def merge(self, other: AlphaAccumulator) -> AlphaAccumulator:
        """Add ``other``'s sums into this accumulator (``other`` is unchanged). Returns ``self``."""
        instance("other", other, AlphaAccumulator, "an AlphaAccumulator")
        self.units += other.units
        self._add(other.pairs, other.values)
        return self

    def _add(self, pairs: dict[int, Int64Array], values: npt.NDArray[Any]) -> None:
        table, mine, theirs = _union(self.values, values)
        if len(table) != len(self.values):
            self.pairs = {m: _embed(t, mine, len(table)) for m, t in self.pairs.items()}
            self.values = table
        for m, t in pairs.items():
            grown = _embed(t, theirs, len(table))
            if m in self.pairs:
                self.pairs[m] += grown
            else:
                self.pairs[m] = grown

    def pairable_counts(self) -> Int64Array:
        """n_v ``(V,)`` over :attr:`values`: how often each value occurs in a unit with two or
        more ratings (the row sums of the coincidence matrix)."""
        n_v = np.zeros(len(self.values), dtype=np.int64)
        for m, t in self.pairs.items():
            n_v += t.sum(axis=1) // (m - 1)
        return n_v

    def result(self, level: LevelArg = "nominal") -> AccumulatedAgreement:
        """Alpha at ``level`` (as :func:`~iaa_gate.metrics.krippendorff_alpha`) and the
        per-category rates, from the sums so far."""
        check_level(level)
        v = len(self.values)
        o = np.zeros((v, v))
        n_v = np.zeros(v, dtype=np.int64)  # pairable counts: row sums of o, integers
        diag = np.zeros(v, dtype=np.int64)  # Σ c(c − 1)
        rows = np.zeros(v, dtype=np.int64)  # Σ c(m − 1)
        with_m = np.zeros(v, dtype=np.int64)  # Σ c·m
        pairable = 0
        for m in sorted(self.pairs):
            t = self.pairs[m]
            r = t.sum(axis=1)
            o += t / (m - 1)
            n_v += r // (m - 1)
            diag += np.diagonal(t)
            rows += r
            with_m += r // (m - 1) * m
            pairable += int(r.sum()) // (m * (m - 1))
        n, distinct = int(n_v.sum()), int(np.count_nonzero(n_v))
        alpha = alpha_from_sums(0.0, 0.0, n, distinct)
        if n > 0 and distinct >= 2:
            delta = delta_table(self.values, level, n_v.astype(np.float64))
            d_o, d_e = float(np.sum(o * delta)), float(n_v @ delta @ n_v)
            alpha = alpha_from_sums(d_o, d_e, n, distinct)
        potential = 2 * with_m - (diag + 2 * n_v)  # 2·Σ [c·m − c(c + 1)/2]
        return AccumulatedAgreement(
            alpha=alpha,
            categories=category_rates(self.values, diag, potential),
            specific=category_rates(self.values, diag, rows),
            coincidence=o,
            values=self.values,
            units=self.units,
            pairable_units=pairable,
        )


def _pairs_by_counts(coded: Coded) -> dict[int, Int64Array]:
    """M_m from per-unit value counts (few values): one small BLAS product per block and m.
    Block products are below 2^53, so float64 holds them exactly."""
    n_cols = coded.codes.shape[1]
    out: dict[int, Int64Array] = {}
    for _, counts in value_count_blocks(coded):
        c = counts[1:].astype(np.float64)
        m_u = n_cols - counts[0]
        for m in np.unique(m_u[m_u >= 2]).tolist():
            cm = c[:, m_u == m]
            t = np.rint(cm @ cm.T).astype(np.int64)
            t[np.diag_indices_from(t)] -= cm.sum(axis=1).astype(np.int64)
            out[m] = out[m] + t if m in out else t
    return out


def _pairs_by_annotators(coded: Coded) -> dict[int, Int64Array]:
    """M_m by annotator pairs (many values): (m, x_i, x_j) indices of every pair of ratings of a
    block, one bincount per block. O(units × A²) time, no per-unit V-vectors; blocks hold about
    as many pairs as there are bins, so zeroing the (A + 1)·V² bins does not dominate."""
    codes, v = coded.codes, coded.n_values
    n_cols = codes.shape[1]
    width = (n_cols + 1) * v * v
    n_pairs = max(n_cols * (n_cols - 1) // 2, 1)
    total = np.zeros(width, dtype=np.int64)
    for s in row_blocks(codes.shape[0], n_pairs, max(width, CHUNK_CELLS)):
        t = codes[s].T.astype(np.int64)  # (A, rows)
        ok = t >= 0
        base = ok.sum(axis=0) * (v * v)
        idx = [
            (base + t[i] * v + t[j])[ok[i] & ok[j]]
            for i in range(n_cols - 1)
            for j in range(i + 1, n_cols)
        ]
        if idx:
            total += np.bincount(np.concatenate(idx), minlength=width)
    cube = total.reshape(n_cols + 1, v, v)
    return {m: cube[m] + cube[m].T for m in range(2, n_cols + 1) if cube[m].any()}


def _union(
    a: npt.NDArray[Any], b: npt.NDArray[Any]
) -> tuple[npt.NDArray[Any], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The union of two value tables (sorted when the values sort) and where each one's values
    sit in it."""
    if len(b) == 0 or np.array_equal(a, b):
        return a, np.arange(len(a)), np.arange(len(b))
    if len(a) == 0:  # the first block's table, as its values were given (integers stay so)
        return b, np.arange(0), np.arange(len(b))
    if a.dtype.kind in "iuf" and b.dtype.kind in "iuf":
        common = np.result_type(a.dtype, b.dtype)  # int64 while both are integers
        table: npt.NDArray[Any] = np.union1d(a.astype(common), b.astype(common))
        return table, np.searchsorted(table, a), np.searchsorted(table, b)
    items = list(dict.fromkeys([*a.tolist(), *b.tolist()]))
    with contextlib.suppress(TypeError):  # unordered labels keep first-seen order
        items.sort()
    index = {x: i for i, x in enumerate(items)}
    table = np.empty(len(items), dtype=object)
    table[:] = items
    where_a = np.array([index[x] for x in a.tolist()], dtype=np.intp)
    where_b = np.array([index[x] for x in b.tolist()], dtype=np.intp)
    return table, where_a, where_b


def _embed(t: Int64Array, where: npt.NDArray[np.intp], size: int) -> Int64Array:
    """``t`` ``(V, V)`` placed at rows/columns ``where`` of a zero ``(size, size)`` matrix."""
    out = np.zeros((size, size), dtype=np.int64)
    out[np.ix_(where, where)] = t
    return out
