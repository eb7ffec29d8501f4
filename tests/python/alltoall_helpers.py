"""Synthetic launch documents and alltoall-compare documents for the
Alltoall lab's tests (no MPI needed)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mpiscope.alltoall.compare import RunRecord, Variant, build_document
from mpiscope.alltoall.models import Topology


def run_doc(
    times: Mapping[str, Callable[[int], float]],
    sizes: Sequence[int],
    simulated: bool = False,
    options: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A result document with one point per op and size (median = times[op](size))."""
    points = []
    for op, f in times.items():
        for s in sizes:
            t = f(s)
            points.append({
                "op": op, "size_bytes": s, "median_ns": t, "mean_ns": t, "ci_low_ns": 0.98 * t,
                "ci_high_ns": 1.02 * t, "confidence": 0.95, "unstable": False,
                "options": dict(options or {}),
            })  # fmt: skip
    env = {"mpi_implementation": "smpi" if simulated else "mpich", "launcher": "mpiexec -n 8"}
    return {"status": "complete", "environment": env, "points": points}


SIZES = [1, 8, 64, 512, 4096, 32768]


def compare_doc(nprocs: int = 8, simulated: bool = False, nodes: int = 2) -> dict[str, Any]:
    """A run of 8 ranks on 2 virtual nodes: bruck wins small sizes, pairwise
    large ones; native default in between; PLP with d=1,2,4, d=2 best at
    every size; MPICH brucks and pairwise forced; a two-regime ping-pong."""
    per = nprocs // nodes
    lab = run_doc({
        "alltoall": lambda s: 2000 + 2.0 * s,
        "alltoall_bruck": lambda s: 1000 + 4.0 * s,
        "alltoall_pairwise": lambda s: 3000 + 1.0 * s,
        "alltoall_plp": lambda s: 1500 + 1.5 * s,
    }, SIZES, simulated)  # fmt: skip
    plp = {d: run_doc({"alltoall_plp": (lambda s, d=d: (1400 + 1.4 * s) * (1 + abs(d - 2)))},
                         SIZES, simulated) for d in (1, 2, 4)}  # fmt: skip
    brucks = run_doc({"alltoall": lambda s: 1100 + 4.5 * s}, SIZES, simulated)
    pairwise = run_doc({"alltoall": lambda s: 3100 + 1.1 * s}, SIZES, simulated)
    pp_sizes = [2**k for k in range(0, 21)]
    pingpong = run_doc(
        {"pingpong": lambda s: 2 * (500 + 0.1 * s if s <= 16384 else 4000 + 0.05 * s)},
        pp_sizes, simulated, {"pairs": f"0-{per}"},
    )
    runs = [RunRecord("lab", {"nodes": str(nodes)}, doc=lab)]
    variants = [
        Variant("native", "native", "alltoall", "default", "mpich-auto", 0),
        Variant("bruck", "lab", "alltoall_bruck", "bruck", "bruck", 0),
        Variant("pairwise", "lab", "alltoall_pairwise", "pairwise", "pairwise", 0),
        Variant("plp", "lab", "alltoall_plp", "plp", "plp", 0),
    ]
    for d, doc in plp.items():
        runs.append(RunRecord(f"plp:d={d}", {"leaders": str(d)}, doc=doc))
        variants.append(Variant(f"plp:d={d}", "lab", "alltoall_plp", "plp", "plp",
                                len(runs) - 1, leaders=d))  # fmt: skip
    for name, doc in (("brucks", brucks), ("pairwise", pairwise)):
        env = {"MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM": name}
        runs.append(RunRecord(f"native:{name}", env=env, doc=doc))
        variants.append(Variant(f"native:{name}", "native-forced", "alltoall", name,
                                "bruck" if name == "brucks" else "pairwise", len(runs) - 1))
    runs.append(RunRecord("pingpong-inter", {"pairs": f"0-{per}"}, doc=pingpong))
    return build_document(
        variants=variants, runs=runs, sizes=SIZES,
        topology=Topology(nprocs, nodes, per, 8192), node_sizes=[per] * nodes,
        nodes_option=nodes, implementation="smpi" if simulated else "mpich",
        command_line="mpiscope alltoall compare --np 8 --nodes 2",
        inter_run=len(runs) - 1, intra_run=None,
    )  # fmt: skip
