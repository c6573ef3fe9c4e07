"""The majority reference consensus (tests/majority.py), the consensus in each Label Studio
control's result shape, and the consensus in the Prodigy review file (a tie proposes nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from iaa_gate.adapters.label_studio.label_config import parse_label_config
from iaa_gate.config import WriteBackConfig
from iaa_gate.evaluation.results import Consensus, UnitResult
from iaa_gate.evaluation.sections import ConsensusWriteback, Writeback
from iaa_gate.sinks.label_studio_consensus import NotDrawable, result_items
from iaa_gate.sinks.prodigy import CONSENSUS_SESSION, ProdigyReviewFile
from majority import majority


def test_majority_marks_ties_and_never_breaks_them_silently() -> None:
    assert majority(["A", "A", "B"]) == Consensus("A", 2 / 3, "majority", tie=False)
    three = majority(["C", "B", "A"])
    assert three is not None and three.tie and three.posterior == pytest.approx(1 / 3)
    assert majority([["x", "y"], ["x", "y"], ["y"]]) == Consensus(["x", "y"], 2 / 3, "majority")
    assert majority([]) is None


CONFIG = """<View><Text name="text" value="$text"/>
<Choices name="topics" toName="text" choice="multiple">
<Choice value="A"/><Choice value="B"/></Choices>
<Taxonomy name="tax" toName="text"><Choice value="Animal"><Choice value="Cat"/></Choice></Taxonomy>
<Rating name="stars" toName="text" maxRating="5"/>
<Number name="n" toName="text"/>
<TextArea name="notes" toName="text"/>
<HyperTextLabels name="html" toName="text"><Label value="X"/></HyperTextLabels>
</View>"""


def test_each_control_gets_its_own_result_shape() -> None:
    controls = {c.name: c for c in parse_label_config(CONFIG)}
    assert {c.to_name for c in controls.values()} == {"text"}

    def value(name: str, v: Any) -> Any:
        [item] = result_items(controls[name], Consensus(v, 0.8, "majority"), "text")
        assert (item["from_name"], item["to_name"], item["score"]) == (name, "text", 0.8)
        return item["type"], item["value"]

    assert value("topics", ["A", "B"]) == ("choices", {"choices": ["A", "B"]})
    assert value("tax", "Animal / Cat") == ("taxonomy", {"taxonomy": [["Animal", "Cat"]]})
    assert value("stars", 4) == ("rating", {"rating": 4})
    assert value("n", 2.5) == ("number", {"number": 2.5})
    assert value("notes", "ok") == ("textarea", {"text": ["ok"]})
    with pytest.raises(NotDrawable, match="hypertextlabels regions cannot be drawn"):
        result_items(controls["html"], Consensus([{"label": "X"}], 0.8, "m"), "text")
    with pytest.raises(NotDrawable, match="must be a number"):
        result_items(controls["stars"], Consensus("five", 0.8, "m"), "text")


def test_consensus_needs_write_back_enabled() -> None:
    with pytest.raises(ValueError, match=r"writeback\.consensus needs writeback\.enabled"):
        WriteBackConfig(consensus=True)
    assert WriteBackConfig(enabled=True, consensus=True).consensus


def _line(h: int, who: str, accept: list[str]) -> str:
    options = [{"id": "A"}, {"id": "B"}, {"id": "C"}]
    example = {
        "text": f"t{h}",
        "_input_hash": h,
        "_task_hash": h * 10 + len(accept[0]),
        "_view_id": "choice",
        "options": options,
        "accept": accept,
        "answer": "accept",
        "_annotator_id": who,
        "_session_id": f"db-{who}",
    }
    return json.dumps(example)


def test_the_review_file_carries_the_consensus(tmp_path: Path) -> None:
    """A 2-1 split gets one more answer, a copy of a majority answer as the consensus session
    (``prodigy review`` pre-selects the version most answers share); a tie gets none."""
    lines = [
        _line(1, "ana", ["A"]),
        _line(1, "ben", ["B"]),
        _line(1, "cy", ["A"]),
        _line(2, "ana", ["A"]),
        _line(2, "ben", ["B"]),
        _line(2, "cy", ["C"]),
    ]
    source = tmp_path / "db-out.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    split = UnitResult(
        1,
        "disputed",
        1 / 3,
        {"ana": "A", "ben": "B", "cy": "A"},
        consensus=Consensus("A", 2 / 3, "majority"),
    )
    tie = UnitResult(
        2,
        "disputed",
        0.0,
        {"ana": "A", "ben": "B", "cy": "C"},
        consensus=Consensus("A", 1 / 3, "majority", tie=True),
    )
    results: Any = {"choice": SimpleNamespace(disputed=[split, tie])}
    out = tmp_path / "disputed.jsonl"
    summary = ProdigyReviewFile(source, out).apply(results)
    got = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert summary.lines == 6 and summary.consensus_lines == 1 and len(got) == 7
    proposal = [g for g in got if g["_session_id"] == CONSENSUS_SESSION]
    assert len(proposal) == 1
    p = proposal[0]
    assert (p["_input_hash"], p["accept"], p["_annotator_id"]) == (1, ["A"], CONSENSUS_SESSION)
    assert p["_task_hash"] == json.loads(lines[0])["_task_hash"]  # the same version as ana's
    assert p["meta"]["iaa"]["proposal"] is True
    entry = got[0]["meta"]["iaa"]["fields"]["choice"]["consensus"]
    assert entry == {"label": "A", "posterior": 0.6667, "method": "majority", "tie": False}
    assert got[4]["meta"]["iaa"]["fields"]["choice"]["consensus"]["tie"] is True


def test_regions_in_pixels_are_drawn_in_percent() -> None:
    """Boxes read with ``original_width``/``original_height`` are in pixels; Label Studio draws
    percent of the image."""
    box = parse_label_config(
        '<View><Image name="img" value="$image"/>'
        '<RectangleLabels name="box" toName="img"><Label value="Car"/></RectangleLabels></View>'
    )[0]
    region = {"label": "Car", "x": 100, "y": 50, "width": 200, "height": 25}
    pixels = {**region, "original_width": 1000, "original_height": 500}
    [item] = result_items(box, Consensus([pixels], 0.9, "m"), "img")
    assert item["value"] == {
        "x": 10.0,
        "y": 10.0,
        "width": 20.0,
        "height": 5.0,
        "rotation": 0.0,
        "rectanglelabels": ["Car"],
    }
    [item] = result_items(box, Consensus([region], 0.9, "m"), "img")
    assert (item["value"]["x"], item["value"]["width"]) == (100.0, 200.0)
    # the task's image size, from its annotations' results; each region scored by its own
    # posterior (a cluster's), else the field's
    [item] = result_items(
        box, Consensus([{**region, "posterior": 0.6}], 0.9, "m"), "img", (1000, 500)
    )
    assert (item["value"]["x"], item["value"]["height"], item["score"]) == (10.0, 5.0, 0.6)


def test_the_pull_keeps_each_task_s_image_size() -> None:
    from iaa_gate.adapters.label_studio.project import image_size_of

    box = {"type": "rectanglelabels", "original_width": 640, "original_height": 480}
    assert image_size_of([{"result": [{"type": "choices"}, box]}]) == (640.0, 480.0)
    assert image_size_of([{"result": [{"original_width": 0, "original_height": 4}]}]) is None
    assert image_size_of(None) is None


def test_the_consensus_summary_reads_as_words() -> None:
    from iaa_gate.sinks.report.format import consensus_text
    from iaa_gate.sinks.report.markdown import MarkdownWriter

    counts = {"created": 3, "replaced": 0, "deleted": 1, "unchanged": 0, "failed": 0}
    summary = ConsensusWriteback(
        model_version="iaa-gate-consensus", dry_run=False, planned=4, proposals=3, ties=1, **counts
    )
    text = consensus_text(Writeback(target="label-studio", consensus=summary))
    assert text == (
        "consensus predictions (iaa-gate-consensus): 3 created, 0 replaced, 1 deleted, "
        "0 unchanged; 1 disputed answer(s) tie, so nothing is proposed for them"
    )
    dry = consensus_text(
        Writeback(
            target="label-studio",
            consensus=msgspec.structs.replace(summary, dry_run=True, ties=0),
        )
    )
    assert dry == "consensus predictions (iaa-gate-consensus): 4 would change (dry run)"
    assert consensus_text(Writeback(target="label-studio", done=1)) is None
    import iaa_gate

    case = Path(__file__).parent / "corpus" / "model-predictions-two-versions" / "iaa-gate.yaml"
    report = iaa_gate.evaluate(case).report
    wb = Writeback(target="label-studio", dry_run=False, consensus=summary)
    doc = msgspec.structs.replace(report, writeback=wb)
    assert "consensus predictions (iaa-gate-consensus): 3 created" in MarkdownWriter().render(doc)


def test_only_tasks_of_the_round_lose_an_old_proposal() -> None:
    """An own prediction on a task outside the round is left alone, as the flags are."""
    from pydantic import SecretStr

    from iaa_gate.adapters.label_studio.project import LabelStudioProject, PulledTask
    from iaa_gate.model import RoundFilter
    from iaa_gate.sinks.label_studio_consensus import ConsensusPredictions

    source = LabelStudioProject("http://127.0.0.1:9", SecretStr("token-123456"), 1)
    own = {"id": 5, "model_version": "iaa-gate-consensus", "score": 0.5, "result": []}
    source.tasks = {t: PulledTask({}, None, [own]) for t in (1, 2, 3)}
    agreed = UnitResult(1, "agreed", 1.0, {"a": "A", "b": "A"})
    results: Any = {"f": SimpleNamespace(units=[agreed], disputed=[], states=None)}
    every = ConsensusPredictions(source).plan(results, [])
    assert every == {1: None, 2: None, 3: None}
    in_round = ConsensusPredictions(source, RoundFilter(task_ids=frozenset({1, 2})))
    assert in_round.plan(results, []) == {1: None, 2: None}
    from datetime import datetime, timezone

    dated = ConsensusPredictions(
        source, RoundFilter(start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    )
    assert dated.plan(results, []) == {1: None}


def test_per_region_attributes_get_no_task_level_proposal() -> None:
    """A per-region attribute (``ner.certainty``) has one value per region: the write-back
    never writes one as a task-level answer."""
    config = (
        '<View><Text name="text" value="$text"/>'
        '<Labels name="ner" toName="text"><Label value="PER"/></Labels>'
        '<Choices name="certainty" toName="text" perRegion="true">'
        '<Choice value="high"/><Choice value="low"/></Choices></View>'
    )
    controls = {c.name: c for c in parse_label_config(config)}
    with pytest.raises(NotDrawable, match="per-region attribute"):
        result_items(controls["ner.certainty"], Consensus(["high"], 0.9, "m"), "text")


def test_a_tie_proposes_nothing_and_an_old_proposal_goes() -> None:
    from pydantic import SecretStr

    from iaa_gate.adapters.label_studio.project import LabelStudioProject, PulledTask
    from iaa_gate.sinks.label_studio_consensus import ConsensusPredictions

    source = LabelStudioProject("http://127.0.0.1:9", SecretStr("token-123456"), 1)
    source.label_config = CONFIG
    own = {"id": 5, "model_version": "iaa-gate-consensus", "score": 0.5, "result": []}
    source.tasks = {1: PulledTask({}, None, [own]), 2: PulledTask({}, None, [])}
    tie = UnitResult(1, "disputed", 0.0, {}, consensus=Consensus(["A"], 0.5, "m", tie=True))
    settled = UnitResult(2, "disputed", 0.3, {}, consensus=Consensus(["B"], 0.7, "m"))
    results: Any = {
        "topics": SimpleNamespace(units=[tie, settled], disputed=[tie, settled], states=None)
    }
    sink = ConsensusPredictions(source)
    plan = sink.plan(results, [])
    assert plan[1] is None and sink.ties == 1
    proposal = plan[2]
    assert proposal is not None and proposal.score == 0.7
    assert [i["value"] for i in proposal.result] == [{"choices": ["B"]}]
