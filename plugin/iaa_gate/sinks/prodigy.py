"""``disputed.jsonl`` for Prodigy: every answer to a disputed example, ready for
``prodigy db-in <set> disputed.jsonl`` then ``prodigy review <out> <set>``.

Each line is the source line with ``meta.iaa`` added; every other value keeps its bytes. Per line
only the keys that name the example's unit are decoded (msgspec skips the rest unread); a
disputed line's ``meta`` object gets the ``iaa`` key (encoded once per example) and is spliced
back. A line msgspec does not take (e.g. ``NaN``, which Python's json reads) goes through
``json.loads`` and ``json.dumps``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ..adapters import ReadOptions, Source
from ..adapters.prodigy.config import ProdigySource
from ..adapters.prodigy.source import unit_id
from ..config import Config
from ..core.files import write_atomic
from ..evaluation.results import FieldResult
from ..evaluation.sections import Writeback
from ..model import TaskId
from . import Sink, register

_UNSET: Any = msgspec.UNSET


class _Keys(msgspec.Struct):
    """The keys :func:`unit_id` reads (in its names), and ``meta`` as raw bytes."""

    _input_hash: Any = _UNSET
    _view_id: Any = _UNSET
    label: Any = _UNSET
    _task_hash: Any = _UNSET
    meta: msgspec.Raw = _UNSET
    _annotator_id: Any = None
    _session_id: Any = None


_NAMES = _Keys.__struct_fields__[:4]
_KEYS = msgspec.json.Decoder(_Keys)
_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ENCODE = msgspec.json.Encoder()


class ReviewConsensus(msgspec.Struct):
    """A disputed field's consensus in the review file: the proposed ``label``, its
    ``posterior``, the ``method`` and whether the best answers ``tie``."""

    label: object
    posterior: float
    method: str
    tie: bool


class ReviewField(msgspec.Struct, omit_defaults=True):
    """A disputed field of an example's ``meta.iaa.fields``: its ``score``, each annotator's
    ``labels`` and the ``consensus``, when there is one."""

    score: float
    labels: dict[str, object]
    consensus: ReviewConsensus | None = None


def _unit(example: Any) -> TaskId | None:
    """The example's unit; None when it has none (malformed: the source reported it)."""
    try:
        return unit_id(example)
    except (KeyError, TypeError, AttributeError):
        return None


def _meta(meta: msgspec.Raw | None, iaa: bytes) -> bytes:
    """``meta`` (raw JSON, None when absent) with ``"iaa": iaa`` set; a meta that is not an
    object is kept aside as ``original``."""
    try:
        parts = _OBJECT.decode(meta) if meta is not None else None
    except msgspec.ValidationError:
        parts = None
    if parts is None:
        parts = {"original": meta if meta is not None else msgspec.Raw(b"null")}
    parts["iaa"] = msgspec.Raw(iaa)
    return _ENCODE.encode(parts)


@dataclass
class ProdigyReviewFile:
    """Reads the source ``db-out`` file again and keeps the lines of disputed units.

    Each disputed field's entry in ``meta.iaa`` carries its ``consensus`` (the proposed
    ``label``, its ``posterior``, the ``method`` and whether it is a ``tie``). A unit with a
    settled consensus also gets one more line: a copy of an answer that gives it, as the
    session :data:`CONSENSUS_SESSION`. ``prodigy review`` groups a manual view's answers by
    input and pre-selects the version most answers share, so the added answer makes the
    consensus that version (and shows it as the session's proposal); a tie adds none."""

    source: Path
    out: Path

    def apply(self, results: dict[str, FieldResult], *, dry_run: bool = False) -> Writeback:
        disputed: dict[TaskId, dict[str, ReviewField]] = {}
        chosen: dict[TaskId, str] = {}  # a unit → the annotator whose answer is the consensus
        for name, result in results.items():
            for u in result.disputed:
                entry = ReviewField(u.score, u.labels)
                c = u.consensus
                if c is not None:
                    entry.consensus = ReviewConsensus(
                        c.value, round(c.posterior, 4), c.method, c.tie
                    )
                    giving = sorted(k for k, v in u.labels.items() if v == c.value)
                    if not c.tie and giving and u.id not in chosen:
                        chosen[u.id] = giving[0]
                disputed.setdefault(u.id, {})[name] = entry
        count = proposals = 0

        def flagged() -> Iterator[bytes]:
            """Each line of a disputed unit, with its ``meta.iaa``, streamed; after the first
            answer giving a unit's consensus, its copy as the consensus session."""
            nonlocal count, proposals
            for line in lines():
                yield line
                if not pending:
                    continue
                task = pending.pop()
                proposals += 1
                yield _proposal(line, disputed[task])

        pending: list[TaskId] = []

        def lines() -> Iterator[bytes]:
            nonlocal count
            iaa: dict[TaskId, bytes] = {}  # each disputed example's meta.iaa, encoded
            tail: dict[TaskId, bytes] = {}  # and the end of its lines that have no meta
            units: dict[tuple[Any, ...], TaskId | None] = {}  # an example's answers share it
            with open(self.source, "rb") as f:
                for line in f:
                    if not line.strip():
                        continue
                    try:
                        keys = _KEYS.decode(line)
                        key = msgspec.structs.astuple(keys)[:4]
                        if key not in units:
                            given = zip(_NAMES, key, strict=True)
                            units[key] = _unit({k: v for k, v in given if v is not _UNSET})
                        task = units[key]
                    except (msgspec.DecodeError, TypeError):  # e.g. NaN, an unhashable label
                        for out in self._slow(line, disputed):
                            count += 1
                            yield out + b"\n"
                        continue
                    if task not in disputed:
                        continue
                    if task not in iaa:
                        iaa[task] = _ENCODE.encode({"status": "disputed", "fields": disputed[task]})
                        tail[task] = b',"meta":' + _meta(None, iaa[task]) + b"}\n"
                    count += 1
                    who = keys._annotator_id or keys._session_id
                    if chosen.get(task) is not None and str(who) == chosen[task]:
                        del chosen[task]
                        pending.append(task)
                    if keys.meta is _UNSET:  # a new last key
                        yield line.rstrip()[:-1] + tail[task]
                    else:
                        parts = _OBJECT.decode(line)
                        parts["meta"] = msgspec.Raw(_meta(keys.meta, iaa[task]))
                        yield _ENCODE.encode(parts) + b"\n"

        if dry_run:
            for _ in flagged():
                pass
        else:
            write_atomic(self.out, flagged())
        return Writeback(
            target=str(self.out),
            disputed_examples=len(disputed),
            lines=count,
            consensus_lines=proposals,
            dry_run=dry_run,
        )

    @staticmethod
    def _slow(line: bytes, disputed: dict[TaskId, dict[str, ReviewField]]) -> list[bytes]:
        """A line msgspec does not read, through Python's json: ``[the flagged line]`` when its
        unit is disputed, else ``[]``."""
        try:
            ex = json.loads(line)
        except ValueError:
            return []
        task = _unit(ex)
        if task not in disputed:
            return []
        meta = ex.get("meta")
        meta = dict(meta) if isinstance(meta, dict) else {"original": meta}
        fields = msgspec.to_builtins(disputed[task])
        ex["meta"] = {**meta, "iaa": {"status": "disputed", "fields": fields}}
        return [json.dumps(ex, ensure_ascii=False).encode()]


CONSENSUS_SESSION = "iaa-gate-consensus"
"""The ``_annotator_id`` and ``_session_id`` of the answer proposing a unit's consensus."""


def _proposal(line: bytes, fields: dict[str, ReviewField]) -> bytes:
    """A flagged line copied as the consensus session's answer (``meta.iaa.proposal``)."""
    parts = _OBJECT.decode(line)
    parts["_annotator_id"] = parts["_session_id"] = msgspec.Raw(_ENCODE.encode(CONSENSUS_SESSION))
    iaa = {"status": "disputed", "fields": fields, "proposal": True}
    meta = parts.get("meta")
    parts["meta"] = msgspec.Raw(_meta(meta, _ENCODE.encode(iaa)))
    return _ENCODE.encode(parts) + b"\n"


def review_file(config: Config, out_dir: Path, source: Source, options: ReadOptions) -> Sink | None:
    """The review file ``disputed.jsonl`` beside the reports, when ``writeback.enabled``."""
    if not config.writeback.enabled:
        return None
    settings = config.source
    assert isinstance(settings, ProdigySource)
    return ProdigyReviewFile(settings.path, out_dir / "disputed.jsonl")


register("prodigy", review_file)
