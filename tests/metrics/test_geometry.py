"""Region shapes: one ``Shape`` per geometry, which every layer asks instead of its name."""

from __future__ import annotations

import numpy as np
import pytest

from iaa_gate.metrics import Regions
from iaa_gate.metrics.geometry import SHAPES, shape_of

# two identical regions of each shape: (geometry rows, points)
SAME = {
    "span": ([[3, 8], [3, 8]], None),
    "box": ([[1, 2, 4, 3, 30], [1, 2, 4, 3, 30]], None),
    "polygon": ([[0, 0, 4, 3]] * 2, [np.array([[0, 0], [4, 0], [4, 3]], dtype=float)] * 2),
    "keypoint": ([[5, 5], [5, 5]], None),
    "mask": ([[0, 0, 4, 2, 8]] * 2, [np.array([[1, 3], [5, 7]], dtype=float)] * 2),
}


def test_every_shape_is_named_once_and_words_each_coordinate() -> None:
    assert list(SHAPES) == ["span", "box", "polygon", "keypoint", "mask"]
    for name, shape in SHAPES.items():
        assert shape.name == name and len(shape.keys) == shape.width, name
        assert (shape.widens_to or name) in SHAPES, name
        assert set(shape.reading) <= set(shape.keys), name


def test_an_unknown_shape_is_refused_with_the_ones_there_are() -> None:
    with pytest.raises(ValueError, match="'ellipse': use span, box, polygon, keypoint, mask"):
        shape_of("ellipse")
    with pytest.raises(ValueError, match="unknown region shape 'ellipse'"):
        Regions([], [], [], np.zeros((0, 2)), [[True]], "ellipse")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(SAME))
def test_identical_regions_are_identical_and_fully_similar(name: str) -> None:
    rows, points = SAME[name]
    shape = shape_of(name)
    geometry = np.asarray(rows, dtype=float)
    pts = None if points is None else [p.reshape(-1, 2) for p in points]
    sim, exact = shape.similarity(geometry, pts, np.array([0]), np.array([1]), 1.0)
    assert sim.tolist() == pytest.approx([1.0]) and exact.tolist() == [True]
    assert shape.bounds(geometry, pts).shape == (2, 2 if shape.linear else 4)


def test_a_regions_table_reads_its_points_and_width_from_its_shape() -> None:
    """Masks keep their runs as ``(k, 2)`` pairs; a shape with points needs one array each."""
    rows, points = SAME["mask"]
    flat = [p.reshape(-1) for p in points or ()]
    masks = Regions([0, 0], [0, 1], [0, 0], rows, [[True, True]], "mask", ("x",), tuple(flat))
    assert masks.shape is SHAPES["mask"] and masks.geometry.shape == (2, 5)
    assert [p.shape for p in masks.points or ()] == [(2, 2), (2, 2)]
    with pytest.raises(ValueError, match="polygon regions need one"):
        Regions([0], [0], [0], [[0, 0, 1, 1]], [[True]], "polygon", ("x",))


def test_a_shape_draws_its_regions_in_percent_of_the_image_or_not_at_all() -> None:
    scale = (10.0, 5.0)  # pixels per percent on x and y
    keypoint, polygon = SHAPES["keypoint"].drawn, SHAPES["polygon"].drawn
    assert keypoint is not None and polygon is not None and SHAPES["mask"].drawn is None
    assert keypoint({"x": 50, "y": 50, "width": 20}, scale) == {"x": 5.0, "y": 10.0, "width": 2.0}
    assert polygon({"points": [[10, 5], [20, 5], [20, 10]]}, scale) == {
        "points": [[1.0, 1.0], [2.0, 1.0], [2.0, 2.0]]
    }
