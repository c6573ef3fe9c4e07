"""Gate and coefficient suite through the pipeline: thresholds, lower bounds, undefined values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from iaa_gate.adapters.label_studio.export import LabelStudioExport
from iaa_gate.config import parse_config
from iaa_gate.core.errors import ConfigError
from iaa_gate.pipeline import evaluate

EXPORT = Path(__file__).resolve().parent.parent / "examples" / "label-studio" / "export.json"


@pytest.fixture(scope="module")
def dataset() -> Any:
    return LabelStudioExport(EXPORT).load()


def config(**field: Any) -> Any:
    return parse_config(
        {
            "source": {"type": "label-studio-export", "path": str(EXPORT)},
            "fields": {"sentiment": field},
        }
    )


def checks(outcome: Any) -> dict[str, Any]:
    return {c.name: c for c in outcome.checks}


def test_lower_bound_is_stricter_than_the_estimate(dataset: Any) -> None:
    plain = evaluate(config(thresholds={"alpha": {"fail": 0.72}}), dataset)
    strict = evaluate(config(thresholds={"alpha": {"fail": 0.72, "use": "lower_bound"}}), dataset)
    assert checks(plain)["alpha"].verdict.value == "pass"
    assert checks(strict)["alpha"].verdict.value == "fail"
    assert "lower 95% bound of alpha" in checks(strict)["alpha"].message
    alpha = strict.results["sentiment"].coefficients["alpha"]
    assert alpha.lower is not None and alpha.lower < 0.72 < alpha.value
    assert alpha.q is not None and 0 <= alpha.q <= 1


def test_thresholds_on_any_coefficient(dataset: Any) -> None:
    cfg = config(
        coefficients=["alpha", "gwet_ac1", "fleiss_kappa"],
        thresholds={"gwet_ac1": {"warn": 0.9}, "fleiss_kappa": {"fail": 0.5}},
    )
    out = evaluate(cfg, dataset)
    c = checks(out)
    assert c["gwet_ac1"].verdict.value == "warn" and c["fleiss_kappa"].verdict.value == "pass"
    doc = out.document["fields"]["sentiment"]["coefficients"]
    assert doc["fleiss_kappa"]["interpretation"] == "substantial"
    assert doc["fleiss_kappa"]["scale"] == "landis_koch" and doc["alpha"]["scale"] == "krippendorff"


def test_two_annotator_coefficients_are_undefined_with_reason(dataset: Any) -> None:
    out = evaluate(config(coefficients=["alpha", "cohen_kappa"]), dataset)
    cohen = out.document["fields"]["sentiment"]["coefficients"]["cohen_kappa"]
    assert cohen["value"] is None and "exactly two annotators" in cohen["undefined_reason"]


def test_threshold_on_an_unlisted_coefficient_is_a_config_error(dataset: Any) -> None:
    with pytest.raises(ConfigError, match="thresholds set on cohen_kappa"):
        config(coefficients=["alpha"], thresholds={"cohen_kappa": {"fail": 0.5}})
    out = evaluate(config(thresholds={"scott_pi": {"warn": 0.5}}), dataset)  # default list
    assert "scott_pi" in out.document["fields"]["sentiment"]["coefficients"]


def test_interpretation_scale_and_bootstrap_off(dataset: Any) -> None:
    out = evaluate(config(interpretation="altman", bootstrap={"replicates": 0}), dataset)
    coefs = out.document["fields"]["sentiment"]["coefficients"]
    assert coefs["alpha"]["lower"] is None and coefs["alpha"]["scale"] == "altman"
    assert coefs["alpha"]["interpretation"] == "good"


def test_outlier_severity_fail_and_disputed_share(dataset: Any) -> None:
    out = evaluate(
        config(thresholds={"annotator_severity": "fail", "disputed_share": {"fail": 0.9}}), dataset
    )
    c = checks(out)
    assert c["annotators"].verdict.value == "fail" and "5 (+0.154)" in c["annotators"].message
    assert c["disputed_share"].verdict.value == "fail"
    assert out.verdict.value == "fail" and out.document["verdict"] == "fail"
