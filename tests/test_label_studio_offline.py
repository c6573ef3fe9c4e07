"""The Label Studio code paths that need no server: the labeling config and ``init --label-config``,
the lazy SDK import, write-back planning, and (with a mocked HTTP layer) retries and failures that a
real server does not easily produce."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from iaa_gate.adapters.label_studio.label_config import fields_config, parse_label_config
from iaa_gate.cli import ExitCode, main
from iaa_gate.config import WriteBackConfig, parse_config
from iaa_gate.core.errors import ConfigError, IaaGateError, InputError
from iaa_gate.evaluation.results import UnitResult
from iaa_gate.sinks.label_studio import NO_TASK, LabelStudioFlags, entries

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "label-studio"


def test_label_config_fields_labels_and_levels() -> None:
    controls = parse_label_config((EXAMPLE / "label_config.xml").read_text())
    assert [(c.name, c.kind, c.level, c.evaluated) for c in controls] == [
        ("sentiment", "choices", "nominal", True),
        ("topics", "choices", "nominal", True),
        ("helpfulness", "rating", "ordinal", True),
        ("notes", "textarea", None, False),
    ]
    assert fields_config(controls) == {
        "sentiment": {"multiple": False, "labels": ["Positive", "Negative", "Neutral", "Mixed"]},
        "topics": {
            "multiple": True,
            "labels": ["Price", "Quality", "Shipping", "Support", "Packaging"],
        },
        "helpfulness": {"level": "ordinal"},
    }


def test_label_config_other_controls() -> None:
    xml = """<View>
      <Taxonomy name="tax" toName="t"><Choice value="A"><Choice value="A1"/></Choice>
        <Choice value="B"/></Taxonomy>
      <Number name="price" toName="t" min="0"/>
      <Labels name="ents" toName="t"><Label value="PER"/></Labels>
      <Choices name="dyn" toName="t" value="$options"/>
      <Choices name="aliased" toName="t">
        <Choice value="Yes" alias="y"/><Choice value="No"/>
      </Choices>
      <Choices name="region" toName="t" perRegion="true"><Choice value="x"/></Choices>
    </View>"""
    got = {c.name: c for c in parse_label_config(xml)}
    assert got["tax"].labels == ("A", "A / A1", "B") and got["tax"].level == "nominal"
    assert got["price"].level == "interval" and got["price"].labels is None
    assert got["ents"].evaluated and got["ents"].labels == ("PER",)
    assert "region" not in got and got["ents.region"].evaluated  # a per-region attribute
    assert got["ents.region"].labels == ("x",)
    assert got["dyn"].labels is None and got["dyn"].evaluated
    assert got["aliased"].labels == ("y", "No")
    with pytest.raises(InputError, match="not valid XML"):
        parse_label_config("<View><Choices name='x'></View>", "cfg.xml")


def test_init_offline_writes_a_config_that_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "iaa-gate.yaml"
    export = EXAMPLE / "export.json"
    xml = str(EXAMPLE / "label_config.xml")
    code = main(["init", "--label-config", xml, "--export", str(export), "--out", str(out)])
    assert code == ExitCode.OK
    cfg = yaml.safe_load(out.read_text())
    assert cfg["source"] == {  # relative to the written config, so it works from anywhere
        "type": "label-studio-export",
        "path": os.path.relpath(export, tmp_path),
        "label_config": os.path.relpath(xml, tmp_path),
    }
    assert set(cfg["fields"]) == {"sentiment", "topics", "helpfulness"}
    assert cfg["fields"]["sentiment"]["multiple"] is False  # written out, never guessed
    assert "writeback" not in cfg and "# notes: {}" in out.read_text()
    monkeypatch.chdir(EXAMPLE)
    assert main(["validate-config", str(out)]) == ExitCode.OK
    assert main(["run", "-c", str(out), "--out", str(tmp_path / "r"), "-q"]) in (0, 1)
    capsys.readouterr()
    assert main(["init", "--label-config", str(EXAMPLE / "label_config.xml"), "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["init"]) == ExitCode.ERROR
    assert "init needs --project ID --url URL" in capsys.readouterr().err


def test_init_live_needs_the_key_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MY_LS_KEY", raising=False)
    argv = ["init", "--project", "3", "--url", "http://127.0.0.1:9", "--api-key-env", "MY_LS_KEY"]
    assert main(argv) == ExitCode.ERROR
    assert "MY_LS_KEY is not set" in capsys.readouterr().err


def test_writeback_needs_a_source_that_can_be_written_back_to() -> None:
    with pytest.raises(
        ConfigError,
        match=r"writeback: enabled needs a source that can be written back to: label-studio "
        r"\(flags on the project's tasks.*prodigy \(the review file disputed\.jsonl.*"
        r"a label-studio-export source has none",
    ):
        parse_config(
            {
                "source": {"type": "label-studio-export", "path": "x.json"},
                "fields": {"a": {}},
                "writeback": {"enabled": True},
            }
        )
    assert WriteBackConfig().enabled is False


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_cli_and_export_runs_do_not_import_the_sdk(tmp_path: Path) -> None:
    proc = _python(
        f"""
        import sys
        import iaa_gate.cli
        assert "label_studio_sdk" not in sys.modules, "import iaa_gate.cli"
        code = iaa_gate.cli.main(["run", "-c", "examples/label-studio/iaa-gate.yaml",
                                  "--out", {str(tmp_path)!r}, "-q"])
        assert code == 0, code
        assert "label_studio_sdk" not in sys.modules, "run on an export"
        assert "httpx" not in sys.modules
        """
    )
    assert proc.returncode == 0, proc.stderr


def test_live_source_without_the_sdk_says_how_to_install(tmp_path: Path) -> None:
    cfg = tmp_path / "live.yaml"
    cfg.write_text(
        "source: {type: label-studio, url: 'http://127.0.0.1:9', project: 1, api_key: k3y-123}\n"
        "fields: {sentiment: {}}\n"
    )
    proc = _python(
        f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "label_studio_sdk":
                    raise ImportError("blocked")
        sys.meta_path.insert(0, Block())
        import iaa_gate.cli
        sys.exit(iaa_gate.cli.main(["run", "-c", {str(cfg)!r}]))
        """
    )
    assert proc.returncode == ExitCode.ERROR
    assert proc.stderr.strip().splitlines() == [
        "iaa-gate: error: the live Label Studio source needs the SDK: "
        'pip install "iaa-gate[label-studio]"'
    ]


# -- write-back planning ---------------------------------------------------------------------


def _results(**units: list[UnitResult]) -> dict[str, Any]:
    return {name: SimpleNamespace(units=u, states=None) for name, u in units.items()}


def test_entries_overall_status_and_labels_in_conflict() -> None:
    nan = float("nan")
    flagged = entries(
        _results(
            a=[
                UnitResult(1, "disputed", 1 / 3, {"x@y": "P", "z@y": "N"}),
                UnitResult(2, "agreed", 1.0, {"x@y": "P", "z@y": "P"}),
                UnitResult(3, "too_few", nan, {"x@y": "P"}),
            ],
            b=[UnitResult(2, "agreed", 0.9375, {"x@y": 4, "z@y": 5})],
        ),
        "h",
    )
    got = {t: e.as_meta() for t, e in flagged.items()}  # as the task's meta holds it
    assert got[1] == {
        "status": "disputed",
        "disputed": True,
        "score": 0.3333,
        "fields": {
            "a": {"status": "disputed", "score": 0.3333, "labels": {"x@y": "P", "z@y": "N"}}
        },
        "config": "h",
    }
    assert got[2]["status"] == "agreed" and got[2]["score"] == 0.9375
    assert got[2]["fields"]["b"] == {"status": "agreed", "score": 0.9375}
    assert got[3] == {
        "status": "too_few",
        "disputed": False,
        "score": None,
        "fields": {"a": {"status": "too_few", "score": None}},
        "config": "h",
    }


def test_view_filters_compress_runs_and_match_nothing_when_empty() -> None:
    flags = LabelStudioFlags(SimpleNamespace(), WriteBackConfig(enabled=True), "h")
    items = flags.view_filters([5, 1, 2, 3, 9, 10])["items"]
    assert [(i["operator"], i["value"]) for i in items] == [
        ("in", {"min": 1, "max": 3}),
        ("equal", 5),
        ("equal", 9),
        ("equal", 10),
    ]
    assert flags.view_filters([]) == {"conjunction": "or", "items": [NO_TASK]}


# -- a mocked HTTP layer: what a real server does not easily produce ---------------------------


class FakeServer:
    """Answers the few endpoints the source and the write-back use; ``fail`` maps
    ``(method, path, page)`` to how many times to answer 503 first."""

    def __init__(self, tasks: int = 5, fail: dict[tuple[str, str, int], int] | None = None):
        self.tasks = [
            {
                "id": 100 + i,
                "meta": {"keep": i},
                "annotations": [
                    {
                        "id": 10 * i + j,
                        "completed_by": j,
                        "result": [
                            {
                                "from_name": "s",
                                "to_name": "t",
                                "type": "choices",
                                "value": {"choices": ["A" if j or i % 2 else "B"]},
                            }
                        ],
                    }
                    for j in (1, 2)
                ],
            }
            for i in range(tasks)
        ]
        self.fail = dict(fail or {})
        self.down = False  # True: PATCHes meet a refused connection
        self.reread: dict[int, bytes] = {}  # task id → the body a GET of it answers with
        self.log: list[tuple[str, str, int]] = []
        self.views_posted: list[Any] = []  # the bodies of POST /api/dm/views/

    def __call__(self, request: Any) -> Any:
        import httpx

        page = int(request.url.params.get("page", 0))
        key = (request.method, request.url.path, page)
        self.log.append(key)
        if self.down and request.method == "PATCH":
            raise httpx.ConnectError("refused", request=request)
        if self.fail.get(key, 0) > 0:
            self.fail[key] -= 1
            return httpx.Response(503, json={"detail": "busy"})
        path = request.url.path
        if path == "/api/projects/1/":
            return httpx.Response(200, json={"id": 1, "title": "P", "label_config": "<View/>"})
        if path == "/api/users/":
            users = [{"id": 1, "email": "one@x"}, {"id": 2, "email": "two@x"}]
            return httpx.Response(200, json=users)
        if path == "/api/tasks/":
            size = int(request.url.params["page_size"])
            chunk = self.tasks[(page - 1) * size : page * size]
            if not chunk:
                return httpx.Response(404, json={"detail": "Invalid page."})
            return httpx.Response(200, json={"total": len(self.tasks), "tasks": chunk})
        if path.startswith("/api/tasks/"):
            task = next(t for t in self.tasks if t["id"] == int(path.split("/")[3]))
            if request.method == "GET" and task["id"] in self.reread:
                return httpx.Response(200, content=self.reread[task["id"]])
            if request.method == "PATCH":
                task["meta"] = json.loads(request.content)["meta"]
            return httpx.Response(200, json=task)
        if path == "/api/dm/views/":
            if request.method == "POST":
                self.views_posted.append(json.loads(request.content))
            return httpx.Response(200, json=[] if request.method == "GET" else {"id": 7})
        return httpx.Response(404, json={"detail": "Not found."})


@pytest.fixture
def fake(no_backoff: list[float]) -> Any:
    """A factory: ``fake(server)`` → a LabelStudioProject talking to it (no backoff sleeps)."""
    sdk = pytest.importorskip("label_studio_sdk")
    import httpx
    from pydantic import SecretStr

    from iaa_gate.adapters.label_studio.project import LabelStudioProject

    def make(server: FakeServer, **kw: Any) -> LabelStudioProject:
        client = sdk.LabelStudio(
            base_url="http://ls.test",
            api_key="fake-token-123",
            httpx_client=httpx.Client(transport=httpx.MockTransport(server)),
        )
        return LabelStudioProject(
            "http://ls.test", SecretStr("fake-token-123"), 1, client=client, page_size=2, **kw
        )

    return make


def test_a_503_mid_pull_is_retried(fake: Any) -> None:
    server = FakeServer(fail={("GET", "/api/tasks/", 2): 2})
    dataset = fake(server).load()
    assert len(dataset.task_ids) == 5 and len(dataset.annotations) == 10
    assert dataset.annotator_names == {"1": "one@x", "2": "two@x"}
    assert [k for k in server.log if k[1] == "/api/tasks/"] == [
        ("GET", "/api/tasks/", p) for p in (1, 2, 2, 2, 3)
    ]


def test_a_503_that_persists_is_a_clear_error(fake: Any) -> None:
    server = FakeServer(fail={("GET", "/api/tasks/", 2): 4})
    with pytest.raises(IaaGateError) as err:
        fake(server).load()
    message = str(err.value)
    assert "http://ls.test answered HTTP 503 (busy) while reading tasks (page 2)" in message
    assert "(4 attempts)" in message and "fake-token" not in message


def test_a_write_failing_with_503_is_retried_then_reported(fake: Any) -> None:
    server = FakeServer(fail={("PATCH", "/api/tasks/101/", 0): 4})
    source = fake(server)
    source.load()
    units = [UnitResult(100 + i, "disputed" if i % 2 == 0 else "agreed", 0.5, {}) for i in range(5)]
    flags = LabelStudioFlags(source, WriteBackConfig(enabled=True), "h")
    summary = flags.apply(_results(s=units))
    assert (summary.planned, summary.done, summary.failed) == (5, 4, 1)
    assert summary.failed_tasks and summary.failed_tasks[0].id == 101
    assert "503" in summary.failed_tasks[0].error and not summary.complete
    assert server.log.count(("PATCH", "/api/tasks/101/", 0)) == 4
    assert source.tasks[101].meta == {"keep": 1}  # the pulled state: not half-written
    assert source.tasks[100].meta["iaa"]["status"] == "disputed"
    assert source.tasks[100].meta["keep"] == 0
    assert summary.view == "created" and summary.view_id == 7
    # a project with no tab gets the Default tab first: ours alone would hide every other task
    assert [r for r in server.log if r[0] == "POST"] == [("POST", "/api/dm/views/", 0)] * 2
    assert server.views_posted[0]["data"] == {"title": "Default"}
    assert server.views_posted[1]["data"]["title"] == "IAA: disputed"


def test_a_re_read_that_is_not_the_task_fails_the_write_and_is_never_an_edit(fake: Any) -> None:
    """An empty answer, an empty object or another task's, to the GET before a PATCH: the task
    is not written and is listed as failed (a re-run writes it), not skipped as "changed since
    the pull"."""
    server = FakeServer()
    source = fake(server)
    source.load()
    server.reread = {102: b"", 103: json.dumps(server.tasks[4]).encode(), 101: b"{}"}
    units = [UnitResult(100 + i, "disputed", 0.5, {}) for i in range(5)]
    summary = LabelStudioFlags(source, WriteBackConfig(enabled=True), "h").apply(_results(s=units))
    assert (summary.done, summary.skipped, summary.failed) == (2, 0, 3)
    errors = {f.id: f.error for f in summary.failed_tasks or []}
    assert "re-reading task 101 with an object with no id, not the task" in errors[101]
    assert "re-reading task 102 with an empty body, not the task" in errors[102]
    assert "re-reading task 103 with task 104, not the task" in errors[103]
    assert not any(("PATCH", f"/api/tasks/{t}/", 0) in server.log for t in (101, 102, 103))
    assert [source.tasks[t].meta for t in (101, 102, 103)] == [{"keep": k} for k in (1, 2, 3)]


def test_writes_are_given_up_when_the_server_stops_answering(fake: Any) -> None:
    server = FakeServer(tasks=40)
    source = fake(server)
    source.load()
    server.down = True
    units = [UnitResult(100 + i, "agreed", 1.0, {}) for i in range(40)]
    summary = LabelStudioFlags(source, WriteBackConfig(enabled=True, view=None), "h").apply(
        _results(s=units)
    )
    assert (summary.planned, summary.done, summary.failed) == (40, 0, 40)
    errors = [f.error for f in summary.failed_tasks or []]
    assert any("cannot reach Label Studio at http://ls.test" in e for e in errors)
    assert len({k for k in server.log if k[0] == "PATCH"}) < 40
    assert all(t.meta == {"keep": t.meta["keep"]} for t in source.tasks.values())


def test_write_back_scope_follows_the_round() -> None:
    """Tasks outside the round keep their entries; in it, a task with no result loses its own."""
    from datetime import datetime, timezone

    from iaa_gate.adapters.label_studio.project import PulledTask
    from iaa_gate.model import RoundFilter

    old = {"iaa": {"status": "disputed", "disputed": True}, "other": 1}
    source = SimpleNamespace(tasks={t: PulledTask(dict(old)) for t in (1, 2, 3)})
    results = _results(s=[UnitResult(1, "agreed", 1.0, {})])
    in_round = RoundFilter(task_ids=frozenset({1, 2}))
    changes, unchanged, disputed = LabelStudioFlags(source, WriteBackConfig(), "h", in_round).plan(
        results
    )
    assert [(c.id, c.was, c.status) for c in changes] == [
        (1, "disputed", "agreed"),
        (2, "disputed", None),
    ]
    assert changes[1].meta == {"other": 1} and (unchanged, disputed) == (0, [])
    since = RoundFilter(start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    changes, _, _ = LabelStudioFlags(source, WriteBackConfig(), "h", since).plan(results)
    assert [c.id for c in changes] == [1]


def test_pull_and_write_back_report_progress_through_core_progress_only(
    fake: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The client draws nothing itself: the pull (pages) and the write-back announce their
    steps to the listener the caller installed, and with none nothing is written."""
    from iaa_gate.core import progress

    steps: dict[str, list[Any]] = {}

    class Step:
        def __init__(self, seen: list[Any]) -> None:
            self.seen = seen

        def advance(self, n: int) -> None:
            self.seen[1] += n

        def close(self) -> None:
            self.seen[2] = True

    def listen(what: str, total: int, unit: str, estimate: float | None) -> Step:
        steps[what] = [total, 0, False]
        return Step(steps[what])

    source = fake(FakeServer())
    source.load()
    units = [UnitResult(100 + i, "disputed", 0.5, {}) for i in range(5)]
    LabelStudioFlags(source, WriteBackConfig(enabled=True), "h").apply(_results(s=units))
    assert capsys.readouterr().err == "" and steps == {}
    with progress.reporting(listen):
        source = fake(FakeServer())
        source.load()
        LabelStudioFlags(source, WriteBackConfig(enabled=True), "h").apply(_results(s=units))
    assert steps["pull project 1"] == [5, 5, True] and steps["write-back"] == [5, 5, True]
    assert capsys.readouterr().err == ""


def test_retry_waits_honour_retry_after_and_back_off() -> None:
    """Which failures are retried, and after how long (before jitter of at most 25%)."""
    from iaa_gate.adapters.label_studio.client import MAX_BACKOFF, StatusError, retry_wait

    class ReadTimeout(Exception):  # httpx's name: matched by name, httpx is imported lazily
        pass

    assert retry_wait(StatusError(404, {}), 0) is None  # a refusal: retrying cannot help
    assert retry_wait(StatusError(401, {}), 0) is None
    assert retry_wait(ValueError("not JSON"), 0) is None
    assert retry_wait(StatusError(429, {}, {"retry-after": "7"}), 0) == 7
    assert retry_wait(StatusError(503, {}, {"retry-after": "9999"}), 0) == MAX_BACKOFF
    for attempt, base in ((0, 0.5), (1, 1.0), (3, 4.0), (10, MAX_BACKOFF)):
        wait = retry_wait(ReadTimeout(), attempt)
        assert wait is not None and base <= wait <= base * 1.25
