#!/usr/bin/env python3
"""mpiscope side by side with OSU, IMB, ReproMPI and MPIPerf: Bcast at 2 ranks.

Every tool sweeps Bcast over 1 B..1 MiB (powers of two) in R separate
runs (default 8); the runs of all tools are interleaved in one
random order (--seed), so a change of the machine's state hits every tool
alike. Per tool and size the script prints the spread of the tool's own
headline value over the R runs (max/min), its median, and the wall
time of one run (one whole sweep, mpiexec start to exit).

The headline value of each tool, as that tool prints it:
  OSU 7.4 (osu_bcast)    "Avg Latency(us)": the average over ranks of per-rank means
  IMB 2021.11 (IMB-MPI1) t_avg[usec]: the average over ranks
  ReproMPI               median_sec of --summary=median: the median of its 100 runs
  MPIPerf 0.0.3          [Mean]: mean over valid runs of the max over ranks (us)
  mpiscope               median_ns of the point in the result document
mpiscope appears twice: the bench alone (mpiexec -n 2 mpiscope-bench --plan
PLAN, the plan of `mpiscope run bcast --np 2 --sizes 1:1M:x2`) and the
whole command (`mpiscope run bcast --np 2 --sizes 1:1M:x2`).

The project never vendors or downloads the peers: give their binaries in
OSU_BCAST, IMB_MPI1, REPROMPI and MPIPERF (a tool whose variable is unset is
skipped, and the script says so). They must be built with the MPI that
mpiscope uses (--mpi, default mpich: the PyPI MPICH's mpicc). How they were
built for the figures in the README (docs/peers.md has the same), with
M=/path/to/venv/bin, each tree unpacked with `git archive COMMIT | tar -x`:
  OSU 7.4    johnpzh/osu-micro-benchmarks-7.4-ext a6bb9d2 (pristine 7.4):
             ./configure CC=$M/mpicc CXX=$M/mpicxx --prefix=$P && make -j2 && make install
             OSU_BCAST=$P/libexec/osu-micro-benchmarks/mpi/collective/osu_bcast
  IMB        intel/mpi-benchmarks 46e8757: make IMB-MPI1 CC=$M/mpicc CXX=$M/mpicxx
             IMB_MPI1=<tree>/IMB-MPI1
  ReproMPI   hunsa/reprompi-dev d40429c with hunsa/mpi-time-sync 9e28a2a in $MPITS,
             libgsl-dev installed: mkdir build && cd build &&
             cmake .. -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFETCHCONTENT_SOURCE_DIR_MPITS=$MPITS
               -DFETCHCONTENT_FULLY_DISCONNECTED=ON -DMPI_C_COMPILER=$M/mpicc
               -DMPI_CXX_COMPILER=$M/mpicxx && make -j2
             REPROMPI=<tree>/build/bin/mpibenchmark
  MPIPerf    mkurnosov/mpiperf 5a92abc: make -j2 MPICC=$M/mpicc mpiperf
             MPIPERF=<tree>/src/mpiperf

    OSU_BCAST=... IMB_MPI1=... REPROMPI=... MPIPERF=... \\
        .venv/bin/python bench/peers.py [--runs 8] [--seed 1] [--out peers.json]
            [--variant "--min-point-seconds 0.001" ...]
    .venv/bin/python bench/peers.py --binding [--runs 8]
    OSU_BCAST=... OSU_LATENCY=.../mpi/pt2pt/osu_latency \
        .venv/bin/python bench/peers.py --ledger [--runs 8] [--seed 1]

--binding measures rank placement instead: `mpiscope run bcast` with the
launcher's default placement and with --cpu-bind cores, interleaved, and
prints both medians per size, their ratio and the CPUs each rank had.

--ledger checks the bias ledger (mpiscope explain): osu_bcast and `mpiscope
run bcast`, osu_latency and `mpiscope run pingpong`, all runs
interleaved; per size it prints OSU's own reading (median and range over
its runs) next to the OSU-equivalent figure mpiscope's ledger adds up
to in each of its runs, and whether that lies within OSU's
run-to-run range.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import bytecode_note, human_bytes, human_ns, user_env

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from mpiscope.errors import MpiscopeError  # noqa: E402
from mpiscope.mpi_profile import select_profile  # noqa: E402
from mpiscope.result.ledger import ledger_of  # noqa: E402

SWEEP = [1 << i for i in range(21)]  # 1 B .. 1 MiB
HEADLINE_SIZES = [1, 1024, 65536, 1 << 20]
SWEEP_SPEC = "1:1M:x2"
NP = 2


# ---------------------------------------------------------------- parsers
# Each takes the tool's standard output and returns {size in bytes: headline in ns}.

def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _read_table(text: str, header_of: Callable[[list[str], str], list[str] | None],
                size_column: str, value_column: str, ns_per_unit: float,
                keep: Callable[[list[str]], bool] = lambda fields: True) -> dict[int, float]:
    """Rows of a whitespace-separated table after the line header_of names columns of."""
    values: dict[int, float] = {}
    columns: list[str] | None = None
    for line in text.splitlines():
        fields = line.split()
        header = header_of(fields, line)
        if header is not None:
            columns = header
            continue
        if columns is None or len(fields) != len(columns) or not keep(fields):
            continue
        size = fields[columns.index(size_column)]
        value = _number(fields[columns.index(value_column)])
        if size.isdigit() and value is not None:
            values[int(size)] = value * ns_per_unit
    return values


def parse_osu(text: str) -> dict[int, float]:
    """osu_bcast (and osu_latency, one way): lines 'SIZE AVG_US' after the
    '# Size  Avg Latency(us)' header."""
    return _read_table(text, lambda f, _: ["Size", "Avg"] if f[:3] == ["#", "Size", "Avg"]
                       else None, "Size", "Avg", 1e3)


def parse_imb(text: str) -> dict[int, float]:
    """IMB-MPI1 Bcast: rows '#bytes #repetitions t_min t_max t_avg' (usec), t_avg kept."""
    return _read_table(text, lambda f, _: f if f[:1] == ["#bytes"] else None,
                       "#bytes", "t_avg[usec]", 1e3)


def parse_reprompi(text: str) -> dict[int, float]:
    """mpibenchmark --summary=median: rows 'MPI_Bcast COUNT total valid MEDIAN_SEC' (bytes)."""
    return _read_table(text, lambda f, _: f if f[:2] == ["test", "count"] else None,
                       "count", "median_sec", 1e9, keep=lambda f: f[0] == "MPI_Bcast")


def parse_mpiperf(text: str) -> dict[int, float]:
    """mpiperf: rows 'PROCS COUNT TRUNS CRUNS FRUNS MEAN ...' (us) under '# [Procs] [Count]'."""
    return _read_table(
        text, lambda f, line: (re.findall(r"\[([^\]]+)\]", line)
                               if f[1:3] == ["[Procs]", "[Count]"] else None),
        "Count", "Mean", 1e3, keep=lambda f: f[0] == str(NP))


def parse_mpiscope(doc: Mapping[str, Any]) -> dict[int, float]:
    """A result document: the median_ns of each bcast point."""
    return {int(p["size_bytes"]): float(p["median_ns"]) for p in doc.get("points", [])
            if p.get("op") == "bcast" and p.get("median_ns") is not None}


def ledger_equivalents(doc: Mapping[str, Any], suite: str = "OSU") -> dict[int, float]:
    """A result document measured with the ledger: each point's figure its
    ledger adds up to for ``suite`` (no bootstrap: the point value only)."""
    floor = doc.get("floor") or {}
    floor_ns = float(floor.get("median_ns") or 0.0) if floor.get("subtracted") else 0.0
    out = {}
    for point in doc.get("points", []):
        for ledger in ledger_of(point, resamples=0, floor_ns=floor_ns):
            if ledger.suite == suite and point.get("size_bytes") is not None:
                out[int(point["size_bytes"])] = ledger.equivalent_ns
    return out


# ---------------------------------------------------------------- tools

@dataclass(frozen=True)
class Peer:
    """A peer suite: its variable, how to run one sweep and how to read its output."""

    name: str
    variable: str
    headline: str
    arguments: tuple[str, ...]
    parse: Callable[[str], dict[int, float]]


PEERS = (
    Peer("OSU 7.4", "OSU_BCAST", "average latency", ("-m", f"1:{SWEEP[-1]}"), parse_osu),
    Peer("IMB 2021.11", "IMB_MPI1", "t_avg",
         ("Bcast", "-npmin", str(NP), "-msglog", "0:20"), parse_imb),
    Peer("ReproMPI", "REPROMPI", "median (summary)",
         ("--calls-list=MPI_Bcast", "--msizes-list=" + ",".join(map(str, SWEEP)),
          "--nrep=100", "--summary=median"), parse_reprompi),
    Peer("MPIPerf", "MPIPERF", "mean of max", ("-x1", f"-X{SWEEP[-1]}", "Bcast"), parse_mpiperf),
)


@dataclass
class Tool:
    """One column of the table: a command to launch and a way to read its values."""

    name: str
    headline: str
    argv: list[str]
    read: Callable[[str], Mapping[Any, float]]  # size (or a series' name) -> ns


def select_peers(env: Mapping[str, str]) -> tuple[list[tuple[Peer, str]], list[str]]:
    """The peers whose variable is set (with the binary) and a line per skipped one.

    A variable that names no executable file is an error (ValueError): the
    user meant to run that tool.
    """
    chosen: list[tuple[Peer, str]] = []
    skipped: list[str] = []
    for peer in PEERS:
        binary = env.get(peer.variable, "")
        if not binary:
            skipped.append(f"{peer.name}: skipped ({peer.variable} is not set)")
            continue
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise ValueError(f"{peer.variable}={binary}: not an executable file")
        chosen.append((peer, binary))
    return chosen, skipped


class ResultReader:
    """Reads a tool's values from the result document mpiscope wrote (not its stdout)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.placements: list[tuple[Any, Any]] = []

    def __call__(self, _stdout: str) -> dict[int, float]:
        doc = json.loads(self.out.read_text())
        env = doc.get("environment", {})
        self.placements.append((env.get("binding"), env.get("rank_cpus")))
        return parse_mpiscope(doc)


def mpiscope_run_argv(out: Path, extra: list[str], mpi: str) -> list[str]:
    return [sys.executable, "-m", "mpiscope", "run", "bcast", "--np", str(NP), "--sizes",
            SWEEP_SPEC, "--mpi", mpi, *extra, "--out", str(out), "--force", "--quiet"]


def bench_plan(tmp: Path, mpi: str, extra: list[str], out: Path) -> Path:
    """The plan `mpiscope run ... EXTRA` would give the bench for the sweep
    (from --dry-run), writing its result to ``out``."""
    # (run as the launches are: it also compiles mpiscope's modules once, as an install does)
    proc = subprocess.run(mpiscope_run_argv(tmp / "unused.json", ["--dry-run", *extra], mpi),
                          capture_output=True, text=True, check=False, env=user_env())
    if proc.returncode != 0:
        raise ValueError(f"mpiscope run --dry-run failed: {proc.stderr.strip()}")
    plan = json.loads(proc.stdout)
    plan.update(out=str(out), force=True, progress=False)
    path = out.with_suffix(".plan.json")
    path.write_text(json.dumps(plan))
    return path


def make_tools(tmp: Path, mpi: str, env: Mapping[str, str],
               variants: list[str]) -> tuple[list[Tool], list[str]]:  # fmt: skip
    """The peers found in ``env``, the bench alone, `mpiscope run`, and the
    bench alone once more per variant (extra `mpiscope run` options)."""
    profile = select_profile(mpi)
    peers, skipped = select_peers(env)
    tools = [Tool(peer.name, peer.headline, [profile.mpiexec, "-n", str(NP), binary,
                                             *peer.arguments], peer.parse)
             for peer, binary in peers]
    for index, variant in enumerate(["", *variants]):
        out = tmp / f"bench-{index}.json"
        plan = bench_plan(tmp, mpi, shlex.split(variant), out)
        name = f"mpiscope-bench {variant}".strip()
        tools.append(Tool(name, "median",
                          [profile.mpiexec, "-n", str(NP), profile.bench, "--plan", str(plan)],
                          ResultReader(out)))
    run_out = tmp / "run.json"
    tools.append(Tool("mpiscope run", "median", mpiscope_run_argv(run_out, [], mpi),
                      ResultReader(run_out)))
    return tools, skipped


# ---------------------------------------------------------------- launching

def launch(tool: Tool, timeout: float) -> dict[str, Any]:
    """One launch: wall time, values per size, or the reason it failed."""
    start = time.monotonic()
    proc = subprocess.Popen(tool.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=user_env())
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"wall_s": None, "values_ns": {}, "error": f"timed out after {timeout:g} s"}
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    wall = time.monotonic() - start
    if proc.returncode != 0:
        lines = (stderr or stdout).strip().splitlines()
        return {"wall_s": wall, "values_ns": {},
                "error": f"exit {proc.returncode}: {lines[-1] if lines else ''}"}
    try:
        values = tool.read(stdout)
    except (OSError, ValueError, KeyError) as exc:
        return {"wall_s": wall, "values_ns": {}, "error": f"unreadable output: {exc}"}
    if not values:
        return {"wall_s": wall, "values_ns": {}, "error": "no values in its output"}
    return {"wall_s": wall, "values_ns": values, "error": None}


def interleaved(names: list[str], launches: int, seed: int) -> list[str]:
    order = [name for name in names for _ in range(launches)]
    random.Random(seed).shuffle(order)
    return order


def run_interleaved(tools: list[Tool], launches: int, seed: int,
                    timeout: float) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    by_name = {tool.name: tool for tool in tools}
    order = interleaved(list(by_name), launches, seed)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in by_name}
    for i, name in enumerate(order, 1):
        try:
            result = launch(by_name[name], timeout)
        except KeyboardInterrupt:
            print(f"interrupted: keeping the {i - 1} launches done", file=sys.stderr)
            return runs, order[:i - 1]
        runs[name].append(result)
        status = (f"{result['wall_s']:.2f} s" if result["error"] is None
                  else f"FAILED ({result['error']})")
        print(f"[{i}/{len(order)}] {name}: {status}", file=sys.stderr, flush=True)
    return runs, order


# ---------------------------------------------------------------- summary

def summarize(launches: list[dict[str, Any]], size: int) -> dict[str, float | int | None]:
    values = [r["values_ns"][size] for r in launches if size in r["values_ns"]]
    positive = [v for v in values if v > 0]
    return {"n": len(values),
            "median_ns": statistics.median(values) if values else None,
            "spread": max(positive) / min(positive) if len(positive) > 1 else None}


def wall_range(launches: list[dict[str, Any]]) -> str:
    walls = [r["wall_s"] for r in launches if r["error"] is None]
    return f"{min(walls):.2f}-{max(walls):.2f} s" if walls else "-"


def wall_median(launches: list[dict[str, Any]]) -> str:
    walls = [r["wall_s"] for r in launches if r["error"] is None]
    return f"{statistics.median(walls):.3f} s" if walls else "-"


def table(runs: dict[str, list[dict[str, Any]]], launches: int) -> str:
    names = list(runs)
    out = [f"Spread (max/min of each tool's headline value over {launches} launches):", "",
           "| size | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for size in HEADLINE_SIZES:
        cells = []
        for name in names:
            s = summarize(runs[name], size)
            cells.append("-" if s["spread"] is None else f"{s['spread']:.2f}")
        out.append(f"| {human_bytes(size)} | " + " | ".join(cells) + " |")
    out.append("| wall of one 1 B..1 MiB sweep | "
               + " | ".join(wall_range(runs[n]) for n in names) + " |")
    out.append("| median wall | " + " | ".join(wall_median(runs[n]) for n in names) + " |")
    out += ["", "Median over the launches of each tool's headline value:", "",
            "| size | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for size in HEADLINE_SIZES:
        cells = [human_ns(summarize(runs[n], size)["median_ns"]) for n in names]
        out.append(f"| {human_bytes(size)} | " + " | ".join(cells) + " |")
    failed = {n: sum(r["error"] is not None for r in runs[n]) for n in names}
    out += ["", "launches done: " + ", ".join(f"{n} {len(runs[n])}" for n in names)]
    out.append("launches that failed: " + (", ".join(f"{n} {k}" for n, k in failed.items() if k)
                                           or "none"))
    return "\n".join(out)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


# ---------------------------------------------------------------- binding (goal 6)

def binding_tools(tmp: Path, mpi: str) -> list[Tool]:
    tools = []
    for label, extra in (("launcher default", []), ("cores", ["--cpu-bind", "cores"])):
        out = tmp / f"bind-{label.replace(' ', '-')}.json"
        tools.append(Tool(label, "median", mpiscope_run_argv(out, extra, mpi), ResultReader(out)))
    return tools


def binding_table(tools: list[Tool], runs: dict[str, list[dict[str, Any]]]) -> str:
    plain, bound = (t.name for t in tools)
    out = ["| size | median, launcher default | spread | median, cores | spread | "
           "cores / default |", "| --- | --- | --- | --- | --- | --- |"]
    for size in SWEEP:
        a, b = summarize(runs[plain], size), summarize(runs[bound], size)
        ratio = (b["median_ns"] / a["median_ns"]
                 if a["median_ns"] and b["median_ns"] is not None else None)
        spreads = ["-" if s["spread"] is None else f"{s['spread']:.2f}" for s in (a, b)]
        out.append(f"| {human_bytes(size)} | {human_ns(a['median_ns'])} | {spreads[0]} | "
                   f"{human_ns(b['median_ns'])} | {spreads[1]} | "
                   + ("-" if ratio is None else f"{ratio:.2f}") + " |")
    for tool in tools:
        placements = tool.read.placements if isinstance(tool.read, ResultReader) else []
        seen = sorted({f"binding {b!r}, rank_cpus {c}" for b, c in placements})
        out.append(f"\n{tool.name}: " + "; ".join(seen))
    return "\n".join(out)


# ---------------------------------------------------------------- ledger (issue 24)

#: (OSU's binary variable, its arguments and parser, the mpiscope op it is set against)
LEDGER_PAIRS = (
    ("OSU_BCAST", ("-m", f"1:{SWEEP[-1]}"), parse_osu, "bcast", "osu_bcast"),
    ("OSU_LATENCY", ("-m", f"1:{SWEEP[-1]}"), parse_osu, "pingpong", "osu_latency"),  # one way
)


class LedgerReader(ResultReader):
    """The OSU-equivalent figures of the ledger, from mpiscope's document."""

    def __call__(self, _stdout: str) -> dict[int, float]:
        return ledger_equivalents(json.loads(self.out.read_text()))


def ledger_tools(tmp: Path, mpi: str, env: Mapping[str, str]) -> tuple[list[Tool], list[str]]:
    """Per pair whose OSU binary is given: OSU, and `mpiscope run OP` with
    the ledger (its headline and its OSU-equivalent from one launch)."""
    profile = select_profile(mpi)
    tools, skipped = [], []
    for variable, arguments, parse, op, name in LEDGER_PAIRS:
        binary = env.get(variable, "")
        if not binary:
            skipped.append(f"{name}: skipped ({variable} is not set)")
            continue
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise ValueError(f"{variable}={binary}: not an executable file")
        tools.append(Tool(name, "OSU's own", [profile.mpiexec, "-n", str(NP), binary, *arguments],
                          parse))
        out = tmp / f"ledger-{op}.json"
        argv = [sys.executable, "-m", "mpiscope", "run", op, "--np", str(NP), "--sizes",
                SWEEP_SPEC, "--mpi", mpi, "--ledger", "on", "--out", str(out), "--force", "--quiet"]
        tools.append(Tool(f"mpiscope {op} ledger", "OSU-equivalent", argv, LedgerReader(out)))
    if not tools:
        raise ValueError("--ledger needs OSU_BCAST or OSU_LATENCY")
    return tools, skipped


def ledger_table(runs: dict[str, list[dict[str, Any]]]) -> str:
    """OSU's reading against the ledger's OSU-equivalent, per size."""
    out = ["| OSU test | size | OSU median | OSU range over its launches | ledger OSU-equivalent "
           "median | its range | equivalent / OSU | within OSU's range |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for _variable, _arguments, _parse, op, name in LEDGER_PAIRS:
        mine = f"mpiscope {op} ledger"
        if name not in runs or mine not in runs:
            continue
        for size in HEADLINE_SIZES:
            osu = [r["values_ns"][size] for r in runs[name] if size in r["values_ns"]]
            eq = [r["values_ns"][size] for r in runs[mine] if size in r["values_ns"]]
            if not osu or not eq:
                out.append(f"| {name} | {human_bytes(size)} | - | - | - | - | - | - |")
                continue
            osu_med, eq_med = statistics.median(osu), statistics.median(eq)
            inside = min(osu) <= eq_med <= max(osu)
            out.append(f"| {name} | {human_bytes(size)} | {human_ns(osu_med)} | "
                       f"{human_ns(min(osu))} .. {human_ns(max(osu))} | {human_ns(eq_med)} | "
                       f"{human_ns(min(eq))} .. {human_ns(max(eq))} | {eq_med / osu_med:.2f} | "
                       f"{'yes' if inside else 'NO'} |")
    return "\n".join(out)


# ---------------------------------------------------------------- main

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, dest="runs", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)  # the name before mpiscope 1.11
    parser.add_argument("--runs", type=int, default=8,
                        help="runs per tool (R): each a separate start of the tool")
    parser.add_argument("--seed", type=int, default=1, help="seed of the interleaved order")
    parser.add_argument("--mpi", default="mpich", help="mpiscope's MPI installation")
    parser.add_argument("--timeout", type=float, default=300.0, help="per launch, s")
    parser.add_argument("--out", type=Path, help="write the raw values as JSON here")
    parser.add_argument("--variant", action="append", default=[], metavar="OPTIONS",
                        help="also the bench alone with these `mpiscope run` options "
                             "(e.g. '--min-point-seconds 0.001'), interleaved with the rest")
    parser.add_argument("--binding", action="store_true",
                        help="compare the launcher's default placement with --cpu-bind cores")
    parser.add_argument("--ledger", action="store_true",
                        help="OSU's osu_bcast and osu_latency against the OSU-equivalent of "
                        "mpiscope's bias ledger (mpiscope explain), interleaved")
    args = parser.parse_args()
    if args.runs < 2:
        sys.exit("peers.py: error: --runs must be at least 2 (the spread needs two)")
    load_before = load()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if args.binding:
                tools, skipped = binding_tools(Path(tmp), args.mpi), []
            elif args.ledger:
                tools, skipped = ledger_tools(Path(tmp), args.mpi, os.environ)
            else:
                tools, skipped = make_tools(Path(tmp), args.mpi, os.environ, args.variant)
        except (ValueError, MpiscopeError) as exc:
            sys.exit(f"peers.py: error: {exc}")
        for line in [*skipped, *filter(None, [bytecode_note()])]:
            print(line, flush=True)
        print(f"load before: {load_before}", flush=True)
        runs, order = run_interleaved(tools, args.runs, args.seed, args.timeout)
        load_after = load()
        text = (binding_table(tools, runs) if args.binding else ledger_table(runs) if args.ledger
                else table(runs, args.runs))
    print(text)
    print(f"\nload before: {load_before}; after: {load_after}")
    if args.out:
        doc = {"launches": args.runs, "seed": args.seed, "nprocs": NP,
               "load_before": load_before, "load_after": load_after, "skipped": skipped,
               "order": order,
               "tools": {t.name: {"headline": t.headline, "command": t.argv,
                                  "launches": [{**r, "values_ns": {str(k): v for k, v in
                                                                   r["values_ns"].items()}}
                                               for r in runs[t.name]]}
                         for t in tools}}
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"raw values: {args.out}")


if __name__ == "__main__":
    main()
