"""The live report: when it is due, what the endpoints read, the gate and its notification.

While the running sums are on, the full report (the whole state evaluated as a batch run
evaluates a pull) is debounced: it runs once no event came for :data:`REPORT_QUIET` seconds, at
least every :data:`REPORT_EVERY` seconds under a steady stream, and when ``/report.json`` or
``/`` asks for it (they wait on a condition variable until it is there). A verdict change is
logged and posted to ``serve.notify_url``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import TypedDict

from ..adapters.label_studio.project import LabelStudioProject
from ..config import Config
from ..core.errors import IaaGateError
from ..evaluation.gate import Verdict, worst
from ..evaluation.sections import Writeback
from ..model import Dataset
from ..pipeline import Outcome, evaluate
from .state import State

log = logging.getLogger("iaa_gate.serve")

REPORT_QUIET = 2.0
"""Seconds without an event after which the full report is brought up to date."""
REPORT_EVERY = 120.0
"""Most seconds a report lags the state under a steady stream of events."""


class Schedule:
    """When the report is due: the state's ``version`` (changes applied), the one
    ``reported``, when the last report ran (``at``) and the last event came (``arrived``),
    monotonic; a reader ``wanted`` one. Readers wait on ``cond`` for the worker's reports."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.version = 0
        self.reported = -1
        self.at = 0.0
        self.arrived = 0.0
        self.wanted = False
        self.ended = False  # the worker stopped: no report will come

    def heard(self) -> None:
        """An event was queued (the web app)."""
        with self.cond:
            self.arrived = time.monotonic()

    def applied(self) -> None:
        """Events changed the state (the worker)."""
        with self.cond:
            self.version += 1
            self.arrived = max(self.arrived, time.monotonic())

    @property
    def lags(self) -> bool:
        """Whether the report lags the state."""
        return self.reported != self.version

    def due(self, queued: int) -> bool:
        """Whether the report is due (``queued``: events waiting to be applied)."""
        if not self.lags:
            return False
        clock = time.monotonic()
        if self.wanted or clock - self.at >= REPORT_EVERY:
            return True
        return clock - self.arrived >= REPORT_QUIET and not queued

    def quiet_in(self) -> float:
        """Seconds until no event came for :data:`REPORT_QUIET` (at least 0.05)."""
        return max(0.05, self.arrived + REPORT_QUIET - time.monotonic())

    def begin(self) -> int:
        """A report starts: the version it evaluates."""
        with self.cond:
            self.wanted = False
            return self.version

    def done(self, version: int) -> None:
        """The report of ``version`` is there: the readers waiting wake."""
        with self.cond:
            self.reported, self.at = version, time.monotonic()
            self.cond.notify_all()

    def stepped(self) -> None:
        """A step ended (the running sums may be off now): the readers waiting look again."""
        with self.cond:
            self.cond.notify_all()

    def end(self) -> None:
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def wait(self, live: Callable[[], bool], wake: Callable[[], None], timeout: float) -> None:
        """Wait until the state as it is now is reported (while ``live()``: with the running
        sums off, every step is a report), asking the worker (``wake``) for it; at most
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            target = self.version
            while live() and self.reported < target and not self.ended:
                self.wanted = True
                wake()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self.cond.wait(remaining)


class Reporter:
    """Evaluates the state of ``project`` by ``config``, keeps what the endpoints read (the
    ``outcome``, or the ``problem`` that there is none, or the worker's ``error``), gates it
    and notifies ``notify_url``."""

    def __init__(self, config: Config, project: LabelStudioProject, notify_url: str | None):
        self.config = config
        self.project = project
        self.notify_url = notify_url
        self.schedule = Schedule()
        self.lock = threading.Lock()
        self.outcome: Outcome | None = None
        self.problem: str | None = None
        self.error: str | None = None

    def evaluate(self, dataset: Dataset) -> Outcome:
        """The report of ``dataset`` (the whole state), as a batch run makes it."""
        # a project named by its title gets its id in the report, as it is built
        return evaluate(self.config, dataset, project_id=self.project.project_id)

    def refused(self, exc: IaaGateError) -> None:
        """The state cannot be evaluated (no field answered yet, a malformed task): the
        service keeps running, and the report says why until an event mends it."""
        if self.problem != str(exc):
            log.warning("no report yet: %s", exc)
        with self.lock:
            self.outcome, self.problem = None, str(exc)

    def publish(self, outcome: Outcome, writeback: Writeback | None) -> None:
        """``outcome`` is the report the endpoints read, with what the write-back did (a new
        report that holds it: the flags are written after the report is made)."""
        outcome = outcome.with_writeback(writeback)
        with self.lock:
            self.outcome, self.problem = outcome, None

    def stopped(self, error: str) -> None:
        """The worker stopped by ``error``."""
        self.error = error
        self.schedule.end()

    def snapshot(self) -> Outcome | None:
        with self.lock:
            return self.outcome

    def missing(self) -> str:
        """Why there is no report."""
        return self.error or self.problem or "starting: the first pull is under way"

    def gate(self, state: State, outcome: Outcome) -> None:
        """Log a verdict change (and POST it to ``notify_url``)."""
        verdict = outcome.verdict.value
        verdicts: dict[str, list[Verdict]] = {}
        for check in outcome.checks:
            verdicts.setdefault(check.field, []).append(check.verdict)
        fields = {f: worst(v).value for f, v in verdicts.items()}
        was = state.get("verdict")
        if was == verdict:
            return
        state.put("verdict", verdict)
        if was is None:
            log.info("verdict: %s", verdict)
            return
        text = (
            f"iaa-gate: project {self.project.project_id}: "
            f"the verdict changed from {was} to {verdict}"
        )
        log.warning("%s (%s)", text, ", ".join(f"{f}: {v}" for f, v in sorted(fields.items())))
        if self.notify_url is not None:
            notify(
                self.notify_url, {"text": text, "verdict": verdict, "was": was, "fields": fields}
            )


class VerdictChange(TypedDict):
    """What ``serve.notify_url`` is posted when the verdict changes: the ``text`` a chat shows,
    the ``verdict`` and what it ``was``, and each field's verdict now."""

    text: str
    verdict: str
    was: str
    fields: dict[str, str]


def notify(url: str, payload: VerdictChange) -> None:
    """POST ``payload`` as JSON to ``url``; a failure is logged without the URL (a secret)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()
    except OSError as exc:
        log.warning("notify failed: %s", type(exc).__name__)
