"""``core.fork.in_child``: the work of a forked child comes back whole, or None when it failed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from iaa_gate.core.fork import can_fork, in_child

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only on Linux with 2+ CPUs")


def test_a_large_result_comes_back_whole() -> None:
    """More than a pipe holds, read by the caller only after it did other work."""
    rng = np.random.default_rng(0)
    arrays = [rng.integers(0, 1 << 40, 1_000_000) for _ in range(3)]  # 24 MB, > any pipe
    ids = [f"task-{i}" for i in range(100_000)]
    result = in_child(lambda: (arrays, ids, os.getpid()))
    time.sleep(0.5)  # the caller's own work
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
