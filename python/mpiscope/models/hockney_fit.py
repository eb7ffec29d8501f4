"""``mpiscope model fit --model hockney``: the piecewise Hockney fit of the
ping-pong's one-way time (round trip / 2), per pair of ranks on request."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.data import Series
from mpiscope.models.fit import (
    Fit,
    FitOptions,
    estimate,
    gamma_series,
    make_fit,
    pairs_measured,
    pingpong_series,
    require,
)
from mpiscope.models.hockney import Hockney, fit_hockney, fit_hockney_auto

__all__ = ["MIN_POINTS", "fit_hockney_document"]

#: Measured sizes a regime holds at least.
MIN_POINTS = 3


def _bounds(model: Hockney) -> list[int]:
    bounds = [0]
    for seg in model.segments:
        bounds.append(bounds[-1] + seg.points)
    return bounds


def _piecewise(series: Series, options: FitOptions) -> tuple[Hockney, list[int]]:
    sizes, values = list(series.sizes), series.values()
    # 3 points a segment: a line through 2 fits any noise exactly, and the
    # split would isolate the noise rather than a protocol
    if options.segments is not None:
        if options.segments * MIN_POINTS > len(sizes):
            raise MpiscopeError(
                f"--segments {options.segments} needs {options.segments * MIN_POINTS} measured "
                f"sizes ({MIN_POINTS} a regime); the ping-pong has {len(sizes)}"
            )
        model = fit_hockney(sizes, values, options.segments, MIN_POINTS)
    else:
        model = fit_hockney_auto(sizes, values, options.max_segments, options.tolerance,
                                 MIN_POINTS)  # fmt: skip
    return model, _bounds(model)


def fit_hockney_document(doc: Mapping[str, Any], options: FitOptions) -> Fit:
    pingpong = require(pingpong_series(doc, statistic=options.statistic),
                       "ping-pong between ranks 0 and 1",
                       "mpiscope model measure, or mpiscope run pingpong --raw")  # fmt: skip
    reduce = gamma_series(doc, options.statistic)
    model, bounds = _piecewise(pingpong, options)

    def fit(rng: random.Random | None) -> dict[str, float]:
        m = fit_hockney(list(pingpong.sizes), pingpong.values(rng), bounds=bounds)
        out: dict[str, float] = {}
        for k, seg in enumerate(m.segments):
            out[f"segment{k}.alpha_ns"] = seg.alpha_ns
            out[f"segment{k}.beta_ns_per_byte"] = seg.beta_ns_per_byte
        return out

    estimates = estimate(fit, reduce, options)
    gamma = estimates["gamma_ns_per_byte"].value if "gamma_ns_per_byte" in estimates else 0.0
    model = Hockney(model.segments, gamma)
    structure: dict[str, Any] = {"segments": [s.as_dict() for s in model.segments]}
    warnings: list[str] = []
    if options.per_pair:
        pairs = []
        for pair in pairs_measured(doc) or [(0, 1)]:
            series = pingpong_series(doc, pair, options.statistic)
            if series is None or len(series.sizes) < 2:
                warnings.append(f"pair {pair[0]}-{pair[1]}: fewer than 2 sizes, not fitted")
                continue
            own, _ = _piecewise(series, options)
            pairs.append({"pair": list(pair), "segments": [s.as_dict() for s in own.segments]})
        structure["pairs"] = pairs
    return make_fit("hockney", model, structure, estimates, pingpong, [pingpong, reduce],
                    warnings)  # fmt: skip
