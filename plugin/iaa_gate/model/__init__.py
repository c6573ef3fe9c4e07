"""The normalised model every adapter produces and every evaluation reads.

``records``: :class:`Annotation`, :class:`FieldValue`, :class:`RegionSet`, :class:`SourceStats`;
``columns``: the column store sources append to (a region field's regions flat in a
:class:`RegionColumn`); ``dataset``: :class:`Dataset` and round filters.
"""

from .columns import (
    Columns,
    FieldColumn,
    RegionColumn,
    intern,
    intern_all,
    intern_shape,
    view,
)
from .dataset import Dataset, LazyAnnotations, RoundFilter, annotator, apply_round, task_mask
from .records import (
    Annotation,
    FieldValue,
    FloatArray,
    IntArray,
    RegionSet,
    SourceStats,
    TaskId,
    Value,
    normalise_text,
)

__all__ = [
    "Annotation",
    "Columns",
    "Dataset",
    "FieldColumn",
    "FieldValue",
    "FloatArray",
    "IntArray",
    "LazyAnnotations",
    "RegionColumn",
    "RegionSet",
    "RoundFilter",
    "SourceStats",
    "TaskId",
    "Value",
    "annotator",
    "apply_round",
    "intern",
    "intern_all",
    "intern_shape",
    "normalise_text",
    "task_mask",
    "view",
]
