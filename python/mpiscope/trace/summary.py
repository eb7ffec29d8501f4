"""``mpiscope trace summary``: a trace as tables, in the spirit of mpiP."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from mpiscope.errors import MpiscopeError
from mpiscope.result.units import format_bytes, format_ns
from mpiscope.trace.analysis import Analysis, WaitStats, analyze
from mpiscope.trace.merge import Merged
from mpiscope.trace.reader import Trace, read_rank_file
from mpiscope.trace.sites import resolve_sites
from mpiscope.trace.stream import Stream

__all__ = ["render_summary"]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: int = 1) -> list[str]:
    """Columns from `right` on are right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(c).rjust(w) if i >= right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole > 0 else "-"


def _header(a: Analysis) -> list[str]:
    merged = a.stream
    trace = merged.trace
    first = trace.ranks[0]
    meta = first.meta
    library = str(meta.get("mpi_library", "")).strip().splitlines()[0:1]
    timer = meta.get("timer", {})
    lines = [
        f"trace {trace.directory}: format {meta.get('version')}, {trace.nprocs} ranks, "
        f"{meta.get('model')} model, MPI {meta.get('mpi_version')} "
        f"({library[0] if library else 'unknown library'})",
        f"timer {timer.get('name')} ({timer.get('source')}), stamps "
        f"{meta.get('stamp_source', meta.get('stamp'))}, run {format_ns(merged.end_ns)} "
        "on the global clock",
    ]
    incomplete = [r.rank for r in trace.ranks if not r.complete or r.end_status != "finalized"]
    if trace.missing_ranks:
        lines.append(f"PARTIAL: no file for rank(s) {', '.join(map(str, trace.missing_ranks))}")
    if incomplete:
        how = ", ".join(f"rank {r.rank}: {'killed' if r.end_status == 'none' else r.end_status}"
                        + (f" {r.end_code}" if r.end_status in ("signal", "MPI_Abort") else "")
                        + (f" [{r.short_reason()}]" if r.short_reason() else "")
                        for r in trace.ranks if r.rank in incomplete)
        lines.append(f"PARTIAL: trace ended early ({how}); calls that had not returned "
                     "end at the rank's last time")
    lines += _worlds(trace)
    lines.append(_clock_line(merged))
    dropped = sum(r.dropped for r in trace.ranks)
    cancelled = sum(merged.unmatched_why.get("message", {}).values())  # only cancels there
    lines.append(
        f"records: {merged.calls_total} calls, {dropped} dropped"
        + (" (the trace file could not be written)" if dropped else "")
        + f"; messages: {merged.messages} matched, {merged.unmatched_sends} sends and "
        f"{merged.unmatched_recvs} receives unmatched"
        + (f", {cancelled} cancelled left out" if cancelled else "")
        + f", {a.backwards} arrow(s) backwards in time")
    return lines


def _worlds(trace: Trace) -> list[str]:
    """Where this MPI world stands among those that wrote into the directory:
    spawned jobs and later runs have their own traces (DIR/world-K), read
    apart (their ranks are other processes, on a clock of their own)."""
    lines = []
    if trace.ranks[0].meta.get("spawned"):
        lines.append(f"world: started by MPI_Comm_spawn (world {trace.ranks[0].meta.get('world')}"
                     f"); its parent's trace is in {trace.directory.parent}")
    worlds = []
    for d in trace.worlds:
        files = sorted(d.glob("rank-*.mst"))
        try:
            meta = read_rank_file(files[0], records=False).meta if files else {}
            how = ("started by MPI_Comm_spawn" if meta.get("spawned")
                   else "another run into this directory")
        except MpiscopeError as exc:
            how = f"unreadable ({exc})"
        worlds.append((d, len(files), how))
    if len(worlds) <= 3:
        return lines + [f"other world {d.name}: {n} rank file(s), {how}: a trace of its own, "
                        f"not in this summary (mpiscope trace summary {d})"
                        for d, n, how in worlds]
    hows = Counter(how for _, _, how in worlds)
    lines.append(f"other worlds: {len(worlds)} ({worlds[0][0].name} to {worlds[-1][0].name}), "
                 f"{sum(n for _, n, _ in worlds)} rank file(s), "
                 + ", ".join(f"{k} {how}" for how, k in hows.most_common())
                 + f": each a trace of its own, not in this summary (mpiscope trace summary "
                 f"{trace.directory}/world-K)")
    return lines


def _clock_line(merged: Stream) -> str:
    zero = next((r for r in merged.trace.ranks if r.rank == 0), None)
    if zero is None or 0 not in zero.clocks:
        return "clock: no synchronization recorded: times are local to each rank"
    parts = []
    for which, label in ((0, "start"), (1, "end")):
        point = zero.clocks.get(which)
        if point and point.residual_ns:
            parts.append(f"{label} {format_ns(max(abs(x) for x in point.residual_ns))}")
    text = "clock: residual after synchronization max " + (", ".join(parts) or "-")
    end = zero.clocks.get(1)
    if end and end.drift_ns:
        text += (f"; drift of the start's offsets by the end max "
                 f"{format_ns(max(abs(x) for x in end.drift_ns))} (corrected linearly)")
    elif end is None:
        text += "; no end synchronization: constant offsets (drift not corrected)"
    start = zero.clocks[0]
    estimated = [r.rank for r in merged.trace.ranks
                 if r.rank != 0 and r.rank not in merged.shared_counter
                 and r.rank < min(len(start.residual_ns), len(start.rtt_all_ns))]
    if estimated:
        bound = max(abs(start.residual_ns[r]) + start.rtt_all_ns[r] / 2 for r in estimated)
        text += (f"\nclock: error bound of the estimated offsets max {format_ns(bound)} "
                 f"(residual + half the best round trip; {len(estimated)} rank(s))")
    if merged.shared_counter:
        off = max(abs(e) for e in merged.shared_counter.values())
        text += (f"\nclock: {len(merged.shared_counter)} rank(s) on rank 0's host read its "
                 f"counter: times exact, no estimate (the synchronization's estimate was off by "
                 f"max {format_ns(off)} there)")
    return text


def _ranks(a: Analysis) -> list[str]:
    rows = [[str(r.rank), format_ns(r.run_ns), format_ns(r.mpi_ns), _pct(r.mpi_ns, r.run_ns),
             str(r.calls), str(r.dropped), r.end_status] for r in a.ranks]
    return ["", "Time in MPI per rank (between MPI_Init and MPI_Finalize)"] + _table(
        ["rank", "run", "in MPI", "MPI %", "calls", "dropped", "ended"], rows)


def _functions(a: Analysis, top: int) -> list[str]:
    rows = [[f.name, str(f.calls), format_ns(f.total_ns), format_ns(f.total_ns / f.calls),
             format_ns(f.max_ns), _pct(f.total_ns, a.total_mpi_ns),
             format_bytes(f.bytes) if f.bytes else "-"] for f in a.functions[:top]]
    more = len(a.functions) - top
    return (["", "Time per function (all ranks)"]
            + _table(["function", "calls", "time", "mean", "max", "% MPI", "bytes"], rows)
            + ([f"({more} more functions)"] if more > 0 else []))


def _sites(a: Analysis, top: int) -> list[str]:
    best = sorted(a.sites, key=lambda s: -s[4])[:top]
    by_rank = {r.rank: r for r in a.stream.trace.ranks}
    names: dict[tuple[int, int], str] = {}
    for rank in {s[0] for s in best}:
        addresses = [s[2] for s in best if s[0] == rank]
        resolved = resolve_sites(by_rank[rank].maps, addresses)
        names.update({(rank, addr): text for addr, text in resolved.items()})
    rows = [[f, names.get((r, site), hex(site)), str(r), str(n), format_ns(t),
             _pct(t, a.total_mpi_ns)] for r, f, site, n, t in best]
    return ["", f"Call sites (top {top} by time)"] + _table(
        ["function", "call site", "rank", "calls", "time", "% MPI"], rows, right=2)


def _sizes(a: Analysis) -> list[str]:
    if not a.send_sizes:
        return []
    rows = []
    for name, counts in sorted(a.send_sizes.items()):
        known = sorted((b, n) for b, n in counts.items() if b >= 0)
        if not known:
            continue
        v, n = np.array([b for b, _ in known], dtype=np.float64), np.array([c for _, c in known])
        cum = np.cumsum(n)
        total = int(cum[-1])

        def at(j: int, v: np.ndarray = v, cum: np.ndarray = cum) -> float:
            """The j-th size (from 0) of the sizes repeated by their counts."""
            return float(v[np.searchsorted(cum, j, side="right")])

        median = at(total // 2) if total % 2 else (at(total // 2 - 1) + at(total // 2)) / 2
        rows.append([name, str(total), format_bytes(v[0]), format_bytes(median),
                     format_bytes(v[-1]), format_bytes(float((v * n).sum()))])
    return ["", "Message sizes (matched point-to-point messages, by send function)"] + _table(
        ["send function", "messages", "min", "median", "max", "total"], rows)


def _waits(title: str, explain: str, waits: dict[tuple[int, int], WaitStats]) -> list[str]:
    lines = ["", title, explain]
    if not waits:
        return lines + ["none"]
    rows = [[f"{s} -> {d}", str(w.count), format_ns(w.total_ns), format_ns(w.total_ns / w.count),
             format_ns(w.max_ns)]
            for (s, d), w in sorted(waits.items(), key=lambda kv: -kv[1].total_ns)]
    return lines + _table(["sender -> receiver", "messages", "waited", "mean", "max"], rows)


def _collectives(a: Analysis) -> list[str]:
    lines = ["", "Collectives (blocking, nonblocking, persistent): early ranks wait for the last "
             "to arrive, in the call that completes their part; the operation's cost is the "
             "last finish", "after the last arrival"]
    if not a.collectives:
        return lines + ["none"]
    rows = []
    for c in a.collectives:
        last = max(c.last_arrivals.items(), key=lambda kv: kv[1])
        rows.append([c.name, c.kind, str(c.instances), str(c.ranks), format_ns(c.early_wait_ns),
                     format_ns(c.max_wait_ns), format_ns(c.after_last_ns / c.instances),
                     f"rank {last[0]} ({last[1]}/{c.instances})"])
    return lines + _table(["collective", "kind", "instances", "ranks", "early wait", "max wait",
                           "mean cost after last", "last to arrive"], rows, right=2)


def _io(a: Analysis) -> list[str]:
    """MPI-IO per function: calls, bytes, files, the explicit offsets' range."""
    if not a.io:
        return []
    rows = [[s.name, str(s.calls), format_bytes(s.bytes) if s.bytes else "-",
             str(len(s.files)) if s.files else "-",
             "-" if s.min_offset is None else f"{s.min_offset} .. {s.max_offset}"]
            for s in a.io]  # fmt: skip
    return ["", "MPI-IO (files: distinct handles over the ranks; offsets: the explicit ones of "
            "the *_at calls, in etypes of the view)"] + _table(
        ["function", "calls", "bytes", "files", "offsets"], rows)


def _counts(counts: dict[str, int] | None) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted((counts or {}).items()))


def _matching(a: Analysis) -> list[str]:
    """What was linked across ranks per kind, and what could not be, and why."""
    st, why = a.stream, a.stream.unmatched_why
    empty: Counter[str] = Counter()
    coll, rma = a.links.get("collective", empty), a.links.get("rma", empty)
    lines = ["", "Matching across ranks (what could not be matched, and why)",
             f"point-to-point: {st.messages} messages matched; {st.unmatched_sends} sends and "
             f"{st.unmatched_recvs} receives without a partner in the trace",
             f"partitioned: {st.matched.get('partitioned', 0)} messages matched "
             f"(MPI_Psend_init round to MPI_Precv_init round); {a.partitions_readied} "
             "partitions readied"
             + (f", and {a.pready_unknown} MPI_Pready* call(s) whose partitions are not "
                "recorded" if a.pready_unknown else ""),
             f"collectives: {sum(coll.values())} instances matched"
             + (f" ({_counts(coll)})" if coll else ""),
             f"one-sided: {sum(rma.values())} transfers matched, origin to target"
             + (f" (by epoch: {_counts(rma)})" if rma else "")]
    labels = {"message": "point-to-point", "partitioned": "partitioned",
              "collective": "collectives (operations on ranks)",
              "rma": "one-sided transfers"}
    for kind, label in labels.items():
        for reason, n in sorted(why.get(kind, {}).items(), key=lambda kv: -kv[1]):
            lines.append(f"  not matched, {label}: {n}: {reason}")
    return lines


def render_summary(source: Stream | Merged, top: int = 15) -> str:
    """The tables, from one pass over the streamed trace."""
    a = analyze(source)
    lines = _header(a) + _ranks(a) + _functions(a, top) + _sites(a, top) + _sizes(a)
    lines += _waits("Late sender (a blocking receive waits for the send to start)",
                    "waited: from the start of the receive (or wait) to the start of the send",
                    a.late_sender)
    lines += _waits("Late receiver (a blocking send waits for the receive to be posted)",
                    "waited: from the start of the send to the post of the receive (or the "
                    "send's end)", a.late_receiver)
    lines += _collectives(a) + _io(a) + _matching(a)
    return "\n".join(lines)
