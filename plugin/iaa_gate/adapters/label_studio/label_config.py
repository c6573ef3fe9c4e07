"""A Label Studio labeling config (XML): its control tags, label sets and levels of measurement.

Used by ``iaa-gate init`` to write a starting config. The XML is parsed with ``defusedxml`` when
it is installed, else with the standard library (fine for a config you trust).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import yaml

from ...core.errors import InputError
from ...kinds import REGION_SHAPES, registry

_SCALAR = [k for k in registry().values() if k.family == "scalar" and k.default_level]
EVALUATED = {k.name: k.default_level for k in _SCALAR if k.evaluated_by_default}
"""Control tags evaluated by default, with their level of measurement (from the kinds registry)."""
LISTED = {k.name: k.default_level for k in _SCALAR if not k.evaluated_by_default}
"""Control tags listed but not evaluated by default (free text)."""
REGION_TAGS = frozenset(k.name for k in registry().values() if k.family != "scalar")
"""Span and region controls; those in ``kinds.REGION_SHAPES`` are evaluated by region matching,
the others (brushes, ellipses, video) are listed as not evaluated."""


@dataclass(frozen=True)
class Control:
    """One control tag: ``kind`` is the lower-cased tag (``choices``, ``rating``…).

    ``labels``: the label set when the config fixes it (``None`` for dynamic or numeric
    controls); ``level``: the default level, ``None`` when the control is not evaluated;
    ``evaluated``: evaluated by default; ``note``: a short description for the config comment.
    """

    name: str
    kind: str
    labels: tuple[str, ...] | None
    multiple: bool
    level: str | None
    evaluated: bool
    note: str
    to_name: str = ""
    scale: tuple[float, ...] | None = None
    """Rating controls: the declared scale 1 … ``maxRating``."""


def _parse_xml(text: str) -> Element:
    try:
        safe = importlib.import_module("defusedxml.ElementTree")
    except ImportError:  # stdlib: fine for a trusted, local labeling config
        from xml.etree.ElementTree import fromstring

        return fromstring(text)
    root: Element = safe.fromstring(text)
    return root


def parse_label_config(text: str, source: str = "labeling config") -> list[Control]:
    """The control tags of a labeling config, in document order.

    Raises :class:`InputError` naming ``source`` when the XML is malformed.
    """
    try:
        root = _parse_xml(text)
    except ParseError as exc:
        raise InputError(
            source,
            [f"not valid XML: {exc}"],
            hint="copy the config from the project's Settings → Labeling Interface → Code",
        ) from None
    except ValueError as exc:  # defusedxml refuses entities and DTDs
        raise InputError(source, [f"refused XML: {exc}"]) from None
    controls: list[Control] = []
    seen: set[str] = set()
    for el in root.iter():
        kind = _tag(el)
        name = el.get("name")
        if not name or name in seen or not el.get("toName"):
            continue
        if kind not in EVALUATED and kind not in LISTED and kind not in REGION_TAGS:
            continue
        seen.add(name)
        controls.append(_control(el, kind, name))
    return _attach_per_region(controls)


def _attach_per_region(controls: list[Control]) -> list[Control]:
    """Per-region controls become sub-fields ``<region field>.<name>`` of the one region
    control on the same object; with none or several, they stay listed, not evaluated."""
    out = []
    for c in controls:
        if not c.note.endswith("per-region control"):
            out.append(c)
            continue
        owners = [r.name for r in controls if r.kind in REGION_SHAPES and r.to_name == c.to_name]
        if len(owners) != 1:
            out.append(c)
            continue
        level = EVALUATED.get(c.kind) or LISTED.get(c.kind)
        note = f"<{c.kind}> on each {owners[0]} region: scored on matched regions"
        out.append(
            Control(
                f"{owners[0]}.{c.name}",
                c.kind,
                c.labels,
                c.multiple,
                level,
                c.kind in EVALUATED,
                note,
                c.to_name,
            )
        )
    return out


def _tag(el: Element) -> str:
    return str(el.tag).rsplit("}", 1)[-1].lower()


def _control(el: Element, kind: str, name: str) -> Control:
    per_region = el.get("perRegion", "").lower() == "true"
    to = el.get("toName", "")
    if kind in REGION_SHAPES and not per_region:
        note = f"<{el.tag}>: regions matched one-to-one"
        return Control(name, kind, _choices(el), False, "nominal", True, note, to)
    if kind in REGION_TAGS or per_region:
        why = "per-region control" if per_region else "span/region control"
        multiple = el.get("choice", "single") == "multiple"
        return Control(name, kind, _choices(el), multiple, None, False, f"<{el.tag}>: {why}", to)
    if kind == "choices":
        multiple = el.get("choice", "single") == "multiple"
        dynamic = el.get("value", "").startswith("$")
        labels = None if dynamic else _choices(el)
        note = f'<Choices choice="{el.get("choice", "single")}">' + (
            f' value="{el.get("value")}" (labels from the task data)' if dynamic else ""
        )
        return Control(name, kind, labels, multiple, "nominal", True, note)
    if kind == "taxonomy":  # several paths may be chosen unless maxUsages="1"
        multiple = el.get("maxUsages", "") != "1"
        note = "<Taxonomy>" if multiple else '<Taxonomy maxUsages="1">'
        return Control(name, kind, _paths(el) or None, multiple, "nominal", True, note)
    if kind == "rating":
        top = el.get("maxRating", "5")
        note = f'<Rating maxRating="{top}">'
        scale = tuple(float(x) for x in range(1, int(top) + 1)) if top.isdigit() else None
        return Control(name, kind, None, False, "ordinal", True, note, scale=scale)
    if kind == "number":
        bounds = " ".join(f'{k}="{el.get(k)}"' for k in ("min", "max") if el.get(k) is not None)
        return Control(name, kind, None, False, "interval", True, f"<Number {bounds}>".strip())
    return Control(name, kind, None, False, None, False, "<TextArea>: free text")


def _choices(el: Element) -> tuple[str, ...] | None:
    """Labels of the ``Choice``/``Label`` children (an ``alias`` is what results store)."""
    out: list[str] = []
    for child in el.iter():
        if child is not el and _tag(child) in ("choice", "label"):
            value = child.get("alias") or child.get("value")
            if value is not None and value not in out:
                out.append(value)
    return tuple(out) or None


def _paths(el: Element, prefix: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every node of a taxonomy as ``"root / … / node"`` (any node may be chosen)."""
    out: list[str] = []
    for child in el:
        if _tag(child) != "choice":
            continue
        value = child.get("alias") or child.get("value")
        if value is None:
            continue
        path = (*prefix, value)
        out.append(" / ".join(path))
        out += _paths(child, path)
    return tuple(out)


def fields_config(controls: list[Control]) -> dict[str, dict[str, Any]]:
    """The ``fields:`` mapping for the controls evaluated by default."""
    out: dict[str, dict[str, Any]] = {}
    for c in controls:
        if not c.evaluated:
            continue
        entry: dict[str, Any] = {}
        if c.kind in REGION_SHAPES:
            entry["matching"] = {"mode": "overlap", "iou": 0.5, "labels": True}
        if c.kind in ("rating", "number"):
            entry["level"] = c.level
        if c.kind in ("choices", "taxonomy"):
            entry["multiple"] = c.multiple
        if c.labels is not None:
            entry["labels"] = list(c.labels)
        out[c.name] = entry
    return out


def declared_scales(controls: list[Control]) -> dict[str, tuple[float, ...]]:
    """Rating controls → their declared scale (1 … maxRating)."""
    return {c.name: c.scale for c in controls if c.scale is not None}


def declared_multiple(controls: list[Control]) -> dict[str, bool]:
    """Choice and taxonomy controls → whether they take several labels."""
    return {c.name: c.multiple for c in controls if c.kind in ("choices", "taxonomy")}


def _yaml(value: Any) -> str:
    """``value`` as one line of YAML (flow style, quoted where needed)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 20, allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def starting_config(controls: list[Control], source: dict[str, Any], *, origin: str) -> str:
    """A commented starting YAML config for ``controls`` reading ``source``.

    Controls evaluated by default become ``fields``; text areas are listed commented out (or
    used when nothing else can be evaluated); region controls are named in a comment.
    """
    evaluated = [c for c in controls if c.evaluated]
    texts = [c for c in controls if c.kind in LISTED]
    if not evaluated and not texts:
        raise InputError(
            origin,
            ["the labeling config has no classification, span or region control"],
            hint="iaa-gate evaluates classification, span and region controls",
        )
    lines = [
        f"# iaa-gate config written by `iaa-gate init` from {origin}.",
        "# Check it, then: iaa-gate validate-config FILE && iaa-gate run --config FILE",
        "version: 1",
        "source:",
    ]
    lines += [f"  {k}: {_yaml(v) if k != 'api_key' else v}" for k, v in source.items()]
    if source.get("type") == "label-studio":
        lines.append("  # view: 12    # optional: only the tasks of this Data Manager tab (its id)")
    lines.append("fields:")
    shown = evaluated or texts
    entries = fields_config(shown) if evaluated else {c.name: {} for c in texts}
    for c in shown:
        entry = entries[c.name]
        note = c.note + (f": {c.level}" if c.kind in ("rating", "number") else "")
        lines.append(f"  {_yaml(c.name)}:" + (" {}" if not entry else "") + f"  # {note}")
        lines += [f"    {k}: {_yaml(v)}" for k, v in entry.items()]
    if evaluated:
        for c in texts:
            lines.append(f"  # {_yaml(c.name)}: {{}}  # {c.note}: not evaluated by default")
    skipped = [c for c in controls if not c.evaluated and c.kind not in LISTED]
    if skipped:
        names = ", ".join(f"{c.name} ({c.note.split('>')[0]}>)" for c in skipped)
        lines.append(f"# not evaluated: {names}")
    lines += ["report:", "  dir: iaa-report", "  formats: [json, markdown]"]
    if source.get("type") == "label-studio":
        lines += [
            "writeback:                 # flags on the project's tasks",
            "  enabled: false           # true, then `iaa-gate run --dry-run` shows the plan",
            "  meta_key: iaa            # task meta entry: status, scores, labels in conflict",
            "  data_flags: false        # true: iaa_disputed/iaa_score as Data Manager columns",
            '  view: "IAA: disputed"    # a Data Manager tab showing the disputed tasks',
        ]
    return "\n".join(lines) + "\n"
