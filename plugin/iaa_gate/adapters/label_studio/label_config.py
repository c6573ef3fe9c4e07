"""A Label Studio labeling config (XML): its control tags, label sets and levels of measurement.

Used by ``iaa-gate init`` to write a starting config. The XML is parsed with ``defusedxml`` when
it is installed, else with the standard library (fine for a config you trust).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import Any, TypedDict
from xml.etree.ElementTree import Element, ParseError

import yaml

from ...core.errors import InputError
from ...kinds import LABELS_OF_TOOLS, REGION_SHAPES, Answer, Kind, registry
from ...kinds.common import labels_of, tag_of
from ...kinds.messages import ANSWERED, CHAT
from ...kinds.messages import kind_of as message_kind
from ...model import Dataset

_SCALAR = [k for k in registry().values() if k.family == "scalar" and k.default_level]
EVALUATED = {k.name: k.default_level for k in _SCALAR if k.evaluated_by_default}
"""Control tags evaluated by default, with their level of measurement (from the kinds registry)."""
LISTED = {k.name: k.default_level for k in _SCALAR if not k.evaluated_by_default}
"""Control tags listed but not evaluated by default (free text)."""
REGION_TAGS = frozenset(k.name for k in registry().values() if k.family in ("region", "listed"))
"""Span and region controls; those in ``kinds.REGION_SHAPES`` are evaluated by region matching,
the others (ellipses, video tracks…) are listed as not evaluated, with the reason."""


@dataclass(frozen=True)
class Control:
    """One control tag: ``kind`` is the lower-cased tag (``choices``, ``rating``…).

    ``labels``: the label set when the config fixes it (``None`` for dynamic or numeric
    controls); ``level``: the default level, ``None`` when the control is not evaluated;
    ``evaluated``: evaluated by default; ``note``: a short description for the config comment;
    ``reason``: why a control that is not evaluated is not (``None`` for evaluated controls and
    free text, which a config may evaluate); ``scored_with``: the fields whose regions this
    control labels (a ``<Labels>`` naming the ``<Rectangle>``/``<Polygon>`` regions of an
    image), scored as part of them.
    """

    name: str
    kind: str
    labels: tuple[str, ...] | None
    multiple: bool
    level: str | None
    evaluated: bool
    note: str
    to_name: str = ""
    reason: str | None = None
    scored_with: tuple[str, ...] = ()
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


SPAN_OBJECTS = {
    "": "characters",  # an object the config does not declare: read as text, as before
    "text": "characters",
    "hypertext": "characters",
    "paragraphs": "characters",
    "audio": "seconds",
    "audioplus": "seconds",
}
"""Objects a ``<Labels>`` marks spans of, and the spans' unit."""
TOOLS = frozenset(k.name for k in registry().values() if k.tool)
"""Unlabelled region tools whose regions a ``<Labels>`` on the same object labels."""


def parse_label_config(text: str, source: str = "labeling config") -> list[Control]:
    """Every control tag of a labeling config, in document order: each becomes a field or
    carries the reason it is not evaluated (none is left out).

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
    objects = {  # a <Chat> is an object its own per-message controls name, with a toName
        str(el.get("name")): tag_of(el)
        for el in root.iter()
        if el.get("name")
        and el.get("value") is not None
        and (not el.get("toName") or tag_of(el) == CHAT)
    }
    tools: dict[str, list[tuple[str, str]]] = {}
    for el in root.iter():
        if el.get("name") and el.get("toName") and tag_of(el) in TOOLS:
            tools.setdefault(el.get("toName", ""), []).append((str(el.get("name")), tag_of(el)))
    controls: list[Control] = []
    seen: set[str] = set()
    for el in root.iter():
        kind = tag_of(el)
        name = el.get("name")
        if not name or name in seen or not el.get("toName"):
            continue
        seen.add(name)
        controls.append(_control(el, kind, name, objects, tools))
    return _attach_labels(_attach_per_region(controls, objects))


def _attach_per_region(controls: list[Control], objects: dict[str, str]) -> list[Control]:
    """Per-region controls become sub-fields ``<region field>.<name>`` of the one region
    control on the same object; otherwise they stay listed, not evaluated, with the reason."""
    out = []
    for c in controls:
        if not c.note.endswith("per-region control"):
            out.append(c)
            continue
        if objects.get(c.to_name) == CHAT:
            note = f"<{c.kind}> on each chat message: units are (task, message)"
            if c.kind in ANSWERED:
                scale = ANSWERED[c.kind]
                out.append(replace(c, note=note, level=scale, evaluated=True, reason=None))
            else:
                known = _REGISTRY.get(message_kind(c.kind)) or _REGISTRY["permessage"]
                out.append(replace(c, note=note, reason=known.reason))
            continue
        owners = [r for r in controls if r.kind in REGION_TAGS and r.to_name == c.to_name]
        scored = [r.name for r in owners if r.evaluated]
        if not scored:
            unscored = (
                f"it describes the regions of {', '.join(r.name for r in owners)}, which are "
                "not evaluated"
                if owners
                else "its object has no region control"
            )
            out.append(replace(c, reason=unscored))
            continue
        level = EVALUATED.get(c.kind) or LISTED.get(c.kind)
        why = None if level else f"iaa-gate does not score <{c.kind}> answers per region"
        for owner in scored:  # the results' region id says which field's region it is
            note = f"<{c.kind}> on each {owner} region: scored on matched regions"
            out.append(
                Control(
                    f"{owner}.{c.name}",
                    c.kind,
                    c.labels,
                    c.multiple,
                    level,
                    c.kind in EVALUATED,
                    note,
                    c.to_name,
                    why,
                )
            )
    return out


def _attach_labels(controls: list[Control]) -> list[Control]:
    """A region tool (``<Rectangle>``…) named by a ``<Labels>`` takes its label set."""
    sets = {t: c.labels for c in controls for t in c.scored_with if c.labels}
    return [replace(c, labels=sets[c.name]) if c.name in sets else c for c in controls]


_REGISTRY = registry()


def _listed(el: Element, kind: str, name: str, reason: str | None, to: str) -> Control:
    """A control not evaluated; ``reason`` None: a tag iaa-gate does not read."""
    why = reason or f"iaa-gate does not read <{el.tag}> answers"
    return Control(name, kind, labels_of(el), False, None, False, f"<{el.tag}>", to, why)


def _control(
    el: Element,
    kind: str,
    name: str,
    objects: dict[str, str],
    tools: dict[str, list[tuple[str, str]]],
) -> Control:
    per_region = el.get("perRegion", "").lower() == "true"
    to = el.get("toName", "")
    obj = objects.get(to.split(",")[0], "")
    if kind in LABELS_OF_TOOLS and not per_region and obj not in SPAN_OBJECTS:
        return _region_labels(el, name, to, obj, tools.get(to, []))
    k = _REGISTRY.get(kind)
    if k is None or (k.family == "listed" and not per_region):
        return _listed(el, kind, name, None if k is None else k.reason, to)
    if kind in REGION_SHAPES and not per_region:
        unit = f" ({SPAN_OBJECTS[obj]})" if kind in LABELS_OF_TOOLS and obj else ""
        note = f"<{el.tag}>{unit}: regions matched one-to-one"
        return Control(name, kind, labels_of(el), False, "nominal", True, note, to)
    if kind in REGION_TAGS or per_region:
        why = "per-region control" if per_region else "span/region control"
        multiple = el.get("choice", "single") == "multiple"
        return Control(name, kind, labels_of(el), multiple, None, False, f"<{el.tag}>: {why}", to)
    if k.declare is None:
        return _listed(el, kind, name, None, to)
    d = k.declare(el)
    level = k.default_level if k.evaluated_by_default else None
    evaluated = k.evaluated_by_default
    return Control(name, kind, d.labels, d.multiple, level, evaluated, d.note, to, scale=d.scale)


def _region_labels(
    el: Element, name: str, to: str, obj: str, tools: list[tuple[str, str]]
) -> Control:
    """A ``<Labels>`` on an object it does not mark spans of: the labels of the regions drawn
    there with unlabelled tools (``<Rectangle>``, ``<Polygon>``…), scored with the tools'
    fields; listed with the tools' reason when none of them is scored."""
    labels = labels_of(el)
    scored = tuple(n for n, k in tools if k in REGION_SHAPES)
    if scored:
        note = f"<{el.tag}>: the labels of the {', '.join(scored)} regions, scored with them"
        return Control(name, "labels", labels, False, None, False, note, to, None, scored)
    if tools:
        reasons = {str(_REGISTRY[k].reason) for _, k in tools if k in _REGISTRY}
        why = f"it labels {', '.join(n for n, _ in tools)} regions: " + "; ".join(sorted(reasons))
    else:
        why = f"a <Labels> on a <{obj or 'unknown'}> object with no region tool to label"
    return Control(name, "labels", labels, False, None, False, f"<{el.tag}>", to, why)


def _kind(c: Control) -> Kind | None:
    return _REGISTRY.get(c.kind)


def _numeric(c: Control) -> bool:
    """Whether ``c``'s answers are numbers (its level is worth stating)."""
    k = _kind(c)
    return k is not None and k.answer is Answer.NUMBER


def _multiple(c: Control) -> bool:
    """Whether ``c``'s kind may take several labels (its ``multiple`` is worth stating)."""
    k = _kind(c)
    return k is not None and k.multiple


class StartingField(TypedDict, total=False):
    """A field's section of a starting config (see :class:`~iaa_gate.config.FieldConfig`)."""

    matching: dict[str, str | float | bool]
    level: str | None
    multiple: bool
    labels: list[str]


class StartingThresholds(TypedDict):
    """The default thresholds a starting config names in a comment: ``alpha``'s ``fail`` and
    ``warn``, and ``disputed_below``."""

    alpha: dict[str, float | None]
    disputed_below: float


def fields_config(controls: list[Control]) -> dict[str, StartingField]:
    """The ``fields:`` mapping for the controls evaluated by default."""
    out: dict[str, StartingField] = {}
    for c in controls:
        if not c.evaluated:
            continue
        entry: StartingField = {}
        if c.kind in REGION_SHAPES:
            entry["matching"] = {"mode": "overlap", "iou": 0.5, "labels": True}
        if _numeric(c):
            entry["level"] = c.level
        if _multiple(c):
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
    return {c.name: c.multiple for c in controls if _multiple(c)}


def declare(dataset: Dataset, controls: list[Control]) -> None:
    """Set on ``dataset`` what the labeling config declares: which fields take several labels
    and the rating scales (every reader of a Label Studio source calls this, so an export with
    its labeling config, a live pull and the live service read a project alike)."""
    dataset.declared_multiple = declared_multiple(controls)
    dataset.declared_scale = declared_scales(controls)


def _yaml(value: Any) -> str:
    """``value`` as one line of YAML (flow style, quoted where needed)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=1 << 20, allow_unicode=True)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def starting_config(
    controls: list[Control],
    source: dict[str, str | int],
    *,
    origin: str,
    thresholds: StartingThresholds | None = None,
    html: bool = True,
) -> str:
    """A commented starting YAML config for ``controls`` reading ``source``.

    Controls evaluated by default become ``fields``; text areas are listed commented out (or
    used when nothing else can be evaluated); region controls are named in a comment.
    ``thresholds``: the default thresholds every field is gated by (``alpha``'s ``fail`` and
    ``warn``, ``disputed_below``), written as a comment so the user sees what applies.
    ``html``: the HTML report is among the formats (False: its extra is not installed, and a
    comment says how to add it).
    """
    evaluated = [c for c in controls if c.evaluated]
    texts = [c for c in controls if c.kind in LISTED and c.reason is None and not c.evaluated]
    if not evaluated and not texts:
        listed = [f"{c.name} ({c.note.split('>')[0]}>): {c.reason}" for c in controls]
        raise InputError(
            origin,
            ["no control of the labeling config can be evaluated", *listed]
            if listed
            else ["the labeling config has no control tag (no tag with name and toName)"],
            hint="iaa-gate evaluates classification, rating, number, text, pairwise, span, "
            "box, polygon and keypoint controls",
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
    if thresholds:
        alpha = thresholds["alpha"]
        lines += [
            "# Every field is gated by these thresholds unless it sets its own:",
            f"#   thresholds: {_yaml(thresholds)}",
            f"# alpha below {alpha['fail']:g} fails the run (exit 1), below {alpha['warn']:g} "
            "warns (exit 0 unless",
            "# --fail-on-warn); a task whose agreement score is below "
            f"{thresholds['disputed_below']:g} is disputed (listed for review).",
        ]
    lines.append("fields:")
    shown = evaluated or texts
    entries = fields_config(shown) if evaluated else {c.name: {} for c in texts}
    for c in shown:
        entry = entries[c.name]
        note = c.note + (f": {c.level}" if _numeric(c) else "")
        lines.append(f"  {_yaml(c.name)}:" + (" {}" if not entry else "") + f"  # {note}")
        lines += [f"    {k}: {_yaml(v)}" for k, v in entry.items()]
    if evaluated:
        for c in texts:
            lines.append(f"  # {_yaml(c.name)}: {{}}  # {c.note}: not evaluated by default")
    for c in controls:
        if c.scored_with:
            lines.append(f"# {c.name}: {c.note}")
    skipped = [c for c in controls if c.reason is not None]
    if skipped:
        lines.append("# not evaluated:")
        lines += [f"#   {c.name} ({c.note.split('>')[0]}>): {c.reason}" for c in skipped]
    lines += ["report:", "  dir: iaa-report"]
    if html:
        lines.append("  formats: [json, markdown, html]")
    else:
        lines.append('  formats: [json, markdown]  # and html, after pip install "iaa-gate[html]"')
    if source.get("type") == "label-studio":
        lines += [
            "writeback:                 # flags on the project's tasks",
            "  enabled: false           # true, then `iaa-gate run --dry-run` shows the plan",
            "  meta_key: iaa            # task meta entry: status, scores, labels in conflict",
            "  data_flags: true         # adds iaa_disputed, iaa_score and iaa_priority to each",
            "                           # task's data: sortable Data Manager columns (the UI",
            "                           # shows no meta); the rest of the data is kept",
            '  view: "IAA: disputed"    # a Data Manager tab showing the disputed tasks',
        ]
    return "\n".join(lines) + "\n"
