"""Brush masks (Label Studio ``<BrushLabels>``): the RLE decoder against Label Studio's own
(its SDK's ``decode_rle``), memory on a 4K image, and masks matched one to one by pixel IoU."""

from __future__ import annotations

import tracemalloc
from typing import Any

import krippendorff
import numpy as np
import pytest

from iaa_gate.adapters.label_studio.brush import BrushError, bounds, mask_runs
from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.config import parse_config
from iaa_gate.core.errors import InputError
from iaa_gate.evaluation.analysis import analyse
from iaa_gate.metrics.geometry import mask_iou

brush = pytest.importorskip("label_studio_sdk.converter.brush", reason="the SDK's RLE codec")


def _pixels(runs: np.ndarray[Any, Any], size: int) -> np.ndarray[Any, Any]:
    out = np.zeros(size, dtype=bool)
    for start, end in runs.tolist():
        out[start:end] = True
    return out


def test_decoder_matches_label_studio_on_random_masks() -> None:
    """Rectangles, noise, and RGBA whose colour bytes differ from the alpha byte (a pixel is
    in the mask by its alpha)."""
    rng = np.random.default_rng(11)
    for trial in range(40):
        w, h = int(rng.integers(1, 50)), int(rng.integers(1, 50))
        rgba = np.zeros((h, w, 4), dtype=np.uint8)
        if trial % 2:
            rgba[..., 3] = (rng.random((h, w)) > 0.6) * 255
            rgba[..., 0] = rng.integers(0, 256, (h, w))  # colour where alpha is 0 too
        else:
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            rgba[y : y + 7, x : x + 9] = 255
        rle = [int(b) for b in brush.encode_rle(rgba.ravel())]
        want = brush.decode_rle(rle).reshape(h, w, 4)[..., 3] > 0
        runs = mask_runs(rle, w, h)
        assert (_pixels(runs, w * h).reshape(h, w) == want).all()
        if want.any():
            ys, xs = np.nonzero(want)
            box = [xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1]
            assert bounds(runs, w) == [float(v) for v in box]
    with pytest.raises(BrushError, match="holds 16 values, a 3×3 RGBA image 36"):
        mask_runs([int(b) for b in brush.encode_rle(np.zeros(16, dtype=np.uint8))], 3, 3)


def _code(blocks: list[tuple[int, int]]) -> list[int]:
    """Label Studio's RLE of runs ``(length, value)`` (8-bit words, run sizes 3, 4, 8, 16)."""
    bits = [f"{sum(n for n, _ in blocks):032b}", f"{7:05b}", "0010", "0011", "0111", "1111"]
    for n, v in blocks:
        while n:
            k = min(n, 1 << 16)
            bits.append(f"1{3:02b}{k - 1:016b}{v:08b}")
            n -= k
    text = "".join(bits)
    text += "0" * (-len(text) % 8)
    return [int(text[i : i + 8], 2) for i in range(0, len(text), 8)]


def test_a_4k_mask_decodes_in_bounded_memory() -> None:
    """3840 × 2160: the RGBA image would be 33 MB; decoding keeps only the code's bits and the
    runs (a disc of radius 500 is 1,001 runs)."""
    w, h = 3840, 2160
    y, x = np.ogrid[:h, :w]
    disc = (x - 1900) ** 2 + (y - 1000) ** 2 <= 500**2
    rows = np.flatnonzero(disc.any(axis=1))
    blocks: list[tuple[int, int]] = []
    at = 0
    for r in rows.tolist():
        xs = np.flatnonzero(disc[r])
        start, end = r * w + int(xs[0]), r * w + int(xs[-1]) + 1
        blocks += [(4 * (start - at), 0), (4 * (end - start), 255)]
        at = end
    blocks.append((4 * (w * h - at), 0))
    rle = _code(blocks)
    tracemalloc.start()
    try:
        runs = mask_runs(rle, w, h)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(runs) == len(rows) and int((runs[:, 1] - runs[:, 0]).sum()) == int(disc.sum())
    assert peak < 8 * len(rle) * 8 + 4_000_000, peak  # the bit array, not w × h × 4 bytes


def test_mask_iou_counts_pixels() -> None:
    a = np.array([[0.0, 10.0], [20.0, 30.0]])
    b = np.array([[5.0, 25.0]])
    assert mask_iou([a, b], np.array([0]), np.array([1]))[0] == pytest.approx(10 / 30)


def region(rid: str, mask: np.ndarray[Any, Any], label: str = "Car") -> dict[str, Any]:
    h, w = mask.shape
    rle = [int(b) for b in brush.encode_rle(np.repeat(mask.astype(np.uint8).ravel() * 255, 4))]
    return {"id": rid, "from_name": "tag", "to_name": "image", "type": "brushlabels",
            "original_width": w, "original_height": h,
            "value": {"format": "rle", "rle": rle, "brushlabels": [label]}}  # fmt: skip


def test_masks_are_matched_one_to_one_by_pixel_iou(write_json: Any) -> None:
    def mask(x0: int, x1: int) -> np.ndarray[Any, Any]:
        m = np.zeros((10, 20), dtype=bool)
        m[2:8, x0:x1] = True
        return m

    def ann(user: int, result: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": user, "completed_by": user, "result": result}

    tasks = [  # task 1: IoU 6/9 ≥ 0.5 (matched); task 2: IoU 3/12 < 0.5 (not matched)
        {"id": 1, "data": {}, "annotations": [ann(1, [region("a", mask(0, 8))]),
                                              ann(2, [region("b", mask(2, 8))])]},
        {"id": 2, "data": {}, "annotations": [ann(1, [region("c", mask(0, 6))]),
                                              ann(2, [region("d", mask(3, 12))])]},
    ]  # fmt: skip
    ds = LabelStudioExport(write_json(tasks)).load()
    assert ds.field_kinds() == {"tag": "brushlabels"}
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "x.json"},
            "fields": {"tag": {"matching": {"mode": "overlap", "iou": 0.5}}},
        }
    )
    got = analyse(ds, cfg)["tag"]
    assert got.coefficients["f1"].value == pytest.approx(0.5)  # 2 of 4 regions matched
    # pixel-level alpha, as characters on spans: every pixel a unit, "outside" a value
    pixels = np.array(
        [m.ravel() for m in (mask(0, 8), mask(2, 8))]
        + [m.ravel() for m in (mask(0, 6), mask(3, 12))]
    )
    data = np.hstack([pixels[:2], pixels[2:]]).astype(float)  # (annotators, units)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert got.alpha == pytest.approx(ref)
    assert [u.score for u in got.units] == [pytest.approx(1.0), pytest.approx(0.0)]
    bad = [{"id": 1, "data": {}, "annotations": [ann(1, [{**region("a", mask(0, 8)),
                                                          "original_width": 21}])]}]  # fmt: skip
    with pytest.raises(InputError, match=r"region 'a'.*cannot be decoded: the code holds 800"):
        LabelStudioExport(write_json(bad)).load()
