"""Prodigy ``db-out`` JSONL: one line per annotator answer.

The field is the ``_view_id``. An annotator is ``_annotator_id``, else ``_session_id``.
``ignore`` answers are not ratings.

- Manual span views (``ner_manual``, from ``ner.manual`` and ``ner.correct``, and
  ``spans_manual``): the unit is the text (``_input_hash``); an accepted answer's ``spans`` are
  its regions (none: "nothing here"). ``image_manual``: the shapes in ``spans``. In these views a
  ``reject`` marks the example unusable: not a rating.
- Binary views (``classification`` from ``textcat.teach``, ``ner`` from ``ner.teach``…): the
  unit is one question, not the text: ``"<input_hash>:<label>"`` for ``classification``, else the
  ``_task_hash``, so several questions about one text are never merged.
- ``choice``: the unit is the text; a ``reject`` is the category ``"REJECT"``.
- Other manual views (``blocks``, ``relations``, ``text_input``, ``audio_manual``…) are listed
  as not evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ...core import progress
from ...core.errors import InputError, Problem, Reason, unreadable
from ...core.fork import can_fork, in_child
from ...model import Annotation, Columns, Dataset, SourceStats, TaskId
from .rules import (
    IMAGE_VIEWS,
    option_ids,
    reading,
    regions,
    timestamp,
    unit_of,
    unknown_option,
    view_name,
)
from .typed import LineReader, Unusual, read_block


def unit_id(example: dict[str, Any]) -> TaskId:
    """The unit an example belongs to (see the module docstring and :func:`.rules.unit_of`)."""
    view = example.get("_view_id", "classification")
    return unit_of(example["_input_hash"], view, example.get("label"), example.get("_task_hash"))


@dataclass
class ProdigyJSONL:
    """Source for a ``prodigy db-out`` file. ``skip_invalid``: count and skip malformed lines.
    ``workers``: 2 lets a file of :data:`PARALLEL_MIN` bytes or more be read by two processes
    (a forked child reads the second half, Linux with 2+ CPUs; its result is used only when
    every block of it was read column-wise, else this process reads that half too). The
    default, 1, never forks."""

    path: Path
    skip_invalid: bool = False
    workers: int = 1
    review: Path | None = None
    """The output of ``prodigy review``: its accepted examples are :attr:`Dataset.adjudications`
    (see :func:`read_review`)."""

    def load(self) -> Dataset:
        part = _Part(self.skip_invalid)
        try:
            size = self.path.stat().st_size
            mid = _line_start(self.path, size // 2) if self.workers > 1 else size
            if mid < size and size >= PARALLEL_MIN and can_fork():
                child = in_child(lambda: _Part(self.skip_invalid).read(self.path, mid, size, True))
                try:
                    part.read(self.path, 0, mid)
                finally:
                    later = child()
                if later is None:
                    part.read(self.path, mid, size)
                else:
                    part.join(later)
            else:
                part.read(self.path, 0, size)
        except (OSError, UnicodeDecodeError) as exc:
            hint = "write the file again with `prodigy db-out`, which writes UTF-8"
            raise unreadable(str(self.path), exc, encoding_hint=hint) from None
        if part.problems:
            raise InputError(
                str(self.path),
                part.problems,
                hint="fix the file (one JSON object per line, as `prodigy db-out` writes), or pass "
                "--skip-invalid to skip and count malformed lines",
            )
        stats = part.stats
        stats.tasks = len(part.cols.tasks)
        kept, stats.superseded = part.cols.latest()
        return Dataset.of_columns(
            str(self.path),
            kept,
            list(part.cols.tasks),
            stats=stats,
            declared_multiple=part.styles,
            texts=part.texts,
            adjudications=[] if self.review is None else read_review(self.review),
        )


def read_review(path: Path) -> list[Annotation]:
    """The adjudicated answers in ``path``, the output of ``prodigy review`` (``prodigy db-out``
    of the review dataset): each accepted example is its task's final answer, read as the
    round's own examples are (the same fields and units); its ``versions`` (the annotators'
    answers it was made from) are not read, so they are never new ratings. A rejected or
    ignored review adjudicates nothing. A line that cannot be read is an error naming it (a
    review file is small: the disputed tasks, read line by line).

    Parameters
    ----------
    path
        The review file (JSON Lines).

    Returns
    -------
    list[Annotation]
        One per accepted example (the latest per task and reviewer session).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> line = {"_input_hash": 7, "_task_hash": 70, "_session_id": "review-lead",
    ...         "_view_id": "choice", "accept": ["POS"], "answer": "accept",
    ...         "versions": [{"accept": ["NEG"], "sessions": ["round-ana"]}]}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "reviewed.jsonl"
    >>> _ = p.write_text(json.dumps(line) + "\\n")
    >>> [(a.task_id, a.annotator, a.fields["choice"].value) for a in read_review(p)]
    [(7, 'review-lead', ('POS',))]
    """
    cols, stats, problems = Columns(), SourceStats(), []
    read = LineReader(cols, stats, {})
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        hint = "write it again with `prodigy db-out REVIEW_DATASET`, which writes UTF-8"
        raise unreadable(str(path), exc, encoding_hint=hint) from None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ex = json.loads(line)
            if isinstance(ex, dict) and ex.get("answer") not in ("accept", "reject", "ignore"):
                raise ValueError(f"'answer' must be accept, reject or ignore: {ex.get('answer')!r}")
            if ex.get("answer") == "accept":  # a rejected or ignored review adjudicates nothing
                try:
                    read(line.encode("utf-8"))
                except Unusual:
                    _refused(line, read, stats)
        except (ValueError, AttributeError) as exc:
            msg = "expected a JSON object" if isinstance(exc, AttributeError) else str(exc)
            problems.append(Problem(f"line {lineno}", None, Reason.INVALID_LINE, msg))
    if problems:
        raise InputError(
            str(path),
            problems,
            hint="source.review is the output of `prodigy review`, written by `prodigy db-out "
            "REVIEW_DATASET`: one JSON object per line",
        )
    return cols.latest()[0].annotations()


PARALLEL_MIN = 1 << 25
"""With ``workers=2``, files of at least this many bytes (32 MiB, ~90,000 lines) are read by
two processes."""

MAX_PROBLEMS = 50

BLOCK = 1 << 19
"""Bytes read at a time (then up to the end of the line): 512 KiB, some 1,500 lines, whose
decoded structs stay in the CPU's cache while they are read column-wise
(``bench/bench_blocks.py``; bench/README.md "2026-11-26 (2)")."""


class _Part:
    """What reading a run of lines collects (joined in line order by :meth:`join`)."""

    def __init__(self, skip_invalid: bool) -> None:
        self.skip_invalid = skip_invalid
        self.stats = SourceStats()
        self.styles: dict[str, bool] = {}
        self.cols = Columns()
        self.texts: dict[tuple[TaskId, str], str] = {}
        self.problems: list[Problem] = []
        self.lineno = 0

    def join(self, later: _Part) -> None:
        """Append the part read after this one (read column-wise: no problems)."""
        if len(self.problems) < MAX_PROBLEMS:  # reading in order would have gone on
            self.cols.extend(later.cols)
            self.texts.update(later.texts)  # a later line's text stands, as read in order
            self.stats.join(later.stats)
            self.lineno += later.lineno
            for view, multiple in later.styles.items():
                self.styles[view] = self.styles.get(view, False) or multiple

    def read(self, path: Path, start: int, end: int, blocks_only: bool = False) -> _Part | None:
        """Read the lines of bytes ``start`` to ``end`` (each at a line start); with
        ``blocks_only``, None as soon as a block needs the per-line readers."""
        read = LineReader(self.cols, self.stats, self.styles, self.texts)
        done = progress.step(f"read {path.name}", end - start, "B")
        try:
            return self._read(read, path, start, end, blocks_only, done)
        finally:
            done.close()

    def _read(
        self,
        read: LineReader,
        path: Path,
        start: int,
        end: int,
        blocks_only: bool,
        done: progress.Step,
    ) -> _Part | None:
        for block in _blocks(path, start, end):
            done.advance(len(block))
            if len(self.problems) >= MAX_PROBLEMS:
                break
            read_lines = (
                read_block(block, self.cols, self.stats, self.styles, self.texts)
                if _utf8(block)
                else None
            )
            if read_lines is not None:
                self.lineno += read_lines
                continue
            if blocks_only:
                return None
            for raw in block.splitlines():
                self.lineno += 1
                lineno = self.lineno
                if not raw.isascii():
                    raw.decode("utf-8")  # raises on bytes that are not UTF-8, as text would
                try:
                    read(raw)
                    continue
                except Unusual:
                    line = raw.decode("utf-8")
                if not self._line(line, lineno, path, read):
                    return self
        return self

    def _line(self, line: str, lineno: int, path: Path, read: LineReader) -> bool:
        """Word the error of a line the typed readers refused; False: stop reading (too many
        problems)."""
        if not line.strip():
            return True
        if not len(self.cols) and not self.problems and line.lstrip().startswith("["):
            raise InputError(
                str(path),
                [f"line {lineno}: this is a JSON list, not JSON Lines"],
                hint="for a Label Studio export use `type: label-studio-export`; "
                "for Prodigy run `prodigy db-out DATASET > file.jsonl`",
            )
        try:
            _refused(line, read, self.stats)
        except ValueError as exc:
            problem = Problem(f"line {lineno}", None, Reason.INVALID_LINE, str(exc))
            if self.skip_invalid:
                self.stats.skip_invalid(problem)
                return True
            self.problems.append(problem)
            return len(self.problems) < MAX_PROBLEMS
        return True


def _utf8(block: bytes) -> bool:
    """Whether ``block`` is UTF-8 text (else its lines are read one by one, and the first that
    is not is reported)."""
    if block.isascii():
        return True
    try:
        block.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _line_start(path: Path, at: int) -> int:
    """The offset of the first line that starts at or after byte ``at``."""
    if at == 0:
        return 0
    with open(path, "rb") as f:
        f.seek(at - 1)
        f.readline()
        return f.tell()


def _blocks(path: Path, start: int, end: int) -> Iterator[bytes]:
    """Bytes ``start`` to ``end`` in blocks of whole lines, streamed (split them as reading
    as text would: ``bytes.splitlines`` splits at ``\\n``, ``\\r\\n`` and ``\\r``)."""
    with open(path, "rb") as f:
        f.seek(start)
        pos = start
        while pos < end:
            block = f.read(min(BLOCK, end - pos))
            if not block:
                break
            if f.tell() < end:
                block += f.readline()
            pos = f.tell()
            yield block


def _refused(line: str, read: LineReader, stats: SourceStats) -> None:
    """Raise ValueError naming the rule ``line``, refused by the typed readers, breaks. A line
    that breaks none holds JSON that Python reads and msgspec does not (NaN, Infinity, a
    number out of range): it is read as msgspec writes it back (such numbers as null)."""
    problem = _problem(line)
    if problem is not None:
        message, answer = problem
        stats.annotations += answer  # counted as an answer once past the header
        raise ValueError(message)
    try:
        read(msgspec.json.encode(json.loads(line)))
    except (Unusual, msgspec.EncodeError, UnicodeEncodeError):
        raise ValueError(
            "a value iaa-gate cannot read (NaN, Infinity or a lone surrogate where the answer "
            "is read)"
        ) from None


def _problem(line: str) -> tuple[str, bool] | None:
    """The first rule of :mod:`.rules` that ``line`` breaks, in words, and whether it is an
    answer (it names its input, annotator and answer); None: it breaks none."""
    try:
        ex = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg}, column {exc.colno})", False
    if not isinstance(ex, dict):
        return "expected a JSON object", False
    if not isinstance(ex.get("_input_hash"), (int, str)):
        return "no '_input_hash': is this a `prodigy db-out` export?", False
    if not isinstance(ex.get("_annotator_id") or ex.get("_session_id"), str):
        return "no '_annotator_id' or '_session_id': cannot tell who answered", False
    answer = ex.get("answer")
    if answer not in ("accept", "reject", "ignore"):
        return f"'answer' must be accept, reject or ignore, got {answer!r}", False
    try:
        _answer_problem(ex, answer)
    except ValueError as exc:
        return str(exc), True
    return None


def _answer_problem(ex: Mapping[str, object], answer: str) -> None:
    """Raise ValueError at the first rule an answer's time, spans or options break."""
    timestamp(ex.get("_timestamp"))
    if answer == "ignore":
        return
    view = view_name(ex.get("_view_id"))
    how = reading(view, "options" in ex)
    if how == "regions" and answer == "accept":
        regions(ex.get("spans", []), view in IMAGE_VIEWS)
    elif how == "choices":
        accept = ex.get("accept", [])
        if not isinstance(accept, list) or not all(
            isinstance(a, (str, int)) and not isinstance(a, bool) for a in accept
        ):
            raise ValueError(f"'accept' must be a list of option ids, got {accept!r}")
        unknown = unknown_option(tuple(map(str, accept)), option_ids(ex.get("options")))
        if answer == "accept" and unknown is not None:
            raise ValueError(f"accepted option {unknown!r} is not among the options' ids")
