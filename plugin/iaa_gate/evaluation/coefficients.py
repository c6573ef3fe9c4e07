"""The configurable coefficients of a field: each value with its interval and interpretation."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .. import metrics
from ..config import COEFFICIENT_THRESHOLDS
from ..metrics import Coded, Undefined

INTERPRETED = {"alpha", "kappa_max", *COEFFICIENT_THRESHOLDS} - {
    "percent_agreement",
    "pooled_pair_agreement",
}
"""Coefficients on the kappa scale, read on an interpretation scale."""
TWO_ANNOTATORS = {
    "cohen_kappa",
    "scott_pi",
    "pabak",
    "kappa_max",
    "quantity_disagreement",
    "allocation_disagreement",
    "prevalence_index",
    "bias_index",
}
DESCRIPTION = {
    "alpha": "Krippendorff's alpha (bootstrap interval over units)",
    "percent_agreement": "Gwet's p_a: each task's share of agreeing pairs, averaged",
    "pooled_pair_agreement": "agreeing annotator pairs over all pairs, pooled over tasks",
    "cohen_kappa": "Cohen's kappa (two annotators; interval from Fleiss, Cohen & Everitt 1969)",
    "scott_pi": "Scott's pi (two annotators)",
    "fleiss_kappa": "Fleiss' kappa (missing ratings as in Gwet's handbook; Gwet's interval)",
    "mean_pairwise_cohen_kappa": "Light's kappa: mean of Cohen's kappa over annotator pairs",
    "gwet_ac1": "Gwet's AC1 (Gwet's interval)",
    "gwet_ac2": "Gwet's AC2, weighted (Gwet's interval)",
    "pabak": "prevalence- and bias-adjusted kappa (Byrt et al. 1993)",
    "kappa_max": "largest kappa the two annotators' marginals allow",
    "quantity_disagreement": "Pontius & Millones 2011: disagreement in label proportions",
    "allocation_disagreement": "Pontius & Millones 2011: disagreement in label placement",
    "prevalence_index": "Byrt et al. 1993 prevalence index (two labels)",
    "bias_index": "Byrt et al. 1993 bias index (two labels)",
    "f1": "regions: pooled pairwise F1 of one-to-one matched regions (the configured matching)",
    "strict_f1": "regions: pooled pairwise F1 with exact boundaries",
    "relations_f1": "relations: pooled pairwise F1 (both ends matched, same label)",
    "unitizing_alpha": "spans: Krippendorff's unitizing alpha (pooled over labels)",
    "kendall_w": "rankings: Kendall's W with the tie correction, per task, averaged",
    "mean_tau_b": "rankings: Kendall's tau-b over annotator pairs, per task, averaged",
}
ORDER_AWARE = {"alpha", "cohen_kappa", "mean_pairwise_cohen_kappa", "gwet_ac2"}
"""Coefficients that weigh near misses by the level's distance; the others ignore the order."""
LEVEL_WEIGHTS = {"ordinal": "ordinal", "interval": "quadratic", "ratio": "ratio"}
"""Gwet's agreement weights matching each level's distance (the default weights)."""
NOMINAL_DEFAULT = ["alpha", "percent_agreement", "fleiss_kappa", "gwet_ac1"]


def default_coefficients(level: str, n_annotators: int) -> list[str]:
    """The coefficients reported when the config lists none: the level decides."""
    if level not in LEVEL_WEIGHTS:
        return NOMINAL_DEFAULT
    pairwise = "cohen_kappa" if n_annotators == 2 else "mean_pairwise_cohen_kappa"
    return ["alpha", "percent_agreement", "gwet_ac2", pairwise]


@dataclass(frozen=True)
class Estimate:
    """One coefficient of one field.

    ``name``: the coefficient (``alpha``, ``fleiss_kappa``, ``gwet_ac1``…); ``value``: its value
    (NaN: undefined; the report gives the reason); ``se``: its standard error where one exists;
    ``lower``/``upper``: the interval at ``confidence`` (e.g. 0.95) where one exists (alpha: a
    bootstrap over units); ``interpretation``: the band its value falls in on ``scale``
    (``krippendorff``, ``landis_koch``, ``fleiss``, ``altman``); ``benchmark``: Gwet's
    probabilistic benchmark band (needs ``se``); ``q``: the probability that alpha is below
    the fail threshold (bootstrap); ``ignores_order``: the coefficient counts exact matches only
    on a field whose values are ordered."""

    name: str
    value: float
    se: float | None = None
    lower: float | None = None
    upper: float | None = None
    confidence: float | None = None
    interpretation: str | None = None
    scale: str | None = None
    benchmark: str | None = None
    q: float | None = None
    ignores_order: bool = False


def _weights(level: metrics.LevelArg, weights: str | None, values: Any) -> Any:
    """The configured weights, else the ``(K, K)`` Gwet weights of the level (None: nominal)."""
    if weights is not None or level not in LEVEL_WEIGHTS:
        return weights
    try:
        return metrics.gwet_weights(LEVEL_WEIGHTS[level], values)
    except ValueError:  # one value, or ratio weights on values <= 0
        return "quadratic"


def compute(
    name: str,
    coded: Coded,
    level: metrics.LevelArg,
    *,
    multiple: bool,
    weights: str | None,
    confidence: float,
    replicates: int,
    seed: int,
    alpha_min: float | None,
) -> Estimate:
    """One coefficient on a field's codes; an inapplicable one is :class:`Undefined` with why."""
    n_annotators = coded.codes.shape[1]
    if name == "alpha":
        if replicates <= 0:
            return Estimate(name, metrics.krippendorff_alpha(coded, level))
        boot = metrics.alpha_bootstrap(
            coded,
            level,
            replicates=replicates,
            confidence=confidence,
            alpha_min=alpha_min,
            seed=seed,
        )
        return Estimate(
            name, boot.alpha, _f(boot.se), _f(boot.lower), _f(boot.upper), confidence, q=_f(boot.q)
        )
    if multiple:
        return Estimate(
            name, Undefined("label sets (multi-select): see alpha and per-label agreement")
        )
    if name in TWO_ANNOTATORS and n_annotators != 2:
        return Estimate(
            name,
            Undefined(
                f"needs exactly two annotators, the field has {n_annotators}: use fleiss_kappa, "
                "mean_pairwise_cohen_kappa or gwet_ac1"
            ),
        )
    w = _weights(level, weights, coded.values)
    with_ci: dict[str, Callable[[], Any]] = {
        "cohen_kappa": lambda: metrics.cohen_kappa_ci(coded, weights=w, confidence=confidence),
        "fleiss_kappa": lambda: metrics.fleiss_kappa_ci(coded, confidence=confidence),
        "gwet_ac1": lambda: metrics.gwet_ac1_ci(coded, confidence=confidence),
        "gwet_ac2": lambda: metrics.gwet_ac2_ci(
            coded, weights="identity" if w is None else w, confidence=confidence
        ),
    }
    if name in with_ci:
        est = with_ci[name]()
        return Estimate(name, est.value, _f(est.se), _f(est.lower), _f(est.upper), confidence)
    if name == "mean_pairwise_cohen_kappa":
        return Estimate(name, metrics.mean_pairwise_cohen_kappa(coded, weights=w))
    fn: Callable[[Coded], float] = getattr(metrics, name)
    return Estimate(name, fn(coded))


def _f(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def interpreted(est: Estimate, scale: str | None, level: str = "nominal") -> Estimate:
    """``est`` with its interpretation on ``scale`` (default: Krippendorff's for alpha,
    Landis & Koch for the kappa family), Gwet's benchmark level when a SE exists, and
    ``ignores_order`` when the field is ordered and the coefficient is not."""
    ignores = level in LEVEL_WEIGHTS and est.name not in ORDER_AWARE
    if est.name not in INTERPRETED:
        return replace(est, ignores_order=ignores)
    chosen = scale or ("krippendorff" if est.name == "alpha" else "landis_koch")
    label = metrics.interpret(est.value, chosen)
    bench = None
    if est.se is not None and est.se > 0 and est.name != "alpha":
        bench = metrics.gwet_benchmark(est.value, est.se, chosen, confidence=est.confidence or 0.95)
    return replace(est, interpretation=label, scale=chosen, benchmark=bench, ignores_order=ignores)
