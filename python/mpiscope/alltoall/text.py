"""The tables of ``mpiscope alltoall`` as plain rows: each function returns
(titles, aligns, rows) for mpiscope.reports.texttable.format_table, or
lines of text; the command prints them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.alltoall.catalogue import LabAlgorithm, NativeAlgorithm
from mpiscope.alltoall.compare import variant_median
from mpiscope.alltoall.models import EXCHANGE_TEXT, MODELS
from mpiscope.result.units import format_bytes, format_ns

__all__ = [
    "Table",
    "check_table",
    "compare_table",
    "hockney_lines",
    "lab_table",
    "model_table",
    "native_table",
    "plp_table",
]

Table = tuple[list[str], str, list[list[str]]]


def lab_table(algorithms: Sequence[LabAlgorithm]) -> Table:
    rows = []
    for a in algorithms:
        options = ", ".join(f"{k}={v}" if v else k for k, v in a.options.items()) or "-"
        model = MODELS[a.name][0] if a.name in MODELS else "-"
        rows.append([a.name, a.op, "yes" if a.leader_based else "no", options, model])
    return ["algorithm", "op", "leaders", "options (default)", "Hockney model"], "<<<<<", rows


def native_table(algorithms: Sequence[NativeAlgorithm], forced_by: Mapping[str, str]) -> Table:
    rows = [
        [a.name, forced_by[a.name], a.model or "-",
         f"<= {format_bytes(a.max_bytes)}" if a.max_bytes else "", a.description]
        for a in algorithms
    ]  # fmt: skip
    return ["algorithm", "forced with", "model", "limit", "what"], "<<<<<", rows


def model_notes() -> list[str]:
    return [
        "T(s) = alpha + beta*s per protocol regime (fitted from a ping-pong: compare), "
        "N processes, K nodes of M ranks, m bytes per destination, d leaders per node;",
        EXCHANGE_TEXT + ".",
    ]


def _cell(ns: float, mark: bool) -> str:
    return (format_ns(ns) + ("*" if mark else "")) if math.isfinite(ns) else "-"


def _columns(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Native default first, then the forced natives, then the lab (PLP with
    a fixed d only in the PLP table)."""
    order = {"native": 0, "native-forced": 1, "lab": 2}
    shown = [v for v in doc["variants"] if not (v["algorithm"] == "plp" and v.get("leaders"))]
    return sorted(shown, key=lambda v: order[v["kind"]])


def compare_table(doc: Mapping[str, Any]) -> Table:
    """Sizes as rows; a column per variant (the winner marked *), then the
    best lab algorithm and its speed-up over the library's default."""
    columns = _columns(doc)
    winners = {w["size_bytes"]: w for w in doc["winners"]}
    titles = ["size"] + [
        "native" if v["kind"] == "native" else v["name"] for v in columns
    ] + ["best lab", "speed-up"]
    rows = []
    for size in doc["sizes"]:
        w = winners.get(size, {})
        cells = [format_bytes(size)]
        cells += [_cell(variant_median(v, size), w.get("winner") == v["name"]) for v in columns]
        speedup = w.get("speedup_best_lab_over_native")
        cells += [w.get("best_lab") or "-", f"{speedup:.2f}x" if speedup else "-"]
        rows.append(cells)
    return titles, "<" + ">" * (len(titles) - 3) + "<>", rows


def model_table(doc: Mapping[str, Any]) -> Table:
    """Measured / predicted per variant and size (the Hockney model's error)."""
    columns = [v for v in _columns(doc) if any(p.get("predicted_ns") for p in v["points"])]
    titles = ["size"] + [v["name"] for v in columns]
    rows = []
    for size in doc["sizes"]:
        cells = [format_bytes(size)]
        for v in columns:
            p = next((p for p in v["points"] if p["size_bytes"] == size), None)
            pred = p.get("predicted_ns") if p else None
            cells.append(format_ns(pred) if pred is not None else "-")
        rows.append(cells)
    return titles, "<" + ">" * len(columns), rows


def plp_table(doc: Mapping[str, Any]) -> Table:
    rows = []
    ds: list[str] = sorted({d for r in doc["plp"] for d in r["times_ns"]}, key=int)
    for r in doc["plp"]:
        ratio = r.get("rule_over_best")
        rows.append(
            [format_bytes(r["size_bytes"]), str(r["rule_leaders"]), str(r["best_leaders"] or "-")]
            + [format_ns(r["times_ns"].get(d)) if r["times_ns"].get(d) is not None else "-"
               for d in ds]
            + [f"{ratio:.2f}" if ratio is not None else "-"]
        )  # fmt: skip
    titles = ["size", "rule d", "best d"] + [f"d={d}" for d in ds] + ["rule/best"]
    return titles, "<" + ">" * (len(titles) - 1), rows


def hockney_lines(doc: Mapping[str, Any]) -> list[str]:
    lines = []
    for which in ("inter", "intra"):
        fit = doc["hockney"].get(which)
        if not fit:
            continue
        parts = []
        for s in fit["segments"]:
            upto = f"..{format_bytes(s['to_bytes'])}" if s["to_bytes"] is not None else "+"
            parts.append(
                f"{format_bytes(s['from_bytes'])}{upto}: alpha {format_ns(s['alpha_ns'])}, "
                f"beta {s['beta_ns_per_byte']:.4g} ns/B (max error {100 * s['max_rel_error']:.0f}%)"
            )
        where = f"{which}-node" if doc["nodes"] > 1 else "one node"
        lines.append(f"Hockney fit, {where} (ping-pong {fit['pairs']}): " + "; ".join(parts))
    return lines


def check_table(results: Mapping[str, Mapping[int, str]], nprocs: Sequence[int]) -> Table:
    """Algorithm variant x process count: ok, MISMATCH, error, or - (not run)."""
    titles = ["algorithm"] + [f"np={n}" for n in nprocs]
    rows = [[name] + [by_np.get(n, "-") for n in nprocs] for name, by_np in results.items()]
    return titles, "<" * len(titles), rows
