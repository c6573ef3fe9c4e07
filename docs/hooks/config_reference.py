"""MkDocs hook: the configuration reference, generated at build time from the config's JSON
schema (``iaa_gate.config.json_schema()``), so it cannot drift from the code.

Each section is titled by the YAML path a user types (``fields.<name>.thresholds``), in the
order the file is read, and each table cell is escaped once, here: a ``|`` so that it is no
column break, a ``<`` outside code so that ``<host>`` is text, not an HTML tag.
"""

from __future__ import annotations

import json
import re
from typing import Any

MARKER = "<!-- config-reference -->"
PLACEHOLDER = {"fields": "<name>", "thresholds": "<check>", "max_drop": "<check>"}
"""The placeholder of a key a user chooses (a mapping's key, or one of several keys that share
a section), by the key above it; ``<key>`` otherwise."""


def _ref(prop: dict[str, Any]) -> str | None:
    ref = prop.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _values(prop: dict[str, Any]) -> list[Any] | None:
    """The values an enum, a const, or a union of them allows (None: it allows others)."""
    if "enum" in prop:
        return list(prop["enum"])
    if "const" in prop:
        return [prop["const"]]
    parts = prop.get("anyOf") or prop.get("oneOf")
    if parts:
        found = [_values(p) for p in parts]
        if all(v is not None for v in found):
            return [x for v in found if v is not None for x in v]
    return None


class Reference:
    """The sections of the reference: which schema model sits at which YAML path."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.defs: dict[str, dict[str, Any]] = schema.get("$defs", {})
        self.paths: dict[str, list[tuple[str, str]]] = {"Config": [("", "")]}
        self._walk(schema, "", "")

    def _walk(self, model: dict[str, Any], path: str, variant: str) -> None:
        for key, prop in model.get("properties", {}).items():
            for name, at in self._reached(prop, f"{path}.{key}" if path else key, key):
                sub = self.defs[name]
                kind = sub.get("properties", {}).get("type", {}).get("const")
                here = f"type: {kind}" if isinstance(kind, str) else variant
                first = name not in self.paths
                self.paths.setdefault(name, []).append((at, here))
                if first:
                    self._walk(sub, at, here)

    def _reached(self, prop: dict[str, Any], path: str, key: str) -> list[tuple[str, str]]:
        """The models ``prop`` holds, with the path of each."""
        name = _ref(prop)
        if name is not None:
            return [(name, path)]
        out = []
        for part in prop.get("anyOf", []) + prop.get("oneOf", []):
            out += self._reached(part, path, key)
        if isinstance(prop.get("items"), dict):
            out += self._reached(prop["items"], path, key)
        if isinstance(prop.get("additionalProperties"), dict):
            placeholder = PLACEHOLDER.get(key, "<key>")
            out += self._reached(prop["additionalProperties"], f"{path}.{placeholder}", key)
        return out

    def title(self, name: str) -> tuple[str, str]:
        """A section's title (its YAML path, and the source type it belongs to) and a note
        naming the keys it stands for when several share it."""
        paths = self.paths[name]
        if name == "Config":
            return "Top level", ""
        variant = paths[0][1]
        suffix = f" ({variant})" if variant else ""
        if len(paths) == 1:
            return f"`{paths[0][0]}`{suffix}", ""
        parent = paths[0][0].rsplit(".", 1)[0]
        keys = [p.rsplit(".", 1)[-1] for p, _ in paths]
        if any(p.rsplit(".", 1)[0] != parent for p, _ in paths):
            also = ", ".join(f"`{p}`" for p, _ in paths[1:])
            return f"`{paths[0][0]}`{suffix}", f"Also: {also}."
        placeholder = PLACEHOLDER.get(parent.rsplit(".", 1)[-1], "<key>")
        named = ", ".join(f"`{k}`" for k in keys)
        return f"`{parent}.{placeholder}`{suffix}", f"`{placeholder}` is one of {named}."

    def link(self, name: str) -> str:
        kind = self.defs[name].get("properties", {}).get("type", {}).get("const")
        text = f"`type: {kind}`" if isinstance(kind, str) else self.title(name)[0]
        return f"[{text}](#{name.lower()})"

    def type(self, prop: dict[str, Any]) -> str:
        name = _ref(prop)
        if name is not None:
            return self.link(name)
        values = _values(prop)
        if values is not None:
            return " | ".join(f"`{json.dumps(v)}`" for v in values)
        for key in ("anyOf", "oneOf"):
            if key in prop:
                return " or ".join(self.type(p) for p in prop[key])
        kind = prop.get("type", "any")
        if kind == "array":
            return f"list of {self.type(prop.get('items', {}))}"
        if kind == "object" and "additionalProperties" in prop:
            return f"mapping to {self.type(prop['additionalProperties'])}"
        if kind == "string" and "format" in prop:
            return str(prop["format"])
        return str(kind)

    def default(self, key: str, prop: dict[str, Any], required: set[str]) -> str:
        if key in required:
            return "required"
        if "default" not in prop:
            raise ValueError(f"{key}: neither required nor given a default in the schema")
        value = prop["default"]
        name = _ref(prop) or next(
            (n for p in prop.get("anyOf", []) if (n := _ref(p)) is not None), None
        )
        if name is not None and isinstance(value, dict):
            own = {k: p.get("default") for k, p in self.defs[name].get("properties", {}).items()}
            if value == own:
                return f"each key's own ([section](#{name.lower()}))"
        return f"`{json.dumps(value)}`"

    def table(self, name: str) -> str:
        model = self.schema if name == "Config" else self.defs[name]
        title, note = self.title(name)
        rows = [f"### {title} {{#{name.lower()}}}", ""]
        if model.get("description"):
            rows += [_text(model["description"].strip()), ""]
        if note:
            rows += [note, ""]
        rows += ["| key | type | default | what it is |", "|---|---|---|---|"]
        required = set(model.get("required", []))
        for key, prop in model.get("properties", {}).items():
            rows.append(
                f"| `{key}` | {_cell(self.type(prop))} | "
                f"{_cell(self.default(key, prop, required))} | "
                f"{_cell(_text(prop.get('description', '')))} |"
            )
        return "\n".join(rows) + "\n"


_CODE = re.compile(r"(`[^`]*`)")


def _text(text: str) -> str:
    """Prose from a docstring or description: ``<`` and ``>`` outside code spans as entities
    (``http://<host>:<port>`` would otherwise be read as HTML tags and vanish); reST's double
    backticks as Markdown's single ones."""
    text = text.replace("``", "`")
    parts = _CODE.split(text)
    return "".join(
        p if p.startswith("`") else p.replace("<", "&lt;").replace(">", "&gt;") for p in parts
    )


def _cell(text: str) -> str:
    """``text`` in a table cell: the one place ``|`` is escaped."""
    return text.replace("|", "\\|").replace("\n", " ")


def reference() -> str:
    from iaa_gate.config import json_schema

    ref = Reference(json_schema())
    return "\n".join(ref.table(name) for name in ref.paths)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, reference())
    return markdown
