"""House rules users rely on: readable, atomic output files; errors that are IaaGateErrors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from iaa_gate.cli import main
from iaa_gate.core.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "sub" / "report.json", "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "sub" / "report.json").stat().st_mode) == mode
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["report.json"]  # no temp file left


def test_reports_and_the_prodigy_review_file_are_world_readable(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        config = ROOT / "examples" / "prodigy" / "iaa-gate.yaml"
        assert main(["run", "-c", str(config), "--out", str(tmp_path), "-q"]) in (0, 1)
    finally:
        os.umask(old)
    written = sorted(tmp_path.iterdir())
    assert {p.name for p in written} >= {"report.json", "report.md", "disputed.jsonl"}
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o644}


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_atomic(path, "old\n")

    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["report.json"]
