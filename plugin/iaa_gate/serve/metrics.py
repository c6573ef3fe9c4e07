"""What ``/metrics`` shows: the worker's counters, the event → flag lag, in Prometheus' text."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from ..pipeline import Outcome

LAG_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Upper bounds (seconds) of the event → flag lag histogram."""
RECENT = 1000
"""Lags kept for the p50/p95 of ``/metrics`` (the latest ones)."""


@dataclass
class Lags:
    """Seconds from a webhook's arrival to its task's flag written: a histogram over
    :data:`LAG_BUCKETS` and the :data:`RECENT` latest."""

    buckets: list[int] = field(default_factory=lambda: [0] * len(LAG_BUCKETS))
    total: float = 0.0
    count: int = 0
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT))
    pulls: set[float] = field(default_factory=set)
    """When each pull of the project began: a task a pull changed waited for no webhook."""

    def observe(self, when: float, since: float) -> None:
        """A task changed at ``since`` had its flag settled at ``when``: the lag, unless a pull
        (on start, or reconciling) changed it, which is no webhook's lag."""
        if since in self.pulls:
            return
        lag = max(0.0, when - since)
        self.recent.append(lag)
        for i, bound in enumerate(LAG_BUCKETS):
            if lag <= bound:
                self.buckets[i] += 1
        self.total += lag
        self.count += 1


@dataclass
class Counters:
    """Events by outcome, flags written, pulls; what is left to write (``to_write``, of which
    ``deferred`` wait for a later step only because a step writes a batch), whether the worker
    is ``busy``, whether its last turn left it ``idle`` (every write it decided done); and the
    ``lags``."""

    received: int = 0
    ignored: int = 0
    rejected: int = 0
    applied: int = 0
    flags_written: int = 0
    reconciles: int = 0
    to_write: int = 0
    busy: bool = False
    idle: bool = False
    deferred: int = 0
    lags: Lags = field(default_factory=Lags)


def finite(x: float | None) -> str:
    """A Prometheus sample value (NaN for undefined)."""
    return "NaN" if x is None or (isinstance(x, float) and math.isnan(x)) else repr(float(x))


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def prometheus(
    c: Counters,
    queued: int,
    pending: bool,
    outcome: Outcome | None,
    live: dict[str, tuple[float, int]] | None,
) -> str:
    """``/metrics`` in the Prometheus text format (never a secret): ``c``, the ``queued``
    events, whether a report is ``pending``, the last ``outcome`` and the running sums'
    ``(alpha, disputed)`` per field (``live``; None: off, the outcome's are shown)."""
    lines = [
        "# HELP iaa_gate_events_total Webhook requests by outcome.",
        "# TYPE iaa_gate_events_total counter",
        f'iaa_gate_events_total{{outcome="received"}} {c.received}',
        f'iaa_gate_events_total{{outcome="ignored"}} {c.ignored}',
        f'iaa_gate_events_total{{outcome="rejected"}} {c.rejected}',
        f'iaa_gate_events_total{{outcome="applied"}} {c.applied}',
        "# HELP iaa_gate_queue_length Events acknowledged, not yet applied.",
        "# TYPE iaa_gate_queue_length gauge",
        f"iaa_gate_queue_length {queued}",
        "# HELP iaa_gate_tasks_to_write Tasks changed whose flags are not written yet.",
        "# TYPE iaa_gate_tasks_to_write gauge",
        f"iaa_gate_tasks_to_write {c.to_write}",
        "# HELP iaa_gate_busy 1 while the worker applies events or writes flags.",
        "# TYPE iaa_gate_busy gauge",
        f"iaa_gate_busy {int(c.busy)}",
        "# HELP iaa_gate_idle 1 when no event is queued and every write decided is done.",
        "# TYPE iaa_gate_idle gauge",
        f"iaa_gate_idle {int(c.idle and not queued)}",
        "# HELP iaa_gate_report_pending 1 while the full report lags the state (debounced).",
        "# TYPE iaa_gate_report_pending gauge",
        f"iaa_gate_report_pending {int(pending)}",
        "# HELP iaa_gate_flags_written_total Tasks whose flags were written.",
        "# TYPE iaa_gate_flags_written_total counter",
        f"iaa_gate_flags_written_total {c.flags_written}",
        "# HELP iaa_gate_reconciles_total Pulls of the whole project.",
        "# TYPE iaa_gate_reconciles_total counter",
        f"iaa_gate_reconciles_total {c.reconciles}",
        "# HELP iaa_gate_flag_lag_seconds From a webhook's arrival to its task's flag written.",
        "# TYPE iaa_gate_flag_lag_seconds histogram",
    ]
    lags = c.lags
    lines += [
        f'iaa_gate_flag_lag_seconds_bucket{{le="{b}"}} {n}'
        for b, n in zip(LAG_BUCKETS, lags.buckets, strict=True)
    ]
    lines += [
        f'iaa_gate_flag_lag_seconds_bucket{{le="+Inf"}} {lags.count}',
        f"iaa_gate_flag_lag_seconds_sum {lags.total}",
        f"iaa_gate_flag_lag_seconds_count {lags.count}",
        f"# HELP iaa_gate_flag_lag_recent_seconds The last {RECENT} lags' quantiles.",
        "# TYPE iaa_gate_flag_lag_recent_seconds summary",
    ]
    recent = sorted(lags.recent)
    for q in (0.5, 0.95, 0.99):
        value = recent[min(len(recent) - 1, int(q * len(recent)))] if recent else math.nan
        lines.append(f'iaa_gate_flag_lag_recent_seconds{{quantile="{q}"}} {finite(value)}')
    if outcome is not None and live is None:
        live = {n: (r.alpha, len(outcome.disputed.get(n, ()))) for n, r in outcome.results.items()}
    if live is not None:
        lines += [
            "# HELP iaa_gate_alpha Krippendorff's alpha per field (NaN: undefined).",
            "# TYPE iaa_gate_alpha gauge",
        ]
        lines += [
            f'iaa_gate_alpha{{field="{_label(n)}"}} {finite(a)}'
            for n, (a, _) in sorted(live.items())
        ]
        lines += [
            "# HELP iaa_gate_disputed Disputed tasks per field.",
            "# TYPE iaa_gate_disputed gauge",
        ]
        lines += [
            f'iaa_gate_disputed{{field="{_label(n)}"}} {d}' for n, (_, d) in sorted(live.items())
        ]
    if outcome is not None:
        verdict = outcome.verdict.value
        lines += [
            "# HELP iaa_gate_verdict The gate's verdict (1 on the current one).",
            "# TYPE iaa_gate_verdict gauge",
        ]
        lines += [
            f'iaa_gate_verdict{{verdict="{v}"}} {int(v == verdict)}'
            for v in ("pass", "warn", "fail")
        ]
    return "\n".join(lines) + "\n"
