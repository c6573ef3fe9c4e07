"""One run: source → model → metrics → gate → reports and write-back."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from . import sinks
from .adapters import ReadOptions, Source, SourceValue, adapter
from .config import Config
from .core.errors import OutputError
from .core.fork import can_fork, in_child
from .evaluation import ground_truth, lifecycle
from .evaluation.alt_test import alt_test_section, split_models
from .evaluation.analysis import FieldResult, analyse, not_evaluated
from .evaluation.document import (
    FieldReport,
    Report,
    as_json_data,
    disputed_tasks,
    field_document,
    with_checks,
)
from .evaluation.gate import Check, Verdict, field_checks, worst
from .evaluation.lifecycle import FieldLifecycle
from .evaluation.models import models_section
from .evaluation.next_steps import next_steps
from .evaluation.planning import FieldPlan, field_plan
from .evaluation.region_details import RegionUnits
from .evaluation.results import UnitResult
from .evaluation.sections import Round, TruthSetup, Writeback
from .evaluation.trend import PreviousReport, compare, drop_checks
from .model import Dataset, RoundFilter, apply_round
from .sinks.report import Disputed, build_document, start_parts, write_reports, writers
from .sinks.report import consensus as consensus_file
from .sinks.report.history import read_history, read_report, save_history

if TYPE_CHECKING:
    from .metrics import Simulation


@dataclass
class Outcome:
    """What a run found: the ``verdict``, the typed ``report`` (its JSON form is
    :attr:`document`), each field's ``results``, every ``check``, every ``disputed`` task by
    field (the report keeps the lowest scores), the files ``written`` and, from :func:`run`,
    the ``dataset`` as its source gave it."""

    verdict: Verdict
    report: Report
    results: dict[str, FieldResult]
    checks: list[Check]
    disputed: Disputed = field(default_factory=dict)
    written: list[Path] = field(default_factory=list)
    dataset: Dataset | None = None
    disputes: dict[str, FieldLifecycle] = field(default_factory=dict)
    """With ``adjudication:``: each field's disputes by state and its adjudicated answers."""

    @cached_property
    def document(self) -> dict[str, object]:
        """The report as JSON data, as ``report.json`` holds it (made once, when asked for: the
        writers, the trend and the CLI read :attr:`report`)."""
        return as_json_data(self.report)

    def with_writeback(self, summary: Writeback | None) -> Outcome:
        """This outcome with a report that holds ``summary`` (a new report: the live service
        writes its flags after scoring, from :attr:`results`).

        Parameters
        ----------
        summary
            What write-back did (None: nothing was written back).

        Returns
        -------
        Outcome
            The same verdict, results and checks, with a new :class:`Report`; this outcome's
            report is left as it is.
        """
        return dataclasses.replace(
            self, report=msgspec.structs.replace(self.report, writeback=summary)
        )


def make_source(config: Config, options: ReadOptions | None = None) -> Source:
    """The source of ``config.source``, opened through its adapter."""
    src = config.source
    if not src.include_ground_truth:  # references are split off later
        src = src.model_copy(update={"include_ground_truth": True})
    return adapter(src.type).open(src, options or read_options(config))


def read_options(config: Config, *, workers: int = 1) -> ReadOptions:
    """How this run reads its source (write-back needs the task meta and data it merges into)."""
    wb = config.writeback
    return ReadOptions(
        writeback=wb.enabled,
        data_flags=wb.enabled and wb.data_flags,
        workers=workers,
    )


def round_filter(config: Config) -> RoundFilter:
    start, end = config.round.bounds()
    return RoundFilter(start, end, config.round.ids())


def source_summary(config: Config) -> dict[str, SourceValue]:
    """What the report says about the source: never a secret."""
    return adapter(config.source.type).summary(config.source)


def _round_summary(config: Config) -> Round | None:
    r = config.round
    if r.from_ is None and r.to is None and r.task_ids is None:
        return None
    start, end = r.bounds()
    return Round(
        start.isoformat() if start else None,
        end.isoformat() if end else None,
        [str(t) for t in r.task_ids] if r.task_ids is not None else None,
    )


def _truth_summary(config: Config, refs: ground_truth.References) -> TruthSetup | None:
    gt = config.ground_truth
    if not refs and gt is None:
        return None
    return TruthSetup(
        annotator=gt.annotator if gt else None,
        tasks=[str(t) for t in gt.tasks] if gt and gt.tasks is not None else None,
        references=len(refs),
        gold_tasks=len(set(refs.task_ids())),
        in_agreement=getattr(config.source, "include_ground_truth", True),
    )


WriteBack = Callable[[dict[str, FieldResult]], Writeback]
"""Writes a run's results back to the source (a sink's ``apply``) and returns its summary."""


def evaluate(
    config: Config,
    dataset: Dataset,
    *,
    generated_at: datetime | None = None,
    previous: PreviousReport | None = None,
    history: Sequence[PreviousReport] = (),
    notes: Sequence[str] = (),
    project_id: int | None = None,
    writeback: WriteBack | None = None,
    disputes_known: Callable[[Disputed], object] | None = None,
) -> Outcome:
    """Analyse and gate an already loaded dataset; with ``previous``, the change since that
    report and the ``max_drop`` checks (``history``: earlier reports for the chart). The report
    is built once, complete: ``project_id`` is the project a source named by its title read,
    and ``writeback`` (if given: the only I/O) writes the results back before the report is
    built, which then holds its summary. ``disputes_known`` (without ``adjudication:``, whose
    states the disputed tasks carry) is called with every disputed task as soon as they are
    known, before the region fields' figures are computed (:func:`run` starts writing them)."""
    rf = round_filter(config)
    dataset, adjudications = lifecycle.split(dataset, config)  # never a rating, nor a reference
    dataset, refs = ground_truth.split(dataset, config)
    refs = refs.on_tasks(rf.keeps_task)  # gold answers may predate the round
    adjudications = [a for a in adjudications if rf.keeps_task(a.task_id)]
    dataset = split_models(apply_round(dataset, rf), config)  # a model is never a rating
    named = config.names()
    if named:  # the config's names win over the source's (e-mails of a live project)
        dataset.annotator_names = {**dataset.annotator_names, **named}
    early: Disputed = {}  # the disputed tasks, known before the figures

    def known(units: dict[str, Sequence[UnitResult]]) -> None:
        early.update({name: disputed_tasks(name, u) for name, u in units.items()})
        if disputes_known is not None:
            disputes_known(early)

    tell = disputes_known is not None and not config.adjudication
    results = analyse(dataset, config, units_known=known if tell else None)
    for name, result in results.items():
        result.ground_truth = ground_truth.field_truth(
            name, result.kind, result.level, config.fields[name], dataset, refs
        )
    fields: dict[str, FieldReport] = {}
    disputed: Disputed = {}
    checks: list[Check] = []
    states: dict[str, FieldLifecycle] = {}
    alt_tests, model_checks = alt_test_section(results, dataset, config)
    for name, result in results.items():
        cfg = config.fields[name]
        fc = field_checks(result, cfg) + [c for c in model_checks if c.field == name]
        t = cfg.thresholds
        route = config.writeback.route
        lc = states[name] = lifecycle.field_lifecycle(
            result,
            cfg,
            dataset,
            adjudications,
            config,
            dataset.routed,
            route.max_annotations if route is not None else None,
        )
        open_check = lifecycle.open_disputes_check(name, lc, t.open_disputes)
        fc += [open_check] if open_check is not None else []
        checks += fc
        if config.adjudication:
            result.states = {t: st.state for t, st in lc.states.items()}
        disputed[name] = (
            early[name]
            if name in early
            else disputed_tasks(name, result.units, lc.states if config.adjudication else None)
        )
        fields[name] = field_document(
            result,
            fc,
            disputed[name],
            t.disputed_below,
            t.disputed_tolerance,
            t.interval_width,
            lc if config.adjudication else None,
        )
    source = source_summary(config)
    if project_id is not None and project_id != source.get("project"):
        source["project_id"] = project_id  # a project named by its title
    trend = None
    if previous is not None:
        rounds = config.history.rounds if config.history else 10
        trend = compare(fields, source, previous, list(history), rounds, alt_tests)
        trend.notes[:0] = notes
        drops = drop_checks(config, trend)
        checks += drops
        fields = with_checks(fields, drops)
    report = build_document(
        source=source,
        round_=_round_summary(config),
        stats=dataset.stats,
        n_annotators=len(dataset.annotator_ids()),
        fields=fields,
        not_evaluated=not_evaluated(dataset, config),
        generated_at=generated_at,
        writeback=writeback(results) if writeback is not None else None,
        trend=trend,
        ground_truth=_truth_summary(config, refs),
        models=models_section(results, dataset, config),
        alt_test=alt_tests,
        next_steps=next_steps(fields, config),  # the fields with every check: the final verdict
    )
    outcome = Outcome(worst([c.verdict for c in checks]), report, results, checks, disputed)
    outcome.disputes = states if config.adjudication else {}
    return outcome


def plan(config: Config, width: float, simulation: Simulation | None = None) -> list[FieldPlan]:
    """``iaa-gate plan --config``: load the round (a pilot or the round so far), with its
    filters and without ground-truth references, and plan each field for an interval at most
    ``width`` wide (:func:`~iaa_gate.evaluation.planning.field_plan`); writes nothing.

    Parameters
    ----------
    config : Config
        The round's config.
    width : float
        The widest interval wanted.
    simulation : Simulation, optional
        How to simulate (default :class:`~iaa_gate.metrics.Simulation`'s).

    Returns
    -------
    list of FieldPlan
        Each field's plan, in config order.
    """
    dataset = make_source(config).load()
    dataset, _ = ground_truth.split(dataset, config)
    dataset = apply_round(dataset, round_filter(config))
    results = analyse(dataset, config)
    from .metrics import Simulation

    sim = simulation or Simulation()
    return [
        field_plan(dataset, name, config.fields[name], result, width, sim)
        for name, result in results.items()
    ]


PARALLEL_UNITS = 50_000
"""Units from which, with ``workers`` > 1, ``consensus.jsonl`` is written by a forked child
while this process writes the other reports (one line per unit: ~1 s at 10^6), unless a field
is scored by regions (see :func:`_fork_consensus`)."""


def _fork_consensus(results: dict[str, FieldResult], workers: int) -> bool:
    """Whether ``consensus.jsonl`` is written by a forked child: with ``workers`` > 1, from
    :data:`PARALLEL_UNITS` units, and never in a round with a region field. Such a round's
    parent writes hundreds of MB of disputed tasks while the child lives, and every page either
    process touches is then copied: on issue 31's rounds the child cost more CPU than it saved
    (100,000 Prodigy NER texts: page faults 674k -> 410k, system time 5.0 -> 3.4 s, peak RSS
    -50 MiB without it; 50,000 span tasks: faults -34 %)."""
    if workers <= 1 or not can_fork():
        return False
    units = 0
    for result in results.values():
        if isinstance(result.units, RegionUnits):
            return False
        units += len(result.units)
    return units >= PARALLEL_UNITS


def _unwritable(out_dir: Path, exc: OSError) -> OutputError:
    return OutputError(
        f"cannot write the report to {out_dir}: {exc.strerror}",
        hint="set report.dir or pass --out DIR",
    )


def run(
    config: Config,
    *,
    dry_run: bool = False,
    compare_to: Path | None = None,
    workers: int = 1,
) -> Outcome:
    """Load, evaluate, write the reports and (if configured) write flags back; compare with
    ``compare_to`` or the newest report in ``history.dir``, and keep this one there.
    ``workers``: processes that may read one large export and write the reports of a large
    round (1: this one only)."""
    for name in config.report.formats:  # a format whose extra is not installed: before reading
        writers(name)
    previous = read_report(compare_to) if compare_to is not None else None
    history: list[PreviousReport] = []
    notes: list[str] = []
    if config.history is not None:
        history, notes = read_history(config.history.dir)
        previous = previous or (history[-1] if history else None)
    options = read_options(config, workers=workers)
    source = make_source(config, options)
    dataset = source.load()
    routed = getattr(source, "routed", None)  # a live project: the routes write-back left
    if callable(routed) and config.adjudication is not None:
        dataset.routed = routed(config.writeback.meta_key)
    out_dir = config.report.dir
    formats = config.report.formats
    sink = sinks.writeback(config, out_dir, source, options)
    with ExitStack() as parted:  # a file cut in parts: started once its content is known
        started: list[Path] | None = None  # None: not started (adjudication: not known early)

        def start(disputed: Disputed) -> None:  # its children write while the figures are made
            nonlocal started
            try:
                started = start_parts(out_dir, formats, disputed, workers, parted)
            except OSError as exc:
                raise _unwritable(out_dir, exc) from None

        outcome = evaluate(
            config,
            dataset,
            previous=previous,
            history=history,
            notes=notes,
            project_id=getattr(source, "project_id", None),
            writeback=None
            if sink is None
            else lambda results: sink.apply(results, dry_run=dry_run),
            disputes_known=start if workers > 1 else None,
        )
        outcome.dataset = dataset
        report = outcome.report
        proposals = "json" in formats  # the proposed answers, beside report.json
        final = {name: lc.adjudicated for name, lc in outcome.disputes.items()}
        child = None
        if proposals and _fork_consensus(outcome.results, workers):
            child = in_child(lambda: consensus_file.write(out_dir, outcome.results, final))
        try:
            try:
                outcome.written = write_reports(
                    report, out_dir, formats, outcome.disputed, workers=workers, started=started
                )
                parted.close()  # the files started in parts: finished, then the proposals
            finally:
                written = child() if child is not None else None  # never leave the child behind
            if proposals:
                at = 1 + max(
                    i for i, p in enumerate(outcome.written) if p.suffix.startswith(".json")
                )
                path = written or consensus_file.write(out_dir, outcome.results, final)
                outcome.written.insert(at, path)
            if config.history is not None and not dry_run:
                save_history(report, config.history.dir, config.history.keep)
        except OSError as exc:
            raise _unwritable(out_dir, exc) from None
    return outcome
