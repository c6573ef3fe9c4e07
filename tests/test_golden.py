"""Golden reports: Markdown, JUnit and the HTML page's text, rendered from the bundled examples.

After an intended change to a report: ``python tests/golden/regenerate.py``, then review the diff.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from golden.regenerate import CASES, GOLDEN, document, render


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> tuple[str, dict[str, str]]:
    return request.param, render(request.param)


def test_reports_match_the_golden_files(case: tuple[str, dict[str, str]]) -> None:
    name, rendered = case
    for filename, text in rendered.items():
        golden = (GOLDEN / name / filename).read_text(encoding="utf-8")
        assert text == golden, f"{name}/{filename} changed: python tests/golden/regenerate.py"


@pytest.mark.parametrize("name", sorted(CASES))
def test_junit_failures_are_the_failed_checks(name: str) -> None:
    doc = document(name)
    junit = ET.fromstring((GOLDEN / name / "junit.xml").read_text("utf-8"))
    suites = {s.get("name"): s for s in junit.iter("testsuite")}
    skipped = suites.pop("not-evaluated", None)  # fields in the data that were not evaluated
    models = suites.pop("model-predictions", None)  # a reference, never a failure
    assert models is None or models.find(".//failure") is None
    alt = suites.pop("alt-test", None)  # a winning_rate threshold fails in the field's suite
    assert alt is None or alt.find(".//failure") is None
    assert list(suites) == list(doc["fields"])
    listed = [c.get("name") for c in skipped.iter("testcase")] if skipped is not None else []
    assert listed == list(doc["not_evaluated"])
    for field, f in doc["fields"].items():
        cases = suites[field].findall("testcase")
        assert [c.get("name") for c in cases] == [c["name"] for c in f["checks"]]
        failures = [
            (c.get("name"), c.find("failure").get("message"))
            for c in cases
            if c.find("failure") is not None
        ]
        assert failures == [
            (c["name"], c["message"]) for c in f["checks"] if c["verdict"] == "fail"
        ]
        assert int(suites[field].get("failures")) == len(failures)
    if name == "label-studio-strict":
        assert doc["verdict"] == "fail" and len(junit.findall(".//failure")) == 2
