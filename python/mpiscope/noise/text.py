"""The noise detector's words for people: progress, run summaries, calibration tables."""

from __future__ import annotations

import sys
from typing import Any

from mpiscope.noise.paired import MIN_PAIRS
from mpiscope.result.center import mean, median

__all__ = ["PacketLine", "format_calibration", "format_injector", "format_run",
           "format_sequential"]

_STATE = {True: "agent on", False: "agent off"}


class PacketLine:
    """A progress line per packet (in place on a terminal)."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.quiet = total, quiet
        self.tty = sys.stderr.isatty()

    def __call__(self, packet: dict[str, Any]) -> None:
        if self.quiet:
            return
        state = f" {_STATE[packet['agent']]}" if packet.get("agent") in _STATE else ""
        text = f"[{packet['index'] + 1}/{self.total}] {packet['seconds']:.4f} s{state}"
        if self.tty:
            print(f"\r\x1b[K{text}", end="", file=sys.stderr, flush=True)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        if self.tty and not self.quiet:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)


def format_run(doc: dict[str, Any]) -> str:
    """The binding, the agent and each sample of a noise-run, in a few lines."""
    det = doc["detector"]
    lines = [f"detector {det.get('name')}: {det.get('iterations_per_packet', '?')} iterations "
             f"per packet of {det.get('packet_seconds')} s"]
    for b in doc["binding"]:
        lines.append(f"  rank {b.get('rank')} on {b.get('host')}: CPUs {b.get('cpus_allowed')}, "
                     f"last ran on {b.get('cpu')}")
    agent = doc.get("agent")
    if agent:
        summary = agent.get("summary") or {}
        burnt = summary.get("burnt_cpu_ns")
        lines.append(f"  agent {agent.get('command')}: CPUs {agent.get('cpus_allowed')}"
                     + (f", {summary.get('bursts')} bursts, {burnt / 1e6:.1f} ms CPU burnt"
                        if burnt is not None else ""))
    groups: dict[str, list[float]] = {}
    for p in doc["packets"]:
        key = _STATE.get(p.get("agent"), "all")
        groups.setdefault(key, []).append(float(p["seconds"]))
    for key, values in groups.items():
        lines.append(f"  {key:9s}: {len(values)} packets, median {median(values):.4f} s,"
                     f" mean {mean(values):.4f} s, min {min(values):.4f} s, "
                     f"max {max(values):.4f} s")
    return "\n".join(lines)


def format_injector(summary: dict[str, Any] | None) -> str:
    """What the injector really burnt, from its inject-summary record."""
    summary = summary or {}
    wall = summary.get("wall_ns") or 0
    burnt = summary.get("burnt_cpu_ns") or 0
    share = 100 * burnt / wall if wall else 0.0
    return (f"{summary.get('bursts', 0)} bursts, {burnt / 1e6:.2f} ms CPU burnt in "
            f"{wall / 1e9:.2f} s ({share:.2f}% of a core), "
            f"{summary.get('skipped_periods', 0)} periods skipped, CPUs seen "
            f"{summary.get('cpus_seen')}")


def format_calibration(doc: dict[str, Any]) -> str:
    """The smallest agent per detector and criterion, then every run."""
    from mpiscope.noise.criteria import CRITERIA

    lines = ["smallest agent detected (layout C, alternating design):"]
    shown = [c for c in CRITERIA if any(c in found for found in doc["smallest"].values())]
    widths = [max(14, len(c)) for c in shown]
    names = " ".join(c.rjust(w) for c, w in zip(shown, widths, strict=True))
    lines.append(f"  {'detector':12s} {names}  A/A false alarms")
    for detector, found in doc["smallest"].items():
        fp = doc["false_positives"][detector]
        alarms = ", ".join(sorted({c for fired in fp for c in fired})) or "none"
        cells = " ".join((found.get(c) or "-").rjust(w) for c, w in zip(shown, widths, strict=True))
        lines.append(f"  {detector:12s} {cells}  {alarms}")
    lines.append("")
    lines.append(f"  {'detector':12s} {'agent':>14s} {'load':>7s} {'mean':>8s} {'gap':>8s} "
                 f"{'p (MW)':>8s} {'paired':>8s} {'p (SR)':>8s} {'<= (95%)':>8s} {'line':>9s}"
                 "  fired")
    for r in doc["runs"]:
        lines.append(f"  {r['detector']:12s} {r['agent']:>14s} {r['load']:7.2%} "
                     f"{r['mean_difference']:+8.2%} {r['boundary_gap']:+8.2%} "
                     f"{r['p_value']:8.3g} {_opt(r.get('paired_estimate'), '+8.2%')} "
                     f"{_opt(r.get('signed_rank_p'), '8.3g')} "
                     f"{_opt(r.get('rules_out_above'), '+8.2%')} "
                     f"{_line(r.get('periodic_hz'))}"
                     f"  {', '.join(r['fired']) or '-'}")
    return "\n".join(lines)


def _opt(value: float | None, spec: str) -> str:
    """A number of a calibration row, or "-" (8 wide) when the row predates it."""
    return f"{'-':>8s}" if value is None else format(value, spec)


def _line(hz: float | None) -> str:
    """The frequency the periodic criterion found, 9 wide, or "-"."""
    return f"{'-' if hz is None else f'{hz:.3g} Hz':>9s}"


_DECISIONS = {
    "slowdown": "a slowdown (signed rank below alpha/K)",
    "agent": "the agent shows in the detector (stolen CPU time below alpha/K)",
    "equivalent": "no slowdown above the margin (upper bound below it)",
    "undecided": "undecided when the time ran out",
}


def format_sequential(seq: dict[str, Any]) -> str:
    """What --until-decided decided, after how many pairs, at which levels."""
    looks = seq.get("looks") or []
    decided = _DECISIONS.get(seq["decision"], seq["decision"])
    planned = len(seq["looks_planned"])
    if not looks:  # the time ran out before the pairs a look takes
        return (f"until-decided: {decided} before the first look: fewer than {MIN_PAIRS} pairs, "
                f"the fewest the paired criteria take (look 0 of {planned})")  # fmt: skip
    last = looks[-1]
    upper = last.get("upper")
    bound = f"{upper:+.2%}" if upper is not None else "unbounded"
    return (f"until-decided: {decided} after {last['pairs']} pairs, look {len(looks)} of "
            f"{planned} (alpha/K = {seq['alpha_per_look']:.2g}, margin {seq['margin']:.2%}, "
            f"upper bound at 1 - beta/K: {bound})")
