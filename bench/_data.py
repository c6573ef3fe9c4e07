"""Synthetic ratings shared by the benchmarks."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def ratings(
    units: int,
    annotators: int = 10,
    categories: int = 10,
    agree: float = 0.7,
    missing: float = 0.2,
    seed: int = 0,
) -> npt.NDArray[np.float64]:
    """``(units, annotators)`` float64 categories 0 … categories−1, NaN where missing.

    Every unit has a true category; each annotator gives it with probability ``agree``, else a
    uniformly random category.
    """
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, units)[:, None]
    noise = rng.integers(0, categories, (units, annotators))
    x = np.where(rng.random((units, annotators)) < agree, truth, noise).astype(np.float64)
    x[rng.random((units, annotators)) < missing] = np.nan
    return x
