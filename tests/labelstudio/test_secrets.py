"""The API key never shows: every command, passing and failing, with and without ``--debug``.

Each case runs in process with a recognisable key and greps everything it produced: stdout,
stderr, every log record (all loggers, DEBUG) and every file it wrote.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.cli import ExitCode

from .helpers import REVIEW_CONFIG, live_config, result, run_cli
from .server import Annotator, LabelStudioServer

WRONG = "iaagate-wrong-key-7f3a9c2e51"
FIELDS = {"sentiment": {"labels": ["Positive", "Negative", "Neutral"]}}
CASES = {
    # name: (key, url, command, expected exit)
    "run": ("good", "server", "run", (0, 1)),
    "run-401": (WRONG, "server", "run", (2,)),
    "run-unreachable": ("good", "http://127.0.0.1:9", "run", (2,)),
    "init": ("good", "server", "init", (0,)),
    "init-401": (WRONG, "server", "init", (2,)),
    "init-unreachable": ("good", "http://127.0.0.1:9", "init", (2,)),
    "validate-config": ("good", "server", "validate-config", (0,)),
}


@pytest.fixture(scope="module")
def project(make_project: Callable[..., Any], annotators: list[Annotator]) -> Any:
    """Six reviews, three annotators who mostly agree."""
    labels = ["Positive", "Negative", "Neutral"]
    tasks = [
        {
            "data": {"text": f"review {i}"},
            "annotations": [
                {"completed_by": a.id, "result": result(labels[(i + (j == 2)) % 3], ["Price"], 3)}
                for j, a in enumerate(annotators)
            ],
        }
        for i in range(6)
    ]
    return make_project(REVIEW_CONFIG, tasks, title="secrets")


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_key_never_shows(
    case: str,
    debug: bool,
    label_studio: LabelStudioServer,
    project: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    key, url, command, exits = CASES[case]
    key = label_studio.token if key == "good" else key
    url = label_studio.url if url == "server" else url
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", key)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    cfg = live_config(
        tmp_path / "c.yaml",
        url,
        project.id,
        FIELDS,
        report={"dir": str(out), "formats": ["json", "markdown", "html", "junit"]},
        writeback={"enabled": True},
    )
    args = {
        "run": ["run", "-c", str(cfg), "--dry-run"],
        "init": ["init", "--project", str(project.id), "--url", url, "-o", str(out / "i.yaml")],
        "validate-config": ["validate-config", str(cfg)],
    }[command]
    with caplog.at_level(logging.DEBUG):
        code = run_cli(*args, *(["--debug"] if debug else []))
    std = capsys.readouterr()
    seen = std.out + std.err + caplog.text
    seen += "".join(r.getMessage() + repr(r.args) for r in caplog.records)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    seen += "".join(p.read_text(errors="replace") for p in written)
    assert code in exits, std.err[-2000:]
    if code == ExitCode.ERROR:
        assert ("Traceback" in std.err) == debug and "iaa-gate: error: " in std.err
    assert key not in seen
    assert "plain http://" not in std.err  # loopback: no warning
