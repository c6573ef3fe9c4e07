"""Secrets and paths (offline): credentials in a URL, plain-HTTP warnings, report files whose
names never come from the data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from builders import ls_annotation
from iaa_gate.cli import ExitCode, main
from iaa_gate.core.redact import plain_http_warning, redact_url


@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_credentials_in_the_url_never_show(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_backoff: list[float],
    debug: list[str],
) -> None:
    pytest.importorskip("label_studio_sdk", reason="the label-studio extra is not installed")
    monkeypatch.setenv("LS_KEY", "iaagate-key-8d1e")
    cfg = {
        "source": {
            "type": "label-studio",
            "url": "http://bob:pw-9f2c4e@127.0.0.1:9",  # nothing listens on port 9
            "project": 1,
            "api_key": "${LS_KEY}",
        },
        "fields": {"sentiment": {}},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert main(["run", "-c", str(path), "--out", str(tmp_path / "out"), *debug]) == 2
    err = capsys.readouterr().err
    assert "cannot reach Label Studio at http://127.0.0.1:9" in err
    assert "pw-9f2c4e" not in err and "bob" not in err and "iaagate-key-8d1e" not in err
    assert len(no_backoff) == 3  # retried with backoff (~0.5 s, 1 s, 2 s), none of it slept


@pytest.mark.parametrize(
    ("url", "warns"),
    [
        ("http://ls.example.com:8080", True),
        ("http://10.0.0.7", True),
        ("https://ls.example.com", False),
        ("http://localhost:8080", False),
        ("http://127.0.0.1:8080", False),
        ("http://[::1]:8080", False),
    ],
)
def test_plain_http_to_another_host_warns(url: str, warns: bool) -> None:
    assert (plain_http_warning(url) is not None) == warns


def test_redact_url_keeps_everything_but_the_credentials() -> None:
    assert redact_url("https://u:p@h:1/x?y=1") == "https://h:1/x?y=1"
    assert redact_url("http://h") == "http://h"


def test_task_content_never_names_a_file(tmp_path: Path) -> None:
    """Task ids, field names and annotators shaped like paths stay data: the report directory
    holds the fixed file names and nothing is written anywhere else."""
    evil = "../../escape"
    anns = [
        ls_annotation(f"{evil}-{u}", u, **{evil: ("choices", {"choices": [f"{evil}/{u % 2}"]})})
        for u in (1, 2, 3)
    ]
    export = tmp_path / "in" / "export.json"
    export.parent.mkdir()
    export.write_text(json.dumps([{"id": evil, "annotations": anns}]))
    cfg = tmp_path / "in" / "c.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "source": {"type": "label-studio-export", "path": "export.json"},
                "fields": {evil: {"bootstrap": {"replicates": 0}}},
                "report": {"dir": "out", "formats": ["json", "markdown", "html", "junit"]},
            }
        )
    )
    assert main(["run", "-c", str(cfg), "-q"]) in (ExitCode.OK, ExitCode.GATE_FAILED)
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert files == [
        "in/c.yaml",
        "in/export.json",
        "in/out/consensus.jsonl",
        "in/out/disputed-tasks.jsonl",
        "in/out/junit.xml",
        "in/out/report.html",
        "in/out/report.json",
        "in/out/report.md",
    ]
