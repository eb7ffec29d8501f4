"""Text of the model commands: a fitted model (parameters with their
intervals, the fit error per size), predictions, and the check of
predicted against measured collectives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.models.check import CheckRow, Unpredictable, seems_to_use
from mpiscope.reports.texttable import format_table
from mpiscope.result.units import format_bytes, format_ns, format_percent

__all__ = ["render_check", "render_model", "render_predictions", "render_unpredictable"]


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ns":
        return format_ns(value)
    return f"{value:.4g} {unit}"


def render_model(doc: Mapping[str, Any]) -> str:
    """A model document: what it was fitted on, its parameters, its error."""
    src, fit = doc["source"], doc["fit"]
    conf = f"{fit['confidence'] * 100:g}%"
    lines = [
        f"model        {doc['model']} (schema {doc['schema_version']})",
        f"fitted on    {src['path']}: {src['nprocs']} ranks, "
        f"{src.get('mpi_implementation') or '?'}"
        + (f", simulated on {src.get('platform')}" if src.get("simulated") else ""),
        f"statistic    {fit.get('statistic', 'median')} of each size's samples",
        f"intervals    {conf}, {fit['ci_method']} ({fit['replicates']} resamples: "
        + ("the measured samples of each size" if fit["ci_method"] == "bootstrap"
           else "normal draws around each median with its standard error") + ")",  # fmt: skip
        "",
    ]
    rows = [[p["name"], _value(p["value"], p["unit"]),
             f"[{_value(p['ci_low'], p['unit'])}, {_value(p['ci_high'], p['unit'])}]"]
            for p in doc["parameters"]]  # fmt: skip
    lines += format_table(["parameter", "value", f"{conf} interval"], "<><", rows)
    if doc["model"] == "hockney":
        lines += ["", "regimes (breakpoints found from the data):"]
        lines += _regimes(doc["hockney"]["segments"])
        for pair in doc["hockney"].get("pairs") or []:
            text = "; ".join(f"{format_bytes(s['from_bytes'])}+: {format_ns(s['alpha_ns'])} + "
                             f"{s['beta_ns_per_byte']:.3g} ns/B" for s in pair["segments"])
            lines.append(f"  pair {pair['pair'][0]}-{pair['pair'][1]}: {text}")
    if doc["model"] == "direct":
        for fitted in doc["direct"]["collectives"]:
            lines += ["", f"{fitted['op']} on {fitted['nprocs']} ranks: T(m) = a + b m per regime "
                      "(breakpoints found from the data):"]  # fmt: skip
            lines += _regimes(fitted["segments"])
    err = doc["fit_error"]
    if err["points"]:
        lines += ["", f"fit error against the {err['reference']}:"]
        named = any("op" in p for p in err["points"])
        lines += format_table(
            [*(["op", "ranks"] if named else []), "size", "measured", "model", "error"],
            ("<>" if named else "") + ">>>>",
            [[*([p["op"], str(p["nprocs"])] if named else []), format_bytes(p["size_bytes"]),
              format_ns(p["measured_ns"]), format_ns(p["model_ns"]),
              f"{p['rel_error'] * 100:+.1f}%"] for p in err["points"]], indent="  ")  # fmt: skip
        lines.append(f"  max |error| {format_percent(err['max_rel_error'])}, mean "
                     f"{format_percent(err['mean_rel_error'])}")  # fmt: skip
    lines += [f"warning: {w}" for w in doc["warnings"]]
    return "\n".join(lines)


def _regimes(segments: Sequence[Mapping[str, Any]]) -> list[str]:
    rows = [[format_bytes(s["from_bytes"]),
             format_bytes(s["to_bytes"]) if s["to_bytes"] is not None else "and above",
             format_ns(s["alpha_ns"]), f"{s['beta_ns_per_byte']:.4g} ns/B",
             str(s["points"]), format_percent(s["max_rel_error"])]
            for s in segments]  # fmt: skip
    return format_table(["from", "to", "alpha", "beta", "points", "max err"], ">>>>>>", rows,
                        indent="  ")  # fmt: skip


def render_predictions(
    nprocs: int, sizes: Sequence[int], table: Mapping[str, Sequence[float]],
    formulas: Mapping[str, str],
) -> str:  # fmt: skip
    """Predicted times, one row per size, one column per algorithm."""
    names = list(table)
    rows = [[format_bytes(size), *(format_ns(table[n][i]) for n in names)]
            for i, size in enumerate(sizes)]  # fmt: skip
    lines = [f"predicted time of one call on {nprocs} ranks (T(s): the model's one message)", ""]
    lines += format_table(["size", *names], ">" * (len(names) + 1), rows)
    lines += ["", *(f"{n}: {formulas[n]}" for n in names)]
    return "\n".join(lines)


def render_check(rows: Sequence[CheckRow]) -> str:
    """Measured against predicted, per point, with the relative errors."""
    out: list[str] = []
    for op in dict.fromkeys(r.op for r in rows):
        mine = [r for r in rows if r.op == op]
        names = list(mine[0].predicted_ns)
        titles = ["size", "ranks", "measured"]
        for n in names:
            titles += [n.split(":", 1)[1], "error"]
        table = []
        for r in mine:
            cells = [format_bytes(r.size_bytes), str(r.nprocs), format_ns(r.measured_ns)]
            for n in names:
                cells += [format_ns(r.predicted_ns[n]), f"{r.error(n) * 100:+.0f}%"]
            table.append(cells)
        out += [f"{op}: predicted vs measured (error = (predicted - measured) / measured)"]
        out += format_table(titles, ">" * len(titles), table)
        out.append("")
    if all(len(r.predicted_ns) == 1 for r in rows):  # a direct model: one fit per op
        for op in dict.fromkeys(r.op for r in rows):
            mine = [r for r in rows if r.op == op]
            worst = max(mine, key=lambda r: abs(r.error(next(iter(r.predicted_ns)))))
            error = worst.error(next(iter(worst.predicted_ns)))
            out.append(f"{op}: largest |error| {abs(error) * 100:.0f}% (at "
                       f"{format_bytes(worst.size_bytes)}) over {len(mine)} sizes")
        return "\n".join(out).rstrip()
    runs = seems_to_use(rows)
    for op, p, lo, hi, name in runs:
        span = format_bytes(lo) if lo == hi else f"{format_bytes(lo)} .. {format_bytes(hi)}"
        out.append(f"{op} on {p} ranks seems to use {name} at {span} (its prediction fits far "
                   "better than the others')")  # fmt: skip
    if not runs:
        out.append("no prediction fits far better than the others anywhere: the algorithm in "
                   "use cannot be told from these models")  # fmt: skip
    return "\n".join(out).rstrip()


def _span(sizes: Sequence[int]) -> str:
    lo, hi = min(sizes), max(sizes)
    return format_bytes(lo) if lo == hi else f"{format_bytes(lo)} .. {format_bytes(hi)}"


def render_unpredictable(found: Sequence[Unpredictable], mechanism: str,
                         measured: str) -> list[str]:  # fmt: skip
    """One line per op no point-to-point algorithm can predict: where, by
    how much, the likely mechanism, and the model to use instead."""
    lines = []
    for u in found:
        lines.append(
            f"{u.op} on {u.nprocs} ranks is up to {u.factor:.1f}x faster than every "
            f"point-to-point algorithm predicts at {_span(u.sizes)} (beyond the model's "
            f"{format_percent(u.fit_error)} fit error): it cannot be built from messages there, "
            f"likely {mechanism}; fit its own times instead: mpiscope model fit {measured} "
            "--model direct --out direct.json, then model predict/check direct.json")
    return lines
