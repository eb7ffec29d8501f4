"""The Alltoall lab's rules of a run, apart from how it is launched: the
nodes of a process count, the validation launches and how their outcome
reads, the ping-pong sizes the models need, the nodes a run really had."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.errors import MpiscopeError

__all__ = ["PINGPONG_MAX", "check_variants", "pingpong_sizes", "real_nodes", "topology",
           "validation_status"]

#: The largest ping-pong message of the Hockney fit.
PINGPONG_MAX = 4 << 20


def topology(nprocs: int, nodes: int) -> list[int]:
    from mpiscope.alltoall.plp import node_sizes

    if nodes > nprocs:
        raise MpiscopeError(f"--nodes {nodes} is more than the {nprocs} processes")
    return node_sizes(nprocs, nodes) if nodes else [nprocs]


def check_variants(
    lab: Sequence[Any], sizes_per_node: Sequence[int]
) -> list[tuple[str, list[str], dict[str, str]]]:
    """(label, ops, options) of each validation launch at one process count."""
    from mpiscope.alltoall.plp import leader_choices

    leaders = [a.op for a in lab if a.leader_based]
    variants: list[tuple[str, list[str], dict[str, str]]] = [
        ("", ["alltoall", *(a.op for a in lab)], {})]
    if leaders:
        for inter in ("bruck", "pairwise", "native"):
            variants.append((f"inter={inter}", leaders, {"inter": inter}))
        variants.append(("aggregate=p2p", leaders, {"aggregate": "p2p"}))
    plp = [a.op for a in lab if a.name == "plp"]
    for d in leader_choices(sizes_per_node) if plp else []:
        variants.append((f"leaders={d}", plp, {"leaders": str(d)}))
    return variants


_SYNC_MESSAGE = re.compile(r"left .* before rank .* entered")


def validation_status(
    doc: Mapping[str, Any] | None, op: str, error: str | None, expected: int
) -> tuple[str, bool]:
    """(the table cell, whether it is a failure) for one op of a validation
    launch: a data mismatch fails; so does a launch that measured fewer
    points than asked. The engine's other check of a synchronizing op (no
    rank leaves before every rank entered) is not about the data: MPI does
    not promise it (MPICH's 0-byte MPI_Alltoall returns at once), so it is
    shown, not failed."""
    points = [p for p in (doc or {}).get("points", []) if p.get("op") == op]
    bad = [p for p in points if (p.get("validation") or {}).get("failures")]
    data = [p for p in bad if not _SYNC_MESSAGE.search(p["validation"].get("first_mismatch", ""))]
    if data:
        v = data[0]["validation"]
        return f"MISMATCH {data[0]['size_bytes']} B: {v.get('first_mismatch', '')}"[:60], True
    if len(points) < expected:
        return ("error" if error else "missing points"), True
    if not all((p.get("validation") or {}).get("supported") for p in points):
        return "no check", True
    if bad:
        return "ok (returns early at " + ",".join(f"{p['size_bytes']}" for p in bad) + " B)", False
    return "ok", False


def pingpong_sizes(nprocs: int, per_node: int, largest: int) -> list[int]:
    """Powers of two up to the largest message a model needs (Bruck's N/2 m,
    One-leader's M M m), at most PINGPONG_MAX."""
    top = min(PINGPONG_MAX, max(nprocs * largest // 2, per_node * per_node * largest, 64))
    sizes, s = [], 1
    while s <= top:
        sizes.append(s)
        s *= 2
    return sizes


def real_nodes(doc: Mapping[str, Any] | None, nprocs: int) -> list[int] | None:
    """Ranks per node of real nodes as the launch's environment says (equal
    nodes assumed when the counts do not say more)."""
    env = (doc or {}).get("environment") or {}
    nodes, per = env.get("nodes"), env.get("ranks_per_node")
    if isinstance(nodes, int) and nodes > 0 and isinstance(per, int) and per * nodes == nprocs:
        return [per] * nodes
    return None
