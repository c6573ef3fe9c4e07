"""The documentation site builds with ``mkdocs build --strict``: no broken link, reference or
snippet, and the configuration reference is generated from the code."""

from __future__ import annotations

import html
import json
import os
import re
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
    assert not (tmp_path / "site" / "hooks").exists(), "the site ships the docs hook"
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="iaa_gate.alpha"' in api and 'id="iaa_gate.metrics.krippendorff_alpha"' in api


def _rendered_reference() -> tuple[str, list[list[str]]]:
    """The configuration reference as MkDocs renders it: the HTML and each table row's cells
    as the reader sees them (text, tags removed)."""
    markdown = pytest.importorskip("markdown", reason="pip install -e '.[docs]'")
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        import config_reference
    finally:
        sys.path.pop(0)
    page = markdown.markdown(
        config_reference.reference(), extensions=["tables", "attr_list", "toc"]
    )
    rows = [
        [
            html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<td>(.*?)</td>", row, re.S)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", page, re.S)
        if "<td>" in row
    ]
    return page, rows


def test_the_configuration_reference_shows_every_option_as_the_schema_has_it() -> None:
    """Every row has four cells (a ``|`` escaped once never spills into the next column), a
    description that reads as the code has it (``<host>`` is not swallowed as an HTML tag, no
    stray backslash) and the schema's default."""
    from iaa_gate.config import json_schema

    schema = json_schema()
    models = [schema, *schema["$defs"].values()]
    expected = [
        (key, prop, key in model.get("required", []))
        for model in models
        for key, prop in model.get("properties", {}).items()
    ]
    page, rows = _rendered_reference()
    assert all(len(cells) == 4 for cells in rows), [c for c in rows if len(c) != 4]
    shown = sorted((c[0], c[3].replace("`", ""), c[2], c[1]) for c in rows)
    want = sorted(
        (
            (key, prop.get("description", "").replace("`", ""), prop, required)
            for key, prop, required in expected
        ),
        key=lambda w: w[:2],
    )
    assert [s[:2] for s in shown] == [w[:2] for w in want]  # each description as the code has it
    for (key, description, default, kind), (_, _, prop, required) in zip(shown, want, strict=True):
        assert description, f"{key}: no description (add one in the config model)"
        assert "\\" not in kind + default + description, (key, kind, default, description)
        if required:
            assert default == "required", key
        elif isinstance(prop["default"], dict) and default.startswith("each key's own"):
            pass  # a section's defaults, in its own table
        else:
            assert default == json.dumps(prop["default"]), key
    assert "http://<host>:<port>/webhook" in next(r[3] for r in rows if r[0] == "webhook_url")
    level = next(r[1] for r in rows if r[0] == "level")
    assert level == '"nominal" | "ordinal" | "interval" | "ratio" or null'
    titles = re.findall(r"<h3[^>]*>(.*?)</h3>", page)
    assert "<code>fields.&lt;name&gt;</code>" in titles
    assert "<code>source</code> (type: label-studio)" in titles
    assert not any("Config" in t for t in titles), titles
