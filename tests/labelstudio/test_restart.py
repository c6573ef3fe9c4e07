"""The server stops mid-pull and mid-write-back (killed, then restarted on its data): the pull ends
with exit 2 and no report; the write-back leaves no task half-written, exits 3, and a re-run reaches
exactly the state of an uninterrupted run (every task's full JSON compared).

This module starts its own server from the cached template, on a data dir it can restart on.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio.project import LabelStudioProject
from iaa_gate.cli import ExitCode

from .faultproxy import Fault, FaultProxy
from .helpers import REVIEW_CONFIG, report, run_cli
from .server import Annotator, LabelStudioServer, ensure_template
from .test_faults import config, quick_backoff, tasks

N = 16
__all__ = ["quick_backoff"]  # autouse here too
VOLATILE = {
    *("id", "task", "project", "file_upload", "annotations_ids"),
    *("created_at", "updated_at", "completed_at", "created_ago", "run"),
}
"""Keys that differ between two projects with the same tasks: ids and times."""


def comparable(value: Any) -> Any:
    """``value`` without :data:`VOLATILE` keys, at any depth."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def differences(a: Any, b: Any, at: str = "") -> list[str]:
    """The paths where ``a`` and ``b`` differ (a readable assertion)."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b))
        return [d for k in keys for d in differences(a.get(k), b.get(k), f"{at}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{at}[{i}]")]
    return [] if a == b else [f"{at}: {a!r} != {b!r}"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudioServer]:
    data = tmp_path_factory.mktemp("ls") / "data"
    shutil.copytree(ensure_template(), data, symlinks=True)
    ls = LabelStudioServer(data_dir=data)
    with ls:
        yield ls


def test_stopped_mid_pull_and_mid_write_back(
    server: LabelStudioServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", server.token)
    users = []
    for i in (1, 2, 3):
        user = server.api("POST", "/api/users/", {"username": f"a{i}", "email": f"a{i}@x.test"})
        users.append(Annotator(user["id"], user["email"]))
    pids = []
    for title in ("twin", "interrupted"):
        p = server.api("POST", "/api/projects/", {"title": title, "label_config": REVIEW_CONFIG})
        server.api("POST", f"/api/projects/{p['id']}/import", tasks(users, N))
        pids.append(p["id"])
    twin, pid = pids
    make = LabelStudioProject.from_config

    def small_pages(cls: type, *args: Any, **kwargs: Any) -> LabelStudioProject:
        source = make(*args, **kwargs)
        source.page_size = 5  # so that the pull can stop in the middle
        return source

    monkeypatch.setattr(LabelStudioProject, "from_config", classmethod(small_pages))
    (tmp_path / "twin").mkdir()
    assert run_cli("run", "-c", str(config(tmp_path / "twin", server.url, twin)), "-q") == 0

    with FaultProxy(server.url) as proxy:
        cfg = config(tmp_path, proxy.url, pid, retries=2)
        out = tmp_path / "out"

        # stopped mid-pull: exit 2 after the retries, and no report at all
        proxy.add(Fault("GET", "/api/tasks/", "hook", hook=server.kill, after=1))
        assert run_cli("run", "-c", str(cfg)) == ExitCode.ERROR
        err = capsys.readouterr().err
        assert "dropped the connection while reading tasks (page 2) (3 attempts)" in err
        assert not out.exists()

        # stopped mid-write-back: the tasks written are whole, the others untouched, exit 3
        server.start()
        proxy.upstream = server.url
        before = {t["id"]: t for t in server.list_tasks(pid)}
        proxy.clear()
        proxy.add(Fault("PATCH", "/api/tasks/", "hook", hook=server.kill, after=6))
        assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.WRITEBACK_FAILED
        summary = report(out)["writeback"]
        done = summary["done"]
        assert done >= 3 and summary["failed"] == N - done, (summary, proxy.log)
        server.start()
        proxy.upstream = server.url
        after = {t["id"]: t for t in server.list_tasks(pid)}
        written = [t for t in after if "iaa" in after[t]["meta"]]
        assert done <= len(written) <= done + 3  # + those in flight when it was killed
        for t, task in after.items():
            if t not in written:
                assert comparable(task) == comparable(before[t])
            else:
                assert task["data"]["iaa_disputed"] is task["meta"]["iaa"]["disputed"]

        # a re-run completes it: the same state as the uninterrupted twin, task by task
        proxy.clear()
        assert run_cli("run", "-c", str(cfg), "-q") == ExitCode.OK
        assert report(out)["writeback"]["done"] == N - len(written)
    done = [comparable(t) for t in server.list_tasks(pid)]
    assert differences(done, [comparable(t) for t in server.list_tasks(twin)]) == []
