"""The CLI end to end on the bundled examples: reports, exit codes, error messages."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from builders import ls_annotation
from iaa_gate.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> int:
    return main(list(args))


@pytest.fixture
def ls_config(examples: Path) -> Path:
    return examples / "label-studio" / "iaa-gate.yaml"


def example_config(ls_config: Path) -> dict:
    """The example config as a mapping, its source path made absolute (to save it elsewhere)."""
    cfg = yaml.safe_load(ls_config.read_text())
    cfg["source"]["path"] = str(ls_config.parent / cfg["source"]["path"])
    return cfg


def test_example_warns_and_writes_every_format(ls_config: Path, tmp_path: Path, capsys) -> None:
    code = run("run", "--config", str(ls_config), "--out", str(tmp_path))
    out = capsys.readouterr().out
    assert code == ExitCode.OK
    assert "iaa-gate ! warn" in out and "sentiment" in out and "not evaluated: notes" in out
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["verdict"] == "warn" and doc["schema_version"] == 2
    sentiment = doc["fields"]["sentiment"]
    assert sentiment["alpha"] == pytest.approx(0.7624674899766538, abs=1e-12)
    assert sentiment["categories"]["Mixed"] == pytest.approx(sentiment["lowest_category"]["rate"])
    # Every disputed task is a line of disputed-tasks.jsonl, by field then in review order
    # (priority, highest first; then score, lowest first; then task id); the report keeps the
    # first ones (here all 57: fewer than 100).
    lines = [json.loads(x) for x in (tmp_path / "disputed-tasks.jsonl").read_text().splitlines()]

    def review(x: dict) -> tuple:
        return (x["field"], -x.get("priority", -1.0), x["score"], x["id"])

    assert lines == sorted(lines, key=review)
    assert {x["field"] for x in lines} == {"sentiment", "topics", "helpfulness"}
    every = [
        {k: v for k, v in x.items() if k != "field"} for x in lines if x["field"] == "sentiment"
    ]
    assert len(every) == sentiment["n_disputed"] == 57
    assert all({"id", "score", "labels"} <= set(d) for d in every)
    assert sentiment["disputed"]["file"] == "disputed-tasks.jsonl"
    lowest = sentiment["disputed"]["lowest"]
    assert lowest == every  # all of them, in review order
    assert all(0 <= d["priority"] <= 1 and d["consensus"]["method"] == "dawid-skene" for d in every)
    outliers = [a["id"] for a in sentiment["annotators"] if a["outlier"]]
    assert outliers == ["5"]
    assert doc["not_evaluated"] == {"notes": "textarea"}
    assert {p.name for p in tmp_path.iterdir()} == {
        "report.json",
        "disputed-tasks.jsonl",
        "consensus.jsonl",
        "report.md",
        "report.html",
        "junit.xml",
    }
    assert "Disputed tasks" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "report.html").read_text().count("<script") == 1  # the page's own


def test_fail_on_warn_and_failing_threshold(ls_config: Path, tmp_path: Path) -> None:
    assert run("run", "-c", str(ls_config), "--out", str(tmp_path), "--fail-on-warn", "-q") == 1
    cfg = example_config(ls_config)
    cfg["fields"]["sentiment"]["thresholds"]["alpha"] = {"fail": 0.9}
    path = tmp_path / "strict.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert run("run", "-c", str(path), "--out", str(tmp_path), "-q") == ExitCode.GATE_FAILED
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["verdict"] == "fail"
    assert "below the fail threshold 0.9" in doc["fields"]["sentiment"]["checks"][0]["message"]


def test_round_window_and_task_ids(ls_config: Path, tmp_path: Path) -> None:
    assert run(
        "run",
        "-c",
        str(ls_config),
        "--out",
        str(tmp_path),
        "-q",
        "--from",
        "2026-11-01",
        "--to",
        "2026-11-07",
    ) in (0, 1)
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["round"]["from"].startswith("2026-11-01") and doc["input"]["outside_round"] > 0
    # round 2 is tasks 1756–1880; three of them (1798, 1833, 1866) have no annotation at all
    assert doc["fields"]["sentiment"]["n_tasks"] == 122
    run("run", "-c", str(ls_config), "--out", str(tmp_path), "-q", "--tasks", "1631-1640,1700")
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["fields"]["sentiment"]["n_tasks"] == 11


def test_the_prodigy_review_file_is_written_only_when_asked(examples: Path, tmp_path: Path) -> None:
    config = examples / "prodigy" / "iaa-gate.yaml"
    plain = tmp_path / "iaa-gate.yaml"
    text = config.read_text().replace("binary.jsonl", str(examples / "prodigy" / "binary.jsonl"))
    plain.write_text(text.replace("  enabled: true", "  enabled: false"))
    assert run("run", "-c", str(plain), "--out", str(tmp_path / "out"), "-q") == 0
    assert not (tmp_path / "out" / "disputed.jsonl").exists()
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert "writeback" not in doc or not doc["writeback"]


def test_prodigy_example_writes_review_file(examples: Path, tmp_path: Path) -> None:
    code = run(
        "run", "-c", str(examples / "prodigy" / "iaa-gate.yaml"), "--out", str(tmp_path), "-q"
    )
    assert code == 0
    doc = json.loads((tmp_path / "report.json").read_text())
    tasks = [json.loads(x) for x in (tmp_path / "disputed-tasks.jsonl").read_text().splitlines()]
    disputed = {d["id"] for d in tasks if d["field"] == "classification"}
    assert len(disputed) == doc["fields"]["classification"]["n_disputed"] > 0
    lines = [json.loads(x) for x in (tmp_path / "disputed.jsonl").read_text().splitlines()]
    assert {f"{x['_input_hash']}:{x['label']}" for x in lines} == disputed
    assert all(x["meta"]["iaa"]["status"] == "disputed" for x in lines)
    assert all("_annotator_id" in x or "_session_id" in x for x in lines)
    assert doc["writeback"]["disputed_examples"] == len(disputed)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: c["fields"].update({"nope": {}}), "field 'nope' does not occur in the data"),
        (lambda c: c["source"].update({"path": "missing.json"}), "missing.json: 1 problem(s)"),
        (
            lambda c: c["fields"]["sentiment"].update({"labels": ["Positive"]}),
            "label 'Negative' is not in the configured label set",
        ),
        (
            lambda c: c["fields"]["sentiment"]["thresholds"]["alpha"].update({"fail": 2}),
            "fields.sentiment.thresholds.alpha.fail: must be between -1 and 1",
        ),
    ],
)
def test_errors_exit_2_with_a_clear_message(
    ls_config: Path, tmp_path: Path, capsys, mutate, message
) -> None:
    cfg = example_config(ls_config)
    mutate(cfg)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert run("run", "-c", str(path), "--out", str(tmp_path)) == ExitCode.ERROR
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_validate_config_lists_every_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "source: {type: label-studio-export}\n"
        "fields:\n  sentiment:\n    level: nominl\n    thresholds: {alpha: {fail: 1.5}}\n"
        "reprot: {}\n"
    )
    assert run("validate-config", str(path)) == ExitCode.ERROR
    err = capsys.readouterr().err
    for expected in (
        "source.path: Field required",
        "fields.sentiment.level:",
        "fields.sentiment.thresholds.alpha.fail: must be between -1 and 1",
        "reprot: unknown key; did you mean 'report'?",
        "4 config errors",
    ):
        assert expected in err


def test_config_errors_say_what_was_meant_and_include_combinations(tmp_path: Path, capsys) -> None:
    """A misspelt key gets the closest known one, a key in the wrong section the section it
    belongs under, and a combination that cannot work (an interval level on text labels) is
    named even when other errors are present."""
    path = tmp_path / "bad.yaml"
    path.write_text(
        "version: 1\n"
        "source: {type: label-studio-export, path: export.json}\n"
        "bootstrap: {replicates: 100}\n"
        "fields:\n"
        "  sentiment: {labels: [Positive, Negative], level: interval}\n"
        "  topics: {thresolds: {alpha: {fial: 0.5}}}\n"
    )
    assert run("validate-config", str(path)) == ExitCode.ERROR
    err = capsys.readouterr().err
    for expected in (
        "3 config errors",
        "bootstrap: unknown key here; 'bootstrap' belongs under fields.<name>",
        "fields.topics.thresolds: unknown key; did you mean 'thresholds'?",
        "fields.sentiment.level: interval needs numbers, but labels has 'Positive'",
    ):
        assert expected in err, err
    assert "Extra inputs" not in err


def test_validate_example_configs(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "token")  # examples/serve reads both
    monkeypatch.setenv("IAA_GATE_WEBHOOK_SECRET", "secret")
    for path in (ROOT / "examples").glob("*/iaa-gate.yaml"):
        assert run("validate-config", str(path)) == 0
    assert run("validate-config", str(ROOT / "config" / "iaa-gate.example.yaml")) == 0


def test_yaml_syntax_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("source: [unclosed\n")
    assert run("validate-config", str(path)) == 2
    assert "line 2" in capsys.readouterr().err


def test_env_interpolation_keeps_secrets_out(
    tmp_path: Path, write_json, monkeypatch, capsys
) -> None:
    monkeypatch.setenv(
        "IAA_TEST_PATH",
        str(
            write_json(
                [
                    {
                        "id": 1,
                        "annotations": [
                            ls_annotation(1, 1, s=("choices", {"choices": ["A"]})),
                            ls_annotation(2, 2, s=("choices", {"choices": ["A"]})),
                        ],
                    }
                ]
            )
        ),
    )
    path = tmp_path / "c.yaml"
    path.write_text(
        "source: {type: label-studio-export, path: '${IAA_TEST_PATH}'}\nfields: {s: {}}\n"
        f"report: {{dir: '{tmp_path / 'r'}'}}\n"
    )
    assert run("run", "-c", str(path)) == 0  # one value only: alpha undefined → warn
    doc = json.loads((tmp_path / "r" / "report.json").read_text())
    assert doc["fields"]["s"]["alpha"] is None
    assert doc["fields"]["s"]["alpha_undefined_reason"]
    assert doc["fields"]["s"]["checks"][0]["verdict"] == "warn"


def test_config_schema_file_is_current() -> None:
    from iaa_gate.config import json_schema

    committed = json.loads((ROOT / "config" / "iaa-gate.schema.json").read_text())
    assert committed == json_schema(), "regenerate: iaa-gate schema > config/iaa-gate.schema.json"


def test_module_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "iaa_gate.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("iaa-gate ")


def test_console_script_flushes_and_exits_with_the_gate(ls_config: Path, tmp_path: Path) -> None:
    """``iaa-gate`` (``cli.entry``) ends a run without tearing its heap down: what it printed
    to a pipe still arrives whole, the reports are complete and the exit code is the gate's."""
    script = "from iaa_gate.cli import entry; entry()"
    common = ["run", "-c", str(ls_config), "--out", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, "-c", script, *common, "--json", "--fail-on-warn"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == ExitCode.GATE_FAILED, proc.stderr
    summary = json.loads(proc.stdout)  # the whole JSON summary, flushed before the exit
    assert summary["exit_code"] == ExitCode.GATE_FAILED and summary["verdict"] == "warn"
    for written in summary["reports"]:
        assert Path(written).stat().st_size > 0
    json.loads((tmp_path / "report.json").read_text())
    plain = subprocess.run(
        [sys.executable, "-c", script, *common], capture_output=True, text=True, check=False
    )
    assert plain.returncode == ExitCode.OK and plain.stdout.startswith("iaa-gate ! warn")
    assert plain.stdout.rstrip().splitlines()[-1].startswith("  report: ")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's mallopt",
)
def test_console_script_has_glibc_keep_the_memory_a_run_frees() -> None:
    """``cli.entry`` has glibc's malloc keep freed blocks for the run's next arrays instead of
    giving them back to the kernel page by page (a third of a large region run's CPU was page
    faults): glibc takes every setting. Asked in a child process, so this one keeps its own."""
    script = "from iaa_gate import cli; print(cli._keep_freed_memory())"
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip() == "True", proc.stderr


@pytest.mark.parametrize(("given", "threads"), [(None, 1), ("2", 2)])
def test_console_script_runs_numpy_blas_on_one_thread_unless_told(
    ls_config: Path, tmp_path: Path, given: str | None, threads: int
) -> None:
    """``cli.entry`` has numpy's BLAS compute on one thread for a run (its products are small;
    a second thread spins on the core the run's forked child needs, and adds in an order
    that depends on the machine), and keeps a thread count the user set. Asked in a child
    process, whose BLAS is loaded by the run itself."""
    pytest.importorskip("threadpoolctl")
    from iaa_gate.cli import BLAS_THREADS

    script = (
        "import os, sys\nfrom threadpoolctl import threadpool_info\nfrom iaa_gate import cli\n"
        "end = os._exit\n"
        "def done(code):\n"
        "    print([p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'])\n"
        "    sys.stdout.flush()\n"
        "    end(0)\n"
        "os._exit = done\n"
        f"sys.argv = ['iaa-gate', 'run', '-c', {str(ls_config)!r}, '--out', {str(tmp_path)!r}]\n"
        "sys.argv.append('--quiet')\ncli.entry()\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert proc.stdout.strip().splitlines()[-1] == str([threads]), proc.stderr


def test_console_script_ends_with_the_outcome_alive(
    ls_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cli.entry`` keeps the run's outcome (and its dataset) until the process ends, with the
    cyclic collector off: freeing the per-task results object by object cost 0.75 s of a
    20,000-task span run, and scanning them once more 0.45 s, for nothing."""
    import gc

    from iaa_gate import cli, pipeline

    run, seen = pipeline.run, {}

    def watched(*args: Any, **kwargs: Any) -> pipeline.Outcome:
        outcome = run(*args, **kwargs)
        seen["outcome"] = weakref.ref(outcome)
        return outcome

    def exit_(code: int) -> None:
        outcome = seen["outcome"]()
        seen["alive at exit"] = outcome is not None and outcome.dataset is not None
        seen["collector on"] = gc.isenabled()
        raise SystemExit(code)

    monkeypatch.setattr(pipeline, "run", watched)
    monkeypatch.setattr(os, "_exit", exit_)
    monkeypatch.setattr(cli, "_keep_freed_memory", lambda: True)  # this process keeps its own
    argv = ["iaa-gate", "run", "-c", str(ls_config), "--out", str(tmp_path), "--quiet"]
    monkeypatch.setattr(sys, "argv", argv)
    try:
        with pytest.raises(SystemExit) as done:
            cli.entry()
    finally:
        gc.enable()
    assert done.value.code == ExitCode.OK
    assert seen["alive at exit"] and not seen["collector on"]


def test_report_matches_its_schema(ls_config: Path, examples: Path, tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads(
        (ROOT / "plugin" / "iaa_gate" / "schemas" / "report.schema.json").read_text()
    )
    for cfg, out in (
        (ls_config, tmp_path / "ls"),
        (examples / "prodigy" / "iaa-gate.yaml", tmp_path / "p"),
    ):
        run("run", "-c", str(cfg), "--out", str(out), "-q")
        jsonschema.validate(json.loads((out / "report.json").read_text()), schema)


def test_reports_are_deterministic(ls_config: Path, tmp_path: Path) -> None:
    for out in ("a", "b"):
        run("run", "-c", str(ls_config), "--out", str(tmp_path / out), "-q")
    a = json.loads((tmp_path / "a" / "report.json").read_text())
    b = json.loads((tmp_path / "b" / "report.json").read_text())
    a.pop("generated_at"), b.pop("generated_at")
    assert a == b
    assert (tmp_path / "a" / "report.md").read_text() == (tmp_path / "b" / "report.md").read_text()


def test_report_never_echoes_url_credentials() -> None:
    from iaa_gate.config import parse_config
    from iaa_gate.pipeline import source_summary

    cfg = parse_config(
        {
            "source": {
                "type": "label-studio",
                "url": "http://bob:s3cret@localhost:8080/ls",
                "project": 1,
                "api_key": "token-123456",
            },
            "fields": {"a": {}},
        }
    )
    assert source_summary(cfg) == {
        "type": "label-studio",
        "url": "http://localhost:8080/ls",
        "project": 1,
        "view": None,
    }


def test_write_back_summaries_show_no_python_reprs(
    examples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Prodigy review file's summary in the terminal, report.md and report.html reads as
    words ("dry run no"), never a Python ``False`` or ``None`` (issue 14)."""
    code = run(
        "run",
        "-c",
        str(examples / "prodigy" / "iaa-gate.yaml"),
        "--out",
        str(tmp_path),
        "--format",
        "markdown",
        "--format",
        "html",
    )
    assert code == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "write-back:" in x)
    assert "False" not in line and "None" not in line
    # a sentence with its counts, not a list of keys
    assert re.fullmatch(
        r"  write-back: wrote \d+ disputed examples to \S+disputed.jsonl for prodigy review "
        r"\(\d+ with a proposed answer\)",
        line,
    ), line
    # report.md and report.html say the same sentence; the page adds a small table of counts
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    section = md.split("## Write-back", 1)[1]
    assert "write-back: wrote " in section and "False" not in section and "None" not in section
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    said = page.split('<p class="writeback">', 1)[1].split("</p>", 1)[0]
    assert said.startswith("write-back: wrote ") and "for prodigy review" in said
    table = page.split('id="writeback"', 1)[1].split("</table>", 1)[0]
    assert "<th>disputed examples</th>" in table and "False" not in table and "{" not in table


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("http://localhost:8080/projects/1/data?tab=3", "http://localhost:8080"),
        ("https://ls.example.org/label/projects/", "https://ls.example.org/label"),
        ("http://localhost:8080/user/account", "http://localhost:8080"),
    ],
)
def test_a_page_of_the_app_as_url_is_refused_with_the_base_url(
    url: str, base: str, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A URL copied from the browser's address bar is refused before any request, by init and
    by the config, naming the base URL to use (it used to end in 'project 1 not found')."""
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "token")
    assert run("init", "--project", "1", "--url", url, "-o", str(tmp_path / "c.yaml")) == 2
    err = capsys.readouterr().err
    assert f"is a page of the Label Studio app, not its base URL\n  hint: use --url {base}" in err
    path = tmp_path / "live.yaml"
    path.write_text(
        "version: 1\n"
        f"source: {{type: label-studio, url: '{url}', project: 1, api_key: k}}\n"
        "fields: {sentiment: {}}\n"
    )
    assert run("validate-config", str(path)) == 2
    assert f"source.url: {url} is a page of the Label Studio app, not its base URL: use {base}" in (
        capsys.readouterr().err
    )


def test_init_writes_the_thresholds_it_applies_and_the_html_report(tmp_path: Path, capsys) -> None:
    """The starting config says which thresholds gate each field (as a comment, from the config
    model's defaults) and asks for the HTML report; it validates and runs as written."""
    from iaa_gate.config import Thresholds, load_config

    example = ROOT / "examples" / "label-studio"
    out = tmp_path / "iaa-gate.yaml"
    args = ["--label-config", str(example / "label_config.xml"), "--export"]
    assert run("init", *args, str(example / "export.json"), "-o", str(out)) == 0
    text = out.read_text()
    t = Thresholds()
    assert (
        f"#   thresholds: {{alpha: {{fail: {t.alpha.fail:g}, warn: {t.alpha.warn:g}}}, "
        f"disputed_below: {t.disputed_below:g}}}\n" in text
    )
    assert "a task whose agreement score is below 0.5 is disputed" in text
    config = load_config(out)
    assert config.report.formats == ["json", "markdown", "html"]
    assert all(f.thresholds == t for f in config.fields.values())


def test_the_write_back_summary_is_a_sentence_and_the_dry_run_says_what_changes() -> None:
    from iaa_gate.evaluation.sections import Writeback
    from iaa_gate.sinks.report.format import writeback_lines

    plan = {
        "target": "label-studio",
        "project": 5,
        "meta_key": "iaa",
        "dry_run": True,
        "planned": 4,
        "done": 0,
        "unchanged": 7,
        "skipped": 0,
        "failed": 0,
        "disputed": 2,
        "warnings": [],
        "view_title": "IAA: disputed",
        "view_id": None,
        "view": "would create",
        "changes": [
            {"id": 1, "was": None, "now": "disputed", "data": True},
            {"id": 2, "was": "disputed", "now": "agreed", "data": False},
            {"id": 3, "was": "agreed", "now": "agreed", "data": False},
            {"id": 4, "was": "disputed", "now": None, "data": False},
        ],
    }
    assert writeback_lines(msgspec.convert(plan, Writeback)) == [
        "write-back (dry run, nothing written): 4 tasks of Label Studio project 5 would change, "
        "7 unchanged (2 disputed in all); tab 'IAA: disputed' would be created",
        "  task 1: would be flagged disputed (no entry yet); its data columns too",
        "  task 2: would go from disputed to agreed",
        "  task 3: stays agreed; its scores would be updated",
        "  task 4: its disputed entry would be removed (the task is no longer evaluated)",
    ]
    done = {
        **plan,
        "dry_run": False,
        "done": 3,
        "already_done": 0,
        "skipped": 1,
        "view": "created",
        "changes": [],
    }
    assert writeback_lines(msgspec.convert(done, Writeback)) == [
        "write-back: 3 tasks flagged in Label Studio project 5, 7 unchanged (2 disputed in "
        "all); 1 skipped: edited in Label Studio since the pull; tab 'IAA: disputed' created"
    ]
