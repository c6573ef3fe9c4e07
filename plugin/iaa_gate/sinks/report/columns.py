"""JSON text encoded from columns, as the report's encoder writes the same values in objects:
each value of a list (:func:`each`), and a region field's disputed tasks (:func:`region_lines`):
each region's JSON made once (a struct per row, made in C), and a block of tasks' lines one
join of pieces (each rater's list of regions one slice of their JSON text, the regions' JSON
and the keys, names and brackets between them), placed by counts from the columns, with no
struct or dict per region, disagreement or rater.

The tests hold both to encoding the objects (``tests/test_region_lines.py``,
``tests/test_unit_table.py``): keys sorted, byte for byte.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any, cast

import msgspec
import numpy as np

from ... import metrics
from ...core import progress
from ...evaluation.region_details import (
    Disputes,
    RegionColumns,
    RegionProposals,
    RegionUnits,
    take,
)
from ...evaluation.results import Picked
from ...evaluation.sections import RelationDecision, plain

_ENCODER = msgspec.json.Encoder(order="sorted", enc_hook=plain)


def each(values: list[Any]) -> list[bytes]:
    """Each value's JSON text, as the report's encoder writes it (one call for all).

    Parameters
    ----------
    values : list
        JSON-able values (numpy scalars as the report's ``enc_hook`` takes them).

    Returns
    -------
    list of bytes
        One JSON text per value.

    Examples
    --------
    >>> each([1, "a", None, 0.5, {"b": 1, "a": [2]}])
    [b'1', b'"a"', b'null', b'0.5', b'{"a":[2],"b":1}']
    """
    return _ENCODER.encode_lines(values).split(b"\n")[:-1]


@functools.cache
def _record(keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> type[msgspec.Struct]:
    """A struct of fields ``keys`` then ``optional`` (left out where None): one row of columns
    made in C and encoded as the dict of the same keys is (the encoder sorts the keys)."""
    fields: list[Any] = [(k, Any) for k in keys] + [(k, Any, None) for k in optional]
    return msgspec.defstruct("Record", fields, omit_defaults=True, gc=False)


def _rows(columns: dict[str, list[Any]], optional: dict[str, list[Any]]) -> list[Any]:
    """One struct per row of ``columns`` (key → each row's value) and ``optional`` (the same,
    a None left out), made in C, which msgspec encodes as the row's dict: keys sorted."""
    record = _record(tuple(columns), tuple(optional))
    return list(map(record, *columns.values(), *optional.values()))


def region_rows(c: RegionColumns) -> list[Any]:
    """Each region as a struct that encodes as :meth:`RegionColumns.dicts` gives it."""
    columns: dict[str, list[Any]] = {"id": c.ids, "label": c.labels}
    if c.points:
        columns["points"] = c.points
    else:
        columns.update(zip(c.keys, c.geo_columns, strict=False))
    return _rows(columns, {"text": c.texts} if c.texts else {})


def regions(c: RegionColumns) -> bytes:
    """Each region's JSON, a line each, as encoding :meth:`RegionColumns.dicts` gives it."""
    return _ENCODER.encode_lines(region_rows(c))


def _slices(items: list[Any], bounds: list[int]) -> list[Any]:
    """``items[bounds[i]:bounds[i + 1]]`` for each ``i`` (sliced in C)."""
    return list(map(items.__getitem__, map(slice, bounds[:-1], bounds[1:])))


def proposals(p: RegionProposals) -> list[bytes]:
    """Each unit's proposed regions as JSON (a list), as encoding ``p[u]`` gives it. Both files
    that write them (``disputed-tasks.jsonl``, ``consensus.jsonl``) ask: what the first asks
    for is kept on ``p`` (:attr:`~.RegionProposals.encoded`) and the second takes it, so they
    are made once and not held after both are written."""
    if (made := p.encoded) is not None:
        p.encoded = None
        return made
    p.encoded = made = _proposals(p)
    return made


def _proposals(p: RegionProposals) -> list[bytes]:
    """:func:`proposals`, made: a part of :data:`UNITS` units at a time, so only one part's
    structs and text are held besides."""
    r, out = p.regions, []
    for a in range(0, len(p), UNITS):
        bounds = p.start[a : a + UNITS + 1]
        lo, hi = bounds[0], bounds[-1]
        columns: dict[str, list[Any]] = {
            "label": r.labels[lo:hi],
            "posterior": r.posterior[lo:hi],
            "tie": r.tie[lo:hi],
        }
        optional: dict[str, list[Any]] = {"text": r.texts[lo:hi]} if r.texts else {}
        if r.points:
            optional["points"] = r.points[lo:hi]
        else:
            for j, key in enumerate(r.keys):
                columns[key] = list(map(itemgetter(j), r.geos[lo:hi]))
        structs = _rows(columns, optional)
        out += each(_slices(structs, [x - lo for x in bounds]))  # a list of structs per unit
    return out


UNITS = 8192
"""Units whose proposed regions are encoded at a time (a part's structs and JSON text go
before the next part's are made)."""


def picked(values: Picked) -> tuple[list[bytes], bool]:
    """Each of ``values`` as JSON (null where it has none) and whether every number in them is
    known to be finite (a region field's proposals, from their arrays)."""
    proposed = values.values
    if not isinstance(proposed, RegionProposals) or values.changed:
        return each(list(values)), False
    piece = proposals(proposed)
    out = [piece[r] if h else b"null" for r, h in zip(values.rows, values.has, strict=True)]
    return out, proposed.regions.finite


BLOCK = 1024
"""Disputed tasks encoded at a time, in review order: a block's lines are written before the
next block's are made, so neither its pieces nor the file are held whole. A smaller block
touches fewer pages: 100,000 Prodigy NER texts, page faults 344k -> 287k in one process and
447k -> 412k with a forked child writing a part (each page a process first writes after a fork
is copied); 512 faulted less still but took more CPU."""
JOINED = 256
"""Lines of a block joined into one chunk of the file: ``bytes.join`` holds a buffer
descriptor (80 bytes) per piece while it joins, 37 MB for a block of NER texts at once."""


def encodable(units: RegionUnits) -> bool:
    """Whether :func:`region_lines` can encode ``units``' disputed tasks from the columns: not
    when two annotators share a name (their regions are then listed under it together), or a
    number is not finite (the general encoding names where). Every float :func:`region_lines`
    writes comes from the arrays checked here; a relation's F1 that is undefined is left out,
    as in the objects."""
    d = units.disputes
    names = d.m.names
    if len(set(names)) < len(names):
        return False
    if not np.isfinite(d.describer.geometry).all() or not all(map(math.isfinite, d.low_score)):
        return False
    points = d.m.regions.points
    return not (d.describer.polygon and points and not all(np.isfinite(p).all() for p in points))


def region_lines(
    units: RegionUnits, order: list[int], frame: Callable[[list[int]], list[bytes]]
) -> Iterator[bytes]:
    """The lines of ``units``' disputed tasks (``units`` must be :func:`encodable`), a block at
    a time, in ``order`` (entry ``k``: unit ``units.where("disputed")[k]``): each one's
    :class:`~.sections.Details` and labels (each rater's regions as lines of text) made from
    the columns as msgspec encodes the described tasks', set in the line's ``frame``.
    ``frame(ks)``: the text of entries ``ks``' lines around their details and labels, ``2 *
    len(ks) + 1`` pieces: before the first details, then per entry between its details and its
    labels, and after its labels (to the next entry's details). A block's lines are written
    (in chunks of :data:`JOINED` lines) before the next block is made, so the file is never
    held whole."""
    block = _Block(units.disputes)
    starts = list(range(0, len(order), BLOCK))  # a long round says how long, as describing did
    for lo in progress.estimated("describe disputed tasks", starts, "blocks of tasks", sample=1):
        ks = order[lo : lo + BLOCK]
        yield from block.lines(ks, frame(ks))


def _bounds(counts: np.ndarray[Any, Any]) -> list[int]:
    """Where consecutive groups of ``counts`` items start, and the end of the last."""
    return cast(list[int], np.concatenate(([0], np.cumsum(counts))).tolist())


def _interleave(
    sections: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Each group's pieces: its part of each section in turn. A section is its ``pieces``, group
    0's first, one group after another, and ``counts``, how many each group has (``(G,)``).
    Returns the pieces so laid out and how many each group has; a piece's place comes from
    counts, so nothing is sorted."""
    counts = np.stack([c for _, c in sections], axis=1)  # (G, S)
    start = (np.cumsum(counts) - counts.ravel()).reshape(counts.shape)  # group g's section s
    out = np.empty(int(counts.sum()), dtype=np.int64)
    for s, (pieces, c) in enumerate(sections):  # a piece: its group's start, then its rank
        out[np.repeat(start[:, s] - (np.cumsum(c) - c), c) + np.arange(len(pieces))] = pieces
    return out, counts.sum(axis=1)


def _listed(
    items: np.ndarray[Any, Any], sizes: np.ndarray[Any, Any], sep: int, last: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Groups of ``sizes`` items (``items``: ``(M, w)``, each item's pieces, one group after
    another), each item followed by piece ``sep``, the last of its group by ``last``: the
    pieces and how many each group has (a section of :func:`_interleave`)."""
    after = np.full(len(items), sep, dtype=np.int64)
    after[(np.cumsum(sizes) - 1)[sizes > 0]] = last
    return np.column_stack((items, after)).ravel(), sizes * (items.shape[1] + 1)


def _runs(text: bytes, lo: np.ndarray[Any, Any], hi: np.ndarray[Any, Any]) -> list[bytes]:
    """The JSON lists (without brackets) of items ``lo[i]:hi[i]`` of ``text``, one JSON text a
    line: each run a slice of the text with commas for its line ends (JSON text holds no
    newline: msgspec escapes control characters in strings)."""
    start = np.r_[0, np.flatnonzero(np.frombuffer(text, np.uint8) == ord("\n")) + 1]
    end = np.where(hi > lo, start[hi] - 1, start[lo])  # the last item's line end left out
    joined = text.replace(b"\n", b",")
    return list(map(joined.__getitem__, map(slice, start[lo].tolist(), end.tolist())))


def _one(pieces: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A section of one piece per group (``pieces``: each group's)."""
    return pieces, np.ones(len(pieces), dtype=np.int64)


_FIXED = [b"", b",", b"null", b"}", b"]}", b'{"disagreements":[', b"{"]
_EMPTY, _COMMA, _NULL, _SHUT, _SHUT_LIST, _DETAILS, _OPEN = range(len(_FIXED))
"""Pieces every block has, and their places in its pieces."""


class _Block:
    """Encodes the disputed tasks of :class:`Disputes` ``d`` a block at a time (:meth:`lines`)
    as one join of pieces: each rater's list of regions (and of lines of text) as one piece,
    each region's JSON for the disagreements and the lowest region, and the keys, names and
    brackets between them, made once for all blocks."""

    def __init__(self, d: Disputes) -> None:
        self.d, names = d, d.m.names
        n_ann = len(names)
        self.order = sorted(range(n_ann), key=names.__getitem__)  # the encoder sorts dict keys
        self.rank = np.empty(n_ann, dtype=np.int64)
        self.rank[self.order] = np.arange(n_ann)
        self.name = [names[a] for a in self.order]  # by rank
        self.pos = np.zeros(d.m.regions.n, dtype=np.int64)  # a region's piece in its block
        # a disagreement: {"annotator":A,"counterpart":C,"kind":K,"other":O,"region":R}, the
        # one before it closed by its start (after the first: },{"annotator":A …)
        named, kinds = each(names), each(list(metrics.KINDS))
        owner = [b'{"annotator":' + a + b',"counterpart":' for a in named]
        self.heads = owner + [b"}," + h for h in owner]
        self.others = [
            b',"kind":' + k + b',"other":' + o + b',"region":' for k in kinds for o in named
        ]
        # a rater's list of regions (or lines): "name":[ (after the first: ],"name":[)
        keys = [k + b":[" for k in each(self.name)]
        self.fixed = [*_FIXED, *self.heads, *self.others, *keys, *(b"]," + k for k in keys)]
        self.head, self.other = len(_FIXED), len(_FIXED) + len(self.heads)
        self.key = self.other + len(self.others)

    def lines(self, ks: list[int], frame: list[bytes]) -> Iterator[bytes]:
        """Entries ``ks``' lines in their ``frame`` (see :func:`region_lines`): the pieces of
        each, laid out by :func:`_interleave` and joined :data:`JOINED` lines at a time."""
        d, reg, n_ann = self.d, self.d.m.regions, len(self.order)
        at = d.task_rows(ks)
        rows = d.rows[at]
        n, kk, k = len(rows), np.asarray(ks, dtype=np.int64), np.arange(len(ks))
        counts = d.starts[kk + 1] - d.starts[kk]
        # the regions by rater (by name), each rater's in the task's order: a rater's list is
        # then one run of them, its JSON one slice of their text
        group = np.repeat(k, counts) * n_ann + self.rank[reg.annotator[rows]]
        perm = np.argsort(group, kind="stable")
        group = group[perm]
        c = d.describer.columns(rows[perm])
        text, shown = regions(c), _ENCODER.encode_lines(c.lines())
        del c
        region = text.split(b"\n")[:-1]  # each region's JSON, for the disagreements and lowest
        # each rater's list (those who rated a task without a region: an empty one); a region
        # whose rater did not rate its task is in none (every kept region's rater did)
        rated = reg.rated[d.units[kk]][:, self.order]
        ii, jj = np.nonzero(rated)
        wanted = ii * n_ann + jj
        lo, hi = np.searchsorted(group, wanted), np.searchsorted(group, wanted, side="right")
        listed = rated.any(axis=1)
        pieces: list[Any] = [*self.fixed, *frame, *region, *_runs(text, lo, hi)]
        at_frame, at_region = len(self.fixed), len(self.fixed) + len(frame)
        at_runs = at_region + n
        pieces += _runs(shown, lo, hi)
        del region, text, shown
        keys = self.key + jj + np.where(np.r_[True, ii[1:] != ii[:-1]][: len(ii)], 0, n_ann)
        per_rater = np.bincount(ii, minlength=len(ks)) * 2

        def by_rater(at: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
            return np.column_stack((keys, at + np.arange(len(ii)))).ravel(), per_rater

        # the disagreements: each region and its counterpart; without one, a piece of all
        # before the region (the few its owner, kind and other make in a block)
        pos = self.pos
        pos[rows[perm]] = at_region + np.arange(n)
        which = d.disagreement_rows(ks)
        n_dis = d.d_count[kk]
        later = np.ones(len(which), dtype=np.int64)
        later[(np.cumsum(n_dis) - n_dis)[n_dis > 0]] = 0
        head = d.d_owner[which] + later * n_ann
        other = d.d_kind[which] * n_ann + d.d_other[which]
        counterpart = d.d_counterpart[which]
        alone = counterpart < 0
        made, made_at = np.unique((head * len(self.others) + other)[alone], return_inverse=True)
        at_alone = len(pieces)
        pieces += [
            self.heads[h // len(self.others)] + b"null" + self.others[h % len(self.others)]
            for h in made.tolist()
        ]
        items = np.column_stack(
            (
                np.where(alone, -1, self.head + head),
                np.where(alone, -1, pos[counterpart]),
                np.where(alone, -1, self.other + other),
                pos[d.d_region[which]],
            )
        )
        items[alone, 0] = at_alone + made_at.reshape(-1)
        flat = items.ravel()
        disagreements = (
            flat[flat >= 0],
            np.bincount(
                np.repeat(k, n_dis), weights=np.where(alone, 2, 4), minlength=len(ks)
            ).astype(np.int64),
        )
        # the lowest region: each rater's label in it (by name), its regions, its score
        values = d.values
        patterns, by = np.unique(d.low_codes[kk][:, self.order], axis=0, return_inverse=True)
        low_labels = [
            {self.name[j]: values[x] for j, x in enumerate(p) if x >= 0} for p in patterns.tolist()
        ]
        low_rows = np.flatnonzero(d.member[at])
        in_lowest = np.bincount(np.repeat(k, counts)[low_rows], minlength=len(ks))
        lowest = _listed(pos[rows[low_rows]][:, None], in_lowest, _COMMA, _EMPTY)
        at_low = len(pieces)
        low = [b'],"region":{"labels":' + x + b',"regions":[' for x in each(low_labels)]
        pieces += low + [b"}" + x for x in low]  # after a disagreement: closes it too
        at_score = len(pieces)
        scores = each(list(map(d.low_score.__getitem__, ks)))
        pieces += [b'],"score":' + x + b'},"regions":{' for x in scores]
        at_after = len(pieces)
        close = {True: (b"]}}", b"]},"), False: (b"}}", b"},")}  # a rater's list too, if any
        pieces += [
            close[h][0] if x == b"{}" else close[h][1] + x[1:]
            for x, h in zip(self.after(ks), listed.tolist(), strict=True)
        ]
        start = np.zeros(len(ks), dtype=np.int64)
        start[:1] = 1
        out, per_task = _interleave(
            [
                (np.full(int(start.sum()), at_frame), start),  # the first line's start
                _one(np.full(len(ks), _DETAILS)),
                disagreements,
                _one(at_low + by.reshape(-1) + len(low) * (n_dis > 0)),
                lowest,
                _one(at_score + k),
                by_rater(at_runs),
                _one(at_after + k),
                _one(at_frame + 1 + 2 * k),  # between the details and the labels
                _one(np.full(len(ks), _OPEN)),
                by_rater(at_runs + len(ii)),
                _one(np.where(listed, _SHUT_LIST, _SHUT)),
                _one(at_frame + 2 + 2 * k),  # after the labels
            ]
        )
        every = take(pieces, out)
        del pieces, out
        ends = _bounds(per_task)[:-1][::JOINED]  # where each chunk's first line starts
        return map(b"".join, map(every.__getitem__, map(slice, ends, [*ends[1:], len(every)])))

    def after(self, ks: list[int]) -> list[bytes]:
        """Entries ``ks``' text excerpt, lowest relation and relations' F1 as JSON, an object
        of those each task has (spans with a known text; with relations, where it is the
        lowest decision; defined)."""
        d = self.d
        none: list[Any] = [None] * len(ks)
        text, relation, f1 = none, list(none), none
        rel = d.cl.relations
        for i, k in enumerate(ks):
            j = d.relation[k]
            if j >= 0 and rel is not None:
                score = round(float(rel.score[j]), 6)
                relation[i] = RelationDecision(score, d.relation_labels(j))
        if d.relations is not None:
            f1 = list(map(d.relations_f1, ks))
        if d.m.regions.shape.linear:
            text = d.excerpts(ks)
        return each(_rows({}, {"relation": relation, "relations_f1": f1, "text": text}))
