"""``mpiscope model check``: each measured collective point against every
algorithm's prediction for its operation, the relative error of each, and
which algorithm the library seems to run where one prediction fits far
better than the others."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.base import P2PModel
from mpiscope.models.collectives import COLLECTIVES

__all__ = ["CLEAR_FACTOR", "CheckRow", "check_points", "candidates", "seems_to_use"]

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


def check_points(model: P2PModel, doc: Mapping[str, Any]) -> list[CheckRow]:
    """One row per sized point of a collective the models know."""
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
