"""Tuning files from an alltoall-compare document, and the proof that the
library follows them.

MPICH: the library's own MPIR collective-selection tree (a JSON string
embedded in libmpi) copied whole, with only the ``collective=alltoall``
subtree's non-in-place intra-communicator branch changed for each measured
communicator size (a file holding only alltoall makes MPI_Init abort,
research notes 2.4). Open MPI: a coll/tuned classic rules file
(rule-file-version-2) whose message size is dtsize x comm_size x count.

In both, a library can only run its own algorithms: the choice per size
is the fastest of the library's algorithms forced in the comparison.

The proof is timing-free: a copy of the file with ONE range's algorithm
replaced by one that fails for a plain (not in-place) Alltoall must fail
at a size inside that range and only there (MPICH:
MPIR_Alltoall_intra_pairwise_sendrecv_replace asserts sendbuf ==
MPI_IN_PLACE; Open MPI: algorithm id 6, one past the last, is refused with
MPI_ERR_ARG), while the file itself runs at every size. So the library
reads the file and, for each size, executes the leaf of the range that
holds it.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope import inputs
from mpiscope.alltoall.catalogue import native_algorithms
from mpiscope.alltoall.compare import variant_median
from mpiscope.errors import MpiscopeError

__all__ = [
    "MPICH_BROKEN",
    "OMPI_BROKEN",
    "ProofStep",
    "Ranges",
    "choices",
    "find_libmpi",
    "mpich_tree",
    "mpich_tuned_tree",
    "openmpi_rules",
    "parse_mpich_ranges",
    "parse_openmpi_rules",
    "prove",
]

_ALG = "algorithm=MPIR_Alltoall_intra_"
_A2A = "collective=alltoall"
_NOT_IN_PLACE = "is_sendbuf_inplace=no"
#: A leaf that fails for a not-in-place Alltoall, and what its failure prints.
MPICH_BROKEN = ("pairwise_sendrecv_replace", "sendbuf == MPI_IN_PLACE")
OMPI_BROKEN = ("6", "MPI_ERR_ARG")
#: Open MPI coll/tuned's id of alltoall in a rules file.
OMPI_ALLTOALL_ID = 3

#: Per communicator size: [(up to bytes per destination or None for beyond, algorithm)].
Ranges = dict[int, list[tuple[int | None, str]]]


def choices(docs: Sequence[Mapping[str, Any]], implementation: str) -> Ranges:
    """Per document (one communicator size each): the fastest of the
    library's forced algorithms that a tuning file can name, per size,
    merged into ranges (up to and including each size; the last open)."""
    tunable = {a.name: a.tune_name for a in native_algorithms(implementation) if a.tune_name}
    ranges: Ranges = {}
    for doc in docs:
        if doc["mpi_implementation"] != implementation:
            raise MpiscopeError(
                f"a comparison measured with {doc['mpi_implementation']} cannot tune "
                f"{implementation}: its library ran other algorithms "
                f"(compare --mpi {implementation})"
            )
        forced = [v for v in doc["variants"]
                  if v["kind"] == "native-forced" and v["algorithm"] in tunable]  # fmt: skip
        nprocs = int(doc["nprocs"])
        picked: list[tuple[int, str]] = []
        for size in doc["sizes"]:
            timed = [(variant_median(v, size), v["algorithm"]) for v in forced]
            timed = [(t, a) for t, a in timed if math.isfinite(t)]
            if timed:
                picked.append((size, str(tunable[min(timed)[1]])))
        if not picked:
            raise MpiscopeError(
                f"the comparison at {nprocs} processes has no measured forced {implementation} "
                "algorithm to choose from"
            )
        if nprocs in ranges:
            raise MpiscopeError(f"two comparisons at {nprocs} processes: give one per count")
        merged: list[tuple[int | None, str]] = []
        for size, alg in picked:
            if merged and merged[-1][1] == alg:
                merged[-1] = (size, alg)
            else:
                merged.append((size, alg))
        merged[-1] = (None, merged[-1][1])
        ranges[nprocs] = merged
    return dict(sorted(ranges.items()))


# --- MPICH ----------------------------------------------------------------------------
def find_libmpi(prefix: str) -> Path:
    """The MPI library of an installation prefix: the largest lib/ or lib64/
    libmpi.so* (libmpi.so itself may be a symlink or a linker script)."""
    for sub in ("lib", "lib64"):
        found = [p.resolve() for p in Path(prefix, sub).glob("libmpi.so*") if p.exists()]
        if found:
            return max(found, key=lambda p: p.stat().st_size)
    raise MpiscopeError(f"no libmpi.so under {prefix}/lib or lib64 (give --base FILE)")


def embedded_trees(data: bytes) -> list[dict[str, Any]]:
    """Every JSON selection tree embedded as a C string in a library."""
    trees = []
    start = 0
    while (at := data.find(b'"collective=', start)) >= 0:
        begin = data.rfind(b"\0", 0, at) + 1
        end = data.find(b"\0", at)
        end = len(data) if end < 0 else end
        start = end
        try:
            tree = json.loads(data[begin:end].decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(tree, dict):
            trees.append(tree)
    return trees


def mpich_tree(path: Path) -> dict[str, Any]:
    """The MPIR algorithm tree: from a library (the embedded tree whose
    alltoall names MPIR_Alltoall_intra_ algorithms) or a JSON file."""
    data = inputs.read_bytes(path, "--base")
    if data.lstrip().startswith(b"{"):
        trees = [inputs.parse_json(data, f"--base {path}")]
    else:
        trees = embedded_trees(data)
    for tree in trees:
        if _ALG in json.dumps(tree.get(_A2A, {})):
            return tree
    raise MpiscopeError(f"{path} holds no MPIR selection tree with an alltoall algorithm")


def _leaves(ranges: Sequence[tuple[int | None, str]]) -> dict[str, Any]:
    return {
        ("avg_msg_size=any" if upto is None else f"avg_msg_size<={upto}"): {_ALG + alg: {}}
        for upto, alg in ranges
    }


def mpich_tuned_tree(base: Mapping[str, Any], ranges: Ranges) -> dict[str, Any]:
    """A copy of ``base`` where, for each measured communicator size N, the
    not-in-place intra branch of alltoall first tries ``comm_size<=N-1``
    (the library's own choice), then ``comm_size<=N`` (the measured ranges);
    everything else (other collectives, in-place, inter) is unchanged.

    ``comm_size<=N-1``, not ``comm_size<N``: MPICH 5.0.2 matched a
    ``comm_size<2`` branch for a 2-rank communicator (its csel turns ``<``
    into ``<=`` through another union member), which the proof caught."""
    tree = copy.deepcopy(dict(base))
    try:
        intra = tree[_A2A]["comm_type=intra"]
        original = intra[_NOT_IN_PLACE]
    except (KeyError, TypeError):
        raise MpiscopeError(
            "the base tree has no collective=alltoall / comm_type=intra / is_sendbuf_inplace=no"
        ) from None
    branch: dict[str, Any] = {}
    below = 0  # the communicator sizes up to here have a branch already
    for nprocs, chosen in sorted(ranges.items()):
        if nprocs - 1 > below:
            branch[f"comm_size<={nprocs - 1}"] = copy.deepcopy(original)
        below = nprocs
        branch[f"comm_size<={nprocs}"] = _leaves(chosen)
    branch["comm_size=any"] = copy.deepcopy(original)
    intra[_NOT_IN_PLACE] = branch
    return tree


def _written(branch: Any) -> bool:
    """Whether a branch has the shape :func:`_leaves` writes: size condition ->
    {one algorithm leaf: {}}."""
    return isinstance(branch, dict) and all(
        isinstance(v, dict) and len(v) == 1 and next(iter(v)).startswith(_ALG)
        and next(iter(v.values())) == {}
        for v in branch.values()
    )


def parse_mpich_ranges(tree: Mapping[str, Any]) -> Ranges:
    """The ranges a tree written by :func:`mpich_tuned_tree` chose."""
    try:
        branch = tree[_A2A]["comm_type=intra"][_NOT_IN_PLACE]
    except (KeyError, TypeError):
        raise MpiscopeError(
            "no collective=alltoall / comm_type=intra / is_sendbuf_inplace=no"
        ) from None
    ranges: Ranges = {}
    for key, leaves in branch.items():
        if not key.startswith("comm_size<=") or not _written(leaves):
            continue
        found: list[tuple[int | None, str]] = []
        for cond, leaf in leaves.items():
            upto = None if cond == "avg_msg_size=any" else int(cond.split("<=")[1])
            (name,) = leaf
            found.append((upto, name.removeprefix(_ALG)))
        ranges[int(key.split("<=")[1])] = found
    if not ranges:
        raise MpiscopeError("the tree has no comm_size<=N branch written by alltoall tune")
    return ranges


# --- Open MPI -------------------------------------------------------------------------
def openmpi_rules(ranges: Ranges) -> str:
    """The coll/tuned rules file (classic format, version 2): per
    communicator size N, one rule per range starting at its first byte
    count, message size = dtsize x N x count (here bytes: N x per-destination
    bytes), the first rule at 0 bytes."""
    lines = ["rule-file-version-2", "1  # number of collectives",
             f"{OMPI_ALLTOALL_ID}  # collective id: alltoall",
             f"{len(ranges)}  # number of communicator sizes"]  # fmt: skip
    for nprocs, chosen in ranges.items():
        lines += [f"{nprocs}  # communicator size", f"{len(chosen)}  # number of rules"]
        start = 0
        for upto, alg in chosen:
            lines.append(f"{start} {alg} 0 0 0  # bytes alg topo segsize max_requests")
            if upto is not None:
                start = nprocs * (upto + 1)
    return "\n".join(lines) + "\n"


def parse_openmpi_rules(text: str) -> Ranges:
    """Per communicator size, [(first byte count of the rule, algorithm id)]
    as a rules file for alltoall says (comments after #)."""
    words = [line.split("#")[0].split() for line in text.splitlines()]
    rows = [w for w in words if w]
    try:
        if rows[0] != ["rule-file-version-2"]:
            raise MpiscopeError("not a rule-file-version-2 rules file")
        at, found = 2, {}
        for _ in range(int(rows[1][0])):
            coll, ncomm = int(rows[at][0]), int(rows[at + 1][0])
            at += 2
            for _ in range(ncomm):
                nprocs, nrules = int(rows[at][0]), int(rows[at + 1][0])
                rules = [(int(r[0]), r[1]) for r in rows[at + 2: at + 2 + nrules]]
                at += 2 + nrules
                if coll == OMPI_ALLTOALL_ID:
                    found[nprocs] = rules
    except (IndexError, ValueError):
        raise MpiscopeError("the rules file is truncated or has a non-number") from None
    if not found:
        raise MpiscopeError("the rules file has no alltoall rule")
    return dict(found)  # type: ignore[arg-type]


# --- the proof ------------------------------------------------------------------------
@dataclass(frozen=True)
class ProofStep:
    nprocs: int
    size_bytes: int
    file: str  # "as written" or "range i broken"
    expect_failure: bool
    failed: bool  # the launch exited non-zero
    signature: bool  # ... printing the broken algorithm's failure
    evidence: str  # the signature line seen, or the exit status and last line

    @property
    def ok(self) -> bool:
        """Failed with the signature where expected; ran clean elsewhere."""
        if self.expect_failure:
            return self.failed and self.signature
        return not self.failed


#: run(file, nprocs, size_bytes) -> (exit code, output of the launch)
Runner = Callable[[Path, int, int], tuple[int, str]]


def _sizes_inside(bounds: Sequence[int | None], starts: Sequence[int]) -> list[int | None]:
    """A per-destination size inside each range: its upper end, the open last
    range's start; never 0 (a 0-byte Alltoall moves nothing and the
    libraries return before any algorithm), None for a range of 0 bytes only."""
    sizes: list[int | None] = []
    for b, s in zip(bounds, starts, strict=True):
        size = b if b is not None else max(s, 1)
        sizes.append(size if size > 0 else None)
    return sizes


def prove(
    implementation: str, file: Path, workdir: Path, run: Runner
) -> list[ProofStep]:
    """Run the proof for every communicator size the file tunes (see the
    module docstring); each step says what was expected and what was seen."""
    try:
        text = inputs.read_text(file, "--check")
    except UnicodeDecodeError:
        raise MpiscopeError(f"--check {file}: not a tuning file (not UTF-8 text)") from None
    if implementation == "mpich":
        tree = inputs.parse_json(text, f"--check {file}")
        ranges = parse_mpich_ranges(tree)
        per_comm = {n: [u for u, _ in r] for n, r in ranges.items()}
        starts = {n: [0] + [u + 1 for u in b[:-1] if u is not None] for n, b in per_comm.items()}
        broken, signature = MPICH_BROKEN
    elif implementation == "openmpi":
        rules = parse_openmpi_rules(text)
        per_comm = {}
        starts = {}
        for n, r in rules.items():
            # per-destination bytes (an Open MPI rule always has its first byte count)
            firsts = [math.ceil((b or 0) / n) for b, _ in r]
            per_comm[n] = [f - 1 for f in firsts[1:]] + [None]
            starts[n] = firsts
        broken, signature = OMPI_BROKEN
    else:
        raise MpiscopeError(f"no tuning proof for {implementation!r} (mpich or openmpi)")
    steps = []
    for nprocs, bounds in per_comm.items():
        sizes = _sizes_inside(bounds, starts[nprocs])
        for size in sizes:
            if size is not None:
                steps.append(_step(run, file, nprocs, size, "as written", False, signature))
        for index in range(len(bounds)):
            if sizes[index] is None:
                continue
            mutated = workdir / f"broken-{nprocs}-{index}"
            if implementation == "mpich":
                mutated.write_text(json.dumps(_break_mpich(tree, nprocs, index, broken)))
            else:
                mutated.write_text(_break_openmpi(text, nprocs, index, broken))
            label = f"range {index + 1} broken"
            for other, size in enumerate(sizes):
                if size is None:
                    continue
                steps.append(
                    _step(run, mutated, nprocs, size, label, other == index, signature)
                )
    return steps


def _step(
    run: Runner, file: Path, nprocs: int, size: int, label: str, expect: bool, signature: str
) -> ProofStep:
    code, output = run(file, nprocs, size)
    seen = next((line.strip() for line in output.splitlines() if signature in line), None)
    last = (output.strip().splitlines() or [""])[-1].strip()
    evidence = seen or (f"exit {code}" + (f": {last}" if code and last else ""))
    return ProofStep(nprocs, size, label, expect, code != 0, seen is not None, evidence[:200])


def _break_mpich(tree: Mapping[str, Any], nprocs: int, index: int, broken: str) -> dict[str, Any]:
    out = copy.deepcopy(dict(tree))
    leaves = out[_A2A]["comm_type=intra"][_NOT_IN_PLACE][f"comm_size<={nprocs}"]
    key = list(leaves)[index]
    leaves[key] = {_ALG + broken: {}}
    return out


def _break_openmpi(text: str, nprocs: int, index: int, broken: str) -> str:
    """The rules text with the ``index``-th rule of communicator size
    ``nprocs`` naming algorithm ``broken``."""
    rules = parse_openmpi_rules(text)
    changed = {n: [(b, broken if (n == nprocs and i == index) else a)
                   for i, (b, a) in enumerate(r)] for n, r in rules.items()}  # fmt: skip
    lines = ["rule-file-version-2", "1", str(OMPI_ALLTOALL_ID), str(len(changed))]
    for n, r in changed.items():
        lines += [str(n), str(len(r))] + [f"{b} {a} 0 0 0" for b, a in r]
    return "\n".join(lines) + "\n"
