"""MkDocs hook: the configuration reference, generated at build time from the config's JSON
schema (``iaa_gate.config.json_schema()``), so it cannot drift from the code."""

from __future__ import annotations

import json
from typing import Any

MARKER = "<!-- config-reference -->"


def _type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " or ".join(_type(p) for p in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop.get('items', {}))}"
    if kind == "object" and "additionalProperties" in prop:
        return f"mapping to {_type(prop['additionalProperties'])}"
    return str(kind)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(name: str, model: dict[str, Any]) -> str:
    rows = [f"### {name}", ""]
    if model.get("description"):
        rows += [model["description"].strip(), ""]
    rows += ["| key | type | default | what it is |", "|---|---|---|---|"]
    required = set(model.get("required", []))
    for key, prop in model.get("properties", {}).items():
        default = "required" if key in required else f"`{json.dumps(prop.get('default'))}`"
        rows.append(
            f"| `{key}` | {_cell(_type(prop))} | {_cell(default)} | "
            f"{_cell(prop.get('description', ''))} |"
        )
    return "\n".join(rows) + "\n"


def reference() -> str:
    from iaa_gate.config import json_schema

    schema = json_schema()
    parts = [_table("Config", schema)]
    parts += [_table(name, model) for name, model in sorted(schema.get("$defs", {}).items())]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, reference())
    return markdown
