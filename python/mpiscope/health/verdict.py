"""The verdict: the health document from what the phases measured.

:func:`health_document` analyses the launches of a :class:`RunState`
(links, stragglers, fingerprint) and lists the suspects: each with its
kind (``node``, ``link``, ``core``, ``rank``, ``memory``, ``clock``,
``failed``), its name, the measurement behind it in one line, and how sure
the tool is - the p-value of the test that named it, and a word for it:
``sure`` (p <= 0.001), ``likely`` (p <= 0.05), ``possible``; a rank that
died is ``observed``. A rank and the core it is bound to whose excesses
both exceed their floors and together are sure (Fisher's combination of
their p-values) are one suspect, ``rank R on core C of HOST``
(docs/health.md).
The exit code of ``mpiscope health``: 0 with no suspect, 1 with any
(:func:`exit_code`).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope.health.fingerprint import analyse_clocks, analyse_cores, analyse_triad
from mpiscope.health.links import METRICS, LinkAnalysis, analyse_links, ratio
from mpiscope.health.robust import fisher_pair
from mpiscope.health.session import RunState
from mpiscope.health.stragglers import StragglerRule, analyse_stragglers
from mpiscope.health.values import format_excess, format_share
from mpiscope.health.values import format_gbs as _gbs
from mpiscope.health.values import format_value as _value
from mpiscope.result.units import format_ns

__all__ = ["KIND", "SCHEMA_VERSION", "certainty", "exit_code", "health_document", "raw_dir_of"]

KIND = "health"
SCHEMA_VERSION = "1.1"
SURE = 1e-3
LIKELY = 0.05


def certainty(p_value: float | None) -> str:
    """``sure`` at p <= 0.001 (all of 10 samples beyond the limit, say),
    ``likely`` at p <= 0.05, else ``possible``: what the test that named a
    suspect says of it, in a word."""
    if p_value is None:
        return "likely"
    return "sure" if p_value <= SURE else "likely" if p_value <= LIKELY else "possible"


def _p(p_value: float | None) -> str:
    return "-" if p_value is None else f"{p_value:.2g}"


def _environment(state: RunState) -> dict[str, Any]:
    env = (state.docs.get("collectives") or {}).get("environment") or {}
    keep = (
        "mpiscope_version",
        "launcher",
        "launcher_name",
        "mpi_implementation",
        "mpi_library_version",
        "simulated",
        "simulator",
        "platform",
        "platform_sha256",
        "hosts",
        "rank_nodes",
        "rank_cpus",
        "ranks",
        "nodes",
        "ranks_per_node",
        "cpu_model",
        "binding",
        "timer",
    )
    out = {k: env[k] for k in keep if k in env}
    sync = env.get("clock_sync") or {}
    out["clock_sync"] = {
        k: sync[k]
        for k in ("algorithm", "max_abs_residual_ns", "max_abs_end_residual_ns")
        if k in sync
    }
    out.setdefault("simulated", state.simulated)
    return out


def _settings(state: RunState) -> dict[str, Any]:
    plan = state.plan
    return {
        "links": plan.links,
        "latency_bytes": plan.latency_bytes,
        "bandwidth_bytes": plan.bandwidth_bytes,
        "bandwidth_window": plan.bandwidth_window,
        "samples": plan.samples,
        "ops": list(plan.ops),
        "op_options": dict(plan.op_options),
        "collective_bytes": plan.collective_bytes,
        "straggler_seconds": None if state.simulated else plan.straggler_seconds,
        "straggler_window_ns": None if state.simulated else plan.straggler_window_ns,
        "simulated_launches": plan.simulated_launches if state.simulated else None,
        "probe_seconds": plan.probe_seconds,
        "link_rule": dataclasses.asdict(plan.link_rule),
        "straggler_rule": dataclasses.asdict(plan.straggler_rule),
        "fingerprint_rule": dataclasses.asdict(plan.fingerprint_rule),
    }


def _link_section(state: RunState, analysis: LinkAnalysis | None) -> dict[str, Any] | None:
    if analysis is None:
        return None
    metrics = {}
    for name, result in analysis.results.items():
        point: Mapping[str, Any] = next(
            (
                p
                for p in (state.docs[f"links-{name}"].get("points") or [])
                if p.get("op") == METRICS[name].op
            ),
            {},
        )
        metrics[name] = {
            "op": METRICS[name].op,
            "unit": METRICS[name].unit,
            "what": METRICS[name].what,
            "higher_is_worse": METRICS[name].higher_is_worse,
            "size_bytes": point.get("size_bytes"),
            "method": (state.docs[f"links-{name}"].get("method") or {}).get("name"),
            "typical": result.typical,
            "spread": result.spread,
            "limit": result.limit,
            "pairs": {
                "a": [a for a, _ in result.pairs],
                "b": [b for _, b in result.pairs],
                "samples": [len(s) for s in result.samples],
                "median": result.medians,
                "low": result.lows,
                "high": result.highs,
                "beyond": result.beyond,
                "p_value": result.p_values,
                "slow": result.slow,
            },
        }
    return {
        "unit": state.link_unit,
        "units": state.unit_names,
        "unit_ranks": state.unit_ranks,
        "judged": analysis.judged,
        "why_not": analysis.why_not,
        "metrics": metrics,
        "nodes": analysis.nodes,
        "links": analysis.links,
    }


def _suspects_of_links(state: RunState, analysis: LinkAnalysis | None) -> list[dict[str, Any]]:
    if analysis is None:
        return []
    names = state.unit_names or [str(u) for u in range(analysis.units)]
    unit = state.link_unit
    out = []
    for node in analysis.nodes:
        parts = [
            f"{m} {_value(m, e['median'])} against {_value(m, e['typical'])} typical "
            f"({e['slow']} slow)"
            for m, e in node["metrics"].items()
            if e["slow"]
        ]
        out.append(
            {
                "kind": unit,
                "name": names[node["unit"]],
                "evidence": f"{node['slow']} of its {node['of']} links slow: " + ", ".join(parts),
                "p_value": node["p_value"],
                "certainty": certainty(node["p_value"]),
                "measurement": {"links": "links", "unit": node["unit"]},
            }
        )
    for link in analysis.links:
        m = link["metric"]
        times = ratio(link["median"], link["typical"])
        factor = "-" if times is None else f"{times:.2f}x"
        out.append(
            {
                "kind": "link",
                "name": f"{names[link['a']]} - {names[link['b']]}",
                "evidence": f"{m} {_value(m, link['median'])} [{_value(m, link['low'])}, "
                f"{_value(m, link['high'])}] against {_value(m, link['typical'])} typical "
                f"({factor}); {link['beyond']} of {link['samples']} samples beyond "
                f"{_value(m, link['limit'])}",
                "p_value": link["p_value"],
                "certainty": certainty(link["p_value"]),
                "measurement": {"links": m, "a": link["a"], "b": link["b"]},
            }
        )
    return out


def _where(rank: int, env: Mapping[str, Any]) -> str:
    """``vm, core 1`` (the core when the binding left the rank one), or ``vm``."""
    hosts, nodes = env.get("hosts") or [], env.get("rank_nodes") or []
    cpus = env.get("rank_cpus") or []
    host = hosts[nodes[rank]] if rank < len(nodes) and nodes[rank] < len(hosts) else "?"
    cpu = cpus[rank] if rank < len(cpus) else None
    return f"{host}, core {cpu}" if cpu is not None and cpu.isdigit() else host


def _on_busy(entry: dict[str, Any], host: str | None, busy: Mapping[str, Any]) -> dict[str, Any]:
    """A straggler or a core on a busy node is not judged: marked with its
    host, for :func:`_fold_busy` to name it in the node's entry instead."""
    if host in busy:
        entry["_busy_host"] = host
    return entry


def _fold_busy(suspects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stragglers and cores on busy nodes leave the suspects; each busy
    node's entry says which they are (the rank others waited for most, the
    core that lost the most there)."""
    held: dict[str, list[str]] = {}
    kept = []
    for s in suspects:
        host = s.pop("_busy_host", None)
        if host is None:
            kept.append(s)
        else:
            why = "detours" if s["kind"] == "core" else "stragglers"
            held.setdefault(host, []).append(f"{s['name']} ({why})")
    for s in kept:
        names = held.get(s["name"]) if "busy" in s["measurement"] else None
        if names:
            s["evidence"] += f"; not named for that reason: {', '.join(names)}"
    return kept


def _rank_evidence(entry: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    """What the others lost waiting for a rank (or a node's ranks)."""
    ranks = entry.get("ranks") or [entry.get("rank")]
    leads = [r for op in section["ops"] for r in op["ranks"] if r["rank"] in ranks]
    worst = max((r["max_lead_ns"] for r in leads), default=None)
    return (
        f"the others waited for it {format_share(entry.get('wait_share'))} of the run, "
        f"{format_excess(entry)} beyond the median rank (blocks of the run, 95%); it arrived "
        f"last, late beyond the floor, in {entry['events']} of {entry['of']} delayed launches "
        f"(chance: {entry['expected']:.1f}), making the others wait most in "
        f"{entry['quarters']} of 4 quarters; late by up to {format_ns(worst)}"
    )


def _suspects_of_stragglers(
    section: Mapping[str, Any], env: Mapping[str, Any], busy: Mapping[str, Any]
) -> list[dict[str, Any]]:
    hosts = env.get("hosts") or []
    nodes = env.get("rank_nodes") or []
    out = []
    for entry in section["named_ranks"]:
        rank = entry["rank"]
        host = hosts[nodes[rank]] if rank < len(nodes) and nodes[rank] < len(hosts) else None
        out.append(
            _on_busy(
                {
                    "kind": "rank",
                    "name": f"rank {rank} ({_where(rank, env)})",
                    "evidence": _rank_evidence(entry, section),
                    "p_value": entry["p_value"],
                    "certainty": certainty(entry["p_value"]),
                    "measurement": {"stragglers": rank},
                },
                host,
                busy,
            )
        )
    for entry in section["named_nodes"]:
        out.append(
            _on_busy(
                {
                    "kind": "node",
                    "name": hosts[entry["node"]],
                    "evidence": "its ranks: " + _rank_evidence(entry, section),
                    "p_value": entry["p_value"],
                    "certainty": certainty(entry["p_value"]),
                    "measurement": {"stragglers": "node", "node": entry["node"]},
                },
                hosts[entry["node"]],
                busy,
            )
        )
    return out


def _core_evidence(c: Mapping[str, Any]) -> str:
    hz = c.get("own_hz")
    freq = f" at ~{hz:.3g} Hz" if hz else ", no regular period"
    return (
        f"its core loses {format_share(c['share_lost'])} of the CPU to other work{freq}, against "
        f"{format_share(c['others_share_lost'])} on the other cores: "
        f"{format_excess(c, 'excess_low', 'excess_high')} (blocks of the probe, 95%); "
        f"{c['disturbed_quanta']} of {c['quanta']} FTQ quanta disturbed"
    )


def _core_of(
    rank: int, env: Mapping[str, Any], cores: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """The probed core the rank is bound to (its host and its one CPU)."""
    hosts, nodes = env.get("hosts") or [], env.get("rank_nodes") or []
    cpus = env.get("rank_cpus") or []
    if rank >= len(cpus) or rank >= len(nodes) or not str(cpus[rank]).isdigit():
        return None
    host = hosts[nodes[rank]] if nodes[rank] < len(hosts) else None
    return next(
        (c for c in cores if c.get("host") == host and c.get("core") == int(cpus[rank])), None
    )


def _material(excess: float | None, floor: float) -> bool:
    return excess is not None and excess > floor


def _joined(
    section: Mapping[str, Any] | None,
    cores: Sequence[Mapping[str, Any]],
    env: Mapping[str, Any],
    rule: StragglerRule,
    core_floor: float,
) -> list[dict[str, Any]]:
    """A rank and the core it is bound to whose excesses both exceed their
    floors (material, each as measured), the rank consistently (quarters,
    events), and that together are sure (Fisher's combination of their
    p-values below the straggler rule's alpha): one suspect, the rank on
    its core."""
    if not section:
        return []
    out = []
    for entry in section.get("ranks") or []:
        rank, p_rank = entry["rank"], entry.get("p_value")
        core = _core_of(rank, env, cores)
        p_core = None if core is None else core.get("p_value")
        if (
            core is None
            or p_rank is None
            or p_core is None
            or not _material(entry.get("excess"), rule.share_floor)
            or not _material(core.get("excess"), core_floor)
            or entry["events"] < rule.min_events
            or entry["quarters"] < rule.quarters_needed
        ):
            continue
        p_value = fisher_pair(p_rank, p_core)
        if p_value >= rule.alpha:
            continue
        out.append(
            {
                "kind": "rank",
                "name": f"rank {rank} on core {core['core']} of {core['host']}",
                "evidence": f"{_core_evidence(core)}; {_rank_evidence(entry, section)}",
                "p_value": p_value,
                "certainty": certainty(p_value),
                "measurement": {
                    "stragglers": rank,
                    "core": core["core"],
                    "host": core["host"],
                    "rank": core["rank"],
                    "p_values": [p_rank, p_core],
                },
                "_busy_host": core["host"],
            }
        )
    return out


def _merge_joined(
    suspects: list[dict[str, Any]], joined: list[dict[str, Any]], busy: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The joined suspects instead of their rank's and core's own."""
    ranks = {j["measurement"]["stragglers"] for j in joined}
    places = {(j["measurement"]["host"], j["measurement"]["core"]) for j in joined}
    kept = [
        s
        for s in suspects
        if not (s["kind"] == "rank" and s["measurement"].get("stragglers") in ranks)
        and not (
            s["kind"] == "core"
            and (s["measurement"].get("host"), s["measurement"].get("core")) in places
        )
    ]
    for j in joined:
        if j.pop("_busy_host") in busy:
            j["_busy_host"] = j["measurement"]["host"]
    return kept + joined


def _suspects_of_fingerprint(
    cores: Mapping[str, Any], triad: Mapping[str, Any], clocks: Mapping[str, Any]
) -> list[dict[str, Any]]:
    busy = cores.get("busy") or {}
    out = []
    for host, share in (cores.get("busy") or {}).items():
        out.append(
            {
                "kind": "node",
                "name": host,
                "evidence": f"busy: other work took {share['median']:.0%} of its cores' time "
                f"(median; {share['low']:.0%} to {share['high']:.0%}, selfish detours): who "
                "arrives last there says more about that work than about the ranks, and no "
                "rank of it is named a straggler",
                "p_value": None,
                "certainty": "observed",
                "measurement": {"busy": host},
            }
        )
    for c in cores.get("cores") or []:
        if not c["stands_out"]:
            continue
        out.append(
            _on_busy(
                {
                    "kind": "core",
                    "name": f"core {c['core']} of {c['host']} (rank {c['rank']})",
                    "evidence": _core_evidence(c),
                    "p_value": c["p_value"],
                    "certainty": certainty(c["p_value"]),
                    "measurement": {"core": c["core"], "host": c["host"], "rank": c["rank"]},
                },
                c["host"],
                busy,
            )
        )
    for host in triad.get("low") or []:
        out.append(
            {
                "kind": "memory",
                "name": host,
                "evidence": f"STREAM triad {_gbs(triad['hosts'][host])} against "
                f"{_gbs(triad['typical_bytes_per_s'])} typical",
                "p_value": None,
                "certainty": "likely",
                "measurement": {"triad": host},
            }
        )
    for host in clocks.get("off") or []:
        entry = clocks["hosts"][host]
        out.append(
            {
                "kind": "clock",
                "name": host,
                "evidence": f"clock residual {format_ns(entry.get('end_residual_ns'))} at the "
                f"end of the run against {format_ns(clocks['typical_ns'])} typical",
                "p_value": None,
                "certainty": "likely",
                "measurement": {"clock": host},
            }
        )
    return out


def _suspects_of_failures(failed: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for f in failed:
        who = "a rank" if f.get("rank") is None else f"rank {f['rank']}"
        if len(f.get("ranks") or []) > 1:  # which of them died first cannot be told
            *before, last = f["ranks"]
            who = f"rank {' or '.join(str(r) for r in before)} or {last}"
        where = f" ({f['host']})" if f.get("host") else ""
        out.append(
            {
                "kind": "failed",
                "name": f"{who}{where}",
                "evidence": f"failed during {f.get('phase')}: {f.get('how')}",
                "p_value": None,
                "certainty": "observed",
                "measurement": {"phase": f.get("phase")},
            }
        )
    return out


def _unmeasured(state: RunState, analysis: LinkAnalysis | None) -> list[str]:
    """A warning per metric whose matrix lacks pairs: no launch of theirs
    had every rank on time (a busy machine), so they are not judged."""
    if analysis is None:
        return []
    names = state.unit_names or [str(u) for u in range(analysis.units)]
    out = []
    every = analysis.units * (analysis.units - 1) // 2
    for name, result in analysis.results.items():
        measured = set(result.pairs)
        missing = [
            (a, b) for a in range(analysis.units) for b in range(a + 1, analysis.units)
            if (a, b) not in measured
        ]  # fmt: skip
        if missing:
            a, b = missing[0]
            out.append(
                f"{name}: {len(missing)} of {every} pairs have no sample (no launch of theirs "
                f"had every rank on time), e.g. {names[a]} - {names[b]}: not in the matrix"
            )
    return out


def _check_section(state: RunState) -> dict[str, Any] | None:
    doc = state.docs.get("check")
    if not doc or not doc.get("check"):
        return None
    from mpiscope.reports.check import verdict_lines
    from mpiscope.result import Result

    return {"verdicts": verdict_lines(Result(doc, None))}


def _status(state: RunState, final: bool) -> str:
    if any(p.status == "failed" for p in state.phases):
        return "failed"
    return "complete" if final else "running"


def health_document(state: RunState, final: bool = True) -> dict[str, Any]:
    """The health document (docs/health.md) of what ``state`` holds."""
    env = _environment(state)
    rank_nodes = env.get("rank_nodes") or []
    links = None
    present = {m: state.docs[f"links-{m}"] for m in METRICS if f"links-{m}" in state.docs}
    if present and state.unit_ranks:
        links = analyse_links(present, state.schedules, len(state.unit_ranks), state.plan.link_rule)
    stragglers = None
    if "collectives" in state.docs:
        stragglers = analyse_stragglers(
            state.docs["collectives"],
            rank_nodes or [0] * env.get("ranks", 1),
            state.plan.straggler_rule,
        )
    cores: dict[str, Any] = {"cores": [], "judged": False}
    triad: dict[str, Any] = {"hosts": {}, "low": [], "judged": False}
    if state.probe is not None:
        cpus = env.get("rank_cpus") or []
        cores = analyse_cores(
            state.probe,
            state.plan.raw_dir / "probe",
            dict(enumerate(cpus)),
            state.plan.fingerprint_rule,
        )
        triad = analyse_triad(cores["cores"], state.plan.fingerprint_rule)
    clocks = analyse_clocks(
        (state.docs.get("collectives") or {}).get("environment") or {}, state.plan.fingerprint_rule
    )
    suspects = (
        _suspects_of_failures(state.failed)
        + _suspects_of_links(state, links)
        + (_suspects_of_stragglers(stragglers, env, cores.get("busy") or {}) if stragglers else [])
        + _suspects_of_fingerprint(cores, triad, clocks)
    )
    busy = cores.get("busy") or {}
    joined = _joined(
        stragglers,
        cores.get("cores") or [],
        env,
        state.plan.straggler_rule,
        state.plan.fingerprint_rule.core_floor,
    )
    suspects = _fold_busy(_merge_joined(suspects, joined, busy))
    from mpiscope.version import package_version

    return {
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "status": _status(state, final),
        "mpiscope_version": package_version(),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command_line": " ".join(["mpiscope", *state.request.argv]),
        "start_time_utc": state.started,
        "end_time_utc": state.ended,
        "units": {
            "time": "ns",
            "bandwidth": "bytes/s",
            "size": "bytes",
            "frequency": "Hz",
            "share": "fraction",
        },
        "environment": env,
        "settings": _settings(state),
        "raw_dir": str(state.plan.raw_dir),
        "phases": [p.record() for p in state.phases],
        "links": _link_section(state, links),
        "stragglers": stragglers,
        "fingerprint": {
            "cores": cores,
            "triad": triad,
            "clocks": clocks,
            "check": _check_section(state),
        },
        "suspects": suspects,
        "failed_ranks": state.failed,
        "warnings": state.warnings + _unmeasured(state, links),
    }


def exit_code(doc: Mapping[str, Any]) -> int:
    """0: healthy; 1: something is out (a suspect, or a phase that failed)."""
    failed = any(p.get("status") == "failed" for p in doc.get("phases") or [])
    return 1 if doc.get("suspects") or failed else 0


def raw_dir_of(out: Path) -> Path:
    """Where a health document's launches are kept: ``h.json`` -> ``h.raw``."""
    return out.with_suffix(".raw")
