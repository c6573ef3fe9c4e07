"""``iaa-gate serve``: the worker and the ASGI app on uvicorn, in the calling process.

uvicorn installs its own signal handlers (SIGINT, SIGTERM: a graceful stop); this runs only from
the command line, never inside a library call.
"""

from __future__ import annotations

import logging

from ..config import Config
from ..core.errors import UsageError
from .hook import register, unregister
from .service import Service, serve_settings

log = logging.getLogger("iaa_gate.serve")


def webhook_url(config: Config, host: str, port: int) -> str:
    """Where Label Studio posts: ``serve.webhook_url``, else this host and port."""
    _, settings = serve_settings(config)
    if settings.webhook_url:
        return settings.webhook_url
    if host in ("0.0.0.0", "::"):
        raise UsageError(
            f"serving on {host}: Label Studio needs an address it can reach",
            hint="set serve.webhook_url, e.g. http://iaa-gate:8765/webhook",
        )
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/webhook"


def serve(config: Config, *, host: str, port: int, register_hook: bool) -> None:
    """Connect to the project, optionally register the webhook, then serve until stopped."""
    import uvicorn

    from .app import create_app

    service = Service(config)
    service.connect()
    if register_hook:
        url = webhook_url(config, host, port)
        secret = service.settings.secret.get_secret_value()
        hook_id, done = register(service.project, url, secret)
        log.info("webhook %s %s on project %s (%s)", hook_id, done, service.project.project_id, url)
    uvicorn.run(create_app(service), host=host, port=port, log_level="info", access_log=False)


def remove(config: Config, *, host: str, port: int) -> int:
    """``--unregister``: remove the service's webhook from the project; how many were removed."""
    service = Service(config)
    service.connect()
    return unregister(service.project, webhook_url(config, host, port))
