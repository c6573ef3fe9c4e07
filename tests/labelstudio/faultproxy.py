"""A fault-injecting HTTP proxy on 127.0.0.1 in front of a real server (standard library only).

Rules pick requests by method and path prefix and, a given number of times, answer an error status,
delay the answer, drop the connection, or run a hook (e.g. stop the server) before forwarding.
Every request is logged as ``(method, path, what happened)``.
"""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade"}


@dataclass
class Fault:
    """``times`` requests matching ``method`` and ``path`` (a prefix; ``*``: any) get ``action``:
    ``status`` (answer ``status`` with ``headers``), ``delay`` (wait ``seconds``, then forward),
    ``drop`` (close the connection without an answer), or ``hook`` (call ``hook()``, then
    forward). ``after``: let this many matching requests through first."""

    method: str
    path: str
    action: str
    times: int = 1
    after: int = 0
    status: int = 503
    seconds: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    hook: Callable[[], None] | None = None

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and path.startswith(self.path)


class FaultProxy:
    """``with FaultProxy(upstream_url) as proxy:`` point clients at ``proxy.url``; add
    :class:`Fault` rules to ``proxy.faults`` (first match wins); ``proxy.upstream`` may change
    (a restarted server)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, str]] = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _any(self) -> None:
                try:
                    proxy.handle(self)
                except OSError:  # the client gave up on this request (its timeout)
                    self.close_connection = True

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def add(self, *faults: Fault) -> None:
        with self.lock:
            self.faults += faults

    def clear(self) -> None:
        with self.lock:
            self.faults.clear()
            self.log.clear()

    def count(self, method: str, path: str, what: str | None = None) -> int:
        """How many logged requests match ``method``, the ``path`` prefix and ``what``."""
        return sum(m == method and p.startswith(path) and what in (None, w) for m, p, w in self.log)

    def _pick(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and fault.matches(method, path):
                    if fault.after > 0:
                        fault.after -= 1
                        return None
                    fault.times -= 1
                    return fault
        return None

    def handle(self, req: BaseHTTPRequestHandler) -> None:
        method, path = req.command, req.path
        length = int(req.headers.get("Content-Length") or 0)
        body = req.rfile.read(length) if length else None
        fault = self._pick(method, urlsplit(path).path)
        what = "forwarded" if fault is None else fault.action
        with self.lock:
            self.log.append((method, urlsplit(path).path, what))
        if fault is not None and fault.action == "status":
            payload = b'{"detail": "injected fault"}'
            req.send_response(fault.status)
            for k, v in {"Content-Type": "application/json", **fault.headers}.items():
                req.send_header(k, v)
            req.send_header("Content-Length", str(len(payload)))
            req.end_headers()
            req.wfile.write(payload)
            return
        if fault is not None and fault.action == "delay" and self.closing.wait(fault.seconds):
            fault = Fault(method, path, "drop")  # the proxy is closing: no late writes
        if fault is not None and fault.action == "drop":
            req.close_connection = True
            req.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and fault.action == "hook" and fault.hook is not None:
            fault.hook()
        self._forward(req, method, path, body)

    def _forward(
        self, req: BaseHTTPRequestHandler, method: str, path: str, body: bytes | None
    ) -> None:
        up = urlsplit(self.upstream)
        headers = {k: v for k, v in req.headers.items() if k.lower() not in HOP_BY_HOP}
        conn = http.client.HTTPConnection(up.hostname or "127.0.0.1", up.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except OSError:  # the server is down: the client sees a dropped connection
            req.close_connection = True
            req.connection.shutdown(socket.SHUT_RDWR)
            return
        finally:
            conn.close()
        req.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                req.send_header(k, v)
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        req.wfile.write(data)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()
