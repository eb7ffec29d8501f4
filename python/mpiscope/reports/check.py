"""The machine check: can this machine's clocks be trusted?

The bench's ``--check`` measures every timer (resolution, read cost,
monotonicity over millions of reads, invariant TSC and its frequency
against CLOCK_MONOTONIC_RAW, the wait patterns whose true time is known)
and every clock-sync algorithm (residual now and after a pause: drift),
then one point (a 1 MiB Bcast) in short runs spread over seconds: the
machine's states. This module judges them against :data:`TIMER_CRITERIA` and
:data:`SYNC_CRITERIA` - the one table of thresholds, repeated in
docs/cli.md - groups the short runs into modes (the rule of ``run
--runs``: :mod:`mpiscope.result.modes`) and renders the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.modes import MODES_RULE, format_modes, run_modes
from mpiscope.result.stats import RunStats, summarize_runs
from mpiscope.result.units import format_bytes, format_ns, format_number

__all__ = [
    "MAX_DRIFT_PPM",
    "MAX_FREQUENCY_ERROR_PPM",
    "MAX_NULL_READS",
    "MAX_RESOLUTION_NS",
    "MAX_SYNC_RESIDUAL_NS",
    "MAX_WAIT_ERROR",
    "SYNC_CRITERIA",
    "TIMER_CRITERIA",
    "Criterion",
    "Verdict",
    "check_lines",
    "states_verdict",
    "verdict_lines",
    "verdicts",
]

#: A timer must resolve 100 ns: the shortest operations take a few hundred.
MAX_RESOLUTION_NS = 100.0
#: |TSC frequency error| against CLOCK_MONOTONIC_RAW, ppm.
MAX_FREQUENCY_ERROR_PPM = 10.0
#: A wait pattern of known length n us must read within 5% of it.
MAX_WAIT_ERROR = 0.05
#: WaitPatternNull (true time 0) must read below 10 timer reads.
MAX_NULL_READS = 10.0
#: Clock sync: every rank's residual offset below 1 us ...
MAX_SYNC_RESIDUAL_NS = 1000.0
#: ... and drifting by less than 10 ppm (10 us per second).
MAX_DRIFT_PPM = 10.0


@dataclass(frozen=True)
class Criterion:
    """One rule: ``test`` returns why the subject fails it, or None."""

    name: str
    rule: str
    test: Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class Verdict:
    subject: str  # "tsc", "sync linear", "states"
    trusted: bool
    reasons: tuple[str, ...]
    detail: str = ""  # said after "trusted"

    @property
    def line(self) -> str:
        if self.trusted:
            return f"VERDICT {self.subject}: trusted" + (f": {self.detail}" if self.detail else "")
        return f"VERDICT {self.subject}: not trusted: {'; '.join(self.reasons)}"


def _available(t: Mapping[str, Any]) -> str | None:
    if t.get("available", True):
        return None
    why = t.get("why_unavailable")
    return f"not available ({why})" if why else "not available"


def _monotonic(t: Mapping[str, Any]) -> str | None:
    violations = t.get("monotonic_violations")
    if not violations:
        return None
    return f"{violations} monotonicity violations in {t.get('reads')} reads"


def _resolution(t: Mapping[str, Any]) -> str | None:
    resolution = t.get("resolution_ns")
    if resolution is None or resolution <= MAX_RESOLUTION_NS:
        return None
    return (
        f"{format_ns(resolution, 4)} resolution is coarser than the "
        f"{format_ns(MAX_RESOLUTION_NS)} needed"
    )


def _is_tsc(t: Mapping[str, Any]) -> bool:
    return t.get("name") == "tsc"


def _invariant(t: Mapping[str, Any]) -> str | None:
    return "the TSC is not invariant" if _is_tsc(t) and t.get("invariant") is False else None


def _frequency(t: Mapping[str, Any]) -> str | None:
    error = t.get("frequency_error_ppm")
    if not _is_tsc(t) or error is None or abs(error) <= MAX_FREQUENCY_ERROR_PPM:
        return None
    return (
        f"frequency off by {format_number(error, 3)} ppm "
        f"(more than {format_number(MAX_FREQUENCY_ERROR_PPM)})"
    )


def _wait_patterns(t: Mapping[str, Any]) -> str | None:
    problems = []
    for w in t.get("waitpatterns") or ():
        measured, expected = w.get("median_ns"), w.get("expected_ns")
        if measured is None:
            problems.append(f"{w['op']} gave no valid launch")
        elif expected and expected > 0:
            off = abs(measured - expected) / expected
            if off > MAX_WAIT_ERROR:
                problems.append(
                    f"{w['op']} read {format_ns(measured)}, {format_number(off * 100, 2)}% off "
                    f"the true {format_ns(expected)}"
                )
        else:
            limit = MAX_NULL_READS * (t.get("read_overhead_ns") or 0.0)
            if measured > limit:
                problems.append(
                    f"{w['op']} read {format_ns(measured)}, more than "
                    f"{format_number(MAX_NULL_READS)} timer reads ({format_ns(limit)})"
                )
    return "; ".join(problems) or None


def _residual(s: Mapping[str, Any]) -> str | None:
    residual = s.get("max_abs_residual_ns")
    if residual is None:
        return "no residual measured"
    if residual < MAX_SYNC_RESIDUAL_NS:
        return None
    return f"residual {format_ns(residual)} is not below {format_ns(MAX_SYNC_RESIDUAL_NS)}"


def _drift(s: Mapping[str, Any]) -> str | None:
    drift = s.get("drift_ppm")
    if drift is None or abs(drift) < MAX_DRIFT_PPM:
        return None
    return (
        f"drift {format_number(drift, 3)} ppm is not below {format_number(MAX_DRIFT_PPM)} ppm "
        f"(residual {format_ns(s.get('max_abs_residual_after_ns'))} after "
        f"{format_number(s.get('after_seconds') or 0)} s)"
    )


def _recovered(s: Mapping[str, Any]) -> str | None:
    if s.get("recovered", True):
        return None
    misses = f"offset missed by up to {format_ns(s.get('max_offset_miss_ns'))}"
    if s.get("max_drift_miss_ppm") is not None:
        misses += f", drift by {format_number(s['max_drift_miss_ppm'], 3)} ppm"
    return f"an estimate is outside its reported bound of the injected truth ({misses})"


#: What a timer must satisfy to be trusted (docs/cli.md, `mpiscope check`).
TIMER_CRITERIA: tuple[Criterion, ...] = (
    Criterion("available", "the timer can be read on this machine", _available),
    Criterion("monotonic", "0 monotonicity violations over all reads", _monotonic),
    Criterion("resolution", f"resolution <= {MAX_RESOLUTION_NS:g} ns", _resolution),
    Criterion("invariant", "tsc: the counter is invariant (constant rate)", _invariant),
    Criterion(
        "frequency",
        f"tsc: frequency within ±{MAX_FREQUENCY_ERROR_PPM:g} ppm of CLOCK_MONOTONIC_RAW's",
        _frequency,
    ),
    Criterion(
        "wait patterns",
        f"WaitPatternUp/Down within {MAX_WAIT_ERROR:.0%} of their true n us; WaitPatternNull "
        f"below {MAX_NULL_READS:g} read overheads",
        _wait_patterns,
    ),
)
#: What a clock-sync algorithm must satisfy to be trusted.
SYNC_CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "residual",
        f"every rank's residual offset below {MAX_SYNC_RESIDUAL_NS:g} ns right after syncing",
        _residual,
    ),
    Criterion("drift", f"drift below {MAX_DRIFT_PPM:g} ppm either way", _drift),
    Criterion(
        "recovered",
        "with --clock-transform: every rank's offset (and fitted drift) within its reported "
        "bound of the injected truth",
        _recovered,
    ),
)


def _judge(subject: str, item: Mapping[str, Any], criteria: Sequence[Criterion]) -> Verdict:
    reasons = [reason for c in criteria if (reason := c.test(item)) is not None]
    if not item.get("available", True):
        reasons = reasons[:1]  # nothing else was measured
    return Verdict(subject, not reasons, tuple(reasons))


def _states_runs(states: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in states.get("runs") or () if r.get("median_ns") is not None]


def states_verdict(states: Mapping[str, Any]) -> Verdict:
    """One state, or modes: the short runs' medians grouped as ``run --runs``
    groups runs (:data:`mpiscope.result.modes.MODES_RULE`)."""
    runs = _states_runs(states)
    what = (
        f"{len(runs)} short runs of a {format_bytes(states.get('size_bytes'))} "
        f"{states.get('op')} over {format_number(_span_seconds(runs), 3)} s"
    )
    if len(runs) < 2:
        got = len(states.get("runs") or ())
        return Verdict("states", False, (f"only {len(runs)} of {got} short runs measured",))
    stats = [RunStats(r["median_ns"], r.get("q25_ns"), r.get("q75_ns")) for r in runs]
    medians = [x.median_ns for x in stats]
    summary = summarize_runs(stats, 0.95, resamples=1000)
    modes = run_modes(medians, summary.group_members, summary.disagree_reasons)
    if modes:
        return Verdict("states", False, (
            f"the machine switches between states: {format_modes(modes, 'runs', format_ns)} "
            f"in {what}",))  # fmt: skip
    cv = summary.between_cv
    spread = "-" if cv is None else f"{format_number(cv * 100, 2)}%"
    return Verdict("states", True, (), f"one state, {format_ns(summary.median_ns)} "
                   f"(between-run CV {spread}) in {what}")  # fmt: skip


def _span_seconds(runs: Sequence[Mapping[str, Any]]) -> float:
    at = [float(r.get("at_ns") or 0.0) for r in runs]
    return (max(at) - min(at)) / 1e9 if at else 0.0


def verdicts(check: Mapping[str, Any]) -> list[Verdict]:
    """One verdict per timer, then one per sync algorithm, then the states'."""
    out = [_judge(str(t["name"]), t, TIMER_CRITERIA) for t in check.get("timers") or ()]
    out += [_judge(f"sync {s['algorithm']}", s, SYNC_CRITERIA) for s in check.get("sync") or ()]
    if check.get("states") is not None:
        out.append(states_verdict(check["states"]))
    return out


def verdict_lines(result: Result) -> list[str]:
    return [v.line for v in verdicts(result.data.get("check") or {})]


def _timer_lines(t: Mapping[str, Any]) -> list[str]:
    name = t["name"]
    if not t.get("available", True):
        return [f"timer {name}: not available ({t.get('why_unavailable') or 'no reason given'})"]
    facts = [
        f"resolution {format_ns(t.get('resolution_ns'))}",
        f"read overhead {format_ns(t.get('read_overhead_ns'))}",
        f"{t.get('monotonic_violations')} monotonicity violations in {t.get('reads')} reads",
    ]
    if _is_tsc(t) and t.get("invariant") is not None:
        facts.append("invariant" if t["invariant"] else "NOT invariant")
    if _is_tsc(t) and t.get("frequency_hz"):
        facts.append(f"{format_number(t['frequency_hz'] / 1e9, 5)} GHz")
    if _is_tsc(t) and t.get("frequency_error_ppm") is not None:
        facts.append(f"frequency error {format_number(t['frequency_error_ppm'], 3)} ppm")
    if name == "wtime" and t.get("wtime_is_global") is not None:
        facts.append(f"MPI_WTIME_IS_GLOBAL {'true' if t['wtime_is_global'] else 'false'}")
    lines = [f"timer {name}: " + ", ".join(facts)]
    waits = t.get("waitpatterns") or []
    if waits:
        cells = [
            [
                w["op"],
                format_ns(w.get("expected_ns")),
                format_ns(w.get("median_ns")),
                f"[{format_ns(w.get('ci_low_ns'))}, {format_ns(w.get('ci_high_ns'))}]",
                format_ns(w.get("span_median_ns")),
                format_ns(w.get("skew_median_ns")),
            ]
            for w in waits
        ]
        titles = ["wait pattern", "true", "median", "interval", "span med", "skew med"]
        lines += format_table(titles, "<>>>>>", cells, indent="  ")
    return lines


def _ppm(value: Any) -> str:
    return "-" if value is None else f"{format_number(value, 3)} ppm"


def _fitted(s: Mapping[str, Any]) -> str:
    """The largest drift the model fitted and the largest bound (none: offset only)."""
    if s.get("max_drift_error_ppm") is None:
        return "-"
    bound = format_number(s["max_drift_error_ppm"], 3)
    return f"{_ppm(s.get('max_abs_drift_fitted_ppm'))} ±{bound}"


def _truth(s: Mapping[str, Any]) -> str:
    """Against an injected transform: recovered or not, and the worst misses."""
    if "recovered" not in s:
        return "-"
    misses = format_ns(s.get("max_offset_miss_ns"))
    if s.get("max_drift_miss_ppm") is not None:
        misses += f", {_ppm(s['max_drift_miss_ppm'])}"
    return f"{'yes' if s['recovered'] else 'NO'} (miss {misses})"


def _sync_lines(syncs: Sequence[Mapping[str, Any]]) -> list[str]:
    cells = [
        [
            str(s["algorithm"]),
            format_ns(s.get("duration_ns")),
            "-" if s.get("exchanges") is None else format_number(s["exchanges"]),
            str(s.get("max_hops", "-")),
            format_ns(s.get("max_error_ns")),
            format_ns(s.get("max_abs_residual_ns")),
            f"{format_ns(s.get('max_abs_residual_after_ns'))} after "
            f"{format_number(s.get('after_seconds') or 0)} s",
            _ppm(s.get("drift_ppm")),
            _fitted(s),
            _truth(s),
        ]
        for s in syncs
    ]
    titles = ["clock sync", "sync time", "exchanges", "hops", "bound", "max |residual|", "later",
              "drift seen", "drift fitted", "injected truth recovered"]  # fmt: skip
    lines = format_table(titles, "<>>>>>>>><", cells)
    shared = [s for s in syncs if s.get("node_shared")]
    if shared:
        lines.append(
            f"(node leaders: the ranks of each of {shared[0].get('nodes')} nodes were "
            "verified to share one clock; only leaders synchronized)"
        )
    return lines


def _states_lines(states: Mapping[str, Any]) -> list[str]:
    runs = states.get("runs") or ()
    head = (
        f"states: a {format_bytes(states.get('size_bytes'))} {states.get('op')} "
        f"({states.get('method')}) in {len(runs)} short runs "
        f"{format_number(states.get('gap_seconds') or 0, 3)} s apart; each run's median "
        f"(start in s): "
    )
    shown = [
        f"{format_ns(r.get('median_ns'))} @{float(r.get('at_ns') or 0) / 1e9:.1f}"
        for r in runs
    ]
    return [head + ", ".join(shown), f"(modes: {MODES_RULE})"]


def check_lines(result: Result) -> list[str]:
    """The whole check: every timer, every sync algorithm, then the verdicts."""
    check = result.data.get("check") or {}
    lines = [
        "machine check: every timer and clock-sync algorithm of this machine "
        "(span: last end - first start; skew: latest - earliest start, global clock)",
        "",
    ]
    for timer in check.get("timers") or ():
        lines += _timer_lines(timer) + [""]
    if check.get("sync"):
        lines += _sync_lines(check["sync"]) + [""]
    if check.get("states") is not None:
        lines += _states_lines(check["states"]) + [""]
    lines += verdict_lines(result)
    return lines
