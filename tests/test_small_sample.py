"""Issue 14, 5.5: a round too small to judge says so in every format, and a failing check on it
carries that word (one image, three annotators, one box each: the trial's case)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from iaa_gate.cli import ExitCode, main
from test_regions_pipeline import box
from test_regions_reading import ann, task


def run(tmp_path: Path, tasks: list[dict[str, Any]], capsys: Any) -> tuple[int, str]:
    (tmp_path / "export.json").write_text(json.dumps(tasks))
    cfg = {
        "source": {"type": "label-studio-export", "path": "export.json"},
        "fields": {"box": {}},
        "report": {"formats": ["json", "markdown", "html", "junit"]},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    code = main(["run", "-c", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out")])
    return code, capsys.readouterr().out


def test_one_image_is_too_small_to_judge(tmp_path: Path, capsys: Any) -> None:
    image = task(
        1,
        ann(1, [box("a", 0)]),
        ann(2, [box("b", 1)]),
        ann(3, [box("c", 30, "Bus")]),
        data={"image": "1.png"},
    )
    code, terminal = run(tmp_path, [image], capsys)
    out = tmp_path / "out"
    f = json.loads((out / "report.json").read_text())["fields"]["box"]
    assert f["small_sample"].startswith("small sample: 1 task with two or more ratings")
    assert code == ExitCode.GATE_FAILED and f["verdict"] == "fail"
    failed = [c for c in f["checks"] if c["verdict"] == "fail"]
    assert failed and all("small sample" in c["message"] for c in failed)
    assert "small sample: 1 task" in terminal
    assert "Small sample: 1 task" in (out / "report.md").read_text()
    assert "small sample" in (out / "junit.xml").read_text()
    assert "mall sample: 1 task" in (out / "report.html").read_text()


@pytest.mark.parametrize("n", [10, 12])
def test_ten_tasks_are_enough_to_say_nothing(tmp_path: Path, capsys: Any, n: int) -> None:
    tasks = [
        task(t, ann(1, [box("a", 0)]), ann(2, [box("b", 1)]), data={"image": f"{t}.png"})
        for t in range(1, n + 1)
    ]
    _, terminal = run(tmp_path, tasks, capsys)
    f = json.loads((tmp_path / "out" / "report.json").read_text())["fields"]["box"]
    assert f["small_sample"] is None and "small sample" not in terminal
