"""The health verdict as text: ``mpiscope health`` and ``health report``.

First the verdict (the suspects, each with its measurement and how sure),
then the link matrix's summary (typical values, the slowest pairs, a
character heat map of up to 32 units), the stragglers per collective, the
fingerprint per core and node, the machine check's verdicts, and how each
phase went.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.health.values import format_excess, format_share
from mpiscope.health.values import format_gbs as _gbs
from mpiscope.health.values import format_value as _value
from mpiscope.result.units import format_bytes, format_ns

__all__ = ["format_health"]

#: Units shown in the character heat map (more: the HTML page draws them).
HEAT_UNITS = 32
_SHADES = " .:-=+*#%@"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.1g}"


def _table(rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _verdict(doc: Mapping[str, Any]) -> list[str]:
    suspects = doc.get("suspects") or []
    failed_phases = [p for p in doc.get("phases") or [] if p.get("status") == "failed"]
    if not suspects and not failed_phases:
        return ["VERDICT healthy: nothing stands out"]
    lines = [
        f"VERDICT {len(suspects)} suspect(s)"
        + (
            f"; the check did not finish ({failed_phases[0]['name']} failed)"
            if failed_phases
            else ""
        )
    ]
    for s in suspects:
        p = f", p = {_p(s.get('p_value'))}" if s.get("p_value") is not None else ""
        lines.append(f"  {s['kind']:<7} {s['name']}: {s['evidence']} [{s['certainty']}{p}]")
    return lines


def _environment(doc: Mapping[str, Any]) -> list[str]:
    env = doc.get("environment") or {}
    hosts = env.get("hosts") or []
    where = ", ".join(hosts[:4]) + (f", ... ({len(hosts)} nodes)" if len(hosts) > 4 else "")
    lines = [f"ranks        {env.get('ranks')} on {where or '?'}"]
    if env.get("simulated"):
        lines.append(
            f"simulated    {env.get('simulator', 'SimGrid')}, platform {env.get('platform')}"
        )
    elif env.get("launcher"):
        lines.append(f"launcher     {env.get('launcher')}")
    lines.append(f"started      {doc.get('start_time_utc')}  status {doc.get('status')}")
    return lines


def _heat(section: Mapping[str, Any], names: Sequence[str], metric: str) -> list[str]:
    pairs = section["pairs"]
    units = len(names)
    if units < 3 or units > HEAT_UNITS:
        return []
    grid: list[list[float | None]] = [[None] * units for _ in range(units)]
    for a, b, m in zip(pairs["a"], pairs["b"], pairs["median"], strict=True):
        grid[a][b] = grid[b][a] = m
    known = [v for row in grid for v in row if v is not None]
    if not known:
        return []
    low, high = min(known), max(known)
    worse_high = section["higher_is_worse"]
    lines = [
        f"  {metric} heat map (' ' best .. '@' worst, {_value(metric, low)} .. "
        f"{_value(metric, high)}):"
    ]
    for i, row in enumerate(grid):
        cells = ""
        for v in row:
            if v is None:
                cells += "·"
                continue
            x = 0.0 if high == low else (v - low) / (high - low)
            x = x if worse_high else 1.0 - x
            cells += _SHADES[min(len(_SHADES) - 1, int(x * len(_SHADES)))]
        lines.append(f"    {i:>3} {cells}  {names[i]}")
    return lines


def _links(doc: Mapping[str, Any]) -> list[str]:
    links = doc.get("links")
    if not links:
        return ["LINKS not measured"]
    names = links.get("units") or []
    lines = [
        f"LINKS between {len(names)} {links['unit']}s"
        + ("" if links.get("judged") else f" - no verdict: {links.get('why_not')}")
    ]
    for metric, section in links["metrics"].items():
        pairs = section["pairs"]
        slow = sum(pairs["slow"])
        lines.append(
            f"  {metric}: {section['what']}; {len(pairs['a'])} pairs, "
            f"{format_bytes(section['size_bytes'])}, typical {_value(metric, section['typical'])}, "
            f"slow beyond {_value(metric, section['limit'])}: {slow} pair(s)"
        )
        order = sorted(
            range(len(pairs["a"])),
            key=lambda i: pairs["median"][i] or 0,
            reverse=section["higher_is_worse"],
        )
        rows = [("pair", metric, "interval", "samples", "slow")]
        for i in order[:5]:
            rows.append(
                (
                    f"{names[pairs['a'][i]]} - {names[pairs['b'][i]]}",
                    _value(metric, pairs["median"][i]),
                    f"[{_value(metric, pairs['low'][i])}, {_value(metric, pairs['high'][i])}]",
                    str(pairs["samples"][i]),
                    "SLOW" if pairs["slow"][i] else "",
                )
            )
        lines += ["    " + line for line in _table(rows)]
        lines += _heat(section, names, metric)
    return lines


def _behind(op: Mapping[str, Any]) -> str:
    """`` (12 behind schedule, 250 stage starts: not judged)``, or nothing."""
    parts = [
        f"{op[key]} {what}"
        for key, what in (("behind", "behind schedule"), ("stage_starts", "stage starts"))
        if op.get(key)
    ]
    return f" ({', '.join(parts)}: not judged)" if parts else ""


def _stragglers(doc: Mapping[str, Any]) -> list[str]:
    section = doc.get("stragglers")
    if not section:
        return ["STRAGGLERS not measured"]
    lines = [f"STRAGGLERS {section['events']} delayed launch(es) in all"]
    for op in section["ops"]:
        lines.append(
            f"  {op['op']} {format_bytes(op['size_bytes'])}: {op['launches']} launches"
            f"{_behind(op)}, {op['events']} delayed (last arrival ahead of the next by more "
            f"than {format_ns(op['delta_ns'])}; typical lead {format_ns(op['typical_lead_ns'])})"
        )
        ranked = sorted(op["ranks"], key=lambda r: -r["events"])[:5]
        if ranked:
            rows = [("rank", "last", "median lead", "largest", "share")]
            rows += [
                (
                    str(r["rank"]),
                    str(r["events"]),
                    format_ns(r["median_lead_ns"]),
                    format_ns(r["max_lead_ns"]),
                    "-" if r["share"] is None else f"{r['share']:.1%}",
                )
                for r in ranked
            ]
            lines += ["    " + line for line in _table(rows)]
    tested = sorted(
        (r for r in section.get("ranks") or [] if r.get("excess") is not None),
        key=lambda r: -r["excess"],
    )[:5]
    if tested:
        floor = (section.get("rule") or {}).get("share_floor")
        lines.append(
            "  the others' wait beyond the median rank, share of the run"
            + (f" (named above {floor:.0%}, p < 0.001)" if floor is not None else "")
        )
        tests = [("rank", "waited for", "excess", "interval", "blocks", "p", "quarters")]
        tests += [
            (
                str(r["rank"]),
                format_share(r.get("wait_share")),
                f"{r['excess']:+.2%}",
                "-" if r.get("low") is None else f"[{r['low']:.2%}, {r['high']:.2%}]",
                str(r["blocks"]),
                _p(r.get("p_value")),
                str(r["quarters"]),
            )
            for r in tested
        ]
        lines += ["    " + line for line in _table(tests)]
    return lines


def _fingerprint(doc: Mapping[str, Any]) -> list[str]:
    fp = doc.get("fingerprint") or {}
    cores = (fp.get("cores") or {}).get("cores") or []
    lines = ["FINGERPRINT"]
    if cores:
        rows = [
            (
                "host",
                "core",
                "rank",
                "detours",
                "others",
                "excess",
                "frequency",
                "disturbed",
                "p",
                "triad",
                "",
            )
        ]
        for c in cores:
            hz = c.get("own_hz")
            rows.append(
                (
                    str(c["host"]),
                    str(c["core"]),
                    str(c["rank"]),
                    "-" if c["share_lost"] is None else f"{c['share_lost']:.2%}",
                    "-" if c["others_share_lost"] is None else f"{c['others_share_lost']:.2%}",
                    format_excess(c, "excess_low", "excess_high"),
                    "-" if hz is None else f"{hz:.3g} Hz",
                    f"{c['disturbed_quanta']}/{c['quanta']}",
                    _p(c.get("p_value")),
                    _gbs(c.get("triad_bytes_per_s")),
                    "STANDS OUT" if c["stands_out"] else "",
                )
            )
        lines += ["  " + line for line in _table(rows, left=1)]
    else:
        probe: Mapping[str, Any] = next(
            (p for p in doc.get("phases") or [] if p["name"] == "probe"), {}
        )
        lines.append(f"  cores: not probed ({probe.get('reason') or probe.get('error') or '-'})")
    triad = fp.get("triad") or {}
    for host, value in sorted((triad.get("hosts") or {}).items()):
        lines.append(f"  {host}: STREAM triad {_gbs(value)} (its cores together)")
    clocks = fp.get("clocks") or {}
    if clocks.get("hosts"):
        worst = max(
            clocks["hosts"].items(),
            key=lambda kv: kv[1].get("end_residual_ns", kv[1].get("residual_ns", 0)),
        )
        lines.append(
            f"  clocks ({clocks.get('algorithm')}): largest residual "
            f"{format_ns(worst[1].get('end_residual_ns', worst[1].get('residual_ns')))} "
            f"at the end ({worst[0]})"
        )
    check = fp.get("check")
    if check:
        lines += [f"  {line}" for line in check["verdicts"]]
    return lines


def _phases(doc: Mapping[str, Any]) -> list[str]:
    rows = [("phase", "status", "ranks", "seconds")]
    why = [""]
    for p in doc.get("phases") or []:
        rows.append(
            (
                p["name"],
                p["status"],
                str(p.get("ranks") or "-"),
                "-" if p.get("seconds") is None else f"{p['seconds']:.1f}",
            )
        )
        why.append(p.get("error") or p.get("reason") or "")
    table = _table(rows)
    width = max(len(line) for line in table)
    return ["PHASES"] + [
        f"  {line.ljust(width)}  {reason}".rstrip() for line, reason in zip(table, why, strict=True)
    ]


def format_health(doc: Mapping[str, Any]) -> str:
    """The whole text report of a health document."""
    parts = [
        _verdict(doc),
        _environment(doc),
        _links(doc),
        _stragglers(doc),
        _fingerprint(doc),
        _phases(doc),
    ]
    warnings = doc.get("warnings") or []
    if warnings:
        parts.append(["WARNINGS"] + [f"  {w}" for w in warnings])
    return "\n\n".join("\n".join(part) for part in parts)
