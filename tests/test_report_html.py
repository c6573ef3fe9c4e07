"""The HTML report in a real Chromium (Debian's package, driven by Playwright), and the escaping of
markup in labels, emails and field names in the HTML and Markdown reports."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import ls_annotation, read_disputed
from iaa_gate.cli import main
from iaa_gate.evaluation.document import LowestTask, Report, decode_report
from iaa_gate.evaluation.sections import Details, Excerpt, LowestRegion
from iaa_gate.sinks.report import html as html_report

# Each payload sets window.__pwned if it ever runs.
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
FIELD = "<script>window.__pwned=3</script>|field"
EMAIL = "<img src=x onerror=window.__pwned=4>@example.com"
LABELS = [SCRIPT, IMG, "A|B", "`tick` *star* _under_ [link](x) $5"]


def _shown(v: Any) -> str:
    """How the page shows a report.json number."""
    if v is None:
        return "undefined"
    return str(v) if isinstance(v, int) else f"{v:.3f}"


def _chromium() -> str:
    """Debian's chromium, installed with apt-get when missing (the test machine is root)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "-q", "chromium"]
        if subprocess.run(install, env=env, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, check=True)
            subprocess.run(install, env=env, capture_output=True, check=True)
        found = shutil.which("chromium")
    if found is None:
        pytest.fail("the browser tests need Debian's chromium: apt-get install -y chromium")
    binary = Path("/usr/lib/chromium/chromium")  # the binary behind Debian's wrapper script
    return str(binary) if binary.exists() else found


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    path = _chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path)
        yield b
        b.close()


class Page:
    """A loaded report page, with the console errors and uncaught exceptions it raised."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.resolve().as_uri())


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("example")
    root = Path(__file__).resolve().parent.parent
    cwd = Path.cwd()
    os.chdir(root)
    try:
        main(["run", "-c", "examples/label-studio/iaa-gate.yaml", "--out", str(out), "-q"])
    finally:
        os.chdir(cwd)
    return out


def _screenshot(page: Any, path: Path) -> None:
    """The whole page as a person sees it, into the test's tmp dir and, when the environment
    variable IAA_GATE_ARTIFACTS names a directory, there too (a CI artifact)."""
    page.screenshot(path=str(path), full_page=True)
    artifacts = os.environ.get("IAA_GATE_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(artifacts) / path.name)


def _lookup(doc: Any, path: list[Any]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


@pytest.mark.browser
def test_page_shows_the_numbers_of_report_json(browser: Any, example: Path) -> None:
    doc = json.loads((example / "report.json").read_text())
    view = Page(browser, example / "report.html")
    page = view.page
    shown = page.eval_on_selector_all(
        "[data-path]", "els => els.map(e => [JSON.parse(e.dataset.path), e.textContent])"
    )
    assert len(shown) > 100
    for path, text in shown:
        assert text == _shown(_lookup(doc, path)), path
    sentiment = doc["fields"]["sentiment"]
    rows = page.eval_on_selector_all(
        "#dt-1 tbody tr", "rows => rows.map(r => [r.cells[0].textContent, r.cells[2].textContent])"
    )
    every = read_disputed(example)["sentiment"]
    assert len(rows) == sentiment["n_disputed"] == len(every)
    assert sorted(rows) == sorted([str(d["id"]), _shown(d["score"])] for d in every)
    assert page.locator("#f-1 figure[data-chart] svg").count() == 4
    assert "Not evaluated" in page.locator("#not-evaluated").inner_text()
    assert "notes" in page.locator("#not-evaluated").inner_text()
    assert page.locator("#summary li").count() == sum(
        c["verdict"] != "pass" for f in doc["fields"].values() for c in f["checks"]
    )
    _screenshot(page, example / "report.png")
    assert view.errors == []


@pytest.mark.browser
def test_span_field_page_highlights_each_annotators_spans(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    out = tmp_path_factory.mktemp("ner")
    config = Path(__file__).resolve().parent.parent / "examples/label-studio-ner/iaa-gate.yaml"
    main(
        ["run", "-c", str(config), "--out", str(out), "-q", "--format", "json", "--format", "html"]
    )
    doc = json.loads((out / "report.json").read_text())
    view = Page(browser, out / "report.html")
    page = view.page
    for path, text in page.eval_on_selector_all(
        "[data-path]", "els => els.map(e => [JSON.parse(e.dataset.path), e.textContent])"
    ):
        assert text == _shown(_lookup(doc, path)), path
    ner = doc["fields"]["ner"]
    # per annotator line: which characters of the excerpt are highlighted, as a 0/1 string
    masks = page.eval_on_selector_all(
        "#dt-1 tbody tr",
        """rows => rows.map(r => [r.cells[0].textContent,
            Array.from(r.querySelectorAll('td.spans div')).map(d => {
                let mask = '';
                d.querySelector('.text').childNodes.forEach(n => {
                    const t = n.nodeName === 'MARK' ? n.firstChild.textContent : n.textContent;
                    mask += (n.nodeName === 'MARK' ? '1' : '0').repeat(t.length);
                });
                return [d.querySelector('.who').textContent, mask];
            })])""",
    )
    every = read_disputed(out)["ner"]
    assert len(masks) == ner["n_disputed"] == len(every)
    tasks = {str(d["id"]): d["details"] for d in every}
    for task, lines in masks:
        text, regions = tasks[task]["text"], tasks[task]["regions"]
        assert [who for who, _ in lines] == list(regions)
        for who, mask in lines:
            want = ["0"] * len(text["excerpt"])
            for r in regions[who]:
                for k in range(r["start"] - text["offset"], r["end"] - text["offset"]):
                    want[k] = "1"
            assert mask == "".join(want), (task, who)
    _screenshot(page, out / "report-spans.png")
    assert view.errors == []


def _column(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#dt-1 tbody tr:not([hidden])", "rows => rows.map(r => r.cells[0].textContent)"
    )


@pytest.mark.browser
def test_disputed_table_sorts_and_filters(browser: Any, example: Path) -> None:
    page = Page(browser, example / "report.html").page
    scores = "rows => rows.map(r => Number(r.cells[1].dataset.sort))"
    header = page.locator("#dt-1 thead th button")
    header.nth(1).click()
    up = page.eval_on_selector_all("#dt-1 tbody tr", scores)
    assert up == sorted(up)
    header.nth(1).click()
    down = page.eval_on_selector_all("#dt-1 tbody tr", scores)
    assert down == sorted(up, reverse=True) and down != up
    header.nth(0).click()
    ids = [int(x) for x in _column(page)]
    assert ids == sorted(ids)
    page.fill("#f-1 input.filter", "1639")
    assert _column(page) == ["1639"] and page.locator("#dc-1").inner_text() == "1"
    page.fill("#f-1 input.filter", "")
    assert len(_column(page)) == len(ids)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A round whose labels, annotator email, field name and task text hold markup."""
    tmp = tmp_path_factory.mktemp("hostile")
    users = [{"id": 1, "email": EMAIL}, {"id": 2, "email": "b@example.com"}, 3]
    tasks = []
    for t in range(12):
        anns = [
            ls_annotation(u, 10 * t + i, **{FIELD: ("choices", {"choices": [LABELS[(t + i) % 4]]})})
            for i, u in enumerate(users)
        ]
        tasks.append({"id": t + 1, "data": {"text": SCRIPT}, "annotations": anns})
    (tmp / "export.json").write_text(json.dumps(tasks))
    config = {
        "version": 1,
        "source": {"type": "label-studio-export", "path": str(tmp / "export.json")},
        "fields": {FIELD: {}},
        "report": {"dir": str(tmp / "out"), "formats": ["json", "markdown", "html"]},
    }
    (tmp / "c.yaml").write_text(yaml.safe_dump(config))
    assert main(["run", "-c", str(tmp / "c.yaml"), "-q"]) in (0, 1)
    return tmp / "out", json.loads((tmp / "out" / "report.json").read_text())


@pytest.mark.browser
def test_markup_in_labels_emails_and_names_renders_as_text(browser: Any, hostile: Any) -> None:
    out, doc = hostile
    assert doc["fields"][FIELD]["n_disputed"] > 0
    view = Page(browser, out / "report.html")
    page = view.page
    text = page.locator("body").inner_text()
    for shown in [*LABELS, FIELD, EMAIL]:
        assert shown in text
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img").count() == 0 and page.locator("script").count() == 1
    _screenshot(page, out / "report-markup.png")
    assert view.errors == []


def test_markdown_renders_markup_as_text(hostile: Any) -> None:
    """report.md through a CommonMark renderer with GitHub's tables, strikethrough and raw HTML
    on: no tag comes through, every label shows as written and no table row gains a cell."""
    import html
    import re

    from markdown_it import MarkdownIt

    out, _ = hostile
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    rendered = md.render((out / "report.md").read_text())
    assert "<script" not in rendered and "<img" not in rendered and "<del>" not in rendered
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    for shown in [*LABELS, FIELD, EMAIL]:
        assert shown in text, shown
    for table in re.findall(r"<table>.*?</table>", rendered, flags=re.S):
        widths = {
            len(re.findall(r"<t[hd][ >]", row))
            for row in re.findall(r"<tr>.*?</tr>", table, flags=re.S)
        }
        assert len(widths) == 1, table


def test_page_without_matplotlib_keeps_every_table(
    monkeypatch: pytest.MonkeyPatch, example: Path
) -> None:
    doc = decode_report((example / "report.json").read_bytes())
    monkeypatch.setattr(html_report.charts, "available", lambda: False)
    page = html_report.HtmlWriter().render(doc)
    assert "<svg" not in page and 'pip install "iaa-gate[html]"' in page
    assert page.count('class="disputed sortable"') == 3


def test_span_lines_cut_the_text_where_each_annotators_spans_start_and_end() -> None:
    regions = {
        "a": [{"start": 10, "end": 13, "label": "PER"}],
        "b": [
            {"start": 5, "end": 13, "label": "ORG"},  # starts before the excerpt
            {"start": 10, "end": 28, "label": "PER"},  # overlaps the other
        ],
        "c": [],
    }
    text = Excerpt(offset=10, excerpt="Ann <b>met</b> Bob", length=18)
    details = Details(regions, [], LowestRegion(0.0, {}, []), text=text)
    lines = dict(html_report.span_lines(LowestTask(0, 0.0, {}, details)) or [])
    assert lines["a"] == [("Ann", ["PER"]), (" <b>met</b> Bob", [])]
    assert lines["b"] == [("Ann", ["ORG", "PER"]), (" <b>met</b> Bob", ["PER"])]
    assert lines["c"] == [("Ann <b>met</b> Bob", [])]
    untold = Details(regions, [], LowestRegion(0.0, {}, []))  # no text known
    assert html_report.span_lines(LowestTask(0, 0.0, {}, untold)) is None


def test_span_field_shows_highlighted_text_escaped(example: Path) -> None:
    doc = json.loads((example / "report.json").read_text())
    f = doc["fields"]["sentiment"]
    f["regions"] = {
        "shape": "span",
        "matching": {"mode": "overlap", "iou": 0.5, "labels": True},
        "n_regions": 3,
        "f1": 0.5,
        "strict_f1": 0.25,
        "mean_iou": 0.9,
        "f1_by_label": {"PER": 0.5},
        "annotators": {
            "names": ["a", "b"],
            "f1": [[None, 0.5], [0.5, None]],
            "shared_tasks": [[1, 1], [1, 1]],
        },
        "relations": None,
        "relations_not_evaluated": 0,
        "unitizing_alpha": None,
        "attributes": [],
        "annotator_alpha": {"what": "matched-region alpha", "value": 0.5},
    }
    f["disputed"]["lowest"][0]["details"] = {
        "text": {"offset": 0, "excerpt": f"Ann {SCRIPT} Bob", "length": 40},
        "regions": {
            "a": [{"start": 0, "end": 3, "label": IMG}],
            "b": [{"start": 0, "end": 40, "label": "PER"}],
        },
        "disagreements": [
            {"kind": kind, "annotator": "a", "region": {}, "other": "b", "counterpart": None}
            for kind in ("boundary shift", "label swap")
        ],
        "region": {"score": 0.0, "labels": {}, "regions": []},
    }
    page = html_report.HtmlWriter().render(msgspec.convert(doc, Report))
    assert page.count("<script") == 1 and "<img" not in page
    assert (
        '<span class="who">a</span>: <span class="text"><mark' in page
        and "&lt;script&gt;window.__pwned=1" in page
    )
    assert "1 boundary shift, 1 label swap" in page and 'data-chart="region_pairs"' in page


def test_disputed_tasks_link_to_the_live_label_studio_project(example: Path) -> None:
    live = {"type": "label-studio", "url": "http://ls.example:8080/", "project": 7, "view": None}
    assert html_report.task_url(live, 42) == "http://ls.example:8080/projects/7/data?task=42"
    titled = {**live, "project": "Reviews", "project_id": 9}
    assert html_report.task_url(titled, 42) == "http://ls.example:8080/projects/9/data?task=42"
    assert html_report.task_url({**live, "project": "Reviews"}, 42) is None  # id unknown
    assert html_report.task_url({**live, "url": "javascript:alert(1)"}, 42) is None
    assert html_report.task_url({"type": "label-studio-export", "path": "x.json"}, 42) is None
    doc = msgspec.structs.replace(
        decode_report((example / "report.json").read_bytes()), source=live
    )
    first = doc.fields["sentiment"].disputed.lowest[0].id
    page = html_report.HtmlWriter().render(doc)
    assert f'<a href="http://ls.example:8080/projects/7/data?task={first}"' in page


def test_minority_labels_are_the_ones_off_the_most_common() -> None:
    assert html_report.minority({"a": "X", "b": "X", "c": "Y"}) == {"c"}
    assert html_report.minority({"a": "X", "b": "Y"}) == set()  # a tie: nobody is singled out
    assert html_report.minority({"a": ["P", "Q"], "b": ["P", "Q"], "c": ["P"]}) == {"c"}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-5, 40), st.integers(1, 12), st.sampled_from("ABC")), max_size=12
    ),
    st.integers(0, 5),
)
def test_span_lines_sweep_equals_the_scan_of_every_span(
    raw: list[tuple[int, int, str]], offset: int
) -> None:
    """The page's span segments (a sweep over the spans by start, so 20,000 spans take a
    second, not minutes) equal the plain scan of every span for every segment."""
    excerpt = "abcdefghijklmnopqrstuvwxyz0123456789"
    spans = [{"start": s, "end": s + n, "label": lab} for s, n, lab in raw]
    text = Excerpt(offset, excerpt, len(excerpt))
    d = LowestTask(0, 0.0, {}, Details({"a": spans}, [], LowestRegion(0.0, {}, []), text=text))
    got = html_report.span_lines(d)
    inside = {min(max(r[k] - offset, 0), len(excerpt)) for r in spans for k in ("start", "end")}
    cuts = sorted({0, len(excerpt)} | inside)
    want = [
        (excerpt[a:b], [r["label"] for r in spans if r["start"] - offset <= a < r["end"] - offset])
        for a, b in itertools.pairwise(cuts)
        if a < b
    ]
    assert got == [("a", want)]


@pytest.mark.browser
def test_the_page_shows_the_sampling_in_a_real_browser(browser: Any, tmp_path: Path) -> None:
    from test_sampled_alpha import _run, _texts

    out = _run(tmp_path, {"expected_sample": 5_000}, _texts(300, 200))
    sampling = json.loads((out / "report.json").read_text())["fields"]["t"]["alpha_sampling"]
    view = Page(browser, out / "report.html")
    note = view.page.locator("#f-1 .alpha-sampling")
    assert note.is_visible()
    text = note.inner_text()
    assert "5,000 drawn pairs" in text and f"{sampling['standard_error']:.2g}" in text
    assert view.errors == []


def _fresh_render(doc: Report) -> str:
    """The page rendered by a process that has not loaded the template yet."""
    html_report._template.cache_clear()
    try:
        return html_report.HtmlWriter().render(doc)
    finally:
        html_report._template.cache_clear()


def test_the_template_is_compiled_once_into_the_user_cache(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run compiles the shipped template into $XDG_CACHE_HOME/iaa-gate; the next runs
    load it from there without compiling, and render the same page."""
    import jinja2

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    doc = decode_report((example / "report.json").read_bytes())
    cold = _fresh_render(doc)
    folder = html_report.cache_dir()
    assert folder is not None and folder.is_relative_to(tmp_path / "cache" / "iaa-gate")
    assert len(list(folder.glob("*.cache"))) == 1

    def no_compile(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("compiled although the cache holds the template")

    monkeypatch.setattr(jinja2.Environment, "compile", no_compile)
    assert _fresh_render(doc) == cold


def test_the_cache_defaults_to_the_home_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without XDG_CACHE_HOME, or with a relative one (ignored), the home's .cache; without a
    home, no cache (never the current folder)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for xdg in (None, "relative/cache"):
        if xdg is None:
            monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        folder = html_report.cache_dir()
        assert folder is not None and folder.is_relative_to(tmp_path / ".cache" / "iaa-gate")
    monkeypatch.setattr("os.path.expanduser", lambda path: path)  # no home to expand "~" to
    assert html_report.cache_dir() is None


def test_an_unwritable_or_broken_cache_only_costs_the_compile(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache folder that cannot be made (read-only home; here a file in the way, which stops
    root too), a cache file that cannot be written, or a truncated one: the page is the same."""
    doc = decode_report((example / "report.json").read_bytes())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "good"))
    page = _fresh_render(doc)
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert _fresh_render(doc) == page

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "good"))
    folder = html_report.cache_dir()
    assert folder is not None
    (cached,) = folder.glob("*.cache")
    cached.write_bytes(cached.read_bytes()[:100])  # cut mid-code: compiled again, rewritten
    assert _fresh_render(doc) == page
    assert len(cached.read_bytes()) > 100

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError("read-only file system")

    cached.unlink()
    monkeypatch.setattr("tempfile.NamedTemporaryFile", refuse)
    assert _fresh_render(doc) == page


WIDE_OR_CUT = """() => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.parentElement && el.parentElement.closest('table, .scroll, figure.heatmap');
    if (box) continue;  // a scroll container holds it
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > vw + 1) out.push(el.tagName + '#' + el.id + '.' + el.className);
  }
  return out;
}"""
"""The elements that reach past the viewport's right edge outside a scroll container."""

CELL_TEXT = """() => [...document.querySelectorAll('figure.heatmap svg text[text-anchor=middle]')]
  .map(t => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a)"""
"""Each heatmap cell number's font size as rendered, in CSS pixels."""


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 420])
def test_the_page_fits_the_viewport_with_readable_heatmaps_and_a_jump_bar(
    browser: Any, example: Path, width: int
) -> None:
    """Issue 33: at a laptop's and a phone's width nothing is cut off (the summary table and
    a heatmap scroll inside their box, never the page), every heatmap number is 12 px or more,
    the jump bar links to each field's section and the next steps, and the next steps say
    what to do."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((example / "report.html").resolve().as_uri())
    assert page.evaluate(WIDE_OR_CUT) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    table = page.locator("#fields").bounding_box()
    box = page.locator("#fields").locator("xpath=..").bounding_box()
    assert table is not None and box is not None and box["width"] <= width
    sizes = page.evaluate(CELL_TEXT)
    assert sizes and min(sizes) >= 12, min(sizes)
    links = page.eval_on_selector_all("#jump a", "as => as.map(a => a.getAttribute('href'))")
    doc = json.loads((example / "report.json").read_text())
    fields = [f"#f-{i}" for i in range(1, len(doc["fields"]) + 1)]
    assert links[0] == "#next-steps" and links[1 : 1 + len(fields)] == fields
    for href in links:
        assert page.locator(href).count() == 1, href
    page.locator("#jump a[href='#f-2']").click()
    top = page.locator("#f-2").bounding_box()
    assert top is not None and -1 <= top["y"] < 120  # scrolled to it (below the sticky bar)
    steps = page.locator("ul.next-steps li").all_inner_texts()
    assert steps[2].startswith("talk to annotator 5: alpha on sentiment rises")
    _screenshot(page, example / f"report-{width}.png")
    assert errors == []
    page.close()


def test_a_scale_shows_its_offset_first_and_per_value_agreement_as_secondary(
    example: Path,
) -> None:
    """Issue 33: an ordinal field that passes showed exact agreement per value of 0.34–0.55
    first, alarming and meaningless for a scale; the offset comes first, per-value agreement
    folded away below it. A nominal field keeps its per-category chart."""
    page = (example / "report.html").read_text(encoding="utf-8")
    sections = {s.split('"', 1)[0]: s for s in page.split('<section class="field" id="')[1:]}
    helpfulness, sentiment = sections["f-3"], sections["f-1"]
    first = helpfulness.index('<p class="offset-first">Largest mean offset: annotator 3 rates')
    folded = helpfulness.index('<details class="secondary">')
    assert first < folded < helpfulness.index('data-chart="categories"')
    assert helpfulness.count('data-chart="categories"') == 1
    assert "offset-first" not in sentiment and 'class="secondary"' not in sentiment
    assert '<figure class="chart" data-chart="categories">' in sentiment


def test_a_proposal_against_the_majority_says_why(example: Path) -> None:
    """Issue 33: a task whose proposal differs from its most common label says why, from the
    Dawid–Skene confusion matrices in report.json: the proposers' P(give it | true) against
    the majority's; a proposal that is the majority's says nothing more."""
    from iaa_gate.sinks.report.html import minority

    doc = json.loads((example / "report.json").read_text(encoding="utf-8"))
    skill = doc["fields"]["sentiment"]["skill"]
    diag = {a["name"]: a["confusion"] for a in skill["annotators"]}
    page = (example / "report.html").read_text(encoding="utf-8")
    rows = page.split('id="dt-1"', 1)[1].split("</table>", 1)[0].split("<tr>")[2:]
    whys = [r for r in rows if 'class="note why"' in r]
    assert whys, "the example has a proposal against its majority"
    every = {str(t["id"]): t for t in read_disputed(example)["sentiment"]}
    for row in rows:
        task = every[row.split('data-sort="', 1)[1].split('"', 1)[0]]
        labels, proposed = task["labels"], task["consensus"]["value"]
        odd = minority(labels)
        majority = {v for k, v in labels.items() if k not in odd}
        against = bool(odd) and not task["consensus"]["tie"] and proposed not in majority
        assert ('class="note why"' in row) == against, task["id"]
        if against:
            (m,) = majority
            k, j = skill["classes"].index(proposed), skill["classes"].index(m)
            mine = [diag[n][k][k] for n, v in labels.items() if v == proposed]
            theirs = [diag[n][j][j] for n, v in labels.items() if v == m]
            a, b = sum(mine) / len(mine), sum(theirs) / len(theirs)
            assert f"against the majority ({m}): " in row and f"{a:.2f} vs {b:.2f}" in row


@pytest.mark.browser
def test_the_overlap_line_is_on_the_page_and_in_markdown(
    browser: Any, example: Path, tmp_path: Path
) -> None:
    """What the overlap that follows the plan did and saved, in words, as report.json has it."""
    import msgspec

    from iaa_gate.evaluation.document import decode_report
    from iaa_gate.evaluation.sections import Writeback
    from iaa_gate.sinks.report.format import overlap_text
    from iaa_gate.sinks.report.markdown import MarkdownWriter

    doc = decode_report((example / "report.json").read_bytes())
    field = {"field": "sentiment", "width": 0.09, "overlapped_tasks": 412}
    overlap = {
        "target_width": 0.1,
        "settled": True,
        "fields": [field],
        "maximum_annotations": 2,
        "open_tasks": 1588,
        "single": 1505,
        "audit": 83,
        "annotations_saved": 1505,
        "planned": 1505,
        "raised": 0,
        "dry_run": False,
        "done": 1505,
        "answered_meanwhile": 0,
        "failed": 0,
    }
    doc.writeback = msgspec.convert(
        {"target": "label-studio", "project": 5, "overlap": overlap}, Writeback
    )
    line = (
        "overlap: sentiment: width 0.09 ≤ 0.10 after 412 overlapped tasks; 1,588 tasks set to "
        "one annotator (83 kept for audit): 1,505 annotations saved; 1,505 tasks written"
    )
    assert overlap_text(doc.writeback) == line
    assert line in MarkdownWriter().render(doc)
    page_path = tmp_path / "report.html"
    page_path.write_text(html_report.HtmlWriter().render(doc), encoding="utf-8")
    view = Page(browser, page_path)
    assert view.page.locator("#overlap").inner_text() == line
    assert view.errors == []
