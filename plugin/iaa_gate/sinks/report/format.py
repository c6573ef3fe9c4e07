"""Formatting the report formats share (Markdown, HTML, the terminal): numbers, verdict icons,
rounds, trend changes, the most confused label pairs, and plain values."""

from __future__ import annotations

from typing import Any

ICON_TEXT = {"pass": "✓ pass", "warn": "⚠ warn", "fail": "✗ fail"}


def fmt(x: float | None, digits: int = 3) -> str:
    return "undefined" if x is None else f"{x:.{digits}f}"


def plain(v: Any) -> str:
    """A setting or count as a person reads it: ``yes``/``no`` for booleans, ``—`` for none,
    lists joined by commas; never a Python repr such as ``False`` or ``None``."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "—"
    if isinstance(v, (list, tuple)):
        return ", ".join(plain(x) for x in v)
    return str(v)


def round_text(r: dict[str, Any] | None) -> str:
    if not r:
        return "all annotations"
    parts = []
    if r.get("from") or r.get("to"):
        parts.append(f"annotations from {r.get('from') or '…'} to {r.get('to') or '…'}")
    if r.get("task_ids"):
        parts.append(f"tasks {r['task_ids']}")
    return "; ".join(parts)


def confused_pairs(co: dict[str, Any] | None, top: int = 5) -> list[tuple[str, str, float]]:
    """The ``top`` label pairs with the most coincidences off the diagonal: (a, b, count)."""
    if not co:
        return []
    labels, m = co["labels"], co["matrix"]
    pairs = sorted(
        (
            (m[i][j], labels[i], labels[j])
            for i in range(len(labels))
            for j in range(i + 1, len(labels))
            if m[i][j] > 0
        ),
        reverse=True,
    )[:top]
    return [(a, b, w) for w, a, b in pairs]


def change_text(rec: dict[str, Any]) -> str:
    """A trend record's change as ▲/▼ and a signed number, or its note."""
    if rec["change"] is None:
        return rec["note"] or "—"
    arrow = "▲" if rec["change"] > 0 else "▼" if rec["change"] < 0 else "="
    return f"{arrow} {rec['change']:+.3f}"


def proposal(c: dict[str, Any] | None) -> str:
    """A consensus in words: "PER (0.93)", "tie: A or B (0.50)", regions as their labels."""
    if c is None:
        return "—"
    v = c["value"]
    if isinstance(v, list):
        shown = ", ".join(
            str(x.get("label") or "(no label)") if isinstance(x, dict) else str(x) for x in v
        )
        v = shown or "nothing"
    return f"{'tie: ' if c['tie'] else ''}{v} ({c['posterior']:.2f})"


MODEL_COLUMNS = (
    "field",
    "model version",
    "tasks",
    "agreement with consensus",
    "annotators (mean)",
    "started from it",
    "did not",
)
"""The columns of the model predictions table (:func:`model_rows`)."""


def _group(g: dict[str, Any] | None) -> str:
    """Human–prediction agreement of one group of annotations, with its count."""
    if not g or not g["n"]:
        return "—"
    return f"{fmt(g['agreement'])} (n={g['n']})"


def model_rows(models: dict[str, Any] | None) -> list[tuple[str, ...]]:
    """One row of text per field and model version, in :data:`MODEL_COLUMNS` order: its
    agreement with the human consensus, the annotators' mean against the same consensus, and
    the human–prediction agreement of annotations that started from the prediction or not."""
    rows: list[tuple[str, ...]] = []
    for name, f in (models or {}).get("fields", {}).items():
        people = [a["agreement"] for a in f["annotators"] if a["agreement"] is not None]
        mean = sum(people) / len(people) if people else None
        for v in f["versions"]:
            rows.append(
                (
                    name,
                    v["model_version"],
                    str(v["n_tasks"]),
                    fmt(v["agreement"]),
                    fmt(mean),
                    _group(v.get("started_from_it")),
                    _group(v.get("not_started_from_it")),
                )
            )
    return rows


def model_label_rows(models: dict[str, Any] | None) -> list[tuple[str, str, str, str, str]]:
    """``(field, model version, label, tasks, agreement)`` per consensus label."""
    return [
        (name, v["model_version"], label, str(rec["n_tasks"]), fmt(rec["agreement"]))
        for name, f in (models or {}).get("fields", {}).items()
        for v in f["versions"]
        for label, rec in v.get("labels", {}).items()
    ]


def model_note(models: dict[str, Any] | None) -> str | None:
    """Why some model predictions were not compared (None: all were read)."""
    n = (models or {}).get("ids_only") or 0
    if not n:
        return None
    return (
        f"{n} model prediction(s) are given by id only in the source, so they were not "
        "compared: export the predictions in full (an export snapshot with "
        "serialization_options.predictions.only_id false) or read the project live"
    )


ALT_TEST_COLUMNS = (
    "field",
    "model version",
    "result",
    "ω winning rate",
    "ρ advantage",
    "ε",
    "humans tested",
    "instances",
    "scoring",
)
"""The columns of the alt-test table (:func:`alt_test_rows`)."""
ALT_TEST_HUMAN_COLUMNS = (
    "annotator",
    "instances",
    "p-value",
    "decision",
    "model ≥ human",
    "human ≥ model",
    "human's score",
    "model's score",
)
"""The columns of one model version's per-human table (:func:`alt_test_human_rows`)."""


def alt_test_versions(alt: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """``(field, version)`` of every model version tested, field by field."""
    return [(name, v) for name, vs in (alt or {}).get("fields", {}).items() for v in vs]


def alt_test_result(v: dict[str, Any]) -> str:
    """ "passes", "does not pass" or "not tested"."""
    return {True: "passes", False: "does not pass", None: "not tested"}[v["passed"]]


def alt_test_line(field: str, v: dict[str, Any]) -> str:
    """One model version on one field in a line: "gpt-4o on sentiment: passes the alt-test
    (ω 0.75, ρ 0.77, ε 0.15, 4 humans)", or why it was not tested."""
    head = f"{v['model_version']} on {field}: "
    if v["passed"] is None:
        return head + f"not tested ({v['not_tested']})"
    n = v["n_humans_tested"]
    return head + (
        f"{alt_test_result(v)} the alt-test (ω {v['winning_rate']:.2f}, "
        f"ρ {v['advantage_probability']:.2f}, ε {v['epsilon']:g}, {n} human{'s' * (n != 1)})"
    )


def alt_test_rows(alt: dict[str, Any] | None) -> list[tuple[str, ...]]:
    """One row of text per field and model version, in :data:`ALT_TEST_COLUMNS` order."""
    return [
        (
            name,
            v["model_version"],
            alt_test_result(v),
            fmt(v["winning_rate"]) if v["passed"] is not None else "—",
            fmt(v["advantage_probability"]) if v["passed"] is not None else "—",
            f"{v['epsilon']:g}",
            str(v["n_humans_tested"]),
            str(v["n_instances"]),
            v["scoring"],
        )
        for name, v in alt_test_versions(alt)
    ]


def alt_test_human_rows(v: dict[str, Any]) -> list[tuple[str, ...]]:
    """One model version's humans, in :data:`ALT_TEST_HUMAN_COLUMNS` order."""
    rows: list[tuple[str, ...]] = []
    for h in v["humans"]:
        p = h["p_value"]
        shown = (
            "—"
            if not h["tested"]
            else f"undefined ({h['p_value_undefined_reason']})"
            if p is None
            else f"{p:.3g}"
        )
        figures = ("model_advantage", "human_advantage", "human_score", "model_score")
        rows.append(
            (
                h["name"],
                str(h["n_instances"]),
                shown,
                h["decision"],
                *(fmt(h[k]) if h["tested"] else "—" for k in figures),
            )
        )
    return rows


def alt_test_trend(trend: dict[str, Any] | None) -> list[str]:
    """Each model version's ω and ρ against the previous round, a line each."""
    out = []
    for name, versions in ((trend or {}).get("alt_test") or {}).items():
        for version, rec in versions.items():
            parts = []
            for key, sign in (("winning_rate", "ω"), ("advantage_probability", "ρ")):
                r = rec[key]
                if r["change"] is None:
                    parts.append(f"{sign} {fmt(r['current'], 2)} ({r['note']})")
                else:
                    parts.append(
                        f"{sign} {fmt(r['previous'], 2)} → {fmt(r['current'], 2)} "
                        f"({r['change']:+.2f})"
                    )
            out.append(f"{version} on {name} since the previous round: " + ", ".join(parts))
    return out


def alt_test_details(v: dict[str, Any]) -> list[str]:
    """The comparisons beside the test, one sentence each: against the humans' consensus, the
    label distribution or the mean offset."""
    out = []
    c = v.get("consensus")
    if c and c["n_tasks"]:
        out.append(
            f"{c['measure'].capitalize()}: the model {fmt(c['model'])} over {c['n_tasks']} "
            f"tasks; each human against the others' {c['measure'].split()[-1]} (leave one out) "
            f"{fmt(c['humans'])}"
        )
    if v.get("labels"):
        shares = ", ".join(
            f"{label} {s['model']:.0%} (humans {s['humans']:.0%})"
            for label, s in v["labels"].items()
        )
        out.append(f"Labels the model gives: {shares}")
    if v.get("mean_offset") is not None:
        out.append(f"Mean offset from the humans' mean rating: {v['mean_offset']:+.3f}")
    return out


def consensus_text(writeback: dict[str, Any] | None) -> str | None:
    """The consensus predictions written back, in a line (None: none were asked for)."""
    c = (writeback or {}).get("consensus")
    if not c:
        return None
    head = f"consensus predictions ({c['model_version']}): "
    if c["dry_run"]:
        text = head + f"{c['planned']} would change (dry run)"
    else:
        done = ("created", "replaced", "deleted", "unchanged")
        text = head + ", ".join(f"{c[k]} {k}" for k in done)
    if c.get("ties"):
        text += f"; {c['ties']} disputed answer(s) tie, so nothing is proposed for them"
    if c.get("failed"):
        text += f"; {c['failed']} failed (a re-run writes them)"
    return text


def overlap_text(writeback: dict[str, Any] | None) -> str | None:
    """The overlap that follows the plan, in a line (None: not asked for): "overlap: sentiment:
    width 0.09 ≤ 0.10 after 412 overlapped tasks; 1,588 tasks set to one annotator (83 kept for
    audit): 1,505 annotations saved"."""
    o = (writeback or {}).get("overlap")
    if not o:
        return None
    if o.get("error"):  # the service could not list the tasks: the next report tries again
        return f"overlap: not set ({o['error']})"
    goal = o["target_width"]
    parts = []
    for f in o["fields"]:
        if f["width"] is None:
            width = f"width undefined ({f.get('undefined') or 'no interval'})"
        else:
            width = f"width {f['width']:.2f} {'≤' if f['width'] <= goal else '>'} {goal:.2f}"
        parts.append(f"{f['field']}: {width} after {f['overlapped_tasks']:,} overlapped tasks")
    if not parts:
        parts.append("no field with alpha's interval")
    dry = o["dry_run"]
    if o["settled"]:
        verb = "would be set" if dry else "set"
        parts.append(
            f"{o['open_tasks']:,} tasks {verb} to one annotator ({o['audit']:,} kept for audit): "
            f"{o['annotations_saved']:,} annotations saved"
        )
    else:
        parts.append(
            f"the {o['open_tasks']:,} tasks not yet labelled keep the project's overlap "
            f"({o['maximum_annotations']} annotators)"
            + (f", {o['raised']:,} raised again" if o["raised"] else "")
        )
    if dry:
        parts.append(f"dry run: {o['planned']:,} tasks would change")
    elif o["planned"]:
        parts.append(f"{o['done']:,} tasks written")
    if o.get("answered_meanwhile"):
        parts.append(f"{o['answered_meanwhile']:,} answered meanwhile, left as they are")
    if o.get("failed"):
        parts.append(f"{o['failed']:,} failed (a re-run writes them)")
    if o.get("note"):
        parts.append(o["note"])
    return "overlap: " + "; ".join(parts)


def categories_text(used: dict[str, Any]) -> str:
    """The categories an ordered field's kappa family and AC2 use, and where they come from:
    "1, 2, 3, 4, 5 (from the labeling config's maxRating)"."""
    return ", ".join(str(v) for v in used["values"]) + f" (from {used['source']})"


def alpha_name(f: dict[str, Any]) -> str:
    """What a field's alpha is, in words: region fields say per character or over matched
    regions."""
    shape = (f.get("regions") or {}).get("shape")
    if shape == "span":
        return (
            "Krippendorff's alpha per character (nominal: each character a unit, labelled by "
            "the span covering it)"
        )
    if shape:
        return 'Krippendorff\'s alpha over matched regions (nominal, "(unmatched)" a category)'
    return f"Krippendorff's alpha ({f['level']})"


def sampling_note(f: dict[str, Any]) -> str | None:
    """A field whose alpha has a sampled expected disagreement (``alpha_sampling``) says so,
    with alpha's standard error from the sampling; None when alpha is exact."""
    s = f.get("alpha_sampling")
    if not s:
        return None
    se = "undefined" if s["standard_error"] is None else f"{s['standard_error']:.2g}"
    return (
        f"Sampled: alpha's expected disagreement is estimated from {s['pairs']:,} drawn pairs "
        f"of ratings (expected_sample), not every pair; standard error of alpha from the "
        f"sampling {se}"
    )


CEILINGS = ("interval_width",)
"""Checks whose bars are ceilings (the value must not be above them), under the reports'
"fail below / warn below" columns."""


def bar_text(check: dict[str, Any], key: str) -> str:
    """A check's ``fail`` or ``warn`` bar as its column shows it: ``0.8``, or ``above 0.1`` for
    a ceiling; ``—`` when not set."""
    x = check[key]
    if x is None:
        return "—"
    return f"above {x:g}" if check["name"] in CEILINGS else f"{x:g}"


def width_text(f: dict[str, Any]) -> str | None:
    """Alpha's interval width beside alpha, in words: ``95% interval width 0.101`` and, with
    a goal (``thresholds.interval_width``), ``, wider than 0.1: about 166 more tasks would
    narrow it`` or ``, at most 0.1``; None when alpha has no interval and no goal is set."""
    w = f.get("interval_width")
    if not w or (w["width"] is None and w["goal"] is None):
        return None
    if w["width"] is None:
        return f"alpha's interval width is undefined ({w['undefined_reason']})"
    text = f"{w['confidence']:.0%} interval width {w['width']:.3f}"
    if w["goal"] is None:
        return text
    if w["more_tasks"] is None:
        return f"{text}, at most {w['goal']:g}"
    return (
        f"{text}, wider than {w['goal']:g}: about {w['more_tasks']:,} more tasks with two or "
        "more ratings would narrow it"
    )


def alpha_without_note(f: dict[str, Any]) -> str | None:
    """Region fields: what "alpha without" changes from (None elsewhere)."""
    base = (f.get("regions") or {}).get("annotator_alpha")
    if not base:
        return None
    return (
        f"Alpha without (regions): the matched-region alpha without the annotator; the change is "
        f"from the matched-region alpha with everyone, {fmt(base['value'])}"
        + (" (not the per-character alpha above)." if f["regions"]["shape"] == "span" else ".")
    )
