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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core import progress
from ...core.errors import InputError, Problem, Reason, unreadable
from ...core.fork import can_fork, in_child
from ...model import (
    Annotation,
    Columns,
    Dataset,
    FieldValue,
    RegionSet,
    SourceStats,
    TaskId,
)
from .rules import (
    BINARY_VIEWS,
    IMAGE_VIEWS,
    REJECT,
    SPAN_VIEWS,
    note_choice_style,
    timestamp,
    unit_of,
    unknown_option,
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
            ann = _example(line, stats, {}, {}) if ex.get("answer") == "accept" else None
        except (ValueError, AttributeError) as exc:
            msg = "expected a JSON object" if isinstance(exc, AttributeError) else str(exc)
            problems.append(Problem(f"line {lineno}", None, Reason.INVALID_LINE, msg))
            continue
        if ann is not None and ann.fields:  # a rejected or ignored review adjudicates nothing
            cols.add(ann)
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
        """Append the part read after this one (read column-wise: no problems, no texts)."""
        if len(self.problems) < MAX_PROBLEMS:  # reading in order would have gone on
            self.cols.extend(later.cols)
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
                read_block(block, self.cols, self.stats, self.styles) if _utf8(block) else None
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
                if not self._line(line, lineno, path):
                    return self
        return self

    def _line(self, line: str, lineno: int, path: Path) -> bool:
        """Read one line with the general parser; False: stop reading (too many problems)."""
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
            ann = _example(line, self.stats, self.styles, self.texts)
        except ValueError as exc:
            problem = Problem(f"line {lineno}", None, Reason.INVALID_LINE, str(exc))
            if self.skip_invalid:
                self.stats.skip_invalid(problem)
                return True
            self.problems.append(problem)
            return len(self.problems) < MAX_PROBLEMS
        if ann is not None:
            self.cols.add(ann)
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


def _example(
    line: str, stats: SourceStats, styles: dict[str, bool], texts: dict[tuple[TaskId, str], str]
) -> Annotation | None:
    """One answer; ``styles`` collects each choice view's ``config.choice_style`` (multiple or
    not), as the recipe declared it; ``texts`` each span view's text, by (unit, view)."""
    try:
        ex = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(ex, dict):
        raise ValueError("expected a JSON object")
    if not isinstance(ex.get("_input_hash"), (int, str)):
        raise ValueError("no '_input_hash': is this a `prodigy db-out` export?")
    annotator = ex.get("_annotator_id") or ex.get("_session_id")
    if not isinstance(annotator, str):
        raise ValueError("no '_annotator_id' or '_session_id': cannot tell who answered")
    answer = ex.get("answer")
    if answer not in ("accept", "reject", "ignore"):
        raise ValueError(f"'answer' must be accept, reject or ignore, got {answer!r}")
    stats.annotations += 1
    task = unit_id(ex)
    when = timestamp(ex.get("_timestamp"))
    if answer == "ignore":  # supersedes the annotator's earlier answers, like a skip
        stats.ignored += 1
        return Annotation(
            task, annotator, {}, when, when, annotation_id=ex.get("_task_hash"), skipped=True
        )
    view = str(ex.get("_view_id") or "classification")
    fields: dict[str, FieldValue]
    if view in SPAN_VIEWS or view in IMAGE_VIEWS:
        if answer == "reject":  # the example is unusable: not a rating, like a skip
            stats.ignored += 1
            return Annotation(
                task, annotator, {}, when, when, annotation_id=ex.get("_task_hash"), skipped=True
            )
        fields = {view: _regions(ex, view in IMAGE_VIEWS)}
        if view in SPAN_VIEWS and isinstance(ex.get("text"), str):
            texts[task, view] = ex["text"]
    elif view not in BINARY_VIEWS and "options" not in ex and view != "choice":
        fields = {view: FieldValue(view, "")}  # listed as not evaluated
    elif "options" in ex or view == "choice":
        accept = ex.get("accept", [])
        if not isinstance(accept, list) or not all(
            isinstance(a, (str, int)) and not isinstance(a, bool) for a in accept
        ):
            raise ValueError(f"'accept' must be a list of option ids, got {accept!r}")
        recipe = ex.get("config")
        style = recipe.get("choice_style") if isinstance(recipe, dict) else None
        note_choice_style(styles, view, style)
        chosen = tuple(str(a) for a in accept) if answer == "accept" else (REJECT,)
        options = ex.get("options")
        if isinstance(options, list) and answer == "accept":
            ids = {str(o.get("id")) for o in options if isinstance(o, dict)}
            unknown = unknown_option(chosen, ids)
            if unknown is not None:
                raise ValueError(f"accepted option {unknown!r} is not among the options' ids")
        stats.empty += not chosen
        fields = {view: FieldValue("choices", chosen)}
    else:
        fields = {view: FieldValue("choices", (str(answer),))}
    return Annotation(task, annotator, fields, when, when, annotation_id=ex.get("_task_hash"))


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _regions(ex: dict[str, Any], image: bool) -> FieldValue:
    """The ``spans`` of a manual answer as a region set (character offsets, or image shapes
    in pixels)."""
    spans = ex.get("spans", [])
    if not isinstance(spans, list):
        raise ValueError("'spans' must be a list")
    rs = RegionSet("box" if image else "span")
    for i, span in enumerate(spans):
        if not isinstance(span, dict):
            raise ValueError(f"span #{i + 1} is not an object")
        label = span.get("label", "")
        if not isinstance(label, str):
            raise ValueError(f"span #{i + 1}: 'label' must be a string")
        rs.ids.append(str(span.get("id", i)))
        rs.labels.append(label)
        if image:
            _shape(rs, span, i)
            continue
        start, end = span.get("start"), span.get("end")
        if not (isinstance(start, (int, float)) and isinstance(end, (int, float))):
            raise ValueError(f"span #{i + 1} ({label or 'no label'}): no 'start'/'end' offsets")
        if end < start:
            raise ValueError(f"span #{i + 1}: 'end' {end} is before 'start' {start}")
        rs.coords += [float(start), float(end)]
    if image and rs.shape == "polygon":
        rs.coords = [c for i in range(len(rs)) for c in _bbox(rs.points[i])]
    return FieldValue("image" if image else "spans", "", rs)


def _shape(rs: RegionSet, span: dict[str, Any], i: int) -> None:
    pts = span.get("points")
    if (
        not isinstance(pts, list)
        or len(pts) < 3
        or not all(isinstance(p, list) and len(p) == 2 and _num(p[0]) and _num(p[1]) for p in pts)
    ):
        raise ValueError(f"shape #{i + 1}: 'points' must be a list of 3 or more [x, y] pairs")
    rs.points.append([(float(x), float(y)) for x, y in pts])
    if span.get("type", "rect") == "rect" and all(
        _num(span.get(k)) for k in ("x", "y", "width", "height")
    ):
        rs.coords += [float(span[k]) for k in ("x", "y", "width", "height")] + [0.0]
    else:
        rs.shape = "polygon"


def _bbox(points: list[tuple[float, float]]) -> list[float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
