"""Per-core noise probes: read the files of ``mpiscope-noise probe`` into a "noise-probe".

``mpiscope-noise probe --out-dir D`` leaves one text file per worker and kind,
``D/<kind>-r<rank>-c<core>.txt``: header lines ``# key value`` then one record
of two integers per line (docs/noise-schema.md). :func:`read_probe_dir`
summarizes them per worker:

* FWQ (fixed work quantum): each record is the duration of one unit of the
  same work. The share of CPU lost is ``1 - n * min / sum``: the fastest unit
  is the undisturbed cost, all time above it was taken by something else.
* FTQ (fixed time quantum): each record is the work done in one quantum. The
  share lost is ``1 - mean / p99`` of the counts: the 99th percentile, not the
  maximum, is the undisturbed quantum, so one lucky quantum (a turbo burst, a
  timer edge) does not inflate the loss. The counts minus their mean and
  linear trend go through an FFT (power ``|X|^2 / n``); a peak is a local
  maximum whose power exceeds ``peak_ratio`` times the median power of the
  spectrum (the floor). Bins with fewer than MIN_CYCLES periods in the run
  are drift, not peaks. A periodic detour makes a comb - its frequency and
  all its multiples - so peaks that sit on a multiple of a lower peak (and
  are at most 4 times stronger) are folded into it as its harmonics; the
  five strongest fundamentals (by the summed power of their comb) are kept.
* selfish detour: each record is one detour of a spinning loop above the
  threshold. The share lost is the detours' total length over the run; the
  dominant period is the median interval between detour starts when at least
  half of the intervals lie within 10 % of it - tried on all detours, then on
  the longest 50, 25, 10, 5 and 1 % (a periodic agent's long detours are
  often drowned among short irregular ones).
* triad (STREAM): each record is one pass of a[i] = b[i] + 3 c[i] over
  arrays of ``elements``; a pass moves ``bytes_per_pass`` (24 bytes per
  element, STREAM's count). The bandwidth is bytes_per_pass over the median
  pass (``bandwidth_bytes_per_s``), and over the fastest (``best_...``).
  Workers of a node run their passes at the same time, so a node's
  bandwidth is the sum of its workers'.

numpy is imported inside the functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError

__all__ = [
    "DETOURS_KEPT",
    "KINDS",
    "MIN_CYCLES",
    "PEAK_RATIO",
    "PEAKS_KEPT",
    "SPECTRUM_POINTS",
    "format_probe",
    "read_probe_dir",
    "read_probe_file",
]

#: The probe kinds, in the order they run by default (triad: on request).
KINDS = ("fwq", "ftq", "selfish", "triad")
#: A spectral peak must exceed this multiple of the spectrum's median power.
PEAK_RATIO = 20.0
#: A spectral peak must repeat at least this many times over the run (lower bins are drift).
MIN_CYCLES = 4
#: Fundamentals kept per worker.
PEAKS_KEPT = 5
#: Most points of the downsampled spectrum kept for plots.
SPECTRUM_POINTS = 2000
#: Most detours listed per worker (the longest; the rest are only counted).
DETOURS_KEPT = 20_000
#: A detour period is "regular" when this share of intervals lies near the median.
_REGULAR_SHARE = 0.5
_REGULAR_TOLERANCE = 0.10
_PERIOD_MIN_DETOURS = 5
_HARMONIC_MAX_GAIN = 4.0

_FILE_NAME = re.compile(r"^(fwq|ftq|selfish|triad)-r(\d+)-c(-?\d+)\.txt$")
# Header keys holding a count or an id (integers) and measured values (numbers).
_INT_HEADERS = (
    "rank", "pid", "core", "work_iterations", "step_iterations", "records", "dropped",
    "elements", "bytes_per_pass", "llc_bytes",
)  # fmt: skip
_NUMBER_HEADERS = (
    "seconds",
    "start_ns",
    "work_ns_target",
    "quantum_ns",
    "threshold_ns",
    "loop_median_ns",
)
_REQUIRED = {
    "fwq": ("kind", "rank", "core", "seconds"),
    "ftq": ("kind", "rank", "core", "seconds", "quantum_ns"),
    "selfish": ("kind", "rank", "core", "seconds", "threshold_ns"),
    "triad": ("kind", "rank", "core", "seconds", "elements", "bytes_per_pass"),
}


def read_probe_file(path: Path) -> tuple[dict[str, Any], Any]:
    """One probe file: its header (typed) and its records as an (n, 2) int64 array."""
    import numpy as np

    header: dict[str, Any] = {}
    rows: list[tuple[int, int]] = []
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise MpiscopeError(f"cannot read probe file {path}: {exc}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition(" ")
            if key:
                header[key] = _header_value(path, number, key, value.strip())
            continue
        fields = line.split()
        try:
            if len(fields) != 2:
                raise ValueError
            rows.append((int(fields[0]), int(fields[1])))
        except ValueError:
            raise MpiscopeError(
                f"{path}:{number}: expected two integers, got {line[:60]!r}"
            ) from None
    kind = header.get("kind")
    if kind not in KINDS:
        raise MpiscopeError(f"{path}: header kind is {kind!r}, not one of {', '.join(KINDS)}")
    missing = [key for key in _REQUIRED[kind] if key not in header]
    if missing:
        raise MpiscopeError(f"{path}: header lacks {', '.join(missing)}")
    records = np.array(rows, dtype=np.int64).reshape(-1, 2)
    if "records" in header and header["records"] != records.shape[0]:
        raise MpiscopeError(
            f"{path}: header says {header['records']} records, the file holds "
            f"{records.shape[0]} (truncated?)"
        )
    return header, records


def _header_value(path: Path, number: int, key: str, value: str) -> Any:
    try:
        if key in _INT_HEADERS:
            return int(value)
        if key in _NUMBER_HEADERS:
            as_float = float(value)
            return int(as_float) if as_float.is_integer() else as_float
        if key == "cpus_allowed":
            return _cpu_list(value)
    except ValueError:
        raise MpiscopeError(f"{path}:{number}: header {key} has a bad value {value!r}") from None
    return value


def _cpu_list(text: str) -> list[int]:
    """``"0,2-3"`` -> ``[0, 2, 3]`` (comma list, ranges accepted)."""
    cpus: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        low, _, high = part.partition("-")
        cpus.extend(range(int(low), int(high) + 1) if high else [int(low)])
    return cpus


def _fwq(header: Mapping[str, Any], records: Any) -> dict[str, Any]:
    import numpy as np

    durations = records[:, 1].astype(float)
    summary: dict[str, Any] = {
        "work_ns_target": header.get("work_ns_target"),
        "work_iterations": header.get("work_iterations"),
        "dropped": int(header.get("dropped", 0)),
        "count": int(durations.size),
    }
    if durations.size == 0:
        return {
            **summary,
            "min_ns": None,
            "median_ns": None,
            "mean_ns": None,
            "p99_ns": None,
            "share_lost": None,
        }
    total = float(durations.sum())
    fastest = float(durations.min())
    return {
        **summary,
        "min_ns": fastest,
        "median_ns": float(np.median(durations)),
        "mean_ns": float(durations.mean()),
        "p99_ns": float(np.percentile(durations, 99)),
        "share_lost": 1.0 - durations.size * fastest / total if total > 0 else None,
    }


def _downsample(freqs: Any, power: Any, points: int) -> dict[str, list[float]]:
    """At most ``points`` points; each kept point is the strongest of its bin of frequencies."""
    import numpy as np

    if power.size <= points:
        return {"hz": freqs.tolist(), "power": power.tolist()}
    keep = [
        int(chunk[np.argmax(power[chunk])])
        for chunk in np.array_split(np.arange(power.size), points)
    ]
    return {"hz": freqs[keep].tolist(), "power": power[keep].tolist()}


def _fold_harmonics(peaks: list[dict[str, Any]], bin_hz: float) -> list[dict[str, Any]]:
    """Fold peaks at multiples of a lower peak into it; strongest combs first.

    Each comb's fundamental is refined from its highest harmonic found so far
    (hz / m is known to half a bin over m), so the tolerance stays near one bin
    instead of growing with m; it never exceeds a quarter of the fundamental,
    so a peak between two harmonics is never taken for one.
    """
    groups: list[dict[str, Any]] = []
    for peak in sorted(peaks, key=lambda p: p["hz"]):
        for group in groups:
            base = group["_f0"]
            multiple = round(peak["hz"] / base)
            tolerance = min(0.5 + 0.5 * multiple / group["_m"], 0.25 * base / bin_hz) * bin_hz
            # A comb's harmonics are at most about as strong as its fundamental.
            plausible = peak["power"] <= _HARMONIC_MAX_GAIN * group["power"]
            if multiple >= 2 and plausible and abs(peak["hz"] - multiple * base) <= tolerance:
                group["harmonics"] += 1
                group["harmonic_power"] += peak["power"]
                if multiple > group["_m"]:
                    group["_f0"], group["_m"] = peak["hz"] / multiple, multiple
                break
        else:
            groups.append(
                {
                    **peak,
                    "harmonics": 0,
                    "harmonic_power": peak["power"],
                    "_f0": peak["hz"],
                    "_m": 1,
                }
            )
    groups.sort(key=lambda g: g["harmonic_power"], reverse=True)
    return [{k: v for k, v in g.items() if not k.startswith("_")} for g in groups]


def _ftq(header: Mapping[str, Any], records: Any, peak_ratio: float) -> dict[str, Any]:
    import numpy as np

    quantum_ns = int(header["quantum_ns"])
    if quantum_ns <= 0:
        raise MpiscopeError(f"ftq quantum_ns must be positive, not {quantum_ns}")
    counts = records[:, 1].astype(float)
    summary: dict[str, Any] = {
        "quantum_ns": quantum_ns,
        "dropped": int(header.get("dropped", 0)),
        "count": int(counts.size),
        "peak_ratio_threshold": peak_ratio,
    }
    if counts.size < 4:
        return {
            **summary,
            "mean_work": None,
            "p99_work": None,
            "min_work": None,
            "share_lost": None,
            "bin_hz": None,
            "floor_power": None,
            "peaks": [],
            "spectrum": {"hz": [], "power": []},
        }
    mean = float(counts.mean())
    p99 = float(np.percentile(counts, 99))
    share_lost = max(0.0, 1.0 - mean / p99) if p99 > 0 else None
    # Without the mean and the linear trend: a slow drift would leak into every low bin.
    index = np.arange(counts.size, dtype=float)
    slope, intercept = np.polyfit(index, counts, 1)
    power = np.abs(np.fft.rfft(counts - (slope * index + intercept))) ** 2 / counts.size
    freqs = np.fft.rfftfreq(counts.size, d=quantum_ns * 1e-9)
    power, freqs = power[1:], freqs[1:]  # the mean was removed: bin 0 holds nothing
    floor = float(np.median(power))
    bin_hz = float(freqs[0])
    inner = power[1:-1]
    local = np.flatnonzero((inner > power[:-2]) & (inner >= power[2:])) + 1
    # A frequency must repeat MIN_CYCLES times in the run; below that it is drift.
    local = local[local >= MIN_CYCLES - 1]
    # A floor of 0 (a noiseless series): every non-zero line is a peak, its ratio undefined.
    peaks = [
        {
            "hz": float(freqs[i]),
            "power": float(power[i]),
            "ratio": float(power[i] / floor) if floor > 0 else None,
        }
        for i in local
        if power[i] > peak_ratio * floor and power[i] > 0
    ]
    return {
        **summary,
        "mean_work": mean,
        "p99_work": p99,
        "min_work": float(counts.min()),
        "share_lost": share_lost,
        "bin_hz": bin_hz,
        "floor_power": floor,
        "peaks": _fold_harmonics(peaks, bin_hz)[:PEAKS_KEPT],
        "spectrum": _downsample(freqs, power, SPECTRUM_POINTS),
    }


def _period_ns(starts: Any) -> tuple[float | None, float | None]:
    """(period, share of regular intervals): the median interval when it is typical."""
    import numpy as np

    if starts.size < _PERIOD_MIN_DETOURS:
        return None, None
    intervals = np.diff(np.sort(starts)).astype(float)
    median = float(np.median(intervals))
    if median <= 0:
        return None, 0.0
    near = np.abs(intervals - median) <= _REGULAR_TOLERANCE * median
    share = float(near.mean())
    if share < _REGULAR_SHARE:
        return None, share
    return float(np.median(intervals[near])), share


def _detour_period(starts: Any, lengths: Any, threshold_ns: float) -> dict[str, Any]:
    """The period of all detours, else of the longest 50, 25, 10, 5 or 1 %.

    A periodic agent's detours are often drowned among shorter, irregular ones
    (timer ticks, other tasks); the length class that recurs is reported.
    """
    import numpy as np

    classes = [float(threshold_ns)]
    if lengths.size:
        classes += [float(q) for q in np.percentile(lengths, [50, 75, 90, 95, 99])]
    share: float | None = None
    for min_length in classes:
        period, regular = _period_ns(starts[lengths >= min_length])
        share = regular if share is None else share
        if period is not None:
            return {
                "period_ns": period,
                "period_hz": 1e9 / period,
                "period_regular_share": regular,
                "period_min_length_ns": min_length,
            }
    return {
        "period_ns": None,
        "period_hz": None,
        "period_regular_share": share,
        "period_min_length_ns": None,
    }


def _selfish(header: Mapping[str, Any], records: Any) -> dict[str, Any]:
    import numpy as np

    starts, lengths = records[:, 0], records[:, 1]
    run_ns = float(header["seconds"]) * 1e9
    total = float(lengths.sum())
    summary: dict[str, Any] = {
        "threshold_ns": int(header["threshold_ns"]),
        "loop_median_ns": header.get("loop_median_ns"),
        "dropped": int(header.get("dropped", 0)),
        "seconds": float(header["seconds"]),
        "detours": int(lengths.size),
        "total_ns": total,
        "share_lost": total / run_ns if run_ns > 0 else None,
        **_detour_period(starts, lengths, float(header["threshold_ns"])),
    }
    if lengths.size:
        p50, p90, p99 = (float(v) for v in np.percentile(lengths, [50, 90, 99]))
        summary.update(p50_ns=p50, p90_ns=p90, p99_ns=p99, max_ns=float(lengths.max()))
    else:
        summary.update(p50_ns=None, p90_ns=None, p99_ns=None, max_ns=None)
    kept = records
    if records.shape[0] > DETOURS_KEPT:
        longest = np.argsort(lengths, kind="stable")[-DETOURS_KEPT:]
        kept = records[np.sort(longest)]
    summary["detour_list"] = kept.tolist()
    summary["detours_cut"] = int(records.shape[0] - kept.shape[0])
    return summary


def _triad(header: Mapping[str, Any], records: Any) -> dict[str, Any]:
    import numpy as np

    durations = records[:, 1].astype(float)
    moved = float(header["bytes_per_pass"])
    summary: dict[str, Any] = {
        "elements": int(header["elements"]),
        "bytes_per_pass": int(moved),
        "llc_bytes": header.get("llc_bytes"),
        "llc_source": header.get("llc_source"),
        "dropped": int(header.get("dropped", 0)),
        "passes": int(durations.size),
        "median_ns": None,
        "min_ns": None,
        "bandwidth_bytes_per_s": None,
        "best_bandwidth_bytes_per_s": None,
    }
    durations = durations[durations > 0]
    if durations.size:
        median, fastest = float(np.median(durations)), float(durations.min())
        summary.update(
            median_ns=median,
            min_ns=fastest,
            bandwidth_bytes_per_s=moved / median * 1e9,
            best_bandwidth_bytes_per_s=moved / fastest * 1e9,
        )
    return summary


def read_probe_dir(directory: str | Path, *, peak_ratio: float = PEAK_RATIO,
                   finished_only: bool = False) -> dict[str, Any]:  # fmt: skip
    """The "noise-probe" document of a probe directory (docs/noise-schema.md);
    ``finished_only``: of the files of an interrupted run, those a probe
    finished writing (one cut short is left out)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise MpiscopeError(f"probe directory {directory} does not exist")
    files = sorted(p for p in directory.iterdir() if _FILE_NAME.match(p.name))
    if not files:
        raise MpiscopeError(f"probe directory {directory} has no <kind>-r<rank>-c<core>.txt files")
    workers: dict[tuple[int, int], dict[str, Any]] = {}
    for path in files:
        match = _FILE_NAME.match(path.name)
        assert match is not None
        kind, rank, core = match.group(1), int(match.group(2)), int(match.group(3))
        try:
            header, records = read_probe_file(path)
        except MpiscopeError:
            if finished_only:
                continue
            raise
        if header["kind"] != kind:
            raise MpiscopeError(f"{path}: header kind {header['kind']} differs from its name")
        worker = workers.setdefault(
            (rank, core),
            {
                "host": header.get("host"),
                "rank": rank,
                "core": core,
                "pid": header.get("pid"),
                "cpus_allowed": header.get("cpus_allowed"),
                "fwq": None,
                "ftq": None,
                "selfish": None,
                "triad": None,
                "dominant_hz": None,
            },
        )
        try:
            if kind == "fwq":
                worker["fwq"] = _fwq(header, records)
            elif kind == "ftq":
                worker["ftq"] = _ftq(header, records, peak_ratio)
            elif kind == "triad":
                worker["triad"] = _triad(header, records)
            else:
                worker["selfish"] = _selfish(header, records)
        except MpiscopeError as exc:
            if finished_only:
                continue
            raise MpiscopeError(f"{path}: {exc}") from None
        worker[kind]["seconds"] = header["seconds"]
        worker[kind]["file"] = path.name
    if not any(worker[kind] for worker in workers.values() for kind in KINDS):
        raise MpiscopeError(f"probe directory {directory}: no probe finished")
    for worker in workers.values():
        peaks = worker["ftq"]["peaks"] if worker["ftq"] else []
        worker["dominant_hz"] = peaks[0]["hz"] if peaks else None
    return {
        "schema_version": "1.1" if any(w["triad"] for w in workers.values()) else "1.0",
        "kind": "noise-probe",
        "mpiscope_version": _version(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "source": str(directory),
        "units": {
            "time": "ns",
            "frequency": "Hz",
            "share": "fraction of CPU time",
            "work": "work units per quantum",
            "power": "work units^2",
        },
        "workers": [workers[key] for key in sorted(workers)],
    }


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mpiscope")
    except PackageNotFoundError:
        return "unknown"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2%}"


def _peaks(ftq: Mapping[str, Any] | None, count: int = 3) -> str:
    if not ftq or not ftq.get("peaks"):
        return "-"
    return ", ".join(f"{p['hz']:.3g} Hz x{p['ratio']:.0f}" for p in ftq["peaks"][:count])


def _period(selfish: Mapping[str, Any] | None) -> str:
    hz = selfish.get("period_hz") if selfish else None
    return "-" if hz is None else f"{hz:.3g} Hz"


def _bandwidth(triad: Mapping[str, Any] | None) -> str:
    value = triad.get("bandwidth_bytes_per_s") if triad else None
    return "-" if value is None else f"{value / 1e9:.3g} GB/s"


def format_probe(doc: Mapping[str, Any]) -> str:
    """A plain-text table of a "noise-probe": one row per worker.

    "FTQ peaks" are the strongest spectrum peaks with their power over the
    spectrum's median ("x1852"); "detour period" is the regular period of the
    selfish detours, as a frequency; "triad" (when it ran) the STREAM triad
    bandwidth of the median pass.
    """
    triads = any(worker.get("triad") for worker in doc["workers"])
    rows = [
        ("host", "rank", "core", "FWQ lost", "FTQ lost", "FTQ peaks (power/median)",
         "detours", "selfish lost", "detour period") + (("triad",) if triads else ())
    ]
    for worker in doc["workers"]:
        fwq, ftq, selfish = worker.get("fwq"), worker.get("ftq"), worker.get("selfish")
        rows.append(
            (
                str(worker.get("host") or "-"),
                str(worker["rank"]),
                str(worker["core"]),
                _share(fwq["share_lost"]) if fwq else "-",
                _share(ftq["share_lost"]) if ftq else "-",
                _peaks(ftq),
                str(selfish["detours"]) if selfish else "-",
                _share(selfish["share_lost"]) if selfish else "-",
                _period(selfish),
            )
            + ((_bandwidth(worker.get("triad")),) if triads else ())
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells))
    return "\n".join(lines)
