"""Earlier reports on disk: ``--compare PATH`` and the ``history:`` directory (one report per
run, named by its time so that names sort in run order)."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from ...core.errors import IaaGateError
from ...evaluation.document import Report
from ...evaluation.trend import Earlier, PreviousReport
from . import write_atomic
from .json import JsonWriter


def read_report(path: Path) -> PreviousReport:
    """A previous ``report.json`` of any schema version, decoded by msgspec into what the trend
    reads (:class:`~iaa_gate.evaluation.trend.Earlier`); a missing, unreadable or foreign file is
    an error naming it."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise IaaGateError(
            f"{path}: previous report not found", hint="pass the report.json of an earlier run"
        ) from None
    except OSError as exc:
        raise IaaGateError(f"{path}: cannot read the previous report ({exc.strerror})") from None
    try:
        doc = msgspec.json.decode(text, type=Earlier)
    except msgspec.ValidationError as exc:  # JSON, not a report (a DecodeError too: first)
        raise IaaGateError(
            f"{path}: not an iaa-gate report.json ({exc})",
            hint="pass the report.json that iaa-gate run wrote",
        ) from None
    except msgspec.DecodeError as exc:
        raise IaaGateError(f"{path}: the previous report is not valid JSON ({exc})") from None
    return PreviousReport(str(path), doc)


def read_history(directory: Path) -> tuple[list[PreviousReport], list[str]]:
    """The reports kept in ``directory``, oldest first, and a note for each file set aside."""
    reports, notes = [], []
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        try:
            reports.append(read_report(path))
        except IaaGateError as exc:
            notes.append(f"history: {exc.message} (set aside)")
    return reports, notes


def save_history(report: Report, directory: Path, keep: int | None) -> Path:
    """Keep ``report`` as ``<generated_at>.json`` in ``directory``; keep only the ``keep``
    newest."""
    stamp = re.sub(r"[^0-9A-Za-z]+", "-", report.generated_at).strip("-")
    path = directory / f"{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{stamp}~{n:03d}.json"  # sorts after the first of that second
    write_atomic(path, JsonWriter().render(report))
    if keep is not None:
        for old in sorted(directory.glob("*.json"))[:-keep]:
            old.unlink()
    return path
