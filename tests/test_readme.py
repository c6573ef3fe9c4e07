"""The README's two commands: the quick start prints what the README shows, and ``.ci/run`` runs
exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iaa_gate.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    """The linters are steps before it (not tests), each stopping CI when it fails."""
    install_and_test = [b for b in _bash_blocks() if "pytest" in b]
    assert len(install_and_test) == 1
    *steps, ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci == install_and_test[0].strip()
    linters = ["ruff check", "ruff format --check", "mypy", "vulture"]
    assert all(any(f"/{tool}" in step for step in steps) for tool in linters), steps
    assert "set -euo pipefail" in steps


def test_the_quick_start_prints_what_the_readme_shows(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    quick = _bash_blocks()[0]
    command = quick.split("&& .venv/bin/iaa-gate ", 1)[1].split()
    shown = re.search(r"```\n(iaa-gate .*?)\n```", README, flags=re.S)
    assert shown is not None
    monkeypatch.chdir(ROOT)  # the README's paths are relative to the repository root
    assert main(command) == 0  # warnings pass
    assert capsys.readouterr().out.rstrip("\n") == shown.group(1)


def test_the_docs_home_shows_the_readme_quick_start() -> None:
    """The documentation's home page repeats the README's quick start word for word (its command,
    the files it writes, what it prints), so the two cannot drift apart."""
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")

    def quick_start(text: str) -> str:
        return text[text.index("## Quick start") : text.index("Install everything and run")]

    assert quick_start(home) == quick_start(README)


def test_usage_shows_the_readme_walk_through_of_a_label_studio_project() -> None:
    """docs/usage.md repeats the README's "Your Label Studio project" word for word (the
    commands tests/labelstudio/test_walkthrough.py runs against a real server)."""
    usage = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    start = "## Your Label Studio project"
    section = README[README.index(start) : README.index("## What it does")]
    assert usage[usage.index(start) :].startswith(section)


def test_the_readme_states_the_default_thresholds_the_code_applies() -> None:
    from iaa_gate.config import Thresholds

    t = Thresholds()
    section = README[README.index("**Default thresholds.**") :]
    assert f"below {t.alpha.fail:g} the run fails,\nbelow {t.alpha.warn:g} it warns" in section
    assert f"its agreement score is below {t.disputed_below:g} (`disputed_below`)" in section
