"""Which Alltoall algorithms exist: the lab's (from the engine's own
description) and the native library's that can be forced, per MPI
implementation, with the settings that force each.

The native names and settings come from the research notes
(/work/shared/research/alltoall-models.md, sections 2, 3 and 6.1):
MPICH's ``MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM`` values and its multi-leader
composition alpha, Open MPI's coll/tuned ids, SimGrid SMPI's
``--cfg=smpi/alltoall:NAME`` names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.result.describe import description

__all__ = [
    "LEADER_OPTIONS",
    "LabAlgorithm",
    "NativeAlgorithm",
    "lab_algorithms",
    "native_algorithms",
    "native_setting",
    "topology_env",
]

#: The options every leader-based algorithm takes (spec/alltoall.md; the ops'
#: descriptors give their defaults and help).
LEADER_OPTIONS = ("nodes", "inter", "aggregate", "size_crit")
_OP_PREFIX = "alltoall_"


@dataclass(frozen=True)
class LabAlgorithm:
    """One algorithm of the lab, measured by the engine op ``op``."""

    name: str
    op: str
    description: str
    leader_based: bool
    #: the op's options as the engine describes them (name -> default), if known
    options: Mapping[str, str] = field(default_factory=dict)


def _op_options() -> dict[str, dict[str, str]]:
    return {
        op["name"]: {o["name"]: str(o.get("default", "")) for o in op.get("options", [])}
        for op in description().get("ops", [])
    }


def lab_algorithms(ops: Sequence[Mapping[str, Any]] | None = None) -> list[LabAlgorithm]:
    """The lab's algorithms in the engine's order: the description's
    ``alltoall_algorithms`` array, else the ``alltoall_*`` ops of ``ops``
    (the bench's catalogue as dicts with name, description, options) or of
    the description that describe themselves as "Alltoall lab" or take the
    lab's ``nodes`` option (``alltoall_init``, the persistent MPI_Alltoall,
    does neither). MpiscopeError when there are none (an old bench)."""
    options = _op_options()
    listed = description().get("alltoall_algorithms")
    if listed:
        return [
            LabAlgorithm(a["name"], a["op"], a["description"], bool(a["leader_based"]),
                         options.get(a["op"], {}))
            for a in listed
        ]  # fmt: skip
    found: list[LabAlgorithm] = []
    for op in ops if ops is not None else description().get("ops", []):
        name = str(op["name"])
        if not name.startswith(_OP_PREFIX):
            continue
        opts = {str(o["name"]): str(o.get("default", "")) for o in op.get("options", [])}
        if "nodes" not in opts and not str(op.get("description", "")).startswith("Alltoall lab"):
            continue
        found.append(
            LabAlgorithm(name[len(_OP_PREFIX):], name, str(op.get("description", "")),
                         "inter" in opts, opts)
        )  # fmt: skip
    if not found:
        raise MpiscopeError(
            "this mpiscope-bench has no Alltoall lab algorithms (no alltoall_* operation): "
            "rebuild it from a source tree with src/alltoall"
        )
    return found


@dataclass(frozen=True)
class NativeAlgorithm:
    """An algorithm of the MPI library itself, forced for a whole launch."""

    name: str  # as the library names it: "brucks", "modified_bruck", "bruck"
    implementation: str  # "mpich" | "openmpi" | "smpi"
    model: str | None  # the lab model that describes it (models.MODELS), or None
    description: str
    #: MPICH: the algorithm=MPIR_Alltoall_intra_<name> leaf; Open MPI: the coll/tuned id
    tune_name: str | None = None
    #: bytes per destination above which the library refuses it (composition alpha)
    max_bytes: int | None = None
    needs_nodes: bool = False  # only meaningful with several (real or virtual) nodes


_MPICH = (
    NativeAlgorithm("brucks", "mpich", "bruck", "Bruck, radix 2 (MPIR_Alltoall_intra_brucks)",
                    "brucks"),
    NativeAlgorithm("k_brucks", "mpich", "bruck",
                    "Bruck, radix MPIR_CVAR_ALLTOALL_BRUCKS_KVAL (default 2)", "k_brucks"),
    NativeAlgorithm("pairwise", "mpich", "pairwise",
                    "p-1 Sendrecv rounds (XOR partner for power-of-two p)", "pairwise"),
    NativeAlgorithm("scattered", "mpich", "linear",
                    "Isend/Irecv in batches of MPIR_CVAR_ALLTOALL_THROTTLE (32)", "scattered"),
    NativeAlgorithm("nb", "mpich", "linear", "MPI_Ialltoall + wait", None),
    NativeAlgorithm("composition_alpha", "mpich", "m_leader",
                    "multi-leader composition (the seed's M-leader), needs several nodes",
                    None, max_bytes=4096, needs_nodes=True),
)  # fmt: skip
_OPENMPI = (
    NativeAlgorithm("linear", "openmpi", "linear", "post all isend/irecv pairs, wait", "1"),
    NativeAlgorithm("pairwise", "openmpi", "pairwise", "p rounds of MPI_Sendrecv", "2"),
    NativeAlgorithm("modified_bruck", "openmpi", "bruck", "Bruck, radix 2", "3"),
    NativeAlgorithm("linear_sync", "openmpi", "linear",
                    "N isend/irecv pairs in flight (coll_tuned_alltoall_algorithm_max_requests)",
                    "4"),
    NativeAlgorithm("two_proc", "openmpi", "pairwise", "2-rank special case", "5"),
)  # fmt: skip
_SMPI = (
    NativeAlgorithm("bruck", "smpi", "bruck", "Bruck", "bruck"),
    NativeAlgorithm("pair", "smpi", "pairwise", "pairwise exchange", "pair"),
    NativeAlgorithm("ring", "smpi", "pairwise", "virtual ring", "ring"),
    NativeAlgorithm("basic_linear", "smpi", "linear", "all isend/irecv at once", "basic_linear"),
    NativeAlgorithm("rdb", "smpi", None, "recursive doubling", "rdb"),
    NativeAlgorithm("2dmesh", "smpi", None, "2-D mesh", "2dmesh"),
    NativeAlgorithm("mvapich2", "smpi", None, "MVAPICH2's selector", "mvapich2"),
    NativeAlgorithm("ompi", "smpi", None, "Open MPI's selector", "ompi"),
    NativeAlgorithm("mpich", "smpi", None, "MPICH's selector", "mpich"),
)  # fmt: skip
_NATIVE = {"mpich": _MPICH, "openmpi": _OPENMPI, "smpi": _SMPI}


def native_algorithms(implementation: str) -> tuple[NativeAlgorithm, ...]:
    """The algorithms the library ``implementation`` can be made to run
    (empty for an MPI we know nothing about)."""
    return _NATIVE.get(implementation, ())


def topology_env(implementation: str, nodes: int) -> dict[str, str]:
    """What makes the library see the lab's ``nodes`` virtual nodes (K groups
    of consecutive ranks): MPICH's MPIR_CVAR_NUM_CLIQUES with
    CLIQUES_BY_BLOCK, for every launch of a run (its own MPI_Alltoall and
    composition alpha then see the same topology as the lab); nothing for
    real nodes (0) or other libraries."""
    if implementation == "mpich" and nodes > 0:
        return {"MPIR_CVAR_NUM_CLIQUES": str(nodes), "MPIR_CVAR_CLIQUES_BY_BLOCK": "1"}
    return {}


def native_setting(algorithm: NativeAlgorithm) -> tuple[dict[str, str], list[str]]:
    """The environment and launcher arguments that force ``algorithm`` for a
    launch (MPICH: a fallback is an error, never a silent other algorithm)."""
    impl = algorithm.implementation
    if impl == "mpich":
        env = {"MPIR_CVAR_COLLECTIVE_FALLBACK": "error"}
        if algorithm.name == "composition_alpha":
            env["MPIR_CVAR_ALLTOALL_COMPOSITION"] = "1"
        else:
            env["MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"] = algorithm.name
        return env, []
    if impl == "openmpi":
        return {
            "OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
            "OMPI_MCA_coll_tuned_alltoall_algorithm": str(algorithm.tune_name),
        }, []
    if impl == "smpi":
        return {}, [f"--cfg=smpi/alltoall:{algorithm.name}"]
    raise MpiscopeError(f"no way known to force an Alltoall algorithm of {impl!r}")
