"""What to do after a run, as typed data every report shows in the same words: what the
verdict means, which tasks to review and where, which annotator to talk to and why, and which
field's guideline to revisit.

Built from the fields' reports with every check (:class:`~.document.FieldReport`) and the
config (where the disputed tasks can be reviewed), into the report: it reads the figures, it
never moves them.
"""

from __future__ import annotations

from ..config import Config
from ..model import annotator
from .document import DISPUTED_FILE, FieldReport, NextSteps, Review, Revisit, TalkTo
from .gate import Verdict, worst

MEANING = {
    "pass": "pass: every figure reaches its warn threshold; the labels can be used.",
    "warn": "warn: a figure is below its warn threshold but not its fail threshold; the run "
    "exits 0 unless --fail-on-warn.",
    "fail": "fail: a figure is below its fail threshold; the run exits 1 and that field's "
    "labels should not be used yet.",
}
"""Each verdict explained in one sentence."""

ORDERED = ("ordinal", "interval", "ratio")
"""Levels whose per-value agreement is secondary: a scale is judged by its offsets."""


def _where(config: Config) -> str:
    """Where the disputed tasks are reviewed: the project's tab when write-back writes one,
    else the disputed-tasks file beside the reports (or the reports, without the JSON format)."""
    wb = config.writeback
    if config.source.type == "label-studio" and wb.enabled and wb.view:
        return f"the {wb.view!r} tab of the Label Studio project"
    if "json" in config.report.formats:
        return DISPUTED_FILE  # beside the reports (the summary lists its path)
    return "the report's lowest-scoring tasks"


def _talk_to(fields: dict[str, FieldReport]) -> list[TalkTo]:
    """The outliers (alpha rises without them), else on a field that is not passing the
    annotator with the lowest Dawid–Skene accuracy, with their gold-task agreement if lower
    than everyone's."""
    out: dict[str, TalkTo] = {}
    for name, f in fields.items():
        for a in sorted(f.annotators, key=lambda a: -(a.alpha_gain or 0.0)):
            if a.outlier and a.id not in out and f.alpha is not None and a.alpha_without:
                out[a.id] = TalkTo(
                    a.id,
                    a.name,
                    f"alpha on {name} rises from {f.alpha:.3f} to {a.alpha_without:.3f} "
                    "without them",
                )
    if out:
        return list(out.values())
    for name, f in fields.items():
        skill = [a for a in (f.skill.annotators if f.skill else []) if a.accuracy is not None]
        if f.verdict == "pass" or len(skill) < 2:
            continue
        low = min(skill, key=lambda a: a.accuracy or 0.0)
        others = sorted(a.accuracy or 0.0 for a in skill if a is not low)
        why = (
            f"the lowest Dawid–Skene accuracy on {name}, {low.accuracy:.3f} "
            f"(the others {others[0]:.3f}–{others[-1]:.3f})"
        )
        gt = f.ground_truth
        mine = [a for a in (gt.annotators if gt else []) if a.id == low.id]
        rest = [a.agreement for a in (gt.annotators if gt else []) if a.id != low.id]
        if (
            mine
            and mine[0].agreement is not None
            and all(x is None or x > (mine[0].agreement or 0.0) for x in rest)
        ):
            why += f", and the lowest agreement with the gold answers ({mine[0].agreement:.3f})"
        out.setdefault(low.id, TalkTo(low.id, low.name, why))
    return list(out.values())


def _revisit(fields: dict[str, FieldReport]) -> list[Revisit]:
    """Each field that is not passing: its least agreed category, or for a scale its largest
    mean offset (per-value agreement means little on a scale)."""
    out = []
    for name, f in fields.items():
        if f.verdict == "pass":
            continue
        offsets = [a for a in f.annotators if a.mean_offset is not None]
        if f.level in ORDERED and offsets:
            top = max(offsets, key=lambda a: abs(a.mean_offset or 0.0))
            why = (
                f"the scale's anchors ({annotator(top.name)} rates {top.mean_offset:+.2f} "
                "from the others on average)"
            )
        elif f.lowest_category is not None and f.lowest_category.rate == f.lowest_category.rate:
            low = f.lowest_category
            why = f"{low.label!r} is the category annotators agree on least ({low.rate:.3f})"
        else:
            why = f"alpha {'undefined' if f.alpha is None else f'{f.alpha:.3f}'}"
        out.append(Revisit(name, why))
    return out


def next_steps(fields: dict[str, FieldReport], config: Config) -> NextSteps:
    """What to do after a run whose fields' reports (with every check) are ``fields``.

    Parameters
    ----------
    fields : dict of str to FieldReport
        Each field's report, with every check and its verdict.
    config : Config
        The run's config: where the disputed tasks can be reviewed.

    Returns
    -------
    NextSteps
        The verdict's meaning, the tasks to review, the annotators to talk to and the
        guidelines to revisit.

    Examples
    --------
    >>> import inspect
    >>> list(inspect.signature(next_steps).parameters)
    ['fields', 'config']
    """
    # an order of their own, not the config's or the source's (a live pull and its export give
    # the same fields in other orders, and must say the same next steps): the fields by name,
    # failing ones first where that matters, the tasks to review from the most disputed field
    fields = dict(sorted(fields.items(), key=lambda kv: (kv[1].verdict != "fail", kv[0])))
    by_field = dict(sorted(((n, f.n_disputed) for n, f in fields.items()), key=lambda kv: -kv[1]))
    states: dict[str, int] = {}
    for f in fields.values():
        for state, n in (f.disputes.states if f.disputes else {}).items():
            states[state] = states.get(state, 0) + n
    review = Review(sum(by_field.values()), _where(config), by_field, states)
    verdict = worst([Verdict(f.verdict) for f in fields.values()]).word
    return NextSteps(MEANING[verdict], review, _talk_to(fields), _revisit(fields))


__all__ = ["next_steps"]
