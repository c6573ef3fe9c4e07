"""Progress of long steps, reported only to whoever asked.

Library code announces a step with :func:`step` (what, how many items, and, when it knows one,
an estimate of the time) and advances it; nothing is shown unless the caller installed a
:class:`Listener` with :func:`reporting` around the call (the CLI does: a tqdm bar on stderr,
off with ``--quiet``). The listener lives in a context variable set for the ``with`` block
only: no global state, and threads or tasks of other callers see none.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Step(Protocol):
    """One announced step: ``advance(n)`` items done; ``close()`` when it ends."""

    def advance(self, n: int) -> None: ...
    def close(self) -> None: ...


class Listener(Protocol):
    """Receives the steps: ``total`` items (``unit``: what an item is), ``estimate``: the
    expected time in seconds when the step knows it up front (None: it does not)."""

    def __call__(self, what: str, total: int, unit: str, estimate: float | None) -> Step: ...


class _Silent:
    def advance(self, n: int) -> None: ...
    def close(self) -> None: ...


_SILENT = _Silent()
_LISTENER: ContextVar[Listener | None] = ContextVar("iaa_gate_progress", default=None)


@contextmanager
def reporting(listener: Listener | None) -> Iterator[None]:
    """Send the steps announced inside the block to ``listener`` (None: to nobody)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def step(what: str, total: int, unit: str = "it", estimate: float | None = None) -> Step:
    """Announce a step of ``total`` items; a silent one when nobody listens."""
    listener = _LISTENER.get()
    return _SILENT if listener is None else listener(what, total, unit, estimate)


def counted(items: Iterable[T], done: Step, every: int = 4096) -> Iterator[T]:
    """``items``, advancing ``done`` every ``every`` items (and closing it at the end)."""
    n = 0
    try:
        for n, item in enumerate(items, 1):
            if not n % every:
                done.advance(every)
            yield item
        done.advance(n % every)
    finally:
        done.close()


SAMPLE = 256
"""Items of an even-cost loop timed before it announces the rest with an estimate."""


def clock() -> float:
    """Seconds on a monotonic clock (a module function, so tests can set the time)."""
    return time.perf_counter()


def estimated(
    what: str, items: list[T], unit: str = "it", sample: int | None = None
) -> Iterator[T]:
    """``items``, as a loop over them consumes them; to a listener, the loop's step is
    announced once the first ``sample`` are done, with the rest's estimate from their time
    (so a long loop says how long before it runs on, and a short one says nothing). A loop
    whose items take a while each (a simulated round) times fewer of them (``sample``;
    default :data:`SAMPLE`, read at the call so a test may set it)."""
    sample = SAMPLE if sample is None else sample
    if not listening() or len(items) <= sample:
        yield from items
        return
    start = clock()
    yield from items[:sample]
    rest = len(items) - sample
    per_item = (clock() - start) / sample
    yield from counted(items[sample:], step(what, rest, unit, per_item * rest), every=sample)


def listening() -> bool:
    """Whether someone listens (a step may then measure its speed to estimate its time)."""
    return _LISTENER.get() is not None


ESTIMATE_SAY = 5.0
"""Seconds from which a step's estimate is written out before it starts."""


class Terminal:
    """The CLI's listener: the estimate of a long step as a line on stderr, and (``bars``: on
    a terminal) a tqdm bar for every step that reports progress."""

    def __init__(self, bars: bool) -> None:
        self.bars = bars

    def __call__(self, what: str, total: int, unit: str, estimate: float | None) -> Step:
        if estimate is not None and estimate >= ESTIMATE_SAY:
            print(
                f"iaa-gate: {what}: {total:,} {unit}, about {_duration(estimate)}",
                file=sys.stderr,
                flush=True,
            )
        if not self.bars:
            return _SILENT
        from tqdm import tqdm

        bar: Any = tqdm(
            total=total, desc=what, unit=unit, unit_scale=True, file=sys.stderr, leave=False
        )
        return _Bar(bar)


class _Bar:
    def __init__(self, bar: Any) -> None:
        self.bar = bar

    def advance(self, n: int) -> None:
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()


def _duration(seconds: float) -> str:
    """``seconds`` in words: "40 s", "3 min", "2.5 h"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
