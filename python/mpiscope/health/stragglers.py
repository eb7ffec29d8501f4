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
largest), and its share of the collective's time (the sum of its leads over
the sum of the launches' spans, last exit minus first arrival). A rank is
named a straggler when it caused more events than chance allows and does so
all along:

* significance: with E events among p ranks, each falls on a given rank
  with probability 1/p when no rank stands out; the rank's count k has
  the binomial tail P(X >= k) (p-value), multiplied by p (one test per
  rank) and below ``alpha``;
* effect: its odds of being the last, k / (E - k), at least ``odds``
  (2) times chance's, 1 / (p - 1): with 2 ranks, two events in three; a
  machine whose other work happens to land more on one core than the other
  makes a count significant long before it makes it that lopsided;
* consistency: it caused the most events in at least 3 of the 4 quarters
  of the run (a burst of load on one core for a second is not a straggler);
* at least ``min_events`` events.

A node whose ranks together pass the same tests (the null: its share of
the ranks), with none of them named alone, is named as the node. Two ranks
are enough for all of this: the link matrix of two ranks is one link, but
the question "who makes the collective wait" has an answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.health.robust import binomial_tail, median

__all__ = ["StragglerRule", "analyse_stragglers"]

#: Events kept per op for the timeline (the longest leads).
TIMELINE_EVENTS = 2000
QUARTERS = 4


@dataclass(frozen=True)
class StragglerRule:
    alpha: float = 1e-3
    odds: float = 2.0
    min_events: int = 5
    quarters_needed: int = 3
    floor_ns: float = 1000.0


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
    events: list[tuple[int, int, int]] = []  # (quarter, rank, op index)
    for index, run in enumerate(_launches(doc)):
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
        for i, ((last, lead), starts, ends) in enumerate(
            zip(leads, run.starts, run.ends, strict=True)
        ):
            spans += max(ends) - min(starts)
            exits_last[max(range(nprocs), key=lambda r: ends[r])] += 1
            if lead > delta and judged[i]:
                per_rank.setdefault(last, []).append(lead)
                events.append((min(QUARTERS - 1, i * QUARTERS // len(leads)), last, index))
                timeline.append([(starts[last] - origin) * 1e-9, last, lead])
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
    named_ranks = _judge(events, [[r] for r in range(nprocs)], nprocs, rule)
    nodes = sorted(set(rank_nodes))
    groups = [[r for r in range(nprocs) if rank_nodes[r] == n] for n in nodes]
    named_nodes = [
        dict(entry, node=nodes[entry.pop("group")])
        for entry in _judge(events, groups, nprocs, rule)
        if len(groups[entry["group"]]) > 1
        and not any(rank_nodes[n["ranks"][0]] == nodes[entry["group"]] for n in named_ranks)
    ]
    for entry in named_ranks:
        entry["rank"] = entry.pop("ranks")[0]
        entry.pop("group")
    return {
        "ops": ops,
        "events": len(events),
        "named_ranks": named_ranks,
        "named_nodes": named_nodes,
        "rule": {
            "alpha": rule.alpha,
            "odds": rule.odds,
            "min_events": rule.min_events,
            "quarters_needed": rule.quarters_needed,
            "floor_ns": rule.floor_ns,
        },
    }


def _judge(
    events: Sequence[tuple[int, int, int]],
    groups: Sequence[Sequence[int]],
    nprocs: int,
    rule: StragglerRule,
) -> list[dict[str, Any]]:
    """The groups of ranks (single ranks, or the ranks of a node) that
    caused significantly and consistently more events than their share."""
    group_of = {r: g for g, members in enumerate(groups) for r in members}
    total = len(events)
    counts = [0] * len(groups)
    per_quarter = [[0] * len(groups) for _ in range(QUARTERS)]
    for quarter, rank, _ in events:
        counts[group_of[rank]] += 1
        per_quarter[quarter][group_of[rank]] += 1
    named = []
    for g, members in enumerate(groups):
        if counts[g] < rule.min_events or not members:
            continue
        share = len(members) / nprocs
        p_value = min(1.0, binomial_tail(counts[g], total, share) * len(groups))
        quarters = sum(
            1
            for q in per_quarter
            if q[g] > 0 and q[g] > max((c for o, c in enumerate(q) if o != g), default=0)
        )
        others = total - counts[g]
        odds = math.inf if others == 0 else counts[g] / others / (share / (1.0 - share))
        if p_value < rule.alpha and quarters >= rule.quarters_needed and odds >= rule.odds:
            named.append(
                {
                    "group": g,
                    "ranks": list(members),
                    "events": counts[g],
                    "of": total,
                    "expected": total * share,
                    "p_value": p_value,
                    "quarters": quarters,
                    "odds_ratio": None if math.isinf(odds) else odds,
                }
            )
    return named
