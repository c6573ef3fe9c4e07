"""The fast path of a Prodigy ``db-out`` line: decoded by msgspec into a typed struct that holds
only what iaa-gate reads, then appended to :class:`~iaa_gate.model.Columns`.

It covers choice views (with or without options) and binary views. Anything else, and anything
malformed, raises :class:`Unusual`: the caller then reads that line with the general parser,
which gives the same answer or the precise error (the two are tested to agree).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import msgspec
import numpy as np
from msgspec import UNSET, field

from ...model import Columns, FieldColumn, SourceStats, TaskId, intern_all
from .rules import (
    BINARY_VIEWS,
    IMAGE_VIEWS,
    REJECT,
    SPAN_VIEWS,
    note_choice_style,
    timestamp,
    unit_of,
    units_of,
    unknown_option,
)


class Unusual(Exception):
    """Not a line the fast path reads: read it with the general parser."""


class _Option(msgspec.Struct, gc=False):
    id: Any = None


class _Config(msgspec.Struct, gc=False):
    choice_style: Any = None


class _Example(msgspec.Struct, gc=False):
    input_hash: Any = field(name="_input_hash", default=None)
    task_hash: Any = field(name="_task_hash", default=None)
    view_id: Any = field(name="_view_id", default=UNSET)
    annotator_id: Any = field(name="_annotator_id", default=None)
    session_id: Any = field(name="_session_id", default=None)
    timestamp: Any = field(name="_timestamp", default=None)
    answer: Any = None
    label: Any = None
    accept: Any = UNSET
    options: msgspec.Raw = msgspec.Raw()  # empty: no options key
    config: _Config | None = None


DECODER = msgspec.json.Decoder(_Example)


_OPTIONS = msgspec.json.Decoder(list[_Option] | None)


class LineReader:
    """Reads lines into ``cols`` (``styles``: each choice view's declared style), keeping the
    option ids and accepted answers it has checked, which repeat from line to line."""

    def __init__(
        self,
        cols: Columns,
        stats: SourceStats,
        styles: dict[str, bool],
    ) -> None:
        self.cols, self.stats, self.styles = cols, stats, styles
        self.option_ids: dict[bytes, set[str] | None] = {}
        self.accepted: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def __call__(self, line: bytes) -> TaskId:
        """Append the answer on ``line``; returns its unit. Raises :class:`Unusual` (having
        changed nothing) when the general parser must read it."""
        try:
            ex = DECODER.decode(line)
        except (msgspec.ValidationError, msgspec.DecodeError):
            raise Unusual from None
        h = ex.input_hash
        annotator = ex.annotator_id or ex.session_id
        answer = ex.answer
        ts = ex.timestamp
        if (
            (type(h) is not int and type(h) is not str)
            or type(annotator) is not str
            or (answer != "accept" and answer != "reject" and answer != "ignore")
        ):
            raise Unusual
        view = ex.view_id
        if view is UNSET:
            view = "classification"
        elif type(view) is not str or not view or view in SPAN_VIEWS or view in IMAGE_VIEWS:
            raise Unusual  # null or empty views, spans and images: the general parser
        if type(ts) is int and abs(ts) < 1 << 40:
            when = float(ts)  # what the time of _when gives back, without making it
        else:
            try:
                t = timestamp(ts)
            except ValueError:
                raise Unusual from None
            when = math.nan if t is None else t.timestamp()
        task_hash = ex.task_hash
        unit: TaskId = unit_of(h, view, ex.label, task_hash)
        has_options = len(ex.options) > 0
        choice = has_options or view == "choice"
        if answer == "ignore":
            chosen = None
        elif choice:
            chosen = self._chosen(ex, answer == "accept")
        elif view in BINARY_VIEWS:
            chosen = (answer,)
        else:
            raise Unusual  # span, image and other manual views: the general parser
        stats, cols = self.stats, self.cols
        stats.annotations += 1
        if chosen is None:
            stats.ignored += 1
            cols.row(unit, annotator, when, when, annotation_id=task_hash, skipped=True)
            return unit
        if choice:
            note_choice_style(
                self.styles, view, ex.config.choice_style if ex.config is not None else None
            )
            stats.empty += not chosen
        row = cols.row(unit, annotator, when, when, annotation_id=task_hash)
        col = cols.fields.get(view)
        if col is None:
            col = cols.fields[view] = FieldColumn("choices")
        col.add(row, chosen, None)
        return unit

    def _chosen(self, ex: _Example, accepted: bool) -> tuple[str, ...]:
        """A choice answer's options (``REJECT`` for a reject), checked against its options."""
        accept = [] if ex.accept is UNSET else ex.accept
        if type(accept) is not list:
            raise Unusual
        try:
            chosen = self.accepted.get(key := tuple(accept))
        except TypeError:  # an unhashable entry
            raise Unusual from None
        if chosen is None:
            if not all(type(a) is str or type(a) is int for a in accept):
                raise Unusual
            chosen = self.accepted[key] = tuple(str(a) for a in accept)
        if not accepted:
            return (REJECT,)
        if len(ex.options):
            raw = bytes(ex.options)
            if raw not in self.option_ids:
                try:
                    options = _OPTIONS.decode(raw)
                except msgspec.ValidationError:
                    raise Unusual from None
                self.option_ids[raw] = None if options is None else {str(o.id) for o in options}
            ids = self.option_ids[raw]
            if unknown_option(chosen, ids) is not None:
                raise Unusual  # the general parser names it
        return chosen


class _Line(msgspec.Struct, gc=False):
    """A line as :func:`read_block` takes it: stricter than :class:`_Example` (an int time, a
    known answer, an id list), so that msgspec's type check does most of the line rules."""

    input_hash: int | str = field(name="_input_hash")
    answer: Literal["accept", "reject", "ignore"]
    task_hash: Any = field(name="_task_hash", default=None)
    view_id: str = field(name="_view_id", default="classification")
    annotator_id: Any = field(name="_annotator_id", default=None)
    session_id: Any = field(name="_session_id", default=None)
    timestamp: int | None = field(name="_timestamp", default=None)
    label: Any = None
    accept: tuple[int | str, ...] = ()
    options: msgspec.Raw = msgspec.Raw()
    config: _Config | None = None


_LINE = msgspec.json.Decoder(_Line)
_BINARY = {"accept": ("accept",), "reject": ("reject",)}


def read_block(
    lines: list[bytes], cols: Columns, stats: SourceStats, styles: dict[str, bool]
) -> list[TaskId] | None:
    """Append the answers of ``lines`` (one JSON object each) to ``cols`` column-wise, as
    :class:`LineReader` would line by line; returns their units. None, having changed nothing,
    when any line needs the per-line readers (they then read the block). Per line this does
    only msgspec's decode and a few list comprehensions; the rules are those of
    :mod:`.rules`, applied once per distinct value where they depend on one."""
    try:
        exs = [_LINE.decode(x) for x in lines]
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    n = len(exs)
    views = [e.view_id for e in exs]
    answers = [e.answer for e in exs]
    whos = [e.annotator_id or e.session_id for e in exs]
    try:
        if any(type(a) is not str for a in dict.fromkeys(whos)):
            return None
    except TypeError:  # an unhashable id
        return None
    if any(not v or v in SPAN_VIEWS or v in IMAGE_VIEWS for v in dict.fromkeys(views)):
        return None
    when = np.array([e.timestamp for e in exs], dtype=np.float64)
    if not (np.abs(when[~np.isnan(when)]) < 1 << 40).all():
        return None  # what timestamp() makes of very large times: the per-line readers
    choice = [len(e.options) > 0 or v == "choice" for e, v in zip(exs, views, strict=True)]
    ignored = [a == "ignore" for a in answers]
    accepts = [e.accept for e in exs]
    ids = {a: tuple(str(x) for x in a) for a in dict.fromkeys(accepts)}
    chosen: list[tuple[str, ...] | None] = [
        None if a == "ignore" else (ids[acc] if a == "accept" else (REJECT,)) if c else _BINARY[a]
        for a, acc, c in zip(answers, accepts, choice, strict=True)
    ]
    if not all(choice) and any(
        v not in BINARY_VIEWS
        for v, c, i in zip(views, choice, ignored, strict=True)
        if not c and not i
    ):
        return None  # manual views other than choice: the per-line readers
    listed = [
        i for i, e in enumerate(exs) if len(e.options) and choice[i] and answers[i] == "accept"
    ]
    checked = dict.fromkeys(
        zip([bytes(exs[i].options) for i in listed], [accepts[i] for i in listed], strict=True)
    )
    for raw, acc in checked:
        try:
            options = _OPTIONS.decode(raw)
        except msgspec.ValidationError:
            return None
        if options is not None and unknown_option(ids[acc], {str(o.id) for o in options}):
            return None
    task_hashes = [e.task_hash for e in exs]
    labels = [e.label for e in exs]
    units: list[TaskId] = units_of([e.input_hash for e in exs], views, labels, task_hashes)
    # every rule holds: append
    rated = [i for i in range(n) if not ignored[i]]
    recipes = [exs[i].config for i in rated if choice[i]]
    declared = [
        None if r is None or type(r.choice_style) is not str else r.choice_style for r in recipes
    ]
    for view, style in dict.fromkeys(
        zip([views[i] for i in rated if choice[i]], declared, strict=True)
    ):
        note_choice_style(styles, view, style)  # a non-text style says nothing, like None
    stats.annotations += n
    stats.ignored += n - len(rated)
    stats.empty += sum(1 for i in rated if choice[i] and not chosen[i])
    base = len(cols)
    cols.task.frombytes(intern_all(cols.task_index, cols.tasks, units).tobytes())
    cols.annotator.frombytes(intern_all(cols.annotator_index, cols.annotators, whos).tobytes())
    cols.created.frombytes(when.tobytes())
    cols.updated.frombytes(when.tobytes())
    cols.ground_truth.frombytes(bytes(n))
    cols.skipped.frombytes(np.array(ignored, dtype=np.int8).tobytes())
    cols.annotation_ids += task_hashes
    for view in dict.fromkeys(views[i] for i in rated):
        mine = [i for i in rated if views[i] == view] if len(set(views)) > 1 else rated
        col = cols.fields.get(view)
        if col is None:
            col = cols.fields[view] = FieldColumn("choices")
        col.rows.frombytes((np.array(mine, dtype=np.int64) + base).tobytes())
        values = (
            [chosen[i] for i in mine] if mine is not rated else [c for c in chosen if c is not None]
        )
        col.codes.frombytes(intern_all(col.index, col.values, values).tobytes())
    return units
