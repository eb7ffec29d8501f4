"""``mpiscope model check``: each measured collective point against every
algorithm's prediction for its operation, the relative error of each, and
which algorithm the library seems to run where one prediction fits far
better than the others; where the library beats every point-to-point
algorithm by more than the model's own fit error (:func:`unpredictable`),
that it cannot be sending messages at all. With a direct model
(:mod:`mpiscope.models.direct`) each point is set against the fit of its
own op."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.base import P2PModel
from mpiscope.models.collectives import COLLECTIVES
from mpiscope.models.data import across_runs
from mpiscope.models.direct import DirectModel

__all__ = ["CLEAR_FACTOR", "CheckRow", "Unpredictable", "check_points", "candidates",
           "mechanism", "seems_to_use", "unpredictable"]

#: One prediction "fits far better" when its error is at most this fraction
#: of the next best one's, and itself within MAX_SEEMS_ERROR.
CLEAR_FACTOR = 0.5
MAX_SEEMS_ERROR = 0.5


@dataclass(frozen=True)
class CheckRow:
    op: str
    size_bytes: int
    nprocs: int
    measured_ns: float
    predicted_ns: dict[str, float]

    def error(self, name: str) -> float:
        return (self.predicted_ns[name] - self.measured_ns) / self.measured_ns

    @property
    def best(self) -> str:
        return min(self.predicted_ns, key=lambda n: abs(self.error(n)))

    @property
    def seems(self) -> str | None:
        """The algorithm whose prediction fits far better than every other."""
        ranked = sorted(self.predicted_ns, key=lambda n: abs(self.error(n)))
        first = abs(self.error(ranked[0]))
        if first > MAX_SEEMS_ERROR:
            return None
        if len(ranked) == 1 or first <= CLEAR_FACTOR * abs(self.error(ranked[1])):
            return ranked[0]
        return None


def candidates(op: str) -> list[str]:
    """The algorithms of an engine op: ``bcast`` -> every ``bcast:*``; a
    lab op ``alltoall_bruck`` -> ``alltoall:bruck``."""
    names = [name for name in COLLECTIVES if name.split(":")[0] == op]
    if names:
        return names
    own = op.replace("_", ":", 1)
    return [own] if own in COLLECTIVES else []


def _direct_rows(model: DirectModel, doc: Mapping[str, Any]) -> list[CheckRow]:
    """Each point of an op the direct model fitted at its number of ranks."""
    rows = []
    for point in doc.get("points") or ():
        op, median, p = str(point.get("op")), point.get("median_ns"), int(point.get("nprocs") or 1)
        fitted = model.find(op, p)
        if fitted is None or not median or point.get("kind") == "firstcall":
            continue
        size = int(point.get("size_bytes") or 0)
        rows.append(CheckRow(op, size, p, float(median), {f"{op}:direct": fitted.time_ns(size)}))
    if not rows:
        have = ", ".join(f"{c.op} on {c.nprocs} ranks" for c in model.collectives)
        raise MpiscopeError(f"the measured document has no point the direct model fitted "
                            f"(it fitted {have})")  # fmt: skip
    return rows


def check_points(model: P2PModel, doc: Mapping[str, Any]) -> list[CheckRow]:
    """One row per sized point of a collective the models know (with a
    direct model: of an op it fitted), by op, ranks and size: a run
    measures its points in a shuffled order."""
    rows = _rows(model, across_runs(doc))
    return sorted(rows, key=lambda r: (r.op, r.nprocs, r.size_bytes))


def _rows(model: P2PModel, doc: Mapping[str, Any]) -> list[CheckRow]:
    if isinstance(model, DirectModel):
        return _direct_rows(model, doc)
    rows = []
    for point in doc.get("points") or ():
        names = candidates(str(point.get("op")))
        size, median = point.get("size_bytes"), point.get("median_ns")
        if not names or size is None or not median:
            continue
        p = int(point["nprocs"])
        predicted = {n: COLLECTIVES[n].time_ns(p, size, model.time_ns, model.gamma_ns_per_byte)
                     for n in names}  # fmt: skip
        rows.append(CheckRow(str(point["op"]), int(size), p, float(median), predicted))
    if not rows:
        ops = sorted({str(p.get("op")) for p in doc.get("points") or ()})
        raise MpiscopeError(
            "the measured document has no point of a collective the models predict "
            f"(it has {', '.join(ops) or 'no points'}; known: "
            f"{', '.join(sorted({n.split(':')[0] for n in COLLECTIVES}))})"
        )
    return rows


def seems_to_use(rows: Sequence[CheckRow]) -> list[tuple[str, int, int, int, str]]:
    """Runs of consecutive measured sizes of one op (and process count)
    where the same algorithm fits far better: (op, nprocs, from_bytes,
    to_bytes, name). A size where none does, or another does, ends a run."""
    runs: list[tuple[str, int, int, int, str]] = []
    open_run = False
    previous: tuple[str, int] | None = None
    for row in sorted(rows, key=lambda r: (r.op, r.nprocs, r.size_bytes)):
        name = row.seems if len(row.predicted_ns) > 1 else None
        same_group = previous == (row.op, row.nprocs)
        previous = (row.op, row.nprocs)
        if name is None:
            open_run = False
            continue
        last = runs[-1] if runs else None
        if open_run and same_group and last is not None and last[4] == name:
            runs[-1] = (last[0], last[1], last[2], row.size_bytes, name)
        else:
            runs.append((row.op, row.nprocs, row.size_bytes, row.size_bytes, name))
        open_run = True
    return runs


@dataclass(frozen=True)
class Unpredictable:
    """An op the library runs faster than any point-to-point algorithm can:
    at ``sizes`` every prediction exceeds the measured time by more than
    the model's fit error; ``factor``: the largest best-prediction / measured."""

    op: str
    nprocs: int
    sizes: tuple[int, ...]
    factor: float
    fit_error: float


def unpredictable(rows: Sequence[CheckRow], fit_error: float) -> list[Unpredictable]:
    """Per op and ranks, the sizes where the measured time beats every
    algorithm's prediction by more than ``fit_error`` (relative, the model's
    largest error on its own reference): no algorithm built from the
    model's messages can be that fast, so the library does not send them."""
    found: dict[tuple[str, int], list[CheckRow]] = {}
    for row in rows:
        if all(row.error(name) > fit_error for name in row.predicted_ns):
            found.setdefault((row.op, row.nprocs), []).append(row)
    return [Unpredictable(op, p, tuple(r.size_bytes for r in beaten),
                          max(min(r.predicted_ns.values()) / r.measured_ns for r in beaten),
                          fit_error)
            for (op, p), beaten in found.items()]  # fmt: skip


def mechanism(env: Mapping[str, Any]) -> str:
    """The likely way a library beats point-to-point, from where the ranks ran."""
    library = {"mpich": "MPICH's", "openmpi": "Open MPI's"}.get(
        str(env.get("mpi_implementation")), "the library's")
    if env.get("simulated"):
        return f"{library} simulated collective (SMPI's own algorithm selection)"
    if int(env.get("nodes") or 1) == 1:
        return (f"{library} shared-memory collectives (every rank on one node: the data "
                "moves through shared memory, no message is sent)")
    return (f"{library} hierarchical or offloaded collectives (a node-level step in shared "
            "memory, or the network's own collective engine)")
