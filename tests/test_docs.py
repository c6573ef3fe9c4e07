"""The documentation site builds with ``mkdocs build --strict``: no broken link, reference or
snippet, and the configuration reference is generated from the code."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _mkdocs() -> str:
    path = Path(sys.executable).parent / "mkdocs"
    found = str(path) if path.exists() else shutil.which("mkdocs")
    if found is None:
        message = "mkdocs is not installed: pip install -e '.[docs]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message + " (CI builds the docs)")
    return found


def test_the_docs_build_strict(tmp_path: Path) -> None:
    proc = subprocess.run(
        [_mkdocs(), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    reference = (tmp_path / "site" / "configuration" / "index.html").read_text(encoding="utf-8")
    # every config option is in the generated reference, e.g. a threshold and a table column
    assert "disputed_below" in reference and "multiple_separator" in reference
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="iaa_gate.alpha"' in api and 'id="iaa_gate.metrics.krippendorff_alpha"' in api
