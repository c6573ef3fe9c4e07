"""Time pulling tasks with annotations from a real Label Studio, and meta write-back.

Run from the repo root: ``python bench/bench_label_studio.py`` (needs ``iaa-gate[label-studio]``
for the SDK rows; the server itself comes from the test harness in ``tests/labelstudio``).
Prints Markdown tables: raw API paths (``--skip-raw`` leaves them out), then iaa-gate's own
source (``LabelStudioProject``, each pull method) and write-back (first run, then a re-run on the
same data). Results are recorded in ``bench/LABEL_STUDIO_PULL.md`` and ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "labelstudio"))
from server import LabelStudioServer

from iaa_gate.adapters.label_studio.project import LabelStudioProject
from iaa_gate.config import parse_config
from iaa_gate.pipeline import evaluate
from iaa_gate.sinks.label_studio import LabelStudioFlags

CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text"><Choice value="pos"/><Choice value="neg"/></Choices>
  <Rating name="quality" toName="text" maxRating="5"/>
</View>"""
ANN_FIELDS = "result,completed_by,was_cancelled,ground_truth,lead_time,created_at,updated_at"


def make_tasks(n: int, users: list[int]) -> list[dict[str, Any]]:
    """``n`` tasks, each annotated once by every user."""
    return [
        {
            "data": {"text": f"task {i}: " + "lorem ipsum dolor sit amet " * 4},
            "meta": {"source": "bench"},
            "annotations": [
                {
                    "completed_by": u,
                    "lead_time": 3.5,
                    "result": [
                        {
                            "from_name": "sentiment",
                            "to_name": "text",
                            "type": "choices",
                            "value": {"choices": ["pos" if (i + j) % 3 else "neg"]},
                        },
                        {
                            "from_name": "quality",
                            "to_name": "text",
                            "type": "rating",
                            "value": {"rating": 1 + (i + j) % 5},
                        },
                    ],
                }
                for j, u in enumerate(users)
            ],
        }
        for i in range(n)
    ]


def get_raw(server: LabelStudioServer, path: str) -> bytes:
    """GET ``path`` as the admin; return the body."""
    req = urllib.request.Request(
        server.url + path, headers={"Authorization": f"Token {server.token}"}
    )
    with urllib.request.urlopen(req, timeout=600) as resp:
        return bytes(resp.read())


def paged(
    server: LabelStudioServer, project: int, size: int, include: str | None
) -> tuple[list[dict[str, Any]], int, int]:
    """Page through ``/api/tasks/`` to a short page or a 404; return (tasks, requests, bytes)."""
    tasks: list[dict[str, Any]] = []
    page, nbytes = 0, 0
    while True:
        page += 1
        path = f"/api/tasks/?project={project}&fields=all&page_size={size}&page={page}"
        try:
            body = get_raw(server, path + (f"&include={include}" if include else ""))
        except urllib.error.HTTPError as exc:  # a page past the end answers 404
            if exc.code == 404 and page > 1:
                return tasks, page, nbytes
            raise
        nbytes += len(body)
        batch = json.loads(body)["tasks"]
        tasks += batch
        if len(batch) < size:
            return tasks, page, nbytes


def timed(fn: Callable[[], tuple[list[dict[str, Any]], int, int]]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def bench_config(ls: LabelStudioServer, pid: int, **extra: Any) -> Any:
    """A config reading project ``pid`` live, alpha only, write-back on."""
    fields = {"coefficients": ["alpha"], "bootstrap": {"replicates": 0}}
    data = {
        "source": {"type": "label-studio", "url": ls.url, "project": pid, "api_key": ls.token},
        "fields": {"sentiment": fields, "quality": fields},
        "writeback": {"enabled": True, "view": "IAA: disputed"},
        **extra,
    }
    return parse_config(data, "bench")


def ours(ls: LabelStudioServer, pid: int, pulls: int, flag_tasks: int) -> list[str]:
    """Markdown rows: iaa-gate's source by each pull method, then write-back twice."""
    config = bench_config(ls, pid)
    lines = [
        f"| iaa-gate source (`LabelStudioProject`) | tasks | annotations | s (best of {pulls}) |",
        "|---|---:|---:|---:|",
    ]
    for method in ("tasks", "export"):
        best = float("inf")
        for _ in range(pulls):
            source = LabelStudioProject.from_config(config.source)
            source.method = method
            start = time.perf_counter()
            dataset = source.load()
            best = min(best, time.perf_counter() - start)
        n = len(dataset.annotations)
        lines.append(f"| `{method}` | {len(dataset.task_ids)} | {n} | {best:.2f} |")
        print(f"source {method}: {best:.2f} s", file=sys.stderr)

    first = min(source.tasks)
    ids = [f"{first}-{first + flag_tasks - 1}"]  # the round: the first flag_tasks tasks
    config = bench_config(ls, pid, round={"task_ids": ids})
    lines += [
        "",
        f"| write-back, {flag_tasks} tasks | planned | written | unchanged | disputed | s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label in ("first run", "re-run, same data"):
        source = LabelStudioProject.from_config(config.source)
        outcome = evaluate(config, source.load())
        sink = LabelStudioFlags.for_run(source, config)
        start = time.perf_counter()
        summary = sink.apply(outcome.results)
        sec = time.perf_counter() - start
        lines.append(
            f"| {label} | {summary['planned']} | {summary['done']} | {summary['unchanged']} | "
            f"{summary['disputed']} | {sec:.1f} |"
        )
        print(f"write-back {label}: {sec:.1f} s ({summary})", file=sys.stderr)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--patches", type=int, default=1000)
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--pulls", type=int, default=2, help="repeats of each source pull")
    parser.add_argument("--skip-raw", action="store_true", help="only iaa-gate's source")
    args = parser.parse_args()
    rows: list[tuple[str, int, int, int, int, float, float]] = []
    tail: list[str] = []

    def row(name: str, sec: float, tasks: list[dict[str, Any]], nreq: int, nbytes: int) -> None:
        anns = [a for t in tasks for a in t.get("annotations", [])]
        full = sum("result" in a and "completed_by" in a for a in anns)
        rows.append((name, nreq, len(tasks), len(anns), full, nbytes / 1e6, sec))
        print(f"{name}: {sec:.2f} s", file=sys.stderr)

    t0 = time.perf_counter()
    with LabelStudioServer() as ls:
        print(f"server up in {time.perf_counter() - t0:.1f} s at {ls.url}", file=sys.stderr)
        users = []
        for i in range(3):
            email, name = f"bench{i}@iaa-gate.test", f"bench{i}"
            body = {"username": name, "email": email, "password": "bench-pw-1"}
            users.append(ls.api("POST", "/api/users/", body)["id"])
        pid = ls.api("POST", "/api/projects/", {"title": "bench", "label_config": CONFIG})["id"]
        sec, _ = timed(
            lambda: ls.api(
                "POST", f"/api/projects/{pid}/import", make_tasks(args.tasks, users), timeout=600
            )
        )
        print(f"import {args.tasks} tasks x 3 annotations: {sec:.1f} s", file=sys.stderr)
        tail = ours(ls, pid, args.pulls, args.patches)
        if args.skip_raw:
            print("\n".join(tail))
            return
        size = args.page_size
        for name, include in [
            ("GET /api/tasks fields=all", None),
            (
                "GET /api/tasks fields=all include=id,data,meta,annotations (ids only!)",
                "id,data,meta,annotations",
            ),
            (
                "GET /api/tasks fields=all include=id,data,meta,annotations,<ann fields>",
                f"id,data,meta,annotations,{ANN_FIELDS}",
            ),
        ]:
            sec, (tasks, nreq, nbytes) = timed(lambda inc=include: paged(ls, pid, size, inc))
            row(f"{name} page_size={size}", sec, tasks, nreq, nbytes)

        def export() -> tuple[list[dict[str, Any]], int, int]:
            query = "exportType=JSON&download_all_tasks=true"
            body = get_raw(ls, f"/api/projects/{pid}/export?{query}")
            return json.loads(body), 1, len(body)

        sec, out = timed(export)
        row("GET /api/projects/P/export?exportType=JSON&download_all_tasks=true", sec, *out)
        pulled = {t["id"]: t for t in out[0]}
        try:
            from label_studio_sdk import LabelStudio
        except ImportError:
            print("label-studio-sdk not installed: SDK rows skipped", file=sys.stderr)
        else:
            sdk = LabelStudio(base_url=ls.url, api_key=ls.token)

            def snapshot() -> tuple[list[dict[str, Any]], int, int]:
                snap = sdk.projects.exports.create(id=pid, title="bench")
                body = b"".join(
                    sdk.projects.exports.download(id=pid, export_pk=snap.id, export_type="JSON")
                )
                return json.loads(body), 2, len(body)

            def as_json() -> tuple[list[dict[str, Any]], int, int]:
                return sdk.projects.exports.as_json(pid), 2, 0

            def sdk_list() -> tuple[list[dict[str, Any]], int, int]:
                tasks = [t.model_dump() for t in sdk.tasks.list(project=pid, page_size=size)]
                return tasks, 0, 0

            for name, fn in [
                ("SDK projects.exports.create + download (snapshot)", snapshot),
                ("SDK projects.exports.as_json", as_json),
                (f"SDK tasks.list page_size={size}", sdk_list),
            ]:
                sec, out = timed(fn)
                row(name, sec, *out)

        ids = sorted(pulled)[: args.patches]
        start = time.perf_counter()
        for n, tid in enumerate(ids):  # read-merge-write: GET the task, merge, PATCH
            meta = ls.api("GET", f"/api/tasks/{tid}/")["meta"]
            ls.api("PATCH", f"/api/tasks/{tid}/", {"meta": {**meta, "iaa_flag": n % 2}})
        rmw = time.perf_counter() - start
        start = time.perf_counter()
        for n, tid in enumerate(ids):  # merge into the meta already pulled: PATCH only
            ls.api("PATCH", f"/api/tasks/{tid}/", {"meta": {**pulled[tid]["meta"], "iaa_r": n}})
        patch_only = time.perf_counter() - start
        assert ls.api("GET", f"/api/tasks/{ids[-1]}/")["meta"].keys() == {"source", "iaa_r"}

    print("| method | requests | tasks | annotations | with result+completed_by | MB | s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, nreq, ntask, nann, full, mb, sec in rows:
        size_mb, req = f"{mb:.1f}" if mb else "-", nreq or "-"
        print(f"| {name} | {req} | {ntask} | {nann} | {full} | {size_mb} | {sec:.2f} |")
    n = len(ids)
    print(
        f"\n| write-back of task meta | PATCHes | s | ms/task |\n|---|---:|---:|---:|\n"
        f"| read-merge-write (GET + PATCH) | {n} | {rmw:.1f} | {1000 * rmw / n:.0f} |\n"
        f"| merge into pulled meta (PATCH only) | {n} | {patch_only:.1f} | "
        f"{1000 * patch_only / n:.0f} |"
    )
    print("\n" + "\n".join(tail))


if __name__ == "__main__":
    main()
