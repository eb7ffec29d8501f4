#!/usr/bin/env python3
"""mpiscope beside OSU 7.4's osu_latency_mt and osu_init and IMB-IO: threads, start-up, MPI-IO.

Three comparisons at 2 ranks, every run of every tool in one random
order (--seed), R runs each (default 5), so a change of the machine's
state falls on every tool alike:

  threads   osu_latency_mt -t T:T (T sender threads on rank 0, T receivers
            on rank 1, thread k's messages tagged for thread k) against
            `mpiscope run thread_pingpong --option threads=T --option
            separation=tag --cache warm`, T = 1 and 2, 8 B and 4 KiB.
            OSU prints "Avg Latency(us)": the round trips of all threads
            summed, halved, over the iterations (one way, a mean). mpiscope:
            the median of a launch's slowest thread (round trip, halved here)
            and the median thread's own median (halved).
  start-up  osu_init (MPI_Init) and osu_init -I (MPI_Session_init,
            MPI_Group_from_session_pset, MPI_Comm_create_from_group) against
            the bench alone started as `mpiscope startup` starts it
            (`mpiscope-bench --startup init|session`): per run OSU's
            "avg" (each rank's start in whole ms, averaged) and mpiscope's
            mean over the ranks of the same calls' time (ns).
  MPI-IO    IMB-IO C_Write_expl and C_Read_expl (MPI_File_write_at_all /
            read_at_all on one shared file) against `mpiscope run
            file_write,file_read --option access=collective --option
            file=shared --cache warm`, and file_write with sync=1 against
            IMB's NON-AGGREGATE mode (a sync after every write), 4 KiB,
            64 KiB, 1 MiB per rank. IMB's t_avg (mean over ranks of each
            rank's mean) against mpiscope's median. Each IMB run happens in
            a directory of its own, and what it leaves there is counted.

OSU 7.4 has no partitioned latency test (its sources call no
MPI_Psend_init): partitioned_pingpong has no peer here, and is shown against
itself, as one message and as one message per partition (as=single,
as=messages), interleaved like the rest.

The project never vendors or downloads the peers: give the binaries in
OSU_LATENCY_MT, OSU_INIT and IMB_IO (a tool whose variable is unset is
skipped, and the script says so). Build them with the MPI mpiscope uses
(--mpi, default mpich): docs/peers.md says how.

    OSU_LATENCY_MT=$P/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency_mt \\
    OSU_INIT=$P/libexec/osu-micro-benchmarks/mpi/startup/osu_init \\
    IMB_IO=<imb tree>/IMB-IO \\
        .venv/bin/python bench/peers_mt_io.py [--runs 5] [--seed 1] [--out mt-io.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from _common import cpu_name, human_bytes
from peers import Tool, _read_table, interleaved, launch, load, parse_osu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from mpiscope.errors import MpiscopeError  # noqa: E402
from mpiscope.mpi_profile import select_profile  # noqa: E402
from mpiscope.result.units import format_median_range  # noqa: E402

NP = 2
THREADS = (1, 2)
THREAD_SIZES = (8, 4096)
IO_SIZES = (4096, 65536, 1 << 20)
PARTITIONED_SIZES = (8192, 1 << 20)


# ---------------------------------------------------------------- readers
# Each takes a tool's standard output (or its document) and returns
# {series: value in ns}; a series is "SIZE" or "WHAT SIZE".

def read_osu_mt(text: str) -> dict[str, float]:
    """osu_latency_mt: '# Size  Avg Latency(us)' rows, one way."""
    return {str(size): ns for size, ns in parse_osu(text).items()}


def read_osu_init(text: str) -> dict[str, float]:
    """osu_init: 'nprocs: 2, min: 44 ms, max: 49 ms, avg: 46 ms' (whole ms)."""
    found = re.search(r"min: (\d+) ms, max: (\d+) ms, avg: (\d+) ms", text)
    if not found:
        return {}
    low, high, avg = (float(x) * 1e6 for x in found.groups())
    return {"avg": avg, "min": low, "max": high}


def read_imb_io(text: str) -> dict[str, float]:
    """IMB-IO: per benchmark and mode, rows '#bytes #repetitions t_min t_max
    t_avg Mbytes/sec' (usec); t_avg kept as 'BENCHMARK MODE SIZE'."""
    values: dict[str, float] = {}
    for block in re.split(r"# Benchmarking ", text)[1:]:
        name = block.split()[0]
        mode = re.search(r"MODE: (\S+)", block)
        label = f"{name} {mode.group(1) if mode else ''}".strip()
        table = _read_table(block, lambda f, _: f if f[:1] == ["#bytes"] else None,
                            "#bytes", "t_avg[usec]", 1e3)  # fmt: skip
        values.update({f"{label} {size}": ns for size, ns in table.items()})
    return values


class DocumentReader:
    """Reads a tool's values from the document mpiscope wrote (not its stdout)."""

    def __init__(self, out: Path, values: Callable[[Mapping[str, Any]], dict[str, float]]) -> None:
        self.out = out
        self.values = values

    def __call__(self, _stdout: str) -> dict[str, float]:
        return self.values(json.loads(self.out.read_text()))


def thread_values(doc: Mapping[str, Any]) -> dict[str, float]:
    """Per size: the slowest thread's round trip (the point's median) and the
    median thread's own median, each halved (one way, as OSU prints)."""
    out: dict[str, float] = {}
    for p in doc.get("points", []):
        if p.get("median_ns") is None:
            continue
        out[f"slowest {p['size_bytes']}"] = p["median_ns"] / 2
        medians = [e["median_ns"] for e in (p.get("parts") or {}).get("distribution") or ()]
        if medians:
            out[f"thread {p['size_bytes']}"] = statistics.median(medians) / 2
    return out


def startup_values(doc: Mapping[str, Any]) -> dict[str, float]:
    """The start calls' time: mean, min and max over the ranks."""
    (point,) = doc["points"]
    totals = [r["total_ns"] for r in point["ranks"]]
    return {"avg": statistics.fmean(totals), "min": min(totals), "max": max(totals),
            "first contact": point["first_contact"]["median_ns"]}  # fmt: skip


def median_values(doc: Mapping[str, Any]) -> dict[str, float]:
    """Each point's median, as 'OP SIZE' (with its options that are not defaults)."""
    return {f"{p['op']} {p['size_bytes']}": p["median_ns"] for p in doc.get("points", [])
            if p.get("median_ns") is not None}


class LeftBehind:
    """Runs a tool in a directory of its own and counts what it leaves there."""

    def __init__(self, directory: Path, read: Callable[[str], dict[str, float]]) -> None:
        self.directory = directory
        self.read = read
        self.left: list[tuple[int, int]] = []  # (files, bytes) after each launch

    def __call__(self, stdout: str) -> dict[str, float]:
        files = [p for p in self.directory.rglob("*") if p.is_file()]
        self.left.append((len(files), sum(p.stat().st_size for p in files)))
        for path in files:
            path.unlink()
        return self.read(stdout)


# ---------------------------------------------------------------- the tools

def _peer(env: Mapping[str, str], variable: str) -> str | None:
    binary = env.get(variable, "")
    if not binary:
        return None
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise ValueError(f"{variable}={binary}: not an executable file")
    return binary


def _run(out: Path, mpi: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "mpiscope", "run", *args, "--np", str(NP), "--mpi", mpi,
            "--ledger", "off", "--out", str(out), "--force", "--quiet"]  # fmt: skip


def make_tools(tmp: Path, mpi: str, env: Mapping[str, str]) -> tuple[list[Tool], list[str]]:
    profile = select_profile(mpi)
    launcher = [profile.mpiexec, "-n", str(NP)]
    tools: list[Tool] = []
    skipped: list[str] = []

    def peer(variable: str, label: str) -> str | None:
        binary = _peer(env, variable)
        if binary is None:
            skipped.append(f"{label}: skipped ({variable} is not set)")
        return binary

    sizes = ",".join(map(str, THREAD_SIZES))
    mt = peer("OSU_LATENCY_MT", "osu_latency_mt")
    for t in THREADS:
        if mt:
            tools.append(Tool(f"osu_latency_mt -t {t}:{t}", "Avg Latency",
                              [*launcher, mt, "-t", f"{t}:{t}", "-m",
                               f"{THREAD_SIZES[0]}:{THREAD_SIZES[-1]}"], read_osu_mt))  # fmt: skip
        out = tmp / f"threads-{t}.json"
        tools.append(Tool(f"mpiscope thread_pingpong threads={t}", "median",
                          _run(out, mpi, "thread_pingpong", "--sizes", sizes, "--option",
                               f"threads={t}", "--option", "separation=tag", "--cache", "warm",
                               "--max-point-seconds", "10"),
                          DocumentReader(out, thread_values)))  # fmt: skip
    init = peer("OSU_INIT", "osu_init")
    for how, flags in (("init", []), ("session", ["-I"])):
        if init:
            tools.append(Tool(f"osu_init {' '.join(flags)}".strip(), "avg",
                              [*launcher, init, *flags], read_osu_init))  # fmt: skip
        out = tmp / f"startup-{how}.json"
        tools.append(Tool(f"mpiscope startup {how}", "mean over ranks",
                          [*launcher, profile.bench, "--startup", how, "--sizes", "8", "--out",
                           str(out), "--force"], DocumentReader(out, startup_values)))  # fmt: skip
    imb = peer("IMB_IO", "IMB-IO")
    if imb:
        where = tmp / "imb"
        where.mkdir()
        lengths = tmp / "imb-lengths.txt"  # IMB's -msglen: the sizes, one a line
        lengths.write_text("".join(f"{size}\n" for size in IO_SIZES))
        tools.append(Tool("IMB-IO", "t_avg",
                          ["sh", "-c", 'cd "$0" && exec "$@"', str(where), *launcher, imb,
                           "C_Write_expl", "C_Read_expl", "-npmin", str(NP), "-msglen",
                           str(lengths), "-iter", "50", "-time", "60"],
                          LeftBehind(where, read_imb_io)))  # fmt: skip
    io_sizes = ",".join(map(str, IO_SIZES))
    for sync in ("0", "1"):
        out = tmp / f"io-{sync}.json"
        ops = "file_write,file_read" if sync == "0" else "file_write"
        tools.append(Tool(f"mpiscope {ops} sync={sync}", "median",
                          _run(out, mpi, ops, "--sizes", io_sizes, "--option", "access=collective",
                               "--option", "file=shared", "--option", f"sync={sync}",
                               "--option", f"dir={tmp}", "--cache", "warm"),
                          DocumentReader(out, median_values)))  # fmt: skip
    for as_ in ("partitioned", "single", "messages"):
        out = tmp / f"partitioned-{as_}.json"
        tools.append(Tool(f"mpiscope partitioned_pingpong as={as_}", "median",
                          _run(out, mpi, "partitioned_pingpong", "--sizes",
                               ",".join(map(str, PARTITIONED_SIZES)), "--option", f"as={as_}",
                               "--option", "threads=1", "--cache", "warm"),
                          DocumentReader(out, median_values)))  # fmt: skip
    return tools, skipped


# ---------------------------------------------------------------- the tables

def _series(runs: list[dict[str, Any]], key: str) -> list[float]:
    return [r["values_ns"][key] for r in runs if key in r["values_ns"]]


def _ratio(a: list[float], b: list[float]) -> str:
    if not a or not b or statistics.median(b) <= 0:
        return "-"
    return f"{statistics.median(a) / statistics.median(b):.2f}"


def _rows(runs: Mapping[str, list[dict[str, Any]]], rows: list[tuple[str, str, str, str, str]],
          titles: tuple[str, str, str]) -> list[str]:  # fmt: skip
    """rows: (label, peer tool, peer series, mpiscope tool, mpiscope series)."""
    out = [f"| case | {titles[0]} | {titles[1]} | {titles[2]} |", "| --- | --- | --- | --- |"]
    for label, peer, peer_key, mine, mine_key in rows:
        a, b = _series(runs.get(mine, []), mine_key), _series(runs.get(peer, []), peer_key)
        cells = (format_median_range(b), format_median_range(a), _ratio(a, b))
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return out


THREADS_WHY = (
    "Why they differ: OSU averages the threads' round trips and halves them; mpiscope times "
    "a launch until its slowest thread is through (the 'slowest' row) and keeps each thread's "
    "own time (the 'median thread' row), medians over launches that start together on the "
    "global clock. With T = 2 on this 2-core machine the 4 threads share 2 cores "
    "(oversubscribed, noted in the result): a thread that loses its core waits a time slice, "
    "which OSU's mean spreads over all iterations and mpiscope shows as the spread between "
    "threads."
)
STARTUP_WHY = (
    "Why they differ: osu_init reads CLOCK_REALTIME around MPI_Init and keeps whole "
    "milliseconds (truncated); mpiscope reads the cycle counter around each call, in ns. Both "
    "measure a start in fresh processes, so each launch is one sample: the range over "
    "launches is the spread to expect. The first launch of a series also loads the libraries "
    "from disk."
)
IO_WHY = (
    "Why they differ: IMB-IO's AGGREGATE mode writes its repetitions back to back and syncs "
    "once at the end (the sync shared out over them), NON-AGGREGATE syncs after each; "
    "mpiscope's file_write times one write per launch (sync=0: into the page cache) or a write "
    "and MPI_File_sync (sync=1). IMB's t_avg is the mean over ranks of each rank's mean; "
    "mpiscope's the median of the launches' slowest rank. Reads come from the page cache in "
    "both (the file was just written). IMB-IO leaves its file behind (counted below); "
    "mpiscope unlinks its file as soon as it is open."
)


def tables(runs: Mapping[str, list[dict[str, Any]]], tools: list[Tool]) -> str:
    out = ["Threads, one way: osu_latency_mt 'Avg Latency' against mpiscope thread_pingpong "
           "(median over launches [their range]); ratio: mpiscope / OSU", ""]
    rows = []
    for t in THREADS:
        for size in THREAD_SIZES:
            for what, key in (("slowest thread", "slowest"), ("median thread", "thread")):
                rows.append((f"T={t}, {human_bytes(size)}, {what}", f"osu_latency_mt -t {t}:{t}",
                             str(size), f"mpiscope thread_pingpong threads={t}",
                             f"{key} {size}"))  # fmt: skip
    out += _rows(runs, rows, ("OSU 7.4", "mpiscope", "ratio"))
    out += ["", THREADS_WHY, "", "Start-up: osu_init 'avg' against mpiscope (mean over the "
            "ranks of the same calls)", ""]  # fmt: skip
    rows = [(f"{label}, {stat}", f"osu_init {flag}".strip(), stat, f"mpiscope startup {how}",
             stat)
            for label, flag, how in (("MPI_Init", "", "init"), ("session (-I)", "-I", "session"))
            for stat in ("avg", "min", "max")]  # fmt: skip
    out += _rows(runs, rows, ("OSU 7.4", "mpiscope", "ratio"))
    out += ["", STARTUP_WHY, "", "MPI-IO, collective, one shared file: IMB-IO t_avg against "
            "mpiscope's median", ""]  # fmt: skip
    rows = []
    for size in IO_SIZES:
        b = human_bytes(size)
        rows += [(f"write {b} (IMB AGGREGATE / mpiscope sync=0)", "IMB-IO",
                  f"C_Write_Expl AGGREGATE {size}", "mpiscope file_write,file_read sync=0",
                  f"file_write {size}"),
                 (f"write {b} (IMB NON-AGGREGATE / mpiscope sync=1)", "IMB-IO",
                  f"C_Write_Expl NON-AGGREGATE {size}", "mpiscope file_write sync=1",
                  f"file_write {size}"),
                 (f"read {b}", "IMB-IO", f"C_Read_Expl AGGREGATE {size}",
                  "mpiscope file_write,file_read sync=0", f"file_read {size}")]  # fmt: skip
    out += _rows(runs, rows, ("IMB-IO 2021.11", "mpiscope", "ratio"))
    out += ["", IO_WHY]
    for tool in tools:
        if isinstance(tool.read, LeftBehind) and tool.read.left:
            files = sorted({n for n, _ in tool.read.left})
            biggest = max(b for _, b in tool.read.left)
            out.append(f"{tool.name} left {', '.join(map(str, files))} file(s) behind per launch "
                       f"(up to {biggest} bytes)")
    out += ["", "Partitioned (no peer: OSU 7.4 has no partitioned latency test): "
            "partitioned_pingpong, 8 partitions, 1 thread, as partitions, as one message and "
            "as one message per partition", ""]  # fmt: skip
    out += ["| size | partitioned | single | messages |", "| --- | --- | --- | --- |"]
    for size in PARTITIONED_SIZES:
        cells = [format_median_range(_series(runs.get(f"mpiscope partitioned_pingpong as={a}", []),
                               f"partitioned_pingpong {size}"))
                 for a in ("partitioned", "single", "messages")]  # fmt: skip
        out.append(f"| {human_bytes(size)} | " + " | ".join(cells) + " |")
    failed = {n: sum(r["error"] is not None for r in runs[n]) for n in runs}
    errors = sorted({f"{n}: {r['error']}" for n in runs for r in runs[n] if r["error"]})
    out += ["", "launches done: " + ", ".join(f"{n} {len(r)}" for n, r in runs.items()),
            "launches that failed: " + (", ".join(f"{n} {k}" for n, k in failed.items() if k)
                                        or "none"), *errors]  # fmt: skip
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, dest="runs", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)  # the name before mpiscope 1.11
    parser.add_argument("--runs", type=int, default=5,
                        help="runs per tool (R): each a separate start of the tool")
    parser.add_argument("--seed", type=int, default=1, help="seed of the interleaved order")
    parser.add_argument("--mpi", default="mpich", help="mpiscope's MPI installation")
    parser.add_argument("--timeout", type=float, default=300.0, help="per launch, s")
    parser.add_argument("--out", type=Path, help="write every launch's values as JSON here")
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("peers_mt_io.py: error: --runs must be at least 1")
    load_before = load()
    with tempfile.TemporaryDirectory(prefix="mt-io-", dir=".") as tmp:
        try:
            tools, skipped = make_tools(Path(tmp).resolve(), args.mpi, os.environ)
        except (ValueError, MpiscopeError) as exc:
            sys.exit(f"peers_mt_io.py: error: {exc}")
        for line in skipped:
            print(line, flush=True)
        print(f"{cpu_name()}; load before: {load_before}", flush=True)
        by_name = {tool.name: tool for tool in tools}
        order = interleaved(list(by_name), args.runs, args.seed)
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in by_name}
        try:
            for i, name in enumerate(order, 1):
                result = launch(by_name[name], args.timeout)
                runs[name].append(result)
                status = (f"{result['wall_s']:.2f} s" if result["error"] is None
                          else f"FAILED ({result['error']})")  # fmt: skip
                print(f"[{i}/{len(order)}] {name}: {status}", file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            print("interrupted: the table of the launches done", file=sys.stderr)
        load_after = load()
        text = tables(runs, tools)
    print(text)
    print(f"\n{cpu_name()}; load before: {load_before}; after: {load_after}")
    if args.out:
        doc = {"launches": args.runs, "seed": args.seed, "nprocs": NP,
               "processor": cpu_name(), "load_before": load_before, "load_after": load_after,
               "skipped": skipped, "order": order,
               "tools": {t.name: {"headline": t.headline, "command": t.argv,
                                  "launches": runs[t.name]} for t in tools}}  # fmt: skip
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"raw values: {args.out}")


if __name__ == "__main__":
    main()
