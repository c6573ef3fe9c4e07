"""JSON text encoded from columns, as the report's encoder writes the same values in objects:
each value of a list (:func:`each`), and a region field's disputed tasks (:func:`region_lines`):
each region's JSON made once (a struct per row, made in C) and each task a :class:`Details`
of structs holding it as :class:`msgspec.Raw`, with no dict per region.

The tests hold both to encoding the objects (``tests/test_region_lines.py``,
``tests/test_unit_table.py``): keys sorted, byte for byte.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from itertools import compress
from typing import Any, cast

import msgspec
import numpy as np
from msgspec import UNSET

from ...core import progress
from ...evaluation.region_details import Disputes, RegionColumns, RegionProposals, RegionUnits
from ...evaluation.results import Picked
from ...evaluation.sections import Details, Disagreement, LowestRegion, RelationDecision, plain
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
        for j, key in enumerate(c.keys):
            columns[key] = c.geo[:, j].tolist()
    return _rows(columns, {"text": c.texts} if c.texts else {})


def regions(c: RegionColumns) -> list[bytes]:
    """Each region's JSON, as encoding :meth:`RegionColumns.dicts` gives it."""
    return each(region_rows(c))


def _slices(items: list[Any], bounds: list[int]) -> list[Any]:
    """``items[bounds[i]:bounds[i + 1]]`` for each ``i`` (sliced in C)."""
    return list(map(items.__getitem__, map(slice, bounds[:-1], bounds[1:])))


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
    return each(_slices(_rows(columns, optional), p.start))  # a list of structs per unit


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
"""Disputed tasks encoded at a time, in review order: a block's lines are written before the
next block's are made, so neither its pieces nor the file are held whole."""


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
    units: RegionUnits, order: list[int]
) -> Iterator[tuple[list[int], list[Details], list[dict[str, list[str]]]]]:
    """Each disputed unit's :class:`~.sections.Details` and labels (each rater's regions as
    lines of text), made from the columns and encoded by msgspec as the described tasks' are
    (``units`` must be :func:`encodable`): a block of entries at a time, in ``order`` (entry
    ``k``: unit ``units.where("disputed")[k]``), each block with its entries. A block's lines
    are written before the next block is made, so the file is never held whole."""
    d = units.disputes
    block = _Block(d)
    starts = list(range(0, len(d), BLOCK))  # a long round says how long, as describing did
    for lo in progress.estimated("describe disputed tasks", starts, "blocks of tasks", sample=1):
        ks = order[lo : lo + BLOCK]
        yield (ks, *block.lines(ks))


def _bounds(counts: np.ndarray[Any, Any]) -> list[int]:
    """Where consecutive groups of ``counts`` items start, and the end of the last."""
    return cast(list[int], np.concatenate(([0], np.cumsum(counts))).tolist())


class _Block:
    """Encodes the disputed tasks of :class:`Disputes` ``d`` a block at a time (:meth:`lines`);
    what all blocks share is made once."""

    def __init__(self, d: Disputes) -> None:
        self.d, names = d, d.m.names
        n_ann = len(names)
        self.order = sorted(range(n_ann), key=names.__getitem__)  # the encoder sorts dict keys
        self.rank = np.empty(n_ann, dtype=np.int64)
        self.rank[self.order] = np.arange(n_ann)
        self.name = [names[a] for a in self.order]  # by rank
        self.pos = np.zeros(d.m.regions.n, dtype=np.int64)  # a region's row in its block

    def lines(self, ks: list[int]) -> tuple[list[Details], list[dict[str, list[str]]]]:
        """Entries ``ks``' details and labels (see :func:`region_lines`): each region a struct
        made in C and shared by the lists that hold it, so msgspec encodes each task whole."""
        d, reg, n_ann = self.d, self.d.m.regions, len(self.order)
        at = d.task_rows(ks)
        rows = d.rows[at]
        n, kk = len(rows), np.asarray(ks, dtype=np.int64)
        c = d.describer.columns(rows)
        region: list[Any] = list(map(msgspec.Raw, regions(c)))  # each region's JSON made once
        line = c.lines()
        del c
        # each rater's regions, by name (those they rated without a region: an empty list)
        counts = d.starts[kk + 1] - d.starts[kk]
        group = np.repeat(np.arange(len(ks)), counts) * n_ann + self.rank[reg.annotator[rows]]
        perm = np.lexsort((np.arange(n), group))
        group = group[perm]
        rated = reg.rated[d.units[kk]][:, self.order]
        ii, jj = np.nonzero(rated)
        wanted = ii * n_ann + jj
        first = np.searchsorted(group, wanted).tolist()
        end = np.searchsorted(group, wanted, side="right").tolist()
        names = list(map(self.name.__getitem__, jj.tolist()))
        at_perm, by_task = perm.tolist(), _bounds(rated.sum(axis=1))

        def by_rater(items: list[Any]) -> list[Any]:  # per task: rater name → their items
            groups = map(list(map(items.__getitem__, at_perm)).__getitem__, map(slice, first, end))
            return list(map(dict, _slices(list(zip(names, groups, strict=True)), by_task)))

        regions_of, lines_of = by_rater(region), by_rater(line)
        del line
        # the disagreements: each region and its counterpart (None: none)
        pos, with_none = self.pos, [*region, None]
        pos[rows] = np.arange(n)
        which = d.disagreement_rows(ks)
        other_end = d.d_counterpart[which]
        counterpart = np.where(other_end >= 0, pos[other_end], n)
        every = d.m.names
        disagreement = list(
            map(
                Disagreement,
                map(KINDS.__getitem__, d.d_kind[which].tolist()),
                map(every.__getitem__, d.d_owner[which].tolist()),
                map(with_none.__getitem__, pos[d.d_region[which]].tolist()),
                map(every.__getitem__, d.d_other[which].tolist()),
                map(with_none.__getitem__, counterpart.tolist()),
            )
        )
        disagreements = _slices(disagreement, _bounds(d.d_count[kk]))
        del disagreement
        # the lowest region: each rater's label in it (by name), its regions, its score
        values = d.values
        patterns, by = np.unique(d.low_codes[kk][:, self.order], axis=0, return_inverse=True)
        low_labels = [
            {self.name[j]: values[x] for j, x in enumerate(p) if x >= 0} for p in patterns.tolist()
        ]
        kept = d.member[at]
        in_lowest = np.concatenate(([0], np.cumsum(kept)))[_bounds(counts)]
        lowest = map(
            LowestRegion,
            map(d.low_score.__getitem__, ks),
            map(low_labels.__getitem__, by.reshape(-1).tolist()),
            _slices(list(compress(region, kept.tolist())), in_lowest.tolist()),
        )
        details = list(map(Details, regions_of, disagreements, lowest, *self.after(ks)))
        return details, lines_of

    def after(self, ks: list[int]) -> tuple[list[Any], list[Any], list[Any]]:
        """Entries ``ks``' text excerpt, lowest relation and relations' F1, each UNSET where the
        task has none (spans with a known text; with relations, where it is the lowest
        decision; defined)."""
        d = self.d
        unset: list[Any] = [UNSET] * len(ks)
        text, relation, f1 = unset, list(unset), unset
        rel = d.cl.relations
        for i, k in enumerate(ks):
            j = d.relation[k]
            if j >= 0 and rel is not None:
                score = round(float(rel.score[j]), 6)
                relation[i] = RelationDecision(score, d.relation_labels(j))
        if d.relations is not None:
            f1 = [UNSET if (x := d.relations_f1(k)) is None else x for k in ks]
        if d.m.regions.shape.linear:
            text = [UNSET if (e := d.excerpt(k)) is None else e for k in ks]
        return text, relation, f1
