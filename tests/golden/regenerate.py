"""Regenerate the golden reports from the bundled examples: ``python tests/golden/regenerate.py``.

Each case is a config under ``examples/``, rendered with a fixed ``generated_at`` into
``tests/golden/<case>/``: ``report.md``, ``junit.xml`` and ``report.html.txt`` (the HTML page's
visible text, without its charts, script and styles). ``tests/test_golden.py`` compares fresh
renders with these files; after an intended change to a report, run this script and review the
diff. Paths in the reports are relative to the repository root, where this runs.
"""

from __future__ import annotations

import os
import re
import sys
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

from iaa_gate.config import parse_config, relative_to
from iaa_gate.pipeline import Outcome, evaluate, make_source
from iaa_gate.sinks.report.html import HtmlWriter
from iaa_gate.sinks.report.junit import JUnitWriter
from iaa_gate.sinks.report.markdown import MarkdownWriter

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
GENERATED_AT = datetime(2026, 11, 6, 12, 0, tzinfo=timezone.utc)


def _strict(cfg: dict[str, Any]) -> dict[str, Any]:
    """The Label Studio example with thresholds it fails: JUnit failures to compare."""
    cfg["fields"]["sentiment"]["thresholds"]["alpha"] = {"fail": 0.8, "warn": 0.9}
    cfg["fields"]["topics"]["thresholds"]["alpha"] = {"fail": 0.75}
    return cfg


CASES = {
    "label-studio": ("examples/label-studio/iaa-gate.yaml", None),
    "label-studio-strict": ("examples/label-studio/iaa-gate.yaml", _strict),
    "prodigy": ("examples/prodigy/iaa-gate.yaml", None),
    "label-studio-ner": ("examples/label-studio-ner/iaa-gate.yaml", None),
}


class _Text(HTMLParser):
    """The text a person reads on the page: one line per block, no script, style or SVG."""

    BLOCKS = frozenset(
        {"p", "div", "h1", "h2", "h3", "tr", "li", "ul", "table", "thead", "tbody", "section"}
        | {"figure", "figcaption", "details", "summary", "br"}
    )
    HIDDEN = frozenset({"script", "style", "svg", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data.replace("\n", " "))


def html_text(page: str) -> str:
    """The visible text of an HTML report (see :class:`_Text`), whitespace tidied."""
    parser = _Text()
    parser.feed(page)
    lines = (re.sub(r"\s+", " ", line).strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


def outcome(case: str) -> Outcome:
    """The evaluation of one case, now: its report document and every disputed task."""
    path, mutate = CASES[case]
    raw = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
    config = relative_to(parse_config(mutate(raw) if mutate else raw, path), Path(path).parent)
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        return evaluate(config, make_source(config).load(), generated_at=GENERATED_AT)
    finally:
        os.chdir(cwd)


def document(case: str) -> dict[str, Any]:
    """The report document of one case, evaluated now."""
    return outcome(case).document


def render(case: str) -> dict[str, str]:
    """The golden files of one case, by file name, rendered now."""
    out = outcome(case)
    doc = out.report
    return {
        "report.md": MarkdownWriter().render(doc),
        "junit.xml": JUnitWriter().render(doc),
        "report.html.txt": html_text(HtmlWriter().render(doc, out.disputed)),
    }


def main() -> int:
    for case in CASES:
        for name, text in render(case).items():
            out = GOLDEN / case / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8", newline="\n")
            print(out.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
