"""``iaa-gate plan``: each method end to end through the CLI, and a pilot's plan checked against
fresh rounds of the model the pilot was drawn from."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest
import yaml

from iaa_gate.cli import ExitCode, main
from iaa_gate.metrics import (
    Simulation,
    interval_widths,
    krippendorff_alpha,
    resampled,
    settled,
    width_sample_size,
)
from iaa_gate.metrics.sample_size import settled_ratings


def plan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["plan", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_krippendorff(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = plan(capsys, "--alpha-min", "0.8", "--significance", "0.05", "--categories", "4")
    assert code == ExitCode.OK
    assert out.startswith("139 values (70 tasks with 2 coders each): Krippendorff's minimum")
    assert "Bloch & Kraemer 1989, eq. 3.7" in out
    _, out, _ = plan(capsys, "--alpha-min", "0.667", "--smallest-share", "0.25")
    assert out.startswith("81 values")


def test_kappa_interval_and_power(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--kappa", "0.4", "--kappa-lower", "0.3", "--kappa-upper", "0.5", "--prevalence", "0.3")
    _, out, _ = plan(capsys, *args)
    assert out.startswith("397 tasks:") and "kappaSize CIBinary" in out
    _, out, _ = plan(capsys, "--kappa", "0.6", "--kappa-null", "0.4", "--prevalence", "0.3")
    lines = out.splitlines()
    assert lines[0].startswith("191 tasks:") and "kappaSize PowerBinary" in lines[0]
    assert "irr N.cohen.kappa" in lines[1]


def test_width_by_simulation_with_prodigy(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--width", "0.2", "--alpha", "0.8", "--categories", "4", "--annotators", "2"]
    code, out, _ = plan(capsys, *args, "--rounds", "200", "--prodigy", "--total", "1000")
    assert code == ExitCode.OK
    first, prodigy = out.splitlines()
    n = int(re.match(r"about ([\d,]+) tasks with 2 annotators", first)[1].replace(",", ""))
    assert 50 < n < 400 and "of 200 simulated rounds" in first and "seed 0" in first
    share = float(re.search(r'"annotations_per_task": ([\d.]+)', prodigy)[1])
    assert share == pytest.approx(1 + n / 1000, abs=0.01)
    assert plan(capsys, *args, "--rounds", "200", "--prodigy", "--total", "1000")[1] == out


def test_from_a_round(capsys: pytest.CaptureFixture[str], examples: Path) -> None:
    """A Prodigy round: each field's line, and Prodigy's setting for the tasks still to add."""
    code, out, _ = plan(
        capsys, "--config", str(examples / "prodigy" / "iaa-gate.yaml"), "--width", "0.1",
        "--rounds", "200",
    )  # fmt: skip
    assert code == ExitCode.OK
    line, prodigy = out.splitlines()
    m = re.match(
        r"classification: 200 overlapped tasks, interval width (0\.\d{3}); about ([\d,]+) in all "
        r"give ≤ 0\.10 \(in (\d+)% of 200 simulated rounds\): ([\d,]+) more",
        line,
    )
    assert m and float(m[1]) > 0.1 and int(m[3]) >= 90
    assert int(m[2]) - 200 == int(m[4])
    assert prodigy.startswith('Prodigy: "annotations_per_task": 3 in prodigy.json for')


def test_region_fields_are_listed_not_planned(
    capsys: pytest.CaptureFixture[str], examples: Path, tmp_path: Path
) -> None:
    config = examples / "label-studio-ner" / "iaa-gate.yaml"
    cfg = yaml.safe_load(config.read_text())
    cfg["source"]["path"] = str(config.parent / cfg["source"]["path"])
    for key in ("label_config",):
        if key in cfg["source"]:
            cfg["source"][key] = str(config.parent / cfg["source"][key])
    cfg["fields"] = {k: v for k, v in cfg["fields"].items() if k == "ner"}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    code, out, _ = plan(capsys, "--config", str(tmp_path / "c.yaml"), "--width", "0.1")
    assert code == ExitCode.OK
    assert "ner:" in out and "not planned: a " in out


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = plan(capsys)
    assert code == ExitCode.ERROR and "plan needs --alpha-min" in err
    code, _, err = plan(capsys, "--alpha-min", "1.2", "--categories", "4")
    assert (
        code == ExitCode.ERROR
        and "alpha_min=1.2 is not accepted: use a number strictly between 0 and 1" in err
    )
    code, _, err = plan(capsys, "--width", "0.1", "--categories", "4")
    assert code == ExitCode.ERROR and "needs --alpha" in err


@pytest.mark.slow
def test_a_pilots_plan_meets_the_width_in_fresh_rounds_of_its_model() -> None:
    """A pilot of 1,500 tasks from a known model (alpha 0.7, three values, 2 or 3 annotators):
    the plan made from the pilot alone (its tasks resampled) meets the width in fresh rounds
    of the known model in about the stated share (the pilot's estimate of the model costs a
    little: 5 points of slack)."""
    rng = np.random.default_rng(21)
    shares, counts = [0.5, 0.3, 0.2], [2, 2, 3]
    pilot = settled_ratings(1500, 0.7, shares, counts, rng)
    as_float = np.where(pilot < 0, np.nan, pilot.astype(float))
    assert krippendorff_alpha(as_float) == pytest.approx(0.7, abs=0.03)
    p = width_sample_size(0.1, resampled(pilot), values=range(3), simulation=Simulation(seed=4))
    assert p.share >= 0.9 and p.simulation.rounds == 2000
    fresh = interval_widths(p.n_units, settled(0.7, shares, counts), values=range(3), seed=99)
    assert float(np.mean(fresh <= 0.1)) >= 0.9 - 0.05


def _doc_examples() -> list[tuple[str, str]]:
    """docs/planning.md's ``$ iaa-gate plan …`` blocks: (command, the output it shows)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "planning.md").read_text("utf-8")
    out = []
    for block in re.findall(r"```\n(\$ iaa-gate plan .*?)```", text, flags=re.S):
        command, *lines = block.splitlines()
        out.append((command[2:].split("  #")[0].strip(), "\n".join(lines) + "\n"))
    return out


DOC_EXAMPLES = _doc_examples()


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        pytest.param(c, o, marks=[pytest.mark.slow] if "--width" in c else [], id=c[14:60])
        for c, o in DOC_EXAMPLES
    ],
)
def test_the_docs_examples_print_what_they_show(
    command: str,
    shown: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each example in docs/planning.md prints what the page shows, word for word (the
    simulations are seeded); run from the repository root, as the page's paths are."""
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    code, out, _ = plan(capsys, *shlex.split(command)[2:])
    assert code == ExitCode.OK and out == shown


def test_the_docs_show_every_method() -> None:
    commands = " ".join(c for c, _ in DOC_EXAMPLES)
    for option in ("--alpha-min", "--kappa-null", "--width 0.1 --alpha", "--config", "--prodigy"):
        assert option in commands


def test_a_field_it_cannot_model_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """One value throughout: alpha is undefined, and the field is listed, never planned."""
    rows = ["task,annotator,field,value"]
    rows += [f"{t},{a},mood,calm" for t in range(20) for a in ("ana", "ben")]
    (tmp_path / "round.csv").write_text("\n".join(rows) + "\n")
    config = {
        "source": {"type": "table", "path": str(tmp_path / "round.csv")},
        "fields": {"mood": {}},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    code, out, _ = plan(capsys, "--config", str(tmp_path / "c.yaml"), "--width", "0.1")
    assert code == ExitCode.OK
    assert out.startswith("mood: 20 overlapped tasks, no interval; not planned: alpha is undefined")


def test_help_gives_the_formulas_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    text = capsys.readouterr().out
    assert "N = C z² ((1 + A)(3 − A) / (4 (1 − A) S (1 − S)) − A)" in text
    for source in ("Bloch & Kraemer 1989, eq. 3.7", "kappaSize CIBinary", "Cantor 1996"):
        assert source in text
