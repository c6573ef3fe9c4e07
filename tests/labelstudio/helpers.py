"""Builders and helpers shared by the live Label Studio tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from iaa_gate.cli import main

REVIEW_CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single">
    <Choice value="Positive"/><Choice value="Negative"/><Choice value="Neutral"/>
  </Choices>
  <Choices name="topics" toName="text" choice="multiple">
    <Choice value="Price"/><Choice value="Quality"/><Choice value="Shipping"/>
  </Choices>
  <Rating name="stars" toName="text" maxRating="5"/>
  <TextArea name="notes" toName="text"/>
</View>"""


def result(
    sentiment: str | None = None,
    topics: list[str] | None = None,
    stars: int | None = None,
    notes: str | None = None,
) -> list[dict[str, Any]]:
    """An annotation ``result`` for :data:`REVIEW_CONFIG`."""
    out = []
    values: list[tuple[str, str, dict[str, Any]]] = []
    if sentiment is not None:
        values.append(("sentiment", "choices", {"choices": [sentiment]}))
    if topics is not None:
        values.append(("topics", "choices", {"choices": topics}))
    if stars is not None:
        values.append(("stars", "rating", {"rating": stars}))
    if notes is not None:
        values.append(("notes", "textarea", {"text": [notes]}))
    for name, kind, value in values:
        out.append({"from_name": name, "to_name": "text", "type": kind, "value": value})
    return out


def writes(log: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The requests of ``log`` that change something on the server."""
    return [(m, p) for m, p in log if m not in ("GET", "HEAD", "OPTIONS")]


def live_config(
    path: Path, url: str, project: int | str, fields: dict[str, Any], **sections: Any
) -> Path:
    """Write a config reading ``project`` live (api_key from $LABEL_STUDIO_API_KEY)."""
    source = {
        "type": "label-studio",
        "url": url,
        "project": project,
        "api_key": "${LABEL_STUDIO_API_KEY}",
    }
    source.update(sections.pop("source", {}))
    cfg = {"version": 1, "source": source, "fields": fields, **sections}
    cfg.setdefault("report", {"dir": str(path.parent / "report"), "formats": ["json"]})
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def run_cli(*args: str) -> int:
    """``iaa-gate ARGS`` in process; returns the exit code."""
    return main(list(args))


def report(out_dir: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    return doc


def user_with_token(url: str, email: str, password: str = "iaa-gate-pass-1234") -> tuple[int, str]:
    """A user who can act (``(id, legacy token)``): signed up through the form with a session,
    as a person does (``POST /api/users/`` makes one who cannot log in), or logged in if the
    e-mail is taken; then the token of ``GET /api/current-user/token``."""
    import http.cookiejar
    import re
    import urllib.error
    import urllib.parse
    import urllib.request

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def form(path: str, fields: dict[str, str]) -> None:
        page = opener.open(url + path, timeout=60).read().decode("utf-8", "replace")
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        csrf = found.group(1) if found else next(c.value for c in jar if c.name == "csrftoken")
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": csrf}).encode()
        req = urllib.request.Request(url + path, data=body, headers={"Referer": url + path})
        opener.open(req, timeout=60).read()

    def whoami() -> Any:
        return json.loads(opener.open(url + "/api/current-user/whoami", timeout=60).read())

    form("/user/signup/", {"email": email, "password": password, "how_find_us": "Other"})
    try:
        me = whoami()
    except urllib.error.HTTPError:  # signed up before: log in
        form("/user/login/", {"email": email, "password": password})
        me = whoami()
    token = json.loads(opener.open(url + "/api/current-user/token", timeout=60).read())["token"]
    return int(me["id"]), str(token)
