"""``core.fork.in_child``: the work of a forked child comes back whole, or None when it failed."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from iaa_gate.core.fork import can_fork, in_child

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only on Linux with 2+ CPUs")


def test_a_large_result_comes_back_whole() -> None:
    """More than a pipe holds, read by the caller only once the child has done its work (and so
    is sending, or blocked on the full pipe): a byte on a second pipe orders the two, no
    sleep."""
    rng = np.random.default_rng(0)
    arrays = [rng.integers(0, 1 << 40, 1_000_000) for _ in range(3)]  # 24 MB, > any pipe
    ids = [f"task-{i}" for i in range(100_000)]
    done_r, done_w = os.pipe()

    def work() -> tuple[list[np.ndarray], list[str], int]:
        os.write(done_w, b"1")
        return arrays, ids, os.getpid()

    result = in_child(work)
    assert os.read(done_r, 1) == b"1"  # the child's work is done before ours reads it
    os.close(done_r)
    os.close(done_w)
    got = result()
    assert got is not None
    back, back_ids, child_pid = got
    assert child_pid != os.getpid()
    assert all(np.array_equal(a, b) for a, b in zip(arrays, back, strict=True))
    assert back_ids == ids


def test_a_failed_child_gives_none_and_is_reaped(tmp_path: Path) -> None:
    said = tmp_path / "pid"

    def fails() -> int:
        said.write_text(str(os.getpid()))
        raise RuntimeError("boom")

    result = in_child(fails)
    assert result() is None
    with pytest.raises(ChildProcessError):  # reaped: not left behind as a zombie
        os.waitpid(int(said.read_text()), os.WNOHANG)


def test_columns_come_back_from_a_child_with_their_index() -> None:
    """A reader's columns are sent without their index dicts (rebuilt on arrival), and a part
    of an export without the ids it has seen (they are its task ids): what arrives reads on
    as the original does."""
    from iaa_gate.adapters.label_studio.halves import Part
    from iaa_gate.model import Columns

    cols = Columns()
    for task, who in [(7, "a"), ("x", "b"), (7, "b"), (3, "a")]:
        cols.row(task, who, 1.0, 2.0, annotation_id=f"{task}{who}")
    part = Part(cols=cols, task_ids=[7, "x", 3], first_seen={"7": 0, "x": 1, "3": 2})
    back = in_child(lambda: part)()
    assert back is not None and back.first_seen == {}
    assert back.cols.task_index == cols.task_index == {7: 0, "x": 1, 3: 2}
    assert back.cols.annotator_index == cols.annotator_index
    assert back.cols.slot("x") == 1 and back.cols.slot(9) == 3  # interning goes on
    assert not Part(task_ids=[3], first_seen={"3": 0}).join(back)  # in both: read in order
    assert Part(task_ids=[4], first_seen={"4": 0}).join(back)
