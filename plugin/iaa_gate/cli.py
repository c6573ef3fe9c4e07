"""Command line: ``iaa-gate run``, ``validate-config``, ``schema``, ``init`` and ``plan``."""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypedDict

from .core.errors import ConfigError, IaaGateError, InputError, OutputError, UsageError
from .core.files import write_atomic
from .core.version import __version__

if TYPE_CHECKING:
    from .config import Config
    from .evaluation.document import AlphaSampling, IntervalWidth
    from .evaluation.results import AnnotatorTruth
    from .evaluation.sections import FieldTrend
    from .pipeline import Outcome

SYMBOL = {"pass": "✓ pass", "warn": "! warn", "fail": "✗ FAIL"}


class ExitCode(IntEnum):
    """Process exit codes; scripts and CI rely on them.

    - ``OK`` (0): the gate passed (warnings allowed unless ``--fail-on-warn``).
    - ``GATE_FAILED`` (1): a threshold failed (or warned, with ``--fail-on-warn``).
    - ``ERROR`` (2): the run could not be done: bad config, unreadable or malformed input,
      unknown field, unreachable server.
    - ``WRITEBACK_FAILED`` (3): the gate passed, but write-back could not write everything (a
      re-run completes it). A failed gate exits 1 even then.
    """

    OK = 0
    GATE_FAILED = 1
    ERROR = 2
    WRITEBACK_FAILED = 3


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="iaa-gate",
        description="Inter-annotator agreement as a quality gate for a labeling round.",
        epilog="Exit codes: 0 passed (warnings allowed), 1 the gate failed, 2 the run could not "
        "be done, 3 the gate passed but write-back was incomplete.",
    )
    p.add_argument("--version", action="version", version=f"iaa-gate {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="compute agreement, gate it, write the reports")
    run.add_argument("--config", "-c", type=Path, required=True, help="YAML config file")
    run.add_argument("--source", type=Path, help="override source.path (export or JSONL file)")
    run.add_argument("--out", type=Path, help="override report.dir")
    run.add_argument(
        "--format",
        action="append",
        choices=["json", "markdown", "html", "junit"],
        help="report format (repeatable); overrides report.formats",
    )
    run.add_argument(
        "--compare",
        type=Path,
        metavar="REPORT",
        help="a previous report.json: show the change since then, apply max_drop",
    )
    run.add_argument(
        "--json", action="store_true", help="print a machine-readable summary on stdout"
    )
    run.add_argument("--fail-on-warn", action="store_true", help="exit 1 on warnings too")
    run.add_argument(
        "--skip-invalid",
        action="store_true",
        help="skip and count malformed tasks/lines instead of stopping",
    )
    run.add_argument(
        "--from",
        dest="from_",
        type=date.fromisoformat,
        metavar="DATE",
        help="round: annotations created or updated on or after DATE",
    )
    run.add_argument(
        "--to",
        type=date.fromisoformat,
        metavar="DATE",
        help="round: annotations created or updated on or before DATE",
    )
    run.add_argument("--tasks", metavar="IDS", help='round: task ids, e.g. "1-100,205"')
    run.add_argument("--dry-run", action="store_true", help="write-back: show, do not write")
    run.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress bar or time estimate (the summary is still printed)",
    )
    run.add_argument("--debug", action="store_true", help="show tracebacks")

    val = sub.add_parser("validate-config", help="check a config, listing every error")
    val.add_argument("config", type=Path)
    val.add_argument("--debug", action="store_true", help="show tracebacks")

    schema = sub.add_parser("schema", help="print the config's JSON Schema")
    schema.add_argument(
        "--report", action="store_true", help="print report.json's JSON Schema instead"
    )

    serve = sub.add_parser(
        "serve",
        help="live agreement for a Label Studio project, fed by its webhooks",
        description="Needs iaa-gate[serve] and a serve: section (the webhook secret).",
    )
    serve.add_argument("--config", "-c", type=Path, required=True, help="YAML config file")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    serve.add_argument(
        "--register", action="store_true", help="create or update the project's webhook"
    )
    serve.add_argument(
        "--unregister", action="store_true", help="remove the project's webhook and exit"
    )
    serve.add_argument("--debug", action="store_true", help="show tracebacks")

    init = sub.add_parser(
        "init",
        help="write a starting config from a project's labeling config",
        description="Live: --project ID --url URL (API key from $LABEL_STUDIO_API_KEY). "
        "Offline: --label-config FILE.xml [--export FILE.json].",
    )
    init.add_argument("--project", help="live project id or title")
    init.add_argument("--url", help="Label Studio URL, e.g. http://localhost:8080")
    init.add_argument(
        "--api-key-env",
        default="LABEL_STUDIO_API_KEY",
        metavar="NAME",
        help="environment variable holding the API key (default LABEL_STUDIO_API_KEY)",
    )
    init.add_argument("--label-config", type=Path, metavar="FILE.xml", help="offline: the XML")
    init.add_argument("--export", type=Path, metavar="FILE.json", help="offline: the export")
    init.add_argument("--out", "-o", default="iaa-gate.yaml", help="where to write ('-': stdout)")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.add_argument("--debug", action="store_true", help="show tracebacks")
    _plan_parser(sub)
    return p


PLAN_HELP = """\
How many tasks to double-annotate, before a round or from a pilot. Give one of:

  --alpha-min A [--significance P] --categories K | --smallest-share S [--coders C]
      Krippendorff's minimum number of values (Krippendorff 2019, Content Analysis, 4th ed.,
      from Bloch & Kraemer 1989, eq. 3.7):
        N = C z² ((1 + A)(3 − A) / (4 (1 − A) S (1 − S)) − A)
      z the one-tailed normal quantile at 1 − P, S the share of the least likely value
      (1/K when all are equally likely). Two coders, 4 values, A .800, P .05: 139.
  --kappa K --kappa-lower L [--kappa-upper U] --prevalence Q [--raters R]
      a binary field's kappa interval (R's kappaSize CIBinary: Donner & Rotondi 2010).
  --kappa K --kappa-null K0 [--power 0.8] --prevalence Q [--raters R]
      a power goal (kappaSize PowerBinary: Donner & Eliasziw 1992; with two raters also
      irr's N.cohen.kappa: Cantor 1996, one-sided).
  --width W --alpha A --categories K [--annotators M] [--level L]
      the tasks whose 95% alpha interval is at most W wide, by seeded simulation.
  --config round.yaml --width W
      the same per field, from the round so far (its values, alpha, annotators per task).

--prodigy [--total N] adds Prodigy's annotations_per_task setting. docs/planning.md explains
each method."""


def _plan_parser(sub: Any) -> None:
    plan = sub.add_parser(
        "plan",
        help="how many tasks to double-annotate (before a round, or from a pilot)",
        description=PLAN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    plan.add_argument("--config", "-c", type=Path, help="a round's config: plan from its data")
    plan.add_argument("--alpha-min", type=float, help="the smallest acceptable alpha")
    plan.add_argument("--significance", type=float, default=0.05, help="default 0.05")
    plan.add_argument("--categories", type=int, help="how many values the field has")
    plan.add_argument(
        "--smallest-share", type=float, help="share of the least likely value (default 1/K)"
    )
    plan.add_argument("--coders", type=int, default=2, help="coders per task (default 2)")
    plan.add_argument("--kappa", type=float, help="the anticipated kappa (binary field)")
    plan.add_argument("--kappa-lower", type=float, help="the lower interval limit to expect")
    plan.add_argument("--kappa-upper", type=float, help="the upper limit (two-sided interval)")
    plan.add_argument("--kappa-null", type=float, help="the kappa to tell it from (power goal)")
    plan.add_argument("--power", type=float, default=0.8, help="default 0.8")
    plan.add_argument("--prevalence", type=float, help="the share of yes answers")
    plan.add_argument("--raters", type=int, default=2, help="raters per task (default 2)")
    plan.add_argument("--width", type=float, help="the widest 95%% alpha interval wanted")
    plan.add_argument("--alpha", type=float, help="the alpha to expect")
    plan.add_argument("--annotators", type=int, default=2, help="annotators per task (default 2)")
    plan.add_argument(
        "--level",
        default="nominal",
        choices=["nominal", "ordinal", "interval", "ratio"],
        help="level of measurement of the values 1…K (default nominal)",
    )
    plan.add_argument(
        "--assurance", type=float, default=0.9, help="share of rounds that must meet --width"
    )
    plan.add_argument("--rounds", type=int, default=2000, help="simulated rounds (default 2000)")
    plan.add_argument("--seed", type=int, default=0, help="the simulation's seed (default 0)")
    plan.add_argument("--prodigy", action="store_true", help="print Prodigy's setting too")
    plan.add_argument("--total", type=int, help="examples in the whole Prodigy stream")
    plan.add_argument(
        "--quiet", "-q", action="store_true", help="no time estimate or progress bar on stderr"
    )
    plan.add_argument("--debug", action="store_true", help="show tracebacks")


def _plan(args: argparse.Namespace) -> list[str]:
    """``iaa-gate plan``: the lines to print, by the method the arguments ask for."""
    from . import metrics

    try:
        if args.config is not None:
            if args.width is None:
                raise UsageError("plan --config needs --width (the widest 95% interval wanted)")
            return _plan_round(args)
        if args.alpha_min is not None:
            share = _smallest_share(args)
            n = metrics.krippendorff_sample_size(
                args.alpha_min, share, significance=args.significance, coders=args.coders
            )
            tasks = math.ceil(n / args.coders)  # each value is one coder's answer to a task
            return [
                f"{n:,} values ({tasks:,} tasks with {args.coders} coders each): Krippendorff's "
                f"minimum for alpha ≥ {args.alpha_min:.3f} at p = {args.significance:g} "
                f"(one-tailed), least likely value's share {share:.3f} (Krippendorff 2019, "
                "from Bloch & Kraemer 1989, eq. 3.7)",
                *_prodigy(args, tasks, args.coders),
            ]
        if args.kappa is not None:
            return _plan_kappa(args)
        if args.width is not None:
            return _plan_width(args)
    except ValueError as exc:  # an argument out of its range, said by the formula
        raise UsageError(f"plan: {exc}") from None
    raise UsageError(
        "plan needs --alpha-min, --kappa, --width with --alpha, or --config with --width",
        hint="iaa-gate plan --help lists each method",
    )


def _smallest_share(args: argparse.Namespace) -> float:
    if args.smallest_share is not None:
        return float(args.smallest_share)
    if args.categories is None or args.categories < 2:
        raise UsageError("plan needs --categories K (at least 2) or --smallest-share S")
    return 1.0 / int(args.categories)


def _plan_kappa(args: argparse.Namespace) -> list[str]:
    from . import metrics

    if args.prevalence is None:
        raise UsageError("plan --kappa needs --prevalence (the share of yes answers)")
    q, r, p = args.prevalence, args.raters, args.significance
    if args.kappa_lower is not None:
        n = metrics.kappa_ci_sample_size(
            args.kappa, args.kappa_lower, args.kappa_upper, prevalence=q, raters=r, significance=p
        )
        upper = "" if args.kappa_upper is None else f" and at most {args.kappa_upper:g}"
        sided = "one-sided" if args.kappa_upper is None else "two-sided"
        return [
            f"{n:,} tasks: kappa {args.kappa:g} with its {sided} {1 - p:.0%} interval at least "
            f"{args.kappa_lower:g}{upper}, {r} raters, prevalence {q:g} (kappaSize CIBinary; "
            "Donner & Rotondi 2010)",
            *_prodigy(args, n, r),
        ]
    if args.kappa_null is None:
        raise UsageError("plan --kappa needs --kappa-lower (an interval) or --kappa-null (power)")
    n = metrics.kappa_power_sample_size(
        args.kappa, args.kappa_null, prevalence=q, raters=r, significance=p, power=args.power
    )
    lines = [
        f"{n:,} tasks: to tell kappa {args.kappa:g} from {args.kappa_null:g} at p = {p:g} with "
        f"power {args.power:g}, {r} raters, prevalence {q:g} (kappaSize PowerBinary; Donner & "
        "Eliasziw 1992)"
    ]
    if r == 2:
        cantor = metrics.cohen_kappa_sample_size(
            q, q, args.kappa, args.kappa_null, significance=p, power=args.power
        )
        lines.append(
            f"{cantor:,} tasks: the same as a one-sided test of Cohen's kappa (irr "
            "N.cohen.kappa; Cantor 1996)"
        )
        n = max(n, cantor)
    return lines + _prodigy(args, n, r)


def _plan_width(args: argparse.Namespace) -> list[str]:
    from . import metrics

    if args.alpha is None:
        raise UsageError("plan --width needs --alpha (the alpha to expect) and --categories")
    share = _smallest_share(args)
    k = args.categories or round(1 / share)
    shares = [1.0 / k] * k
    plan = metrics.width_sample_size(
        args.width,
        metrics.settled(args.alpha, shares, args.annotators),
        level=args.level,
        values=list(range(1, k + 1)),
        simulation=_simulation(args),
    )
    return [
        f"about {plan.n_units:,} tasks with {args.annotators} annotators each give alpha's 95% "
        f"interval ≤ {args.width:g} wide (in {math.floor(plan.share * 100)}% of "
        f"{args.rounds:,} simulated rounds at alpha {args.alpha:g}, {k} equally likely "
        f"{args.level} values; seed {args.seed})",
        *_prodigy(args, plan.n_units, args.annotators),
    ]


def _simulation(args: argparse.Namespace) -> Any:
    from .metrics import Simulation

    return Simulation(assurance=args.assurance, rounds=args.rounds, seed=args.seed)


def _plan_round(args: argparse.Namespace) -> list[str]:
    from .config import load_config
    from .pipeline import plan

    config = load_config(args.config)
    plans = plan(config, args.width, _simulation(args))
    lines = [p.line() for p in plans]
    planned = [p for p in plans if p.plan is not None]
    if planned and (config.source.type == "prodigy" or args.prodigy):
        args.prodigy = True
        most = max(planned, key=lambda p: p.more)
        lines += _prodigy(args, most.more, max(2, round(most.annotators)), more=True)
    return lines


def _prodigy(args: argparse.Namespace, n: int, m: int, *, more: bool = False) -> list[str]:
    """Prodigy's ``annotations_per_task`` for ``n`` (more) examples seen by ``m`` annotators."""
    if not args.prodigy:
        return []
    what = f"{n:,} more examples" if more else f"{n:,} examples"
    if args.total and m == 2 and n < args.total:
        # the router gives every example int(x) annotators and one more with probability x % 1
        x = math.ceil((1 + n / args.total) * 100) / 100
        return [
            f'Prodigy: "annotations_per_task": {x:g} in prodigy.json: of {args.total:,} '
            f"examples, about {x - 1:.0%} get a second annotator (Prodigy's router draws them "
            f"by task hash), {what} on average"
        ]
    return [
        f'Prodigy: "annotations_per_task": {m} in prodigy.json for {what} (a stream of their '
        'own), then "annotations_per_task": 1 for the rest'
    ]


def _serve(args: argparse.Namespace, config: Config) -> int:
    """``iaa-gate serve``: imported only for this command (Starlette, uvicorn)."""
    import logging

    try:
        from .serve.main import remove, serve
    except ImportError as exc:
        raise UsageError(
            f"iaa-gate serve needs its extra ({exc.name} is missing)",
            hint="pip install 'iaa-gate[serve]'",
        ) from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request to Label Studio
    if args.debug:
        logging.getLogger("iaa_gate.serve").setLevel(logging.DEBUG)
    if args.unregister:
        n = remove(config, host=args.host, port=args.port)
        print(f"removed {n} webhook(s)")
        return ExitCode.OK
    serve(config, host=args.host, port=args.port, register_hook=args.register)
    return ExitCode.OK


def _init(args: argparse.Namespace) -> int:
    """``iaa-gate init``: a starting YAML config from a labeling config (live or a file)."""
    from .adapters.label_studio.label_config import (
        StartingThresholds,
        parse_label_config,
        starting_config,
    )

    if args.project is not None:
        if not args.url:
            raise UsageError("init --project needs --url (the Label Studio base URL)")
        from .adapters.label_studio.config import base_url

        base = base_url(args.url)
        if base is not None:
            raise UsageError(
                f"--url {args.url} is a page of the Label Studio app, not its base URL",
                hint=f"use --url {base}",
            )
        key = os.environ.get(args.api_key_env)
        if not key:
            raise UsageError(
                f"init --project: the environment variable {args.api_key_env} is not set",
                hint="export it with your API key, or name another with --api-key-env NAME",
            )
        from pydantic import SecretStr

        from .adapters.label_studio.project import LabelStudioProject

        project = int(args.project) if args.project.isdigit() else args.project
        ls = LabelStudioProject(args.url.rstrip("/"), SecretStr(key), project)
        pid = ls.resolve()
        origin = f"project {pid} ({ls.title}) on {ls.url}"
        xml = ls.label_config
        source: dict[str, str | int] = {"type": "label-studio", "url": ls.url, "project": pid}
        source["api_key"] = "${" + args.api_key_env + "}"
    elif args.label_config is not None:
        origin = str(args.label_config)
        try:
            xml = args.label_config.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(origin, [f"cannot read ({exc.strerror})"]) from None
        export = args.export if args.export is not None else Path("export.json")
        source = {
            "type": "label-studio-export",
            "path": _from_config(export, args.out),
            "label_config": _from_config(args.label_config, args.out),
        }
    else:
        raise UsageError("init needs --project ID --url URL, or --label-config FILE.xml")
    from .config import Thresholds

    defaults = Thresholds()
    thresholds: StartingThresholds = {
        "alpha": {"fail": defaults.alpha.fail, "warn": defaults.alpha.warn},
        "disputed_below": defaults.disputed_below,
    }
    controls = parse_label_config(xml, origin)
    from .core.extras import missing

    html = not missing("html")  # a report format the run could not write is left out
    text = starting_config(controls, source, origin=origin, thresholds=thresholds, html=html)
    _check_extras(text, {c.name: c.kind for c in controls})
    if args.out == "-":
        sys.stdout.write(text)
        return ExitCode.OK
    out = Path(args.out)
    if out.exists() and not args.force:
        raise OutputError(f"{out} exists", hint="pass --force to overwrite, or --out FILE")
    write_atomic(out, text)
    print(f"wrote {out} from {origin}; next: iaa-gate validate-config {out}", file=sys.stderr)
    return ExitCode.OK


def _check_extras(text: str, kinds: dict[str, str]) -> None:
    """Every extra the fields of the starting config ``text`` need is installed (else the run it
    prepares would end with exit code 2: so does ``init``, with the line that installs it)."""
    import yaml

    from .core.extras import require
    from .kinds import extras_of

    for name, entry in (yaml.safe_load(text).get("fields") or {}).items():
        for extra in extras_of(kinds[name], (entry or {}).get("distance")):
            require(extra, f"field {name!r} ({kinds[name]})")


def _from_config(path: Path, out: str) -> str:
    """``path`` as the config written to ``out`` should name it: relative to the config file's
    directory (absolute when the config goes to stdout), so it works from any directory."""
    if out == "-":
        return str(path.resolve())
    return os.path.relpath(path.resolve(), Path(out).resolve().parent)


def _override(config: Config, args: argparse.Namespace) -> Config:
    data = config.model_dump(by_alias=True, exclude_unset=True)
    data["source"] = config.source.model_dump(by_alias=True)
    if args.source is not None:
        if "path" not in data["source"]:
            raise UsageError("--source only applies to file sources (label-studio-export, prodigy)")
        data["source"]["path"] = args.source
    if args.skip_invalid:
        data["source"]["skip_invalid"] = True
    report = data.setdefault("report", {})
    if args.out is not None:
        report["dir"] = args.out
    if args.format:
        report["formats"] = args.format
    rnd = data.setdefault("round", {})
    if args.from_:
        rnd["from"] = args.from_
    if args.to:
        rnd["to"] = args.to
    if args.tasks:
        rnd["task_ids"] = [t.strip() for t in args.tasks.split(",") if t.strip()]
    from .config import parse_config

    return parse_config(data, "command line")


def _summary(outcome: Outcome, out: TextIO) -> None:
    from .model import annotator
    from .sinks.report.format import (
        alt_test_line,
        alt_test_trend,
        alt_test_versions,
        burn_down,
        disputes_line,
        model_note,
        model_rows,
        writeback_lines,
    )

    report = outcome.report
    inp, source = report.input, report.source
    src = source.get("path") or f"{source['url']} project {source['project']}"
    print(
        f"iaa-gate {SYMBOL[report.verdict]}  {src}: {inp.tasks} tasks, {inp.annotators} annotators",
        file=out,
    )
    width = max(len(n) for n in report.fields)
    for name, f in report.fields.items():
        alpha = "undefined" if f.alpha is None else f"{f.alpha:.3f}"
        ci = f.coefficients.get("alpha")
        if ci is not None and ci.lower is not None and ci.upper is not None:
            alpha += f" [{ci.lower:.3f}, {ci.upper:.3f}]"
        if f.alpha_sampling:  # never a silent approximation: named on the line
            se = f.alpha_sampling.standard_error
            alpha += " sampled" + ("" if se is None else f" ±{se:.2g} SE")
        print(f"  {name:<{width}}  alpha {alpha:<24} {SYMBOL[f.verdict]}", file=out)
        if f.small_sample:
            print(f"  {'':<{width}}    {f.small_sample}", file=out)
        for c in f.checks:
            if c.verdict != "pass":
                print(f"  {'':<{width}}    {c.verdict}: {c.message}", file=out)
        low = f.lowest_category
        bits = [f"{f.n_disputed} disputed of {f.n_disputed + f.n_agreed} tasks"]
        if f.regions:
            f1 = f.regions.f1
            bits.insert(0, "F1 " + ("undefined" if f1 is None else f"{f1:.3f}"))
        if low and not math.isnan(low.rate):
            at = 1 if f.regions else 0
            bits.insert(at, f"lowest category {low.label} {low.rate:.3f}")
        offsets = [(a.name, a.mean_offset) for a in f.annotators if a.mean_offset is not None]
        if offsets:
            top = max(offsets, key=lambda a: abs(a[1]))
            bits.append(f"largest mean offset {annotator(top[0])} {top[1]:+.2f}")
        skill = (
            [(a.name, a.accuracy) for a in f.skill.annotators if a.accuracy is not None]
            if (f.skill)
            else []
        )
        if skill:
            low_skill = min(skill, key=lambda a: a[1])
            bits.append(
                f"lowest accuracy (Dawid–Skene) {annotator(low_skill[0])} {low_skill[1]:.3f}"
            )
        print(f"  {'':<{width}}    " + " · ".join(bits), file=out)
        gt = f.ground_truth
        if gt and gt.annotators:
            low_gt = _lowest_truth(gt.annotators)
            print(
                f"  {'':<{width}}    ground truth ({gt.n_tasks} gold tasks): lowest "
                f"{annotator(low_gt.name)} {fmt_agreement(low_gt.agreement)} "
                f"over {low_gt.n_tasks} tasks",
                file=out,
            )
        states = disputes_line(f.disputes)
        if states is not None:
            print(f"  {'':<{width}}    {states}", file=out)
        trend = report.trend.fields.get(name) if report.trend else None
        if trend:
            print(f"  {'':<{width}}    {trend_line(trend)}", file=out)
            opened = burn_down(trend.series)
            if opened is not None:
                print(f"  {'':<{width}}    open disputes by run: {opened}", file=out)
    if report.not_evaluated:
        print(f"  not evaluated: {', '.join(report.not_evaluated)}", file=out)
    for row in model_rows(report.models):
        print(
            f"  model {row[1]} vs the consensus on {row[0]}: {row[3]} over {row[2]} tasks "
            f"(annotators {row[4]})",
            file=out,
        )
    note = model_note(report.models)
    if note:
        print(f"  models not evaluated: {note}", file=out)
    for name, v in alt_test_versions(report.alt_test):
        print(f"  {alt_test_line(name, v)}", file=out)
    if report.trend:
        prev = report.trend.previous
        print(f"  compared with {prev.path} ({prev.generated_at})", file=out)
        for note in report.trend.notes:
            print(f"    note: {note}", file=out)
        for line in alt_test_trend(report.trend):
            print(f"    {line}", file=out)
    wb = report.writeback
    if wb:
        for line in writeback_lines(wb):
            print(f"  {line}", file=out)
    if report.next_steps is not None:
        print("  next steps:", file=out)
        for line in report.next_steps.lines():
            print(f"    {line}", file=out)
    if outcome.written:
        print("  report: " + ", ".join(str(p) for p in outcome.written), file=out)


def _lowest_truth(annotators: list[AnnotatorTruth]) -> AnnotatorTruth:
    """The annotator with the lowest agreement with ground truth (an undefined one first, as
    the gate's check takes it)."""
    return min(annotators, key=lambda a: (a.agreement is not None, a.agreement or 0.0))


def fmt_agreement(x: float | None) -> str:
    return "undefined" if x is None else f"{x:.3f}"


def trend_line(t: FieldTrend) -> str:
    """One field's change since the previous round in a line: alpha, then the largest fall of a
    label's and of an annotator's agreement."""
    if not t.comparable or not t.alpha:
        return f"since the previous round: {t.note}"
    a = t.alpha
    bits = [f"alpha {a.change:+.3f}" if a.change is not None else f"alpha: {a.note}"]
    labels = {k: (k, c) for k, c in (t.categories or {}).items()}
    people = {k: (v.name, v.pair_agreement) for k, v in (t.annotators or {}).items()}
    for what, table in (("label", labels), ("annotator", people)):
        moved = {k: r.change for k, (_, r) in table.items() if r.change is not None}
        k = min(moved, key=lambda k: moved[k], default=None)
        if k is not None and moved[k] < 0:
            bits.append(f"largest fall: {what} {table[k][0]} {moved[k]:+.3f}")
    return "since the previous round: " + " · ".join(bits)


class CheckLine(TypedDict):
    """A check of a field that did not pass, in ``--json``."""

    check: str
    verdict: str
    message: str


class FieldLine(TypedDict):
    """A field in ``--json``: its alpha (how it was sampled, its interval's width), verdict,
    disputed tasks, change since the previous round, the annotator lowest against ground
    truth, and the checks that did not pass."""

    alpha: float | None
    alpha_sampling: AlphaSampling | None
    interval_width: IntervalWidth | None
    verdict: str
    n_disputed: int
    alpha_change: float | None
    ground_truth_lowest: AnnotatorTruth | None
    problems: list[CheckLine]


class JsonSummary(TypedDict):
    """``--json``'s answer (encoded with msgspec: its Structs become objects)."""

    verdict: str
    exit_code: int
    fields: dict[str, FieldLine]
    not_evaluated: list[str]
    previous: str | None
    reports: list[str]


def json_summary(outcome: Outcome, code: int) -> JsonSummary:
    """``--json``: the verdict, the exit code, each field's alpha (with its interval width),
    verdict, failed checks and change since the previous round, and the files written."""
    report = outcome.report
    trend = report.trend
    fields: dict[str, FieldLine] = {}
    for name, f in report.fields.items():
        t = trend.fields.get(name) if trend else None
        gt = f.ground_truth.annotators if f.ground_truth else []
        fields[name] = {
            "alpha": f.alpha,
            "alpha_sampling": f.alpha_sampling,
            "interval_width": f.interval_width,
            "verdict": f.verdict,
            "n_disputed": f.n_disputed,
            "alpha_change": t.alpha.change if t and t.alpha else None,
            "ground_truth_lowest": _lowest_truth(gt) if gt else None,
            "problems": [
                {"check": c.name, "verdict": c.verdict, "message": c.message}
                for c in f.checks
                if c.verdict != "pass"
            ],
        }
    return {
        "verdict": report.verdict,
        "exit_code": int(code),
        "fields": fields,
        "not_evaluated": sorted(report.not_evaluated),
        "previous": trend.previous.path if trend else None,
        "reports": [str(p) for p in outcome.written],
    }


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector off for one run, as it was afterwards.

    A run builds millions of objects for a large round (the dataset, a result per task) and
    almost no cycles, all of which live to its end: the collector would rescan them again and
    again (it tripled the HTML report's time on 50,000 span tasks and took a third of the
    analysis of 10^6 tasks). This is the CLI's choice for its own process; the library never
    touches the collector.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's malloc.h
MALLOC_SETTINGS = ((M_MMAP_THRESHOLD, 1 << 30), (M_TOP_PAD, 128 << 20), (M_TRIM_THRESHOLD, 0))
"""glibc's ``mallopt`` settings for a run (see :func:`_keep_freed_memory`): blocks up to 1 GiB
from the heap, and 128 MiB kept free at its top; a trim threshold of 0 gives back whatever is
free above that."""


def _keep_freed_memory() -> bool:
    """Have glibc's malloc keep the memory a run frees, for the run's next arrays; True when
    it took every setting.

    A region run makes and frees hundreds of temporary arrays of megabytes. By default glibc
    maps each large block on its own and unmaps it when freed, and the next array faults in
    fresh zeroed pages: a third of a 100,000-text Prodigy run's CPU was the kernel's. From the
    heap, a freed block is reused as it is (page faults -13 to -20 % on the span, box and
    Prodigy rounds of issue 31, the parent's system time about halved). The heap keeps at most
    128 MiB free at its top (256 MiB raised the box round's peak RSS by 53 MiB; 128 MiB left
    every peak within 25 MiB). Linux and glibc only (musl's ``mallopt`` does nothing); a
    process-wide choice, so the console script's alone.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library to ask: the defaults stay
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all([mallopt(param, value) == 1 for param, value in MALLOC_SETTINGS])


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that set how many threads numpy's BLAS (OpenBLAS, MKL) computes with."""


def _one_blas_thread() -> None:
    """Have numpy's BLAS compute on the calling thread only, unless its thread count is set in
    the environment; before numpy is imported, which reads it once.

    A run's matrix products are small (coincidences V × V, annotator pairs A × A, Dawid–Skene's
    sums over answer patterns), where a second thread gains nothing: OpenBLAS wakes its
    threads for any dot product over 10,000 numbers, and they spin afterwards on the core the
    run's forked reader or writer needs; on a busy machine the caller waits for a thread that
    cannot run (Dawid–Skene on the 100,000-task export: 37–45 ms on one thread, 81–92 ms on
    two, this 2-core machine under load; the whole run -0.17 s CPU). A threaded sum also adds
    in an order that depends on the machine's cores; on one thread the figures do not. A
    process-wide choice, so the console script's alone.
    """
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: the process's arguments); returns the exit code."""
    return _main(_parser().parse_args(argv))


def entry() -> None:
    """The ``iaa-gate`` console script: :func:`main`, then, after ``run``, the process ends
    without freeing its heap object by object (a large round's objects took longer to free than
    to report; bench/README.md "2026-11-26" and "2026-11-27"): the run's outcome is kept until
    then, and the cyclic collector stays off to the end (turned back on, it would scan them
    once more), glibc's malloc keeps the memory the run frees (:func:`_keep_freed_memory`) and
    numpy's BLAS computes on one thread (:func:`_one_blas_thread`).
    The output is flushed first; the reports were written and closed by the run itself.
    Process-wide choices, so the CLI's alone."""
    args = _parser().parse_args()
    if args.command == "run":
        gc.disable()
        _keep_freed_memory()
        _one_blas_thread()
    kept: list[object] = []
    code = _main(args, kept)
    if args.command != "run":
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away: nothing left to say
        pass
    os._exit(code)


def _main(args: argparse.Namespace, kept: list[object] | None = None) -> int:
    """Run ``args``; a run's outcome is appended to ``kept``, if given, to outlive this call."""
    debug = getattr(args, "debug", False)
    from .config import json_schema, load_config, missing_files  # not for --help: pydantic

    try:
        if args.command == "schema":
            if args.report:
                from .evaluation.document import report_schema

                print(json.dumps(report_schema(), indent=2))
                return ExitCode.OK
            print(json.dumps(json_schema(), indent=2))
            return ExitCode.OK
        if args.command == "init":
            return _init(args)
        if args.command == "plan":
            from .core import progress

            # a simulated plan can take minutes: it says how long first, as a run's steps do
            listener = None if args.quiet else progress.Terminal(bars=sys.stderr.isatty())
            with progress.reporting(listener):
                lines = _plan(args)
            for line in lines:
                print(line)
            return ExitCode.OK
        if args.command == "validate-config":
            config = load_config(args.config)
            missing = missing_files(config)
            if missing:
                raise ConfigError(str(args.config), missing)
            print(f"{args.config}: OK ({len(config.fields)} field(s), source {config.source.type})")
            return ExitCode.OK
        if args.command == "serve":
            return _serve(args, load_config(args.config))
        from .pipeline import run

        config = _override(load_config(args.config), args)
        from .core import progress

        listener = None if args.quiet else progress.Terminal(bars=sys.stderr.isatty())
        with _no_cyclic_gc(), progress.reporting(listener):
            outcome = run(
                config,
                dry_run=args.dry_run,
                compare_to=args.compare,
                workers=2 if (os.cpu_count() or 1) > 1 else 1,
            )
        if kept is not None:
            kept.append(outcome)
        wb = outcome.report.writeback
        failed = outcome.verdict.value == "fail" or (
            args.fail_on_warn and outcome.verdict.value == "warn"
        )
        incomplete = wb is not None and not wb.complete
        code = ExitCode.GATE_FAILED if failed else ExitCode.OK
        code = ExitCode.WRITEBACK_FAILED if incomplete and not failed else code
        if args.json:
            import msgspec

            answer = msgspec.to_builtins(json_summary(outcome, code))
            print(json.dumps(answer, indent=2, sort_keys=True))
        else:  # --quiet silences the progress on stderr, never the verdict
            _summary(outcome, sys.stdout)
        for warning in wb.warnings if wb else []:
            print(f"iaa-gate: warning: {warning}", file=sys.stderr)
        return code
    except IaaGateError as exc:
        print(f"iaa-gate: error: {exc}", file=sys.stderr)
        if getattr(args, "json", False):
            error = {"verdict": "error", "exit_code": int(ExitCode.ERROR), "error": str(exc)}
            print(json.dumps(error, indent=2, sort_keys=True))
        if debug:
            traceback.print_exc()
        return ExitCode.ERROR
    except KeyboardInterrupt:
        print("iaa-gate: interrupted", file=sys.stderr)
        return ExitCode.ERROR
    except Exception as exc:  # a bug: say so plainly, keep the traceback for --debug
        print(
            f"iaa-gate: internal error: {type(exc).__name__}: {exc}\n"
            "  hint: rerun with --debug and report the traceback",
            file=sys.stderr,
        )
        if debug:
            traceback.print_exc()
        return ExitCode.ERROR


if __name__ == "__main__":
    entry()
