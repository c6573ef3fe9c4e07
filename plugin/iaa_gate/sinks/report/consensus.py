"""``consensus.jsonl``: the proposed answer of every task, one line per field and task, beside
``report.json`` (written with the ``json`` format).

A line: ``{"field", "id", "label", "posterior", "method", "disputed", "tie"}``. ``label`` is the
field's own answer: a label, a number, the list of labels of a multi-select field, or for a
region field the list of consensus regions (each a cluster's most probable label with its
median boundaries or box, ``posterior`` and ``tie``; a polygon: one of its regions' points).
``method`` says how it was found (``dawid-skene``, ``median``); ``tie``: the best answers are
equally likely, so ``label`` is one of them and nothing is settled. Tasks without a proposal
(too few ratings, a free-text field) have no line. Lines come by field name, then task id;
keys sorted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from ...core.files import write_atomic
from ...evaluation.document import id_order
from ...evaluation.results import STATUSES, FieldResult, UnitTable
from ...evaluation.sections import plain

FILENAME = "consensus.jsonl"


class ConsensusLine(msgspec.Struct, gc=False):
    """One line of :data:`FILENAME` (see the module docstring)."""

    field: str
    id: Any
    label: Any
    posterior: float
    method: str
    disputed: bool
    tie: bool


def lines(results: dict[str, FieldResult]) -> list[ConsensusLine]:
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


def render(results: dict[str, FieldResult]) -> bytes:
    """The file's content."""
    return _ENCODER.encode_lines(lines(results))


def write(out_dir: Path, results: dict[str, FieldResult]) -> Path:
    """Write :data:`FILENAME` into ``out_dir``; returns its path."""
    path = out_dir / FILENAME
    write_atomic(path, render(results))
    return path
