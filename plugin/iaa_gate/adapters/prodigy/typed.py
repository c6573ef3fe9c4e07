"""The readers of Prodigy ``db-out`` lines: each line decoded by msgspec into a typed struct that
holds only what iaa-gate reads, then appended to :class:`~iaa_gate.model.Columns`.

:func:`read_block` reads a block of choice, binary and text span lines column-wise (a span
answer's regions straight into its :class:`~iaa_gate.model.RegionColumn`); :class:`LineReader`
reads any other line, one at a time. Together they decide every value, with the rules of
:mod:`.rules`. A line they cannot read raises :class:`Unusual`, having changed nothing: the
caller then words its error.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain, compress
from operator import attrgetter, lt
from typing import Any, Literal

import msgspec
import numpy as np
from msgspec import UNSET, field

from ...model import (
    Columns,
    FieldColumn,
    RegionColumn,
    RegionSet,
    SourceStats,
    TaskId,
    intern_all,
    intern_shape,
)
from .rules import (
    BINARY_VIEWS,
    IMAGE_VIEWS,
    REJECT,
    SPAN_VIEWS,
    column_kind,
    note_choice_style,
    option_ids,
    reading,
    regions,
    timestamp,
    unit_of,
    unknown_option,
    view_name,
)


class Unusual(Exception):
    """A line the typed readers cannot read (malformed, or JSON that msgspec refuses)."""


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
    config: Any = None
    spans: msgspec.Raw = msgspec.Raw()  # decoded for span and image views only
    text: msgspec.Raw = msgspec.Raw()


class _Span(msgspec.Struct, gc=False):
    start: int | float
    end: int | float
    label: str = ""
    id: Any = UNSET


DECODER = msgspec.json.Decoder(_Example)
_SPANS = msgspec.json.Decoder(list[_Span])


def _option_ids(raw: bytes) -> set[str] | None:
    """The option ids of an ``options`` value (see :func:`.rules.option_ids`)."""
    return option_ids(msgspec.json.decode(raw))


_OFFSETS, _START, _END = attrgetter("start", "end"), attrgetter("start"), attrgetter("end")
_TEXT = msgspec.json.Decoder()
_INDEX_IDS = [str(i) for i in range(256)]
"""The ids of spans without one (their place in the answer), made once: not one string per
region of a round."""


def _append_spans(col: FieldColumn, row: int, spans: list[_Span]) -> None:
    """Append text ``spans`` (checked by :meth:`LineReader._regions`) to ``col`` as the
    regions of annotation ``row``, straight into its :class:`~iaa_gate.model.RegionColumn`,
    a column at a time."""
    col.rows.append(row)
    col.codes.append(col.code(""))
    rc = col.region_column(len(col.rows) - 1)
    rc.answer("span")
    if not spans:
        return
    n = len(spans)
    ids = [s.id for s in spans]
    if n <= len(_INDEX_IDS) and ids.count(UNSET) == n:  # the usual: no ids, their places
        rc.ids += _INDEX_IDS[:n]
    else:
        rc.ids += [str(i if r is UNSET else r) for i, r in enumerate(ids)]
    labels = [s.label for s in spans]
    known = rc.label_index
    rc.label.extend([known[x] if x in known else rc.code(x) for x in labels])
    # an int offset is stored as float(start), as the rules read it
    rc.coords.extend(chain.from_iterable(map(_OFFSETS, spans)))


class LineReader:
    """Reads lines into ``cols`` (``styles``: each choice view's declared style), keeping the
    option ids and accepted answers it has checked, which repeat from line to line."""

    def __init__(
        self,
        cols: Columns,
        stats: SourceStats,
        styles: dict[str, bool],
        texts: dict[tuple[TaskId, str], str] | None = None,
    ) -> None:
        self.cols, self.stats, self.styles = cols, stats, styles
        self.texts = {} if texts is None else texts
        self.option_ids: dict[bytes, set[str] | None] = {}
        self.accepted: dict[tuple[Any, ...], tuple[str, ...]] = {}

    def __call__(self, line: bytes) -> TaskId:
        """Append the answer on ``line``; returns its unit. Raises :class:`Unusual` (having
        changed nothing) when it cannot be read."""
        try:
            ex = DECODER.decode(line)
        except (msgspec.ValidationError, msgspec.DecodeError):
            raise Unusual from None
        h = ex.input_hash
        annotator = ex.annotator_id or ex.session_id
        answer = ex.answer
        ts = ex.timestamp
        if (
            not isinstance(h, (int, str))
            or type(annotator) is not str
            or (answer != "accept" and answer != "reject" and answer != "ignore")
        ):
            raise Unusual
        if type(ts) is int and abs(ts) < 1 << 40:
            when = float(ts)  # what the time of _when gives back, without making it
        else:
            try:
                t = timestamp(ts)
            except ValueError:
                raise Unusual from None
            when = math.nan if t is None else t.timestamp()
        raw_view = "classification" if ex.view_id is UNSET else ex.view_id
        view = view_name(raw_view)
        task_hash = ex.task_hash
        unit: TaskId = unit_of(h, raw_view, ex.label, task_hash)
        how = reading(view, len(ex.options) > 0)
        chosen: tuple[str, ...] | str | None
        found: RegionSet | list[_Span] | None = None
        if answer == "ignore" or (how == "regions" and answer == "reject"):  # a rejected
            chosen = None  # manual answer is unusable: a skip, like an ignore
        elif how == "regions":
            chosen, found = "", self._regions(ex, view in IMAGE_VIEWS)
        elif how == "choices":
            chosen = self._chosen(ex, answer == "accept")
        elif how == "binary":
            chosen = (answer,)
        else:
            chosen = ""  # listed as not evaluated
        stats, cols = self.stats, self.cols
        stats.annotations += 1
        if chosen is None:
            stats.ignored += 1
            cols.row(unit, annotator, when, when, annotation_id=task_hash, skipped=True)
            return unit
        if how == "choices":
            config = ex.config
            note_choice_style(
                self.styles, view, config.get("choice_style") if type(config) is dict else None
            )
            stats.empty += not chosen
        if (
            view in SPAN_VIEWS
            and len(ex.text)
            and type(text := msgspec.json.decode(ex.text)) is str
        ):
            self.texts[unit, view] = text
        row = cols.row(unit, annotator, when, when, annotation_id=task_hash)
        col = cols.fields.get(view)
        if col is None:
            col = cols.fields[view] = FieldColumn(column_kind(view, how))
        if isinstance(found, list):
            _append_spans(col, row, found)
        else:
            col.add(row, chosen, found)
        return unit

    def _regions(self, ex: _Example, image: bool) -> RegionSet | list[_Span]:
        """An accepted manual answer's ``spans`` as :func:`.rules.regions` reads them: image
        shapes by that rule itself, text spans by a typed decode of the same rules, checked
        here and appended by :func:`_append_spans` (anything either refuses:
        :class:`Unusual`)."""
        if image:
            try:
                return regions(msgspec.json.decode(ex.spans) if len(ex.spans) else [], True)
            except ValueError:
                raise Unusual from None
        if not len(ex.spans):
            return []
        try:
            spans = _SPANS.decode(ex.spans)
        except msgspec.ValidationError:
            raise Unusual from None
        for span in spans:
            if span.end < span.start:
                raise Unusual
        return spans

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
                self.option_ids[raw] = _option_ids(raw)
            if unknown_option(chosen, self.option_ids[raw]) is not None:
                raise Unusual
        return chosen


class _Line(msgspec.Struct, gc=False, kw_only=True):
    """A line as :func:`read_block` takes it: stricter than :class:`_Example` (an int time, a
    known answer, an id list), so that msgspec's type check does most of the line rules. The
    fields stand in the order ``prodigy db-out`` writes the keys: msgspec looks for the next
    key at the field after the last one first (3 % of the decode)."""

    text: msgspec.Raw = msgspec.Raw()  # decoded for span views only
    input_hash: int | str = field(name="_input_hash")
    task_hash: Any = field(name="_task_hash", default=None)
    spans: msgspec.Raw = msgspec.Raw()  # decoded for span views only
    label: Any = None
    options: msgspec.Raw = msgspec.Raw()
    view_id: str = field(name="_view_id", default="classification")
    config: _Config | None = None
    accept: tuple[int | str, ...] = ()
    answer: Literal["accept", "reject", "ignore"]
    timestamp: int | None = field(name="_timestamp", default=None)
    annotator_id: Any = field(name="_annotator_id", default=None)
    session_id: Any = field(name="_session_id", default=None)


_LINE = msgspec.json.Decoder(_Line)


_BINARY = {"accept": ("accept",), "reject": ("reject",)}
_OPEN, _CLOSE, _NEWLINE = ord("{"), ord("}"), ord("\n")


def decode_block(block: bytes, labels: tuple[str, ...] = ()) -> list[_Line] | None:
    """The lines of ``block`` as :class:`_Line` structs, one per line as ``bytes.splitlines``
    splits them; None when a line is not one.

    One ``decode_lines`` call when every line starts with ``{`` and ends with ``}``
    (:func:`_one_object_per_line`), else line by line (CRLF endings, blank lines, spaces
    around an object). ``labels``: the text span labels read so far; given, the lines' spans
    are first decoded with them in that same call (:func:`_with_spans`)."""
    try:
        lines = _one_object_per_line(block)
        if lines:
            exs = _decode_lines(block, labels)
            if len(exs) == lines:
                return exs
        return [_LINE.decode(x) for x in block.splitlines()]
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


def _decode_lines(block: bytes, labels: tuple[str, ...]) -> list[_Line]:
    """``decode_lines`` of ``block``: with the spans decoded as text spans of ``labels``
    where every line's are (a span file once its labels are known: no raw value and no
    decode per line), else with the spans as raw JSON."""
    if 0 < len(labels) <= _MAX_LITERALS:
        try:
            lines: list[_Line] = _with_spans(labels).decode_lines(block)
            return lines
        except (msgspec.ValidationError, msgspec.DecodeError):
            pass  # a new label, spans of another shape (an image), or not JSON: as before
    return _LINE.decode_lines(block)


def _one_object_per_line(block: bytes) -> int:
    """The number of lines of ``block`` when each starts with ``{`` and ends with ``}`` (0
    otherwise). Then no JSON value in it spans a line break: inside an object or a list a
    ``}`` is never followed by ``{``, and a string never holds a raw line break. So when
    ``decode_lines`` finds as many objects as lines, each line holds exactly one."""
    body = np.frombuffer(block, np.uint8)
    if len(body) and body[-1] == _NEWLINE:
        body = body[:-1]
    if not len(body) or body[0] != _OPEN or body[-1] != _CLOSE:
        return 0
    breaks = np.flatnonzero(body == _NEWLINE)
    if not ((body[breaks - 1] == _CLOSE).all() and (body[breaks + 1] == _OPEN).all()):
        return 0
    return len(breaks) + 1


def read_block(
    block: bytes,
    cols: Columns,
    stats: SourceStats,
    styles: dict[str, bool],
    texts: dict[tuple[TaskId, str], str],
) -> int | None:
    """Append the answers of the lines of ``block`` (one JSON object each) to ``cols``
    column-wise, as :class:`LineReader` would line by line (a text span view's texts to
    ``texts``); returns how many lines it read.
    None, having changed nothing, when any line needs the per-line readers (they then read the
    block). Per line this does only msgspec's decode, a few attribute reads and one lookup of
    the line's kind (view, answer, annotator, accepted ids, choice style, options or not); the
    rules of :mod:`.rules` run once per distinct kind."""
    labels = _span_labels(cols)
    exs = decode_block(block, labels)
    if exs is None:
        return None
    n = len(exs)
    kinds: dict[tuple[Any, ...], int] = {}
    distinct: list[tuple[Any, ...]] = []
    try:
        kind = intern_all(
            kinds,
            distinct,
            [
                (
                    e.view_id,
                    e.answer,
                    e.annotator_id or e.session_id,
                    e.accept,
                    None if e.config is None else e.config.choice_style,
                    len(e.options) > 0,
                )
                for e in exs
            ],
        )
    except TypeError:  # an unhashable id or style
        return None
    chosen: list[tuple[str, ...] | str | None] = []
    for view, answer, who, accept, _, listed in distinct:
        how = reading(view, listed)
        if type(who) is not str or not view or view in IMAGE_VIEWS or how == "other":
            return None  # the per-line reader
        if answer == "ignore" or (how == "regions" and answer == "reject"):
            chosen.append(None)  # a rejected manual answer is unusable: a skip
        elif how == "regions":
            chosen.append("")
        elif how == "choices":
            chosen.append(tuple(map(str, accept)) if answer == "accept" else (REJECT,))
        else:
            chosen.append(_BINARY[answer])
    when = np.array([e.timestamp for e in exs], dtype=np.float64)
    if (np.abs(when) >= 1 << 40).any():
        return None  # what timestamp() makes of very large times: the per-line readers
    listed = [k for k, d in enumerate(distinct) if d[5] and d[1] == "accept"]
    if listed:
        at = np.flatnonzero(np.isin(kind, listed)).tolist()
        raws = [exs[i].options for i in at]
        if raws.count(raws[0]) == len(raws):  # the usual: one options list (compared in C)
            checks: Iterable[tuple[bytes, int]] = [(bytes(raws[0]), k) for k in listed]
        else:
            checks = dict.fromkeys(zip(map(bytes, raws), kind[at].tolist(), strict=True))
        ids: dict[bytes, set[str] | None] = {}
        for raw, k in checks:
            if raw not in ids:
                ids[raw] = _option_ids(raw)
            got = chosen[k]
            if unknown_option(got if type(got) is tuple else (), ids[raw]) is not None:
                return None
    spans: _Answers | None = None
    regional = [k for k, got in enumerate(chosen) if got == ""]
    if regional:  # accepted text span answers: their spans, checked as the line reader does
        spans = _Answers.of(exs, np.flatnonzero(np.isin(kind, regional)), labels)
        if spans is None:
            return None
    hashes: list[int | str] = [e.input_hash for e in exs]
    task_hashes = [e.task_hash for e in exs]
    if BINARY_VIEWS.isdisjoint(d[0] for d in distinct):
        units: list[TaskId] = hashes  # input_unit of a typed hash is the hash itself
    else:
        views = [distinct[k][0] for k in kind.tolist()]
        units = list(map(unit_of, hashes, views, [e.label for e in exs], task_hashes))
    # every rule holds: append
    lines = np.bincount(kind, minlength=len(distinct))
    base = len(cols)
    who = np.zeros(len(distinct), dtype=np.int64)
    field = np.full(len(distinct), -1, dtype=np.int64)
    value = np.zeros(len(distinct), dtype=np.int64)
    names: list[str] = []
    for k, (view, _, annotator, _, style, listed) in enumerate(distinct):
        who[k] = cols.who(annotator)
        got = chosen[k]
        if got is None:
            stats.ignored += int(lines[k])
            continue
        how = reading(view, listed)
        if how == "choices":
            note_choice_style(styles, view, style)  # a non-text style says nothing, like None
            stats.empty += 0 if got else int(lines[k])
        col = cols.fields.get(view)
        if col is None:
            col = cols.fields[view] = FieldColumn(column_kind(view, how))
        if view not in names:
            names.append(view)
        field[k], value[k] = names.index(view), col.code(got)
    stats.annotations += n
    cols.task.frombytes(intern_all(cols.task_index, cols.tasks, units).tobytes())
    cols.annotator.frombytes(who[kind].tobytes())
    cols.created.frombytes(when.tobytes())
    cols.updated.frombytes(when.tobytes())
    cols.ground_truth.frombytes(bytes(n))
    fields = field[kind]
    cols.skipped.frombytes((fields < 0).astype(np.int8).tobytes())
    cols.annotation_ids += task_hashes
    for f, view in enumerate(names):
        rows = np.flatnonzero(fields == f) if len(names) > 1 else np.flatnonzero(fields >= 0)
        col = cols.fields[view]
        if spans is not None and view in SPAN_VIEWS:
            mine = spans if len(names) == 1 else spans.of_lines(fields[spans.at] == f)
            mine.append_to(col.region_column(len(col.rows)))
            _texts(exs, units, rows.tolist(), view, texts)
        col.rows.frombytes((rows + base).tobytes())
        col.codes.frombytes(value[kind[rows]].tobytes())
    return n


class _Answers:
    """The spans of a block's accepted text span answers (lines ``at``, in order), decoded and
    checked as :meth:`LineReader._regions` checks them, with their offsets as columns."""

    def __init__(self, at: Any, answers: Sequence[Sequence[_Span]], starts: Any, ends: Any) -> None:
        self.at = at
        self.counts = np.fromiter(map(len, answers), np.int64, len(answers))
        self.flat = list(chain.from_iterable(answers))
        self.starts, self.ends = starts, ends

    @classmethod
    def of(cls, exs: list[_Line], at: Any, labels: tuple[str, ...]) -> _Answers | None:
        """The answers of lines ``at`` of ``exs``; None when one is not spans of text.
        ``labels``: the labels read so far, decoded as literals (:func:`_labelled`)."""
        decode = _labelled(labels).decode if 0 < len(labels) <= _MAX_LITERALS else _SPANS.decode
        answers: list[Sequence[_Span]] = []
        try:
            for i in at.tolist():
                raw = exs[i].spans
                if type(raw) is tuple:  # decoded with the line (:func:`_with_spans`)
                    answers.append(raw)
                    continue
                if not len(raw):
                    answers.append([])
                    continue
                try:
                    answers.append(decode(raw))
                except msgspec.ValidationError:  # a new label, or not spans: as ever
                    answers.append(_SPANS.decode(raw))
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        flat = list(chain.from_iterable(answers))
        try:  # an int offset is stored as float(start), as the rules read it; an attribute
            # read in a comprehension is quicker than map's attrgetter (millions of spans)
            starts = np.fromiter([s.start for s in flat], np.float64, len(flat))
            ends = np.fromiter([s.end for s in flat], np.float64, len(flat))
        except OverflowError:
            return None
        if (ends < starts).any():
            return None
        rounded = len(flat) and max(abs(starts).max(), abs(ends).max()) >= _EXACT
        if rounded and any(map(lt, map(_END, flat), map(_START, flat))):  # compared as read
            return None
        return cls(at, answers, starts, ends)

    def of_lines(self, keep: Any) -> _Answers:
        """The answers of the lines where ``keep`` (a bool per line of :attr:`at`) is true."""
        spans = np.repeat(keep, self.counts)
        answers, flat, first = [], list(compress(self.flat, spans)), 0
        for n in self.counts[keep].tolist():
            answers.append(flat[first : first + n])
            first += n
        return _Answers(self.at[keep], answers, self.starts[spans], self.ends[spans])

    def append_to(self, rc: RegionColumn) -> None:
        """Append the answers to ``rc``, a column at a time."""
        counts, flat = self.counts, self.flat
        n, total = len(counts), len(flat)
        offsets = np.cumsum(counts) - counts
        rc.shape.frombytes(np.full(n, intern_shape(rc.shapes, "span"), np.int8).tobytes())
        rc.first.frombytes((offsets + len(rc.ids)).tobytes())
        rc.cfirst.frombytes((2 * offsets + len(rc.coords)).tobytes())
        rc.pfirst.frombytes(np.full(n, len(rc.points), np.int64).tobytes())
        rc.dropped.frombytes(bytes(8 * n))
        ids = [s.id for s in flat]
        at = np.arange(total) - np.repeat(offsets, counts)  # each span's place in its answer
        if ids.count(UNSET) == total and total and int(at.max()) < len(_INDEX_IDS):
            rc.ids += map(_INDEX_IDS.__getitem__, at.tolist())  # the usual: no ids, their places
        else:
            rc.ids += [str(i if r is UNSET else r) for i, r in zip(at.tolist(), ids, strict=True)]
        codes = intern_all(rc.label_index, rc.labels, [s.label for s in flat])
        rc.label.frombytes(codes.tobytes())
        rc.coords.frombytes(np.column_stack((self.starts, self.ends)).tobytes())


def _span_labels(cols: Columns) -> tuple[str, ...]:
    """The labels of the text span answers in ``cols``."""
    labels: list[str] = []
    for view, col in cols.fields.items():
        if view in SPAN_VIEWS and col.regions is not None:
            labels += col.regions.labels
    return tuple(dict.fromkeys(labels))


_MAX_LITERALS = 64
"""Up to this many labels are decoded as literals (a decoder is made for each new set)."""


@lru_cache(maxsize=16)
def _labelled_span(labels: tuple[str, ...]) -> Any:
    """:class:`_Span` with a label that is one of ``labels``, these as literals: no string
    made (and freed) per span; a span with another label fails it and is decoded as
    :class:`_Span`, whose fields it has."""
    return msgspec.defstruct("_LabelledSpan", _fields(_Span, label=Literal[labels]), gc=False)


@lru_cache(maxsize=16)
def _labelled(labels: tuple[str, ...]) -> msgspec.json.Decoder[Any]:
    """A decoder of a list of :func:`_labelled_span` spans."""
    span: Any = _labelled_span(labels)
    return msgspec.json.Decoder(list[span])


@lru_cache(maxsize=16)
def _with_spans(labels: tuple[str, ...]) -> msgspec.json.Decoder[Any]:
    """A decoder of :class:`_Line` with its ``spans`` decoded (a tuple of
    :func:`_labelled_span`, empty without the key) rather than kept as raw JSON: a line
    whose spans are not text spans of ``labels`` fails it."""
    span: Any = _labelled_span(labels)
    spans: Any = tuple[span, ...]
    line = msgspec.defstruct(
        "_LineWithSpans",
        _fields(_Line, spans=spans),
        kw_only=True,
        gc=False,
        rename={f.name: f.encode_name for f in msgspec.structs.fields(_Line)},
    )
    return msgspec.json.Decoder(line)


def _fields(struct: type[msgspec.Struct], **types: Any) -> list[tuple[Any, ...]]:
    """The fields of ``struct`` (name, type[, default]) with ``types`` in place of theirs (a
    field given a new type and a raw default gets an empty tuple)."""
    out: list[tuple[Any, ...]] = []
    for f in msgspec.structs.fields(struct):
        default = f.default
        if f.name in types and isinstance(default, msgspec.Raw):
            default = ()
        out.append(
            (f.name, types.get(f.name, f.type))
            + (() if default is msgspec.NODEFAULT else (default,))
        )
    return out


_EXACT = float(1 << 53)
"""Offsets from this size on may round as floats: their order is checked as read."""


def _texts(
    exs: list[_Line],
    units: list[TaskId],
    rows: list[int],
    view: str,
    texts: dict[tuple[TaskId, str], str],
) -> None:
    """Keep the text of each unit's last line of ``rows`` that gives one (a str)."""
    # the usual: a unit's last line gives it
    last = dict(zip(map(units.__getitem__, rows), rows, strict=True))
    found: set[TaskId] = set()
    for unit, i in last.items():
        if len(raw := exs[i].text) and type(text := _TEXT.decode(raw)) is str:
            texts[unit, view] = text
            found.add(unit)
    if len(found) == len(last):
        return
    for i in reversed(rows):  # an earlier line of the unit that gives one
        if (unit := units[i]) in found or not len(raw := exs[i].text):
            continue
        if type(text := _TEXT.decode(raw)) is str:
            texts[unit, view] = text
            found.add(unit)
