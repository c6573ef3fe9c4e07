"""``consensus.jsonl``: the proposed answer of every task, one line per field and task, beside
``report.json`` (written with the ``json`` format).

A line: ``{"field", "id", "label", "posterior", "method", "disputed", "tie"}``. ``label`` is the
field's own answer: a label, a number, the list of labels of a multi-select field, or for a
region field the list of consensus regions (each a cluster's most probable label with its
median boundaries or box, ``posterior`` and ``tie``; a polygon: one of its regions' points).
``method`` says how it was found (``dawid-skene``, ``median``); ``tie``: the best answers are
equally likely, so ``label`` is one of them and nothing is settled. A task a person
adjudicated (``adjudication:``) has the adjudicated answer instead, with ``method``
``adjudicated`` and ``posterior`` null (it is a person's decision, not an estimate). Tasks
without a proposal (too few ratings, a free-text field) and no adjudicated answer have no
line. Lines come by field name, then task id; keys sorted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import repeat
from pathlib import Path
from typing import Any

import msgspec

from ...core.files import write_atomic
from ...evaluation.document import id_order
from ...evaluation.region_details import RegionProposals
from ...evaluation.results import STATUSES, FieldResult, Picked, UnitTable
from ...evaluation.sections import plain
from .columns import picked

FILENAME = "consensus.jsonl"


class ConsensusLine(msgspec.Struct, gc=False):
    """One line of :data:`FILENAME` (see the module docstring)."""

    field: str
    id: Any
    label: Any
    posterior: float | None
    method: str
    disputed: bool
    tie: bool


ADJUDICATED = "adjudicated"
"""The ``method`` of a line whose answer a person adjudicated."""


def lines(
    results: dict[str, FieldResult], final: Mapping[str, Mapping[Any, Any]] | None = None
) -> list[ConsensusLine]:
    """Every proposal of every field, by field name then task id; ``final``: field → task →
    its adjudicated answer, which replaces (or adds) the task's line."""
    out = _proposed(results)
    if not final:
        return out
    by_field: dict[str, dict[Any, ConsensusLine]] = {}
    for line in out:
        by_field.setdefault(line.field, {})[line.id] = line
    for name, answers in final.items():
        lines_of = by_field.setdefault(name, {})
        for task, answer in answers.items():
            was = lines_of.get(task)
            disputed = was.disputed if was is not None else False
            lines_of[task] = ConsensusLine(name, task, answer, None, ADJUDICATED, disputed, False)
    merged = []
    for name in sorted(by_field):
        ids = list(by_field[name])
        merged += [by_field[name][ids[k]] for k in id_order(ids)]
    return merged


def _proposed(results: dict[str, FieldResult]) -> list[ConsensusLine]:
    """Every proposal of every field, by field name then task id."""
    out = []
    for name in sorted(results):
        units = results[name].units
        if isinstance(units, UnitTable):  # from the columns, no object per unit
            p = units.proposals(range(len(units)))
            ids = units.ids
            disputed = (units.status == STATUSES.index("disputed")).tolist()
            out += [
                ConsensusLine(
                    name, ids[k], p.value[k], p.posterior[k], p.method, disputed[k], p.tie[k]
                )
                for k in id_order(ids)
                if p.has[k]
            ]
            continue
        proposed = [u for u in units if u.consensus is not None]
        out += [
            ConsensusLine(name, u.id, c.value, c.posterior, c.method, u.status == "disputed", c.tie)
            for k in id_order([u.id for u in proposed])
            if (c := (u := proposed[k]).consensus) is not None
        ]
    return out


_ENCODER = msgspec.json.Encoder(order="sorted", enc_hook=plain)


def render(
    results: dict[str, FieldResult], final: Mapping[str, Mapping[Any, Any]] | None = None
) -> bytes:
    """The file's content (``final``: see :func:`lines`); a region field's lines encoded from
    its columns (its lists of regions are not made), unless answers were adjudicated."""
    return b"".join(chunks(results, final))


def chunks(
    results: dict[str, FieldResult], final: Mapping[str, Mapping[Any, Any]] | None = None
) -> Iterator[bytes]:
    """:func:`render`'s content, a block of lines at a time (written as made, never whole)."""
    if final:
        yield _ENCODER.encode_lines(lines(results, final))
        return
    for name in sorted(results):
        yield from _encoded(name, results[name])


LINES = 8192
"""Lines of a region field encoded at a time (each holds its proposed regions, ~1 KB for a
NER text: the text of a block at a time is a few MB)."""


def _encoded(name: str, result: FieldResult) -> Iterator[bytes]:
    """Field ``name``'s lines (see :func:`render`), a block at a time: a region field's each a
    :class:`ConsensusLine` whose label is its proposed regions' JSON (:class:`msgspec.Raw`)."""
    units = result.units
    if isinstance(units, UnitTable):
        p = units.proposals(range(len(units)))
        if isinstance(p.value, Picked) and isinstance(p.value.values, RegionProposals):
            label = list(map(msgspec.Raw, picked(p.value)[0]))
            ids, posterior, tie = units.ids, p.posterior, p.tie
            disputed = (units.status == STATUSES.index("disputed")).tolist()
            at = [k for k in id_order(ids) if p.has[k]]
            for lo in range(0, len(at), LINES):
                ks = at[lo : lo + LINES]
                made = map(
                    ConsensusLine,
                    repeat(name),
                    map(ids.__getitem__, ks),
                    map(label.__getitem__, ks),
                    map(posterior.__getitem__, ks),
                    repeat(p.method),
                    map(disputed.__getitem__, ks),
                    map(tie.__getitem__, ks),
                )
                yield _ENCODER.encode_lines(list(made))
            return
    yield _ENCODER.encode_lines(_proposed({name: result}))


def write(
    out_dir: Path,
    results: dict[str, FieldResult],
    final: Mapping[str, Mapping[Any, Any]] | None = None,
) -> Path:
    """Write :data:`FILENAME` into ``out_dir``; returns its path (``final``: see
    :func:`lines`)."""
    path = out_dir / FILENAME
    write_atomic(path, chunks(results, final))
    return path
