"""Every public function of :mod:`iaa_gate.metrics` and :mod:`iaa_gate` refuses a bad argument
with a :class:`~iaa_gate.UsageError` naming the parameter (and, for a closed set, what it
accepts), never a bare ``ValueError``/``TypeError``/``IndexError`` from inside.

The cases are found from the signatures: each public function has one valid call (``VALID``),
and each of its parameters is replaced in turn by the bad values ``BAD`` lists under the
parameter's name (or ``BAD_FOR`` under the function and the name). A parameter that takes
anything (a seed, a flag) is listed in ``ANYTHING`` with why; a test holds every function and
parameter to one of these, so a new function or parameter needs its cases.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import iaa_gate
from iaa_gate import metrics
from iaa_gate.metrics import (
    AlphaAccumulator,
    Regions,
    Relations,
    Sampled,
    Simulation,
    encode,
    settled,
)

SPAN_FIELDS: dict[str, Any] = {
    "unit": [0, 0, 0, 0],
    "annotator": [0, 0, 1, 1],
    "label": [0, 1, 0, 1],
    "geometry": [[0, 5], [10, 20], [0, 5], [10, 18]],
    "rated": [[True, True]],
    "kind": "span",
    "labels": ("PER", "ORG"),
}
SPANS = Regions(**SPAN_FIELDS)
MATCHING = metrics.match_regions(SPANS)
RELATIONS = Relations(source=[0, 2], target=[1, 3], label=[0, 0], labels=("works_at",))
PAIRS = [[1, 2], [2, 2], [1, 1], [2, 1]]
"""Two annotators' ratings ``(units, 2)``: every two-annotator coefficient takes them."""
QUICK = Simulation(rounds=4, replicates=4, seed=0)
LONG = [("t1", "a", 1), ("t1", "b", 1), ("t2", "a", 2), ("t2", "b", 1), ("t3", "a", 2)]
LONG += [("t3", "b", 2)]
EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "label-studio" / "iaa-gate.yaml")
MODEL = [("t1", 1), ("t2", 2), ("t3", 2)]

Call = tuple[tuple[Any, ...], dict[str, Any]]


def _call(*args: Any, **kwargs: Any) -> Call:
    return args, kwargs


def _takes_ratings(module: Any) -> list[str]:
    return [
        n
        for n in module.__all__
        if inspect.isfunction(getattr(module, n))
        and next(iter(inspect.signature(getattr(module, n)).parameters)) == "ratings"
    ]


VALID: dict[str, Call] = {
    **{name: _call(PAIRS) for name in _takes_ratings(metrics)},
    "annotator_offsets": _call(PAIRS),
    "alpha_bootstrap": _call(PAIRS, replicates=5),
    "alpha_replicates": _call(PAIRS, "nominal", [[1, 1, 1, 1]]),
    "alpha_standard_error": _call(
        encode([["ab", "ab"], ["abc", "b"]]), Sampled("levenshtein", pairs=10, seed=0), 0.5
    ),
    "tolerance_scores": _call(PAIRS, 1),
    "dawid_skene": _call([[0, 1], [1, 1], [0, 0]]),
    "code_dtype": _call(3),
    "undefined_reason": _call(0.5),
    "tabulate": _call(np.array(["a", "b"], dtype=object), "levenshtein"),
    "gwet_weights": _call("linear", [1, 2, 3]),
    "interpret": _call(0.7),
    "scale_table": _call("landis_koch"),
    "benchmark_probability": _call(0.67, 0.15, "altman"),
    "gwet_benchmark": _call(0.67, 0.15, "altman"),
    # sample sizes and simulations
    "krippendorff_sample_size": _call(0.8, 0.2),
    "cohen_kappa_sample_size": _call(0.3, 0.3, 0.6, 0.4),
    "kappa_ci_sample_size": _call(0.6, 0.4, prevalence=0.3),
    "kappa_power_sample_size": _call(0.6, 0.4, prevalence=0.3),
    "settled": _call(0.8, [0.5, 0.5]),
    "resampled": _call([[0, 0], [0, 1], [1, -1]]),
    "interval_widths": _call(20, settled(0.8, [0.5, 0.5]), values=range(2), rounds=2, replicates=2),
    "width_sample_size": _call(0.9, settled(0.8, [0.5, 0.5]), values=range(2), simulation=QUICK),
    "more_units": _call(100, 0.2, 0.1),
    # regions
    "match_regions": _call(SPANS),
    "cluster_alpha": _call(MATCHING),
    "cluster_ratings": _call(MATCHING),
    "region_clusters": _call(MATCHING),
    "region_scores": _call(MATCHING),
    "disagreements": _call(MATCHING),
    "relation_scores": _call(RELATIONS, MATCHING),
    "position_alpha": _call(SPANS, [20]),
    "position_ratings": _call(SPANS, [20]),
    "position_runs": _call(SPANS, [20]),
    "unitizing_alpha_tasks": _call(SPANS, [20]),
    "unitizing_alpha": _call([("a", 0, 4, "x"), ("b", 0, 5, "x")], (0, 10)),
}
"""One valid call of each public function of :mod:`iaa_gate.metrics`."""

VALID_API: dict[str, Call] = {
    **{
        name: _call(LONG)
        for name in (
            "alpha",
            "category_agreement",
            "cohen_kappa",
            "dawid_skene",
            "fleiss_kappa",
            "gwet_ac1",
            "gwet_ac2",
            "percent_agreement",
            "ratings",
            "scott_pi",
        )
    },
    "alt_test": _call(LONG, MODEL, min_instances=2),
    "load_config": _call(EXAMPLE),
    "evaluate": _call(EXAMPLE),
}
"""One valid call of each public function of :mod:`iaa_gate` (not made: ``evaluate`` runs)."""

RAGGED = [[1, 2], [3]]
BAD: dict[str, list[Any]] = {
    "ratings": [[1, 2, 1], np.zeros((2, 2, 2)), RAGGED, 3],
    "codes": [[0, 1], [[0, 7, -3]], [["a", "b"]]],
    "level": ["nominl", 3],
    "weights": ["cubic", np.eye(5)],
    "categories": [[1], 3],
    "confidence": [1.5, 0.0, float("nan")],
    "replicates": [0],
    "alpha_min": [1.5],
    "n_classes": [1],
    "max_iter": [0],
    "tol": [-1.0],
    "n_values": [-1, "x"],
    "value": ["x", None],
    "values": [3],
    "kind": ["cubic"],
    "scale": ["landis"],
    "se": [-0.1],
    "n": [1],
    "alpha": [1.5],
    "smallest_share": [0.0, 1.0],
    "significance": [0.0, 1.5],
    "power": [1.0],
    "coders": [1],
    "raters": [1],
    "prevalence": [0.0, 1.0],
    "kappa": [1.0],
    "kappa_null": [1.5],
    "lower": [-1.0],
    "upper": [0.1],
    "rate1": [1.5],
    "rate2": [-0.5],
    "shares": [[1.0], [0.5, -0.5]],
    "annotators": [1],
    "n_units": [1],
    "draw": ["settled"],
    "rounds": [0],
    "width": [0.0, 2.5],
    "goal": [0.0],
    "simulation": ["quick"],
    "start": [0],
    "regions": ["spans"],
    "matching": [SPANS],
    "relations": ["relations"],
    "mode": ["fuzzy"],
    "iou": [0.0, 1.5],
    "tolerance": [-1.0],
    "lengths": [[20, 20], [-1]],
    "segments": [[("a", 5, 4, "x")], [("a", 0)]],
    "continuum": [(5, 5), (0,)],
    "coded": [[[1, 2]]],
    "fn": ["levenshtein"],
    "order": [[9]],
    "names": [("a", "b", "c")],
    "overlapping": ["all"],
}
"""Bad values of a parameter, by its name."""

BAD_FOR: dict[tuple[str, str], list[Any]] = {
    ("alpha_bootstrap", "alpha_min"): [float("nan"), "0.8"],
    ("tabulate", "values"): [np.array([["a"]], dtype=object)],
    ("tabulate", "level"): ["nominl"],
    ("gwet_weights", "categories"): [3, [[1, 2]]],
    ("alpha_replicates", "weights"): [[[1, 1]], [[-1, 1, 1, 1]]],
    ("tolerance_scores", "values"): [[1, 2], [["a", "b"]]],
    ("annotator_offsets", "values"): [[1, 2], [["a", "b"]]],
    ("interval_widths", "values"): [[], 3],
    ("width_sample_size", "values"): [[], 3],
    ("cluster_ratings", "values"): [[1, 2]],
    ("disagreements", "units"): [[5]],
    ("resampled", "codes"): [[[0, -1]], [0, 1]],
    ("kappa_ci_sample_size", "kappa"): [1.0],
    ("alpha_standard_error", "alpha"): ["x"],
    ("more_units", "n"): [0],
    ("more_units", "width"): [0.0],
    ("cohen_kappa_sample_size", "kappa"): [1.5],
}
"""Bad values where the name alone does not say (another meaning, another range)."""

BAD_API: dict[str, list[Any]] = {
    "data": ["t1,a,1", [("t1", "a")], 3],
    "level": ["nominl"],
    "rows": ["unit"],
    "order": ["abc", [9]],
    "task": ["item"],
    "annotator": ["rater"],
    "value": ["score"],
    "weights": ["cubic"],
    "max_iter": [0],
    "tol": [-1.0],
    "humans": [3],
    "model": [[("t1",)], 3],
    "scoring": ["f1"],
    "epsilon": [-0.1],
    "q": [1.5],
    "min_instances": [0],
    "min_humans": [1],
    "path": [3],
    "config": [{}],
    "source": [3],
}
"""Bad values of a parameter of the :mod:`iaa_gate` functions, by its name."""

VALID_INPUTS: dict[str, tuple[Callable[..., Any], Call]] = {
    "Regions": (Regions, _call(**SPAN_FIELDS)),
    "Relations": (Relations, _call(source=[0, 2], target=[1, 3], label=[0, 0])),
    "Sampled": (Sampled, _call("levenshtein", 10, 0)),
    "AlphaAccumulator.update": (AlphaAccumulator().update, _call(PAIRS)),
    "AlphaAccumulator.remove": (AlphaAccumulator().remove, _call(PAIRS)),
    "AlphaAccumulator.merge": (AlphaAccumulator().merge, _call(AlphaAccumulator())),
    "AlphaAccumulator.result": (AlphaAccumulator().update(PAIRS).result, _call()),
}
"""The public classes a user builds the metrics' input with, and the accumulator's methods:
one valid call each (keywords; the same mechanism tries each parameter)."""

BAD_INPUTS: dict[tuple[str, str], list[Any]] = {
    ("Regions", "unit"): [["a", "b", "c", "d"], [0, 0, 0, 5]],
    ("Regions", "annotator"): [[0, 0, 1], [0, 0, 1, 2]],
    ("Regions", "label"): [[0, 1, 0, 2], [0, 1, 0]],
    ("Regions", "geometry"): [[[0, 5]], [[0, 5], [10, 20], [0, 5], [18, 10]], "x"],
    ("Regions", "rated"): [[True, True], [[True, False]]],
    ("Regions", "kind"): ["circle"],
    ("Relations", "source"): [["a", "b"]],
    ("Relations", "target"): [[1]],
    ("Relations", "label"): [[0, 0, 0]],
    ("Sampled", "name"): ["jaccard"],
    ("Sampled", "pairs"): [0],
    ("AlphaAccumulator.update", "block"): [[1, 2], RAGGED],
    ("AlphaAccumulator.remove", "block"): [[1, 2]],
    ("AlphaAccumulator.merge", "other"): [PAIRS],
    ("AlphaAccumulator.result", "level"): ["nominl"],
}
"""Bad values of the input classes' parameters."""

ANYTHING: dict[str, str] = {
    "seed": "any int or Generator numpy takes (numpy refuses the rest in its own words)",
    "labels": "a flag: match regions with or without their labels",
    "two_sided": "a flag",
    "merge": "a flag: merge an annotator's overlapping spans",
    "clusters": "a precomputed region_clusters(matching), an optimisation",
}
"""Parameters with no bad value, and why."""

ANYTHING_FOR: dict[tuple[str, str], str] = {
    ("Regions", "labels"): "the label names: the codes in label are checked against them",
    ("Relations", "labels"): "the relation label names",
    ("Regions", "points"): "read for polygons and masks only: test_polygons_need_their_points",
    ("Relations", "directed"): "a flag",
    ("Sampled", "seed"): "any int",
    ("undefined_reason", "value"): "a question about any value: only an undefined one has a reason",
}
"""Parameters of one function with no bad value, and why."""


def _bad_calls(
    name: str, fn: Callable[..., Any], call: Call, bad_of: Callable[[str], list[Any]]
) -> list[Any]:
    """``fn`` called as ``call`` with each parameter in turn given each of ``bad_of(it)``."""
    args, kwargs = call
    out = []
    for i, param in enumerate(inspect.signature(fn).parameters):
        for k, value in enumerate(bad_of(param)):
            call_args, call_kwargs = list(args), dict(kwargs)
            if i < len(args):
                call_args[i] = value
            else:
                call_kwargs[param] = value
            out.append(
                pytest.param(fn, tuple(call_args), call_kwargs, param, id=f"{name}-{param}-{k}")
            )
    return out


def _cases(
    valid: dict[str, Call], module: Any, bad: dict[str, list[Any]], bad_for: dict[Any, Any]
) -> list[Any]:
    out = []
    for name, call in sorted(valid.items()):

        def bad_of(param: str, name: str = name) -> list[Any]:
            if (name, param) in ANYTHING_FOR:
                return []
            return list(bad_for.get((name, param), bad.get(param, [])))

        out += _bad_calls(name, getattr(module, name), call, bad_of)
    return out


def _functions(module: Any) -> list[str]:
    return [n for n in module.__all__ if inspect.isfunction(getattr(module, n))]


@pytest.mark.parametrize(
    ("module", "valid", "bad", "bad_for"),
    [(metrics, VALID, BAD, BAD_FOR), (iaa_gate, VALID_API, BAD_API, {})],
    ids=["metrics", "iaa_gate"],
)
def test_every_public_function_and_parameter_has_a_bad_case(
    module: Any, valid: dict[str, Call], bad: dict[str, list[Any]], bad_for: dict[Any, Any]
) -> None:
    assert sorted(valid) == sorted(_functions(module))
    missing = [
        f"{name}({param})"
        for name in valid
        for param in inspect.signature(getattr(module, name)).parameters
        if not bad_for.get((name, param), bad.get(param))
        and param not in ANYTHING
        and (name, param) not in ANYTHING_FOR
    ]
    assert missing == []


def _input_cases() -> list[Any]:
    out = []
    for name, (fn, call) in sorted(VALID_INPUTS.items()):
        out += _bad_calls(
            name, fn, call, lambda param, name=name: BAD_INPUTS.get((name, param), [])
        )
    return out


def test_every_input_class_and_parameter_has_a_bad_case() -> None:
    """Every public class of :mod:`iaa_gate.metrics` is an input (here), a result the
    functions return, or a type: a new input class needs its cases."""
    classes = {n for n in metrics.__all__ if inspect.isclass(getattr(metrics, n))}
    inputs = {name.split(".")[0] for name in VALID_INPUTS}
    assert inputs <= classes
    missing = [
        f"{name}({param})"
        for name, (fn, _) in VALID_INPUTS.items()
        for param in inspect.signature(fn).parameters
        if (name, param) not in BAD_INPUTS and (name, param) not in ANYTHING_FOR
    ]
    assert missing == []


@pytest.mark.parametrize(("name", "call"), sorted(VALID.items()), ids=sorted(VALID))
def test_the_valid_calls_are_valid(name: str, call: Call) -> None:
    args, kwargs = call
    getattr(metrics, name)(*args, **kwargs)


@pytest.mark.parametrize(
    ("fn", "args", "kwargs", "parameter"),
    _cases(VALID, metrics, BAD, BAD_FOR)
    + _cases(VALID_API, iaa_gate, BAD_API, {})
    + _input_cases(),
)
def test_a_bad_argument_is_a_usage_error_naming_it(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(iaa_gate.UsageError) as caught:
        fn(*args, **kwargs)
    assert caught.value.parameter == parameter, str(caught.value)


def test_polygons_need_their_points() -> None:
    polygons = {**SPAN_FIELDS, "kind": "polygon", "geometry": np.zeros((4, 0))}
    with pytest.raises(iaa_gate.UsageError, match=r"polygon regions need one \(k, 2\)") as caught:
        Regions(**polygons, points=(np.zeros((3, 2)),))
    assert caught.value.parameter == "points"


def test_a_closed_set_is_named_in_the_error() -> None:
    for call in (
        lambda: metrics.krippendorff_alpha(PAIRS, "nominl"),
        lambda: metrics.cohen_kappa(PAIRS, "cubic"),
        lambda: metrics.gwet_ac2(PAIRS, "cubic"),
        lambda: metrics.gwet_weights("cubic", [1, 2]),
        lambda: metrics.interpret(0.5, "landis"),
        lambda: metrics.match_regions(SPANS, mode="fuzzy"),  # type: ignore[arg-type]
        lambda: metrics.tabulate(np.array(["a"], dtype=object), "nominl"),
        lambda: Regions(**{**SPAN_FIELDS, "kind": "circle"}),
        lambda: Sampled("jaccard", 10, 0),
    ):
        with pytest.raises(iaa_gate.UsageError) as caught:
            call()
        assert caught.value.accepted, str(caught.value)
        assert all(a in str(caught.value) for a in caught.value.accepted)


def test_a_usage_error_is_a_value_error_for_callers_that_catch_one() -> None:
    with pytest.raises(ValueError, match="level"):
        metrics.krippendorff_alpha(PAIRS, "nominl")
    frame = pd.DataFrame(LONG, columns=["task", "annotator", "value"])
    with pytest.raises(ValueError, match="level"):
        iaa_gate.alpha(frame, level="nominl")  # type: ignore[arg-type]
