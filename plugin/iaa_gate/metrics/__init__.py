"""Agreement coefficients: pure numpy functions on ``(units, annotators)`` ratings, no I/O."""

from ._base import Coded, Undefined, encode, undefined_reason
from .accumulator import AccumulatedAgreement, AlphaAccumulator
from .alpha import UnitDisagreement, krippendorff_alpha, unit_disagreement
from .bootstrap import AlphaBootstrap, alpha_bootstrap, alpha_replicates
from .categories import category_agreement, coincidence_matrix, specific_agreement
from .distance import Distance
from .gwet import fleiss_kappa_ci, gwet_ac1, gwet_ac1_ci, gwet_ac2, gwet_ac2_ci, gwet_weights
from .interpret import (
    SCALES,
    Band,
    benchmark_probability,
    gwet_benchmark,
    interpret,
    scale_table,
)
from .items import AnnotatorAgreement, ItemAgreement, annotator_agreement, item_agreement
from .kappa import (
    KappaEstimate,
    LightKappa,
    allocation_disagreement,
    bias_index,
    cohen_kappa,
    cohen_kappa_ci,
    fleiss_kappa,
    kappa_max,
    light_kappa,
    mean_pairwise_cohen_kappa,
    pabak,
    pairwise_cohen_kappa,
    percent_agreement,
    prevalence_index,
    quantity_disagreement,
    scott_pi,
)
from .scores import item_scores

__all__ = [
    "SCALES",
    "AccumulatedAgreement",
    "AlphaAccumulator",
    "AlphaBootstrap",
    "AnnotatorAgreement",
    "Band",
    "Coded",
    "Distance",
    "ItemAgreement",
    "KappaEstimate",
    "LightKappa",
    "Undefined",
    "UnitDisagreement",
    "allocation_disagreement",
    "alpha_bootstrap",
    "alpha_replicates",
    "annotator_agreement",
    "benchmark_probability",
    "bias_index",
    "category_agreement",
    "cohen_kappa",
    "cohen_kappa_ci",
    "coincidence_matrix",
    "encode",
    "fleiss_kappa",
    "fleiss_kappa_ci",
    "gwet_ac1",
    "gwet_ac1_ci",
    "gwet_ac2",
    "gwet_ac2_ci",
    "gwet_benchmark",
    "gwet_weights",
    "interpret",
    "item_agreement",
    "item_scores",
    "kappa_max",
    "krippendorff_alpha",
    "light_kappa",
    "mean_pairwise_cohen_kappa",
    "pabak",
    "pairwise_cohen_kappa",
    "percent_agreement",
    "prevalence_index",
    "quantity_disagreement",
    "scale_table",
    "scott_pi",
    "specific_agreement",
    "undefined_reason",
    "unit_disagreement",
]
