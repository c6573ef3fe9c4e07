"""The core install and its extras: ``pip install iaa-gate`` scores every classification field;
a run (or ``init``) that needs an extra that is not installed exits 2 with the one line that
installs it, before reading or writing anything.

A package is made "not installed" the way Python sees a missing one: ``None`` in
``sys.modules`` for it and its submodules, so every import of it fails (a venv per case
would take minutes; the core venv's size is measured by hand, in the README)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import yaml

from iaa_gate.cli import main
from iaa_gate.core.errors import MissingExtraError
from iaa_gate.core.extras import EXTRAS, missing, needed
from test_sampled_alpha import _export, _texts

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
OPTIONAL = [m for _, modules in EXTRAS.values() for m in modules]


def _without(monkeypatch: pytest.MonkeyPatch, *packages: str) -> None:
    """``packages`` cannot be imported for the rest of the test (nor iaa-gate modules that
    import them at the top, which are imported again)."""
    for name in list(sys.modules):
        if name.split(".")[0] in packages or name == "iaa_gate.sinks.report.html":
            monkeypatch.delitem(sys.modules, name)
    for package in packages:
        monkeypatch.setitem(sys.modules, package, None)


def _example(tmp_path: Path, name: str) -> Path:
    """The bundled example ``name``'s config, copied with its data, reporting into tmp."""
    folder = shutil.copytree(EXAMPLES / name, tmp_path / name)
    config = yaml.safe_load((folder / "iaa-gate.yaml").read_text())
    config["report"]["dir"] = str(tmp_path / "out")
    (folder / "iaa-gate.yaml").write_text(yaml.safe_dump(config))
    return folder / "iaa-gate.yaml"


def _install_line(capsys: pytest.CaptureFixture[str], extra: str) -> str:
    err = capsys.readouterr().err
    assert err.rstrip().splitlines()[-1] == f'  hint: pip install "iaa-gate[{extra}]"', err
    return err


def test_the_core_scores_every_classification_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quick start without its HTML page: single and multiple choice, a rating, ground
    truth, Dawid–Skene and the model comparison, with none of the optional packages."""
    _without(monkeypatch, *OPTIONAL)
    assert all(missing(extra) for extra in EXTRAS)
    config = _example(tmp_path, "label-studio")
    formats = ["--format", "json", "--format", "markdown", "--format", "junit"]
    args = ["run", "-c", str(config), *formats]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "sentiment    alpha 0.762" in out and "helpfulness  alpha 0.822" in out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "consensus.jsonl",
        "disputed-tasks.jsonl",
        "junit.xml",
        "report.json",
        "report.md",
    ]


def test_the_html_report_without_jinja2_exits_2_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _without(monkeypatch, "jinja2")
    config = _example(tmp_path, "label-studio")
    (config.parent / "export.json").unlink()  # never read: the run stops first
    assert main(["run", "-c", str(config)]) == 2
    err = _install_line(capsys, "html")
    assert "the HTML report needs jinja2, which is not installed" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("example", "package", "field"),
    [("label-studio-boxes", "scipy", "objects"), ("label-studio-ner", "shapely", "ner")],
)
def test_a_region_field_without_the_regions_extra_exits_2(
    example: str,
    package: str,
    field: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Whether or not this round's regions would have reached scipy or shapely (ambiguous
    matches, polygons), a region field needs the extra: the same config never passes one
    round and fails the next."""
    _without(monkeypatch, package)
    config = _example(tmp_path, example)
    assert main(["run", "-c", str(config), "--format", "json"]) == 2
    err = _install_line(capsys, "regions")
    assert f"field {field!r} needs {package}, which is not installed" in err
    assert not (tmp_path / "out").exists()


def test_free_text_by_levenshtein_without_the_text_extra_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    _without(monkeypatch, "rapidfuzz")
    (tmp_path / "export.json").write_text(json.dumps(_export(_texts(20, 10))))
    config = {
        "source": {"type": "label-studio-export", "path": str(tmp_path / "export.json")},
        "fields": {"t": {"distance": "levenshtein"}},
        "report": {"dir": str(tmp_path / "out"), "formats": ["json"]},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    assert main(["run", "-c", str(tmp_path / "c.yaml")]) == 2
    err = _install_line(capsys, "text")
    assert "field 't' needs rapidfuzz, which is not installed" in err


def test_init_exits_2_when_the_config_it_writes_needs_a_missing_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _without(monkeypatch, "scipy")
    out = tmp_path / "iaa-gate.yaml"
    xml = EXAMPLES / "label-studio-ner" / "label_config.xml"
    assert main(["init", "--label-config", str(xml), "--out", str(out)]) == 2
    err = _install_line(capsys, "regions")
    assert "field 'ner' (labels) needs scipy" in err
    assert not out.exists()
    # a classification config needs no extra
    xml = EXAMPLES / "label-studio" / "label_config.xml"
    assert main(["init", "--label-config", str(xml), "--out", str(out)]) == 0
    assert out.exists()


def test_needed_names_the_extra_of_a_failed_import(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "shapely")
    with pytest.raises(MissingExtraError) as caught, needed("regions"):
        import shapely  # noqa: F401
    assert (caught.value.module, caught.value.extra) == ("shapely", "regions")
    assert caught.value.hint == 'pip install "iaa-gate[regions]"'


def test_init_asks_for_the_html_report_only_when_it_can_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``init`` lists ``html`` among the formats with the html extra installed; without it,
    a comment says how to add it, so the config it writes runs as written."""
    xml = EXAMPLES / "label-studio" / "label_config.xml"
    with_html = tmp_path / "with.yaml"
    assert main(["init", "--label-config", str(xml), "--out", str(with_html)]) == 0
    assert yaml.safe_load(with_html.read_text())["report"]["formats"] == [
        "json",
        "markdown",
        "html",
    ]
    _without(monkeypatch, "jinja2", "markupsafe")
    out = tmp_path / "iaa-gate.yaml"
    assert main(["init", "--label-config", str(xml), "--out", str(out)]) == 0
    text = out.read_text()
    assert '  formats: [json, markdown]  # and html, after pip install "iaa-gate[html]"' in text
