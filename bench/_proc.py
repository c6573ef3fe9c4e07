"""Whole-process measurements shared by the benchmarks: wall time and peak RSS of a command."""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CLI = (  # what the ``iaa-gate`` console script runs (an older tree without cli.entry: main)
    "import sys; from iaa_gate import cli; sys.exit(cli.entry() if hasattr(cli, 'entry') "
    "else cli.main())"
)
"""``python -c CLI ARGS`` runs ``iaa-gate ARGS`` from whichever tree ``PYTHONPATH`` names."""


@dataclass(frozen=True)
class Proc:
    """Median wall time (s) and median peak RSS (MiB) of several runs of one command; ``cpu``:
    median user + system seconds, its forked children's included (what ``/usr/bin/time`` adds
    up), the figure a busy shared machine disturbs least."""

    wall: float
    rss: float
    walls: tuple[float, ...]
    cpu: float


def measure(cmd: Sequence[str], repeats: int, env: dict[str, str] | None = None) -> Proc:
    """Run ``cmd`` ``repeats`` times (output discarded; a non-zero exit other than the gate's 1
    raises). Peak RSS is ``ru_maxrss`` of the child, read with ``os.wait4``: the same figure as
    ``/usr/bin/time -v``'s "Maximum resident set size"."""
    walls, peaks, cpus = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        child = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        assert child.stderr is not None
        err = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        walls.append(time.perf_counter() - t0)
        code = os.waitstatus_to_exitcode(status)
        child.returncode = code
        if code not in (0, 1):
            raise RuntimeError(f"{' '.join(cmd)} exited {code}: {err.decode()[-2000:]}")
        peaks.append(usage.ru_maxrss / 1024)  # KiB on Linux
        cpus.append(usage.ru_utime + usage.ru_stime)  # with the children it waited for
    return Proc(
        statistics.median(walls), statistics.median(peaks), tuple(walls), statistics.median(cpus)
    )


def compiled(plugin: Path) -> None:
    """Write the bytecode of the package under ``plugin`` first, as installing a wheel does: a
    checkout run with ``PYTHONDONTWRITEBYTECODE`` set (as on the benchmark machine) would
    otherwise compile every module on every run (~0.08 s) and time that instead."""
    compileall.compile_dir(str(plugin), quiet=1)
