"""Rating and number fields: default coefficients by level, order-blind coefficients labelled,
tolerance for disputes, each annotator's mean offset."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC

from iaa_gate.config import parse_config
from iaa_gate.core.errors import InputError
from iaa_gate.metrics import annotator_offsets, gwet_weights, tolerance_scores
from iaa_gate.model import Annotation, Dataset, FieldValue
from iaa_gate.pipeline import evaluate

pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.SettingWithCopyWarning")

# 12 tasks, 3 raters on a 1–5 scale; rater "c" is one point above "a" nearly everywhere.
A = [1, 2, 3, 4, 2, 3, 1, 2, 3, 4, 3, 2]
B = [1, 2, 3, 4, 3, 3, 2, 2, 3, 4, 3, 1]
C = [2, 3, 4, 5, 3, 4, 2, 3, 4, 5, 4, 3]


def ratings_dataset(*raters: list[int], kind: str = "rating") -> Dataset:
    anns = [
        Annotation(t, name, {"score": FieldValue(kind, float(v))})
        for name, col in zip("abcd", raters, strict=False)
        for t, v in enumerate(col)
    ]
    return Dataset("ratings.json", anns, list(range(len(raters[0]))))


def run(dataset: Dataset, **field: Any) -> dict[str, Any]:
    cfg = parse_config(
        {
            "source": {"type": "label-studio-export", "path": "ratings.json"},
            "fields": {"score": {"bootstrap": {"replicates": 0}, **field}},
        }
    )
    doc: dict[str, Any] = evaluate(cfg, dataset).document["fields"]["score"]
    return doc


def test_offsets_single_out_the_rater_who_is_one_point_high() -> None:
    x = np.array([[1, 1, 2], [3, 3, 4], [2, 2, 3], [4, np.nan, 5]], dtype=float)
    # c: +1 above the others everywhere; a: −0.5 on three tasks, −1 against c alone: −0.625.
    np.testing.assert_allclose(annotator_offsets(x), [-0.625, -0.5, 1.0])
    assert np.isnan(annotator_offsets(np.array([[1.0, np.nan], [np.nan, 2.0]]))).all()


def test_tolerance_scores_count_near_pairs() -> None:
    x = np.array([[3, 4, 5], [1, 1, np.nan], [1, 3, np.nan], [2, np.nan, np.nan]], dtype=float)
    got = tolerance_scores(x, 1)
    np.testing.assert_allclose(got[:3], [2 / 3, 1.0, 0.0])
    assert np.isnan(got[3])


def test_ordinal_defaults_weighted_against_irrcac() -> None:
    doc = run(ratings_dataset(A, B, C))
    coefs = doc["coefficients"]
    assert list(coefs) == ["alpha", "percent_agreement", "gwet_ac2", "mean_pairwise_cohen_kappa"]
    ref = CAC(pd.DataFrame({"a": A, "b": B, "c": C}), weights="ordinal", digits=14).gwet()
    assert coefs["gwet_ac2"]["value"] == pytest.approx(ref["est"]["coefficient_value"], abs=1e-9)
    assert coefs["percent_agreement"]["ignores_order"] is True
    assert not any(coefs[n]["ignores_order"] for n in ("alpha", "gwet_ac2"))
    offsets = {a["name"]: a["mean_offset"] for a in doc["annotators"]}
    assert offsets["c"] == pytest.approx(np.mean(np.array(C) - (np.array(A) + B) / 2))
    assert offsets["c"] > 0.9 and offsets["a"] < 0


def test_two_raters_get_cohen_weighted_by_the_level() -> None:
    doc = run(ratings_dataset(A, C), level="interval")
    kappa = doc["coefficients"]["cohen_kappa"]
    w = gwet_weights("quadratic", sorted(set(A) | set(C)))
    ref = CAC(pd.DataFrame({"a": A, "c": C}), weights=w, digits=14).gwet()  # same weights
    assert "fleiss_kappa" not in doc["coefficients"] and kappa["ignores_order"] is False
    assert doc["coefficients"]["gwet_ac2"]["value"] == pytest.approx(
        ref["est"]["coefficient_value"], abs=1e-9
    )
    # quadratic-weighted Cohen's kappa on an interval scale equals sklearn's on the same values
    from sklearn.metrics import cohen_kappa_score

    assert kappa["value"] == pytest.approx(cohen_kappa_score(A, C, weights="quadratic"), abs=1e-9)


def test_unweighted_coefficients_on_ordinal_fields_are_labelled() -> None:
    doc = run(ratings_dataset(A, B, C), coefficients=["alpha", "fleiss_kappa"])
    assert doc["coefficients"]["fleiss_kappa"]["ignores_order"] is True
    nominal = run(ratings_dataset(A, B, C), level="nominal", coefficients=["fleiss_kappa"])
    assert nominal["coefficients"]["fleiss_kappa"]["ignores_order"] is False
    assert "mean_offset" in nominal["annotators"][0]


def test_disputed_tolerance_counts_near_misses_as_agreement() -> None:
    strict = run(ratings_dataset(A, B, C), thresholds={"disputed_below": 0.99})
    near = run(
        ratings_dataset(A, B, C), thresholds={"disputed_below": 0.99, "disputed_tolerance": 1}
    )
    assert near["disputed_tolerance"] == 1
    assert [d["id"] for d in near["disputed"]["lowest"]] == [11]  # ratings 2, 1, 3: a pair 2 apart
    assert near["disputed"]["lowest"][0]["score"] == pytest.approx(2 / 3)
    assert strict["n_disputed"] == 12  # no task has three equal ratings


def test_disputed_tolerance_on_labels_is_an_error() -> None:
    labels = Dataset(
        "x.json",
        [Annotation(t, a, {"score": FieldValue("choices", ("A",))}) for t in (1, 2) for a in "ab"],
        [1, 2],
    )
    with pytest.raises(InputError, match="disputed_tolerance needs numeric ratings"):
        run(labels, thresholds={"disputed_tolerance": 1})
