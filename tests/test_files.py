"""``core.files``: a file written over another is never seen half-written, and nothing of the
writing is left beside it, whether a large file is swapped in (``renameat2`` with
``RENAME_EXCHANGE``) or renamed over the old one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from iaa_gate.core import files
from iaa_gate.core.files import write_atomic


def _written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Write report.json twice (the second time over the first), recording how each was put
    in place."""
    how: list[tuple[str, str]] = []
    swap, replace = files._swap, os.replace

    def swapped(a: Path, b: Path) -> bool:
        done = swap(a, b)
        how.extend([("swap", b.name)] if done else [])
        return done

    monkeypatch.setattr(files, "_swap", swapped)
    monkeypatch.setattr(
        os, "replace", lambda a, b: how.append(("replace", Path(b).name)) or replace(a, b)
    )
    path = tmp_path / "report.json"
    write_atomic(path, b"old\n" * 10)
    with path.open("rb") as reader:  # a reader of the old file keeps reading the old file
        write_atomic(path, [b"new\n", b"lines\n"])
        assert reader.read() == b"old\n" * 10
    assert path.read_bytes() == b"new\nlines\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary, no old
    return how


@pytest.mark.skipif(sys.platform != "linux", reason="renameat2 is Linux's")
def test_a_large_file_over_another_is_swapped_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "SWAP_MIN", 1)
    how = _written(tmp_path, monkeypatch)
    # the first has nothing to swap with; the second swaps (no rename over an existing file,
    # which ext4 makes wait for the new file's data to be written out)
    assert how == [("replace", "report.json"), ("swap", "report.json")]


def test_a_refused_swap_renames_over_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the swap cannot be done (not Linux, an old C library, a file system without it),
    the file is renamed over the old one, as for a small file."""
    monkeypatch.setattr(files, "SWAP_MIN", 1)
    monkeypatch.setattr(files, "_swap", lambda a, b: False)
    how = _written(tmp_path, monkeypatch)
    assert how == [("replace", "report.json"), ("replace", "report.json")]


def test_a_small_file_is_renamed_over_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    how = _written(tmp_path, monkeypatch)
    assert how == [("replace", "report.json"), ("replace", "report.json")]


def test_a_directory_in_the_way_is_never_swapped_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory where the report goes is an error, as renaming over it is, and stays where
    it is with what it holds: a swap would have moved it aside."""
    monkeypatch.setattr(files, "SWAP_MIN", 1)
    path = tmp_path / "disputed-tasks.jsonl"
    path.mkdir()
    (path / "kept.txt").write_text("mine")
    with pytest.raises(OSError):
        write_atomic(path, b"lines\n")
    assert (path / "kept.txt").read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir()] == ["disputed-tasks.jsonl"]
