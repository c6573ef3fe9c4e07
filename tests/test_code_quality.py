"""The code stays ruff-clean and mypy-clean (strict); both configured in pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        message = f"{name} is not installed: pip install -e '.[dev]'"
        if os.environ.get("CI"):  # .ci/run installs the dev tools: missing there is a failure
            pytest.fail(message)
        pytest.skip(message + " (CI runs this check)")
    return found


def test_ruff() -> None:
    proc = subprocess.run(
        [_tool("ruff"), "check", "plugin", "tests", "bench", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = subprocess.run(
        [_tool("ruff"), "format", "--check", "plugin", "tests", "bench", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy() -> None:
    proc = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
