"""Synthetic measurement documents with known parameters, for the model tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

SIZES = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)


def point(op: str, size: int, ranks: Sequence[Sequence[float]], options: dict[str, str] | None
          = None, root: int | None = None, nprocs: int = 2) -> dict[str, Any]:  # fmt: skip
    """A point whose launch i has rank r's duration ranks[r][i] (the default
    time: the max over ranks)."""
    launches = len(ranks[0])
    times = [max(r[i] for r in ranks) for i in range(launches)]
    ordered = sorted(times)
    return {
        "op": op, "size_bytes": size, "nprocs": nprocs, "root": root,
        "options": dict(options or {}), "median_ns": ordered[launches // 2], "rse": 0.01,
        "per_rank": [{"rank": k, "median_ns": sorted(r)[launches // 2]}
                     for k, r in enumerate(ranks)],
        "raw": {"valid": [True] * launches, "time_ns": times,
                "start_ns": [[0.0] * len(ranks) for _ in range(launches)],
                "end_ns": [[r[i] for r in ranks] for i in range(launches)]},
    }  # fmt: skip


def noisy(rng: random.Random, value: float, n: int = 40, rel: float = 0.02) -> list[float]:
    return [value * (1 + rng.gauss(0, rel)) for _ in range(n)]


def hockney_doc(one_way: Callable[[float], float], seed: int = 3, rel: float = 0.02,
                sizes: Sequence[int] = SIZES) -> dict[str, Any]:  # fmt: skip
    """A ping-pong (round trip = 2 x one_way) over ``sizes``."""
    rng = random.Random(seed)
    points = []
    for s in sizes:
        rtt = noisy(rng, 2 * one_way(s), rel=rel)
        points.append(point("pingpong", s, [rtt, rtt], {"pairs": "0-1"}))
    return {"points": points, "environment": {"mpi_implementation": "test"}}


def loggp_doc(L: float, o_s: float, o_r: float, g: float, G: float, n: int = 10,
              delay_us: int = 2, seed: int = 5) -> dict[str, Any]:  # fmt: skip
    """prtt, overhead_recv and pingpong of an exact LogGP machine (Netgauge's formulas)."""
    rng = random.Random(seed)
    o = (o_s + o_r) / 2

    def t(s: float) -> float:
        return L + 2 * o + max(s - 1, 0) * G

    points = []
    for s in SIZES[:8]:
        single = t(s) + t(0) + 0.0
        train = single + (n - 1) * (g + s * G)
        delayed = single + (n - 1) * (o_s + delay_us * 1000.0)
        for opts, value in (({"n": "1", "delay_us": "0"}, single),
                            ({"n": str(n), "delay_us": "0"}, train),
                            ({"n": str(n), "delay_us": str(delay_us)}, delayed)):
            r0 = noisy(rng, value, rel=0.005)
            points.append(point("prtt", s, [r0, [v * 0.9 for v in r0]], opts))
        recv = noisy(rng, 100_000 + o_r, rel=0.0005)
        points.append(point("overhead_recv", s, [noisy(rng, 1000.0), recv], {"delay_us": "100"}))
        rtt = noisy(rng, 2 * t(s), rel=0.005)
        points.append(point("pingpong", s, [rtt, rtt], {"pairs": "0-1"}))
    return {"points": points, "environment": {}}
