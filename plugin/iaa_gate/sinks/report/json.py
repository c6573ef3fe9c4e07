"""``report.json``: the report document, keys sorted, for machines and diffs between rounds;
and ``disputed-tasks.jsonl`` beside it: every disputed task, one line per (field, task).

Encoded by ``msgspec.json`` (UTF-8, keys sorted; several times faster than the standard
library's indenting encoder, see bench/README.md "Report encoding"). msgspec writes a NaN as
``null``; the document says null (with a reason) for an undefined value on purpose, so a
non-finite number that reaches a writer is refused first (:func:`check_finite`), never written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, pairwise, repeat
from typing import Any, TypeGuard

import msgspec
import numpy as np

from ...evaluation.document import DISPUTED_FILE, Disputed, DisputedTable, DisputedTask, Report
from ...evaluation.region_details import RegionUnits
from ...evaluation.results import Consensus, Picked, UnitTable
from ...evaluation.sections import plain
from .columns import each, encodable, picked, region_lines

_ENCODER = msgspec.json.Encoder(order="sorted", enc_hook=plain)


def _finite(x: Any) -> bool:
    """True when every float in ``x`` (JSON-able data) is finite."""
    if isinstance(x, (float, np.floating)):
        return math.isfinite(x)
    if isinstance(x, dict):
        return all(map(_finite, x.values()))
    if isinstance(x, (list, tuple)):
        return all(map(_finite, x))
    if isinstance(x, msgspec.Struct):
        return all(map(_finite, msgspec.structs.astuple(x)))
    return True


def _where(x: Any, path: str = "") -> str:
    """The path (``.key``, ``[index]``) of the first non-finite float in ``x`` (it has one)."""
    if isinstance(x, msgspec.Struct):
        x = msgspec.structs.asdict(x)
    if isinstance(x, dict):
        items = [(f"{path}.{k}", v) for k, v in x.items()]
    elif isinstance(x, (list, tuple)):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(x)]
    else:
        return path
    return next(_where(v, p) for p, v in items if not _finite(v))


_PACKER = msgspec.msgpack.Encoder(enc_hook=plain)
_NONFINITE = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")


def _surely_finite(x: Any) -> bool:
    """True when ``x`` surely holds no NaN or infinity, found in C rather than by walking it
    (a disputed region task holds hundreds of values). In msgpack every float is 0xcb and its 8
    bytes, big-endian, and a non-finite one starts 0x7ff or 0xfff; in UTF-8 text 0xcb is never
    followed by 0x7f or 0xff. False may be a false alarm (other bytes that look so, or data
    msgpack does not take, such as an integer beyond 64 bits): :func:`_finite` then decides."""
    try:
        return not any(map(_NONFINITE.search, _packed(x)))
    except (TypeError, OverflowError):
        return False


def _packed(x: Any, at_a_time: int = 1024) -> Iterator[bytes]:
    """``x`` in msgpack, each list among its values ``at_a_time`` items at a time (a field's
    disputed tasks: the bytes of all at once would add ~140 MB at 100,000 region tasks)."""
    for part in x.values() if isinstance(x, dict) else [x]:
        if isinstance(part, list):
            for i in range(0, len(part), at_a_time):
                yield _PACKER.encode(part[i : i + at_a_time])
        else:
            yield _PACKER.encode(part)


def check_finite(x: Any, what: str) -> None:
    """Raise ValueError naming where ``x`` holds a NaN or an infinity (JSON has neither)."""
    if not _surely_finite(x) and not _finite(x):
        raise ValueError(
            f"{what}: {_where(x).lstrip('.')} is not a finite number; an undefined value is "
            "written as null with its reason, never as NaN"
        )


class JsonWriter:
    filename = "report.json"

    def render(self, report: Report, disputed: Disputed | None = None) -> bytes:
        check_finite(report, "report.json")
        return msgspec.json.format(_ENCODER.encode(report), indent=2) + b"\n"


class DisputedTasksWriter:
    """One line per disputed task, ``{field, id, score, labels[, details, priority,
    consensus, state, final, note]}``, by field name then in review order (priority, highest
    first); keys sorted. It needs ``disputed`` (:func:`~.document.disputed_tasks` by field):
    the document holds only the first ones. :meth:`chunks` gives the file a block of lines at a
    time, for writing as they are made (a region round's file is hundreds of MB)."""

    filename = DISPUTED_FILE

    def render(self, report: Report, disputed: Disputed | None = None) -> bytes:
        return b"".join(self.chunks(report, disputed))

    def chunks(self, report: Report, disputed: Disputed | None = None) -> Iterator[bytes]:
        """The file's content, a block of lines at a time (see :meth:`render`)."""
        if disputed is None:
            raise ValueError(f"{DISPUTED_FILE} needs every disputed task, not the document alone")
        return self._chunks(disputed)

    def parts(self, disputed: Disputed, n: int) -> list[Iterator[bytes]]:
        """The file's content (see :meth:`render`) as up to ``n`` parts whose concatenation it
        is, each made on its own (so each may be made by another process): the region field
        with the most disputed tasks, from :data:`PARALLEL_LINES` of them, cut by its lines in
        review order (:data:`FIRST_SHARE` of them in the first part, the rest evenly), the
        fields before it in the first part, those after it in the last; else one part. What
        the cut field's lines share is made here, once (its proposals' JSON among it, which
        ``consensus.jsonl`` then takes from this process).

        Parameters
        ----------
        disputed : dict of str to list of DisputedTask
            Every disputed task by field.
        n : int
            How many parts at most.

        Returns
        -------
        list of iterators of bytes
            The parts in order, each a block of lines at a time.

        Examples
        --------
        >>> w = DisputedTasksWriter()
        >>> len(w.parts({}, 2))  # nothing to cut
        1
        """
        names = sorted(disputed)
        sizes = [len(disputed[x]) if _regions(disputed[x]) else 0 for x in names]
        if n < 2 or not names or max(sizes) < PARALLEL_LINES:
            return [self._chunks(disputed)]
        at = sizes.index(max(sizes))
        name, tasks = names[at], disputed[names[at]]
        first = round(len(tasks) * FIRST_SHARE)
        rest = [round(first + (len(tasks) - first) * i / (n - 1)) for i in range(1, n - 1)]
        cut, checked = _lines(tasks, [first, *rest])
        before = self._chunks({x: disputed[x] for x in names[:at]})
        after = self._chunks({x: disputed[x] for x in names[at + 1 :]})
        parts = [_checked(name, tasks, lines, checked) for lines in cut]
        return [chain(before, parts[0]), *parts[1:-1], chain(parts[-1], after)]

    def _chunks(self, disputed: Disputed) -> Iterator[bytes]:
        for name in sorted(disputed):
            lines, checked = _lines(disputed[name])
            yield from _checked(name, disputed[name], lines[0], checked)


PARALLEL_LINES = 10_000
"""Disputed tasks of a region field from which :meth:`DisputedTasksWriter.parts` cuts the file
into parts: a line of 9 boxes or spans by each of 3 annotators is 5-10 KB, and 10,000 of them
take ~0.5 s to make, several times what forking a child and appending its part cost."""
FIRST_SHARE = 0.42
"""The share of the cut field's lines in the first part. A run's process that writes it also
computes the region fields' figures meanwhile (the parts start once the disputed tasks are
known; ~1.3 s on 100,000 NER texts) and writes the other reports (~0.25 s), but a forked
child's line costs ~25 % more CPU (each page it first writes is copied). 0.42 and 0.5 measured
alike on the span and NER rounds of issue 31 (bench/README.md "2026-11-28 (3)"); less than half
since this process has the more to do."""


def _checked(
    name: str, tasks: Sequence[DisputedTask], lines: Iterable[bytes], checked: bool
) -> Iterator[bytes]:
    """``lines`` of field ``name``, each chunk looked at for a NaN unless ``checked`` (their
    numbers were checked to be finite): msgspec would write one as null."""
    for chunk in lines:
        if not checked and b"null" in chunk:  # else there is none
            check_finite({name: tasks}, DISPUTED_FILE)
            checked = True  # the whole field was checked
        yield chunk


def _by_columns(tasks: Sequence[DisputedTask]) -> TypeGuard[DisputedTable]:
    """Whether ``tasks``' lines may be made from their columns: a :class:`DisputedTable`'s,
    not empty, without the states ``adjudication:`` gives each task."""
    return isinstance(tasks, DisputedTable) and bool(tasks) and tasks.states is None


def _regions(tasks: Sequence[DisputedTask]) -> bool:
    """Whether ``tasks`` are a region field's whose lines are made from its columns (and so
    can be cut, :func:`_lines`)."""
    return _by_columns(tasks) and isinstance(tasks.units, RegionUnits) and encodable(tasks.units)


def _lines(
    tasks: Sequence[DisputedTask], cuts: Sequence[int] = ()
) -> tuple[list[Iterator[bytes]], bool]:
    """The lines of ``tasks``, a block at a time in review order, and whether their numbers
    were checked to be finite on the columns (a region field's). A :class:`DisputedTable`'s
    from its columns (what encoding its tasks one by one gives, without making them), unless
    two annotators share a name or the tasks carry their states (``adjudication:``). A region
    field's lines made from its columns are cut before the lines ``cuts`` (in review order)
    into ``len(cuts) + 1`` parts (one part: not cut), each made on its own."""
    if not _by_columns(tasks):
        return [iter([_ENCODER.encode_lines(list(tasks))])], False
    units = tasks.units
    if isinstance(units, RegionUnits):
        if not encodable(units):
            return [iter([_ENCODER.encode_lines(list(tasks))])], False
    elif len(set(units.names)) < len(units.names):  # two annotators of one name: one label
        return [iter([_ENCODER.encode_lines(list(tasks))])], False
    else:
        return [_table_lines(tasks)], False
    p = tasks.proposals
    values, finite = picked(p.value) if isinstance(p.value, Picked) else (each(p.value), False)
    consensus = [
        Consensus(msgspec.Raw(v), q, p.method, t) if h else None  # the regions' JSON, not copied
        for h, q, t, v in zip(p.has, p.posterior, p.tie, values, strict=True)
    ]
    # a region field's numbers are checked on its arrays, its proposals' too
    checked = (finite or not any(b"null" in v for v in values)) and all(
        map(math.isfinite, compress(p.posterior, p.has))
    )
    del values
    ids, score, priority = tasks.ids, tasks.score, p.priority
    field = repeat(tasks.name)

    def frame(ks: list[int]) -> list[bytes]:
        # each line with a mark where its details and where its labels go, cut there (JSON
        # text holds no NUL byte: msgspec escapes control characters in strings)
        lines = map(
            _LINE,
            map(ids.__getitem__, ks),
            repeat(_MARK),
            map(score.__getitem__, ks),
            field,
            repeat(_MARK),
            map(priority.__getitem__, ks),
            map(consensus.__getitem__, ks),
        )
        return _ENCODER.encode_lines(list(lines)).split(b"\x00")

    order, bounds = tasks.order, [0, *cuts, len(tasks.order)]
    return [region_lines(units, order[a:b], frame) for a, b in pairwise(bounds)], checked


_MARK = msgspec.Raw(b"\x00")


LINES = 50_000
"""Lines of a field without regions encoded at a time."""

_LINE = msgspec.defstruct(
    "Line",
    [
        ("id", Any),
        ("labels", Any),
        ("score", Any),
        ("field", str),
        ("details", Any, None),
        ("priority", Any, None),
        ("consensus", Any, None),
    ],
    omit_defaults=True,
    gc=False,
)
"""A region task's line as a struct: its proposal (its regions' JSON made from the columns,
as :class:`msgspec.Raw`), a mark where :func:`~.columns.region_lines` sets its details and its
labels; msgspec writes it, keys sorted, as the :class:`DisputedTask` of the same values."""


def _table_lines(tasks: DisputedTable) -> Iterator[bytes]:
    """The lines of a field without regions, :data:`LINES` at a time in review order: each
    value's JSON made for every task at once (:func:`each`), each line one bytes format of
    them, keys sorted as msgspec writes the :class:`DisputedTask` (a struct per line and
    msgspec's encoding of it took twice as long)."""
    units, p, order = tasks.units, tasks.proposals, tasks.order
    labels = _labels(units, tasks.at)
    ids, score, priority = each(tasks.ids), each(tasks.score), each(p.priority)
    posterior, value = each(p.posterior), each(list(p.value))
    tie = [b"true" if t else b"false" for t in p.tie]
    field = _ENCODER.encode(tasks.name).replace(b"%", b"%%")
    method = _ENCODER.encode(p.method).replace(b"%", b"%%")
    # a disputed task has a priority exactly when it has a proposal (ProposalColumns)
    proposed = (
        b'{"consensus":{"method":'
        + method
        + b',"posterior":%b,"tie":%b,"value":%b},"field":'
        + field
        + b',"id":%b,"labels":{%b},"priority":%b,"score":%b}\n'
    )
    alone = b'{"field":' + field + b',"id":%b,"labels":{%b},"score":%b}\n'
    has = p.has
    for a in range(0, len(order), LINES):
        yield b"".join(
            [
                proposed
                % (posterior[k], tie[k], value[k], ids[k], labels[k], priority[k], score[k])
                if has[k]
                else alone % (ids[k], labels[k], score[k])
                for k in order[a : a + LINES]
            ]
        )


def _labels(units: UnitTable, at: list[int]) -> list[bytes]:
    """Each unit ``at``'s labels as JSON, without its braces: ``"name":label,…``."""
    rows, spans = units.label_rows(at)
    pair = units.who[rows] * len(units.shown) + units.what[rows]  # (annotator, label) per row
    pairs, where = np.unique(pair, return_inverse=True)
    names, shown = each(units.names), each(units.shown)
    piece = [names[x // len(shown)] + b":" + shown[x % len(shown)] for x in pairs.tolist()]
    each_row = list(map(piece.__getitem__, where.reshape(-1).tolist()))
    return [b",".join(each_row[s:e]) for s, e in spans]
