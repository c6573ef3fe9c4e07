"""``junit.xml``: one test suite per field, one test case per check, for CI dashboards.

Each model version's alternative annotator test is a case of an ``alt-test`` suite per field
(its result and humans in ``<system-out>``, ``<skipped>`` when it could not be tested); a
``winning_rate`` threshold fails as a check of the field's suite.

A failed check is a ``<failure>``; a warning passes with its message in ``<system-out>``. Fields
in the data that were not evaluated are ``<skipped>`` test cases of a ``not-evaluated`` suite. A
field with a Dawid–Skene fit lists each annotator's estimated accuracy as suite ``<properties>``;
with ``adjudication:`` a ``disputes`` property gives its disputes by state.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ...evaluation.document import Disputed, Report
from .format import (
    MODEL_COLUMNS,
    alt_test_details,
    alt_test_human_rows,
    alt_test_line,
    alt_test_versions,
    disputes_line,
    model_note,
    model_rows,
    width_text,
)


class JUnitWriter:
    filename = "junit.xml"

    def render(self, report: Report, disputed: Disputed | None = None) -> str:
        suites = ET.Element("testsuites", name="iaa-gate")
        for name, f in report.fields.items():
            checks = f.checks
            failures = sum(c.verdict == "fail" for c in checks)
            suite = ET.SubElement(
                suites,
                "testsuite",
                name=name,
                tests=str(len(checks)),
                failures=str(failures),
                errors="0",
                skipped="0",
            )
            skill = f.skill
            sampling = f.alpha_sampling
            width = width_text(f)
            states = disputes_line(f.disputes)
            if skill or f.small_sample or sampling or width or states:
                props = ET.SubElement(suite, "properties")
            if width:  # beside alpha, as every report gives it
                ET.SubElement(props, "property", name="alpha interval width", value=width)
            if states:  # the disputes by state (adjudication:), beside open_disputes
                ET.SubElement(props, "property", name="disputes", value=states)
            if sampling:  # alpha's expected disagreement from drawn pairs: named, with its SE
                se = sampling.standard_error
                ET.SubElement(
                    props, "property", name="alpha sampled pairs", value=str(sampling.pairs)
                )
                ET.SubElement(
                    props,
                    "property",
                    name="alpha standard error (sampling)",
                    value="undefined" if se is None else f"{se:.6g}",
                )
            if f.small_sample:
                ET.SubElement(props, "property", name="small sample", value=f.small_sample)
            if skill:  # each annotator's Dawid–Skene accuracy, beside the checks
                for a in skill.annotators:
                    value = "undefined" if a.accuracy is None else f"{a.accuracy:.6g}"
                    ET.SubElement(
                        props, "property", name=f"dawid-skene accuracy {a.name}", value=value
                    )
            for c in checks:
                case = ET.SubElement(suite, "testcase", classname=f"iaa-gate.{name}", name=c.name)
                if c.verdict == "fail":
                    ET.SubElement(case, "failure", message=c.message, type="fail").text = c.message
                elif c.verdict == "warn":
                    ET.SubElement(case, "system-out").text = f"WARNING: {c.message}"
        if report.not_evaluated:
            skipped = ET.SubElement(
                suites,
                "testsuite",
                name="not-evaluated",
                tests=str(len(report.not_evaluated)),
                failures="0",
                errors="0",
                skipped=str(len(report.not_evaluated)),
            )
            for name, why in report.not_evaluated.items():
                case = ET.SubElement(
                    skipped, "testcase", classname="iaa-gate.not-evaluated", name=name
                )
                ET.SubElement(case, "skipped", message=f"{name} ({why}): not evaluated")
        rows, note = model_rows(report.models), model_note(report.models)
        if rows or note:  # a reference, never a gate: cases pass, their figures in system-out
            models = ET.SubElement(
                suites,
                "testsuite",
                name="model-predictions",
                tests=str(len(rows) + bool(note)),
                failures="0",
                errors="0",
                skipped=str(int(bool(note))),
            )
            if note:
                case = ET.SubElement(
                    models,
                    "testcase",
                    classname="iaa-gate.model-predictions",
                    name="predictions by id",
                )
                ET.SubElement(case, "skipped", message=note)
            for row in rows:
                case = ET.SubElement(
                    models,
                    "testcase",
                    classname=f"iaa-gate.model-predictions.{row[0]}",
                    name=row[1],
                )
                ET.SubElement(case, "system-out").text = "; ".join(
                    f"{k}: {v}" for k, v in zip(MODEL_COLUMNS[2:], row[2:], strict=True)
                )
        tested = alt_test_versions(report.alt_test)
        if tested:  # the gate's winning_rate checks fail in the field's suite; these inform
            alt = ET.SubElement(
                suites,
                "testsuite",
                name="alt-test",
                tests=str(len(tested)),
                failures="0",
                errors="0",
                skipped=str(sum(v.passed is None for _, v in tested)),
            )
            for name, v in tested:
                case = ET.SubElement(
                    alt, "testcase", classname=f"iaa-gate.alt-test.{name}", name=v.model_version
                )
                if v.passed is None:
                    ET.SubElement(case, "skipped", message=alt_test_line(name, v))
                    continue
                lines = [alt_test_line(name, v)]
                lines += [
                    f"{h[0]}: {h[1]} instances, p {h[2]}, {h[3]}" for h in alt_test_human_rows(v)
                ]
                ET.SubElement(case, "system-out").text = "\n".join(lines + alt_test_details(v))
        ET.indent(suites)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(suites, encoding="unicode")
            + "\n"
        )
