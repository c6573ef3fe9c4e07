"""The corpus of inputs that were once misread: each folder in ``tests/corpus/`` holds a config,
its input files and ``expected.yaml`` (the command, the exit code, what stderr must say, and
report values by dotted path). Each is run through the CLI from another working directory, so
the config's relative paths must resolve against the config file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from iaa_gate.cli import main

CORPUS = Path(__file__).resolve().parent / "corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.yaml").is_file())


def at(doc: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        doc = doc[key]
    return doc


@pytest.mark.parametrize("case", CASES)
def test_corpus_case(case: str, tmp_path: Path, monkeypatch, capsys) -> None:
    folder = CORPUS / case
    expected = yaml.safe_load((folder / "expected.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    config = str(folder / "iaa-gate.yaml")
    command = expected.get("command", "run")
    args = [config] if command == "validate-config" else ["-c", config, "--out", "out", "-q"]
    code = main([command, *args])
    err = capsys.readouterr().err
    assert code == expected["exit"], err
    assert "Traceback" not in err and "internal error" not in err
    for text in expected.get("stderr", []):
        assert text in err
    if expected.get("report"):
        doc = json.loads((tmp_path / "out" / "report.json").read_text())
        for dotted, value in expected["report"].items():
            got = at(doc, dotted)
            assert got == pytest.approx(value) if isinstance(value, float) else got == value, dotted
