"""The public API: ``import iaa_gate`` and its coefficients on long and wide data, checked
against the ``krippendorff`` package and the metrics functions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

import iaa_gate
from iaa_gate import metrics

ROOT = Path(__file__).resolve().parents[1]
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _random(seed: int) -> np.ndarray:
    """``(units, annotators)`` integer ratings 1–5 with about a fifth missing (NaN)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, size=(40, 4)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    return x


def _long(x: np.ndarray) -> list[tuple[str, str, int]]:
    return [
        (f"t{u}", f"a{a}", int(x[u, a]))
        for u in range(x.shape[0])
        for a in range(x.shape[1])
        if not np.isnan(x[u, a])
    ]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(5))
def test_alpha_equals_the_krippendorff_package_in_every_shape(level: str, seed: int) -> None:
    x = _random(seed)
    expected = krippendorff.alpha(x.T, level_of_measurement=level)  # annotators × units
    triples = _long(x)
    frame = pd.DataFrame(triples, columns=["task", "annotator", "value"])
    renamed = frame.rename(columns={"task": "item", "annotator": "worker", "value": "label"})
    assert iaa_gate.alpha(triples, level=level) == pytest.approx(expected, abs=1e-12)
    assert iaa_gate.alpha(frame, level=level) == pytest.approx(expected, abs=1e-12)
    assert iaa_gate.alpha(
        renamed, level=level, task="item", annotator="worker", value="label"
    ) == pytest.approx(expected, abs=1e-12)
    assert iaa_gate.alpha(x, level=level, rows="units") == pytest.approx(expected, abs=1e-12)
    assert iaa_gate.alpha(x.T, level=level, rows="annotators") == pytest.approx(expected, abs=1e-12)
    wide = pd.DataFrame(x)
    assert iaa_gate.alpha(wide, level=level, rows="units") == pytest.approx(expected, abs=1e-12)


def test_a_two_dimensional_input_without_its_orientation_is_refused() -> None:
    x = _random(0)
    for data in (x, x.tolist(), pd.DataFrame(x)):
        with pytest.raises(iaa_gate.UsageError, match=r"rows='units'.*rows='annotators'"):
            iaa_gate.alpha(data)


def test_a_task_rated_twice_by_one_annotator_is_refused_by_row() -> None:
    triples = [("t1", "ann", "A"), ("t1", "bob", "A"), ("t1", "ann", "B")]
    with pytest.raises(iaa_gate.UsageError, match=r"rows 1 and 3: annotator 'ann' rated task"):
        iaa_gate.alpha(triples)


def test_integer_labels_stay_integers() -> None:
    out = iaa_gate.category_agreement([("t1", "a", 1), ("t1", "b", 1), ("t2", "a", 2)])
    assert list(out) == [1, 2] and all(type(k) is int for k in out)
    codes = iaa_gate.ratings([[1, 2], [2, 2]], rows="units")
    assert codes.values.dtype == np.int64


def test_the_other_coefficients_match_the_metrics_functions() -> None:
    x = _random(3)
    triples = _long(x)
    two = [t for t in triples if t[1] in ("a0", "a1")]
    pairs = x[:, :2]
    assert iaa_gate.fleiss_kappa(triples) == pytest.approx(metrics.fleiss_kappa(x), abs=1e-12)
    assert iaa_gate.gwet_ac1(triples) == pytest.approx(metrics.gwet_ac1(x), abs=1e-12)
    assert iaa_gate.gwet_ac2(triples) == pytest.approx(metrics.gwet_ac2(x), abs=1e-12)
    assert iaa_gate.percent_agreement(triples) == pytest.approx(
        metrics.percent_agreement(x), abs=1e-12
    )
    assert iaa_gate.cohen_kappa(two) == pytest.approx(metrics.cohen_kappa(pairs), abs=1e-12)
    assert iaa_gate.scott_pi(two) == pytest.approx(metrics.scott_pi(pairs), abs=1e-12)


def test_evaluate_runs_a_config_and_writes_nothing(tmp_path: Path) -> None:
    config = iaa_gate.load_config(ROOT / "examples" / "label-studio" / "iaa-gate.yaml")
    config = config.model_copy(
        update={"report": config.report.model_copy(update={"dir": tmp_path / "out"})}
    )
    outcome = iaa_gate.evaluate(config)
    assert outcome.verdict.value == "warn" and not (tmp_path / "out").exists()
    assert round(outcome.results["sentiment"].alpha, 3) == 0.762  # what the README shows


def test_import_iaa_gate_loads_neither_numpy_nor_pydantic() -> None:
    code = "import sys, iaa_gate; print(sorted({'numpy', 'pydantic'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert "alpha" in dir(iaa_gate) and "alpha" in iaa_gate.__all__


def test_no_subpackage_hides_an_api_name() -> None:
    """Importing a subpackage sets it on ``iaa_gate``: no API name may be one (``evaluate``
    once was, and became the module)."""
    import importlib
    import inspect
    import pkgutil

    for info in pkgutil.walk_packages(iaa_gate.__path__, "iaa_gate."):
        importlib.import_module(info.name)
    assert [n for n in iaa_gate.__all__ if inspect.ismodule(getattr(iaa_gate, n))] == []
