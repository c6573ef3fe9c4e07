"""The ASGI app (Starlette): the webhook receiver and the live report.

``POST /webhook`` answers within milliseconds: it checks the secret (constant-time), the size and
the event (parsed here, once), then appends the event to the state's inbox and wakes the worker.
Nothing else happens in Label Studio's request, which runs inside the annotator's own submit.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
from collections.abc import AsyncIterator
from typing import TypedDict

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..sinks.report.html import HtmlWriter
from ..sinks.report.json import JsonWriter
from .events import BadEvent, encode, parse_event
from .hook import HEADER
from .inbox import Inbox, now
from .metrics import prometheus
from .service import Service

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


class Health(TypedDict, total=False):
    """``/healthz``: the service's ``status`` (``ok``, ``starting``, ``error``), the events
    ``queue``d, whether it is ``idle`` (no event queued, every write decided done), the
    ``project``, the ``webhook`` as the last reconcile found it and the ``problem`` of a failed
    report or pull."""

    status: str
    queue: int
    idle: bool
    project: int | None
    webhook: str
    problem: str | None


def create_app(service: Service) -> Starlette:
    """The app of ``service`` (a connected :class:`Service`): its worker runs while the app
    does (the ASGI lifespan)."""
    settings = service.settings
    secret = settings.secret.get_secret_value().encode()
    inbox = Inbox(settings.state)  # the event loop's own connection
    counters, reporter = service.counters, service.reporter

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
                service.project.project_id,
            )
            return JSONResponse({"ignored": True})
        inbox.push(encode(event), now())
        service.heard()
        return JSONResponse({"queued": True}, status_code=202)

    async def report_json(request: Request) -> Response:
        outcome = await run_in_threadpool(service.fresh)
        if outcome is None:
            return JSONResponse({"error": reporter.missing()}, status_code=503)
        # rendered off the event loop: a large report must not hold back webhooks
        body = await run_in_threadpool(JsonWriter().render, outcome.report)
        return Response(body, media_type="application/json")

    async def report_html(request: Request) -> Response:
        outcome = await run_in_threadpool(service.fresh)
        if outcome is None:
            return PlainTextResponse(f"iaa-gate serve: {reporter.missing()}", status_code=503)
        page = await run_in_threadpool(HtmlWriter().render, outcome.report, outcome.disputed)
        return HTMLResponse(page)

    async def healthz(request: Request) -> Response:
        ready = service.ready.is_set()
        error, problem = reporter.error, reporter.problem
        status = "error" if error else ("ok" if ready else "starting")
        queue = inbox.queued()  # first: idle holds for the events queued before it was asked
        body: Health = {"status": status, "queue": queue}
        body["idle"] = not queue and counters.idle
        body["project"] = service.project.project_id
        if service.reconciler.webhook is not None:  # checked at each reconcile
            body["webhook"] = service.reconciler.webhook
        if error or problem:
            body["problem"] = error or problem
        return JSONResponse(body, status_code=503 if error else 200)

    async def metrics(request: Request) -> Response:
        text = prometheus(
            counters,
            inbox.queued(),
            service.report_pending,
            reporter.snapshot(),
            service.sums.summary(),  # the running sums, current at every step
        )
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4")

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
