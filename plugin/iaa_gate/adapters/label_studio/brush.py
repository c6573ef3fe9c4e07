"""Label Studio brush masks (``<BrushLabels>``): ``value.rle``, Label Studio's run-length code
of the mask image's RGBA bytes (label-studio-converter's ``brush`` format), decoded straight
into runs of mask pixels, so memory stays proportional to the code, never to the image (a 4K
RGBA image would be 33 MB).

The code is a bit stream: 32 bits the number of values (width × height × 4), 5 bits the word
size − 1, four 4-bit run-length sizes − 1; then blocks of a 1-bit flag, a 2-bit size index and
a run length − 1 in that many bits, followed by one word repeated over the run (flag 1) or one
word per value (flag 0). A pixel belongs to the mask when its alpha byte (every fourth value)
is not 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Runs = np.ndarray[Any, np.dtype[np.int64]]


class BrushError(ValueError):
    """The ``rle`` cannot be a mask of the image's size (the message says why)."""


class _Bits:
    """The code as a string of ``0``/``1`` characters (one byte per bit, built by numpy), read
    field by field: slicing and ``int(…, 2)`` cost less than numpy calls on tiny arrays."""

    def __init__(self, rle: list[int]) -> None:
        bits = np.unpackbits(np.asarray(rle, dtype=np.uint8)) + ord("0")
        self.text = bits.tobytes().decode("ascii")
        self.at = 0

    def read(self, n: int) -> int:
        end = self.at + n
        if end > len(self.text):
            raise BrushError("the code ends inside a run")
        value = int(self.text[self.at : end], 2)
        self.at = end
        return value


def mask_runs(rle: Any, width: int, height: int) -> Runs:
    """The mask's pixels as runs ``(k, 2)`` ``[start, end)`` of row-major pixel indices
    (``y * width + x``), sorted and disjoint; :class:`BrushError` when ``rle`` is not a list of
    bytes or does not code a ``width`` × ``height`` RGBA image."""
    if not isinstance(rle, list) or not all(type(b) is int and 0 <= b <= 255 for b in rle):
        raise BrushError("'rle' must be a list of bytes (0–255)")
    bits = _Bits(rle)
    total = bits.read(32)
    if total != width * height * 4:
        raise BrushError(
            f"the code holds {total} values, a {width}×{height} RGBA image {width * height * 4}"
        )
    word = bits.read(5) + 1
    sizes = [bits.read(4) + 1 for _ in range(4)]
    runs: list[list[int]] = []

    def add(first: int, last: int) -> None:  # pixels first … last - 1
        if runs and first <= runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], last)
        else:
            runs.append([first, last])

    i = 0
    while i < total:
        repeated = bits.read(1)
        j = min(total, i + 1 + bits.read(sizes[bits.read(2)]))
        if repeated:
            if bits.read(word):  # alpha bytes 4p + 3 in [i, j)
                first, last = -(-(i - 3) // 4), (j - 4) // 4 + 1
                if last > first:
                    add(first, last)
        else:
            for k in range(i, j):
                if bits.read(word) and k % 4 == 3:
                    add(k // 4, k // 4 + 1)
        i = j
    return np.asarray(runs, dtype=np.int64).reshape(-1, 2)


def bounds(runs: Runs, width: int) -> list[float]:
    """The pixel box ``[x, y, width, height]`` around mask ``runs`` (zeros when empty)."""
    if runs.size == 0:
        return [0.0, 0.0, 0.0, 0.0]
    start, end = runs[:, 0], runs[:, 1] - 1
    rows0, rows1 = start // width, end // width
    one_row = rows0 == rows1
    x0 = np.where(one_row, start % width, 0).min()
    x1 = np.where(one_row, end % width, width - 1).max() + 1
    y0, y1 = rows0.min(), rows1.max() + 1
    return [float(x0), float(y0), float(x1 - x0), float(y1 - y0)]
