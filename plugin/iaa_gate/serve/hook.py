"""The project's webhook: created or updated by ``--register``, removed by ``--unregister``.

The service's webhook is the project's webhook that sends the secret header (or posts to the
service's URL); there is at most one (copies from a race are removed), and its URL follows the
service's. Shutdown leaves it in place: events sent while the service is
down are lost by Label Studio (it never retries) and come back with the next reconcile.
"""

from __future__ import annotations

from typing import Any

from ..adapters.label_studio.client import RequestOptions
from ..adapters.label_studio.project import LabelStudioProject
from ..adapters.label_studio.wire import WebhookSettings
from .events import ACTIONS

HEADER = "X-IAA-Gate-Secret"
"""The header that carries ``serve.secret``."""


def _mine(project: LabelStudioProject, url: str) -> list[Any]:
    """The project's webhooks that are the service's: sending its secret header, or to ``url``
    (oldest first)."""

    def send(options: RequestOptions) -> list[Any]:
        hooks = project.api.sdk().webhooks.list(
            project=str(project.project_id), request_options=options
        )
        return list(hooks)

    hooks = project.api.call("listing the project's webhooks", send)
    mine = [h for h in hooks if h.url == url or HEADER in (getattr(h, "headers", None) or {})]
    return sorted((h for h in mine if h.project == project.project_id), key=lambda h: h.id)


def _fields(secret: str) -> WebhookSettings:
    """Everything the service's webhook is made with: a PATCH without ``actions`` would
    empty its action list, so every update sends them all."""
    return {
        "actions": list(ACTIONS),
        "headers": {HEADER: secret},
        "is_active": True,
        "send_payload": True,
        "send_for_all_actions": False,
    }


def register(project: LabelStudioProject, url: str, secret: str) -> tuple[int, str]:
    """Create or update the service's webhook on ``project``: ``(id, "created" | "updated")``."""
    api = project.api
    fields = _fields(secret)
    first, *copies = _mine(project, url) or [None]
    for copy in copies:
        _delete(project, copy.id)
    if first is not None:
        api.call(
            "updating the webhook",
            lambda o: api.sdk().webhooks.update(first.id, url=url, request_options=o, **fields),
        )
        return int(first.id), "updated"
    hook = api.call(
        "creating the webhook",
        lambda o: api.sdk().webhooks.create(
            url=url, project=project.project_id, request_options=o, **fields
        ),
    )
    return int(hook.id), "created"


def check(project: LabelStudioProject, secret: str, url: str = "") -> str:
    """Whether the service's webhook on ``project`` still delivers: ``active``,
    ``re-enabled`` (it was inactive or lacked actions: updated with its full action list, as
    :func:`register` makes it), or ``missing`` (none sends the secret header or posts to
    ``url``; ``--register`` makes one).

    Parameters
    ----------
    project
        The connected project.
    secret
        ``serve.secret`` (the header the webhook sends).
    url
        The service's webhook URL, when known.

    Returns
    -------
    str
    """
    mine = _mine(project, url)
    if not mine:
        return "missing"
    hook = mine[0]
    actions = set(getattr(hook, "actions", None) or [])
    if getattr(hook, "is_active", True) and actions >= set(ACTIONS):
        return "active"
    fields = _fields(secret)
    project.api.call(
        "re-enabling the webhook",
        lambda o: project.api.sdk().webhooks.update(
            hook.id, url=hook.url, request_options=o, **fields
        ),
    )
    return "re-enabled"


def unregister(project: LabelStudioProject, url: str) -> int:
    """Remove the service's webhook(s) from ``project``; how many were removed."""
    mine = _mine(project, url)
    for hook in mine:
        _delete(project, hook.id)
    return len(mine)


def _delete(project: LabelStudioProject, hook_id: int) -> None:
    def send(options: RequestOptions) -> None:
        project.api.sdk().webhooks.delete(hook_id, request_options=options)

    project.api.call(f"removing webhook {hook_id}", send)
