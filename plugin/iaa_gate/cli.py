"""Command line: ``iaa-gate run``, ``iaa-gate validate-config``, ``iaa-gate schema``."""

from __future__ import annotations

import argparse
import json
import math
import sys
import traceback
from collections.abc import Sequence
from datetime import date
from enum import IntEnum
from pathlib import Path
from typing import Any

from . import __version__
from .config import Config, json_schema, load_config
from .errors import IaaGateError

SYMBOL = {"pass": "✓ pass", "warn": "! warn", "fail": "✗ FAIL"}


class ExitCode(IntEnum):
    """Process exit codes; scripts and CI rely on them.

    - ``OK`` (0): the gate passed (warnings allowed unless ``--fail-on-warn``).
    - ``GATE_FAILED`` (1): a threshold failed (or warned, with ``--fail-on-warn``).
    - ``ERROR`` (2): the run could not be done: bad config, unreadable or malformed input,
      unknown field, unreachable server.
    """

    OK = 0
    GATE_FAILED = 1
    ERROR = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="iaa-gate",
        description="Inter-annotator agreement as a quality gate for a labeling round.",
        epilog="Exit codes: 0 passed (warnings allowed), 1 the gate failed, 2 the run could not "
        "be done.",
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
    run.add_argument("--quiet", "-q", action="store_true", help="no summary or progress bar")
    run.add_argument("--debug", action="store_true", help="show tracebacks")

    val = sub.add_parser("validate-config", help="check a config, listing every error")
    val.add_argument("config", type=Path)

    sub.add_parser("schema", help="print the config's JSON Schema")
    return p


def _override(config: Config, args: argparse.Namespace) -> Config:
    data = config.model_dump(by_alias=True, exclude_unset=True)
    data["source"] = config.source.model_dump(by_alias=True)
    if "api_key" in data["source"]:
        data["source"]["api_key"] = config.source.api_key.get_secret_value()  # type: ignore[union-attr]
    if args.source is not None:
        if "path" not in data["source"]:
            raise IaaGateError(
                "--source only applies to file sources (label-studio-export, prodigy)"
            )
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


def _summary(outcome: Any, out: Any) -> None:
    doc = outcome.document
    inp = doc["input"]
    src = doc["source"].get("path") or doc["source"].get("url")
    print(
        f"iaa-gate {SYMBOL[doc['verdict']]}  {src}: {inp['tasks']} tasks, "
        f"{inp['annotators']} annotators",
        file=out,
    )
    width = max(len(n) for n in doc["fields"])
    for name, f in doc["fields"].items():
        alpha = "undefined" if f["alpha"] is None else f"{f['alpha']:.3f}"
        ci = f["coefficients"].get("alpha", {})
        if ci.get("lower") is not None:
            alpha += f" [{ci['lower']:.3f}, {ci['upper']:.3f}]"
        print(f"  {name:<{width}}  alpha {alpha:<24} {SYMBOL[f['verdict']]}", file=out)
        for c in f["checks"]:
            if c["verdict"] != "pass":
                print(f"  {'':<{width}}    {c['verdict']}: {c['message']}", file=out)
        low = f["lowest_category"]
        bits = [f"{f['n_disputed']} disputed of {f['n_disputed'] + f['n_agreed']} tasks"]
        if low and low["rate"] is not None and not math.isnan(low["rate"]):
            bits.insert(0, f"lowest category {low['label']} {low['rate']:.3f}")
        print(f"  {'':<{width}}    " + " · ".join(bits), file=out)
    if doc["not_evaluated"]:
        print(f"  not evaluated: {', '.join(doc['not_evaluated'])}", file=out)
    wb = doc.get("writeback")
    if wb:
        print(
            "  write-back: "
            + ", ".join(f"{k} {v}" for k, v in wb.items() if not isinstance(v, (dict, list))),
            file=out,
        )
    if outcome.written:
        print("  report: " + ", ".join(str(p) for p in outcome.written), file=out)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    debug = getattr(args, "debug", False)
    try:
        if args.command == "schema":
            print(json.dumps(json_schema(), indent=2))
            return ExitCode.OK
        if args.command == "validate-config":
            config = load_config(args.config)
            print(f"{args.config}: OK ({len(config.fields)} field(s), source {config.source.type})")
            return ExitCode.OK
        from .run import run

        config = _override(load_config(args.config), args)
        outcome = run(config, dry_run=args.dry_run, progress=not args.quiet and sys.stderr.isatty())
        if not args.quiet:
            _summary(outcome, sys.stdout)
        failed = outcome.verdict.value == "fail" or (
            args.fail_on_warn and outcome.verdict.value == "warn"
        )
        return ExitCode.GATE_FAILED if failed else ExitCode.OK
    except IaaGateError as exc:
        print(f"iaa-gate: error: {exc}", file=sys.stderr)
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
    sys.exit(main())
