"""``report.html``: a self-contained page rendered with Jinja2 (autoescaped)."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from .markdown import _cell, _value, fmt

ICON = {"pass": "✓ pass", "warn": "⚠ warn", "fail": "✗ fail"}


class HtmlWriter:
    filename = "report.html"

    def render(self, doc: dict[str, Any]) -> str:
        env = Environment(
            loader=PackageLoader("iaa_gate.report", "templates"),
            autoescape=select_autoescape(default=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["fmt"] = fmt
        env.filters["cell"] = _cell
        env.filters["check_value"] = _value
        return env.get_template("report.html.j2").render(doc=doc, icon=ICON)
