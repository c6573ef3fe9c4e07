"""The public API: ``import iaa_gate`` and its coefficients on long and wide data, checked
against the ``krippendorff`` package and the metrics functions."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

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


def test_a_classification_run_loads_no_region_or_sample_size_module(tmp_path: Path) -> None:
    """Their modules load on first use (start-up time of every run; the Markdown and HTML
    reports name the kinds of region disagreement); their names are still
    ``iaa_gate.metrics``'s."""
    config = ROOT / "examples" / "label-studio" / "iaa-gate.yaml"
    lazy = [f"iaa_gate.metrics.{m}" for m in ("positions", "regions", "sample_size", "unitizing")]
    code = (
        "import sys\nfrom iaa_gate.cli import main\n"
        f"main(['run', '-c', {str(config)!r}, '--out', {str(tmp_path)!r}, '--format', 'json'])\n"
        f"print(sorted(set({[*lazy, 'iaa_gate.evaluation.regions']!r}) & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    from iaa_gate import metrics

    assert {"Simulation", "region_scores", "unitizing_alpha"} <= set(dir(metrics))
    assert metrics.more_units(100, 0.2, 0.1) == 300


def test_no_subpackage_hides_an_api_name() -> None:
    """Importing a subpackage sets it on ``iaa_gate``: no API name may be one (``evaluate``
    once was, and became the module)."""
    import importlib
    import inspect
    import pkgutil

    for info in pkgutil.walk_packages(iaa_gate.__path__, "iaa_gate."):
        importlib.import_module(info.name)
    assert [n for n in iaa_gate.__all__ if inspect.ismodule(getattr(iaa_gate, n))] == []


def test_crowd_kit_columns_and_records_are_long_data() -> None:
    x = _random(1)
    expected = krippendorff.alpha(x.T, level_of_measurement="ordinal")
    triples = _long(x)
    crowd = pd.DataFrame(triples, columns=["task", "worker", "label"])
    records = crowd.to_dict("records")
    ours = [{"task": t, "annotator": a, "value": v} for t, a, v in triples]
    for data in (crowd, records, ours):
        assert iaa_gate.alpha(data, level="ordinal") == pytest.approx(expected, abs=1e-12)
    named = crowd.rename(columns={"worker": "rater"})
    assert iaa_gate.alpha(named, level="ordinal", annotator="rater") == pytest.approx(expected)


def test_one_key_type_for_categories_in_both_faces() -> None:
    """The values as given: integers stay integers and floats floats, whichever face is used."""
    wide = [[1, 1], [2, 3], [3, 3]]
    for ours, theirs in (
        (iaa_gate.category_agreement(wide, rows="units"), metrics.category_agreement(wide)),
        (
            iaa_gate.category_agreement(np.array(wide), rows="units"),
            metrics.category_agreement(np.array(wide)),
        ),
        (
            iaa_gate.category_agreement(np.array(wide, dtype=float), rows="units"),
            metrics.category_agreement(np.array(wide, dtype=float)),
        ),
        (
            iaa_gate.category_agreement([["a", "b"]], rows="units"),
            metrics.category_agreement([["a", "b"]]),
        ),
    ):
        assert [(k, type(k)) for k in ours] == [(k, type(k)) for k in theirs]
    assert [type(k) for k in metrics.category_agreement([[1, None], [2, 2]])] == [int, int]
    assert [type(k) for k in metrics.category_agreement([[1.0, 2.5]])] == [float, float]


@pytest.mark.parametrize(
    ("call", "parameter", "message"),
    [
        (lambda d: iaa_gate.alpha(d, level="nominl"), "level", r"level='nominl' is not accepted"),
        (lambda d: iaa_gate.alpha(d, rows="unit"), "rows", r"rows='unit' is not accepted"),
        (lambda d: iaa_gate.cohen_kappa(d, weights="cubic"), "weights", r"'linear', 'quadratic'"),
        (lambda d: iaa_gate.gwet_ac2(d, weights="square"), "weights", r"'circular', 'bipolar'"),
        (lambda d: iaa_gate.alpha(d, order="abc"), "order", r"a list of the values"),
        (lambda d: iaa_gate.alpha(d, order=[1, 2]), "order", r"rating 3 of task 't2' is not"),
        (lambda d: iaa_gate.alpha(d, task="item"), "task", r"only apply to a DataFrame|name the"),
        (lambda d: iaa_gate.alpha(d, level="interval", rows="units", task="t"), "rows", "give one"),
        (lambda d: iaa_gate.alpha("t1,a,1"), "data", r"str is not ratings"),
        (lambda d: iaa_gate.alpha(pd.DataFrame(d), task="item"), "task", r"not a column"),
    ],
)
def test_every_bad_argument_is_a_usage_error_naming_the_parameter(
    call: Any, parameter: str, message: str
) -> None:
    data = [("t1", "a", 1), ("t1", "b", 1), ("t2", "a", 3), ("t2", "b", 2)]
    with pytest.raises(iaa_gate.UsageError, match=message) as caught:
        call(data)
    assert caught.value.parameter == parameter


def test_data_that_does_not_fit_the_level_is_a_usage_error() -> None:
    with pytest.raises(iaa_gate.UsageError, match=r"^data: .*numeric") as caught:
        iaa_gate.alpha([("t1", "a", "x"), ("t1", "b", "y")], level="interval")
    assert caught.value.reason is iaa_gate.Reason.BAD_DATA
    with pytest.raises(iaa_gate.UsageError, match=r"two annotator columns"):
        iaa_gate.cohen_kappa([[1, 1, 1]], rows="units")


def test_both_long_column_names_at_once_are_refused_not_guessed() -> None:
    both = pd.DataFrame({"task": [1], "annotator": ["a"], "worker": ["w"], "value": [1]})
    with pytest.raises(iaa_gate.UsageError, match=r"both 'annotator' and 'worker'"):
        iaa_gate.alpha(both)


def test_a_misspelt_keyword_names_the_public_function() -> None:
    with pytest.raises(TypeError, match=r"alpha\(\) got an unexpected keyword argument 'levl'"):
        iaa_gate.alpha([("t1", "a", 1)], levl="ordinal")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"positional"):
        iaa_gate.alpha([("t1", "a", 1)], "ordinal")  # type: ignore[misc]


def _public(module: Any) -> list[tuple[str, Any]]:
    return [
        (f"{module.__name__}.{n}", getattr(module, n))
        for n in module.__all__
        if inspect.isfunction(getattr(module, n)) or inspect.isclass(getattr(module, n))
    ]


@pytest.mark.parametrize(
    ("name", "obj"), _public(iaa_gate) + _public(metrics), ids=lambda x: str(x).split(" ")[0]
)
def test_every_public_name_has_a_numpy_docstring(name: str, obj: Any) -> None:
    """Parameters (or Attributes), Returns for a function, and Examples run as doctests."""
    doc = inspect.getdoc(obj) or ""
    sections = set(re.findall(r"^(\w+)\n-{3,}$", doc, re.MULTILINE))
    needed = {"Examples"}
    if inspect.isfunction(obj):
        needed |= {"Returns"} | ({"Parameters"} if inspect.signature(obj).parameters else set())
    elif not issubclass(obj, Enum) and not getattr(obj, "_is_protocol", False):
        needed.add("Attributes" if "Attributes" in sections else "Parameters")
    assert needed <= sections, f"{name}: missing {sorted(needed - sections)}"
    assert ">>> " in doc.split("Examples\n--------", 1)[-1]


def test_pandas_missing_values_are_missing_ratings() -> None:
    frame = pd.DataFrame(
        {
            "task": ["t1", "t1", "t2", "t2"],
            "worker": ["a", "b", "a", "b"],
            "label": [1, 2, 1, pd.NA],
        }
    ).astype({"label": "Int64"})
    assert iaa_gate.ratings(frame).codes.tolist() == [[0, 1], [0, -1]]


def test_a_weight_matrix_is_refused_by_name_not_by_numpy() -> None:
    with pytest.raises(iaa_gate.UsageError, match=r"^weights=array"):
        iaa_gate.cohen_kappa([[1, 2]], rows="units", weights=np.eye(2))  # type: ignore[arg-type]


def test_a_config_that_is_not_one_is_a_usage_error() -> None:
    with pytest.raises(iaa_gate.UsageError, match=r"^config=dict is not accepted") as caught:
        iaa_gate.evaluate({"source": {}})  # type: ignore[arg-type]
    assert caught.value.parameter == "config"
    with pytest.raises(iaa_gate.UsageError, match=r"^path=3 is not accepted"):
        iaa_gate.load_config(3)  # type: ignore[arg-type]
