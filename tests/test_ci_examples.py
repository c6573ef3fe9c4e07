"""The CI examples: the GitHub Actions workflow and the GitLab CI job against their published
schemas (check-jsonschema's vendored copies, no network), what each must do, the cron line, and
their iaa-gate command turning red with a readable failure on a failing round."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from iaa_gate.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
CI = ROOT / "examples" / "ci"
WORKFLOW, GITLAB, CRON = CI / "github-workflow.yml", CI / "gitlab-ci.yml", CI / "crontab"


def check_schema(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("schema", "path", "good", "bad"),
    [
        ("vendor.github-workflows", WORKFLOW, "    runs-on: ubuntu-latest\n", ""),
        ("vendor.gitlab-ci", GITLAB, "    when: always ", "    when: sometimes "),
    ],
)
def test_valid_against_the_published_schema(
    schema: str, path: Path, good: str, bad: str, tmp_path: Path
) -> None:
    ok = check_schema(schema, path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    text = path.read_text()
    assert good in text
    broken = tmp_path / path.name  # and the validator does catch a broken file
    broken.write_text(text.replace(good, bad, 1))
    assert check_schema(schema, broken).returncode != 0


def load(path: Path) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(path.read_text())
    return data


def test_workflow_runs_on_schedule_and_demand_and_keeps_the_reports() -> None:
    wf = load(WORKFLOW)
    triggers = wf[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["schedule"][0]["cron"] == "0 6 * * 1-5" and "workflow_dispatch" in triggers
    steps = wf["jobs"]["agreement"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert "iaa-report/report.html" in upload["with"]["path"] and upload["if"] == "always()"
    summary = next(s for s in steps if "GITHUB_STEP_SUMMARY" in s.get("run", ""))
    assert 'cat iaa-report/report.md >> "$GITHUB_STEP_SUMMARY"' in summary["run"]
    assert summary["if"] == "always()"


def test_gitlab_job_reports_junit() -> None:
    job = load(GITLAB)["iaa-gate"]
    assert job["artifacts"]["reports"]["junit"] == "iaa-report/junit.xml"
    assert job["artifacts"]["when"] == "always"
    assert {r["if"] for r in job["rules"]} == {
        '$CI_PIPELINE_SOURCE == "schedule"',
        '$CI_PIPELINE_SOURCE == "web"',
    }


def cron_line() -> list[str]:
    [line] = [x for x in CRON.read_text().splitlines() if x.strip() and not x.startswith("#")]
    return line.split(None, 5)


def test_cron_line_is_a_valid_schedule() -> None:
    *fields, command = cron_line()
    limits = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
    for field, (lo, hi) in zip(fields, limits, strict=True):
        for part in field.split(","):
            m = re.fullmatch(r"(\*|(\d+)(?:-(\d+))?)(?:/(\d+))?", part)
            assert m, f"bad cron field {field!r}"
            for n in (m[2], m[3]):
                assert n is None or lo <= int(n) <= hi
    assert "%" not in command  # cron turns % into a newline
    assert "iaa-gate run --config" in command


def iaa_gate_args(text: str) -> list[str]:
    """The arguments of the `iaa-gate run …` command in a shell snippet."""
    flat = re.sub(r"\s*\n\s*", " ", text)
    m = re.search(r"iaa-gate (run [^|;&>\n]*)", flat)
    assert m
    return [a for a in shlex.split(m[1]) if not a.startswith("$")]


def commands() -> dict[str, list[str]]:
    wf_steps = load(WORKFLOW)["jobs"]["agreement"]["steps"]
    wf = next(s["run"] for s in wf_steps if "iaa-gate run" in s.get("run", ""))
    gl = next(c for c in load(GITLAB)["iaa-gate"]["script"] if "iaa-gate run" in c)
    return {
        "github": iaa_gate_args(wf),
        "gitlab": iaa_gate_args(gl),
        "cron": iaa_gate_args(cron_line()[-1]),
    }


@pytest.mark.parametrize("ci", ["github", "gitlab", "cron"])
def test_the_command_turns_red_with_a_readable_failure(
    ci: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = load(ROOT / "examples" / "label-studio" / "iaa-gate.yaml")
    cfg["source"]["path"] = str(ROOT / "examples" / "label-studio" / "export.json")
    cfg["fields"]["sentiment"]["thresholds"]["alpha"] = {"fail": 0.8}
    for f in cfg["fields"].values():
        f["bootstrap"] = {"replicates": 0}
    (tmp_path / "iaa-gate.yaml").write_text(yaml.safe_dump(cfg))
    monkeypatch.chdir(tmp_path)
    assert main([*commands()[ci], "--quiet"]) == ExitCode.GATE_FAILED
    out = tmp_path / "iaa-report"
    md = (out / "report.md").read_text()
    assert "alpha 0.762 is below the fail threshold 0.8" in md
    if ci != "cron":  # CI keeps the HTML report and reads JUnit
        failures = ET.parse(out / "junit.xml").getroot().iter("failure")
        messages = [f.get("message") for f in failures]
        assert "alpha 0.762 is below the fail threshold 0.8" in messages
        assert (out / "report.html").is_file()
