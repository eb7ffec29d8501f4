"""Does a test sample run slower than a baseline? The noise detector's criteria.

Two samples of packet times (seconds) - a baseline without the agent and a
test with it - are compared by :func:`compare_samples`, which returns a
"noise-verdict" document (docs/noise-schema.md). Every value in it except
the two summaries is normalised to the baseline median, as in the seed's
figures, so 0.01 means "1 % of the baseline median".

The criteria (all one-sided: they look for a *slowdown*):

* ``ci_overlap`` (the seed's criterion 1): the two-sided Student-t confidence
  intervals of the two means do not overlap, the test one lying above. The
  boundary gap ``test_ci_low - baseline_ci_high`` is positive when detected.
* ``iqr_outliers`` (the seed's criterion 2): test samples above the
  baseline's upper Tukey fence ``Q75 + 1.5 IQR``. Some baseline samples lie
  there too, so the test's share is compared with the baseline's own share
  by a one-sided Fisher exact test.
* ``mann_whitney``: the one-sided Mann-Whitney U rank test (test greater),
  the rank opinion that heavy tails do not fool.
* ``quantile_shift``: p50/p90/p99 of the test minus those of the baseline;
  reported, never a detection on its own.
* ``signed_rank`` and ``paired_interval`` (alternating runs only): the
  agent-on and agent-off blocks compared as ABBA pairs of block medians,
  by a Wilcoxon signed-rank test and an exact Hodges-Lehmann interval of
  the slowdown (:mod:`mpiscope.noise.paired`).
* ``periodic`` (alternating runs timed in ``--groups``): a frequency the
  agent-on packets' iteration groups carry and the agent-off ones lack,
  with the rank and core it shows on (:mod:`mpiscope.noise.periodic`).

Every verdict also states its ``limit``: the slowdown it rules out at 95 %
and the smallest one it would detect (80 % power), from the paired interval
when there are pairs, else from the two-sample Hodges-Lehmann interval.

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.noise import paired

__all__ = [
    "CRITERIA",
    "IQR_FENCE_FACTOR",
    "compare_run",
    "compare_samples",
    "format_verdict",
    "limit_sentence",
    "samples_of",
    "verdict_rows",
    "verdict_sentence",
]

#: The criteria that can fire, in report order (the last two need ABBA pairs).
CRITERIA = ("ci_overlap", "iqr_outliers", "mann_whitney", "signed_rank", "paired_interval",
            "periodic", "stolen_time")
#: The schema version of the noise-verdict documents written now.
VERDICT_VERSION = "1.4"
#: Tukey's fence factor: outliers lie beyond 1.5 IQR from the quartiles.
IQR_FENCE_FACTOR = 1.5
#: Quantiles (percent) compared by ``quantile_shift``.
_SHIFT_QUANTILES = (50, 90, 99)


def _checked(values: Sequence[float], name: str) -> Any:
    """The sample as a float array, or a one-line error saying what is wrong with it."""
    import numpy as np

    try:
        array = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError) as exc:
        raise MpiscopeError(f"{name} sample is not a list of numbers ({exc})") from None
    if array.size < 3:
        raise MpiscopeError(f"{name} sample has {array.size} values; at least 3 are needed")
    bad = np.flatnonzero(~np.isfinite(array))
    if bad.size:
        raise MpiscopeError(
            f"{name} sample has {bad.size} non-finite value(s) (first at index {bad[0]})"
        )
    median = float(np.median(array))
    if not median > 0:
        raise MpiscopeError(f"{name} sample has a non-positive median ({median:g})")
    return array


def _mean_ci(sample: Any, confidence: float) -> tuple[float, float]:
    """Two-sided Student-t confidence interval of the mean."""
    import numpy as np
    from scipy import stats

    n = sample.size
    mean = float(np.mean(sample))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * float(np.std(sample, ddof=1))
    half /= math.sqrt(n)
    return mean - half, mean + half


def _summary(sample: Any, source: str) -> dict[str, Any]:
    import numpy as np

    return {
        "source": source,
        "n": int(sample.size),
        "median_s": float(np.median(sample)),
        "mean_s": float(np.mean(sample)),
    }


def compare_samples(
    baseline: Sequence[float],
    test: Sequence[float],
    *,
    baseline_source: str,
    test_source: str,
    confidence: float = 0.99,
    alpha: float = 0.01,
    pairs: Sequence[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Compare packet times (seconds) with and without the agent: a "noise-verdict".

    ``pairs`` (alternating runs): the (agent-off, agent-on) block medians of
    each ABBA pair (:func:`mpiscope.noise.paired.block_pairs`); with at least
    :data:`~mpiscope.noise.paired.MIN_PAIRS` of them the verdict holds the
    ``signed_rank`` and ``paired_interval`` criteria and a paired ``limit``.

    All values except ``baseline``/``test`` summaries are divided by the
    baseline median. Quartiles and quantiles use numpy's default (linear
    interpolation between order statistics).

    Speed-ups are not detections: every criterion asks "is the test
    *slower*?". The boundary gap is always ``test_ci_low - baseline_ci_high``,
    so a test that runs faster gets a negative gap; ``ci_overlap`` also reports
    ``speedup_gap = baseline_ci_low - test_ci_high``, positive when the test is
    significantly faster, so a speed-up is visible without firing. Likewise
    ``mann_whitney`` is one-sided (test greater) and ``iqr_outliers`` counts
    samples above the upper fence (those below the lower fence are reported
    beside it).

    Raises :class:`MpiscopeError` for a sample with fewer than 3 values,
    non-finite values or a non-positive median, and for a ``confidence`` or
    ``alpha`` outside (0, 1).
    """
    import numpy as np
    from scipy import stats

    for name, value in (("confidence", confidence), ("alpha", alpha)):
        if not 0 < value < 1:
            raise MpiscopeError(f"{name} must lie strictly between 0 and 1, not {value!r}")
    base_raw = _checked(baseline, "baseline")
    test_raw = _checked(test, "test")
    scale = float(np.median(base_raw))
    base = base_raw / scale
    tst = test_raw / scale

    base_ci = _mean_ci(base, confidence)
    test_ci = _mean_ci(tst, confidence)
    gap = test_ci[0] - base_ci[1]
    ci_overlap = {
        "confidence": confidence,
        "baseline_ci": list(base_ci),
        "test_ci": list(test_ci),
        "boundary_gap": gap,
        "speedup_gap": base_ci[0] - test_ci[1],
        "detected": bool(gap > 0),
    }

    q25, q75 = (float(q) for q in np.percentile(base, [25, 75]))
    iqr = q75 - q25
    low, high = q25 - IQR_FENCE_FACTOR * iqr, q75 + IQR_FENCE_FACTOR * iqr
    above = int(np.count_nonzero(tst > high))
    base_above = int(np.count_nonzero(base > high))
    # One-sided: is the test's share above the fence larger than the baseline's?
    fisher = stats.fisher_exact(
        [[above, tst.size - above], [base_above, base.size - base_above]],
        alternative="greater",
    )
    fisher_p = float(fisher.pvalue)
    below = int(np.count_nonzero(tst < low))
    iqr_outliers = {
        "fences": [low, high],
        "count": above,
        "share": above / tst.size,
        "baseline_count": base_above,
        "baseline_share": base_above / base.size,
        "below_count": below,
        "below_share": below / tst.size,
        "baseline_below_share": int(np.count_nonzero(base < low)) / base.size,
        "test": "one-sided Fisher exact",
        "p_value": fisher_p,
        "alpha": alpha,
        "detected": bool(fisher_p < alpha),
    }

    mw = stats.mannwhitneyu(tst, base, alternative="greater")
    mw_p = float(mw.pvalue)
    mann_whitney = {
        "u": float(mw.statistic),
        "alternative": "greater",
        "p_value": mw_p,
        "alpha": alpha,
        "detected": bool(mw_p < alpha),
    }

    base_q = np.percentile(base, _SHIFT_QUANTILES)
    test_q = np.percentile(tst, _SHIFT_QUANTILES)
    quantile_shift = {
        f"p{q}": float(t - b) for q, t, b in zip(_SHIFT_QUANTILES, test_q, base_q, strict=True)
    }

    criteria: dict[str, Any] = {
        "ci_overlap": ci_overlap,
        "iqr_outliers": iqr_outliers,
        "mann_whitney": mann_whitney,
        "quantile_shift": quantile_shift,
    }
    stated: dict[str, Any] | None
    if pairs is not None and len(pairs) >= paired.MIN_PAIRS:
        signed, interval, stated = paired.paired_criteria(pairs, confidence=confidence,
                                                          alpha=alpha)
        criteria["signed_rank"], criteria["paired_interval"] = signed, interval
    else:
        stated = paired.unpaired_limit(base, tst, alpha)
    fired = [name for name in CRITERIA if name in criteria and criteria[name]["detected"]]
    return {
        "schema_version": VERDICT_VERSION,
        "kind": "noise-verdict",
        "baseline": _summary(base_raw, baseline_source),
        "test": _summary(test_raw, test_source),
        "normalised_to": "baseline median",
        "mean_difference": float(np.mean(tst) - np.mean(base)),
        "criteria": criteria,
        "fired": fired,
        "detected": bool(fired),
        **({"limit": stated} if stated is not None else {}),
    }


def compare_run(
    run_doc: Mapping[str, Any], source: str, *, confidence: float = 0.99, alpha: float = 0.01
) -> dict[str, Any]:
    """The verdict of one alternating noise-run: agent off against agent on, paired."""
    from mpiscope.noise.periodic import periodic_criterion
    from mpiscope.noise.stolen import stolen_criterion

    samples = samples_of(run_doc)
    if "all" in samples:
        raise MpiscopeError(f"{source} is a separate-design run: it holds one sample")
    verdict = compare_samples(
        samples["baseline"], samples["agent"],
        baseline_source=f"{source} (agent off)", test_source=f"{source} (agent on)",
        confidence=confidence, alpha=alpha, pairs=paired.block_pairs(run_doc["packets"]),
    )
    stolen_time = stolen_criterion(run_doc, alpha)
    for name, criterion in (("periodic", periodic_criterion(run_doc, alpha, stolen_time)),
                            ("stolen_time", stolen_time)):
        if criterion is not None:
            verdict["criteria"][name] = criterion
    fired = [name for name in CRITERIA
             if name in verdict["criteria"] and verdict["criteria"][name]["detected"]]
    verdict["fired"], verdict["detected"] = fired, bool(fired)
    return verdict


def samples_of(run_doc: Mapping[str, Any]) -> dict[str, list[float]]:
    """The samples (packet seconds) of a "noise-run" document.

    A separate-design run is one sample, ``{"all": [...]}``; an alternating
    run holds two, ``{"baseline": [...], "agent": [...]}``, split by each
    packet's ``agent`` flag (false: baseline, true: agent on).
    """
    if run_doc.get("kind") != "noise-run":
        raise MpiscopeError(f"expected a noise-run document, got kind {run_doc.get('kind')!r}")
    packets = run_doc.get("packets")
    if not isinstance(packets, list):
        raise MpiscopeError("noise-run document has no packets list")
    design = run_doc.get("design")
    try:
        if design == "separate":
            return {"all": [float(p["seconds"]) for p in packets]}
        if design == "alternate":
            samples: dict[str, list[float]] = {"baseline": [], "agent": []}
            for index, packet in enumerate(packets):
                agent = packet.get("agent")
                if not isinstance(agent, bool):
                    raise MpiscopeError(
                        f"packet {index} of an alternating run has agent {agent!r}, "
                        "not true or false"
                    )
                samples["agent" if agent else "baseline"].append(float(packet["seconds"]))
            return samples
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MpiscopeError(f"noise-run packet without a numeric seconds field ({exc})") from None
    raise MpiscopeError(f"noise-run design is {design!r}, not 'separate' or 'alternate'")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def verdict_rows(verdict: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """One (criterion, value, threshold, detected) row per criterion of a verdict."""
    test, crit = verdict["test"], verdict["criteria"]
    ci, iq, mw = crit["ci_overlap"], crit["iqr_outliers"], crit["mann_whitney"]
    qs = crit["quantile_shift"]
    rows = [
        (
            f"ci_overlap ({ci['confidence'] * 100:g}% CI of the mean)",
            f"gap {ci['boundary_gap']:+.4f}",
            "gap > 0",
            _yes(ci["detected"]),
        ),
        (
            "iqr_outliers (above Q75 + 1.5 IQR)",
            f"{iq['count']}/{test['n']} above ({iq['share']:.1%}, baseline "
            f"{iq['baseline_share']:.1%}), Fisher p={iq['p_value']:.3g}",
            f"p < {iq['alpha']:g}",
            _yes(iq["detected"]),
        ),
        (
            "mann_whitney (one-sided)",
            f"U={mw['u']:g}, p={mw['p_value']:.3g}",
            f"p < {mw['alpha']:g}",
            _yes(mw["detected"]),
        ),
        (
            "quantile_shift",
            " ".join(f"{key} {qs[key]:+.4f}" for key in ("p50", "p90", "p99")),
            "-",
            "-",
        ),
    ]
    sr, pi = crit.get("signed_rank"), crit.get("paired_interval")
    if sr is not None:
        rows.append((
            "signed_rank (Wilcoxon, ABBA block-median pairs)",
            f"{sr['positive_pairs']}/{sr['pairs']} pairs slower, W+={sr['w_plus']:g}, "
            f"p={sr['p_value']:.3g}",
            f"p < {sr['alpha']:g}",
            _yes(sr["detected"]),
        ))
    if pi is not None:
        rows.append((
            f"paired_interval ({pi['confidence'] * 100:g}% CI of the slowdown)",
            f"{_pct(pi['estimate'])} [{_pct(pi['interval'][0])}, {_pct(pi['interval'][1])}]",
            "low > 0",
            _yes(pi["detected"]),
        ))
    if "periodic" in crit:
        from mpiscope.noise.periodic import describe

        pe = crit["periodic"]
        rows.append((
            f"periodic (spectrum of {pe['groups']} iteration groups, on vs off)",
            describe(pe),
            f"p < {pe['alpha']:g}",
            _yes(pe["detected"]),
        ))
    if "stolen_time" in crit:
        from mpiscope.noise import stolen

        st = crit["stolen_time"]
        rows.append((
            "stolen_time (CPU taken from a rank, on vs off)",
            stolen.describe(st),
            f"p < {st['alpha']:g}",
            _yes(st["detected"]),
        ))
    return rows


def _pct(value: float | None) -> str:
    """A normalised value as a signed percentage; None (unbounded) as "?"."""
    return "?" if value is None else f"{value:+.2%}"


def limit_sentence(verdict: Mapping[str, Any]) -> str | None:
    """What the run rules out and could detect, in one sentence (None for old verdicts)."""
    lim = verdict.get("limit")
    if not lim:
        return None
    conf = f"{lim['confidence'] * 100:g}%"
    upper = lim.get("rules_out_above")
    ruled = (f"no slowdown above {upper:.2%} at {conf}" if upper is not None
             else f"too few pairs to bound the slowdown at {conf}")
    if upper is not None and upper < 0:
        ruled = f"the agent-on packets run faster (slowdown below {upper:+.2%} at {conf})"
    detectable = lim.get("detectable")
    power = (f"; a slowdown of {detectable:.2%} would be detected {lim['power']:.0%} of the "
             f"time at alpha {lim['alpha']:g}" if detectable is not None else "")
    return f"limit: {ruled} (estimate {_pct(lim['estimate'])}, {lim['method']}){power}"


def format_verdict(verdict: Mapping[str, Any]) -> str:
    """A small aligned plain-text table of a "noise-verdict": one line per criterion."""
    base, test = verdict["baseline"], verdict["test"]
    rows = [("criterion", "value", "threshold", "detected"), *verdict_rows(verdict)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        f"baseline: {base['source']} (n={base['n']}, median {base['median_s']:.6g} s, "
        f"mean {base['mean_s']:.6g} s)",
        f"test:     {test['source']} (n={test['n']}, median {test['median_s']:.6g} s, "
        f"mean {test['mean_s']:.6g} s)",
        f"values normalised to the {verdict.get('normalised_to', 'baseline median')}; "
        f"difference of means {verdict['mean_difference']:+.4f}",
        "",
    ]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
        lines.append("  ".join([*cells, row[3]]).rstrip())
    stated = limit_sentence(verdict)
    if stated:
        lines.append(stated)
    lines.append(verdict_sentence(verdict))
    return "\n".join(lines)


#: The criteria that see the agent in the ranks' own times, not the packets' slowdown.
_IN_THE_DETECTOR = {"periodic", "stolen_time"}


def _shown(name: str, crit: Mapping[str, Any]) -> str:
    """What a criterion of :data:`_IN_THE_DETECTOR` found, in words."""
    core = f" (core {crit['core']})" if crit.get("core") is not None else ""
    if name == "periodic":
        return (f"a {crit['frequency_hz']:.3g} Hz line in the {crit.get('signal', 'group times')} "
                f"of rank {crit['rank']}{core} (p={crit['p_value']:.2g})")
    share = crit.get("extra_share")
    size = f", {share:.2%} of a packet" if share is not None else ""
    return (f"it takes {crit['on_ms'] - crit['off_ms']:.2g} ms of rank {crit['rank']}'s CPU "
            f"per packet{core}{size} (p={crit['p_value']:.2g})")


def verdict_sentence(verdict: Mapping[str, Any]) -> str:
    """The verdict line: which criteria fired, or that none did and what that rules out."""
    fired = list(verdict.get("fired", []))
    lim = verdict.get("limit") or {}
    upper, detectable = lim.get("rules_out_above"), lim.get("detectable")
    if fired and set(fired) <= _IN_THE_DETECTOR:  # the agent seen, not the packets' slowdown
        text = ("verdict: the agent shows in the detector: "
                + "; ".join(_shown(name, verdict["criteria"][name]) for name in fired)
                + "; the packets' slowdown is below what the run resolves")
        if upper is not None and upper >= 0:
            text += f": none above {upper:.2%} at {lim['confidence'] * 100:g}%"
        return text
    if fired:
        return f"verdict: slowdown detected by {', '.join(fired)}"
    text = "verdict: no slowdown detected (no criterion fired)"
    if upper is not None and upper >= 0:
        text += f": none above {upper:.2%} at {lim['confidence'] * 100:g}%"
    if detectable is not None:
        text += f"; detectable here: {detectable:.2%} ({lim['power']:.0%} power)"
    return text
