"""Every template shipped with the pinned Label Studio, run as a new user would: ``iaa-gate
init --label-config`` on its XML, then ``iaa-gate run`` on an export in Label Studio's own
result shapes where three annotators agree.

Each template ends evaluated, or refused with the true reason of each control; every control
tag is a field or listed as not evaluated with its reason, in the config ``init`` writes and in
the report; identical annotations score 1 wherever a score exists. A template that a later
Label Studio adds (or renames) fails :func:`test_the_pinned_templates_are_the_installed_ones`
until it is given its expected outcome here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from iaa_gate.adapters.label_studio.export import parse_tasks
from iaa_gate.adapters.label_studio.label_config import parse_label_config
from iaa_gate.cli import ExitCode, main

from .server import ensure_venv
from .templates import export, templates

REFUSED = {
    # every control is one iaa-gate does not score; init names each with its reason
    "chat/chat_eval": "chat: messages an annotator writes in a chat are free text",
    "computer-vision/pdf_ocr": "OCR labels on PDF pages",
    "videos/video-object-tracking": "video object tracks",
}
"""Templates with no control iaa-gate can score → a phrase of the reason ``init`` gives."""

EVALUATED = {
    "audio-speech-processing/automatic-speech-recognition",
    "audio-speech-processing/automatic-speech-recognition-using-segments",
    "audio-speech-processing/conversational-analysis",
    "audio-speech-processing/intent-classification",
    "audio-speech-processing/signal-quality-detection",
    "audio-speech-processing/sound-event-detection",
    "audio-speech-processing/speaker-segmentation",
    "audio-speech-processing/speech-transcription",
    "chat/chat_llm_eval",
    "chat/chat_red_team",
    "chat/chat_rlhf",
    "chat/chatbot",
    "community-contributions/breast-cancer-mammogram-classification",
    "community-contributions/html-ner-tagging-person-and-organization",
    "community-contributions/ner-tagging-invoices-bio-format",
    "community-contributions/ocr-invoices-pre-ner-bio-format",
    "community-contributions/two-level-sentiment-analysis-of-x-twitter-posts",
    "computer-vision/image-captioning",
    "computer-vision/image-classification",
    "computer-vision/inventory-tracking",
    "computer-vision/keypoints",
    "computer-vision/medical-image-classification-with-bboxes",
    "computer-vision/multipage-documents",
    "computer-vision/object-detection-with-bounding-boxes",
    "computer-vision/optical-character-recognition",
    "computer-vision/semantic-segmentation-with-masks",
    "computer-vision/semantic-segmentation-with-polygons",
    "computer-vision/visual-genome",
    "computer-vision/visual-question-answering",
    "conversational-ai/coreference-resolution-and-entity-linking",
    "conversational-ai/intent-classification-and-slot-filling",
    "conversational-ai/response-generation",
    "conversational-ai/response-selection",
    "generative-ai/chatbot-assessment",
    "generative-ai/human-feedback-collection",
    "generative-ai/llm-ranker",
    "generative-ai/visual-ranker",
    "generative-ai/response-grading",
    "generative-ai/supervised-llm",
    "natural-language-processing/content-moderation",
    "natural-language-processing/machine-translation",
    "natural-language-processing/named-entity-recognition",
    "natural-language-processing/question-answering",
    "natural-language-processing/relation-extraction",
    "natural-language-processing/taxonomy",
    "natural-language-processing/text-classification",
    "natural-language-processing/text-summarization",
    "ranking-and-scoring/asr-hypotheses",
    "ranking-and-scoring/content-based-image-search",
    "ranking-and-scoring/document-retrieval",
    "ranking-and-scoring/pairwise-classification",
    "ranking-and-scoring/pairwise-regression",
    "ranking-and-scoring/serp-ranking",
    "ranking-and-scoring/text-to-image",
    "structured-data-parsing/freeform-metadata",
    "structured-data-parsing/html-entity-recognition",
    "structured-data-parsing/pdf-classification",
    "structured-data-parsing/tabular-data",
    "time-series-analysis/activity-recognition",
    "time-series-analysis/change-point-detection",
    "time-series-analysis/outliers-anomaly-detection",
    "time-series-analysis/signal-quality",
    "time-series-analysis/time-series-forecasting",
    "videos/video-classification",
    "videos/video-frame-classification",
    "videos/video-timeline-segmentation",
}
"""Templates ``init`` writes a config for, which then runs on the template's own export."""


@pytest.fixture(scope="module")
def shipped() -> dict[str, str]:
    """The installed Label Studio's templates (the test server's venv)."""
    venv = ensure_venv()
    found = list(venv.glob("lib/python*/site-packages"))
    assert found, f"no site-packages in {venv}"
    return templates(found[0])


def test_the_pinned_templates_are_the_installed_ones(shipped: dict[str, str]) -> None:
    assert not EVALUATED & REFUSED.keys()
    new = sorted(shipped.keys() - EVALUATED - REFUSED.keys())
    gone = sorted((EVALUATED | REFUSED.keys()) - shipped.keys())
    assert not new, f"templates not handled yet (give each its outcome here): {new}"
    assert not gone, f"templates no longer shipped: {gone}"


def _scores(fields: dict[str, Any]) -> list[tuple[str, str, float]]:
    """Every coefficient value of a report's fields: (field, coefficient, value)."""
    return [
        (name, coefficient, float(c["value"]))
        for name, f in fields.items()
        for coefficient, c in f["coefficients"].items()
        if c["value"] is not None
    ]


@pytest.mark.parametrize("name", sorted(EVALUATED | REFUSED.keys()))
def test_template(name: str, shipped: dict[str, str], tmp_path: Path) -> None:
    if name not in shipped:
        pytest.skip(f"{name} is not shipped (test_the_pinned_templates_… says so)")
    xml = shipped[name]
    tasks = export(xml)
    (tmp_path / "config.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    raws = msgspec.json.decode(json.dumps(tasks).encode(), type=list[msgspec.Raw])
    fast, general = parse_tasks(raws, "export.json"), parse_tasks(tasks, "export.json")
    assert list(fast.annotations) == list(general.annotations)  # both paths read it alike
    assert fast.texts == general.texts and fast.field_kinds() == general.field_kinds()
    config = tmp_path / "iaa-gate.yaml"
    xml_path, export_path = str(tmp_path / "config.xml"), str(tmp_path / "export.json")
    code = main(["init", "--label-config", xml_path, "--export", export_path, "--out", str(config)])
    controls = parse_label_config(xml)
    if name in REFUSED:
        assert code == ExitCode.ERROR
        return
    assert code == ExitCode.OK
    text = config.read_text(encoding="utf-8")
    cfg = yaml.safe_load(text)
    for c in controls:  # each control: a field, or named in a comment with its reason
        assert c.name in cfg["fields"] or c.name in text, c.name
        if c.reason is not None:
            assert f"{c.name} (" in text and c.reason in text, (c.name, c.reason)
    code = main(["run", "--config", str(config)])
    report = json.loads((tmp_path / "iaa-report" / "report.json").read_text(encoding="utf-8"))
    assert code == ExitCode.OK, code
    for field, kind in report["not_evaluated"].items():  # listed with the reason
        assert kind.split(":")[0] in ("textarea", "choices", "rating") or ": " in kind, field
    low = [s for s in _scores(report["fields"]) if not math.isclose(s[2], 1.0)]
    assert not low, low


@pytest.mark.parametrize("name", sorted(EVALUATED))
def test_template_disagreement_is_seen(name: str, shipped: dict[str, str], tmp_path: Path) -> None:
    """The third annotator gives other labels, choices, ratings, orders or texts (in the same
    places) on 3 of 6 tasks: every evaluated field scores below 1 somewhere, so no answer is
    dropped or overwritten unseen. Left out: a region field with a single label (its labels
    cannot differ; its per-region attributes are checked instead) and the attributes of regions
    whose labels differ (such regions do not match, so their attributes are not compared)."""
    if name not in shipped:
        pytest.skip(f"{name} is not shipped")
    xml = shipped[name]
    tasks = export(xml, tasks=6, disagree=frozenset({0, 2, 4}))
    (tmp_path / "config.xml").write_text(xml, encoding="utf-8")
    (tmp_path / "export.json").write_text(json.dumps(tasks), encoding="utf-8")
    config = tmp_path / "iaa-gate.yaml"
    xml_path, export_path = str(tmp_path / "config.xml"), str(tmp_path / "export.json")
    assert (
        main(["init", "--label-config", xml_path, "--export", export_path, "--out", str(config)])
        == 0
    )
    assert main(["run", "--config", str(config), "-q"]) in (ExitCode.OK, ExitCode.GATE_FAILED)
    report = json.loads((tmp_path / "iaa-report" / "report.json").read_text(encoding="utf-8"))
    regions = {n for n, f in report["fields"].items() if f.get("regions")}
    configured = yaml.safe_load(config.read_text(encoding="utf-8"))["fields"]
    one_label = {n for n in regions if len(configured[n].get("labels") or ()) == 1}
    for field, f in report["fields"].items():
        parent = field.rpartition(".")[0]
        if field in one_label or (parent in regions and parent not in one_label):
            continue  # one label cannot differ; regions whose labels differ do not match
        values = [c["value"] for c in f["coefficients"].values() if c["value"] is not None]
        assert values and min(values) < 1, (field, f["coefficients"])
