"""The piecewise Hockney model (Hockney 1994; research notes 5.1): one
``alpha + beta*s`` line per protocol regime, the breakpoints found from the
data, not assumed (one line over all sizes was off by up to 679% on MPICH).

:func:`fit_hockney` is the one rule the Alltoall lab, ``mpiscope model fit``
and the C API (which ports it) use: exactly ``segments`` contiguous
segments of the sorted sizes, the breakpoints those that minimize the total
squared relative error (dynamic programming over every split), each line
fitted by weighted least squares on the relative error with alpha, beta >= 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mpiscope.errors import MpiscopeError

__all__ = ["Hockney", "Segment", "fit_hockney", "fit_hockney_auto", "fit_line", "split_points"]


@dataclass(frozen=True)
class Segment:
    """alpha + beta*s for sizes up to ``to_bytes`` (None: and beyond)."""

    from_bytes: int
    to_bytes: int | None
    alpha_ns: float
    beta_ns_per_byte: float
    points: int
    max_rel_error: float

    def as_dict(self) -> dict[str, object]:
        return {
            "from_bytes": self.from_bytes, "to_bytes": self.to_bytes, "alpha_ns": self.alpha_ns,
            "beta_ns_per_byte": self.beta_ns_per_byte, "points": self.points,
            "max_rel_error": self.max_rel_error,
        }  # fmt: skip


@dataclass(frozen=True)
class Hockney:
    """A piecewise Hockney model: the segment whose range holds s applies
    (below the first: the first; above the last: the last)."""

    segments: tuple[Segment, ...]
    gamma_ns_per_byte: float = 0.0

    def segment(self, nbytes: float) -> Segment:
        return next(
            (s for s in self.segments if s.to_bytes is None or nbytes <= s.to_bytes),
            self.segments[-1],
        )

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        """One message of ``nbytes``; ``sharing`` senders share the link (beta x sharing)."""
        seg = self.segment(nbytes)
        return seg.alpha_ns + sharing * seg.beta_ns_per_byte * nbytes

    @classmethod
    def from_dicts(
        cls, segments: Sequence[dict[str, object]], gamma_ns_per_byte: float = 0.0
    ) -> Hockney:
        fields = ("from_bytes", "to_bytes", "alpha_ns", "beta_ns_per_byte", "points",
                  "max_rel_error")  # fmt: skip
        return cls(
            tuple(Segment(**{k: s[k] for k in fields}) for s in segments),  # type: ignore[arg-type]
            gamma_ns_per_byte,
        )


def fit_line(xs: Sequence[float], ts: Sequence[float],
             free_intercept: bool = False) -> tuple[float, float]:  # fmt: skip
    """alpha, beta minimizing the squared relative error sum(((a + b x - t)/t)^2),
    both kept >= 0 (a fit below zero is refitted with that term at 0).
    ``free_intercept``: alpha may be negative where the line stays positive
    over the sizes fitted (a regime that starts above 0 bytes: its intercept
    is an extrapolation, not a time anything takes)."""
    w = [1.0 / (t * t) for t in ts]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs, strict=True))
    st = sum(wi * t for wi, t in zip(w, ts, strict=True))
    sxx = sum(wi * x * x for wi, x in zip(w, xs, strict=True))
    sxt = sum(wi * x * t for wi, x, t in zip(w, xs, ts, strict=True))
    det = sw * sxx - sx * sx
    if det <= 0:
        return st / sw, 0.0
    alpha = (st * sxx - sx * sxt) / det
    beta = (sw * sxt - sx * st) / det
    if beta < 0:
        return st / sw, 0.0
    if alpha < 0 and not (free_intercept and alpha + beta * min(xs) > 0):
        return 0.0, (sxt / sxx if sxx > 0 else 0.0)
    return alpha, beta


def _cost(xs: Sequence[float], ts: Sequence[float],
          free_intercept: bool = False) -> tuple[float, float, float, float]:  # fmt: skip
    a, b = fit_line(xs, ts, free_intercept)
    rel = [abs(a + b * x - t) / t for x, t in zip(xs, ts, strict=True)]
    return sum(r * r for r in rel), a, b, max(rel)


def _sorted_pairs(
    sizes: Sequence[int], times_ns: Sequence[float], min_points: int = 2
) -> list[tuple[int, float]]:
    pairs = sorted((int(s), float(t)) for s, t in zip(sizes, times_ns, strict=True) if t > 0)
    need = max(2, min_points)  # as the C port: fewer than one segment's points is an error
    if len(pairs) < need:
        raise MpiscopeError(
            f"a Hockney fit needs {need} sizes with a positive time, not {len(pairs)}"
        )
    return pairs


def split_points(
    sizes: Sequence[int], times_ns: Sequence[float], segments: int = 2, min_points: int = 2,
    free_intercept: bool = False,
) -> list[int]:
    """The segment bounds of the best split: indices into the sorted
    positive-time points, ``[0, i1, ..., n]``. ``free_intercept``: the
    regimes after the first may have a negative alpha (:func:`fit_line`)."""
    pairs = _sorted_pairs(sizes, times_ns, min_points)
    xs = [float(s) for s, _ in pairs]
    ts = [t for _, t in pairs]
    n = len(pairs)
    k = max(1, min(segments, n // min_points))
    memo: dict[tuple[int, int], float] = {}

    def cost(i: int, j: int) -> float:
        if (i, j) not in memo:
            memo[(i, j)] = _cost(xs[i:j], ts[i:j], free_intercept and i > 0)[0]
        return memo[(i, j)]

    # best[c][j]: the least error of the first j points in c segments, and the split
    best: list[dict[int, tuple[float, int]]] = [{0: (0.0, -1)}]
    for c in range(1, k + 1):
        row: dict[int, tuple[float, int]] = {}
        for j in range(c * min_points, n + 1):
            options = [
                (best[c - 1][i][0] + cost(i, j), i)
                for i in range((c - 1) * min_points, j - min_points + 1)
                if i in best[c - 1]
            ]
            if options:
                row[j] = min(options)
        best.append(row)
    bounds = [n]
    for c in range(k, 0, -1):
        bounds.append(best[c][bounds[-1]][1])
    bounds.reverse()
    return bounds


def fit_hockney(
    sizes: Sequence[int],
    times_ns: Sequence[float],
    segments: int = 2,
    min_points: int = 2,
    bounds: Sequence[int] | None = None,
    free_intercept: bool = False,
) -> Hockney:
    """A piecewise fit of one-way message times: exactly ``segments``
    contiguous segments (fewer only when there are not ``min_points`` points
    for each), the breakpoints those that minimize the total squared
    relative error (dynamic programming over every split of the sorted
    sizes). Each segment is ``alpha + beta*s`` with alpha, beta >= 0.
    ``bounds`` (from :func:`split_points`) keeps a split already found;
    ``free_intercept``: as :func:`split_points`."""
    pairs = _sorted_pairs(sizes, times_ns)
    if bounds is None:
        bounds = split_points(sizes, times_ns, segments, min_points, free_intercept)
    xs = [float(s) for s, _ in pairs]
    ts = [t for _, t in pairs]
    segs = []
    for index, (i, j) in enumerate(zip(bounds, bounds[1:], strict=False)):
        _, a, b, worst = _cost(xs[i:j], ts[i:j], free_intercept and i > 0)
        last = index == len(bounds) - 2
        segs.append(Segment(pairs[i][0], None if last else pairs[j - 1][0], a, b, j - i, worst))
    return Hockney(tuple(segs))


def fit_hockney_auto(
    sizes: Sequence[int],
    times_ns: Sequence[float],
    max_segments: int = 4,
    tolerance: float = 0.05,
    min_points: int = 2,
) -> Hockney:
    """The number of protocol regimes found from the data as the
    breakpoints are: the fewest segments (1 .. ``max_segments``) whose every
    point is within ``tolerance`` (relative) of its line; when none is, the
    count of least BIC, n ln(SSE/n) + 3k ln n (a segment costs alpha, beta
    and its breakpoint), so an outlier does not buy a segment of its own."""
    import math

    n = len([t for t in times_ns if t > 0])
    scored: list[tuple[float, int, Hockney]] = []
    for count in range(1, max_segments + 1):
        model = fit_hockney(sizes, times_ns, count, min_points)
        if len(model.segments) < count:  # not enough points for more
            break
        if max(s.max_rel_error for s in model.segments) <= tolerance:
            return model
        sse = sum(
            ((model.time_ns(x) - t) / t) ** 2 for x, t in zip(sizes, times_ns, strict=True) if t > 0
        )
        scored.append((n * math.log(sse / n + 1e-12) + 3 * count * math.log(n), count, model))
    return min(scored, key=lambda item: item[:2])[2]
