"""The link matrix's schedule: a round-robin of disjoint pairs.

n units (nodes, or ranks on request) meet in n - 1 rounds when n is even, n
rounds when it is odd (one unit sits out each round): the circle method,
unit n' - 1 fixed and the others turning (n' = n rounded up to even). Every
pair meets exactly once, and in a round every unit is in one pair at most,
so the pairs of a round share no unit and are measured together.

A launch of the link op (``multi_lat``, ``mbw_mr``) runs round
``launch mod R`` of the ``pairs`` option built here (docs/operations.md:
``A-B,C-D;E-F,...``); with ``both_ways`` the rounds are given again with
each pair turned round, so a one-way measurement (bandwidth) runs in both
directions. The schedule is described here once: the bench parses the
text it is given, and the analysis (:mod:`mpiscope.health.links`) asks
:meth:`Schedule.pairs_of` which pair ran in a launch.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

__all__ = ["Schedule", "round_robin"]


def round_robin(units: int) -> list[list[tuple[int, int]]]:
    """The rounds of a round-robin over ``units`` (each a list of pairs
    (a, b), a < b); no rounds for fewer than 2 units."""
    if units < 2:
        return []
    n = units + units % 2  # a phantom unit when odd: its partner sits out
    turning = n - 1
    rounds = []
    for r in range(turning):
        pairs = [(r, n - 1)]
        for i in range(1, n // 2):
            pairs.append(((r + i) % turning, (r - i) % turning))
        rounds.append(sorted((min(a, b), max(a, b)) for a, b in pairs if max(a, b) < units))
    return rounds


@dataclass(frozen=True)
class Schedule:
    """Which pair of units runs in each launch; ``ranks[u]`` is unit u's
    rank in the link launch."""

    units: int
    ranks: tuple[int, ...]
    both_ways: bool = False

    @functools.cached_property
    def rounds(self) -> list[list[tuple[int, int]]]:
        """Every round, with the turned-round ones after (``both_ways``):
        (first, second) in units, the first one starting."""
        base = round_robin(self.units)
        return base + [[(b, a) for a, b in r] for r in base] if self.both_ways else base

    def pairs_text(self) -> str:
        """The ``pairs`` option of the link op: ``A-B,C-D;...`` in ranks."""
        return ";".join(
            ",".join(f"{self.ranks[a]}-{self.ranks[b]}" for a, b in pairs) for pairs in self.rounds
        )

    def pairs_of(self, launch: int) -> list[tuple[int, int]]:
        """The pairs (first, second unit) of the op's launch number ``launch``."""
        rounds = self.rounds
        return rounds[launch % len(rounds)] if rounds else []
