"""``iaa-gate serve`` against a real Label Studio: latency, a burst, memory.

Run from the repo root: ``python bench/bench_serve.py [latency] [burst] [memory]`` (the server
comes from the test harness in ``tests/labelstudio``, started with SSRF protection off so its
webhooks reach 127.0.0.1). Figures are recorded in ``bench/README.md``.

- ``latency``: annotations created through the API as three users at a steady rate (default 10
  per second); Label Studio posts each webhook inside the request that saves it. The lag is from
  the webhook's arrival at the service to the task's flag written in Label Studio (the GET and
  PATCH of the write-back counted), as the service measures it (``/metrics``). Reference in the
  same run: ``iaa-gate run`` with write-back on the same project (what a cron job would do).
- ``burst``: 5,000 annotations' webhooks posted as fast as one client can (Label Studio sends
  one at a time, synchronously, so it cannot send faster), then the time until every flag is
  written, the acknowledgement time per webhook, and the state compared with a batch run.
- ``memory``: the state of 10^5 tasks × 3 annotations built from events (no server), then one
  evaluation; peak RSS for 3×10^5 events and for 6×10^5 (every annotation updated once), so the
  memory follows the state, not the event count.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "labelstudio"))
from server import LabelStudioServer, free_port  # noqa: E402

SECRET = "bench-secret-0123456789"
CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text"><Choice value="pos"/><Choice value="neg"/>
    <Choice value="neu"/></Choices>
  <Rating name="quality" toName="text" maxRating="5"/>
</View>"""
FIELDS = {"sentiment": {}, "quality": {"level": "ordinal"}}


def result(i: int, j: int) -> list[dict[str, Any]]:
    """Annotator ``j``'s answer on task ``i``: mostly agreeing, every 4th task split."""
    label = ("pos", "neg", "neu")[(i + (j if i % 4 == 0 else 0)) % 3]
    return [
        {
            "from_name": "sentiment",
            "to_name": "text",
            "type": "choices",
            "value": {"choices": [label]},
        },
        {
            "from_name": "quality",
            "to_name": "text",
            "type": "rating",
            "value": {"rating": 1 + (i + (j if i % 5 == 0 else 0)) % 5},
        },
    ]


def write_config(path: Path, url: str, pid: int, state: Path, writeback: bool = True) -> Path:
    import yaml

    cfg = {
        "version": 1,
        "source": {
            "type": "label-studio",
            "url": url,
            "project": pid,
            "api_key": "${LABEL_STUDIO_API_KEY}",
        },
        "fields": FIELDS,
        "writeback": {"enabled": writeback},
        "report": {"dir": str(path.parent / "report"), "formats": ["json"]},
        "serve": {
            "secret": "${IAA_GATE_WEBHOOK_SECRET}",
            "state": str(state),
            "reconcile_every": 3600,
        },
    }
    path.write_text(yaml.safe_dump(cfg))
    return path


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        return bytes(r.read())


def metric(url: str, name: str) -> float:
    for line in get(url + "/metrics").decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise KeyError(name)


class Service:
    def __init__(self, config: Path, env: dict[str, str], *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = config.with_suffix(".log")
        cmd = [sys.executable, "-m", "iaa_gate.cli", "serve", "--config", str(config)]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [*cmd, "--port", str(self.port), *extra],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            self.wait(lambda: json.loads(get(self.url + "/healthz")).get("status") == "ok")
        except BaseException:
            self.stop()
            raise

    def wait(self, ok: Any, timeout: float = 3600) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if ok():
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(self.log.read_text()[-3000:])
            time.sleep(0.05)
        raise TimeoutError(self.log.read_text()[-3000:])

    def drained(self, applied: int) -> None:
        self.wait(
            lambda: (
                metric(self.url, 'iaa_gate_events_total{outcome="applied"}') >= applied
                and metric(self.url, "iaa_gate_queue_length") == 0
                and metric(self.url, "iaa_gate_tasks_to_write") == 0
                and metric(self.url, "iaa_gate_busy") == 0
            )
        )

    def quantiles(self) -> dict[str, float]:
        out = {}
        for line in get(self.url + "/metrics").decode().splitlines():
            if line.startswith("iaa_gate_flag_lag_recent_seconds{"):
                out[line.split('"')[1]] = float(line.split()[-1])
        return out

    def rss(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def users(ls: Any, n: int = 3) -> list[int]:
    existing = {u.email: u.id for u in ls.users.list()}
    out = []
    for i in range(1, n + 1):
        email = f"annotator{i}@iaa-gate.test"
        if email not in existing:
            existing[email] = ls.users.create(username=f"annotator{i}", email=email).id
        out.append(existing[email])
    return out


def batch(config: Path, env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "iaa_gate.cli", "run", "--config", str(config), "--quiet"],
        env=env,
        check=False,
    )
    wall = time.perf_counter() - t0
    return wall, json.loads((config.parent / "report" / "report.json").read_text())


def same(live: dict[str, Any], ref: dict[str, Any]) -> bool:
    for doc in (live, ref):
        doc.pop("generated_at", None)
        doc.pop("writeback", None)
    return live == ref


def latency(
    server: LabelStudioServer, ls: Any, env: dict[str, str], rate: float, n: int, clients: int
) -> None:
    who = users(ls)
    tasks = n // 3
    project = ls.projects.create(title=f"bench serve latency {time.time()}", label_config=CONFIG)
    ls.projects.import_tasks(
        id=project.id, request=[{"data": {"text": f"t{i}"}} for i in range(tasks)]
    )
    ids = [t["id"] for t in server.list_tasks(project.id, include="id")]
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    config = write_config(work / "c.yaml", server.url, project.id, work / "state.db")
    svc = Service(config, env, "--register", "--debug")
    submit: list[float] = []
    t0 = time.perf_counter()

    def send(k: int) -> None:  # annotators submit in parallel, each request on its own
        i, j = k // 3, k % 3
        time.sleep(max(0.0, t0 + k / rate - time.perf_counter()))
        s = time.perf_counter()
        ls.annotations.create(id=ids[i], result=result(i, j), completed_by=who[j])
        submit.append(time.perf_counter() - s)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(send, range(n)))
    achieved = n / (time.perf_counter() - t0)
    svc.drained(n)
    time.sleep(1.0)
    patch = []  # reference: Label Studio's own GET + PATCH of a task's meta, under the same load
    for k in range(20):
        s = time.perf_counter()
        server.api("GET", f"/api/tasks/{ids[-1]}/")
        server.api("PATCH", f"/api/tasks/{ids[-1]}/", {"meta": {"bench": k}})
        patch.append(time.perf_counter() - s)
    q = svc.quantiles()
    count = metric(svc.url, "iaa_gate_flag_lag_seconds_count")
    rss = svc.rss()
    live = json.loads(get(svc.url + "/report.json"))
    svc.stop()
    wall, ref = batch(config, env)
    print(
        f"latency: {n} annotations on {tasks} tasks at {achieved:.1f}/s (asked {rate}/s, "
        f"{clients} clients)"
    )
    print(
        f"  webhook→flag written: p50 {q['0.5'] * 1000:.0f} ms, p95 {q['0.95'] * 1000:.0f} ms, "
        f"p99 {q['0.99'] * 1000:.0f} ms over the last {min(int(count), 1000)} of {int(count)}"
    )
    print(
        f"  Label Studio's annotation POST (webhook delivery inside): p50 "
        f"{statistics.median(submit) * 1000:.0f} ms, p95 "
        f"{sorted(submit)[int(0.95 * len(submit))] * 1000:.0f} ms"
    )
    print(
        f"  reference: one GET + PATCH of a task by a plain client, same load: p50 "
        f"{statistics.median(patch) * 1000:.0f} ms"
    )
    print(f"  service peak RSS {rss:.0f} MiB; report equal to the batch run: {same(live, ref)}")
    print(f"  reference: iaa-gate run with write-back on the same project: {wall:.1f} s")


def burst(
    server: LabelStudioServer,
    ls: Any,
    env: dict[str, str],
    n: int,
    writeback: bool,
    pace: float | None = None,
) -> None:
    who = users(ls)
    tasks = n // 3
    project = ls.projects.create(title=f"bench serve burst {time.time()}", label_config=CONFIG)
    pid = project.id
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    config = write_config(work / "c.yaml", server.url, pid, work / "state.db", writeback)
    svc = Service(config, env)  # no webhook: this client plays Label Studio, as fast as it can
    ls.projects.import_tasks(
        id=pid,
        request=[
            {
                "data": {"text": f"t{i}"},
                "annotations": [{"completed_by": who[j], "result": result(i, j)} for j in range(3)],
            }
            for i in range(tasks)
        ],
    )
    pulled = server.list_tasks(
        pid,
        include="id,data,meta,annotations,result,completed_by,"
        "was_cancelled,ground_truth,created_at,updated_at",
    )
    bodies = []
    for t in pulled:
        task = {"id": t["id"], "data": t["data"], "meta": t["meta"], "project": pid}
        for a in t["annotations"]:
            bodies.append(
                json.dumps(
                    {
                        "action": "ANNOTATION_CREATED",
                        "project": {"id": pid},
                        "task": task,
                        "annotation": {**a, "task": t["id"]},
                    }
                ).encode()
            )
    acks = []
    t0 = time.perf_counter()
    for k, body in enumerate(bodies):
        if pace:  # a steady rate: Label Studio's share of the load is only the service's writes
            time.sleep(max(0.0, t0 + k / pace - time.perf_counter()))
        req = urllib.request.Request(
            svc.url + "/webhook",
            data=body,
            method="POST",
            headers={"X-IAA-Gate-Secret": SECRET, "Content-Type": "application/json"},
        )
        s = time.perf_counter()
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
        acks.append(time.perf_counter() - s)
    sent = time.perf_counter() - t0
    acks.sort()
    print(
        f"{'paced' if pace else 'burst'} (write-back {'on' if writeback else 'off'}): "
        f"{len(bodies)} webhooks on {tasks} "
        f"tasks posted in {sent:.1f} s ({len(bodies) / sent:.0f}/s); ack p50 "
        f"{acks[len(acks) // 2] * 1000:.1f} ms, p95 {acks[int(0.95 * len(acks))] * 1000:.1f} ms, "
        f"max {acks[-1] * 1000:.0f} ms",
        flush=True,
    )
    svc.drained(len(bodies))
    done = time.perf_counter() - t0
    applied = metric(svc.url, 'iaa_gate_events_total{outcome="applied"}')
    q = svc.quantiles()
    lags = int(metric(svc.url, "iaa_gate_flag_lag_seconds_count"))
    written = metric(svc.url, "iaa_gate_flags_written_total")
    rss = svc.rss()
    live = json.loads(get(svc.url + "/report.json"))
    svc.stop()
    wall, ref = batch(config, env)
    print(
        f"  applied {int(applied)} of {len(bodies)}; idle (every event applied and scored"
        f"{', every flag written' if writeback else ''}) {done:.1f} s after the first; "
        f"{int(written)} tasks written; service peak RSS {rss:.0f} MiB"
    )
    if writeback:
        print(
            f"  webhook→flag written: p50 {q['0.5'] * 1000:.0f} ms, p95 {q['0.95'] * 1000:.0f} "
            f"ms, p99 {q['0.99'] * 1000:.0f} ms over the last {min(lags, 1000)} of {lags}"
        )
    print(
        f"  report equal to the batch run: {same(live, ref)}; reference: iaa-gate run on the "
        f"same project {wall:.1f} s"
    )


MEMORY_CHILD = """
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, {bench!r})
from bench_serve import result
from iaa_gate.adapters.label_studio.export import parse_tasks
from iaa_gate.config import parse_config
from iaa_gate.pipeline import evaluate
from iaa_gate.serve.events import parse_event
from iaa_gate.serve.live import Live
from iaa_gate.serve.state import State
import msgspec
tasks, rounds, path = {tasks}, {rounds}, Path({path!r})
state = State(path)
t0 = time.perf_counter()
for r in range(rounds):
    with state.transaction():
        for i in range(tasks):
            for j in range(3):
                body = {{"action": "ANNOTATION_CREATED", "project": {{"id": 1}},
                        "task": {{"id": i + 1, "data": {{"text": "t"}}, "meta": {{}}}},
                        "annotation": {{"id": 3 * i + j + 1, "task": i + 1, "completed_by": j + 1,
                                       "result": result(i + r, j),
                                       "updated_at": f"2026-01-0{{r + 1}}T00:00:00Z"}}}}
                state.apply(parse_event(body), 0.0)
build = time.perf_counter() - t0
cfg = parse_config({{"version": 1, "source": {{"type": "label-studio-export", "path": "x.json"}},
                    "fields": {fields!r}}}, "bench")
t0 = time.perf_counter()
dataset = parse_tasks([msgspec.Raw(d) for d in state.task_documents()], "state")
outcome = evaluate(cfg, dataset)
ev = time.perf_counter() - t0
t0 = time.perf_counter()
live = Live(cfg, dataset, outcome.results)
sums = time.perf_counter() - t0
del dataset, outcome
steps = []  # live steps: 10 tasks changed (one annotation each), read and applied
for k in range(20):
    changed = list(range(1 + 997 * k % tasks, 1 + 997 * k % tasks + 10))
    t0 = time.perf_counter()
    with state.transaction():
        for i in changed:
            body = {{"action": "ANNOTATION_UPDATED", "project": {{"id": 1}},
                    "task": {{"id": i, "data": {{"text": "t"}}, "meta": {{}}}},
                    "annotation": {{"id": 3 * (i - 1) + 1, "task": i, "completed_by": 1,
                                   "result": result(i + 1, 0),
                                   "updated_at": f"2027-01-01T00:00:{{k:02d}}Z"}}}}
            state.apply(parse_event(body), 0.0)
    docs = [msgspec.Raw(d) for d in state.task_documents(changed)]
    live.update(parse_tasks(docs, "state"), changed)
    live.entries(changed)
    live.summary()
    steps.append(time.perf_counter() - t0)
steps.sort()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
size = path.stat().st_size / 2**20
print(json.dumps({{"build": build, "evaluate": ev, "sums": sums, "step": steps[len(steps) // 2],
                  "rss": peak, "db": size}}))
"""


def memory(tasks: int) -> None:
    for rounds in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            code = MEMORY_CHILD.format(
                bench=str(Path(__file__).parent),
                tasks=tasks,
                rounds=rounds,
                path=str(Path(tmp) / "state.db"),
                fields=FIELDS,
            )
            out = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"memory: {tasks} tasks, {3 * tasks * rounds} events: state built in "
                f"{r['build']:.1f} s, database {r['db']:.0f} MiB; one evaluation of the state "
                f"(a report) {r['evaluate']:.2f} s; running sums built in {r['sums']:.2f} s; "
                f"a step of 10 changed tasks {r['step'] * 1000:.0f} ms (median of 20); "
                f"peak RSS {r['rss']:.0f} MiB"
            )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("what", nargs="*", default=["latency", "burst", "memory"])
    p.add_argument("--rate", type=float, default=10.0)
    p.add_argument("--annotations", type=int, default=600)
    p.add_argument("--clients", type=int, default=3, help="latency: submissions in flight")
    p.add_argument("--burst", type=int, default=5000)
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--writeback", action="store_true", help="burst: write flags too")
    p.add_argument("--pace", type=float, help="burst: post at this steady rate per second")
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    if "memory" in args.what:
        memory(args.tasks)
    if not {"latency", "burst"} & set(args.what):
        return
    from label_studio_sdk import LabelStudio

    with LabelStudioServer() as server:
        env = {
            **os.environ,
            "LABEL_STUDIO_API_KEY": server.token,
            "IAA_GATE_WEBHOOK_SECRET": SECRET,
        }
        ls = LabelStudio(base_url=server.url, api_key=server.token)
        if "latency" in args.what:
            latency(server, ls, env, args.rate, args.annotations, args.clients)
        if "burst" in args.what:
            burst(server, ls, env, args.burst, args.writeback, args.pace)


if __name__ == "__main__":
    main()
