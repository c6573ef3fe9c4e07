"""The ASGI app (Starlette): the webhook receiver and the live report.

``POST /webhook`` answers within milliseconds: it checks the secret (constant-time), the size and
the JSON, then appends the body to the state's inbox and wakes the worker. Nothing else happens
in Label Studio's request, which runs inside the annotator's own submit.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import math
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..sinks.report.html import HtmlWriter
from ..sinks.report.json import JsonWriter
from .events import BadEvent, parse_event
from .hook import HEADER
from .service import LAG_BUCKETS, RECENT, Service, finite
from .state import State, now

log = logging.getLogger("iaa_gate.serve")


class TooLarge(Exception):
    pass


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge
    return bytes(body)


def create_app(service: Service) -> Starlette:
    """The app of ``service`` (a connected :class:`Service`): its worker runs while the app
    does (the ASGI lifespan)."""
    settings = service.settings
    secret = settings.secret.get_secret_value().encode()
    inbox = State(settings.state)  # the event loop's own connection
    counters = service.counters

    async def webhook(request: Request) -> Response:
        given = request.headers.get(HEADER, "").encode()
        if not hmac.compare_digest(given, secret):
            counters.rejected += 1
            log.warning("refused a webhook without the right secret (401)")
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        try:
            body = await _body(request, settings.max_body)
        except TooLarge:
            counters.rejected += 1
            log.warning("refused a webhook body over %d bytes (413)", settings.max_body)
            return JSONResponse({"error": "body too large"}, status_code=413)
        try:
            event = parse_event(json.loads(body))
        except (ValueError, BadEvent) as exc:
            counters.rejected += 1
            reason = str(exc) if isinstance(exc, BadEvent) else "malformed JSON"
            log.warning("refused a webhook: %s (400)", reason)
            return JSONResponse({"error": reason}, status_code=400)
        counters.received += 1
        if not service.accepts(event):
            counters.ignored += 1
            log.info(
                "ignored %s of project %s (this is project %s)",
                event.action,
                event.project,
                service.project_id,
            )
            return JSONResponse({"ignored": True})
        inbox.push(body, now())
        service.arrived = time.monotonic()
        service.wake.set()
        return JSONResponse({"queued": True}, status_code=202)

    def _missing() -> str:
        return service.error or service.problem or "starting: the first pull is under way"

    async def report_json(request: Request) -> Response:
        outcome = await run_in_threadpool(service.fresh)
        if outcome is None:
            return JSONResponse({"error": _missing()}, status_code=503)
        # rendered off the event loop: a large report must not hold back webhooks
        body = await run_in_threadpool(JsonWriter().render, outcome.report)
        return Response(body, media_type="application/json")

    async def report_html(request: Request) -> Response:
        outcome = await run_in_threadpool(service.fresh)
        if outcome is None:
            return PlainTextResponse(f"iaa-gate serve: {_missing()}", status_code=503)
        page = await run_in_threadpool(HtmlWriter().render, outcome.report, outcome.disputed)
        return HTMLResponse(page)

    async def healthz(request: Request) -> Response:
        ready = service.ready.is_set()
        status = "error" if service.error else ("ok" if ready else "starting")
        body: dict[str, Any] = {"status": status, "queue": inbox.queued()}
        body["project"] = service.project_id
        if service.error or service.problem:
            body["problem"] = service.error or service.problem
        return JSONResponse(body, status_code=503 if service.error else 200)

    async def metrics(request: Request) -> Response:
        return PlainTextResponse(
            prometheus(service, inbox.queued()), media_type="text/plain; version=0.0.4"
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service.start()
        try:
            yield
        finally:
            service.stop()
            inbox.close()

    return Starlette(
        routes=[
            Route("/webhook", webhook, methods=["POST"]),
            Route("/report.json", report_json),
            Route("/", report_html),
            Route("/healthz", healthz),
            Route("/metrics", metrics),
        ],
        lifespan=lifespan,
    )


def prometheus(service: Service, queued: int) -> str:
    """``/metrics`` in the Prometheus text format (never a secret)."""
    c = service.counters
    lines = [
        "# HELP iaa_gate_events_total Webhook requests by outcome.",
        "# TYPE iaa_gate_events_total counter",
        f'iaa_gate_events_total{{outcome="received"}} {c.received}',
        f'iaa_gate_events_total{{outcome="ignored"}} {c.ignored}',
        f'iaa_gate_events_total{{outcome="rejected"}} {c.rejected}',
        f'iaa_gate_events_total{{outcome="applied"}} {c.applied}',
        "# HELP iaa_gate_queue_length Events acknowledged, not yet applied.",
        "# TYPE iaa_gate_queue_length gauge",
        f"iaa_gate_queue_length {queued}",
        "# HELP iaa_gate_tasks_to_write Tasks changed whose flags are not written yet.",
        "# TYPE iaa_gate_tasks_to_write gauge",
        f"iaa_gate_tasks_to_write {c.to_write}",
        "# HELP iaa_gate_busy 1 while the worker applies events or writes flags.",
        "# TYPE iaa_gate_busy gauge",
        f"iaa_gate_busy {int(c.busy)}",
        "# HELP iaa_gate_report_pending 1 while the full report lags the state (debounced).",
        "# TYPE iaa_gate_report_pending gauge",
        f"iaa_gate_report_pending {int(service.report_pending)}",
        "# HELP iaa_gate_flags_written_total Tasks whose flags were written.",
        "# TYPE iaa_gate_flags_written_total counter",
        f"iaa_gate_flags_written_total {c.flags_written}",
        "# HELP iaa_gate_reconciles_total Pulls of the whole project.",
        "# TYPE iaa_gate_reconciles_total counter",
        f"iaa_gate_reconciles_total {c.reconciles}",
        "# HELP iaa_gate_flag_lag_seconds From a webhook's arrival to its task's flag written.",
        "# TYPE iaa_gate_flag_lag_seconds histogram",
    ]
    lines += [
        f'iaa_gate_flag_lag_seconds_bucket{{le="{b}"}} {n}'
        for b, n in zip(LAG_BUCKETS, c.lag_buckets, strict=True)
    ]
    lines += [
        f'iaa_gate_flag_lag_seconds_bucket{{le="+Inf"}} {c.lag_count}',
        f"iaa_gate_flag_lag_seconds_sum {c.lag_sum}",
        f"iaa_gate_flag_lag_seconds_count {c.lag_count}",
        f"# HELP iaa_gate_flag_lag_recent_seconds The last {RECENT} lags' quantiles.",
        "# TYPE iaa_gate_flag_lag_recent_seconds summary",
    ]
    recent = sorted(c.recent)
    for q in (0.5, 0.95, 0.99):
        value = recent[min(len(recent) - 1, int(q * len(recent)))] if recent else math.nan
        lines.append(f'iaa_gate_flag_lag_recent_seconds{{quantile="{q}"}} {finite(value)}')
    outcome = service.snapshot()
    live = service.live_summary()  # the running sums, current at every step
    if outcome is not None and live is None:
        live = {n: (r.alpha, len(outcome.disputed.get(n, ()))) for n, r in outcome.results.items()}
    if live is not None:
        lines += [
            "# HELP iaa_gate_alpha Krippendorff's alpha per field (NaN: undefined).",
            "# TYPE iaa_gate_alpha gauge",
        ]
        lines += [
            f'iaa_gate_alpha{{field="{_label(n)}"}} {finite(a)}'
            for n, (a, _) in sorted(live.items())
        ]
        lines += [
            "# HELP iaa_gate_disputed Disputed tasks per field.",
            "# TYPE iaa_gate_disputed gauge",
        ]
        lines += [
            f'iaa_gate_disputed{{field="{_label(n)}"}} {d}' for n, (_, d) in sorted(live.items())
        ]
    if outcome is not None:
        verdict = outcome.verdict.value
        lines += [
            "# HELP iaa_gate_verdict The gate's verdict (1 on the current one).",
            "# TYPE iaa_gate_verdict gauge",
        ]
        lines += [
            f'iaa_gate_verdict{{verdict="{v}"}} {int(v == verdict)}'
            for v in ("pass", "warn", "fail")
        ]
    return "\n".join(lines) + "\n"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
