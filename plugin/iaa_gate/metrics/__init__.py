"""Agreement coefficients: pure numpy functions on ``(units, annotators)`` ratings, no I/O.

The region, position and sample-size functions load on first use (:data:`_LAZY`): a
classification round does not need their modules.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._base import Coded, Undefined, code_dtype, encode, undefined_reason
from .accumulator import AccumulatedAgreement, AlphaAccumulator
from .alpha import LevelArg, UnitDisagreement, krippendorff_alpha, unit_disagreement
from .bootstrap import AlphaBootstrap, alpha_bootstrap, alpha_replicates
from .categories import category_agreement, coincidence_matrix, specific_agreement
from .dawid_skene import DawidSkene, dawid_skene
from .distance import Distance, Tabulated, tabulate
from .gwet import fleiss_kappa_ci, gwet_ac1, gwet_ac1_ci, gwet_ac2, gwet_ac2_ci, gwet_weights
from .interpret import (
    SCALES,
    Band,
    benchmark_probability,
    gwet_benchmark,
    interpret,
    scale_table,
)
from .items import (
    AnnotatorAgreement,
    ItemAgreement,
    PairwiseAgreement,
    annotator_agreement,
    annotator_offsets,
    item_agreement,
    pairwise_agreement,
)
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
    pooled_pair_agreement,
    prevalence_index,
    quantity_disagreement,
    scott_pi,
)
from .sampled import SAMPLED_LEVELS, Sampled, alpha_standard_error
from .scores import item_scores, tolerance_scores

if TYPE_CHECKING:
    from .positions import position_alpha, position_ratings, position_runs
    from .regions import (
        KINDS,
        ClusterRatings,
        Clusters,
        Disagreements,
        PairwiseF1,
        RegionMatching,
        Regions,
        RegionScores,
        Relations,
        cluster_alpha,
        cluster_ratings,
        disagreements,
        match_regions,
        region_clusters,
        region_scores,
        relation_scores,
    )
    from .sample_size import (
        Draw,
        Simulation,
        WidthPlan,
        cohen_kappa_sample_size,
        interval_widths,
        kappa_ci_sample_size,
        kappa_power_sample_size,
        krippendorff_sample_size,
        more_units,
        resampled,
        settled,
        width_sample_size,
    )
    from .unitizing import UnitizingAlpha, unitizing_alpha, unitizing_alpha_tasks

__all__ = [
    "KINDS",
    "SAMPLED_LEVELS",
    "SCALES",
    "AccumulatedAgreement",
    "AlphaAccumulator",
    "AlphaBootstrap",
    "AnnotatorAgreement",
    "Band",
    "ClusterRatings",
    "Clusters",
    "Coded",
    "DawidSkene",
    "Disagreements",
    "Distance",
    "Draw",
    "ItemAgreement",
    "KappaEstimate",
    "LevelArg",
    "LightKappa",
    "PairwiseAgreement",
    "PairwiseF1",
    "RegionMatching",
    "RegionScores",
    "Regions",
    "Relations",
    "Sampled",
    "Simulation",
    "Tabulated",
    "Undefined",
    "UnitDisagreement",
    "UnitizingAlpha",
    "WidthPlan",
    "allocation_disagreement",
    "alpha_bootstrap",
    "alpha_replicates",
    "alpha_standard_error",
    "annotator_agreement",
    "annotator_offsets",
    "benchmark_probability",
    "bias_index",
    "category_agreement",
    "cluster_alpha",
    "cluster_ratings",
    "code_dtype",
    "cohen_kappa",
    "cohen_kappa_ci",
    "cohen_kappa_sample_size",
    "coincidence_matrix",
    "dawid_skene",
    "disagreements",
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
    "interval_widths",
    "item_agreement",
    "item_scores",
    "kappa_ci_sample_size",
    "kappa_max",
    "kappa_power_sample_size",
    "krippendorff_alpha",
    "krippendorff_sample_size",
    "light_kappa",
    "match_regions",
    "mean_pairwise_cohen_kappa",
    "more_units",
    "pabak",
    "pairwise_agreement",
    "pairwise_cohen_kappa",
    "percent_agreement",
    "pooled_pair_agreement",
    "position_alpha",
    "position_ratings",
    "position_runs",
    "prevalence_index",
    "quantity_disagreement",
    "region_clusters",
    "region_scores",
    "relation_scores",
    "resampled",
    "scale_table",
    "scott_pi",
    "settled",
    "specific_agreement",
    "tabulate",
    "tolerance_scores",
    "undefined_reason",
    "unit_disagreement",
    "unitizing_alpha",
    "unitizing_alpha_tasks",
    "width_sample_size",
]

_LAZY = frozenset(__all__) - set(globals())
"""The names of :data:`_MODULES`, loaded on first use."""
_MODULES = ("sample_size", "unitizing", "regions", "positions")
"""Where they are, the lightest first (unitizing imports regions, positions both)."""


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, imported from the first of :data:`_MODULES` that has it."""
    if name in _LAZY:
        for module in _MODULES:
            value = getattr(import_module(f"{__name__}.{module}"), name, _LAZY)
            if value is not _LAZY:
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY)
