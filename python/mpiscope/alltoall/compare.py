"""The alltoall-compare document (docs/alltoall-schema.md): every variant
measured (the lab's algorithms, the library's MPI_Alltoall under its
default selection and under each algorithm it can be forced to run), the
Hockney model fitted from a ping-pong of the same run with its prediction
per variant and size, the winner per size, and PLP's rule-chosen d next to
the measured best d.

Built from the result documents of the command's runs of the bench (one run may have
failed: its variants then carry the error and no points, and the document
is "partial").
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mpiscope.alltoall.models import Topology, mpich_auto_model, predict
from mpiscope.alltoall.plp import best_leaders, plp_rule
from mpiscope.models.hockney import Hockney, fit_hockney
from mpiscope.version import package_version

__all__ = [
    "KIND",
    "SCHEMA_VERSION",
    "RunRecord",
    "Variant",
    "build_document",
    "hockney_of",
    "is_simulated",
    "plp_rows",
    "variant_median",
    "winner_rows",
]

KIND = "alltoall-compare"
#: 1.1: ``runs`` and a variant's ``run`` (``launches``, ``launch`` in 1.0).
SCHEMA_VERSION = "1.1"
#: The model name of the library's default selection under MPICH (per size).
MPICH_AUTO = "mpich-auto"


@dataclass(frozen=True)
class Variant:
    """One thing measured: an engine op under one set of options and settings."""

    name: str  # unique: "native", "native:brucks", "bruck", "plp", "plp:d=2"
    kind: str  # "native" | "native-forced" | "lab"
    op: str
    algorithm: str  # "default", a native name, or a lab algorithm name
    model: str | None
    run: int  # index of the run that measures it
    leaders: int | None = None  # PLP's fixed d (None: the rule's)


@dataclass
class RunRecord:
    """One run of the bench: what it was for, how it was set, what it gave."""

    purpose: str  # "lab", "native", "native:NAME", "plp:d=D", "pingpong-inter", ...
    options: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    launcher_args: Sequence[str] = ()
    doc: Mapping[str, Any] | None = None
    error: str | None = None

    def as_dict(self, index: int) -> dict[str, Any]:
        return {
            "index": index, "purpose": self.purpose, "options": dict(self.options),
            "env": dict(self.env), "launcher_args": list(self.launcher_args),
            "error": self.error, "simulated": is_simulated(self.doc),
            "launcher": None if self.doc is None
            else self.doc.get("environment", {}).get("launcher"),
        }  # fmt: skip


def is_simulated(doc: Mapping[str, Any] | None) -> bool:
    """Whether a run's result document says it ran on a simulated cluster."""
    if doc is None:
        return False
    env = doc.get("environment") or {}
    return bool(env.get("simulated")) or env.get("mpi_implementation") == "smpi"


def _points(doc: Mapping[str, Any] | None, op: str) -> dict[int, Mapping[str, Any]]:
    if doc is None:
        return {}
    return {
        int(p["size_bytes"]): p
        for p in doc.get("points", [])
        if p.get("op") == op and p.get("size_bytes") is not None
    }


def hockney_of(doc: Mapping[str, Any] | None, segments: int = 2) -> dict[str, Any] | None:
    """The Hockney section from a ping-pong run (one-way time = round trip
    / 2 of each size's median), or None without enough points."""
    points = _points(doc, "pingpong")
    usable = {s: p["median_ns"] / 2 for s, p in points.items() if p.get("median_ns")}
    if len(usable) < 2:
        return None
    sizes = sorted(usable)
    model = fit_hockney(sizes, [usable[s] for s in sizes], segments=segments)
    pairs = None
    for p in points.values():
        pairs = (p.get("options") or {}).get("pairs", pairs)
    return {
        "pairs": pairs or "0-1",
        "segments": [s.as_dict() for s in model.segments],
        "points": [{"size_bytes": s, "one_way_ns": usable[s]} for s in sizes],
    }


def _model_of(variant: Variant, implementation: str, nprocs: int, size: int) -> str | None:
    if variant.model == MPICH_AUTO:
        return mpich_auto_model(nprocs, size) if implementation == "mpich" else None
    return variant.model


def build_document(
    *,
    variants: Sequence[Variant],
    runs: Sequence[RunRecord],
    sizes: Sequence[int],
    topology: Topology,
    node_sizes: Sequence[int],
    nodes_option: int,
    implementation: str,
    command_line: str,
    inter_run: int | None,
    intra_run: int | None,
) -> dict[str, Any]:
    """The whole alltoall-compare document of a run."""
    inter = hockney_of(runs[inter_run].doc) if inter_run is not None else None
    intra = hockney_of(runs[intra_run].doc) if intra_run is not None else None
    inter_model = Hockney.from_dicts(inter["segments"]) if inter else None
    intra_model = Hockney.from_dicts(intra["segments"]) if intra else inter_model
    rows = []
    for v in variants:
        record = runs[v.run]
        by_size = _points(record.doc, v.op)
        points = []
        for size in sizes:
            p = by_size.get(size)
            if p is None:
                continue
            model = _model_of(v, implementation, topology.nprocs, size)
            predicted = (
                predict(model, topology, size, inter_model, intra_model, v.leaders)
                if inter_model is not None
                else None
            )
            points.append({
                "size_bytes": size,
                "median_ns": p.get("median_ns"),
                "mean_ns": p.get("mean_ns"),
                "ci_low_ns": p.get("ci_low_ns"),
                "ci_high_ns": p.get("ci_high_ns"),
                "confidence": p.get("confidence"),
                "unstable": bool(p.get("unstable", False)),
                "model": model,
                "predicted_ns": predicted,
            })  # fmt: skip
        rows.append({
            "name": v.name, "kind": v.kind, "op": v.op, "algorithm": v.algorithm,
            "model": v.model, "leaders": v.leaders, "run": v.run,
            "options": dict(record.options), "error": record.error, "points": points,
        })  # fmt: skip
    docs = [r.doc for r in runs if r.doc is not None]
    environment = dict(docs[0].get("environment", {})) if docs else {}
    errors = [f"{r.purpose}: {r.error}" for r in runs if r.error]
    doc: dict[str, Any] = {
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "mpiscope_version": package_version(),
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command_line": command_line,
        "status": "partial" if errors else "complete",
        "errors": errors,
        "units": {"time": "ns", "size": "bytes"},
        "mpi_implementation": implementation,
        "simulated": any(is_simulated(d) for d in docs),
        "environment": environment,
        "nprocs": topology.nprocs,
        "nodes": topology.nodes,
        "nodes_option": nodes_option,
        "ranks_per_node": list(node_sizes),
        "size_crit_bytes": topology.size_crit,
        "sizes": list(sizes),
        "runs": [r.as_dict(i) for i, r in enumerate(runs)],
        "hockney": {"inter": inter, "intra": intra},
        "variants": rows,
    }
    doc["winners"] = winner_rows(doc)
    doc["plp"] = plp_rows(doc)
    return doc


def variant_median(variant: Mapping[str, Any], size: int) -> float:
    """The variant's median at ``size`` (nan when not measured)."""
    for p in variant["points"]:
        if p["size_bytes"] == size and p.get("median_ns") is not None:
            return float(p["median_ns"])
    return math.nan


def _fastest(variants: Sequence[Mapping[str, Any]], size: int) -> tuple[str | None, float]:
    timed = [(variant_median(v, size), v["name"]) for v in variants]
    timed = [(t, n) for t, n in timed if math.isfinite(t)]
    if not timed:
        return None, math.nan
    t, n = min(timed)
    return n, t


def winner_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per size: the fastest variant overall, the fastest of the lab and of
    the library (default or forced), the default's time, and the speed-up
    of the best lab algorithm over the library's default (> 1: the lab wins)."""
    variants = doc["variants"]
    lab = [v for v in variants if v["kind"] == "lab"]
    native = [v for v in variants if v["kind"] != "lab"]
    default = next((v for v in variants if v["kind"] == "native"), None)
    rows = []
    for size in doc["sizes"]:
        winner, best = _fastest(variants, size)
        lab_name, lab_t = _fastest(lab, size)
        nat_name, nat_t = _fastest(native, size)
        base = variant_median(default, size) if default else math.nan
        ok = math.isfinite(base) and math.isfinite(lab_t) and lab_t > 0
        speedup = base / lab_t if ok else None
        rows.append({
            "size_bytes": size,
            "winner": winner, "winner_ns": best if winner else None,
            "best_lab": lab_name, "best_lab_ns": lab_t if lab_name else None,
            "best_native": nat_name, "best_native_ns": nat_t if nat_name else None,
            "native_default_ns": base if math.isfinite(base) else None,
            "speedup_best_lab_over_native": speedup,
        })  # fmt: skip
    return rows


def plp_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per size: PLP's rule-chosen d (from the ranks per node and
    size_crit) next to the d that measured fastest among the ``plp:d=D``
    variants, and how much slower the rule's choice was (1: the best)."""
    fixed = [v for v in doc["variants"] if v["algorithm"] == "plp" and v.get("leaders")]
    if not fixed:
        return []
    per_node = min(doc["ranks_per_node"])
    rows = []
    for size in doc["sizes"]:
        times = {int(v["leaders"]): variant_median(v, size) for v in fixed}
        best = best_leaders(times)
        rule = plp_rule(per_node, size, int(doc["size_crit_bytes"]))
        rule_t = times.get(rule, math.nan)
        best_t = times[best] if best is not None else math.nan
        ratio = rule_t / best_t if math.isfinite(rule_t) and math.isfinite(best_t) else None
        rows.append({
            "size_bytes": size, "ranks_per_node": per_node, "rule_leaders": rule,
            "best_leaders": best,
            "times_ns": {str(d): (t if math.isfinite(t) else None)
                         for d, t in sorted(times.items())},
            "rule_ns": rule_t if math.isfinite(rule_t) else None,
            "best_ns": best_t if math.isfinite(best_t) else None,
            "rule_over_best": ratio,
        })  # fmt: skip
    return rows
