"""The alt-test in a run: one round written as a Label Studio export with the predictions of two
model versions, as a Prodigy file whose models are ``*.model-annotate`` sessions and as a table
whose models are annotator ids: the same ω, ρ and p-values from each; models are never ratings;
a threshold on the winning rate gates the run (exit code); every report format shows it."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
import yaml

from iaa_gate.cli import main
from iaa_gate.config import parse_config
from iaa_gate.metrics.alt_test import alt_test
from iaa_gate.pipeline import evaluate, make_source

LABELS = ["POS", "NEG", "NEU"]
HUMANS = ["1", "2", "3", "4"]
MODELS = {"gpt-4o": 0.05, "llama-3.1-70b": 0.75}  # the model's noise: one better, one worse
TASKS = 60


def _round() -> tuple[dict[str, dict[int, str]], dict[str, dict[int, float]]]:
    """Answers by rater (humans and models) and task: a label and a 1-5 rating; each human
    leaves a tenth of the tasks out, each answer is the truth or, with the rater's noise, drawn
    at random."""
    rng = np.random.default_rng(30)
    truth = rng.integers(0, 3, TASKS)
    stars = rng.integers(1, 6, TASKS)
    labels: dict[str, dict[int, str]] = {}
    ratings: dict[str, dict[int, float]] = {}
    for who, noise in [*((h, 0.3) for h in HUMANS), *MODELS.items()]:
        person = who in HUMANS
        labels[who], ratings[who] = {}, {}
        for t in range(TASKS):
            if person and rng.random() < 0.1:
                continue
            noisy = rng.random() < noise
            labels[who][t + 1] = LABELS[rng.integers(0, 3) if noisy else truth[t]]
            step = int(rng.integers(-2, 3)) if noisy else 0
            ratings[who][t + 1] = float(min(5, max(1, stars[t] + step)))
    return labels, ratings


def _result(name: str, kind: str, value: Any) -> dict[str, Any]:
    key = {"choices": "choices", "rating": "rating"}[kind]
    return {
        "id": f"{name}-r",
        "from_name": name,
        "to_name": "text",
        "type": kind,
        "value": {key: [value] if kind == "choices" else value},
    }


def _topics(label: str, stars: float) -> dict[str, Any]:
    """A multi-select answer (Label Studio only): the label, and "LONG" for 4 or 5 stars."""
    chosen = [label, "LONG"] if stars >= 4 else [label]
    return {**_result("topics", "choices", label), "value": {"choices": chosen}}


def write_sources(at: Path) -> dict[str, Path]:
    """The round in three sources, each with its config; returns source → config path."""
    labels, ratings = _round()
    tasks = []
    for t in range(1, TASKS + 1):
        anns = [
            {
                "id": t * 10 + int(h),
                "completed_by": int(h),
                "result": [
                    _result("choice", "choices", labels[h][t]),
                    _result("stars", "rating", ratings[h][t]),
                    _topics(labels[h][t], ratings[h][t]),
                ],
                "was_cancelled": False,
                "ground_truth": False,
                "created_at": "2026-11-02T10:00:00Z",
                "updated_at": "2026-11-02T10:00:00Z",
            }
            for h in HUMANS
            if t in labels[h]
        ]
        preds = [
            {
                "id": t * 100 + k,
                "model_version": m,
                "result": [
                    _result("choice", "choices", labels[m][t]),
                    _result("stars", "rating", ratings[m][t]),
                    _topics(labels[m][t], ratings[m][t]),
                ],
                "task": t,
            }
            for k, m in enumerate(MODELS)
        ]
        tasks.append(
            {"id": t, "data": {"text": f"review {t}"}, "annotations": anns, "predictions": preds}
        )
    (at / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    lines = []
    options = [{"id": x, "text": x.lower()} for x in LABELS]
    for who in [*HUMANS, *MODELS]:
        for t, label in labels[who].items():
            session = f"sentiment-{who}"  # a model's: a model-annotate session
            lines.append(
                {
                    "text": f"review {t}",
                    "_input_hash": t,
                    "_task_hash": 1000 + t,
                    "options": options,
                    "_view_id": "choice",
                    "config": {"choice_style": "single"},
                    "accept": [label],
                    "answer": "accept",
                    "_timestamp": 1794821857,
                    "_annotator_id": session,
                    "_session_id": session,
                }
            )
    (at / "db-out.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with (at / "answers.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["task", "annotator", "field", "value"])
        for who in [*HUMANS, *MODELS]:
            for t, label in labels[who].items():
                w.writerow([f"review-{t}", who, "choice", label])
                w.writerow([f"review-{t}", who, "stars", f"{ratings[who][t]:g}"])
    common = {"bootstrap": {"replicates": 0}, "thresholds": {"alpha": {}}}  # gated by models
    fields = {"choice": {"labels": LABELS, **common}, "stars": {"level": "ordinal", **common}}
    models = {"annotators": list(MODELS)}
    sources = {
        "label-studio": {"type": "label-studio-export", "path": "export.json"},
        "prodigy": {"type": "prodigy", "path": "db-out.jsonl"},
        "table": {"type": "table", "path": "answers.csv", "kinds": {"stars": "rating"}},
    }
    out = {}
    for name, src in sources.items():
        cfg = {
            "version": 1,
            "source": src,
            "models": models,
            "fields": {k: v for k, v in fields.items() if name != "prodigy" or k == "choice"}
            | ({"topics": {"multiple": True, **common}} if name == "label-studio" else {}),
            "report": {"formats": ["json", "markdown", "html", "junit"]},
        }
        out[name] = at / f"{name}.yaml"
        out[name].write_text(yaml.safe_dump(cfg), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_sources(tmp_path_factory.mktemp("alt-test"))


def _doc(path: Path) -> dict[str, Any]:
    from iaa_gate.config import load_config

    config = load_config(path)
    return evaluate(config, make_source(config).load()).document


def _figures(doc: dict[str, Any], field: str) -> list[tuple[Any, ...]]:
    return [
        (
            v["model_version"],
            v["winning_rate"],
            v["advantage_probability"],
            v["passed"],
            v["n_instances"],
            [(h["n_instances"], h["p_value"], h["rejected"]) for h in v["humans"]],
        )
        for v in doc["alt_test"]["fields"][field]
    ]


def test_each_source_gives_the_same_figures(configs: dict[str, Path]) -> None:
    docs = {name: _doc(path) for name, path in configs.items()}
    choice = {name: _figures(d, "choice") for name, d in docs.items()}
    assert choice["label-studio"] == choice["prodigy"] == choice["table"]
    assert _figures(docs["label-studio"], "stars") == _figures(docs["table"], "stars")
    by_version = {v[0]: v for v in choice["table"]}
    assert by_version["gpt-4o"][3] is True and by_version["llama-3.1-70b"][3] is False
    assert by_version["gpt-4o"][2] > by_version["llama-3.1-70b"][2]


def test_the_figures_are_the_procedures(configs: dict[str, Path]) -> None:
    """The run's figures are :func:`alt_test` on the round's answers, straight from the data."""
    labels, ratings = _round()
    doc = _doc(configs["table"])
    for field, answers, scoring in (
        ("choice", labels, "accuracy"),
        ("stars", ratings, "neg_rmse"),
    ):
        for v in doc["alt_test"]["fields"][field]:
            missing = np.nan if scoring == "neg_rmse" else None
            values = np.full((TASKS, len(HUMANS)), missing, dtype=object)
            for j, h in enumerate(HUMANS):
                for t, x in answers[h].items():
                    values[t - 1, j] = x
            model = np.array(
                [answers[v["model_version"]][t] for t in range(1, TASKS + 1)], dtype=object
            )
            if scoring == "neg_rmse":
                values, model = values.astype(float), model.astype(float)
            ref = alt_test(values, model, scoring=scoring, epsilon=0.15)
            assert v["winning_rate"] == ref.winning_rate
            assert v["advantage_probability"] == pytest.approx(ref.advantage_probability, abs=1e-6)
            # rows in another task order: the t-test's sums in another order
            assert [h["p_value"] for h in v["humans"]] == pytest.approx(
                [h.p_value for h in ref.humans], rel=1e-12
            )


def test_models_are_never_ratings(configs: dict[str, Path]) -> None:
    for path in configs.values():
        doc = _doc(path)
        assert doc["input"]["annotators"] == len(HUMANS)
        assert doc["fields"]["choice"]["n_annotators"] == len(HUMANS)
        assert sorted(doc["alt_test"]["model_versions"]) == sorted(MODELS)


def test_a_winning_rate_threshold_gates_the_run(configs: dict[str, Path], tmp_path: Path) -> None:
    data = yaml.safe_load(configs["table"].read_text(encoding="utf-8"))
    data["source"]["path"] = str(configs["table"].parent / "answers.csv")
    data["models"]["thresholds"] = {"winning_rate": {"fail": 0.5}}
    data["fields"]["stars"]["models"] = {"thresholds": {"winning_rate": {"fail": 0.0}}}
    gated = tmp_path / "gated.yaml"
    gated.write_text(yaml.safe_dump(data), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "-c", str(gated), "--out", str(out), "-q"]) == 1
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    checks = {c["name"]: c for c in doc["fields"]["choice"]["checks"]}
    assert checks["winning_rate (llama-3.1-70b)"]["verdict"] == "fail"
    assert checks["winning_rate (gpt-4o)"]["verdict"] == "pass"
    stars = {c["name"]: c["verdict"] for c in doc["fields"]["stars"]["checks"]}
    assert stars["winning_rate (llama-3.1-70b)"] == "pass"  # the field's own bar: 0
    data["models"]["thresholds"] = {"winning_rate": {"fail": 0.0}}
    gated.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["run", "-c", str(gated), "--out", str(out), "-q"]) == 0


def test_every_format_shows_it(
    configs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["run", "-c", str(configs["label-studio"]), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    gpt = next(v for v in doc["alt_test"]["fields"]["choice"] if v["model_version"] == "gpt-4o")
    line = (
        f"gpt-4o on choice: passes the alt-test (ω {gpt['winning_rate']:.2f}, "
        f"ρ {gpt['advantage_probability']:.2f}, ε 0.15, 4 humans)"
    )
    assert line in said
    assert line in (out / "report.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert line in page and "Advantage probability ρ per model version" in page
    junit = ET.fromstring((out / "junit.xml").read_text(encoding="utf-8"))
    suite = next(s for s in junit.iter("testsuite") if s.get("name") == "alt-test")
    cases = [(c.get("classname"), c.get("name")) for c in suite.iter("testcase")]
    assert cases == [
        ("iaa-gate.alt-test.choice", "gpt-4o"),
        ("iaa-gate.alt-test.choice", "llama-3.1-70b"),
        ("iaa-gate.alt-test.stars", "gpt-4o"),
        ("iaa-gate.alt-test.stars", "llama-3.1-70b"),
        ("iaa-gate.alt-test.topics", "gpt-4o"),
        ("iaa-gate.alt-test.topics", "llama-3.1-70b"),
    ]


def test_a_round_too_small_says_why_it_was_not_tested(configs: dict[str, Path]) -> None:
    from iaa_gate.config import load_config

    config = load_config(configs["table"])
    small = parse_config(
        {
            **config.model_dump(mode="json", by_alias=True, exclude_unset=True),
            "models": {"annotators": list(MODELS), "alt_test": {"min_instances": 100}},
        }
    )
    doc = evaluate(small, make_source(config).load()).document
    for v in doc["alt_test"]["fields"]["choice"]:
        assert v["passed"] is None and v["winning_rate"] is None
        assert v["not_tested"].startswith("too few instances: no human shares 100 or more")
        assert all(h["decision"].startswith("not tested") for h in v["humans"])


def test_the_trend_compares_each_model_versions_omega_and_rho() -> None:
    from iaa_gate.evaluation.trend import EarlierAltTest, compare_alt_tests

    def compared(now: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
        typed = (msgspec.convert(x, EarlierAltTest) for x in (now, before))
        out: dict[str, Any] = msgspec.to_builtins(compare_alt_tests(*typed))
        return out

    def section(**versions: tuple[float, float, float]) -> dict[str, Any]:
        return {
            "fields": {
                "choice": [
                    {
                        "model_version": m,
                        "winning_rate": w,
                        "advantage_probability": r,
                        "epsilon": e,
                    }
                    for m, (w, r, e) in versions.items()
                ]
            }
        }

    before = section(**{"gpt-4o": (0.5, 0.7, 0.15), "old": (0.0, 0.4, 0.15)})
    now = section(**{"gpt-4o": (0.75, 0.77, 0.15), "llama": (0.25, 0.6, 0.15)})
    trend = compared(now, before)["choice"]
    assert trend["gpt-4o"]["winning_rate"]["change"] == pytest.approx(0.25)
    assert trend["gpt-4o"]["advantage_probability"]["change"] == pytest.approx(0.07)
    assert trend["llama"]["winning_rate"]["note"] == "new model version: not in the previous round"
    assert trend["old"]["advantage_probability"]["note"] == "model version not in this round"
    other = compared(section(**{"gpt-4o": (0.75, 0.77, 0.2)}), before)["choice"]
    assert other["gpt-4o"]["winning_rate"]["change"] is None
    assert other["gpt-4o"]["winning_rate"]["note"].startswith("ε changed from 0.15 to 0.2")


def test_the_config_checks_the_models_section() -> None:
    from iaa_gate.core.errors import ConfigError

    base = {"source": {"type": "table", "path": "x.csv"}, "fields": {"s": {}, "t": {}}}
    with pytest.raises(ConfigError) as caught:
        parse_config(
            {
                **base,
                "models": {"thresholds": {"winning_rate": {"fail": 0.5, "use": "lower_bound"}}},
                "fields": {"s": {"models": {"alt_test": {"epsilon": 1.5, "q2": 1}}}, "t": {}},
            }
        )
    assert caught.value.problems == [
        "fields.s.models.alt_test.epsilon: Input should be less than 1",
        "fields.s.models.alt_test.q2: unknown key; did you mean 'q'?",
        "models.thresholds.winning_rate.use: lower_bound: the winning rate has no confidence "
        "interval; use: estimate",
    ]  # pydantic's errors first, then the combinations of the sections valid on their own
    config = parse_config(
        {
            **base,
            "models": {"alt_test": {"epsilon": 0.2}, "thresholds": {"winning_rate": {"fail": 0.5}}},
            "fields": {"s": {"models": {"alt_test": {"q": 0.1}}}, "t": {}},
        }
    )
    own, bars = config.models.for_field(config.fields["s"])
    assert (own.epsilon, own.q, own.min_instances, bars.winning_rate.fail) == (0.2, 0.1, 30, 0.5)
    other, _ = config.models.for_field(config.fields["t"])
    assert (other.epsilon, other.q) == (0.2, 0.05)
    with pytest.raises(ConfigError, match="winning rate has no confidence interval"):
        parse_config({**base, "models": {"thresholds": {"winning_rate": {"use": "lower_bound"}}}})


def test_other_kinds_are_scored_by_their_own_comparison(configs: dict[str, Path]) -> None:
    """A multi-select field: 1 − the MASI distance of the label sets, averaged over the
    remaining humans, named in the report."""
    from iaa_gate.metrics.distance import SET_DISTANCES

    labels, ratings = _round()
    doc = _doc(configs["label-studio"])
    masi = SET_DISTANCES["masi"]

    def agreement(a: Any, others: Any) -> float:
        return sum(1.0 - masi(frozenset(a), frozenset(o)) for o in others) / len(others)

    for v in doc["alt_test"]["fields"]["topics"]:
        assert v["scoring"] == "mean 1 − masi distance of the label sets"
        assert v["labels"] is None and v["consensus"] is None
        values = np.full((TASKS, len(HUMANS)), None, dtype=object)
        for j, h in enumerate(HUMANS):
            for t, x in labels[h].items():
                values[t - 1, j] = tuple(sorted([x, "LONG"] if ratings[h][t] >= 4 else [x]))
        m = v["model_version"]
        model = np.empty(TASKS, dtype=object)
        for t in range(1, TASKS + 1):
            x = labels[m][t]
            model[t - 1] = tuple(sorted([x, "LONG"] if ratings[m][t] >= 4 else [x]))
        ref = alt_test(values, model, scoring=agreement, epsilon=0.15)
        assert v["winning_rate"] == ref.winning_rate
        assert [h["p_value"] for h in v["humans"]] == pytest.approx(
            [h.p_value for h in ref.humans], rel=1e-12
        )
