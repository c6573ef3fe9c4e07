"""The YAML config, validated with pydantic (unknown keys are errors, every error reported at once).

Secrets come only from the environment: any string may contain ``${VAR}``.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import os
import re
from collections.abc import Mapping
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    TypedDict,
    TypeVar,
    Union,
    cast,
    get_args,
)

import yaml
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .adapters import registry as adapter_registry
from .core.errors import ConfigError
from .core.settings import SourceSettings, Strict

Level = Literal["nominal", "ordinal", "interval", "ratio"]
DistanceName = Literal["jaccard", "masi", "hierarchical", "levenshtein"]
"""A distance named in the config (``fields.<f>.distance``); the functions are
:mod:`iaa_gate.metrics.distance`'s :class:`~iaa_gate.metrics.distance.Distance`."""
SET_DISTANCES = ("jaccard", "masi")
TextNorm = Literal["case", "whitespace", "punctuation", "unicode"]
Severity = Literal["fail", "warn"]
StrictT = TypeVar("StrictT", bound=Strict)


def _between(lo: float, hi: float) -> Any:
    def check(v: float) -> float:
        if not lo <= v <= hi:
            raise ValueError(f"must be between {lo:g} and {hi:g}")
        return v

    return AfterValidator(check)


AgreementValue = Annotated[
    float, _between(-1, 1), Field(json_schema_extra={"minimum": -1, "maximum": 1})
]
"""An agreement coefficient's value (a threshold on one): a float in [-1, 1]."""
Rate = Annotated[float, _between(0, 1), Field(json_schema_extra={"minimum": 0, "maximum": 1})]


def _label(v: Any) -> Any:
    """A label as YAML gave it: numbers become text (``1`` → ``"1"``); booleans are refused,
    since YAML reads unquoted Yes/No/On/Off/True/False as booleans."""
    if isinstance(v, bool):
        raise ValueError(
            f'YAML read this label as the boolean {str(v).lower()}: quote it, e.g. "Yes"'
        )
    if isinstance(v, (int, float)):
        return f"{v:g}"
    return v


class Threshold(Strict):
    """Below ``fail`` the check fails, below ``warn`` it warns; either may be left out."""

    fail: AgreementValue | None = Field(
        default=None, description="below this value the check fails; null: no fail bar"
    )
    warn: AgreementValue | None = Field(
        default=None, description="below this value the check warns; null: no warn bar"
    )
    use: Literal["estimate", "lower_bound"] = Field(
        default="estimate",
        description="lower_bound: gate on the lower confidence bound instead of the estimate",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Threshold:
        if self.fail is not None and self.warn is not None and self.warn < self.fail:
            raise ValueError("warn must be at least fail (warn is the stricter bar)")
        return self


Coefficient = Literal[
    "alpha",
    "percent_agreement",
    "pooled_pair_agreement",
    "cohen_kappa",
    "scott_pi",
    "fleiss_kappa",
    "mean_pairwise_cohen_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "pabak",
    "kappa_max",
    "quantity_disagreement",
    "allocation_disagreement",
    "prevalence_index",
    "bias_index",
]
DropKey = Literal[Coefficient, "category", "annotator"]


class DropThreshold(Strict):
    """Largest allowed fall since the previous round: above ``fail`` fails, above ``warn`` warns."""

    fail: float | None = Field(
        default=None, ge=0, le=2, description="a fall larger than this fails; null: no fail bar"
    )
    warn: float | None = Field(
        default=None, ge=0, le=2, description="a fall larger than this warns; null: no warn bar"
    )

    @model_validator(mode="after")
    def _ordered(self) -> DropThreshold:
        if self.fail is not None and self.warn is not None and self.warn > self.fail:
            raise ValueError("warn must be at most fail (warn is the stricter bar)")
        return self


class WidthThreshold(DropThreshold):
    """Widest allowed confidence interval of alpha (upper − lower): wider than ``fail`` fails,
    wider than ``warn`` warns (the bars of :class:`DropThreshold`, which orders them alike)."""

    fail: float | None = Field(
        default=None, gt=0, le=2, description="an interval wider than this fails; null: no bar"
    )
    warn: float | None = Field(
        default=None, gt=0, le=2, description="an interval wider than this warns; null: no bar"
    )


_ON_COEFFICIENT = "a threshold on this coefficient (off unless set; coefficients must list it)"


class CountLimit(Strict):
    """Most allowed of a count: above ``fail`` the check fails, above ``warn`` it warns."""

    fail: int | None = Field(default=None, ge=0, description="more than this fails")
    warn: int | None = Field(default=None, ge=0, description="more than this warns")

    @model_validator(mode="after")
    def _ordered(self) -> CountLimit:
        if self.fail is not None and self.warn is not None and self.warn > self.fail:
            raise ValueError("warn must be at most fail (warn is the stricter bar)")
        return self


class Thresholds(Strict):
    """Gate thresholds for one field. Defaults follow Krippendorff (2004): α < 0.667 fails,
    α < 0.800 warns."""

    alpha: Threshold = Field(
        default=Threshold(fail=0.667, warn=0.8),
        description="Krippendorff's alpha of the field (the main check)",
    )
    category: Threshold = Field(
        default=Threshold(),
        description="lowest per-category agreement (by the field's category_method)",
    )
    disputed_below: Rate = Field(
        default=0.5,
        description="a task whose agreement score is below this is disputed",
    )
    disputed_tolerance: float | None = Field(
        default=None,
        ge=0,
        description="numeric ratings: two ratings at most this far apart agree; a task's score "
        "is then its share of agreeing pairs",
    )
    disputed_share: Threshold = Field(
        default=Threshold(),
        description="share of evaluated tasks that are NOT disputed (e.g. fail: 0.8)",
    )
    ground_truth: Threshold = Field(
        default=Threshold(),
        description="lowest annotator agreement with ground truth (off unless set)",
    )
    open_disputes: CountLimit = Field(
        default=CountLimit(),
        description="most disputed tasks still open (neither settled nor resolved), e.g. "
        "{fail: 0}: release only when every dispute is settled or resolved",
    )
    annotator_gain: float | None = Field(
        default=0.05,
        ge=0,
        le=2,
        description="an annotator whose removal raises alpha by at least this is an outlier",
    )
    annotator_severity: Severity | Literal["info"] = Field(
        default="warn",
        description="verdict of an outlier annotator (annotator_gain): fail, warn, or info "
        "(named in the report, never a check)",
    )
    on_undefined: Severity | Literal["pass"] = Field(
        default="warn", description="verdict when alpha or a rate is undefined (e.g. one label)"
    )
    max_drop: dict[DropKey, float | DropThreshold] = Field(
        default={},
        description="largest allowed fall since the previous round (--compare or history), "
        "e.g. {alpha: 0.05} (a number: fail) or {alpha: {warn: 0.02, fail: 0.05}}; keys: alpha, "
        "a coefficient, category (any label), annotator (any annotator's pair agreement)",
    )
    interval_width: WidthThreshold = Field(
        default=WidthThreshold(),
        description="widest allowed confidence interval of alpha (upper − lower), e.g. "
        "{warn: 0.1}: a wider one warns and says about how many more tasks would narrow it",
    )
    f1: Threshold = Field(
        default=Threshold(),
        description="region fields: mean pairwise F1 of matched regions (relaxed, by matching)",
    )
    unitizing_alpha: Threshold = Field(
        default=Threshold(), description="span fields: Krippendorff's unitizing alpha (pooled)"
    )
    percent_agreement: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    cohen_kappa: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    scott_pi: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    fleiss_kappa: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    mean_pairwise_cohen_kappa: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    gwet_ac1: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    gwet_ac2: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)
    pabak: Threshold | None = Field(default=None, description=_ON_COEFFICIENT)

    def for_coefficient(self, name: str) -> Threshold | None:
        """The threshold set on coefficient ``name``, if any (alpha has its own check)."""
        return getattr(self, name) if name in COEFFICIENT_THRESHOLDS else None

    def drop(self, key: str) -> DropThreshold | None:
        """The ``max_drop`` bar on ``key``; a bare number is a fail bar."""
        bar = self.max_drop.get(key)  # type: ignore[call-overload]
        return DropThreshold(fail=bar) if isinstance(bar, (int, float)) else bar


Scale = Literal["krippendorff", "landis_koch", "fleiss", "altman"]
COEFFICIENT_THRESHOLDS = tuple(
    name for name in get_args(Coefficient) if name != "alpha" and name in Thresholds.model_fields
)
"""Coefficients that take a threshold (agreement coefficients; alpha has its own)."""


class Bootstrap(Strict):
    """Bootstrap interval for alpha, resampling tasks; ``replicates: 0`` turns it off."""

    replicates: int = Field(
        default=1000, ge=0, le=100_000, description="resamples of the tasks; 0: no interval"
    )
    seed: int = Field(
        default=0, description="random seed: the same seed and data give the same interval"
    )


class Matching(Strict):
    """How regions of two annotators are paired (region fields: spans, boxes, polygons,
    keypoints): one-to-one, order-free."""

    mode: Literal["exact", "overlap"] = Field(
        default="overlap", description="exact: identical boundaries; overlap: IoU >= iou"
    )
    iou: float = Field(default=0.5, gt=0, le=1, description="least IoU for an overlap match")
    labels: bool = Field(
        default=True, description="only same-label regions match (false: localisation alone)"
    )
    tolerance: float = Field(
        default=2.0, gt=0, description="keypoints: largest distance for a match (image percent)"
    )


class AltTestConfig(Strict):
    """The alternative annotator test of each model version (Calderon, Reichart & Dror, ACL
    2025): may the model take a human annotator's place? See docs/models.md."""

    epsilon: float = Field(
        default=0.15,
        ge=0,
        lt=1,
        description="ε, the cost-benefit allowance given to the model: 0.2 for expert "
        "annotators, 0.15 for skilled ones, 0.1 for crowd workers",
    )
    q: float = Field(
        default=0.05, gt=0, lt=1, description="false discovery rate (Benjamini–Yekutieli)"
    )
    min_instances: int = Field(
        default=30,
        ge=2,
        description="a human sharing fewer instances with the model is not tested (the t-test "
        "needs about 30; 50–100 are usually enough)",
    )
    min_humans: int = Field(
        default=2,
        ge=2,
        description="human answers an instance needs (with the model's) to be used; 3 or more "
        "give a consensus to compare with",
    )


class ModelThresholds(Strict):
    """Gate thresholds on each model version's alt-test (off unless set)."""

    winning_rate: Threshold = Field(
        default=Threshold(),
        description="the alt-test's winning rate ω (the share of humans the model wins "
        "against), e.g. {fail: 0.5}: a model that may not replace an annotator fails the run",
    )


class FieldModels(Strict):
    """One field's alt-test settings and thresholds: each key set here replaces the same key of
    the top-level ``models`` section; the keys left out keep its values."""

    alt_test: AltTestConfig | None = Field(
        default=None, description="replaces the keys it sets of models.alt_test"
    )
    thresholds: ModelThresholds | None = Field(
        default=None, description="replaces the keys it sets of models.thresholds"
    )


class ModelsConfig(Strict):
    """Models among the raters: which annotator ids are models (Prodigy, table; Label Studio
    predictions are models by their ``model_version``), the alt-test and its thresholds."""

    annotators: list[str] = Field(
        default=[],
        description="annotator (or Prodigy session) ids that are models, never ratings in "
        "agreement: e.g. [gpt-4o, llama-3.1-70b]; a Prodigy id <dataset>-<name> (a "
        "model-annotate session) matches <name>",
    )
    alt_test: AltTestConfig = Field(
        default=AltTestConfig(), description="the alternative annotator test's settings"
    )
    thresholds: ModelThresholds = Field(
        default=ModelThresholds(), description="the gate's bars on each model's alt-test"
    )

    def for_field(self, field: FieldConfig) -> tuple[AltTestConfig, ModelThresholds]:
        """The alt-test settings and thresholds of one field: the keys its ``models`` sets,
        the rest from this section."""
        own = field.models or FieldModels()
        return _merged(self.alt_test, own.alt_test), _merged(self.thresholds, own.thresholds)


def _merged(base: StrictT, own: StrictT | None) -> StrictT:
    """``base`` with the keys ``own`` sets (None: ``base``)."""
    if own is None:
        return base
    return base.model_copy(update={k: getattr(own, k) for k in own.model_fields_set})


class FieldConfig(Strict):
    """How to evaluate one field (a Label Studio control tag or a Prodigy view)."""

    level: Level | None = Field(
        default=None,
        description="level of measurement; default: nominal for choices/taxonomy/textarea, "
        "ordinal for rating, interval for number",
    )
    distance: DistanceName | None = Field(
        default=None,
        description="alpha's distance instead of a level: masi (the default for multi-select) "
        "or jaccard for label sets; hierarchical for a single-choice taxonomy (shared path "
        "depth); levenshtein for free text (normalised character edits)",
    )
    normalize: list[TextNorm] = Field(
        default=["case", "whitespace"],
        description="free text (textarea): what to ignore when comparing texts: case, "
        "whitespace (runs collapsed, ends trimmed), punctuation, unicode (NFKC forms); [] "
        "compares exact strings",
    )
    expected_sample: int | None = Field(
        default=None,
        ge=1000,
        le=100_000_000,
        description="levenshtein/hierarchical distance: when the distinct values have more than "
        "this many pairs, estimate alpha's expected disagreement from this many drawn pairs of "
        "ratings (seeded by bootstrap.seed) instead of every pair; alpha's standard error from "
        "the sampling is reported beside it (alpha_sampling) in every report. Default: exact",
    )
    multiple: bool | None = Field(
        default=None,
        description="multi-select (label sets); default: as the labeling config declares it "
        "when the source knows it, else false",
    )
    empty: Literal["no_rating", "empty_set"] = Field(
        default="no_rating",
        description="an empty selection (choices: [], Prodigy accept: []): no rating, or, for "
        "multi-select fields, the empty set",
    )
    labels: list[Annotated[str, BeforeValidator(_label)]] | None = Field(
        default=None, description="the project's label set, in scale order for ordinal"
    )
    min_annotators: int = Field(default=2, ge=2, description="ratings a task needs to count")
    category_method: Literal["category_agreement", "specific_agreement"] = Field(
        default="category_agreement",
        description="agreement per category: category_agreement (pairs who both chose it over "
        "pairs where at least one did) or specific_agreement (Uebersax's specific agreement)",
    )
    coefficients: list[Coefficient] | None = Field(
        default=None,
        description="coefficients to compute and report (alpha is always computed); default: "
        "alpha, percent_agreement, fleiss_kappa, gwet_ac1 for nominal fields; alpha, "
        "percent_agreement, gwet_ac2 and weighted cohen_kappa (two annotators) or "
        "mean_pairwise_cohen_kappa for ordinal, interval and ratio fields",
    )
    weights: Literal["linear", "quadratic"] | None = Field(
        default=None,
        description="weights for Cohen/Light's kappa and AC2; default: the level's distance "
        "(Gwet's ordinal weights for ordinal, quadratic for interval, ratio for ratio)",
    )
    interpretation: Scale | None = Field(
        default=None,
        description="scale for interpretations; default Krippendorff's for alpha, Landis & Koch "
        "for the kappa family",
    )
    confidence: float = Field(
        default=0.95, gt=0.5, lt=1, description="level of every confidence interval"
    )
    bootstrap: Bootstrap = Field(
        default=Bootstrap(), description="alpha's bootstrap interval (resampling tasks)"
    )
    matching: Matching = Field(
        default=Matching(), description="region fields: how regions are matched"
    )
    thresholds: Thresholds = Field(
        default=Thresholds(), description="the checks of this field and their bars"
    )
    models: FieldModels | None = Field(
        default=None,
        description="this field's alt-test settings and thresholds (override models.alt_test "
        "and models.thresholds key by key)",
    )

    @model_validator(mode="after")
    def _thresholds_on_computed(self) -> FieldConfig:
        missing = [
            name
            for name in COEFFICIENT_THRESHOLDS
            if (
                self.thresholds.for_coefficient(name) is not None
                or name in self.thresholds.max_drop
            )
            and self.coefficients is not None
            and name not in self.coefficients
        ]
        if missing:
            raise ValueError(
                f"thresholds set on {', '.join(missing)}, which coefficients does not list"
            )
        return self


class RoundConfig(Strict):
    """One labeling round: annotations created or updated in [from, to], and/or these tasks."""

    from_: date | datetime | None = Field(
        default=None,
        alias="from",
        description="first day (2026-11-02) or moment (2026-11-02T09:00:00+01:00) of the "
        "round; UTC unless a zone is given",
    )
    to: date | datetime | None = Field(
        default=None, description="last day (the whole day counts) or moment of the round"
    )
    task_ids: list[int | str] | None = Field(
        default=None, description='ids or inclusive ranges like "100-250"'
    )

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    @model_validator(mode="after")
    def _valid(self) -> RoundConfig:
        self.ids()
        lo, hi = self.bounds()
        if lo is not None and hi is not None and hi < lo:
            raise ValueError("'to' is before 'from'")
        return self

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """The window in UTC; a bare ``to`` date includes that whole day."""
        return _instant(self.from_, end=False), _instant(self.to, end=True)

    def ids(self) -> frozenset[int | str] | None:
        if self.task_ids is None:
            return None
        out: set[int | str] = set()
        for item in self.task_ids:
            m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", item) if isinstance(item, str) else None
            if m:
                lo, hi = int(m[1]), int(m[2])
                if hi < lo:
                    raise ValueError(f"task id range {item!r} is empty")
                out.update(range(lo, hi + 1))
            else:
                out.add(int(item) if isinstance(item, str) and item.isdigit() else item)
        return frozenset(out)


def _instant(v: date | datetime | None, *, end: bool) -> datetime | None:
    if v is None:
        return None
    if not isinstance(v, datetime):
        v = datetime.combine(v, time.max if end else time.min)
    return v if v.tzinfo else v.replace(tzinfo=timezone.utc)


def _source_union() -> Any:
    """The ``source:`` section: one model per registered adapter, told apart by ``type``."""
    models = tuple(a.settings for a in adapter_registry().values())
    return Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007


SOURCE_TYPES = tuple(adapter_registry())
"""The ``source.type`` values, one per registered adapter."""
if TYPE_CHECKING:
    SourceConfig = SourceSettings
else:
    SourceConfig = _source_union()

Format = Literal["json", "markdown", "html", "junit"]


class ReportConfig(Strict):
    """Where the reports go, and in which formats."""

    dir: Path = Field(
        default=Path("iaa-report"),
        description="directory the reports are written to (relative to the config file; "
        "--out overrides it)",
    )
    formats: list[Format] = Field(
        default=["json", "markdown"],
        description="json (report.json, with disputed-tasks.jsonl and consensus.jsonl), "
        "markdown (report.md), html (report.html), junit (junit.xml)",
    )


class OverlapConfig(Strict):
    """Overlap that follows the plan (Label Studio): once every field's alpha interval is at
    most ``target_width`` wide, the tasks not yet labelled are set to one annotator, but for a
    seeded random ``audit`` share that keeps the project's overlap; a wider interval raises
    it again. Tasks with an annotation are never touched."""

    target_width: float = Field(
        gt=0,
        le=2,
        description="alpha's 95% interval width at which double annotation stops: every "
        "field's interval at most this wide",
    )
    audit: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="share of the tasks not yet labelled that keep the project's overlap, "
        "drawn at random by task id and seed, so agreement and drift stay measured",
    )
    seed: int = Field(
        default=0, description="seed of the audit draw: the same seed keeps the same tasks"
    )


class RouteConfig(Strict):
    """Label Studio: re-open each open dispute for ``extra`` more annotators, up to
    ``max_annotations`` annotations per task (its ``overlap``; the label stream then serves it
    to people who have not annotated it)."""

    extra: int = Field(default=1, ge=1, le=10, description="annotators asked for per re-open")
    max_annotations: int = Field(
        ge=2, description="most annotations a disputed task is routed to; past it, a person"
    )


class WriteBackConfig(Strict):
    """What a run writes back for people to adjudicate: flags on a live Label Studio project's
    tasks (``source.type: label-studio``), or the review file ``disputed.jsonl`` for
    ``prodigy review`` (``source.type: prodigy``). Off unless ``enabled``."""

    enabled: bool = Field(
        default=False,
        description="write back (off unless true): Label Studio flags, or Prodigy's "
        "disputed.jsonl review file",
    )
    meta_key: str = Field(
        default="iaa",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="task meta key holding the entry; other meta keys are left as they are",
    )
    data_flags: bool = Field(
        default=False,
        description="also set <meta_key>_disputed, <meta_key>_score and <meta_key>_priority in "
        "task data, so they are Data Manager columns and the tab sorts by priority (the rest of "
        "data is kept as is)",
    )
    view: str | None = Field(
        default="IAA: disputed",
        min_length=1,
        description="title of the Data Manager tab showing the disputed tasks; null: no tab",
    )
    consensus: bool = Field(
        default=False,
        description="Label Studio: also write each disputed task's consensus as a prediction "
        "(model_version iaa-gate-consensus), replacing only iaa-gate's own; needs enabled",
    )

    route: RouteConfig | None = Field(
        default=None,
        description="Label Studio: re-open each open dispute for more annotators, e.g. "
        "{extra: 1, max_annotations: 5} (needs enabled and an adjudication: section)",
    )
    overlap: OverlapConfig | None = Field(
        default=None,
        description="Label Studio: set the tasks not yet labelled to one annotator once alpha's "
        "interval is narrow enough, keeping an audit share (per-task overlap); needs enabled; "
        "null: the project's overlap is left as it is",
    )

    @model_validator(mode="after")
    def _consensus_needs_enabled(self) -> WriteBackConfig:
        if self.consensus and not self.enabled:
            raise ValueError("writeback.consensus needs writeback.enabled: true")
        if self.route is not None and not self.enabled:
            raise ValueError("writeback.route needs writeback.enabled: true")
        if self.overlap is not None and not self.enabled:
            raise ValueError("writeback.overlap needs writeback.enabled: true")
        return self


class GroundTruthConfig(Strict):
    """Reference annotations besides Label Studio's ``ground_truth: true`` ones."""

    annotator: str | None = Field(
        default=None, description="gold annotator (id, email or name): their answers are truth"
    )
    tasks: list[int | str] | None = Field(
        default=None,
        description='gold tasks (ids or ranges like "1-50"): references elsewhere are ratings',
    )

    @model_validator(mode="after")
    def _valid(self) -> GroundTruthConfig:
        self.ids()
        return self

    def ids(self) -> frozenset[int | str] | None:
        return RoundConfig(task_ids=self.tasks).ids()


class AdjudicationConfig(Strict):
    """Who adjudicates disputed tasks and when a routed dispute is settled (see
    ``docs/lifecycle.md``). With this section, a Label Studio ground-truth mark outside the
    gold tasks (``ground_truth.tasks``) is an adjudication: the starred annotation stays its
    author's rating and becomes the task's final answer."""

    by: list[int | str] = Field(
        default=[],
        description="adjudicators (Label Studio e-mail or user id; Prodigy session; table "
        "annotator id): their annotations are final answers, never ratings",
    )
    settle_at: Rate = Field(
        default=0.9,
        description="a routed dispute whose consensus posterior reaches this is settled",
    )

    def names(self) -> frozenset[str]:
        """The adjudicators as text (an id matches as itself or as text)."""
        return frozenset(str(b) for b in self.by)


class HistoryConfig(Strict):
    """A directory keeping one report per run, for the change since the last round."""

    dir: Path = Field(description="where each run's report.json is kept as <time>.json")
    keep: int | None = Field(
        default=None, ge=1, description="runs kept (oldest removed); null: all"
    )
    rounds: int = Field(default=10, ge=2, le=100, description="rounds shown in the trend chart")


class ServeConfig(Strict):
    """``iaa-gate serve``: live agreement from a Label Studio project's webhooks."""

    secret: SecretStr = Field(
        description="shared secret Label Studio sends in the X-IAA-Gate-Secret header "
        "(16 characters or more): use ${IAA_GATE_WEBHOOK_SECRET}",
    )
    state: Path = Field(
        default=Path("iaa-gate-serve.sqlite3"), description="the state database (SQLite, WAL)"
    )
    webhook_url: str | None = Field(
        default=None,
        description="the URL Label Studio posts to (--register); default "
        "http://<host>:<port>/webhook",
    )
    reconcile_every: float = Field(
        default=600, gt=0, description="seconds between pulls of the project (missed events)"
    )
    max_body: int = Field(
        default=10_000_000, gt=0, description="largest webhook body accepted, in bytes"
    )
    notify_url: SecretStr | None = Field(
        default=None,
        description="POST {text, verdict, fields} here when the verdict changes "
        "(e.g. a Slack-style incoming webhook): use ${VAR}",
    )


class Config(Strict):
    """The whole config file."""

    version: Literal[1] = Field(default=1, description="the config format's version")
    source: SourceConfig = Field(
        description="where the round is read from; its type picks one of the source sections"
    )
    round: RoundConfig = Field(
        default=RoundConfig(), description="only the annotations of one labeling round"
    )
    fields: dict[str, FieldConfig] = Field(
        min_length=1,
        description="the fields to evaluate, by name: a Label Studio control's name, a Prodigy "
        "view, a table's field value",
    )
    report: ReportConfig = Field(
        default=ReportConfig(), description="where the reports go, and in which formats"
    )
    writeback: WriteBackConfig = Field(
        default=WriteBackConfig(),
        description="flags on the source's tasks for people to adjudicate (off unless enabled)",
    )
    history: HistoryConfig | None = Field(
        default=None, description="keep each run's report, to compare rounds; null: none kept"
    )
    ground_truth: GroundTruthConfig | None = Field(
        default=None, description="references to score each annotator against"
    )
    adjudication: AdjudicationConfig | None = Field(
        default=None,
        description="who adjudicates disputes and when a routed dispute is settled; null: "
        "nothing is read as an adjudication",
    )
    models: ModelsConfig = Field(
        default=ModelsConfig(),
        description="model predictions: the alt-test of each model version against the "
        "annotators, and its thresholds",
    )
    serve: ServeConfig | None = Field(
        default=None, description="iaa-gate serve: live agreement from webhooks"
    )
    annotator_names: dict[int | str, str] | Path | None = Field(
        default=None,
        description="names for annotator ids in every report ({5: dana@example.com}), or a "
        "CSV or JSON file of id,name; a live Label Studio project names them by e-mail",
    )

    def names(self) -> dict[str, str]:
        """The configured annotator names by id as text (``annotator_names``; a file is read
        with :func:`read_names`); empty when none are configured.

        Returns
        -------
        dict of str to str
            Annotator id → name.

        Examples
        --------
        >>> Config.model_validate(
        ...     {"source": {"type": "table", "path": "a.csv"}, "fields": {"f": {}},
        ...      "annotator_names": {5: "dana@example.com"}}
        ... ).names()
        {'5': 'dana@example.com'}
        """
        given = self.annotator_names
        if isinstance(given, Path):
            return read_names(given)
        return {str(k): v for k, v in (given or {}).items()}

    @model_validator(mode="after")
    def _review_needs_adjudication(self) -> Config:
        if getattr(self.source, "review", None) is not None and self.adjudication is None:
            raise ValueError(
                "source.review holds adjudicated answers: add an adjudication: section "
                "(adjudication: {} is enough) to use them"
            )
        if self.writeback.route is not None:
            if self.source.type != "label-studio":
                raise ValueError(
                    "writeback.route re-opens tasks in a live Label Studio project: it needs "
                    f"source.type: label-studio, not {self.source.type}"
                )
            if self.adjudication is None:
                raise ValueError(
                    "writeback.route needs an adjudication: section (settle_at says when a "
                    "routed dispute is settled; adjudication: {} takes 0.9)"
                )
        return self

    @field_validator("writeback")
    @classmethod
    def _writeback_target(cls, v: WriteBackConfig, info: ValidationInfo) -> WriteBackConfig:
        source = info.data.get("source")
        if v.enabled and source is not None and not adapter_registry()[source.type].writeback:
            # by name: the registry's order is the order its plugins happened to be imported
            can = [
                f"{a.name} ({a.writeback})"
                for _, a in sorted(adapter_registry().items())
                if a.writeback
            ]
            raise ValueError(
                f"enabled needs a source that can be written back to: {'; '.join(can)}; "
                f"a {source.type} source has none"
            )
        if v.overlap is not None and source is not None and source.type != "label-studio":
            raise ValueError(
                f"overlap sets Label Studio's per-task overlap; a {source.type} source has none "
                "(Prodigy: iaa-gate plan --prodigy gives annotations_per_task)"
            )
        return v


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _interpolate(node: Any, path: str, missing: list[str]) -> Any:
    if isinstance(node, dict):
        return {
            k: _interpolate(v, f"{path}.{k}" if path else str(k), missing) for k, v in node.items()
        }
    if isinstance(node, list):
        return [_interpolate(v, f"{path}[{i}]", missing) for i, v in enumerate(node)]
    if isinstance(node, str):

        def sub(m: re.Match[str]) -> str:
            if m[1] not in os.environ:
                missing.append(f"{path}: environment variable {m[1]} is not set")
                return ""
            return os.environ[m[1]]

        return _VAR.sub(sub, node)
    return node


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif loc[:i] == ("source",) and part in SOURCE_TYPES:
            continue  # the discriminator tag pydantic adds after "source"
        else:
            out += f".{part}" if out else str(part)
    return out


def parse_config(data: Any, source: str = "config") -> Config:
    """Validate a config mapping; raise :class:`ConfigError` listing every problem."""
    if not isinstance(data, dict):
        raise ConfigError(source, ["the config must be a YAML mapping (key: value)"])
    missing: list[str] = []
    data = _interpolate(data, "", missing)
    problems = list(missing)
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        schema = json_schema()
        for err in exc.errors():
            if err["type"] == "extra_forbidden":
                problems.append(f"{_loc(err['loc'])}: {_unknown_key(schema, err['loc'])}")
                continue
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"{_loc(err['loc'])}: {msg}")
        problems += _valid_parts_problems(data)
        raise ConfigError(source, problems) from None
    problems += field_problems(config)
    if problems:
        raise ConfigError(source, problems)
    return config


def _valid_parts_problems(config: Mapping[str, object]) -> list[str]:
    """:func:`field_problems` of the ``models`` section and of each field that is valid on its
    own, so that a combination that cannot work is named beside the config's other errors."""
    out: list[str] = []
    try:
        models = ModelsConfig.model_validate(config.get("models", {}))
        out += _no_interval("models", models.thresholds)
    except ValidationError:
        pass  # its own errors are listed already
    fields = config.get("fields")
    for name, data in fields.items() if isinstance(fields, dict) else ():
        try:
            field = FieldConfig.model_validate(data)
        except ValidationError:
            continue  # its own errors are listed already
        out += _one_field_problems(str(name), field)
    return out


SchemaNode = TypedDict(
    "SchemaNode",
    {
        "$schema": str,
        "$defs": dict[str, "SchemaNode"],
        "$ref": str,
        "title": str,
        "anyOf": list["SchemaNode"],
        "oneOf": list["SchemaNode"],
        "properties": dict[str, "SchemaNode"],
        "items": "SchemaNode | bool",
        "additionalProperties": "SchemaNode | bool",
        "const": object,
    },
    total=False,
)
"""A JSON Schema node as pydantic writes one: the keys the config's messages walk (a
discriminated union's tag is its ``type`` property's ``const``)."""


def _model_at(schema: SchemaNode, loc: tuple[int | str, ...]) -> SchemaNode | None:
    """The schema of the section at ``loc`` (pydantic's error location), or None."""
    defs = schema.get("$defs", {})

    def resolve(node: SchemaNode) -> list[SchemaNode]:
        ref = node.get("$ref")
        if isinstance(ref, str):
            return resolve(defs[ref.rsplit("/", 1)[-1]])
        parts = node.get("anyOf") or node.get("oneOf")
        if parts:
            return [r for p in parts for r in resolve(p)]
        return [node]

    nodes = resolve(schema)
    for part in loc:
        found: list[SchemaNode] = []
        for node in nodes:
            props = node.get("properties", {})
            if isinstance(part, str) and part in props:
                found += resolve(props[part])
            elif isinstance(part, str) and props.get("type", {}).get("const") == part:
                found.append(node)  # the tag pydantic adds after a discriminated "source"
            elif isinstance(part, int) and isinstance(items := node.get("items"), dict):
                found += resolve(items)
            elif isinstance(extra := node.get("additionalProperties"), dict):
                found += resolve(extra)
        nodes = found
    with_keys = [n for n in nodes if "properties" in n]
    return with_keys[0] if len(with_keys) == 1 else None


def _key_places(schema: SchemaNode) -> dict[str, list[str]]:
    """Every config key → the YAML paths of the sections that have it (``fields.<name>``)."""
    defs = schema.get("$defs", {})
    out: dict[str, list[str]] = {}
    seen: set[str] = set()

    def walk(node: SchemaNode, path: str) -> None:
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name in seen:
                return
            seen.add(name)
            walk(defs[name], path)
            seen.discard(name)
            return
        for part in node.get("anyOf", []) + node.get("oneOf", []):
            walk(part, path)
        if isinstance(extra := node.get("additionalProperties"), dict):
            walk(extra, f"{path}.<name>")
        for key, prop in node.get("properties", {}).items():
            here = f"{path}.{key}" if path else key
            out.setdefault(key, []).append(path)
            walk(prop, here)

    walk(schema, "")
    return out


def _unknown_key(schema: SchemaNode, loc: tuple[int | str, ...]) -> str:
    """What to say about the unknown key at ``loc``: the known key it is closest to, else the
    section it belongs in, else the keys this section has."""
    key = str(loc[-1])
    model = _model_at(schema, loc[:-1])
    known = list(model.get("properties", {})) if model else []
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f"unknown key; did you mean {close[0]!r}?"
    places = sorted({p for p in _key_places(schema).get(key, []) if p})
    if places:
        return f"unknown key here; {key!r} belongs under {' or '.join(places)}"
    return "unknown key" + (f"; the keys here are {', '.join(known)}" if known else "")


NUMERIC_LEVELS = ("interval", "ratio")
NO_INTERVAL = (
    "percent_agreement",
    "pooled_pair_agreement",
    "scott_pi",
    "mean_pairwise_cohen_kappa",
    "pabak",
)
"""Coefficients reported without a confidence interval (``use: lower_bound`` cannot apply)."""


def field_problems(config: Config) -> list[str]:
    """Combinations pydantic accepts one key at a time but that cannot work together, each as
    ``path: message``."""
    out = _no_interval("models", config.models.thresholds)
    return out + [p for name, f in config.fields.items() for p in _one_field_problems(name, f)]


def _one_field_problems(name: str, f: FieldConfig) -> list[str]:
    """:func:`field_problems` of field ``name``."""
    out: list[str] = []
    at = f"fields.{name}"
    if f.multiple:
        if f.level not in (None, "nominal"):
            out.append(
                f"{at}.level: {f.level} does not apply to a multi-select field (label sets "
                "are compared with distance: masi or jaccard); remove level"
            )
        if f.distance not in (None, *SET_DISTANCES):
            out.append(
                f"{at}.distance: {f.distance} does not apply to label sets: use masi or jaccard"
            )
    else:
        if f.distance in SET_DISTANCES:
            out.append(
                f"{at}.distance: {f.distance} compares label sets; set multiple: true if "
                "annotators may choose several labels, else remove distance"
            )
        if f.empty == "empty_set":
            out.append(f"{at}.empty: empty_set needs multiple: true (label sets)")
    if f.level is not None and f.distance is not None:
        out.append(f"{at}: set level or distance, not both (distance replaces the level)")
    if f.level in NUMERIC_LEVELS and f.labels is not None:
        text = [lab for lab in f.labels if not _is_number(lab)]
        if text:
            out.append(
                f"{at}.level: {f.level} needs numbers, but labels has {text[0]!r}: use "
                "nominal, or ordinal with the labels in scale order"
            )
    if f.models and f.models.thresholds:
        out += _no_interval(f"{at}.models", f.models.thresholds)
    width = f.thresholds.interval_width
    if (width.fail is not None or width.warn is not None) and f.bootstrap.replicates == 0:
        out.append(
            f"{at}.thresholds.interval_width needs alpha's bootstrap interval, but "
            f"{at}.bootstrap.replicates is 0; set replicates (e.g. 1000) or remove it"
        )
    for key in ("alpha", *COEFFICIENT_THRESHOLDS):
        bar = getattr(f.thresholds, key)
        if bar is None or bar.use != "lower_bound":
            continue
        if key == "alpha" and f.bootstrap.replicates == 0:
            out.append(
                f"{at}.thresholds.alpha.use: lower_bound needs alpha's bootstrap interval, "
                f"but {at}.bootstrap.replicates is 0; set replicates (e.g. 1000) or "
                "use: estimate"
            )
        elif key in NO_INTERVAL:
            out.append(
                f"{at}.thresholds.{key}.use: lower_bound: {key} has no confidence interval; "
                "use: estimate"
            )
    return out


def _no_interval(at: str, bars: ModelThresholds) -> list[str]:
    """``use: lower_bound`` on the winning rate, which has no interval, as a problem."""
    if bars.winning_rate.use != "lower_bound":
        return []
    return [
        f"{at}.thresholds.winning_rate.use: lower_bound: the winning rate has no confidence "
        "interval; use: estimate"
    ]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_config(path: Path) -> Config:
    """Read and validate the YAML config at ``path``; relative paths in it (``source.path``,
    ``source.label_config``, ``report.dir``, ``history.dir``) are relative to the config file's
    directory."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), ["file not found"]) from None
    except OSError as exc:
        raise ConfigError(str(path), [f"cannot read: {exc.strerror}"]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ConfigError(
            str(path), [f"{where}not valid YAML ({getattr(exc, 'problem', exc)})"]
        ) from None
    config = relative_to(parse_config(data, str(path)), path.parent)
    if isinstance(config.annotator_names, Path):  # a bad names file fails with the config
        config = config.model_copy(update={"annotator_names": read_names(config.annotator_names)})
    return config


def _join(base: Path, p: Path) -> Path:
    return p if p.is_absolute() else Path(os.path.normpath(base / p))


def relative_to(config: Config, base: Path) -> Config:
    """``config`` with its relative file paths joined to ``base`` (the config's directory)."""
    src = config.source
    files = src.files()
    if files:
        src = src.model_copy(update={k: _join(base, p) for k, p in files.items()})
    report = config.report.model_copy(update={"dir": _join(base, config.report.dir)})
    history = config.history
    if history is not None:
        history = history.model_copy(update={"dir": _join(base, history.dir)})
    names = config.annotator_names
    if isinstance(names, Path):
        names = _join(base, names)
    return config.model_copy(
        update={"source": src, "report": report, "history": history, "annotator_names": names}
    )


def read_names(path: Path) -> dict[str, str]:
    """The annotator names in ``path``: a CSV with the columns ``id,name`` (a header row), or
    a JSON object ``{"5": "dana@example.com"}`` or list of ``{"id", "name"}`` objects.

    Parameters
    ----------
    path : Path
        The CSV or JSON file (by its suffix: ``.json`` is JSON, anything else CSV).

    Returns
    -------
    dict of str to str
        Annotator id → name.

    Raises
    ------
    ConfigError
        The file cannot be read, or a row has no id or no name (the error names the row).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "names.csv"
    >>> _ = p.write_text("id,name\\n5,dana@example.com\\n")
    >>> read_names(p)
    {'5': 'dana@example.com'}
    """
    where = f"annotator_names: {path}"
    fix = "give one id and one name per row (id,name)"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(where, ["file not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(where, [f"cannot read: {exc}"]) from None
    rows: list[tuple[str, Any, Any]] = []
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(where, [f"not valid JSON ({exc})"]) from None
        if isinstance(data, dict):
            rows = [(f"key {k!r}", k, v) for k, v in data.items()]
        elif isinstance(data, list):
            rows = [
                (f"item {i}", *((r.get("id"), r.get("name")) if isinstance(r, dict) else (r, None)))
                for i, r in enumerate(data, 1)
            ]
        else:
            raise ConfigError(where, ['expected {"<id>": "<name>"} or [{"id", "name"}, ...]'])
    else:
        reader = csv.reader(io.StringIO(text))
        header = [h.strip().lower() for h in next(reader, [])]
        if header[:2] != ["id", "name"]:
            raise ConfigError(where, [f"row 1: the header must be id,name, not {','.join(header)}"])
        rows = [
            (f"row {n}", r[0] if r else None, r[1] if len(r) > 1 else None)
            for n, r in enumerate(reader, 2)
            if any(c.strip() for c in r)
        ]
    names: dict[str, str] = {}
    problems = []
    for at, uid, name in rows:
        uid = str(uid).strip() if isinstance(uid, (int, str)) and not isinstance(uid, bool) else ""
        name = str(name).strip() if isinstance(name, str) else ""
        if not uid or not name:
            problems.append(f"{at}: {'no id' if not uid else 'no name'}: {fix}")
        elif names.get(uid, name) != name:
            problems.append(f"{at}: id {uid} is already named {names[uid]!r}")
        else:
            names[uid] = name
    if problems:
        raise ConfigError(where, problems)
    return names


def missing_files(config: Config) -> list[str]:
    """The config's input files that do not exist, as ``path: message`` problems."""
    files = config.source.files()
    return [f"source.{key}: {p} not found" for key, p in files.items() if not p.is_file()]


def json_schema() -> SchemaNode:
    """The JSON Schema of the config file (``config/iaa-gate.schema.json``)."""
    schema = cast(SchemaNode, Config.model_json_schema(by_alias=True))  # pydantic's own shape
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "iaa-gate config"
    return schema
