"""Time in MPI over the run, per rank and per function: a trace's heat map.

The run (by default from the first end of MPI_Init to the last start of
MPI_Finalize over all ranks) is cut into equal bins, and each call's time is
split exactly over the bins it spans (a part record repeats its call's
stamps: it is not counted again). Per rank and bin: the time in the selected
functions (every MPI function by default), in any MPI function, and the time
the rank was running the program (its first call's start to its last time,
once per thread that called MPI: the share of a rank of two threads is their
mean), less the tracer's clock synchronizations (after MPI_Init returns and
before MPI_Finalize is entered: outside every recorded call, yet not the
program's). Per function and bin: its time summed over the ranks; what the
running ranks spent outside MPI is the compute (or idle) time.

One numpy pass per rank over the streamed chunks
(:meth:`~mpiscope.trace.stream.Stream.global_chunks`), and one before it to
find MPI_Init and MPI_Finalize: memory holds the bins, never the trace.
:mod:`.heatmap_text` prints it, :mod:`.heatmap_html` draws it in a page,
:mod:`mpiscope.reports.plots.activity` in a picture.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import unknown
from mpiscope.result.units import format_ns, pick_time_unit
from mpiscope.trace.reader import CLASS_NAMES, F_PART, RankTrace
from mpiscope.trace.stream import Stream

__all__ = ["DEFAULT_BINS", "HeatMap", "Layer", "Rows", "Selection", "compute_heatmap",
           "heatmap_data", "select_functions", "split_time"]

DEFAULT_BINS = 200
MAX_BINS = 10_000  # memory: ranks x bins x 24 bytes, and per function used x bins x 8
NOT_IN_MPI = "not in MPI"
CLOCK_SYNC = "tracer's clock sync"


def split_time(start: np.ndarray, end: np.ndarray, key: np.ndarray, keys: int, begin: float,
               width: float, bins: int) -> np.ndarray:
    """Time (ns) of the intervals [start, end) in each (key, bin): bin i is
    [begin + i*width, begin + (i+1)*width); an interval is clipped to the
    bins and split exactly over those it spans (the partial first and last
    bins, the whole ones between)."""
    stop = begin + width * bins
    s = np.clip(np.asarray(start, dtype=np.float64), begin, stop)
    e = np.clip(np.asarray(end, dtype=np.float64), begin, stop)
    keep = e > s
    s, e, k = s[keep], e[keep], np.asarray(key, dtype=np.int64)[keep]
    i0 = np.minimum(np.floor((s - begin) / width).astype(np.int64), bins - 1)
    i1 = np.minimum(np.floor((e - begin) / width).astype(np.int64), bins - 1)
    i1 = np.maximum(i1, i0)
    cross = i1 > i0
    first = np.where(cross, np.maximum(begin + (i0 + 1) * width - s, 0.0), e - s)
    out = np.bincount(k * bins + i0, weights=first, minlength=keys * bins)
    kc, c0, c1 = k[cross], i0[cross], i1[cross]
    out += np.bincount(kc * bins + c1, weights=np.maximum(e[cross] - (begin + c1 * width), 0.0),
                       minlength=keys * bins)
    whole = np.bincount(kc * (bins + 1) + c0 + 1, minlength=keys * (bins + 1)).astype(np.int64)
    whole -= np.bincount(kc * (bins + 1) + c1, minlength=keys * (bins + 1))
    counts = np.cumsum(whole.reshape(keys, bins + 1), axis=1)[:, :bins]
    return out.reshape(keys, bins) + counts * width


@dataclass(frozen=True)
class Selection:
    """The functions whose time the heat map colors (None: every one)."""

    names: frozenset[str] | None
    label: str

    def has(self, name: str) -> bool:
        return self.names is None or name in self.names


def select_functions(stream: Stream, functions: Sequence[str] = (),
                     classes: Sequence[str] = ()) -> Selection:
    """The functions named (names or shell patterns, any case, ``MPI_``
    optional) or of the classes named; each must match a function of the
    trace's function tables."""
    if not functions and not classes:
        return Selection(None, "MPI")
    table: dict[str, str] = {}
    for r in stream.trace.ranks:
        table.update(zip(r.functions, r.classes, strict=False))
    table.pop("", None)
    chosen: set[str] = set()
    for pattern in functions:
        full = pattern if pattern.lower().startswith("mpi_") else "MPI_" + pattern
        hits = {n for n in table if fnmatch.fnmatchcase(n.lower(), full.lower())}
        if not hits:
            close = difflib.get_close_matches(full, sorted(table), n=1, cutoff=0.75)
            raise MpiscopeError(f"--function: no function of the trace matches {pattern!r}"
                                + (f" (did you mean {close[0]!r}?)" if close else ""))
        chosen |= hits
    for cls in classes:
        if cls not in CLASS_NAMES:
            raise MpiscopeError("--class: " + unknown("class", cls, CLASS_NAMES))
        chosen |= {n for n, c in table.items() if c == cls}
    label = ", ".join([*functions, *(f"class {c}" for c in classes)])
    return Selection(frozenset(chosen), label)


@dataclass(frozen=True)
class Layer:
    """One band of the per-function breakdown: its time per bin over all ranks."""

    label: str
    ns: np.ndarray  # (bins,)

    @property
    def total_ns(self) -> float:
        return float(self.ns.sum())


@dataclass(frozen=True)
class Rows:
    """The heat map's rows: one per rank, or per group of consecutive ranks
    when there are more ranks than rows (the group's time in the selection
    over its running time)."""

    labels: list[str]
    share: np.ndarray  # (rows, bins): NaN where no rank of the row ran
    totals: list[float]  # each row's share over the window (NaN: never ran)
    group: int  # ranks per row


@dataclass
class HeatMap:
    """Time per rank, per function and per bin (ns); rows are trace ranks
    0..nprocs-1 (a rank without a file or without calls has no running time)."""

    directory: str
    begin_ns: float
    end_ns: float
    bins: int
    window: str  # what the window is, in words
    selection: Selection
    selected_ns: np.ndarray  # (ranks, bins) in the selected functions
    mpi_ns: np.ndarray  # (ranks, bins) in any MPI function
    running_ns: np.ndarray  # (ranks, bins) running the program, times the rank's threads
    sync_ns: np.ndarray  # (bins,) in the tracer's clock synchronizations, over all ranks
    functions: dict[str, np.ndarray]  # function -> (bins,) over all ranks
    threads: np.ndarray  # (ranks,) threads that called MPI
    calls: np.ndarray  # (ranks,) calls (not parts)
    unfinished: int
    missing: list[int]  # ranks without a file

    @property
    def width_ns(self) -> float:
        return (self.end_ns - self.begin_ns) / self.bins

    @property
    def edges_ns(self) -> np.ndarray:
        return self.begin_ns + self.width_ns * np.arange(self.bins + 1)

    @property
    def ranks_ns(self) -> np.ndarray:
        """(bins,) the ranks' time, all of it: running the program or syncing
        the tracer's clocks (the breakdown's layers add up to it)."""
        return self.running_ns.sum(axis=0) + self.sync_ns

    def rows(self, max_rows: int) -> Rows:
        n = len(self.selected_ns)
        group = max(1, math.ceil(n / max(1, max_rows)))
        labels, shares, totals = [], [], []
        for first in range(0, n, group):
            last = min(first + group, n) - 1
            sel = self.selected_ns[first:last + 1].sum(axis=0)
            run = self.running_ns[first:last + 1].sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                shares.append(np.where(run > 0, sel / run, np.nan))
            total_run = float(run.sum())
            totals.append(float(sel.sum()) / total_run if total_run > 0 else math.nan)
            labels.append(self._label(first, last))
        return Rows(labels, np.array(shares).reshape(len(labels), self.bins), totals, group)

    def _label(self, first: int, last: int) -> str:
        if first != last:
            return f"ranks {first}-{last}"
        if first in self.missing:
            return f"rank {first} (no file)"
        if not self.calls[first]:
            return f"rank {first} (no calls)"
        threads = int(self.threads[first])
        return f"rank {first}" + (f" ({threads} threads)" if threads > 1 else "")

    def layers(self, top: int) -> list[Layer]:
        """The `top` selected functions of most time, then the rest of the
        selection, the other MPI functions and the time not in MPI."""
        chosen = sorted((n for n in self.functions if self.selection.has(n)),
                        key=lambda n: -float(self.functions[n].sum()))
        zero = np.zeros(self.bins)
        out = [Layer(n, self.functions[n]) for n in chosen[:top]]
        rest = sum((self.functions[n] for n in chosen[top:]), zero)
        if chosen[top:]:
            out.append(Layer(f"{len(chosen) - top} more", rest))
        other = sum((v for n, v in self.functions.items() if not self.selection.has(n)), zero)
        if self.selection.names is not None:
            out.append(Layer("other MPI", other))
        idle = np.maximum(self.running_ns.sum(axis=0) - self.mpi_ns.sum(axis=0), 0.0)
        out.append(Layer(NOT_IN_MPI, idle))
        if self.sync_ns.any():
            out.append(Layer(CLOCK_SYNC, self.sync_ns))
        return out

    def notes(self, rows: Rows) -> list[str]:
        """What a reader must know to read the picture right."""
        notes = []
        if rows.group > 1:
            notes.append(f"{len(self.selected_ns)} ranks in {len(rows.labels)} rows of "
                         f"{rows.group}: a row's share is its ranks' time in "
                         f"{self.selection.label} over their running time")
        several = int((self.threads > 1).sum())
        if several:
            notes.append(f"{several} rank(s) with several threads calling MPI: a share is "
                         "the mean over the threads")
        if self.unfinished:
            notes.append(f"{self.unfinished} call(s) had not returned: they last until "
                         "their rank's last time")
        idle = [r for r in range(len(self.calls)) if not self.calls[r] and r not in self.missing]
        if self.missing:
            notes.append(f"no file for rank(s) {_ranks_text(self.missing)}")
        if idle:
            notes.append(f"no call recorded on rank(s) {_ranks_text(idle)}")
        return notes


def _ranks_text(ranks: list[int]) -> str:
    return ", ".join(map(str, ranks[:10])) + (f" and {len(ranks) - 10} more"
                                              if len(ranks) > 10 else "")


def _of_class(rank: RankTrace, cls: str) -> np.ndarray:
    """Per function id (and one beyond the table): is it of class `cls`."""
    return np.array([c == cls for c in rank.classes] + [False])


def _find_window(stream: Stream) -> tuple[float, float] | None:
    """The first end of MPI_Init* and the last start of MPI_Finalize over all
    ranks (a pass over the records), None when no rank has both."""
    ends, starts = [], []
    for rank in stream.trace.ranks:
        is_init, is_final = _of_class(rank, "init"), _of_class(rank, "finalize")
        init, final = math.inf, -math.inf
        for chunk in stream.global_chunks(rank):
            func = np.minimum(chunk["func"], len(is_init) - 1)
            main = (chunk["flags"] & F_PART) == 0
            inits = chunk["end"][main & is_init[func]]
            finals = chunk["start"][main & is_final[func]]
            if len(inits):
                init = min(init, float(inits.min()))
            if len(finals):
                final = max(final, float(finals.max()))
        if init < math.inf:
            ends.append(init)
        if final > -math.inf:
            starts.append(final)
    if not ends or not starts or max(starts) <= min(ends):
        return None
    return min(ends), max(starts)


def _window(stream: Stream, whole: bool, start_s: float | None,
            end_s: float | None) -> tuple[float, float, str]:
    run = max(stream.end_ns, 1.0)
    if not math.isfinite(run):
        raise MpiscopeError(f"{stream.trace.directory}: its clocks give no finite run time")
    if start_s is not None or end_s is not None:
        a = 0.0 if start_s is None else start_s * 1e9
        b = run if end_s is None else end_s * 1e9
        if a >= run:
            raise MpiscopeError(f"--from {a / 1e9:g} s is after the run's end "
                                f"({run / 1e9:g} s)")
        if not 0 <= a < b:
            raise MpiscopeError(f"--from/--to: an empty window ({a / 1e9:g} s to {b / 1e9:g} s; "
                                f"the run lasts {run / 1e9:g} s)")
        return a, b, f"{format_ns(a)} to {format_ns(b)}"
    found = None if whole else _find_window(stream)
    if found is None:
        return 0.0, run, "the whole run"
    return found[0], found[1], "from the end of MPI_Init to the start of MPI_Finalize"


def compute_heatmap(stream: Stream, bins: int = DEFAULT_BINS, selection: Selection | None = None,
                    whole: bool = False, start_s: float | None = None,
                    end_s: float | None = None) -> HeatMap:
    """The heat map of a streamed trace (see the module's docstring); start_s
    and end_s (seconds from the trace's origin) set the window."""
    if not 1 <= bins <= MAX_BINS:
        raise MpiscopeError(f"--bins must be between 1 and {MAX_BINS}, not {bins}")
    selection = selection or Selection(None, "MPI")
    begin, end, window = _window(stream, whole, start_s, end_s)
    width = (end - begin) / bins
    nprocs = max(stream.trace.nprocs, max((r.rank for r in stream.trace.ranks), default=0) + 1)
    hm = HeatMap(str(stream.trace.directory), begin, end, bins, window, selection,
                 np.zeros((nprocs, bins)), np.zeros((nprocs, bins)), np.zeros((nprocs, bins)),
                 np.zeros(bins), {}, np.zeros(nprocs, dtype=np.int64),
                 np.zeros(nprocs, dtype=np.int64), 0, list(stream.trace.missing_ranks))
    for rank in stream.trace.ranks:
        _add_rank(hm, stream, rank, width)
    return hm


def _add_rank(hm: HeatMap, stream: Stream, rank: RankTrace, width: float) -> None:
    names = list(rank.functions) + ["?"]
    per_func: dict[int, np.ndarray] = {}  # the functions it called only
    threads: set[int] = set()
    first = math.inf
    r = rank.rank
    for chunk in stream.global_chunks(rank):
        main = chunk[(chunk["flags"] & F_PART) == 0]
        if not len(main):
            continue
        func = np.minimum(main["func"].astype(np.int64), len(names) - 1)
        called, which = np.unique(func, return_inverse=True)
        part = split_time(main["start"], main["end"], which, len(called), hm.begin_ns, width,
                          hm.bins)
        for k, f in enumerate(called.tolist()):
            per_func[f] = per_func[f] + part[k] if f in per_func else part[k]
        threads.update(np.unique(main["thread"]).tolist())
        first = min(first, float(main["start"].min()))
        hm.calls[r] += len(main)
        hm.unfinished += int((main["t_exit"] == 0).sum())
    for f, ns in per_func.items():
        name = names[f]
        hm.functions[name] = hm.functions[name] + ns if name in hm.functions else ns
        hm.mpi_ns[r] += ns
        if hm.selection.has(name):
            hm.selected_ns[r] += ns
    hm.threads[r] = len(threads)
    if threads:
        last = stream.last.get(r, first)
        alive = split_time(np.array([first]), np.array([last]), np.zeros(1), 1, hm.begin_ns,
                           width, hm.bins)[0]
        sync = _clock_syncs(stream, rank, hm.begin_ns, width, hm.bins)
        hm.sync_ns += sync
        hm.running_ns[r] = np.maximum(alive * len(threads) - sync, 0.0)


def _clock_syncs(stream: Stream, rank: RankTrace, begin: float, width: float,
                 bins: int) -> np.ndarray:
    """The rank's time per bin in the tracer's clock synchronizations (each
    recorded with its local end and its duration)."""
    points = list(rank.clocks.values())
    if not points:
        return np.zeros(bins)
    clock = stream.clocks[rank.rank]
    ends = clock(np.array([p.local_ns for p in points])) - stream.origin_ns
    starts = ends - np.array([max(p.duration_ns, 0.0) for p in points])
    return split_time(starts, ends, np.zeros(len(points)), 1, begin, width, bins)[0]


def _rounded(values: np.ndarray) -> list[float | None]:
    return [round(float(v), 4) if math.isfinite(v) else None for v in values]


def heatmap_data(hm: HeatMap, max_rows: int, top: int) -> dict[str, Any]:
    """The heat map as plain values (JSON, the figure): shares per row and bin,
    the breakdown's layers as shares of the ranks' time per bin, the
    window in ns and in the axis' unit."""
    rows = hm.rows(max_rows)
    run = hm.ranks_ns
    unit, scale = pick_time_unit([hm.end_ns])
    layers = []
    for layer in hm.layers(top):
        with np.errstate(invalid="ignore", divide="ignore"):
            layers.append((layer.label, _rounded(np.where(run > 0, layer.ns / run, np.nan))))
    notes = [f"{hm.bins} bins of {format_ns(hm.width_ns)}, {hm.window}", *hm.notes(rows)]
    return {
        "title": f"{hm.directory}: time in {hm.selection.label} per rank over the run",
        "xlabel": f"time from the start of the trace ({unit})",
        "begin": hm.begin_ns / scale, "end": hm.end_ns / scale,
        "rows": tuple(rows.labels), "values": [_rounded(r) for r in rows.share],
        "colorbar": f"share of each bin in {hm.selection.label} (gray: not running the program)",
        "layers": tuple(layers), "note": "; ".join(notes) + ".",
        "selection": hm.selection.label,
        "begin_ns": hm.begin_ns, "end_ns": hm.end_ns, "totals": _rounded(np.array(rows.totals)),
    }
