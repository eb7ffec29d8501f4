"""Stragglers in collectives: who arrives last, how often, by how much.

Input: the documents of the collective launches (Allreduce and Barrier by
default, any op given), measured by the window method with ``--raw``:
every launch starts at one moment of the global clock, and each rank's own
start and end are recorded on that clock. A rank's start is its arrival at
the collective, its end its exit. In each launch the last arrival leads
the one before it by some time; a launch is a *straggler event* when that
lead exceeds the floor ``delta``: the larger of 1 us, ten times the median
lead of the launches (what arrivals differ by when nothing happens) and
three times the clocks' largest residual (the global clock cannot tell
arrivals closer than that apart).

Only launches whose first arrival kept its slot (within the method's late
tolerance) are judged. When even the first rank comes late, the run is
behind its schedule (a straggler in an earlier launch, a busy machine):
every rank enters as soon as it left the previous launch, and the order of
arrival is the previous launch's order of exit, which the collective's
algorithm fixes (the rank MPICH's Barrier releases last, always the same),
not which rank was held up. A late rank makes one event, in the launch it
was late for; the launches that catch up after it are *behind* and counted
apart. Nor is the first launch of each stage judged: its schedule reaches
the other ranks from rank 0 just before its slot (the method's lead), and
a busy machine makes the ranks that receive it late there far more often
than in the stage's other launches (here, under load: half of rank 1's
events in an eighth of the launches), whichever rank is slow.

Per rank: the events it caused (it arrived last), their leads (median,
largest), its share of the collective's time (the sum of its leads over
the sum of the launches' spans, last exit minus first arrival) and its
*wait share*: the sum of its leads over the run's time (each op from its
first arrival to its last exit) - how much of the run the others spent
waiting for it. A count alone is no verdict: 6,000 launches make any 2:1
imbalance of a few microseconds "significant", and such imbalances are
what a quiet VM shows (the rank the collective's algorithm makes wait
loses its core more often). A rank is named a straggler when the time it
costs the others is material and sure:

* effect: each op's launches are cut into ``blocks`` (10) consecutive
  blocks; in each, the rank's summed leads minus the median of the other
  ranks' (the others' wait for it beyond what they wait for anyone), over
  the block's time. The mean over the blocks is its *excess wait share*
  (an injected 10 Hz / 5 ms agent: ~4% of the run; the A/A imbalances of
  a quiet VM: a few hundredths of a percent);
* material and sure: the one-sided Student t probability, over the
  blocks, that the excess is at most ``share_floor`` (1% of the run),
  times p (one test per rank), below ``alpha`` (0.001). The two-sided 95%
  interval of the excess is reported. A block that holds one long
  preemption of either rank widens the interval instead of deciding it;
* consistency: it made the others wait longest in at least 3 of the 4
  quarters of the run (a burst of load on one core for a second is not a
  straggler);
* at least ``min_events`` events.

A node whose ranks together pass the same tests (their summed leads
against the median node's; with two nodes at least), with none of them
named alone, is named as the node. Every rank's tests are kept
(``ranks``), named or not: the verdict joins a rank's evidence with its
core's (docs/health.md). Two ranks are enough for all of this: the link
matrix of two ranks is one link, but the question "who makes the
collective wait" has an answer.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from mpiscope.health.robust import differences_from_others, excess_test, median

__all__ = ["StragglerRule", "analyse_stragglers"]

#: Events kept per op for the timeline (the longest leads).
TIMELINE_EVENTS = 2000
QUARTERS = 4


@dataclass(frozen=True)
class StragglerRule:
    alpha: float = 1e-3
    share_floor: float = 0.01  # of the run's time, the others' wait beyond the median rank's
    min_events: int = 5
    quarters_needed: int = 3
    floor_ns: float = 1000.0
    blocks: int = 10  # per op


class _Event(NamedTuple):
    quarter: int
    rank: int
    block: int  # over all ops
    lead: float


@dataclass
class _Launches:
    op: str
    size_bytes: int | None
    starts: list[list[float]]
    ends: list[list[float]]
    on_time: list[bool]  # the first arrival kept the launch's slot
    stage_first: list[bool]  # the first launch of its stage


def _stage_first(raw: Mapping[str, Any], method: Mapping[str, Any], count: int) -> list[bool]:
    """Which launches begin a stage: stage 0 has ``k_init`` launches, every
    later one ``k`` (the window method); none known without the numbers."""
    numbers, k, k_init = raw.get("launch"), method.get("k"), method.get("k_init")
    if numbers is None or not k or k_init is None:
        return [False] * count
    return [n >= k_init and (n - k_init) % k == 0 for n in numbers]


def _launches(doc: Mapping[str, Any]) -> list[_Launches]:
    method = doc.get("method") or {}
    tolerance = float(method.get("late_tolerance_ns") or 0.0)
    out = []
    for point in doc.get("points") or []:
        raw = point.get("raw")
        if not raw or not raw.get("start_ns"):
            continue
        starts = raw["start_ns"]
        slots = raw.get("slot_ns") or [None] * len(starts)
        on_time = [
            slot is None or min(s) - slot <= tolerance
            for s, slot in zip(starts, slots, strict=True)
        ]
        first = _stage_first(raw, method, len(starts))
        out.append(
            _Launches(point["op"], point.get("size_bytes"), starts, raw["end_ns"], on_time, first)
        )
    return out


def _lead(starts: Sequence[float]) -> tuple[int, float]:
    """(the last rank, its lead over the one before it)."""
    last = max(range(len(starts)), key=lambda r: starts[r])
    before = max((s for r, s in enumerate(starts) if r != last), default=starts[last])
    return last, starts[last] - before


def _clock_floor(doc: Mapping[str, Any]) -> float:
    sync = ((doc.get("environment") or {}).get("clock_sync")) or {}
    values = [sync.get("max_abs_residual_ns"), sync.get("max_abs_end_residual_ns")]
    return 3.0 * max((abs(float(v)) for v in values if v is not None), default=0.0)


def analyse_stragglers(
    doc: Mapping[str, Any], rank_nodes: Sequence[int], rule: StragglerRule = StragglerRule()
) -> dict[str, Any]:
    """The straggler section of the health document (see the module docstring)."""
    nprocs = len(rank_nodes)
    ops = []
    events: list[_Event] = []
    block_times: list[float] = []
    for run in _launches(doc):
        leads = [_lead(s) for s in run.starts]
        judged = [ok and not first for ok, first in zip(run.on_time, run.stage_first, strict=True)]
        typical = median([lead for (_, lead), ok in zip(leads, judged, strict=True) if ok])
        typical = typical or 0.0
        delta = max(rule.floor_ns, 10.0 * typical, _clock_floor(doc))
        origin = run.starts[0][0] if run.starts else 0.0
        per_rank: dict[int, list[float]] = {}
        spans = 0.0
        timeline = []
        exits_last = [0] * nprocs
        count = len(leads)
        blocks = max(1, min(rule.blocks, count))
        first_block = len(block_times)
        bounds: list[list[float]] = [[math.inf, -math.inf] for _ in range(blocks)]
        for i, ((last, lead), starts, ends) in enumerate(
            zip(leads, run.starts, run.ends, strict=True)
        ):
            spans += max(ends) - min(starts)
            block = i * blocks // count
            bounds[block][0] = min(bounds[block][0], min(starts))
            bounds[block][1] = max(bounds[block][1], max(ends))
            exits_last[max(range(nprocs), key=lambda r: ends[r])] += 1
            if lead > delta and judged[i]:
                per_rank.setdefault(last, []).append(lead)
                quarter = min(QUARTERS - 1, i * QUARTERS // count)
                events.append(_Event(quarter, last, first_block + block, lead))
                timeline.append([(starts[last] - origin) * 1e-9, last, lead])
        block_times += [max(0.0, high - low) for low, high in bounds]
        timeline.sort(key=lambda e: -e[2])
        ops.append(
            {
                "op": run.op,
                "size_bytes": run.size_bytes,
                "launches": len(leads),
                "behind": run.on_time.count(False),
                "stage_starts": judged.count(False) - run.on_time.count(False),
                "delta_ns": delta,
                "typical_lead_ns": typical,
                "events": sum(len(v) for v in per_rank.values()),
                "ranks": [
                    {
                        "rank": r,
                        "events": len(v),
                        "median_lead_ns": median(v),
                        "max_lead_ns": max(v),
                        "share": sum(v) / spans if spans > 0 else None,
                    }
                    for r, v in sorted(per_rank.items())
                ],
                "exits_last": exits_last,
                "timeline": sorted(timeline[:TIMELINE_EVENTS]),
            }
        )
    ranks = _judge(events, block_times, [[r] for r in range(nprocs)], nprocs, rule)
    nodes = sorted(set(rank_nodes))
    groups = [[r for r in range(nprocs) if rank_nodes[r] == n] for n in nodes]
    named_ranks = [dict(entry, rank=entry["ranks"][0]) for entry in ranks if entry["named"]]
    judged_nodes = _judge(events, block_times, groups, nprocs, rule) if len(groups) > 1 else []
    named_nodes = [
        dict(entry, node=nodes[entry["group"]])
        for entry in judged_nodes
        if entry["named"]
        and len(groups[entry["group"]]) > 1
        and not any(rank_nodes[n["rank"]] == nodes[entry["group"]] for n in named_ranks)
    ]
    for entry in [*ranks, *named_ranks, *named_nodes]:
        for key in ("group", "named"):
            entry.pop(key, None)
    for entry in ranks:
        entry["rank"] = entry.pop("ranks")[0]
    for entry in named_ranks:
        entry.pop("ranks", None)
    return {
        "ops": ops,
        "events": len(events),
        "run_ns": sum(block_times),
        "blocks": len(block_times),
        "ranks": ranks,
        "named_ranks": named_ranks,
        "named_nodes": named_nodes,
        "rule": dataclasses.asdict(rule),
    }


def _judge(
    events: Sequence[_Event],
    block_times: Sequence[float],
    groups: Sequence[Sequence[int]],
    nprocs: int,
    rule: StragglerRule,
) -> list[dict[str, Any]]:
    """Every group of ranks (single ranks, or the ranks of a node) with
    its tests, ``named`` when it made the others wait materially, surely
    and consistently beyond the median group (the module docstring)."""
    group_of = {r: g for g, members in enumerate(groups) for r in members}
    total = len(events)
    size = len(groups)
    counts = [0] * size
    waits = [[0.0] * size for _ in block_times]
    per_quarter = [[0.0] * size for _ in range(QUARTERS)]
    for event in events:
        g = group_of[event.rank]
        counts[g] += 1
        waits[event.block][g] += event.lead
        per_quarter[event.quarter][g] += event.lead
    differences = differences_from_others(waits, block_times)
    run = sum(block_times)
    out = []
    for g, members in enumerate(groups):
        share = len(members) / nprocs if nprocs else 0.0
        test = excess_test(differences[g], rule.share_floor, tests=size)
        quarters = sum(
            1
            for q in per_quarter
            if q[g] > 0 and q[g] > max((c for o, c in enumerate(q) if o != g), default=0.0)
        )
        waited = sum(row[g] for row in waits)
        p_value = test["p_value"]
        out.append(
            {
                "group": g,
                "ranks": list(members),
                "events": counts[g],
                "of": total,
                "expected": total * share,
                "wait_share": waited / run if run > 0 else None,
                "excess": test["excess"],
                "low": test["low"],
                "high": test["high"],
                "blocks": test["blocks"],
                "p_value": p_value,
                "quarters": quarters,
                "named": bool(
                    counts[g] >= rule.min_events
                    and p_value is not None
                    and p_value < rule.alpha
                    and quarters >= rule.quarters_needed
                ),
            }
        )
    return out
