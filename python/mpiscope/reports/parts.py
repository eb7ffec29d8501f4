"""What the point table does not show of the ops that call MPI from threads,
and of every op that says what its numbers depend on.

* parts: an op that times parts of a launch itself (each thread of
  ``thread_pingpong``, ``thread_rate`` and the partitioned ops) has, per
  point, each rank's and thread's distribution over the valid launches.
  The point's time is the slowest thread's; the table gives the fastest
  and the slowest thread's median, their ratio, and per launch the
  slowest minus the fastest (median over the launches): how unequal the
  threads were, which a mean hides.
* notes: the file system and hints of MPI-IO, the thread level and the
  threads against the CPUs, the memory of a large-count point, as the op
  found them; per op, a note the same at every point is given once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mpiscope.reports.texttable import format_table
from mpiscope.result import Point, Result
from mpiscope.result.units import format_bytes, format_ns, format_number

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PART_TITLES", "notes_lines", "op_notes", "parts_lines", "parts_rows"]

PART_TITLES = ["op", "size", "parts", "fastest (rank.part)", "slowest (rank.part)",
               "slowest/fastest", "launch spread", "each part's median"]  # fmt: skip
#: Parts listed one by one up to this many per point.
_LISTED = 8


def _where(entry: Mapping[str, Any]) -> str:
    return f"{entry['rank']}.{entry['part']}"


def _count(per_rank: int, name: str) -> str:
    return f"{per_rank} {name}{'' if per_rank == 1 else 's'} per rank"


def _part_row(point: Point) -> list[str]:
    parts: Mapping[str, Any] = point.get("parts") or {}
    entries = [e for e in parts.get("distribution") or () if e.get("median_ns") is not None]
    fastest = min(entries, key=lambda e: e["median_ns"], default=None)
    slowest = max(entries, key=lambda e: e["median_ns"], default=None)
    each = (", ".join(f"{_where(e)} {format_ns(e['median_ns'])}" for e in entries)
            if len(entries) <= _LISTED else f"{len(entries)} parts")  # fmt: skip
    ratio = parts.get("median_spread")
    return [
        point.op,
        format_bytes(point.size_bytes),
        _count(int(parts.get("per_rank") or 0), str(parts.get("name") or "part")),
        f"{format_ns(fastest['median_ns'])} ({_where(fastest)})" if fastest else "-",
        f"{format_ns(slowest['median_ns'])} ({_where(slowest)})" if slowest else "-",
        "-" if ratio is None else format_number(ratio, 3),
        format_ns(parts.get("launch_spread_median_ns")),
        each,
    ]


def parts_rows(result: Result) -> list[list[str]]:
    """One row per point that has parts."""
    return [_part_row(p) for p in result.points if p.get("parts")]


def parts_lines(result: Result) -> list[str]:
    """The parts table with its legend, or nothing."""
    rows = parts_rows(result)
    if not rows:
        return []
    return [
        "",
        "threads: each thread's own time in a launch (the point's time is the slowest "
        "thread's); medians over the valid launches; launch spread: per launch the slowest "
        "thread minus the fastest (median)",
        *format_table(PART_TITLES, "<>>>>>><", rows),
    ]


def op_notes(points: Sequence[Point]) -> dict[str, list[tuple[str, str]]]:
    """Per op, its notes: (name, text), a note the same at every point of
    the op once, another once per point with the point's size before it."""
    by_op: dict[str, list[Point]] = {}
    for point in points:
        if point.get("notes"):
            by_op.setdefault(point.op, []).append(point)
    out: dict[str, list[tuple[str, str]]] = {}
    for op, group in by_op.items():
        keys: list[str] = []
        for point in group:
            keys += [k for k in point["notes"] if k not in keys]
        lines = []
        for key in keys:
            texts = [(p, p["notes"].get(key)) for p in group if p["notes"].get(key) is not None]
            if len({text for _, text in texts}) == 1:
                lines.append((key, str(texts[0][1])))
            else:
                lines += [(key, f"{format_bytes(p.size_bytes)}: {text}") for p, text in texts]
        out[op] = lines
    return out


def notes_lines(result: Result) -> list[str]:
    """What the points' numbers depend on, per op, or nothing."""
    notes = op_notes(result.points)
    if not notes:
        return []
    lines = ["", "what the numbers depend on (as each op found it):"]
    for op, items in notes.items():
        lines.append(f"  {op}:")
        lines += [f"    {key}: {text}" for key, text in items]
    return lines
