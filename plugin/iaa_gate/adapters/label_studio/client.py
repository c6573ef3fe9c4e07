"""The one Label Studio client: the live source and the write-back both talk to the server here.

It builds the SDK client (a legacy token or a personal access token, which the SDK exchanges for
short-lived access tokens), sends every request with its own retries and exponential backoff inside
the run's time budget, and turns every failure into one :class:`LabelStudioError` naming the URL,
never the token. The SDK and httpx are imported only when a live source is used. Progress is
reported by the callers, through :mod:`iaa_gate.core.progress` only.
"""

from __future__ import annotations

import email.utils
import json
import random
import sys
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypedDict, TypeVar

from pydantic import SecretStr

from ...core.errors import IaaGateError, ServerError, UsageError
from ...core.redact import plain_http_warning, redact_url
from .wire import Params

T = TypeVar("T")

INSTALL_HINT = 'the live Label Studio source needs the SDK: pip install "iaa-gate[label-studio]"'
BACKOFF = 0.5
"""Seconds before the first retry; doubled for each further one (plus up to 25% jitter)."""
MAX_BACKOFF = 30.0
"""The longest wait between two attempts, also for a server's ``Retry-After``."""
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
TRANSIENT = frozenset(
    {
        "ConnectError",
        "ConnectTimeout",
        "ReadError",
        "ReadTimeout",
        "WriteError",
        "WriteTimeout",
        "PoolTimeout",
        "RemoteProtocolError",
        "TimeoutException",
    }
)
"""httpx errors worth a retry: the server was unreachable, slow, or dropped the connection."""


class RequestOptions(TypedDict):
    """The SDK's ``request_options`` of one attempt: no retries of its own (:meth:`call`
    retries), and the attempt's timeout."""

    max_retries: int
    timeout_in_seconds: float


def sleep(seconds: float) -> None:
    """Wait between attempts (a module function so tests can skip the waits)."""
    time.sleep(seconds)


def sdk() -> Any:
    """The ``label_studio_sdk`` module, or a one-line error telling how to install it."""
    try:
        import label_studio_sdk
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return label_studio_sdk


class LabelStudioError(ServerError):
    """A request that failed for good. ``status``: the HTTP status, if one came back;
    ``transient``: the server was unreachable, slow or failing (5xx, 429), not refusing the
    request; ``out_of_time``: the run's time budget (``source.timeout``) ran out."""

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        status: int | None = None,
        transient: bool = False,
        out_of_time: bool = False,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.transient = transient
        self.out_of_time = out_of_time


class StatusError(Exception):
    """An HTTP error answer read through the raw wrapper (the SDK methods raise ApiError)."""

    def __init__(self, status_code: int, body: Any, headers: Any = None) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code
        self.body = body
        self.headers = headers or {}


@dataclass
class LabelStudioClient:
    """Requests to one server. ``timeout``: seconds all requests together may take (the run's
    budget, from the first request; None: no limit); ``request_timeout``: seconds one attempt may
    wait for the server; ``retries``: further attempts per request on a dropped connection, a
    timeout, 408, 429 or 5xx; ``where``: what messages name (``project 7``).
    ``sdk_client``: an SDK client to use instead of building one (tests)."""

    url: str
    api_key: SecretStr = field(repr=False)
    timeout: float | None = 3600.0
    request_timeout: float = 60.0
    retries: int = 3
    where: str = ""
    sdk_client: Any = field(default=None, repr=False)
    started: float | None = field(default=None, repr=False)
    base_url: str = field(default="", repr=False)
    """The URL as given, credentials included: only the SDK sees it; ``url`` is redacted."""

    def __post_init__(self) -> None:
        self.base_url = self.base_url or self.url
        self.url = redact_url(self.url)

    def sdk(self) -> Any:
        """The SDK client (built once)."""
        if self.sdk_client is None:
            ls = sdk()
            warning = plain_http_warning(self.base_url)
            if warning is not None:
                print(f"iaa-gate: warning: {warning}", file=sys.stderr)
            self.sdk_client = self.call(
                "connecting",
                lambda _: ls.LabelStudio(
                    base_url=self.base_url,
                    api_key=self.api_key.get_secret_value(),
                    timeout=self.request_timeout,
                ),
            )
        return self.sdk_client

    def left(self) -> float:
        """Seconds left in the budget (infinite without one); the clock starts at the first call."""
        if self.started is None:
            self.started = time.monotonic()
        if self.timeout is None:
            return float("inf")
        return self.timeout - (time.monotonic() - self.started)

    def call(self, doing: str, send: Callable[[RequestOptions], T], *, timeout: float = 0) -> T:
        """``send(request_options)`` with retries and backoff inside the budget.

        ``timeout``: this request's per-attempt timeout when longer than ``request_timeout``
        (an export download). Any failure becomes a :class:`LabelStudioError`.
        """
        attempt = 0
        while True:
            left = self.left()
            if left <= 0:
                self._out_of_time(doing, None)
            per_try = min(max(self.request_timeout, timeout), left)
            try:
                return send({"max_retries": 0, "timeout_in_seconds": per_try})
            except IaaGateError:
                raise
            except Exception as exc:
                wait = retry_wait(exc, attempt)
                if wait is None or attempt >= self.retries:
                    self.fail(exc, doing, attempt + 1)
                if wait >= self.left():
                    self._out_of_time(doing, exc)
                sleep(wait)
                attempt += 1

    def request(
        self,
        method: str,
        path: str,
        doing: str,
        *,
        params: Params | None = None,
        body: Any = None,
        absent: Collection[int] = (),
    ) -> Any:
        """``method path`` through the SDK's HTTP wrapper (its auth); the parsed JSON answer.
        A status in ``absent`` (e.g. 404) gives None."""
        http = self.sdk()._client_wrapper.httpx_client

        def send(options: RequestOptions) -> Any:
            resp = http.request(
                path, method=method, params=params, json=body, request_options=options
            )
            if resp.status_code in absent:
                return None
            if resp.status_code >= 400:
                try:
                    detail = resp.json()
                except ValueError:
                    detail = resp.text[:200]
                raise StatusError(int(resp.status_code), detail, resp.headers)
            return resp.json() if resp.content else None

        return self.call(doing, send)

    def fail(self, exc: BaseException, doing: str, attempts: int = 1) -> NoReturn:
        """Raise the clear message for ``exc`` (an SDK/HTTP error met while ``doing``)."""
        message, hint = explain(exc, self.url, self.where, doing, attempts)
        status = getattr(exc, "status_code", None)
        raise LabelStudioError(
            message,
            hint=hint,
            status=status if isinstance(status, int) else None,
            transient=retry_wait(exc, 0) is not None,
        ) from None

    def _out_of_time(self, doing: str, exc: BaseException | None) -> NoReturn:
        last = f"; last: {explain(exc, self.url, self.where, doing)[0]}" if exc else ""
        raise LabelStudioError(
            f"Label Studio on {self.url}: gave up while {doing}: the run's time limit "
            f"(source.timeout: {self.timeout:g} s) ran out ({self.where}){last}",
            hint="raise source.timeout, or try again when the server is less busy",
            transient=True,
            out_of_time=True,
        ) from None


def task_pages(
    api: LabelStudioClient, params: Params, doing: str, size: int
) -> Iterator[list[Any]]:
    """The tasks list ``api/tasks/`` with ``params``, page by page (``size`` tasks a page),
    each page's tasks as the server gives them. It ends at a short page, at a 404 past the
    first page (a page past the end answers 404), or at an answer without a tasks list.

    Parameters
    ----------
    api : LabelStudioClient
        The client.
    params : dict
        The query, without ``page``.
    doing : str
        What the requests do, in words (the page number is added).
    size : int
        The page size the query asks for.

    Returns
    -------
    Iterator of list
        Each page's tasks.
    """
    page = 1
    while True:
        body = api.request(
            "GET",
            "api/tasks/",
            f"{doing} (page {page})",
            params={**params, "page": page},
            absent=(404,) if page > 1 else (),
        )
        batch = body.get("tasks") if isinstance(body, dict) else None
        if not isinstance(batch, list):
            return
        yield batch
        if len(batch) < size:
            return
        page += 1


def selected_tasks(api: LabelStudioClient, ids: list[int], params: Params) -> list[Any]:
    """The tasks ``ids`` in one request: the tasks list filtered to them (the Data Manager's
    selected items), as the server gives them ([] without a tasks list).

    Parameters
    ----------
    api : LabelStudioClient
        The client.
    ids : list of int
        The tasks.
    params : dict
        The rest of the query (``project``, ``fields``, ``include``).

    Returns
    -------
    list
        The tasks.
    """
    query = {"selectedItems": {"all": False, "included": ids}}
    body = api.request(
        "GET",
        "api/tasks/",
        f"re-reading {len(ids)} task(s)",
        params={**params, "page_size": len(ids), "query": json.dumps(query)},
    )
    tasks = body.get("tasks") if isinstance(body, dict) else None
    return tasks if isinstance(tasks, list) else []


def retry_wait(exc: BaseException, attempt: int) -> float | None:
    """Seconds to wait before retrying after ``exc`` (attempt 0 = the first retry), or None
    when a retry cannot help. A server's ``Retry-After`` is honoured up to :data:`MAX_BACKOFF`."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status not in RETRY_STATUSES:
            return None
        after = _retry_after(getattr(exc, "headers", None) or {})
        if after is not None:
            return min(after, MAX_BACKOFF)
    elif type(exc).__name__ not in TRANSIENT:
        return None
    base = min(BACKOFF * 2.0**attempt, MAX_BACKOFF)
    return base * (1 + random.random() / 4)  # jitter: runs at once do not retry in step


def _retry_after(headers: Any) -> float | None:
    """``Retry-After`` in seconds (a number or an HTTP date), or None."""
    value = str(headers.get("retry-after") or "") if hasattr(headers, "get") else ""
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


def _detail(body: Any) -> str:
    if isinstance(body, dict):
        for key in ("detail", "message", "error"):
            if isinstance(body.get(key), str):
                return str(body[key])
    return ""


def explain(
    exc: BaseException, url: str, where: str, doing: str, attempts: int = 1
) -> tuple[str, str | None]:
    """``(message, hint)`` for an error met while ``doing``; never includes the API key."""
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    tries = f" ({attempts} attempts)" if attempts > 1 else ""
    at = f" ({where})" if where else ""
    if isinstance(status, int):
        detail = _detail(getattr(exc, "body", None))
        said = f" ({detail})" if detail else ""
        if status == 401:
            return (
                f"Label Studio on {url} refused the API key (401{said}) while {doing}",
                "check the token in source.api_key (e.g. LABEL_STUDIO_API_KEY): a personal access "
                "token (Account & Settings → Personal Access Token) or a legacy token, for this "
                "server",
            )
        if status == 403:
            return (
                f"Label Studio on {url}: access denied (403{said}) while {doing}{at}",
                "the token's user needs access to this project (and to the users list)",
            )
        if status == 404:
            return (
                f"Label Studio on {url}: not found (404{said}) while {doing}{at}",
                "check source.url, source.project and source.view",
            )
        return (
            f"Label Studio on {url} answered HTTP {status}{said} while {doing}{tries}{at}",
            "the server had a problem: try again later, or check its logs",
        )
    if kind in ("ConnectError", "ConnectTimeout"):
        return (
            f"cannot reach Label Studio at {url} while {doing}{tries}",
            "check source.url and that the server is running and reachable from here",
        )
    if kind in ("ReadError", "RemoteProtocolError", "WriteError"):
        return (
            f"Label Studio on {url} dropped the connection while {doing}{tries}{at}",
            "the server may have restarted or be overloaded: try again later",
        )
    if kind in ("ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException"):
        return (
            f"Label Studio on {url} did not answer in time while {doing}{tries}{at}",
            "the server may be overloaded: try again later, or raise source.request_timeout",
        )
    if kind in ("UnsupportedProtocol", "InvalidURL", "LocalProtocolError"):
        return (
            f"{url!r} is not a usable Label Studio URL",
            "source.url must look like http://host:8080 (scheme, host and port)",
        )
    if isinstance(exc, ValueError):
        return (
            f"Label Studio on {url} did not answer like Label Studio while {doing} "
            f"(unreadable reply)",
            "check source.url: it should be the Label Studio base URL, without /api or /projects",
        )
    return (
        f"Label Studio on {url}: {kind} while {doing}",
        "check source.url and the network; rerun with --debug for details",
    )
