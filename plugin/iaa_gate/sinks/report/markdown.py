"""``report.md``: the report for a person, in a pull request or a chat message."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...evaluation.document import (
    AltTestReport,
    CheckReport,
    CoefficientReport,
    Disputed,
    DisputeStates,
    FieldReport,
    Report,
)
from ...evaluation.results import FieldTruth, Skill
from ...evaluation.sections import Details, FieldTrend, Models, Regions, Trend
from .format import (
    ALT_TEST_COLUMNS,
    ALT_TEST_HUMAN_COLUMNS,
    MODEL_COLUMNS,
    alpha_name,
    alpha_without_note,
    alt_test_details,
    alt_test_human_rows,
    alt_test_line,
    alt_test_rows,
    alt_test_trend,
    alt_test_versions,
    bar_text,
    burn_down,
    categories_text,
    change_text,
    confused_pairs,
    disputes_line,
    fmt,
    model_label_rows,
    model_note,
    model_rows,
    proposal,
    round_text,
    sampling_note,
    width_text,
    writeback_lines,
)

MAX_DISPUTED = 50  # disputed tasks shown per field: the first in review order
ICON = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail"}
# Markdown's and GitHub's active characters in text: backslash-escaped, or as entities for markup
_ESCAPES = str.maketrans(
    {c: "\\" + c for c in "\\`*_[]|~$"}
    | {"<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " ", "\r": " "}
)


def signed(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:+.{digits}f}"


def md(v: Any) -> str:
    """Any value as Markdown text that renders as itself, on one line, also in a table cell:
    ``<script>`` stays visible text, ``A|B`` does not split the cell."""
    text = ", ".join(map(str, v)) if isinstance(v, list) else str(v)
    return text.translate(_ESCAPES)


def _table(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A Markdown table: the ``columns`` header as written, then ``rows`` escaped."""
    return [
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        *("| " + " | ".join(md(c) for c in row) + " |" for row in rows),
    ]


def _value(check: CheckReport) -> str:
    if check.name == "annotators" and check.value is not None:
        return f"{int(check.value)} outlier(s)"
    return fmt(check.value)


def _trend(trend: Trend) -> list[str]:
    prev = trend.previous
    out = [
        "",
        "## Since the previous round",
        "",
        f"Compared with {md(prev.path)} ({prev.generated_at}, verdict {prev.verdict}).",
        "",
        "| field | alpha before | alpha now | change | alpha over the last rounds |",
        "|---|---|---|---|---|",
    ]
    for name, t in trend.fields.items():
        series = " → ".join(fmt(p.alpha, 2) for p in t.series)
        if (opened := burn_down(t.series)) is not None:
            series += f"<br>open disputes by run: {opened}"
        if not t.comparable or not t.alpha:
            out.append(f"| {md(name)} | — | — | {md(t.note)} | {series} |")
            continue
        a = t.alpha
        out.append(
            f"| {md(name)} | {fmt(a.previous)} | {fmt(a.current)} | {md(change_text(a))} "
            f"| {series} |"
        )
    if trend.notes:
        out += ["", *(f"- {md(n)}" for n in trend.notes)]
    models = alt_test_trend(trend)
    if models:
        out += ["", "Alternative annotator test:", "", *(f"- {md(line)}" for line in models)]
    return out


def _field_trend(t: FieldTrend) -> list[str]:
    if not t.comparable:
        return []
    rows = [("coefficient", k, v) for k, v in (t.coefficients or {}).items()]
    rows += [("label", k, v) for k, v in (t.categories or {}).items()]
    rows += [("annotator", v.name, v.pair_agreement) for v in (t.annotators or {}).values()]
    if t.disputed_share:
        rows.append(("disputed share", "", t.disputed_share))
    out = ["", "Change since the previous round (annotators: pair agreement):", ""]
    out += ["| what | name | before | now | change |", "|---|---|---|---|---|"]
    for what, name, rec in rows:
        out.append(
            f"| {what} | {md(name)} | {fmt(rec.previous)} | {fmt(rec.current)} "
            f"| {md(change_text(rec))} |"
        )
    return out


def _truth(gt: FieldTruth | None) -> list[str]:
    if not gt:
        return []
    out = ["", f"Agreement with ground truth on {gt.n_tasks} gold tasks ({gt.comparison})."]
    if gt.annotators:
        out[-1] = out[-1][:-1] + ":"
        out += ["", "| annotator | gold tasks | agreement | mean offset |", "|---|---|---|---|"]
    for a in gt.annotators:
        out.append(f"| {md(a.name)} | {a.n_tasks} | {fmt(a.agreement)} | {signed(a.mean_offset)} |")
    if gt.conflicting:
        ids = ", ".join(map(str, gt.conflicting))
        out += ["", f"Not used: tasks whose ground-truth annotations disagree: {ids}."]
    return out


def _models(models: Models | None) -> list[str]:
    """Each model version against the human consensus (the annotators beside it)."""
    rows, note = model_rows(models), model_note(models)
    if not rows and not note:
        return []
    out = [
        "",
        "## Model predictions",
        "",
        "Each model version against the human consensus, compared as an annotator is with "
        "ground truth; the annotators' own agreement with that consensus is beside it (they "
        "are part of it, so it leans high). Predictions are never ratings in the agreement "
        "above. *Started from it*: agreement with the prediction of annotations that started "
        "from it, against those on the same tasks that did not.",
        "",
        *_table(MODEL_COLUMNS, rows),
    ]
    if note:
        out += ["", f"Not evaluated: {md(note)}."]
    labels = model_label_rows(models)
    if labels:
        columns = ("field", "model version", "consensus label", "tasks", "agreement")
        out += ["", *_table(columns, labels)]
    return out


def _alt_test(alt: AltTestReport | None) -> list[str]:
    """Each model version's alternative annotator test, per field, with its humans."""
    rows = alt_test_rows(alt)
    if not rows:
        return []
    out = [
        "",
        "## Alternative annotator test",
        "",
        "May the model take a human annotator's place? For each human left out in turn, the "
        "model and the human are scored against the remaining humans on each task; the model "
        "wins against the human when a one-sided t-test (Benjamini–Yekutieli over the humans) "
        "shows the human ahead on fewer than ε more tasks. ω (winning rate): the share of humans "
        "the model wins against; it passes at ω ≥ 0.5. ρ (advantage probability): how often the "
        "model is as good as or better than a human; it ranks model versions.",
        "",
        *_table(ALT_TEST_COLUMNS, rows),
    ]
    for name, v in alt_test_versions(alt):
        out += ["", f"### {md(alt_test_line(name, v))}"]
        humans = alt_test_human_rows(v)
        if humans:
            out += ["", *_table(ALT_TEST_HUMAN_COLUMNS, humans)]
        details = alt_test_details(v)
        if details:
            out += [""] + [f"- {md(d)}" for d in details]
    return out


class MarkdownWriter:
    filename = "report.md"

    def render(self, report: Report, disputed: Disputed | None = None) -> str:
        """``disputed`` is not needed: the report's lowest scores are more than it shows."""
        src, inp = report.source, report.input
        out = [
            f"# iaa-gate: {ICON[report.verdict]}",
            "",
            f"Source: {src.get('type')} {md(src.get('path') or src.get('url'))}"
            + (f" (project {md(src['project'])})" if src.get("project") else ""),
            f"Round: {round_text(report.round)}",
            f"Input: {inp.tasks} tasks, {inp.annotations} annotations by {inp.annotators} "
            f"annotators; {inp.cancelled} skipped (cancelled), {inp.superseded} superseded "
            f"by a later annotation of the same annotator, {inp.ignored} ignored, "
            f"{inp.empty} empty selections, "
            f"{inp.invalid_skipped} invalid skipped, {inp.outside_round} outside the round.",
            "",
            "| field | level | alpha | lowest category | disputed tasks | verdict |",
            "|---|---|---|---|---|---|",
        ]
        for name, f in report.fields.items():
            low = f.lowest_category
            low_s = f"{md(low.label)} {fmt(low.rate)}" if low else "—"
            out.append(
                f"| {md(name)} | {f.level} | {fmt(f.alpha)} | {low_s} | "
                f"{f.n_disputed} of {f.n_disputed + f.n_agreed} | {ICON[f.verdict]} |"
            )
        if report.next_steps is not None:
            steps = report.next_steps.lines()
            out += ["", "## Next steps", "", *(f"- {md(line)}" for line in steps)]
        trend = report.trend
        if trend:
            out += _trend(trend)
        for name, f in report.fields.items():
            out += self._field(name, f)
            if trend and name in trend.fields:
                out += _field_trend(trend.fields[name])
        if report.not_evaluated:
            out += [
                "",
                "## Not evaluated",
                "",
                "Fields in the data that the config does not list:",
                "",
            ]
            out += [f"- {md(k)} ({md(v)})" for k, v in report.not_evaluated.items()]
        out += _models(report.models)
        out += _alt_test(report.alt_test)
        wb = report.writeback
        if wb:
            out += ["", "## Write-back", ""]
            out += [  # the sentence, then the consensus and each task's change as a list
                f"- {md(line.strip())}" if line.startswith(" ") else md(line)
                for line in writeback_lines(wb)
            ]
        return "\n".join(out) + "\n"

    def _coefficients(self, coefs: dict[str, CoefficientReport], small: bool = False) -> list[str]:
        if not coefs:
            return []
        out = [
            "",
            "| coefficient | value | interval | interpretation | note |",
            "|---|---|---|---|---|",
        ]
        for name, c in coefs.items():
            interval = "—"
            if c.lower is not None and c.upper is not None:
                interval = f"{fmt(c.lower)} – {fmt(c.upper)} ({c.confidence or 0:.0%})"
                if small:
                    interval += ", small sample"
            interp = c.interpretation or "—"
            if c.interpretation and c.scale:
                interp += f" ({c.scale.replace('_', ' & ')})"
            if c.benchmark:
                interp += f"; Gwet benchmark: {c.benchmark}"
            note = md(c.undefined_reason or c.description)
            if c.ignores_order:
                note = f"**ignores the order** of the ratings (unweighted); {note}"
            if c.q is not None:
                note += f"; P(alpha < fail threshold) = {c.q:.3f}"
            out.append(f"| {name} | {fmt(c.value)} | {interval} | {md(interp)} | {note} |")
        return out

    def _field(self, name: str, f: FieldReport) -> list[str]:
        out = ["", f"## {md(name)}: {ICON[f.verdict]}", ""]
        alpha = fmt(f.alpha)
        if f.alpha_undefined_reason:
            alpha += f" ({md(f.alpha_undefined_reason)})"
        out.append(
            f"{md(alpha_name(f))}: **{alpha}** over {f.n_pairable} tasks "
            f"with two or more ratings ({f.n_ratings} ratings, {f.n_annotators} annotators)"
            + (f"; {md(width)}." if (width := width_text(f)) else ".")
        )
        if sampled := sampling_note(f):
            out += ["", f"**{md(sampled)}.**"]
        if f.small_sample:
            out += ["", f"**{md(f.small_sample[0].upper() + f.small_sample[1:])}.**"]
        out += [
            "",
            "| check | value | fail below | warn below | verdict | why |",
            "|---|---|---|---|---|---|",
        ]
        for c in f.checks:
            out.append(
                f"| {c.name} | {_value(c)} | {bar_text(c, 'fail')} | {bar_text(c, 'warn')} "
                f"| {ICON[c.verdict]} "
                f"| {md(c.message)} |"
            )
        out += self._coefficients(f.coefficients, bool(f.small_sample))
        used = f.categories_used
        if used:
            out += ["", f"The kappa family and AC2 use the categories {md(categories_text(used))}."]
        if f.regions:
            out += _regions(f.regions)
        if f.categories:
            method = f.category_method.replace("_", " ")
            out += [
                "",
                f"Agreement per category ({method}):",
                "",
                "| category | agreement |",
                "|---|---|",
            ]
            out += [f"| {md(k)} | {fmt(v)} |" for k, v in f.categories.items()]
        confusions = [f"{md(a)} ↔ {md(b)}: {w:.1f}" for a, b, w in confused_pairs(f.coincidence)]
        if confusions:
            out += ["", "Most confused pairs (coincidences): " + "; ".join(confusions) + "."]
        if f.annotators:
            offsets = any(a.mean_offset is not None for a in f.annotators)
            skill = f.skill
            accuracy = {a.id: a.accuracy for a in skill.annotators} if skill else {}
            lefts = any(a.left_share is not None for a in f.annotators)
            out += [
                "",
                "| annotator | tasks shared | pair agreement | alpha without | change | outlier |"
                + (" mean offset |" if offsets else "")
                + (" picks left |" if lefts else "")
                + (" accuracy (Dawid–Skene) |" if skill else ""),
                "|---|---|---|---|---|---|"
                + ("---|" if offsets else "")
                + ("---|" if lefts else "")
                + ("---|" if skill else ""),
            ]
            for a in f.annotators:
                gain = "—" if a.alpha_gain is None else f"{a.alpha_gain:+.3f}"
                out.append(
                    f"| {md(a.name)} | {a.n_units} | {fmt(a.pair_agreement)} | "
                    f"{fmt(a.alpha_without)} | {gain} | {'**yes**' if a.outlier else ''} |"
                    + (f" {signed(a.mean_offset)} |" if offsets else "")
                    + (f" {fmt(a.left_share)} |" if lefts else "")
                    + (f" {fmt(accuracy.get(a.id))} |" if skill else "")
                )
            note = alpha_without_note(f)
            if note:
                out += ["", md(note)]
            out += _skill(skill)
            if offsets:
                out += [
                    "",
                    "Mean offset: how far the annotator's ratings lie above (+) or below (−) the "
                    "mean of the others on the same task, in scale points.",
                ]
        out += _truth(f.ground_truth)
        out += _disputes(f.disputes)
        disputed, n = f.disputed.lowest[:MAX_DISPUTED], f.n_disputed
        out += [
            "",
            f"Disputed tasks (score below {f.disputed_below:g}"
            + (
                f"; ratings within {f.disputed_tolerance:g} agree"
                if f.disputed_tolerance is not None
                else ""
            )
            + f"): {n}"
            + (
                f", the first {len(disputed)} shown (all in {md(f.disputed.file)})"
                if n > len(disputed)
                else ""
            ),
        ]
        if disputed:
            out += [
                "",
                f"In review order: {md(f.disputed.order)}.",
                "",
                "| task | priority | score | proposed | labels |",
                "|---|---|---|---|---|",
            ]
            for d in disputed:
                labels = "; ".join(f"{md(k)}: {md(v)}" for k, v in d.labels.items())
                if d.details:
                    labels += "<br>" + md(_kinds(d.details))
                out.append(
                    f"| {md(d.id)} | {fmt(d.priority, 2)} | {fmt(d.score, 2)} "
                    f"| {md(proposal(d.consensus))} | {labels} |"
                )
        return out


def _disputes(d: DisputeStates | None) -> list[str]:
    """The disputes by state and each annotator against the adjudicated answers."""
    line = disputes_line(d)
    if d is None or line is None:
        return []
    out = ["", f"Disputes by state: {md(line)}."]
    if d.agreement:
        out += [
            "",
            f"Agreement with the adjudicated answers ({md(d.basis)}; {md(d.comparison)}):",
            "",
            "| annotator | adjudicated tasks | agreement |",
            "|---|---|---|",
        ]
        out += [f"| {md(a.name)} | {a.n_tasks} | {fmt(a.agreement)} |" for a in d.agreement]
    return out


def _skill(skill: Skill | None) -> list[str]:
    """Each annotator's Dawid–Skene confusion matrix (rows: true class, columns: given)."""
    if not skill:
        return []
    classes = skill.classes
    note = "" if skill.converged else ", **not converged**"
    out = [
        "",
        f"<details><summary>Annotator skill (Dawid–Skene per {md(skill.basis)}, "
        f"{skill.iterations} EM iterations{note}): confusion matrices</summary>",
    ]
    for a in skill.annotators:
        out += [
            "",
            f"{md(a.name)}: accuracy {fmt(a.accuracy)} over {a.n_units} units; P(given | true):",
            "",
            "| true \\ given | " + " | ".join(md(c) for c in classes) + " |",
            "|---" * (len(classes) + 1) + "|",
        ]
        out += [
            f"| {md(c)} | " + " | ".join(f"{x:.2f}" for x in row) + " |"
            for c, row in zip(classes, a.confusion, strict=True)
        ]
    return [*out, "", "</details>"]


def _kinds(details: Details) -> str:
    """A disputed task's disagreements, counted by kind: "2 missed, 1 label swap"."""
    counts: dict[str, int] = {}
    for d in details.disagreements:
        counts[d.kind] = counts.get(d.kind, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in counts.items()) or "no disagreement listed"


def _regions(r: Regions) -> list[str]:
    """The region section of a field: matching, F1, IoU, per label, per annotator pair."""
    m = r.matching
    how = f"{m.mode}" + (f", IoU ≥ {m.iou:g}" if m.mode == "overlap" else "")
    how += ", same label" if m.labels else ", labels ignored"
    out = [
        "",
        f"Regions ({r.shape}, {r.n_regions} regions; matching {how}): pairwise F1 "
        f"**{fmt(r.f1)}**, strict (exact) {fmt(r.strict_f1)}, mean IoU of matched "
        f"regions {fmt(r.mean_iou)}.",
    ]
    u = r.unitizing_alpha
    if u:
        by = ", ".join(f"{md(k)} {fmt(v)}" for k, v in u.by_label.items())
        why = f" ({u.undefined_reason})" if u.undefined_reason else ""
        out += [
            "",
            f"Unitizing alpha: **{fmt(u.value)}**{why}"
            + (f"; by label: {by}." if by else ".")
            + (
                f" Left out: {u.tasks_without_text} task(s) without a known text."
                if u.tasks_without_text
                else ""
            )
            + (
                f" Left out: {u.excluded_tasks} task(s) rated by fewer annotators than the"
                " most (unitizing alpha needs one set of coders)."
                if u.excluded_tasks
                else ""
            ),
        ]
    names = r.annotators.names
    if len(names) >= 2:
        out += ["", "| F1 (shared tasks) | " + " | ".join(map(md, names)) + " |"]
        out.append("|---" * (len(names) + 1) + "|")
        for i, name in enumerate(names):
            cells = [
                "—" if i == j else f"{fmt(r.annotators.f1[i][j])} ({n})"
                for j, n in enumerate(r.annotators.shared_tasks[i])
            ]
            out.append(f"| {md(name)} | " + " | ".join(cells) + " |")
    rel = r.relations
    if rel:
        by = ", ".join(f"{md(k)} {fmt(v)}" for k, v in rel.f1_by_label.items())
        out += [
            "",
            f"Relations ({rel.n}): pairwise F1 {fmt(rel.f1)}" + (f"; {by}." if by else "."),
        ]
    if r.relations_not_evaluated:
        out.append(f"Not evaluated: {r.relations_not_evaluated} relation(s) between two fields.")
    return out
