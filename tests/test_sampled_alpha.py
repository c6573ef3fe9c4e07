"""The opt-in sampled expected disagreement (issue 17, ``fields.<name>.expected_sample``): alpha
agrees with the exact all-pairs value within a few standard errors, the error shrinks as more
pairs are drawn, below the size the exact path is untouched, and a sampled alpha is named, with
its standard error, in every report format."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
import rapidfuzz.process
import yaml

from builders import ls_annotation
from iaa_gate import metrics
from iaa_gate.cli import main
from iaa_gate.config import parse_config
from iaa_gate.core.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "plugin/iaa_gate/schemas/report.schema.json").read_text("utf-8"))


def _texts(units: int, distinct: int, seed: int = 0) -> list[list[str]]:
    """``units`` × 3 ratings among ``distinct`` random texts, the three often the same."""
    rng = np.random.default_rng(seed)
    pool = [
        "".join(rng.choice(list("abcdefgh"), size=int(rng.integers(10, 40))))
        for _ in range(distinct)
    ]
    out = []
    for _ in range(units):
        ref = pool[int(rng.integers(distinct))]
        out.append(
            [ref if rng.random() < 0.6 else pool[int(rng.integers(distinct))] for _ in range(3)]
        )
    return out


def test_sampled_alpha_is_the_exact_one_within_its_standard_error() -> None:
    """On 1,500 units with ~1,000 distinct texts (~500,000 pairs of them): the estimate is within
    four standard errors of the all-pairs alpha, and the error falls as ~1/√pairs."""
    coded = metrics.encode(np.array(_texts(1500, 1000), dtype=object))
    exact = metrics.krippendorff_alpha(coded, "levenshtein")
    errors = []
    for pairs in (2_000, 20_000, 200_000):
        fn = metrics.Sampled("levenshtein", pairs, seed=3)
        alpha = metrics.krippendorff_alpha(coded, fn)
        se = metrics.alpha_standard_error(coded, fn, alpha)
        assert 0 < se < 0.05
        assert abs(alpha - exact) <= 4 * se, (pairs, alpha, exact, se)
        errors.append(se)
    assert errors[0] > 2.5 * errors[1] > 2.5 * 2.5 * errors[2]  # √10 ≈ 3.2 each step


def test_sampled_taxonomy_alpha_is_the_exact_one_within_its_standard_error() -> None:
    rng = np.random.default_rng(5)
    paths = [
        " / ".join(f"n{int(x)}" for x in rng.integers(0, 4, size=int(rng.integers(2, 7))))
        for _ in range(600)
    ]
    rows = []
    for _ in range(800):
        ref = paths[int(rng.integers(len(paths)))]
        rows.append(
            [ref if rng.random() < 0.5 else paths[int(rng.integers(len(paths)))] for _ in "abc"]
        )
    coded = metrics.encode(np.array(rows, dtype=object))
    exact = metrics.krippendorff_alpha(coded, "hierarchical")
    fn = metrics.Sampled("hierarchical", 50_000, seed=0)
    alpha = metrics.krippendorff_alpha(coded, fn)
    assert abs(alpha - exact) <= 4 * metrics.alpha_standard_error(coded, fn, alpha)


def test_sampled_bootstrap_interval_covers_the_exact_alpha() -> None:
    coded = metrics.encode(np.array(_texts(600, 500, seed=1), dtype=object))
    exact = metrics.alpha_bootstrap(coded, "levenshtein", replicates=300)
    got = metrics.alpha_bootstrap(coded, metrics.Sampled("levenshtein", 50_000, 0), replicates=300)
    assert got.lower < exact.alpha < got.upper
    assert abs((got.upper - got.lower) - (exact.upper - exact.lower)) < 0.02


def _export(texts: list[list[str]]) -> list[dict[str, Any]]:
    return [
        {
            "id": u + 1,
            "data": {"text": "x"},
            "annotations": [
                ls_annotation(a + 1, 10 * u + a, t=("textarea", {"text": [text]}))
                for a, text in enumerate(row)
            ],
        }
        for u, row in enumerate(texts)
    ]


def _run(tmp_path: Path, field: dict[str, Any], texts: list[list[str]]) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "export.json").write_text(json.dumps(_export(texts)))
    cfg = {
        "source": {"type": "label-studio-export", "path": str(tmp_path / "export.json")},
        "fields": {"t": {"distance": "levenshtein", "bootstrap": {"replicates": 100}, **field}},
        "report": {"formats": ["json", "markdown", "html", "junit"]},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    out = tmp_path / "out"
    assert main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(out), "-q"]) in (0, 1, 2)
    return out


def test_sampled_alpha_is_named_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, {"expected_sample": 5_000}, _texts(300, 200))
    doc = json.loads((out / "report.json").read_text())
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(doc)
    sampling = doc["fields"]["t"]["alpha_sampling"]
    assert sampling["pairs"] == 5_000 and 0 < sampling["standard_error"] < 0.1
    se = f"{sampling['standard_error']:.2g}"
    md = (out / "report.md").read_text()
    assert "estimated from 5,000 drawn pairs" in md and se in md
    html = (out / "report.html").read_text()
    assert "estimated from 5,000 drawn pairs" in html and se in html
    props = {
        p.get("name"): p.get("value")
        for p in ET.parse(out / "junit.xml").getroot().iter("property")
    }
    assert props["alpha sampled pairs"] == "5000"
    assert math.isclose(
        float(props["alpha standard error (sampling)"]), sampling["standard_error"], rel_tol=1e-5
    )
    main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o2")])
    assert f"sampled ±{se} SE" in capsys.readouterr().out
    main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o3"), "--json"])
    assert json.loads(capsys.readouterr().out)["fields"]["t"]["alpha_sampling"] == sampling


def test_below_the_size_the_exact_path_is_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """200 distinct texts have 19,900 pairs: with expected_sample 100,000 every pair is measured
    once (as without the option), and the report has no alpha_sampling and the same alpha."""
    texts = _texts(300, 200)
    calls: list[int] = []
    real = rapidfuzz.process.cdist

    def counted(a: list[str], b: list[str], **kw: Any) -> Any:
        calls.append(len(a) * len(b))
        return real(a, b, **kw)

    monkeypatch.setattr(rapidfuzz.process, "cdist", counted)
    with_option = json.loads(
        (_run(tmp_path / "a", {"expected_sample": 100_000}, texts) / "report.json").read_text()
    )
    without = json.loads((_run(tmp_path / "b", {}, texts) / "report.json").read_text())
    assert with_option["fields"]["t"]["alpha_sampling"] is None
    assert with_option["fields"]["t"]["alpha"] == without["fields"]["t"]["alpha"]
    assert calls and sum(calls[: len(calls) // 2]) == sum(calls[len(calls) // 2 :])


@pytest.mark.parametrize("value", [0, 10, "many", 1.5])
def test_an_invalid_expected_sample_is_a_config_error(value: Any) -> None:
    with pytest.raises(ConfigError, match="expected_sample"):
        parse_config(
            {
                "source": {"type": "label-studio-export", "path": "x.json"},
                "fields": {"t": {"distance": "levenshtein", "expected_sample": value}},
            }
        )


def test_expected_sample_on_a_distance_it_cannot_sample_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "export.json").write_text(json.dumps(_export([["a", "b", "a"]] * 3)))
    cfg = {
        "source": {"type": "label-studio-export", "path": str(tmp_path / "export.json")},
        "fields": {"t": {"level": "nominal", "expected_sample": 5000}},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o"), "-q"]) != 0
    err = capsys.readouterr().err
    assert "fields.t.expected_sample applies to the levenshtein and hierarchical" in err
