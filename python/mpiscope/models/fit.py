"""What every fit returns (:class:`Fit`), and the pieces all fits share:
the ping-pong series (the reference every model's T(s) is checked
against), the fit error, and gamma from ``reduce_local``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.models.base import P2PModel
from mpiscope.models.data import Estimate, Series, bootstrap, find_series
from mpiscope.models.hockney import fit_line

__all__ = [
    "Fit",
    "FitOptions",
    "Parameter",
    "ci_method",
    "estimate",
    "gamma_series",
    "make_fit",
    "pairs_measured",
    "parameters",
    "pingpong_series",
    "require",
    "residuals",
    "sizes_in_all",
    "skipped_warnings",
]


@dataclass(frozen=True)
class FitOptions:
    """How to fit: bootstrap replicates and confidence, Hockney's segments."""

    replicates: int = 200
    confidence: float = 0.95
    seed: int = 1
    segments: int | None = None  # None: found from the data
    max_segments: int = 4
    tolerance: float = 0.05
    per_pair: bool = False
    statistic: str = "median"  # of each size's samples (data.STATISTICS)


@dataclass(frozen=True)
class Parameter:
    """One fitted parameter: its value and confidence interval, in ``unit``."""

    name: str
    unit: str
    value: float
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "unit": self.unit, "value": self.value,
                "ci_low": self.low, "ci_high": self.high}  # fmt: skip


@dataclass(frozen=True)
class Fit:
    """A fitted model: the model itself, its document fields (``structure``),
    its parameters with intervals, and its error against the ping-pong."""

    model_name: str
    model: P2PModel
    structure: dict[str, Any]
    parameters: list[Parameter]
    residuals: list[dict[str, Any]]  # numbers; a direct model's also name the op
    ci_method: str
    warnings: list[str] = field(default_factory=list)
    reference: str | None = None  # what residuals compare with (None: the ping-pong)

    @property
    def max_rel_error(self) -> float | None:
        return max((abs(r["rel_error"]) for r in self.residuals), default=None)

    @property
    def mean_rel_error(self) -> float | None:
        if not self.residuals:
            return None
        return sum(abs(r["rel_error"]) for r in self.residuals) / len(self.residuals)


def parameters(estimates: Mapping[str, Estimate], units: Mapping[str, str]) -> list[Parameter]:
    """Estimates as parameters, the unit of each from the suffix of its name."""
    out = []
    for name, est in estimates.items():
        unit = next((u for suffix, u in units.items() if name.endswith(suffix)), "1")
        out.append(Parameter(name, unit, est.value, est.low, est.high))
    return out


#: Name suffix -> unit, for :func:`parameters`.
UNITS = {"_ns_per_byte": "ns/byte", "_ns": "ns", "_bytes": "bytes"}


def pingpong_series(
    doc: Mapping[str, Any], pair: tuple[int, int] = (0, 1), statistic: str = "median"
) -> Series | None:
    """The one-way time (round trip / 2) of the ping-pong between ``pair``:
    its points with ``pairs=i-j``, else (pair 0-1) those without the option."""
    text = f"{pair[0]}-{pair[1]}"
    found = find_series(doc, "pingpong", {"pairs": text}, scale=0.5, statistic=statistic)
    if found is None and pair == (0, 1):
        found = find_series(
            doc, "pingpong", scale=0.5, absent=("pairs",), statistic=statistic
        )
    return found


def pairs_measured(doc: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The pairs ``i-j`` the document has a ping-pong of (``pairs=i-j``)."""
    found = set()
    for point in doc.get("points") or ():
        text = (point.get("options") or {}).get("pairs", "") if point.get("op") == "pingpong" \
            else ""
        parts = text.split("-")
        if len(parts) == 2 and all(p.isdigit() for p in parts):
            found.add((int(parts[0]), int(parts[1])))
    return sorted(found)


def require(series: Series | None, what: str, how: str) -> Series:
    """``series``, else the one line that says what is missing: its points,
    or a valid launch in them (every launch late on a busy machine)."""
    if series is None:
        raise MpiscopeError(f"the document has no {what} with a valid launch (measure it "
                            f"with {how})")  # fmt: skip
    return series


def residuals(model: P2PModel, reference: Series) -> list[dict[str, float]]:
    """Per size: the measured one-way time, the model's, the relative error."""
    out = []
    for size, measured in zip(reference.sizes, reference.values(), strict=True):
        predicted = model.time_ns(size)
        out.append({"size_bytes": size, "measured_ns": measured, "model_ns": predicted,
                    "rel_error": (predicted - measured) / measured if measured else 0.0})
    return out


def gamma_series(doc: Mapping[str, Any], statistic: str = "median") -> Series | None:
    return find_series(doc, "reduce_local", statistic=statistic)


def gamma_of(series: Series | None, rng: random.Random | None) -> dict[str, float]:
    """gamma (ns per byte): the slope of the reduce_local time over its sizes."""
    if series is None or len(series.sizes) < 2:
        return {}
    _, slope = fit_line([float(s) for s in series.sizes], series.values(rng))
    return {"gamma_ns_per_byte": slope}


def sizes_in_all(series: Sequence[Series]) -> list[int]:
    """The sizes every series measured."""
    common = set(series[0].sizes)
    for s in series[1:]:
        common &= set(s.sizes)
    return sorted(common)


def skipped_warnings(*series: Series | None) -> list[str]:
    """One line per series that left out sizes without a valid launch."""
    return [f"{s.name}: no valid launch at {', '.join(f'{b} B' for b in s.skipped)}, left out"
            for s in series if s is not None and s.skipped]  # fmt: skip


def ci_method(*series: Series | None) -> str:
    """"bootstrap" when every series has raw samples, else "parametric-bootstrap"."""
    return "bootstrap" if all(s.raw for s in series if s is not None) else "parametric-bootstrap"


def estimate(
    fit: Callable[[random.Random | None], Mapping[str, float]],
    reduce: Series | None,
    options: FitOptions,
) -> dict[str, Estimate]:
    """Every parameter of ``fit`` and gamma (from ``reduce``, see
    :func:`gamma_series`) with its interval, by :func:`~.data.bootstrap`."""
    return bootstrap(lambda rng: {**fit(rng), **gamma_of(reduce, rng)}, options.replicates,
                     options.confidence, options.seed)  # fmt: skip


def make_fit(
    name: str,
    model: P2PModel,
    structure: dict[str, Any],
    estimates: Mapping[str, Estimate],
    reference: Series | None,
    read: Sequence[Series | None],
    warnings: Sequence[str] = (),
) -> Fit:
    """The :class:`Fit` of ``model``: its parameters with their units, its
    error against the ping-pong ``reference`` (none without one), the CI
    method of the series the fit ``read``, and a warning for each series
    (``reference`` too) that left out sizes, before ``warnings``."""
    skipped = skipped_warnings(*read, reference)
    return Fit(name, model, structure, parameters(estimates, UNITS),
               residuals(model, reference) if reference is not None else [], ci_method(*read),
               list(dict.fromkeys([*skipped, *warnings])))  # fmt: skip
