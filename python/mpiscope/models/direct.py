"""``mpiscope model fit --model direct``: a collective's own measured times
fitted directly, T(m) = a_k + b_k m in each regime k (the piecewise rule of
:mod:`mpiscope.models.hockney` on the op's medians, the breakpoints found
from the data), one fit per operation and number of ranks, every a_k and
b_k with a bootstrap interval. The regimes: the fewest (up to
``--max-segments``, 2 sizes each at least) that keep every measured size
within ``--tolerance``; when none does, the count with the smallest
largest error. A direct fit is there to predict the op, so it follows the
data rather than trading accuracy for fewer regimes: a regime after the
first may have a negative a_k (its line, fitted on sizes well above 0,
crosses zero below them; held at 0 it missed alltoall 64 KiB-1 MiB by
14-23% on its own data), and a size between two regimes reads the line
joining their ends (model schema 1.2).

It is the model to use where no point-to-point model can predict a
collective: ``model check`` says where (a library's shared-memory
collectives never send a message, so a 1-byte Bcast can take a third of
one message's time). It predicts only what it measured: the same op, the
same number of ranks, sizes interpolated inside each regime (and the
regimes at the ends extended); ``model predict`` and ``model check`` take
such a document like any other.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.data import Series, across_runs, find_series, state_change
from mpiscope.models.fit import Fit, FitOptions, estimate, make_fit
from mpiscope.models.hockney import Hockney, Segment, fit_hockney

__all__ = ["DirectCollective", "DirectModel", "REFERENCE", "fit_direct_document"]

#: What the direct fit's error is measured against.
REFERENCE = "collective's own measured medians"
#: Sizes a regime holds at least.
MIN_POINTS = 2
#: Operations that check the tool, not the library: never fitted.
GROUND_TRUTH_PREFIX = "waitpattern_"


@dataclass(frozen=True)
class DirectCollective:
    """One op on ``nprocs`` ranks: its piecewise line."""

    op: str
    nprocs: int
    line: Hockney

    def time_ns(self, size: float) -> float:
        """The regime's line holding ``size``; between two regimes (a size
        not measured, above one regime's last and below the next one's first)
        the straight line joining the two regimes' ends, so that a regime's
        extrapolated intercept (it may be negative) never applies outside
        the sizes it was fitted on."""
        segments = self.line.segments
        for low, high in zip(segments, segments[1:], strict=False):
            end = low.to_bytes
            if end is not None and end < size < high.from_bytes:
                t0 = low.alpha_ns + low.beta_ns_per_byte * end
                t1 = high.alpha_ns + high.beta_ns_per_byte * high.from_bytes
                return t0 + (t1 - t0) * (size - end) / (high.from_bytes - end)
        return self.line.time_ns(size)

    def as_dict(self) -> dict[str, Any]:
        return {"op": self.op, "nprocs": self.nprocs,
                "segments": [s.as_dict() for s in self.line.segments]}  # fmt: skip


@dataclass(frozen=True)
class DirectModel:
    """The direct fits of a document; it has no time of one message."""

    collectives: tuple[DirectCollective, ...]
    gamma_ns_per_byte: float = 0.0

    def find(self, op: str, nprocs: int) -> DirectCollective | None:
        return next((c for c in self.collectives if c.op == op and c.nprocs == nprocs), None)

    def time_ns(self, nbytes: float, sharing: int = 1) -> float:
        raise MpiscopeError("a direct model has no point-to-point time: it predicts the "
                            "collectives it measured (model predict, model check); the "
                            "simulator needs hockney, loggp, plogp or lmo")  # fmt: skip

    def collective(self, op: str, nprocs: int) -> DirectCollective:
        """The fit of ``op`` on ``nprocs`` ranks; one line naming what there is."""
        found = self.find(op, nprocs)
        if found is None:
            have = ", ".join(f"{c.op} on {c.nprocs} ranks" for c in self.collectives)
            raise MpiscopeError(f"the direct model has no fit of {op} on {nprocs} ranks "
                                f"(it has {have}): it predicts only what it measured")  # fmt: skip
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DirectModel:
        return cls(tuple(DirectCollective(str(c["op"]), int(c["nprocs"]),
                                          Hockney.from_dicts(c["segments"]))
                         for c in data["collectives"]))  # fmt: skip


def _groups(doc: Mapping[str, Any]) -> dict[tuple[str, int], list[Mapping[str, Any]]]:
    groups: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for point in doc.get("points") or ():
        op = str(point.get("op"))
        if op.startswith(GROUND_TRUTH_PREFIX) or point.get("kind") == "firstcall":
            continue
        groups.setdefault((op, int(point.get("nprocs") or 1)), []).append(point)
    return groups


def _series(op: str, points: Sequence[Mapping[str, Any]], statistic: str) -> Series | None:
    """The op's series; an op without a size (barrier) as one point at 0 B."""
    sized = [p if p.get("size_bytes") is not None else {**p, "size_bytes": 0} for p in points]
    return find_series({"points": sized}, op, statistic=statistic)


def _line(series: Series, values: Sequence[float], options: FitOptions,
          bounds: Sequence[int] | None = None) -> Hockney:  # fmt: skip
    sizes = list(series.sizes)
    if len(sizes) == 1:  # one size: a constant
        return Hockney((Segment(sizes[0], None, values[0], 0.0, 1, 0.0),))
    if bounds is not None or len(sizes) < 2 * MIN_POINTS:
        return fit_hockney(sizes, values, 1 if bounds is None else len(bounds) - 1,
                           min(MIN_POINTS, len(sizes)), bounds, free_intercept=True)  # fmt: skip
    if options.segments is not None:
        return fit_hockney(sizes, values, options.segments, MIN_POINTS, free_intercept=True)
    best: Hockney | None = None
    for count in range(1, options.max_segments + 1):
        line = fit_hockney(sizes, values, count, MIN_POINTS, free_intercept=True)
        worst = max(s.max_rel_error for s in line.segments)
        if worst <= options.tolerance:
            return line
        if best is None or worst < max(s.max_rel_error for s in best.segments):
            best = line
        if len(line.segments) < count:  # no room for more regimes
            break
    assert best is not None
    return best


def _bounds(line: Hockney) -> list[int]:
    bounds = [0]
    for seg in line.segments:
        bounds.append(bounds[-1] + seg.points)
    return bounds


def fit_direct_document(doc: Mapping[str, Any], options: FitOptions) -> Fit:
    """Every (op, ranks) of a measured document, fitted on its own medians
    (of several runs: on the median of their medians)."""
    fitted: list[tuple[str, int, Series, Hockney]] = []
    changed = state_change(doc, "the runs the model was fitted on")
    warnings: list[str] = [changed] if changed else []
    for (op, nprocs), points in _groups(across_runs(doc)).items():
        series = _series(op, points, options.statistic)
        if series is None:
            warnings.append(f"{op} on {nprocs} ranks: no point with a median, not fitted")
            continue
        fitted.append((op, nprocs, series, _line(series, series.values(), options)))
    if not fitted:
        raise MpiscopeError("the document has no measured operation to fit directly "
                            "(measure it with mpiscope run OPS)")  # fmt: skip

    def fit(rng: random.Random | None) -> dict[str, float]:
        out: dict[str, float] = {}
        for op, nprocs, series, line in fitted:
            own = _line(series, series.values(rng), options, _bounds(line))
            for k, seg in enumerate(own.segments):
                out[f"{op}.np{nprocs}.segment{k}.alpha_ns"] = seg.alpha_ns
                out[f"{op}.np{nprocs}.segment{k}.beta_ns_per_byte"] = seg.beta_ns_per_byte
        return out

    estimates = estimate(fit, None, options)
    model = DirectModel(tuple(DirectCollective(op, n, line) for op, n, _, line in fitted))
    residuals = [
        {"op": op, "nprocs": n, "size_bytes": size, "measured_ns": measured,
         "model_ns": line.time_ns(size),
         "rel_error": (line.time_ns(size) - measured) / measured if measured else 0.0}
        for op, n, series, line in fitted
        for size, measured in zip(series.sizes, series.values(), strict=True)
    ]  # fmt: skip
    made = make_fit("direct", model, {"collectives": [c.as_dict() for c in model.collectives]},
                    estimates, None, [s for _, _, s, _ in fitted], warnings)  # fmt: skip
    return Fit(made.model_name, made.model, made.structure, made.parameters, residuals,
               made.ci_method, made.warnings, REFERENCE)  # fmt: skip
