"""Periodic evidence: does the agent add a frequency to the detector's ranks?

With ``--groups G`` every rank times its packet's iterations in G equal
groups (a bounded buffer of G timer reads per packet, kept outside I/O and
reported after the packet), and each group's *stolen* time: wall minus the
thread's CPU time, when the rank was runnable and another task ran. A
periodic agent of f Hz stretches a group every 1/f s and, on the core it
shares with a rank, steals that group's time: two signals per rank, each
with a line at f (and its harmonics) in agent-on packets that agent-off
packets lack.

The spectra, per rank and signal (:func:`_spectra`):

* each packet's signal is placed at its groups' own times (the groups hold
  equal work, so a long burst stretches the group it falls in: the index is
  not time) and resampled onto slices of one fixed length, the median
  packet's group time;
* the slices are cut into segments of one fixed length (the median
  packet's; a shorter packet is padded with its mean) whose periodograms
  are averaged (Welch), so bin j is j / (segment length) Hz in every
  packet. This VM runs a Barrier loop 2-3x
  slower for minutes at a time, so packets of equal work differ in length
  as much, and a bin per packet's own length would compare different
  frequencies across packets;
* each packet's spectrum is divided by its own median over the bins, so a
  packet with one huge stretch (broadband power) is not louder than others.

The test: at every bin, the agent-on packets' power against the agent-off
packets' by a one-sided Mann-Whitney test; the smallest p-value over every
bin, signal and rank, multiplied by their number (Bonferroni), is the
criterion's p-value, and it fires below alpha. It names:

* the frequency: a burst every 1/f s is a comb of lines at f, 2f, 3f ...,
  so the fundamental, on a grid finer than a bin, whose harmonics best
  cover the significant bins of the strongest series (:func:`_comb_fundamental`);
* the rank and its core: the strongest series' rank when it is a stolen
  time (only the rank sharing the agent's core loses CPU to it; in a
  Barrier loop every rank waits for it, so every rank's group times carry
  the line), else the rank whose stolen time per packet grows when the
  agent is on (:mod:`mpiscope.noise.stolen`).

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mpiscope.noise.stolen import cores_of, stolen_criterion

__all__ = ["MIN_PACKETS", "describe", "periodic_criterion"]

#: Fewest packets of each state the periodic test runs on.
MIN_PACKETS = 4
#: Fewest slices in a spectrum's segment.
MIN_SLICES = 8
#: What the periodic criterion keeps of the stolen_time criterion: where the agent is.
_EVIDENCE = ("rank", "core", "on_ms", "off_ms", "p_value", "detected")


def _resampled(groups_ns: Any, values_ns: Any, slice_s: float) -> Any:
    """``values_ns`` of a packet's groups as the amount in each slice of
    ``slice_s`` seconds: the running sum, read at the slices' ends (linear
    within a group), differenced."""
    import numpy as np

    ends = np.cumsum(groups_ns) / 1e9
    at = slice_s * np.arange(1, int(ends[-1] / slice_s) + 1)
    running = np.interp(at, np.r_[0.0, ends], np.r_[0.0, np.cumsum(values_ns)])
    return np.diff(running, prepend=0.0)


def _spectra(groups: Any, values: Any, slice_s: float, length: int) -> Any:
    """Packet x bin (1 .. length/2) power of ``values`` (packet x group):
    Welch's average over segments of ``length`` slices, each packet over its
    median (a packet shorter than one segment is padded with its mean)."""
    import numpy as np

    out = np.empty((len(groups), length // 2))
    for row, (times, amounts) in enumerate(zip(groups, values, strict=True)):
        sliced = _resampled(times, amounts, slice_s)
        if sliced.size < length:
            sliced = np.pad(sliced, (0, length - sliced.size), constant_values=sliced.mean())
        segments = sliced[: sliced.size // length * length].reshape(-1, length)
        segments = segments - segments.mean(axis=1, keepdims=True)
        out[row] = (np.abs(np.fft.rfft(segments, axis=1))[:, 1:length // 2 + 1] ** 2).mean(axis=0)
    median = np.median(out, axis=1, keepdims=True)
    return out / np.where(median > 0, median, 1.0)


def _comb_fundamental(freqs: Any, ratios: Any, resolution: float) -> float:
    """The fundamental of the comb the power ratios (on / off) draw.

    A short burst every 1/f s is a comb of lines at f, 2f, 3f ..., which
    fall between bins. Each candidate f0, on a grid of a twentieth of a bin,
    scores the mean log ratio (at least 0) at its n harmonics k f0 less the
    mean at the midpoints (k - 1/2) f0 (read between bins linearly), times
    sqrt(n): the comb's contrast, and how much of the spectrum it explains.
    Half the
    fundamental has every other harmonic between two lines (half the
    contrast, twice the harmonics: 0.7 of the score); twice it has lines on
    its midpoints (no contrast); an odd multiple keeps the contrast with a
    third of the harmonics or fewer (0.6 of the score). A candidate must
    carry a line itself (ratio above 1 in its nearest bin). A pure line at f is named f.
    """
    import numpy as np

    level = np.log(np.maximum(ratios, 1.0))  # less power with the agent on is no line
    candidates = np.arange(resolution, freqs[-1] + resolution / 40, resolution / 20)
    scores = np.empty(candidates.size)
    for index, f0 in enumerate(candidates):
        harmonics = np.arange(f0, freqs[-1] + resolution / 40, f0)
        contrast = (np.interp(harmonics, freqs, level).mean()
                    - np.interp(harmonics - f0 / 2, freqs, level).mean())
        scores[index] = contrast * np.sqrt(harmonics.size)
    # A fundamental carries a line itself: a candidate without more power
    # there with the agent on is no fundamental (half a 20 Hz comb of 10 ms
    # bursts read 9.9 Hz where the ratio was 0.15).
    nearest = np.abs(candidates[:, None] - freqs[None, :]).argmin(axis=1)
    scores[level[nearest] <= 0] = -np.inf
    if not np.isfinite(scores).any():
        return float(freqs[int(np.argmax(ratios))])
    return float(candidates[int(np.argmax(scores))])


def _series(grid: Any, stolen: Any, flags: Any, slice_s: float,
            length: int) -> list[dict[str, Any]]:
    """Per rank and signal: its bins' p-values (on > off) and power ratios."""
    import numpy as np
    from scipy import stats

    out = []
    for rank in range(grid.shape[1]):
        times = grid[:, rank, :]
        # A group's time beyond the packet's typical group: its stretch.
        signals = [("group times", times - np.median(times, axis=1, keepdims=True))]
        if stolen is not None:
            signals.insert(0, ("stolen CPU time", stolen[:, rank, :]))
        for name, values in signals:
            power = _spectra(grid[:, rank, :], values, slice_s, length)
            test = stats.mannwhitneyu(power[flags], power[~flags], axis=0, alternative="greater")
            pvals = np.nan_to_num(np.asarray(test.pvalue, dtype=float), nan=1.0)
            ratios = np.median(power[flags], axis=0) / np.maximum(
                np.median(power[~flags], axis=0), 1e-300)
            out.append({"rank": rank, "signal": name, "pvals": pvals, "ratios": ratios})
    return out


def periodic_criterion(run_doc: Mapping[str, Any], alpha: float,
                       stolen_time: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The ``periodic`` criterion of an alternating run with group times, or None
    when it has none (or fewer than :data:`MIN_PACKETS` packets of a state).
    ``stolen_time``: the run's stolen_time criterion, which names the core
    when the group times cannot (computed here when not given)."""
    import numpy as np

    packets = [p for p in run_doc.get("packets") or []
               if isinstance(p.get("groups_ns"), list) and isinstance(p.get("agent"), bool)]
    if not packets:
        return None
    shapes = {(len(p["groups_ns"]), len(p["groups_ns"][0])) for p in packets}
    if len(shapes) != 1:
        return None
    ranks, count = shapes.pop()
    iterations = (run_doc.get("detector") or {}).get("iterations_per_packet")
    if isinstance(iterations, int) and iterations < count:
        return None  # groups without iterations: nothing periodic to see
    flags = np.asarray([p["agent"] for p in packets])
    if min(int(flags.sum()), int((~flags).sum())) < MIN_PACKETS or count < 4:
        return None
    grid = np.asarray([p["groups_ns"] for p in packets], dtype=float)  # packet, rank, group
    stolen = _stolen_grid(packets, grid.shape)
    lengths = grid.sum(axis=2).max(axis=1) / 1e9  # each packet's wall time
    slice_s = float(np.median(lengths)) / count
    length = max(MIN_SLICES, count)  # the median packet: shorter ones are padded
    length -= length % 2
    resolution = 1 / (length * slice_s)
    freqs = np.arange(1, length // 2 + 1) * resolution
    series = _series(grid, stolen, flags, slice_s, length)
    tests = len(series) * freqs.size
    cores = cores_of(run_doc)
    per_rank = []
    for rank in range(ranks):
        best = min((s for s in series if s["rank"] == rank), key=_strength)
        per_rank.append(_summary(best, cores, freqs, resolution))
    strongest = min(series, key=_strength)
    named = _summary(strongest, cores, freqs, resolution)
    p_value = min(1.0, float(strongest["pvals"].min()) * tests)
    found = stolen_time if stolen_time is not None else stolen_criterion(run_doc, alpha)
    evidence = None if found is None else {k: found[k] for k in _EVIDENCE}
    where = named
    if strongest["signal"] != "stolen CPU time" and evidence is not None and evidence["detected"]:
        where = evidence
    setup = run_doc.get("detector") or {}
    read_ns = setup.get("group_read_ns")
    packet_s = float(np.median(lengths))
    return {
        "groups": count,
        "group_read_ns": read_ns,
        "cost_share": (count * read_ns / (packet_s * 1e9)) if read_ns else None,
        "resolution_hz": float(resolution),
        "nyquist_hz": float(freqs[-1]),
        "frequency_hz": named["frequency_hz"],
        "signal": strongest["signal"],
        "rank": where["rank"],
        "core": where["core"],
        "core_evidence": "stolen CPU time" if where is evidence or
        strongest["signal"] == "stolen CPU time" else "group times",
        "stolen": evidence,
        "power_ratio": named["power_ratio"],
        "tests": tests,
        "correction": "Bonferroni",
        "p_value": p_value,
        "alpha": alpha,
        "detected": bool(p_value < alpha),
        "ranks": per_rank,
    }


def _strength(series: Mapping[str, Any]) -> tuple[float, float]:
    """Sort key: the smallest p-value first, then the largest power ratio."""
    return (float(series["pvals"].min()), -float(series["ratios"].max()))


def _summary(series: Mapping[str, Any], cores: Mapping[int, Any], freqs: Any,
             resolution: float) -> dict[str, Any]:
    """A series as the verdict shows it: rank, core, signal, frequency, p, ratio."""
    import numpy as np

    frequency = _comb_fundamental(freqs, series["ratios"], resolution)
    nearest = int(np.argmin(np.abs(freqs - frequency)))
    return {"rank": series["rank"], "core": cores.get(series["rank"]),
            "signal": series["signal"], "frequency_hz": frequency,
            "p_value": float(series["pvals"].min()),
            "power_ratio": float(series["ratios"][nearest])}


def _stolen_grid(packets: list[Any], shape: tuple[int, ...]) -> Any:
    """Packet x rank x group stolen times, or None when the run has none."""
    import numpy as np

    if not all(isinstance(p.get("stolen_ns"), list) for p in packets):
        return None
    stolen = np.asarray([p["stolen_ns"] for p in packets], dtype=float)
    return stolen if stolen.shape == shape else None


def describe(crit: Mapping[str, Any]) -> str:
    """The periodic criterion's value, for the verdict table."""
    core = crit.get("core")
    where = f"rank {crit['rank']}" + (f" (core {core})" if core is not None else "")
    signal = crit.get("signal", "group times")
    stolen = crit.get("stolen")
    told = (f", stolen {stolen['on_ms']:.2g} vs {stolen['off_ms']:.2g} ms/packet "
            f"p={stolen['p_value']:.2g}" if stolen and crit.get("core_evidence") ==
            "stolen CPU time" else "")
    line = "" if crit.get("detected") else "no line; strongest "  # a name is not a finding
    return (f"{line}{crit['frequency_hz']:.3g} Hz in the {signal} of {where}{told}: power "
            f"x{crit['power_ratio']:.2g}, p={crit['p_value']:.3g} ({crit['tests']} tests)")
