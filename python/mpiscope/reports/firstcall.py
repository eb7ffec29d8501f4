"""First call versus second call: late initialization, the seed's Table 1.

A ``firstcall`` point holds, for one operation in a fresh communicator, the
time of its first call and of its second call (buffer at another address)
on every rank. The seed reports rank 0's ratio of the two; the operation's
time is the maximum over ranks, so the max-over-ranks ratio is shown too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mpiscope.reports.texttable import format_table
from mpiscope.result import Result
from mpiscope.result.units import format_bytes, format_ns, format_number

__all__ = ["FirstCallRow", "firstcall_lines", "firstcall_rows", "is_firstcall"]


@dataclass(frozen=True)
class FirstCallRow:
    op: str
    size_bytes: int | None
    nprocs: int
    first_rank0_ns: float | None
    second_rank0_ns: float | None
    ratio_rank0: float | None
    first_max_ns: float | None
    second_max_ns: float | None
    ratio_max: float | None


def is_firstcall(result: Result) -> bool:
    """True when the document's points are first-call measurements."""
    return result.points_kind == "firstcall"


def _first(values: Any) -> float | None:
    return float(values[0]) if values else None


def _max(values: Any) -> float | None:
    return float(max(values)) if values else None


def firstcall_row(point: Mapping[str, Any]) -> FirstCallRow:
    first, second = point.get("first_ns") or [], point.get("second_ns") or []
    return FirstCallRow(
        op=point["op"],
        size_bytes=point.get("size_bytes"),
        nprocs=point["nprocs"],
        first_rank0_ns=_first(first),
        second_rank0_ns=_first(second),
        ratio_rank0=point.get("ratio_rank0"),
        first_max_ns=_max(first),
        second_max_ns=_max(second),
        ratio_max=point.get("ratio_max"),
    )


def firstcall_rows(result: Result) -> list[FirstCallRow]:
    return [firstcall_row(p.data) for p in result.points if p.get("kind") == "firstcall"]


def _ratio(value: float | None) -> str:
    return "-" if value is None else format_number(value, 4)


def firstcall_lines(result: Result) -> list[str]:
    """The table: per operation, rank 0's and the max-over-ranks ratio of the
    first call's time to the second's, with the times."""
    rows = firstcall_rows(result)
    sizes = {format_bytes(row.size_bytes) for row in rows}
    nprocs = {row.nprocs for row in rows}
    lines = [
        "first call / second call (late initialization, the seed's Table 1): each operation "
        "in fresh processes and a fresh communicator, the second call's buffer at another "
        "address",
        f"{', '.join(sorted(sizes))}, {', '.join(str(n) for n in sorted(nprocs))} processes; "
        "ratio: first call's time / second call's; max: the max over ranks of each call's time",
        "",
    ]
    titles = [
        "op", "rank 0 ratio", "rank 0 first", "rank 0 second", "max ratio", "max first",
        "max second",
    ]  # fmt: skip
    cells = [
        [
            row.op,
            _ratio(row.ratio_rank0),
            format_ns(row.first_rank0_ns),
            format_ns(row.second_rank0_ns),
            _ratio(row.ratio_max),
            format_ns(row.first_max_ns),
            format_ns(row.second_max_ns),
        ]
        for row in rows
    ]
    return lines + format_table(titles, "<>>>>>>", cells)
