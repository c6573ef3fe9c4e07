"""Label Studio full JSON export: a list of tasks with ``annotations`` (``completions`` before 1.0).

Also turns tasks pulled live from the API into annotations: both share :func:`parse_tasks`,
which hands each batch of tasks to the column-wise reader (:mod:`.batch`), else each task (a
pulled one encoded) to the typed reader (:mod:`.typed`), which decides every task without
regions and every region shape. The general parser here only words the rule a task it
refuses breaks; it reads no task.
Reading a large list in two processes is :mod:`.halves`' job.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import msgspec

from ...core import progress
from ...core.errors import InputError, unreadable
from ...kinds import (
    LABELS_OF_TOOLS,
    LISTED_KINDS,
    REGION_SHAPES,
    SCALAR_KINDS,
    AnswerError,
    registry,
)
from ...kinds import kind as registered
from ...kinds.messages import CHAT_MESSAGE
from ...kinds.messages import encode as encode_messages
from ...kinds.messages import kind_of as message_kind
from ...kinds.unscored import NOT_REGIONS, RELATION
from ...metrics.geometry import Shape, shape_of
from ...model import Annotation, Dataset, FieldValue, RegionSet, SourceStats, TaskId
from .batch import Reading, read_tasks
from .brush import BrushError, bounds, mask_runs
from .halves import MAX_PROBLEMS, Part, read_in_halves, read_split, split_at
from .jsonstream import JSONStreamError, check_utf8, iter_array, line_of
from .label_config import declare, parse_label_config
from .rules import (
    LABEL_KEYS,
    References,
    TaskError,
    Where,
    annotator_id,
    chat_messages,
    model_version,
    needs_label,
    own_predictions,
    plain_id,
    region_id,
    region_labels,
    text_holding,
    time_of,
)
from .typed import Unusual, read_task


@dataclass
class LabelStudioExport:
    """Source for an export file. ``skip_invalid``: count and skip malformed tasks.
    ``label_config``: the project's labeling config (XML), which says which fields are
    multi-select. ``workers``: processes that may read a large export (2: a file of
    :data:`.halves.SPLIT_MIN` bytes or more is split between two at a comma between two tasks,
    :func:`.halves.read_split`; else see :func:`parse_tasks`)."""

    path: Path
    skip_invalid: bool = False
    include_ground_truth: bool = True
    label_config: Path | None = None
    workers: int = 1

    def load(self) -> Dataset:
        dataset = self._parse()
        if self.label_config is not None:
            try:
                xml = self.label_config.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(
                    str(self.label_config),
                    [f"cannot read the labeling config: {getattr(exc, 'strerror', None) or exc}"],
                    hint="check source.label_config",
                ) from None
            controls = parse_label_config(xml, str(self.label_config))
            declare(dataset, controls)
        return dataset

    def _parse(self) -> Dataset:
        comma = split_at(self.path, self.workers)
        if comma is not None:
            how = (str(self.path), self.skip_invalid, self.include_ground_truth)
            part = read_split(
                self.path, comma, lambda p, tasks, base: _read(p, tasks, 0, None, *how, base)
            )
            if part is not None:
                return _dataset(part, str(self.path), live=False)
        try:
            data = self.path.read_bytes()
            check_utf8(data)
            raws = msgspec.json.decode(data, type=list[msgspec.Raw])
        except (msgspec.DecodeError, msgspec.ValidationError, OSError, UnicodeDecodeError):
            raws = None  # not a JSON array (or unreadable): the streaming reader says why
        if raws is not None:
            return parse_tasks(
                raws,
                str(self.path),
                skip_invalid=self.skip_invalid,
                include_ground_truth=self.include_ground_truth,
                workers=self.workers,
            )
        try:
            with open(self.path, encoding="utf-8") as f:
                return parse_tasks(
                    iter_array(f, key="tasks"),
                    str(self.path),
                    skip_invalid=self.skip_invalid,
                    include_ground_truth=self.include_ground_truth,
                )
        except JSONStreamError as exc:
            other = _other_format(self.path)
            if other is not None:
                raise InputError(str(self.path), [other[0]], hint=other[1]) from None
            where = (
                f"line {line_of(str(self.path), exc.position)}, task #{exc.index + 1} in the list"
            )
            raise InputError(
                str(self.path),
                [f"{where}: {exc}"],
                hint="the file is not a complete Label Studio JSON export; export it again "
                "(Export → JSON) or fix the file",
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            hint = "export the project again as JSON"
            raise unreadable(str(self.path), exc, encoding_hint=hint) from None


AS_JSON = "export the project as JSON (Export → JSON): JSON-MIN and CSV drop skipped annotations"


def _other_format(path: Path) -> tuple[str, str] | None:
    """(problem, hint) when the file is plainly another format than a JSON export."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f.read(1 << 16).splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if path.suffix.lower() in (".csv", ".tsv") or (
        first[:1] not in ("[", "{", "") and ("," in first or "\t" in first)
    ):
        return "this is a CSV/TSV file, not a Label Studio JSON export", AS_JSON
    if path.suffix.lower() == ".jsonl" or (len(lines) > 1 and _is_object(first)):
        return (
            "this is JSON Lines (one object per line), not a Label Studio JSON export",
            "for a `prodigy db-out` file use `type: prodigy`; from Label Studio, " + AS_JSON,
        )
    return None


def _is_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _json_min(task: Any) -> bool:
    """A JSON-MIN export task: flat, with the annotator but no ``annotations`` list."""
    return (
        isinstance(task, dict)
        and "annotations" not in task
        and "completions" not in task
        and ("annotator" in task or "annotation_id" in task)
    )


def parse_tasks(
    tasks: Iterable[Any],
    source: str,
    *,
    skip_invalid: bool = False,
    include_ground_truth: bool = True,
    workers: int = 1,
    live: bool = False,
) -> Dataset:
    """Annotations of Label Studio ``tasks`` (export or API shape: dicts, or ``msgspec.Raw``
    elements of an export, read by the typed fast path where it can), latest per annotator.

    ``live``: the tasks were pulled from a project (the hint of an error then says to correct
    them in Label Studio, not to fix an export).

    ``workers``: 2 lets a list of :data:`.halves.PARALLEL_MIN` tasks or more be read by two
    processes (:func:`.halves.read_in_halves`). The default, 1, never forks: a library call
    leaves the caller's process alone, and the CLI asks for 2."""
    how = (source, skip_invalid, include_ground_truth)
    part = read_in_halves(tasks, lambda p, start, end: _read(p, tasks, start, end, *how), workers)
    return _dataset(part, source, live)


def _dataset(part: Part, source: str, live: bool) -> Dataset:
    """The dataset of what reading the tasks of ``source`` collected (an error when a task
    broke a rule)."""
    if part.problems:
        where = "correct these annotations in Label Studio" if live else "fix the export"
        raise InputError(
            source,
            part.problems,
            hint=f"{where}, or pass --skip-invalid (source.skip_invalid: true) to skip "
            "and count malformed tasks",
        )
    stats = part.stats
    kept, stats.superseded = part.cols.latest()
    return Dataset.of_columns(
        source,
        kept,
        part.task_ids,
        annotator_names=part.names,
        stats=stats,
        texts=part.texts,
        predictions=part.refs.predictions,
        started_from=part.refs.started_from,
        prediction_ids_only=part.refs.ids_only,
    )


_RAW = {msgspec.Raw}
"""The type of every element of an export read column-wise."""

BATCH = 512
"""Tasks read column-wise at a time (:func:`.batch.read_tasks`): few enough that a batch's
decoded structs stay in the CPU's cache while its columns are read (``bench/bench_blocks.py``;
bench/README.md "2026-11-26 (2)")."""


def _read(
    part: Part,
    tasks: Iterable[Any],
    start: int,
    end: int | None,
    source: str,
    skip_invalid: bool,
    include_ground_truth: bool,
    base: int = 0,
) -> Part:
    """Read ``tasks[start:end]`` (all of an iterable when ``end`` is None) into ``part``: the
    elements of an export in batches column-wise where every task of a batch allows it, else
    task by task (the first task always, so that a JSON-MIN export is named). ``base``: the
    index in the export of ``tasks[0]`` (a part of its list: :func:`.halves.read_split`)."""
    how = (source, skip_invalid, include_ground_truth)
    if not isinstance(tasks, list):
        for index, task in enumerate(
            progress.counted(tasks, progress.step("read tasks", 0, "tasks"))
        ):
            if len(part.problems) >= MAX_PROBLEMS:
                break
            _one(part, index, task, *how)
        return part
    end = len(tasks) if end is None else end
    into = Reading(part.cols, part.stats, part.first_seen, part.texts, include_ground_truth)
    done = progress.step("read tasks", end - start, "tasks")
    try:
        index = start
        while index < end and len(part.problems) < MAX_PROBLEMS:
            first = base + index == 0
            upto = index + 1 if first else min(end, index + BATCH)
            batch = tasks[index:upto]
            ids = (
                None
                if first or set(map(type, batch)) != _RAW
                else read_tasks(batch, base + index, into)
            )
            if ids is not None:  # the batch, or the first of its tasks (see read_tasks)
                part.stats.tasks += len(ids)
                part.task_ids += ids
                upto = index + len(ids)
            else:
                for i in range(index, upto):
                    if len(part.problems) >= MAX_PROBLEMS:
                        break
                    _one(part, base + i, tasks[i], *how)
            done.advance(upto - index)
            index = upto
    finally:
        done.close()
    return part


def _one(
    part: Part, index: int, task: Any, source: str, skip_invalid: bool, include_ground_truth: bool
) -> None:
    """Read element ``index`` of the export, ``task``, into ``part``."""
    stats, cols, names, texts, first_seen = (
        part.stats,
        part.cols,
        part.names,
        part.texts,
        part.first_seen,
    )
    stats.tasks += 1
    mark, counted = cols.mark(), _counts(stats)
    try:
        if index == 0 and _json_min(json.loads(bytes(task)) if type(task) is msgspec.Raw else task):
            raise InputError(
                source, ["this is a JSON-MIN export (no annotations lists)"], hint=AS_JSON
            )
        try:
            task_id = read_task(
                _raw(task), cols, stats, names, texts, include_ground_truth, part.refs
            )
        except Unusual:
            _refused(json.loads(bytes(task)) if type(task) is msgspec.Raw else task, index, part)
        if str(task_id) in first_seen:
            raise TaskError(
                f"task {task_id}",
                f"the id occurs twice (tasks #{first_seen[str(task_id)] + 1} "
                f"and #{index + 1} in the list), so their annotations cannot be told apart",
            )
        first_seen[str(task_id)] = index
    except TaskError as exc:
        # a twice-seen id: the fast path had added (or left out) and counted its annotations;
        # a refused task: the wording walk counted those before the broken one
        cols.rollback(mark)
        _restore(stats, counted)
        if not skip_invalid:
            part.problems.append(exc.problem)
            return
        stats.skip_invalid(exc.problem)
        return
    part.task_ids.append(task_id)


_COUNTED = (
    "annotations",
    "cancelled",
    "ignored",
    "empty",
    "ground_truth_excluded",
    "outside_round",
)
"""The counts of :class:`~iaa_gate.model.SourceStats` that a task's annotations add to."""


def _counts(stats: SourceStats) -> tuple[int, ...]:
    """The :data:`_COUNTED` counts of ``stats``, for :func:`_restore` when a task is refused
    (a task that is not read counts no annotation)."""
    return tuple(getattr(stats, name) for name in _COUNTED)


def _restore(stats: SourceStats, before: tuple[int, ...]) -> None:
    """Set the :data:`_COUNTED` counts of ``stats`` back to ``before`` (:func:`_counts`)."""
    for name, value in zip(_COUNTED, before, strict=True):
        setattr(stats, name, value)


def _raw(task: Any) -> msgspec.Raw:
    """A task as the typed reader takes it: an element of an export, or a task pulled from the
    API encoded (NaN, Infinity and anything else JSON cannot hold are refused, and worded by
    the general parser: msgspec would write NaN as null, an answer as none)."""
    if type(task) is msgspec.Raw:
        return task
    try:
        return msgspec.Raw(json.dumps(task, allow_nan=False, separators=(",", ":")).encode())
    except (ValueError, TypeError, RecursionError):
        raise Unusual from None


def _refused(task: Any, index: int, part: Part) -> NoReturn:
    """Word the rule a task the typed reader refused breaks (:class:`TaskError`): the general
    parser walks it to name the first problem, and reads nothing (the tests hold the typed
    reader to the parser it was, kept in ``tests/label_studio_general.py``). One breaking no
    rule it knows holds a value iaa-gate cannot read."""
    task_id, _ = _task(task, index, part.stats, part.names, part.texts)
    _references(task, task_id, References())
    raise TaskError(
        f"task {task_id}",
        "a value iaa-gate cannot read (NaN, Infinity or a number too large where an "
        "answer is read)",
    )


def _task(
    task: Any,
    index: int,
    stats: SourceStats,
    names: dict[str, str],
    texts: dict[tuple[TaskId, str], str],
) -> tuple[TaskId, list[Annotation]]:
    if not isinstance(task, dict):
        raise TaskError(
            f"task #{index + 1} in the list", f"expected an object, got {type(task).__name__}"
        )
    task_id = task.get("id")
    if not plain_id(task_id):
        raise TaskError(f"task #{index + 1} in the list", "no task 'id'")
    raw = task.get("annotations", task.get("completions", []))
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise TaskError(f"task {task_id}", "'annotations' must be a list")
    out = []
    for ann in raw:
        stats.annotations += 1
        if not isinstance(ann, dict):
            raise TaskError(f"task {task_id}", "an annotation is not an object")
        if ann.get("was_cancelled"):
            stats.cancelled += 1
            skip = _skip(task_id, ann, names)
            if skip is not None:
                out.append(skip)
            continue
        data = task.get("data")
        parsed = _annotation(task_id, ann, names, data if isinstance(data, dict) else {}, texts)
        stats.empty += sum(fv.value == () for fv in parsed.fields.values())
        out.append(parsed)
    return task_id, out


def _references(task: dict[str, Any], task_id: TaskId, refs: References) -> None:
    """The task's model ``predictions`` and its annotations' ``parent_prediction`` into
    ``refs``. A prediction's result is read with the same rules as an annotation's."""
    raw = task.get("predictions")
    if raw is None:
        return
    if not isinstance(raw, list):
        raise TaskError(f"task {task_id}", "'predictions' must be a list")
    read: list[tuple[Any, Any, dict[str, FieldValue]] | int | str] = []
    for pred in raw:
        if plain_id(pred):
            read.append(pred)
            continue
        if not isinstance(pred, dict):
            raise TaskError(f"task {task_id}", "a prediction is not an object or an id")
        if model_version(pred.get("model_version")) is None:
            continue
        ann = {"id": pred.get("id"), "completed_by": "model", "result": pred.get("result")}
        fields = _annotation(task_id, ann, {}, what="prediction").fields
        read.append((pred.get("id"), pred.get("model_version"), fields))
    anns = [a for a in task.get("annotations") or () if isinstance(a, dict)]
    own = own_predictions(task.get("meta")) if raw else frozenset()
    refs.add(task_id, read, [(a.get("id"), a.get("parent_prediction")) for a in anns], own)


def _skip(task_id: TaskId, ann: dict[str, Any], names: dict[str, str]) -> Annotation | None:
    """A skipped annotation, which supersedes the annotator's earlier ones (None: no annotator,
    so it supersedes nothing)."""
    where = Where(f"task {task_id}, annotation {ann.get('id')}")
    try:
        annotator = annotator_id(task_id, ann, names)
        created, updated = (
            time_of(ann.get("created_at"), where),
            time_of(ann.get("updated_at"), where),
        )
    except TaskError:
        return None
    return Annotation(
        task_id, annotator, {}, created, updated, annotation_id=ann.get("id"), skipped=True
    )


def _annotation(
    task_id: TaskId,
    ann: dict[str, Any],
    names: dict[str, str],
    data: dict[str, Any] | None = None,
    texts: dict[tuple[TaskId, str], str] | None = None,
    *,
    what: str = "annotation",
) -> Annotation:
    where = Where(f"task {task_id}, {what} {ann.get('id')}")
    annotator = annotator_id(task_id, ann, names)
    result = ann.get("result")
    if result is None:
        result = []
    if not isinstance(result, list):
        raise TaskError(where, "'result' must be a list")
    for item in result:
        if not isinstance(item, dict):
            raise TaskError(where, "a result item is not an object")
    result = _with_region_ids(result, ann.get("id"))
    tool_labels = _tool_labels(result, where)
    regions = _regions(result, where, tool_labels)
    fields = {name: FieldValue(k, "", rs) for name, (k, rs) in regions.items()}
    owner = {rid: name for name, (_, rs) in regions.items() for rid in rs.ids}
    messages = _messages(result)
    per_message: dict[str, tuple[str, dict[str, Any]]] = {}
    unscored = {  # regions of controls iaa-gate lists (ellipses, video tracks…)
        item.get("id")
        for item in result
        if str(item.get("type")).lower() in _UNSCORED_REGIONS
        and item.get("id") is not None  # no id: nothing can be about it
    }
    for item in result:
        name, kind = item.get("from_name"), item.get("type")
        if kind == RELATION:
            _relation(item, owner, regions, where)
            continue
        if not isinstance(name, str) or not isinstance(kind, str):
            raise TaskError(where, "a result item lacks 'from_name' or 'type'")
        kind = kind.lower()
        if kind in REGION_SHAPES and not (kind in LABELS_OF_TOOLS and id(item) in tool_labels):
            continue
        if id(item) in tool_labels:  # the labels of a region drawn with another tool
            if tool_labels[id(item)] not in REGION_SHAPES:
                fields.setdefault(name, FieldValue(tool_labels[id(item)], ""))
            continue
        if item.get("id") in messages and kind != CHAT_MESSAGE:  # about one chat message
            value = item.get("value")
            answered = registered(message_kind(kind)) is not None  # answers read per message
            fv = _field_value(kind, value, where.at(name)) if answered else None
            if not isinstance(value, dict) or fv is None:
                fields[name] = FieldValue("permessage", "")  # listed, never one task answer
                continue
            answer = list(fv.value) if isinstance(fv.value, tuple) else fv.value
            per_message.setdefault(name, (kind, {}))[1][messages[item["id"]]] = answer
            continue
        if item.get("id") in unscored and kind in SCALAR_KINDS:  # about an unscored region
            fields[name] = FieldValue("perregion", "")
            continue
        value = item.get("value")
        if not isinstance(value, dict):
            raise TaskError(where.at(name), "'value' must be an object")
        fv = _field_value(kind, value, where.at(name))
        if item.get("id") in owner:  # a per-region attribute: scored on matched regions only
            rs = regions[owner[item["id"]]][1]
            if fv is not None:
                values = rs.attributes.setdefault(name, (kind, []))[1]
                values += [(i, fv.value) for i, rid in enumerate(rs.ids) if rid == item["id"]]
            continue
        if kind in SCALAR_KINDS and any(k in value for k in _GEOMETRY_KEYS):
            if item.get("id") is None:
                raise TaskError(
                    where.at(name),
                    f"a per-region {kind} result has no region 'id', so the region it "
                    "describes cannot be told; give it the 'id' of its region",
                )
            raise TaskError(
                where.at(name),
                f"a per-region {kind} result (region id {item.get('id')!r}) whose region does "
                "not exist in the annotation",
            )
        if fv is None:
            continue
        if name in fields and fv.kind not in SCALAR_KINDS:
            continue  # other region controls (brushes, ellipses…): listed, not evaluated
        fields[name] = fv
    for name, (kind, answers) in per_message.items():
        fields[name] = FieldValue(message_kind(kind), encode_messages(answers))
    if data is not None and texts is not None:
        for name, (kind, _) in regions.items():
            if shape_of(REGION_SHAPES[kind]).linear and (task_id, name) not in texts:
                text = _task_text(data, result, name)
                if text is not None:
                    texts[task_id, name] = text
    return Annotation(
        task_id=task_id,
        annotator=annotator,
        fields=fields,
        created_at=time_of(ann.get("created_at"), where),
        updated_at=time_of(ann.get("updated_at"), where),
        ground_truth=bool(ann.get("ground_truth")),
        annotation_id=ann.get("id"),
    )


def _messages(result: list[dict[str, Any]]) -> dict[Any, str]:
    """The chat messages of an annotation (:func:`.rules.chat_messages`)."""
    return chat_messages(
        (item.get("id"), value.get("chatmessage"))
        for item in result
        if item.get("type") == CHAT_MESSAGE and isinstance(value := item.get("value"), dict)
    )


_GEOMETRY_KEYS = ("start", "end", "x", "y", "points", "globalOffsets")
_SPAN_KEYS = ("start", "end", "globalOffsets")


def _with_region_ids(result: list[Any], annotation_id: Any) -> list[Any]:
    """``result`` with an id (:func:`.rules.region_id`) on each region drawn without one. A
    ``labels`` result without span bounds is not a region but the labels of one drawn with
    another tool, found by its id: it gets none."""
    if all(item.get("id") is not None for item in result):
        return result  # the common case: an export from the UI
    out = []
    for index, item in enumerate(result):
        kind, value = str(item.get("type")).lower(), item.get("value")
        span = isinstance(value, dict) and any(k in value for k in _SPAN_KEYS)
        if (
            item.get("id") is None
            and kind in REGION_SHAPES
            and (kind not in LABELS_OF_TOOLS or span)
        ):
            item = {**item, "id": region_id(annotation_id, index)}
        out.append(item)
    return out


def _tool_labels(result: list[dict[str, Any]], where: Where) -> dict[int, str]:
    """The ``labels`` results that label a region drawn with another tool (a ``<Labels>``
    naming the ``<Rectangle>``/``<Polygon>`` regions of an image, or video tracks): they have
    no span bounds, and another result has their id. ``id(result item)`` → that tool's type."""
    tools = {
        item.get("id"): str(item.get("type")).lower()
        for item in result
        if str(item.get("type")).lower() not in SCALAR_KINDS | LABELS_OF_TOOLS | {RELATION}
    }
    out: dict[int, str] = {}
    for item in result:
        value = item.get("value")
        if str(item.get("type")) not in LABELS_OF_TOOLS or not isinstance(value, dict):
            continue
        if any(k in value for k in _SPAN_KEYS):
            continue  # a span
        tool = tools.get(item.get("id"))
        if tool is None and item.get("id") is None:
            raise TaskError(
                where.at(item.get("from_name")),
                "labels without span bounds and without an 'id': the region they label cannot "
                "be told; give them the 'id' of their region",
            )
        if tool is None:
            here = where.at(item.get("from_name"), f"region {item.get('id')!r}")
            raise TaskError(here, "labels without span bounds and with no region of the same id")
        out[id(item)] = tool
    return out


def _regions(
    result: list[dict[str, Any]], where: Where, tool_labels: dict[int, str] | None = None
) -> dict[str, tuple[str, RegionSet]]:
    """The region results of one annotation, by field: columnar, one row per (region, label).
    ``tool_labels`` (from :func:`_tool_labels`): ``labels`` results that give their labels to
    the region of the same id drawn with another tool."""
    tool_labels = tool_labels or {}
    given: dict[Any, list[str]] = {}
    for item in result:
        if id(item) in tool_labels:
            value = item["value"]
            labels = region_labels("labels", value)
            if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
                here = where.at(item.get("from_name"), f"region {item.get('id')!r}")
                raise TaskError(here, f"'labels' must be a list of labels, got {labels!r}")
            given.setdefault(item.get("id"), []).extend(labels)
    out: dict[str, tuple[str, RegionSet]] = {}
    for item in result:
        kind = item.get("type")
        if kind not in REGION_SHAPES:
            kind = str(kind).lower()
            if kind not in REGION_SHAPES:
                continue
        if id(item) in tool_labels:
            continue
        name, value, rid = item.get("from_name"), item.get("value"), item.get("id")
        if (
            not isinstance(name, str)
            or not isinstance(value, dict)
            or not isinstance(rid, (str, int))
        ):
            raise _region_problem(where, kind, item)
        known = out.get(name)
        if known is None:
            known = out[name] = (kind, RegionSet(REGION_SHAPES[kind]))
        elif known[0] != kind:
            here = where.at(name, f"region {rid!r}")
            raise TaskError(here, f"{kind} and {known[0]} results under one field name")
        rs = known[1]
        start, end = value.get("start"), value.get("end")
        points = None
        if kind in RANGES:
            here = where.at(name, f"region {rid!r}")
            _ranges(rs, str(rid), value, here)
            continue
        shape = shape_of(rs.shape)
        if shape.linear and type(start) is int and type(end) is int and 0 <= start <= end:
            geometry = [float(start), float(end)]  # the common case, checked inline
        elif shape.pixels and _pixels(item):
            here = where.at(name, f"region {rid!r}")
            geometry, points = _mask(item, value, here)
        else:
            here = where.at(name, f"region {rid!r}")
            geometry, points = _geometry(shape, kind, value, here)
            if shape.rotates and _pixels(item):  # one scale on x and y for a turned box's IoU
                geometry = _to_pixels(geometry, item)
        labels = region_labels(kind, value)
        if labels is None:
            labels = given.get(item.get("id"), [])
        if isinstance(labels, str):
            labels = [labels]
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            here = where.at(name, f"region {rid!r}")
            raise TaskError(here, f"{kind!r} must be a list of labels, got {labels!r}")
        if not labels and needs_label(kind):  # never scored as a label "" it does not have
            here = where.at(name, f"region {rid!r}")
            keys = " or ".join(repr(k) for k in LABEL_KEYS.get(kind, (kind,)))
            raise TaskError(here, f"the region has no label (no {keys} in its value)")
        rid = str(rid)
        for label in labels or [""]:
            rs.ids.append(rid)
            rs.labels.append(label)
            rs.coords += geometry
            if points is not None:
                rs.points.append(points)
    return out


RANGES = frozenset(k.name for k in registry().values() if k.ranges)
"""Region kinds whose one result holds several spans: ``value.ranges`` of frames."""
_TIMESTAMPS = frozenset(k.name for k in registry().values() if k.timestamps)
"""Span kinds whose bounds may be timestamps."""
_UNSCORED_REGIONS = LISTED_KINDS - NOT_REGIONS
"""Listed kinds whose results are regions (ellipses, video tracks…)."""


def _ranges(rs: RegionSet, rid: str, value: dict[str, Any], here: Where) -> None:
    """A timeline result's frame ranges ``[start, end]`` (inclusive) as spans ``[start,
    end + 1)`` of frames, one region each (``<id>#<n>``, n from 1), with its labels."""
    ranges, labels = value.get("ranges"), region_labels("timelinelabels", value)
    if not isinstance(ranges, list) or not ranges:
        raise TaskError(here, "'ranges' must be a non-empty list of {start, end} frame ranges")
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise TaskError(here, f"'timelinelabels' must be a list of labels, got {labels!r}")
    for n, r in enumerate(ranges, 1):
        if not isinstance(r, dict):
            raise TaskError(here, f"range {n} is not an object")
        start, end = _number(r, "start", here), _number(r, "end", here)
        if end < start:
            raise TaskError(here, f"range {n}: 'end' {end:g} is before 'start' {start:g}")
        for label in labels:
            rs.ids.append(f"{rid}#{n}")
            rs.labels.append(label)
            rs.coords += [start, end + 1.0]


def _region_problem(where: Where, kind: str, item: dict[str, Any]) -> TaskError:
    name, rid = item.get("from_name"), item.get("id")
    if not isinstance(name, str):
        return TaskError(where, f"a {kind} result lacks 'from_name'")
    here = where.at(name, f"region {rid!r}")
    if not isinstance(item.get("value"), dict):
        return TaskError(here, "'value' must be an object")
    return TaskError(here, f"the region's 'id' must be a string or a whole number, got {rid!r}")


def _number(value: dict[str, Any], key: str, here: Where) -> float:
    v = value.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TaskError(here, f"{key!r} must be a number, got {v!r}")
    return float(v)


def _geometry(
    shape: Shape, kind: str, value: dict[str, Any], here: Where
) -> tuple[list[float], list[tuple[float, float]] | None]:
    """A region's geometry row (``shape.width`` numbers) and its vertices (polygons)."""
    if shape.linear:
        span = value
        if not isinstance(value.get("start"), (int, float)) and isinstance(
            value.get("globalOffsets"), dict
        ):
            span = value["globalOffsets"]  # hypertext/paragraph spans: offsets in the whole text
        if kind in _TIMESTAMPS and isinstance(value.get("start"), str):
            span = {k: _timestamp(value.get(k), here) for k in ("start", "end")}
        start, end = _number(span, "start", here), _number(span, "end", here)
        if end < start:
            raise TaskError(here, f"'end' {end:g} is before 'start' {start:g}")
        return [start, end], None
    if shape.rotates:
        box = [_number(value, k, here) for k in ("x", "y", "width", "height")]
        rotation = value.get("rotation") or 0.0
        return [*box, _number({"rotation": rotation}, "rotation", here)], None
    if shape.points is None:  # a keypoint: the numbers under its keys
        return [_number(value, k, here) for k in shape.keys], None
    if shape.pixels:
        raise TaskError(here, "a brush mask needs the image size (original_width and height)")
    pts = value.get("points")
    if (
        not isinstance(pts, list)
        or len(pts) < 3
        or not all(
            isinstance(p, (list, tuple))
            and len(p) == 2
            and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in p)
            for p in pts
        )
    ):
        raise TaskError(here, "'points' must be a list of 3 or more [x, y] pairs")
    xs, ys = [float(p[0]) for p in pts], [float(p[1]) for p in pts]
    bbox = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
    return bbox, list(zip(xs, ys, strict=True))


def _mask(
    item: dict[str, Any], value: dict[str, Any], here: Where
) -> tuple[list[float], list[tuple[float, float]]]:
    """A brush region: its pixel box and the image's pixel count, and its runs of mask pixels,
    decoded from ``value.rle``
    (Label Studio's ``format: rle``) for the image of ``original_width`` × ``original_height``."""
    width, height = int(item["original_width"]), int(item["original_height"])
    if value.get("format", "rle") != "rle":
        raise TaskError(here, f"brush format {value.get('format')!r}: only 'rle' is read")
    try:
        runs = mask_runs(value.get("rle"), width, height)
    except BrushError as exc:
        raise TaskError(here, f"the brush mask cannot be decoded: {exc}") from None
    starts, ends = runs[:, 0].tolist(), runs[:, 1].tolist()
    box = [*bounds(runs, width), float(width * height)]
    return box, [(float(a), float(b)) for a, b in zip(starts, ends, strict=True)]


def _pixels(item: dict[str, Any]) -> bool:
    return all(
        isinstance(item.get(k), (int, float)) and item[k] > 0
        for k in ("original_width", "original_height")
    )


def _to_pixels(box: list[float], item: dict[str, Any]) -> list[float]:
    """A box in pixels of the original image: a rotation turns the true shape, which percent
    of a non-square image would distort."""
    w, h = item["original_width"] / 100.0, item["original_height"] / 100.0
    return [box[0] * w, box[1] * h, box[2] * w, box[3] * h, box[4]]


def _relation(
    item: dict[str, Any],
    owner: dict[str, str],
    regions: dict[str, tuple[str, RegionSet]],
    where: Where,
) -> None:
    """Attach a relation to the region field of its endpoints (both must exist)."""
    ends = [item.get("from_id"), item.get("to_id")]
    if None in ends:
        key = "from_id" if ends[0] is None else "to_id"
        raise TaskError(
            where,
            f"a relation has no {key!r}, so the region it links cannot be told; regions "
            "that relations link need their 'id'",
        )
    missing = [str(e) for e in ends if e not in owner]
    if missing:
        raise TaskError(
            where,
            f"relation {ends[0]!r} → {ends[1]!r} names region {missing[0]!r}, "
            "which is not in the annotation",
        )
    labels = item.get("labels") or []
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise TaskError(where, "relation 'labels' must be a list of strings")
    rs = regions[owner[str(ends[0])]][1]
    if owner[str(ends[0])] != owner[str(ends[1])]:
        rs.dropped_relations += 1  # between two fields: not evaluated (counted in the report)
        return
    rs.relations.append((str(ends[0]), str(ends[1]), "|".join(sorted(labels))))


def _task_text(data: dict[str, Any], result: list[dict[str, Any]], name: str) -> str | None:
    """The text the spans of field ``name`` index into: the data key named like the results'
    ``to_name``, else the one string of ``data`` in which every span's ``text`` sits at its
    offsets; None when neither is found."""
    spans = [r for r in result if r.get("from_name") == name]
    if not any(isinstance(v := r.get("value"), dict) and "text" in v for r in spans):
        return None  # audio seconds, timeline frames: bounds that index no text
    to_names = {str(r.get("to_name")) for r in spans}
    if len(to_names) == 1 and isinstance(data.get(key := to_names.pop()), str):
        return str(data[key])
    checks = [
        (int(v["start"]), int(v["end"]), v["text"])
        for r in spans
        if isinstance(v := r.get("value"), dict)
        and isinstance(v.get("start"), int)
        and isinstance(v.get("end"), int)
        and isinstance(v.get("text"), str)
    ]
    return text_holding(data, checks)


def _field_value(kind: str, value: dict[str, Any], where: Where) -> FieldValue | None:
    """``value`` read as its kind reads it (:attr:`~iaa_gate.kinds.Kind.read`)."""
    k = registered(kind)
    if k is None or k.read is None:
        return FieldValue(kind, "")  # brushes, ellipses, video…: listed as not evaluated
    try:
        v = k.read(value, where.field or "")
    except AnswerError as e:
        raise TaskError(where, str(e)) from None
    return None if v is None else FieldValue(kind, v)


def _timestamp(v: Any, where: Where) -> float | None:
    """A time-series span bound given as a date string, in seconds since the epoch."""
    t = time_of(v, where)
    return None if t is None else t.timestamp()
