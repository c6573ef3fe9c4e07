"""``disputed-tasks.jsonl`` written in parts by two processes (``workers=2``) is the file one
process writes, byte for byte: a region field's lines cut in review order, the later part made
and written by a forked child and appended; a child that fails has its part made by the parent,
and no temporary part is ever left in the report dir."""

from __future__ import annotations

import errno
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from iaa_gate import pipeline
from iaa_gate.config import Config, load_config
from iaa_gate.core import files
from iaa_gate.core.errors import OutputError
from iaa_gate.core.files import writing_parts
from iaa_gate.core.fork import can_fork
from iaa_gate.evaluation import regions
from iaa_gate.pipeline import run
from iaa_gate.sinks.report import columns
from iaa_gate.sinks.report import json as json_sink
from test_regions_reading import TEXT, ann, span, task

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only on Linux with 2+ CPUs")

FORMATS = ["json", "markdown", "junit"]


def _export(path: Path, n: int = 90) -> None:
    """``n`` tasks, 3 annotators: spans of ``ner`` (most disputed), of ``aspects`` (fewer)
    and a ``sentiment`` choice; field names sort ``aspects``, ``ner``, ``sentiment``, so the
    cut field has a field before it and one after it."""
    rng = random.Random(7)
    words = [(0, 3), (4, 12), (17, 24), (25, 32), (36, 42)]
    tasks = []
    for t in range(1, n + 1):
        anns = []
        for a in (1, 2, 3):
            results: list[dict[str, Any]] = []
            for k, (s, e) in enumerate(rng.sample(words, rng.randint(1, 4))):
                results.append(span(f"{t}-{a}-{k}", s, e, rng.choice(["PER", "LOC", "ORG"])))
            if t % 3 == 0:
                s, e = words[t % len(words)]
                results.append(span(f"{t}-{a}-x", s, e, rng.choice(["A", "B"]), "aspects"))
            choice = rng.choice(["pos", "neg"])
            results.append(
                {
                    "from_name": "sentiment",
                    "to_name": "text",
                    "type": "choices",
                    "value": {"choices": [choice]},
                }
            )
            anns.append(ann(a, results))
        tasks.append(task(t, *anns))
    path.write_text(json.dumps(tasks), encoding="utf-8")
    assert TEXT  # the spans' text


@pytest.fixture(scope="module")
def round_(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("parts")
    _export(tmp / "export.json")
    cfg = {
        "source": {"type": "label-studio-export", "path": str(tmp / "export.json")},
        "fields": {f: {"bootstrap": {"replicates": 0}} for f in ("aspects", "ner", "sentiment")},
        "report": {"formats": FORMATS},
    }
    (tmp / "c.yaml").write_text(yaml.safe_dump(cfg))
    return tmp


def _run(round_: Path, out: str, workers: int) -> dict[str, bytes]:
    """The files a run with ``workers`` writes into ``round_/out`` (every one in the dir)."""
    run(_config(round_, out), workers=workers)
    return {p.name: p.read_bytes() for p in sorted((round_ / out).iterdir())}


def _config(round_: Path, out: str) -> Config:
    config = load_config(round_ / "c.yaml")
    report = config.report.model_copy(update={"dir": round_ / out})
    return config.model_copy(update={"report": report})


def _same(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    assert a.keys() == b.keys()  # no temporary part left beside them
    for name in a:
        if name.endswith((".json", ".md", ".xml")):  # the time of the run differs
            continue
        assert a[name] == b[name], name


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts from a few disputed tasks, a block of 4 lines at a time."""
    monkeypatch.setattr(json_sink, "PARALLEL_LINES", 8)
    monkeypatch.setattr(columns, "BLOCK", 4)


def test_two_processes_write_the_file_one_writes(round_: Path, small: None) -> None:
    one = _run(round_, "one", workers=1)
    two = _run(round_, "two", workers=2)
    _same(one, two)
    lines = [json.loads(x) for x in one["disputed-tasks.jsonl"].splitlines()]
    fields = [x["field"] for x in lines]
    assert fields == sorted(fields) and set(fields) == {"aspects", "ner", "sentiment"}
    assert fields.count("ner") >= 3 * 4  # cut, each part several blocks


def test_the_parts_start_before_the_figures(
    round_: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two processes, the file starts as soon as every disputed task is known: before the
    region fields' figures (alpha, F1), which this process computes while the child writes its
    part; the file is the one a single process writes, and every report is started once."""
    events: list[str] = []
    start, figures = pipeline.start_parts, regions.region_result

    def started(*args: Any) -> list[Path]:
        paths = start(*args)
        events.append(f"start {[p.name for p in paths]}")
        return paths

    def figured(*args: Any) -> Any:
        events.append("figures")
        return figures(*args)

    monkeypatch.setattr(pipeline, "start_parts", started)
    monkeypatch.setattr(regions, "region_result", figured)
    two = _run(round_, "early", workers=2)
    assert events == ["start ['disputed-tasks.jsonl']", "figures", "figures"]  # aspects, ner
    _same(_run(round_, "late", workers=1), two)


def test_a_report_dir_that_cannot_be_written_is_said_so(round_: Path, small: None) -> None:
    """The parts start during the analysis: a report dir that cannot be written is still the
    run's output error, with its hint, and no child is left behind."""
    (round_ / "taken").write_text("a file where the report dir goes", encoding="utf-8")
    before = _children()  # the session's own (a Label Studio server) stay
    with pytest.raises(OutputError, match=r"cannot write the report to .*taken") as caught:
        run(_config(round_, "taken"), workers=2)
    assert caught.value.hint == "set report.dir or pass --out DIR"
    assert _children() <= before


def _children() -> set[int]:
    """This process's living children (Linux: each thread's list in ``/proc``)."""
    tasks = Path(f"/proc/{os.getpid()}/task")
    return {int(p) for t in tasks.iterdir() for p in (t / "children").read_text().split()}


def test_parts_are_the_file_in_order(
    round_: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two and three parts, each made on its own, give the file's bytes; too few disputed
    tasks, or one process: one part."""
    outcome = run(_config(round_, "whole"))
    whole = (round_ / "whole" / "disputed-tasks.jsonl").read_bytes()
    writer = json_sink.DisputedTasksWriter()
    for n in (2, 3):
        parts = writer.parts(outcome.disputed, n)
        assert len(parts) == n
        made = [b"".join(p) for p in reversed(parts)][::-1]  # the last made first
        assert all(made) and b"".join(made) == whole
    assert len(writer.parts(outcome.disputed, 1)) == 1
    monkeypatch.setattr(json_sink, "PARALLEL_LINES", 10**6)
    assert b"".join(*writer.parts(outcome.disputed, 2)) == whole


def test_a_failed_child_has_its_part_made_here(
    round_: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _run(round_, "alone", workers=1)

    def fails(path: Path, chunks: Any) -> bool:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "_write", fails)
    _same(one, _run(round_, "failed", workers=2))


def test_the_part_is_copied_without_copy_file_range(
    round_: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _run(round_, "plain", workers=1)

    def refused(*args: Any) -> int:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "copy_file_range", refused)
    _same(one, _run(round_, "copied", workers=2))


def _pieces(n: int, fail_in_child: bool = False, fail: bool = False) -> Iterator[bytes]:
    """``n`` lines, made as they are asked for; failing, or failing only in a child."""
    parent = os.getpid()  # now, in this process (a generator's body runs where it is read)

    def made() -> Iterator[bytes]:
        for i in range(n):
            if fail or (fail_in_child and os.getpid() != parent):
                raise ValueError("a part that cannot be made")
            yield b"%d\n" % i

    return made()


def test_no_part_is_left_behind_on_failure(tmp_path: Path) -> None:
    """The body fails, or a part fails in the child and here too: the error is raised, no
    file is written and no temporary part is left; a part failing only in the child is made
    here."""
    path = tmp_path / "out.txt"
    with pytest.raises(RuntimeError, match="body"), writing_parts(path, [[b"a\n"], _pieces(3)]):
        raise RuntimeError("body")
    for parts in ([[b"a\n"], _pieces(3, fail=True)], [_pieces(2, fail=True), _pieces(3)]):
        with pytest.raises(ValueError, match="cannot be made"), writing_parts(path, parts):
            pass
    assert list(tmp_path.iterdir()) == []
    with writing_parts(path, [[b"a\n"], _pieces(2, fail_in_child=True), _pieces(1)]):
        pass
    assert path.read_bytes() == b"a\n0\n1\n0\n"
    assert list(tmp_path.iterdir()) == [path]
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
