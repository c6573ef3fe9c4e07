"""JSON text encoded from columns, as the report's encoder writes the same values in objects:
each value of a list (:func:`each`), and a region field's disputed tasks (:func:`region_lines`),
each region's JSON made once and each task's pieces joined, with no dict per region.

The tests hold both to encoding the objects (``tests/test_region_lines.py``,
``tests/test_unit_table.py``): keys sorted, byte for byte.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from itertools import compress, pairwise, repeat
from typing import Any

import msgspec
import numpy as np

from ...core import progress
from ...evaluation.region_details import Disputes, RegionColumns, RegionProposals, RegionUnits
from ...evaluation.results import Picked
from ...evaluation.sections import RelationDecision, plain
from ...metrics import KINDS

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


def _objects(columns: dict[str, list[Any]], optional: dict[str, list[Any]]) -> list[bytes]:
    """One JSON object per row of ``columns`` (key → each row's value) and ``optional`` (the
    same, a None left out), keys sorted, as encoding the rows as dicts gives them."""
    record = _record(tuple(columns), tuple(optional))
    return each(list(map(record, *columns.values(), *optional.values())))


def regions(c: RegionColumns) -> list[bytes]:
    """Each region's JSON, as encoding :meth:`RegionColumns.dicts` gives it."""
    columns: dict[str, list[Any]] = {"id": c.ids, "label": c.labels}
    if c.points:
        columns["points"] = c.points
    else:
        for j, key in enumerate(c.keys):
            columns[key] = c.geo[:, j].tolist()
    return _objects(columns, {"text": c.texts} if c.texts else {})


def proposals(p: RegionProposals) -> list[bytes]:
    """Each unit's proposed regions as JSON (a list), as encoding ``p[u]`` gives it."""
    r = p.regions
    columns: dict[str, list[Any]] = {"label": r.labels, "posterior": r.posterior, "tie": r.tie}
    optional: dict[str, list[Any]] = {"text": r.texts} if r.texts else {}
    if r.points:
        optional["points"] = r.points
    else:
        for j, key in enumerate(r.keys):
            columns[key] = [g[j] for g in r.geos]
    piece = _objects(columns, optional)
    return [b"[" + b",".join(piece[a:b]) + b"]" for a, b in pairwise(p.start)]


def picked(values: Picked) -> tuple[list[bytes], bool]:
    """Each of ``values`` as JSON (null where it has none) and whether every number in them is
    known to be finite (a region field's proposals, from their arrays)."""
    proposed = values.values
    if not isinstance(proposed, RegionProposals) or values.changed:
        return each(list(values)), False
    piece = proposals(proposed)
    out = [piece[r] if h else b"null" for r, h in zip(values.rows, values.has, strict=True)]
    return out, proposed.regions.finite


BLOCK = 2048
"""Disputed tasks encoded at a time: a block's pieces (a few per region) are dropped before the
next block's are made, so the pieces add little to the lines' own size."""


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
    if not np.isfinite(d.describer.geometry).all() or not all(map(np.isfinite, d.low_score)):
        return False
    points = d.m.regions.points
    return not (d.describer.polygon and points and not all(np.isfinite(p).all() for p in points))


def region_lines(units: RegionUnits) -> Iterator[tuple[list[bytes], list[bytes]]]:
    """Each disputed unit's details and labels as JSON, labels without their braces, a block
    of units at a time (entry ``k`` of them all: unit ``units.where("disputed")[k]``), as
    encoding its :class:`~.sections.Details` and labels gives them (``units`` must be
    :func:`encodable`)."""
    d = units.disputes
    block = _Block(d)
    starts = list(range(0, len(d), BLOCK))  # a long round says how long, as describing did
    for lo in progress.estimated("describe disputed tasks", starts, "blocks of tasks", sample=1):
        yield block.lines(lo, min(lo + BLOCK, len(d)))


class _Block:
    """Encodes the disputed tasks of :class:`Disputes` ``d`` a block at a time (:meth:`lines`);
    what all blocks share is made once."""

    def __init__(self, d: Disputes) -> None:
        self.d, names = d, d.m.names
        n_ann = len(names)
        self.order = sorted(range(n_ann), key=names.__getitem__)  # the encoder sorts dict keys
        self.rank = np.empty(n_ann, dtype=np.int64)
        self.rank[self.order] = np.arange(n_ann)
        self.name = each(names)
        self.key = [self.name[a] + b":" for a in self.order]  # by rank
        self.kind = each(list(KINDS))
        self.value = each(d.values)
        self.pos = np.zeros(d.m.regions.n, dtype=np.int64)  # a region's row in its block

    def lines(self, lo: int, hi: int) -> tuple[list[bytes], list[bytes]]:
        """Tasks ``lo:hi``'s details and labels (see :func:`region_lines`)."""
        d, reg, key, n_ann = self.d, self.d.m.regions, self.key, len(self.order)
        first, last = d.bounds[lo], d.bounds[hi]
        rows = d.rows[first:last]
        n = len(rows)
        c = d.describer.columns(rows)
        piece = regions(c)
        line = each(c.lines())
        del c
        # each rater's regions, by name (those they rated without a region: an empty list)
        counts = np.diff(np.asarray(d.bounds[lo : hi + 1], dtype=np.int64))
        group = np.repeat(np.arange(hi - lo), counts) * n_ann + self.rank[reg.annotator[rows]]
        perm = np.lexsort((np.arange(n), group))
        group = group[perm]
        rated = reg.rated[d.units[lo:hi]][:, self.order]
        kk, jj = np.nonzero(rated)
        wanted = kk * n_ann + jj
        s = np.searchsorted(group, wanted).tolist()
        e = np.searchsorted(group, wanted, side="right").tolist()
        at = perm.tolist()
        piece_perm = list(map(piece.__getitem__, at))
        line_perm = list(map(line.__getitem__, at))
        del line
        js = jj.tolist()
        by_rater = [
            key[j] + b"[" + b",".join(piece_perm[a:b]) + b"]"
            for j, a, b in zip(js, s, e, strict=True)
        ]
        lines_by_rater = [
            key[j] + b"[" + b",".join(line_perm[a:b]) + b"]"
            for j, a, b in zip(js, s, e, strict=True)
        ]
        del piece_perm, line_perm
        spans = list(pairwise(np.concatenate(([0], np.cumsum(rated.sum(axis=1)))).tolist()))
        labels = [b",".join(lines_by_rater[a:b]) for a, b in spans]
        per_rater = [b",".join(by_rater[a:b]) for a, b in spans]
        del by_rater, lines_by_rater
        # the disagreements: each region's JSON and its counterpart's (null: none)
        pos, with_null = self.pos, [*piece, b"null"]
        pos[rows] = np.arange(n)
        ds, de = d.d_start[lo], d.d_end[hi - 1]
        other_end = d.d_counterpart[ds:de]
        counterpart = np.where(other_end >= 0, pos[other_end], n)
        name = self.name
        disagreement = list(
            map(
                b"".join,
                zip(
                    repeat(b'{"annotator":'), map(name.__getitem__, d.d_owner[ds:de].tolist()),
                    repeat(b',"counterpart":'), map(with_null.__getitem__, counterpart.tolist()),
                    repeat(b',"kind":'), map(self.kind.__getitem__, d.d_kind[ds:de].tolist()),
                    repeat(b',"other":'), map(name.__getitem__, d.d_other[ds:de].tolist()),
                    repeat(b',"region":'),
                    map(with_null.__getitem__, pos[d.d_region[ds:de]].tolist()),
                    repeat(b"}"),
                ),
            )
        )  # fmt: skip
        # the lowest region: each rater's label in it (by name), its regions, its score
        value = self.value
        patterns, which = np.unique(d.low_codes[lo:hi][:, self.order], axis=0, return_inverse=True)
        low_labels = [
            b",".join(key[j] + value[x] for j, x in enumerate(p) if x >= 0)
            for p in patterns.tolist()
        ]
        member = d.member[first:last].tolist()
        low_score = each(d.low_score[lo:hi])
        after = self.after(lo, hi)
        details = []
        for k, w in enumerate(which.reshape(-1).tolist()):
            a, b = d.bounds[lo + k] - first, d.bounds[lo + k + 1] - first
            details.append(
                b"".join(
                    (
                        b'{"disagreements":[',
                        b",".join(disagreement[d.d_start[lo + k] - ds : d.d_end[lo + k] - ds]),
                        b'],"region":{"labels":{',
                        low_labels[w],
                        b'},"regions":[',
                        b",".join(compress(piece[a:b], member[a:b])),
                        b'],"score":',
                        low_score[k],
                        b'},"regions":{',
                        per_rater[k],
                        b"}",
                        after[k],
                        b"}",
                    )
                )
            )
        return details, labels

    def after(self, lo: int, hi: int) -> list[bytes]:
        """Tasks ``lo:hi``'s details after their regions: the lowest relation, the relations' F1
        and the text excerpt, each where the task has one."""
        d = self.d
        out = [b""] * (hi - lo)
        rel = d.cl.relations
        for k in range(lo, hi):
            j = d.relation[k]
            if j >= 0 and rel is not None:
                decision = RelationDecision(round(float(rel.score[j]), 6), d.relation_labels(j))
                out[k - lo] = b',"relation":' + _ENCODER.encode(decision)
        if d.relations is not None:
            f1 = [d.relations_f1(k) for k in range(lo, hi)]
            out = [
                r if x is None else r + b',"relations_f1":' + e
                for r, x, e in zip(out, f1, each(f1), strict=True)
            ]
        if d.m.regions.shape.linear:
            excerpts = [d.excerpt(k) for k in range(lo, hi)]
            out = [
                r if x is None else r + b',"text":' + e
                for r, x, e in zip(out, excerpts, each(excerpts), strict=True)
            ]
        return out
