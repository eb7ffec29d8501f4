"""Comparing two result documents point by point (``mpiscope compare``).

Points are matched on (operation, size, process count, timing method, cache
mode); first-call records (``"kind": "firstcall"``) are not compared. For
each pair: the ratio NEW/BASE of their estimates (see
:mod:`mpiscope.result.estimate`: the trimmed mean, or for merged runs the
median of the runs' medians) and whether the difference is
significant:

- both sides merged several runs (``mpiscope run --runs``):
  their intervals over runs (``run_summary``), significant when
  they do not overlap - the only test here that includes run-to-run
  variation, so the one to gate a CI on;
- else, both are single runs whose points carry ``run_interval``
  (the run profile's measured run-to-run part folded in,
  docs/method.md section 11): significant when those intervals (E') do
  not overlap;
- else, both points kept their raw samples: a two-sided Mann-Whitney U test
  on the valid launches' times (scipy, imported lazily), significant when
  p < alpha, alpha = 1 - the lower confidence level of the two documents;
- otherwise the confidence intervals of the means: significant when they
  do not overlap.

Single-run judgments without E' are marked in the summary: two runs of
the same build often differ beyond one run's interval.

A pair is a *regression* when significant and NEW/BASE > 1 + threshold, an
*improvement* when significant and NEW/BASE < 1 - threshold. Differences
of method, timer or MPI library between the documents are allowed but
reported first, loudly: such a comparison measures the tools as much as
the system.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.result import Point, Result
from mpiscope.result.document import kept_times
from mpiscope.result.estimate import (
    Estimate,
    Key,
    estimate,
    group_points,
    point_method,
    summary_index,
)
from mpiscope.result.units import format_bytes, format_number, pick_time_unit

__all__ = [
    "Comparison",
    "Pair",
    "compare_results",
    "parse_threshold",
    "render_comparison",
]

REGRESSION = "REGRESSION"
IMPROVEMENT = "improvement"
UNCHANGED = "unchanged"
NOT_SIGNIFICANT = "not significant"
ONLY_BASE = "only in BASE"
ONLY_NEW = "only in NEW"
NO_DATA = "no data"

_MIN_SAMPLES = 2  # per side, for the rank test


@dataclass(frozen=True)
class Pair:
    """One matched (or unmatched) key and the verdict on it."""

    key: Key
    base: Estimate | None
    new: Estimate | None
    ratio: float | None
    test: str  # "run intervals", "mann-whitney", "intervals" or "" (nothing to test)
    p_value: float | None
    significant: bool
    verdict: str


@dataclass(frozen=True)
class Comparison:
    """Everything ``mpiscope compare`` prints, as data."""

    base_name: str
    new_name: str
    threshold: float
    alpha: float
    differences: tuple[str, ...]
    pairs: tuple[Pair, ...]

    @property
    def regressions(self) -> list[Pair]:
        return [p for p in self.pairs if p.verdict == REGRESSION]

    @property
    def improvements(self) -> list[Pair]:
        return [p for p in self.pairs if p.verdict == IMPROVEMENT]


def parse_threshold(text: str) -> float:
    """ "5%" -> 0.05; a fraction below 1 ("0.05") is accepted too."""
    value_text = text.strip()
    percent = value_text.endswith("%")
    if percent:
        value_text = value_text[:-1]
    try:
        value = float(value_text)
    except ValueError:
        raise MpiscopeError(
            f"invalid threshold {text!r}: give a percentage like 5% or a fraction like 0.05"
        ) from None
    if percent:
        value /= 100
    elif math.isfinite(value) and value >= 1:
        raise MpiscopeError(
            f"invalid threshold {text!r}: a number without % is a fraction below 1 "
            f"(did you mean {value_text}%?)"
        )
    if not math.isfinite(value) or value < 0 or value >= 1:
        raise MpiscopeError(
            f"invalid threshold {text!r}: must be at least 0% and below 100% "
            "(a percentage like 5% or a fraction like 0.05)"
        )
    return value


def compare_results(base: Result, new: Result, threshold: float = 0.05) -> Comparison:
    """Match the points of ``base`` and ``new`` and judge every pair."""
    alpha = 1.0 - min(base.confidence, new.confidence)
    base_groups, new_groups = group_points(base), group_points(new)
    base_summary, new_summary = summary_index(base), summary_index(new)
    keys = list(base_groups) + [k for k in new_groups if k not in base_groups]
    pairs = []
    for key in keys:
        b_points, n_points = base_groups.get(key), new_groups.get(key)
        pairs.append(
            _pair(
                key,
                b_points,
                n_points,
                base_summary.get(key),
                new_summary.get(key),
                threshold,
                alpha,
            )
        )
    return Comparison(
        base_name=str(base.path) if base.path else "BASE",
        new_name=str(new.path) if new.path else "NEW",
        threshold=threshold,
        alpha=alpha,
        differences=tuple(_differences(base, new)),
        pairs=tuple(pairs),
    )


def _pair(
    key: Key,
    base_points: Sequence[Point] | None,
    new_points: Sequence[Point] | None,
    base_summary: Mapping[str, Any] | None,
    new_summary: Mapping[str, Any] | None,
    threshold: float,
    alpha: float,
) -> Pair:
    base = estimate(base_points, _multi(base_points, base_summary)) if base_points else None
    new = estimate(new_points, _multi(new_points, new_summary)) if new_points else None
    if base is None or new is None:
        return Pair(key, base, new, None, "", None, False, ONLY_NEW if base is None else ONLY_BASE)
    if not base.value_ns or new.value_ns is None:
        return Pair(key, base, new, None, "", None, False, NO_DATA)
    ratio = new.value_ns / base.value_ns
    test, p_value, significant = _significance(
        base_points or [], new_points or [], base, new, alpha
    )
    if not significant:
        verdict = NOT_SIGNIFICANT
    elif ratio > 1 + threshold:
        verdict = REGRESSION
    elif ratio < 1 - threshold:
        verdict = IMPROVEMENT
    else:
        verdict = UNCHANGED
    return Pair(key, base, new, ratio, test, p_value, significant, verdict)


def _multi(points: Sequence[Point], summary: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return summary if len(points) > 1 else None


def _significance(
    base_points: Sequence[Point],
    new_points: Sequence[Point],
    base: Estimate,
    new: Estimate,
    alpha: float,
) -> tuple[str, float | None, bool]:
    intervals = None not in (base.low_ns, base.high_ns, new.low_ns, new.high_ns)
    if base.runs > 1 and new.runs > 1 and intervals:
        apart = new.low_ns > base.high_ns or new.high_ns < base.low_ns  # type: ignore[operator]
        return "run intervals", None, apart
    profiled = _profiled(base_points), _profiled(new_points)
    if profiled[0] is not None and profiled[1] is not None:
        (base_low, base_high), (new_low, new_high) = profiled  # type: ignore[misc]
        return "profile intervals", None, new_low > base_high or new_high < base_low
    base_samples, new_samples = _samples(base_points), _samples(new_points)
    if (
        base_samples is not None
        and new_samples is not None
        and len(base_samples) >= _MIN_SAMPLES
        and len(new_samples) >= _MIN_SAMPLES
    ):
        from scipy.stats import mannwhitneyu  # lazy: scipy is slow to import

        p_value = float(mannwhitneyu(base_samples, new_samples, alternative="two-sided").pvalue)
        return "mann-whitney", p_value, p_value < alpha
    if not intervals:
        return "", None, False
    apart = new.low_ns > base.high_ns or new.high_ns < base.low_ns  # type: ignore[operator]
    return "intervals", None, apart


def _profiled(points: Sequence[Point]) -> tuple[float, float] | None:
    """The run interval (E') of a single point that has one, else None."""
    if len(points) != 1 or not points[0].get("run_interval"):
        return None
    interval = points[0]["run_interval"]
    return float(interval["low_ns"]), float(interval["high_ns"])


def _samples(points: Sequence[Point]) -> list[float] | None:
    """The valid launches' times of the points, pooled; None if one kept no raw samples."""
    samples: list[float] = []
    for point in points:
        times = kept_times(point)
        if times is None:
            return None
        samples += times
    return samples


def _differences(base: Result, new: Result) -> list[str]:
    """What makes the two documents measure different things, one line each."""
    out: list[str] = []

    def differ(what: str, a: str, b: str) -> None:
        if a != b:
            out.append(f"different {what}: BASE {a}, NEW {b}")

    b_env, n_env = base.environment, new.environment
    differ("timing methods", _methods(base), _methods(new))
    differ("timers", _timer(b_env), _timer(n_env))
    differ("MPI libraries", _library(b_env), _library(n_env))
    differ("hosts", ", ".join(b_env.get("hosts") or []), ", ".join(n_env.get("hosts") or []))
    differ("CPU models", str(b_env.get("cpu_model")), str(n_env.get("cpu_model")))
    differ("cache modes", str(b_env["cache"]["mode"]), str(n_env["cache"]["mode"]))
    for name, result in (("BASE", base), ("NEW", new)):
        if not result.complete:
            out.append(f"{name} is a partial result (status: {result.status})")
    return out


def _methods(result: Result) -> str:
    names = sorted({point_method(result, p) for p in result.points})
    return ", ".join(names) or str(result.method["name"])


def _timer(env: Mapping[str, Any]) -> str:
    timer = env["timer"]
    return f"{timer['name']} ({timer.get('source')})"


def _library(env: Mapping[str, Any]) -> str:
    text = str(env.get("mpi_library_version") or "").strip()
    first = " ".join(text.splitlines()[0].split()) if text else "unknown"
    return f"{first} (MPI {env.get('mpi_version')})"


# --- text -------------------------------------------------------------------------


def render_comparison(comparison: Comparison) -> str:
    """The comparison as text: loud warnings, the table, the summary."""
    lines: list[str] = []
    for text in comparison.differences:
        lines.append(f"WARNING: {text}: the comparison measures the setup as much as the system")
    if comparison.differences:
        lines.append("")
    lines.append(f"BASE  {comparison.base_name}")
    lines.append(f"NEW   {comparison.new_name}")
    lines.append("")
    lines += _table(comparison)
    lines.append("")
    lines += _summary(comparison)
    return "\n".join(lines)


def _table(comparison: Comparison) -> list[str]:
    pairs = comparison.pairs
    methods = {p.key[3] for p in pairs}
    nprocs = {p.key[2] for p in pairs}
    caches = {p.key[4] for p in pairs}
    titles = ["op", "size"]
    if len(nprocs) > 1:
        titles.append("np")
    if len(methods) > 1:
        titles.append("method")
    if len(caches) > 1:
        titles.append("cache")
    titles += ["BASE", "NEW", "NEW/BASE", "test", "verdict"]
    rows = []
    for pair in pairs:
        op, size, n, method, cache = pair.key
        row = [op, format_bytes(size)]
        if len(nprocs) > 1:
            row.append(str(n))
        if len(methods) > 1:
            row.append(method)
        if len(caches) > 1:
            row.append(str(cache))
        row += [
            _time(pair.base),
            _time(pair.new),
            _ratio(pair.ratio),
            _test(pair),
            pair.verdict,
        ]
        rows.append(row)
    left = {"op", "method", "cache", "test", "verdict"}
    widths = [
        max(len(t), *(len(r[i]) for r in rows)) if rows else len(t) for i, t in enumerate(titles)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{c:<{w}}" if t in left else f"{c:>{w}}"
            for c, w, t in zip(cells, widths, titles, strict=True)
        ).rstrip()

    return [line(titles), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def _time(value: Estimate | None) -> str:
    if value is None or value.value_ns is None:
        return "-"
    name, scale = pick_time_unit([value.value_ns])
    text = f"{format_number(value.value_ns / scale, 3, trim_zeros=False)} {name}"
    return text + (" !" if value.flagged else "")


def _ratio(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.3f} ({(ratio - 1) * 100:+.1f}%)"


def _test(pair: Pair) -> str:
    if pair.test == "mann-whitney" and pair.p_value is not None:
        return f"U p={_p(pair.p_value)}"
    if pair.test == "intervals":
        return "CIs apart" if pair.significant else "CIs overlap"
    if pair.test == "run intervals":
        return "run CIs apart" if pair.significant else "run CIs overlap"
    if pair.test == "profile intervals":
        return "E' apart" if pair.significant else "E' overlap"
    return "-"


def _p(value: float) -> str:
    return f"{value:.2g}" if value >= 0.001 else "<0.001"


def _summary(comparison: Comparison) -> list[str]:
    matched = [p for p in comparison.pairs if p.ratio is not None]
    regressions, improvements = comparison.regressions, comparison.improvements
    only = [p for p in comparison.pairs if p.verdict in (ONLY_BASE, ONLY_NEW)]
    threshold = f"{format_number(comparison.threshold * 100, 3)}%"
    several_caches = len({p.key[4] for p in comparison.pairs}) > 1
    lines = [
        f"{len(matched)} point(s) compared: {len(regressions)} regression(s), "
        f"{len(improvements)} improvement(s) beyond {threshold} "
        f"(significance level {format_number(comparison.alpha, 3)}); "
        f"{len(matched) - len(regressions) - len(improvements)} unchanged or not significant"
        + (f"; {len(only)} in one document only" if only else "")
    ]
    for title, group in (("regressions", regressions), ("improvements", improvements)):
        if group:
            items = ", ".join(
                f"{_name(p, several_caches)} {(p.ratio or 0) - 1:+.1%}" for p in group
            )
            lines.append(f"{title}: {items}")
    if any(p.base and p.base.flagged or p.new and p.new.flagged for p in comparison.pairs):
        lines.append("!: unstable point (or runs that disagree): the time is not to be trusted")
    single = [p for p in matched if _one_run(p) and p.test != "profile intervals"]
    if single:
        lines.append(
            f"note: {len(single)} point(s) were judged on single runs, whose samples and "
            "intervals leave out run-to-run variation: two runs of the same build can "
            "differ beyond them. To gate on a comparison, measure both with "
            "mpiscope run --runs R."
        )
    if comparison.differences:
        lines.append(
            f"WARNING: {len(comparison.differences)} difference(s) between the setups (see the top)"
        )
    return lines


def _one_run(pair: Pair) -> bool:
    return (pair.base is not None and pair.base.runs == 1) or (
        pair.new is not None and pair.new.runs == 1
    )


def _name(pair: Pair, several_caches: bool) -> str:
    op, size, _n, method, cache = pair.key
    text = op if size is None else f"{op} {format_bytes(size)}"
    details = [
        m for m in (method if method != "window" else "", cache if several_caches else "") if m
    ]
    return f"{text} ({', '.join(details)})" if details else text
