"""The header block of a report: what was measured with what (MPI library,
hosts, ranks, timer, clock sync, method, cache), and the banner of a
result that did not finish. Shared by the text report, the methods table
and the HTML report."""

from __future__ import annotations

from collections.abc import Mapping

from mpiscope.reports.tails import floor_line
from mpiscope.result import Result
from mpiscope.result.units import format_bytes, format_ns, format_number, format_percent

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MISSING", "PARTIAL_BANNER", "header_lines", "header_rows", "partial_lines"]

MISSING = "-"
PARTIAL_BANNER = "PARTIAL RESULT: the run did not finish"


def partial_lines(result: Result) -> list[str]:
    if result.complete:
        return []
    line = f"{PARTIAL_BANNER} (status: {result.status})"
    if result.error:
        line += f": {result.error}"
    return [line, ""]


def header_lines(result: Result) -> list[str]:
    rows = header_rows(result)
    width = max(len(name) for name, _ in rows)
    return [f"{name:<{width}}  {value}" for name, value in rows]


def header_rows(result: Result) -> list[tuple[str, str]]:
    """The header block as (name, text) pairs, for other renderings (HTML)."""
    env = result.environment
    floor = floor_line(result)
    return [
        ("MPI library", _mpi_line(env)),
        *([("MPI wheel", str(env["mpi_wheel"]))] if env.get("mpi_wheel") else []),
        ("hosts", _hosts_line(env)),
        ("launcher", env.get("launcher") or MISSING),
        ("timer", _timer_line(env["timer"])),
        *([("floor", floor)] if floor else []),
        ("clock sync", _sync_line(env["clock_sync"])),
        ("method", _method_line(result.method)),
        ("stopping", _stop_line(result.method)),
        ("cache", _cache_line(env["cache"])),
        ("cpu", str(env.get("cpu_model") or MISSING)),
        ("compiler", str(env.get("compiler") or MISSING)),
        ("time (UTC)", f"{env['start_time_utc']} .. {env.get('end_time_utc') or 'not finished'}"),
        ("command", env.get("command_line") or MISSING),
        ("mpiscope", f"{env.get('mpiscope_version')} (result schema {result.schema_version})"),
    ]


def _mpi_line(env: Mapping[str, Any]) -> str:
    if env.get("simulated"):
        simulator = env.get("simulator") or "SimGrid SMPI"
        return f"simulated ({simulator}, platform {env.get('platform') or 'unknown'})"
    library = str(env.get("mpi_library_version") or "").strip()
    first = " ".join(library.splitlines()[0].split()) if library else "unknown"
    extra = [f"MPI {env.get('mpi_version')}"]
    if env.get("mpi_implementation"):
        extra.append(str(env["mpi_implementation"]))
    return f"{first} ({', '.join(extra)})"


def _hosts_line(env: Mapping[str, Any]) -> str:
    hosts = list(env.get("hosts") or [])
    shown = ", ".join(hosts[:4]) + (f", ... ({len(hosts)} hosts)" if len(hosts) > 4 else "")
    nodes = env.get("nodes")
    text = (
        f"{shown} ({nodes} node{'s' if nodes != 1 else ''}, {env.get('ranks')} ranks, "
        f"{env.get('ranks_per_node')} per node"
    )
    if env.get("oversubscribed"):
        text += ", OVERSUBSCRIBED"
    return text + ")"


def _timer_line(timer: Mapping[str, Any]) -> str:
    text = f"{timer['name']}"
    if timer.get("source"):
        text += f" ({timer['source']})"
    text += (
        f", resolution {format_ns(timer['resolution_ns'])}, "
        f"read overhead {format_ns(timer['read_overhead_ns'])}"
    )
    if timer.get("frequency_hz"):
        text += f", {format_number(timer['frequency_hz'] / 1e9, 4)} GHz"
    if timer.get("invariant") is False:
        text += ", NOT INVARIANT"
    if timer.get("wtime_is_global"):
        text += ", MPI_WTIME_IS_GLOBAL"
    return text


def _sync_line(sync: Mapping[str, Any]) -> str:
    text = f"{sync['algorithm']}, max residual {format_ns(sync.get('max_abs_residual_ns'))}"
    if sync.get("max_abs_end_residual_ns") is not None:
        text += f" (at the end {format_ns(sync['max_abs_end_residual_ns'])})"
    text += f", {sync.get('exchanges')} exchanges in {format_ns(sync.get('duration_ns'))}"
    if sync.get("one_clock"):
        text += "; one simulated clock for every rank, verified once (no resync, no end check)"
    return text


def _method_line(method: Mapping[str, Any]) -> str:
    name = str(method["name"])
    if name != "window":
        params = ""
    else:
        params = (
            f": k={method['k']}, k_init={method['k_init']}, gamma={method['gamma']}, "
            f"invalid threshold {format_percent(method['invalid_threshold'])}, "
            f"min window {format_ns(method['window_min_ns'])}, "
            f"late tolerance {format_ns(method['late_tolerance_ns'])}"
            + (
                f" or {format_percent(method['late_tolerance_fraction'])} of the window"
                if method.get("late_tolerance_fraction")
                else ""
            )
            + ", "
            f"t_bcast {format_ns(method['t_bcast_ns'])}"
        )
    return (
        f"{name}{params}; trim {format_percent(method['trim_fraction'])} each side, "
        f"confidence {format_percent(method['confidence'])}"
    )


def _stop_line(method: Mapping[str, Any]) -> str:
    if method["stop_rule"] == "error":
        # Documents from before min_point_seconds stopped by the trimmed mean's RSE alone.
        new_rule = "min_point_seconds" in method
        rule = (
            f"error rule: RSE{' of the trimmed mean and of the median' if new_rule else ''} <= "
            f"{format_percent(method['target_rse'])} with >= {method['min_valid']} valid launches"
        )
        if method.get("min_point_seconds"):
            rule += f" and >= {format_number(method['min_point_seconds'] * 1e3)} ms measured"
    elif method["stop_rule"] == "deterministic":
        rule = (
            "deterministic rule (a simulated clock has no noise): each point stops once two valid "
            "launches read the same time, its exact value; launches that differ go on under the "
            f"error rule (RSE of the trimmed mean and of the median <= "
            f"{format_percent(method['target_rse'])} with >= {method['min_valid']} valid launches)"
        )
    else:
        rule = f"count rule: {method['max_valid']} valid launches"
    return (
        f"{rule}; at most {method['max_launches']} launches "
        f"and {format_number(method['max_point_seconds'])} s per point"
    )


def _cache_line(cache: Mapping[str, Any]) -> str:
    parts = [f"alignment {format_bytes(cache.get('alignment_bytes'))}"]
    if cache.get("llc_bytes") is not None:
        parts.append(f"LLC {format_bytes(cache['llc_bytes'])}")
    if cache.get("pool_limit_bytes") is not None:
        parts.append(f"buffer pool limit {format_bytes(cache['pool_limit_bytes'])}")
    return f"{cache['mode']} ({', '.join(parts)})"
