#!/usr/bin/env python3
"""Does ``mpiscope health`` name the rank and core an agent runs on, and
nothing without one? On this machine's 2 ranks (one a core, --cpu-bind
cores), real MPICH:

  agent runs  ``mpiscope noise inject --hz 10 --burst 5ms --core C`` around
              ``mpiscope health``: the agent takes 5% of core C; a run is a
              hit when the verdict names the rank bound to C on core C (one
              suspect, or the rank and the core apart), and no other rank or
              core
  A/A runs    ``mpiscope health`` alone: a run is a false alarm when it
              names any rank, core, node or link, but for a busy node (the
              probes found other work taking 20% of its cores or more:
              a true statement about the machine, counted apart)

Each line gives the run's exit code, its suspects, its straggler counts
(rank: delayed launches it was last in), each rank's excess wait (the
others' wait for it beyond the median rank, share of the run, and the p of
"at most the 1% floor"), the cores' detour shares and excess over the other
cores (p of "at most 1%"), and the load before and after. The verdict
depends on what else runs here: the agent's 5% of a core must stand out
of everyone else's load, and foreign work pinned to one core is, to the
tool, an agent too. Run it on a quiet
machine for the issue's figures (docs/health.md says where it ran).

    .venv/bin/python bench/health_agent.py [--agent-runs 5] [--aa-runs 5]
        [--hz 10] [--burst 5ms] [--core 1] [--mpi mpich] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import cpu_name, load_text


def health(where: Path, name: str, args: argparse.Namespace, agent: bool) -> dict[str, Any]:
    out = where / f"{name}.json"
    command = [sys.executable, "-m", "mpiscope", "health", "--np", "2", "--cpu-bind", "cores",
               "--no-check", "--seconds", str(args.seconds), "--out", str(out), "--force",
               "--quiet", "--mpi", args.mpi]  # fmt: skip
    if agent:
        command = [sys.executable, "-m", "mpiscope", "noise", "inject", "--hz", args.hz,
                   "--burst", args.burst, "--core", str(args.core), "--mpi", args.mpi, "--",
                   *command]  # fmt: skip
    before = load_text()
    proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=1800)
    if proc.returncode not in (0, 1) or not out.exists():
        sys.exit(f"{name}: exit {proc.returncode}: {proc.stderr.strip()[-1000:]}")
    doc = json.loads(out.read_text())
    return {"doc": doc, "code": proc.returncode, "load": f"{before} -> {load_text()}"}


def named(doc: dict[str, Any]) -> list[str]:
    return [f"{s['kind']} {s['name']} ({s['certainty']})" for s in doc["suspects"]]


def busy(doc: dict[str, Any]) -> bool:
    return any("busy" in s.get("measurement", {}) for s in doc["suspects"])


def alarms_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in doc["suspects"] if "busy" not in s.get("measurement", {})]


def is_hit(doc: dict[str, Any], core: int) -> bool:
    """The agent's rank and core named - one suspect, the rank on its core,
    or the rank and the core apart - and no other rank or core."""
    cpus = doc["environment"].get("rank_cpus") or []
    rank = next((r for r, c in enumerate(cpus) if c == str(core)), None)
    if rank is None:
        return False
    ranks = {s["measurement"].get("stragglers") for s in doc["suspects"] if s["kind"] == "rank"}
    cores = {s["measurement"]["core"] for s in doc["suspects"]
             if s["kind"] in ("core", "rank") and "core" in s["measurement"]}  # fmt: skip
    return ranks == {rank} and cores == {core}


def line(name: str, run: dict[str, Any]) -> str:
    doc = run["doc"]
    section = doc["stragglers"]
    last = {r["rank"]: r["events"] for r in section.get("ranks") or []}
    waits = " ".join(
        f"r{r['rank']} {r['excess']:+.2%} (p {r['p_value']:.2g})"
        for r in section.get("ranks") or [] if r.get("excess") is not None
    )  # fmt: skip
    behind = sum(op.get("behind") or 0 for op in section["ops"])
    launches = sum(op["launches"] for op in section["ops"])
    shares = " ".join(
        f"c{c['core']} {c['share_lost']:.1%}"
        + (f" {c['excess']:+.2%} (p {c['p_value']:.2g})" if c.get("excess") is not None else "")
        for c in doc["fingerprint"]["cores"]["cores"] if c.get("share_lost") is not None
    )  # fmt: skip
    return (f"{name:<8} exit {run['code']}  last-in {dict(sorted(last.items()))}  behind "
            f"{behind}/{launches}  wait beyond the median rank {waits or '-'}\n"
            f"         detours {shares}  load {run['load']}\n"
            f"         suspects: {named(doc) or 'none'}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent-runs", type=int, default=5)
    parser.add_argument("--aa-runs", type=int, default=5)
    parser.add_argument("--hz", default="10")
    parser.add_argument("--burst", default="5ms")
    parser.add_argument("--core", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=3.0, help="health --seconds")
    parser.add_argument("--mpi", default="mpich")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the documents and their raw launches in this directory")
    args = parser.parse_args()
    print(f"processor: {cpu_name()}; {os.cpu_count()} CPUs; load {load_text()}; agent "
          f"{args.hz} Hz / {args.burst} on core {args.core}")  # fmt: skip
    hits = alarms = busy_runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) if args.keep is None else args.keep
        where.mkdir(parents=True, exist_ok=True)
        for i in range(args.agent_runs):
            run = health(where, f"agent{i}", args, agent=True)
            hit = is_hit(run["doc"], args.core)
            hits += hit
            print(line(f"agent {i}", run) + ("  HIT" if hit else "  MISS"), flush=True)
        for i in range(args.aa_runs):
            run = health(where, f"aa{i}", args, agent=False)
            alarm = bool(alarms_of(run["doc"]))
            busy_runs += busy(run["doc"])
            alarms += alarm
            print(line(f"A/A {i}", run) + ("  FALSE ALARM" if alarm else "  quiet"), flush=True)
    print(f"agent named (rank and core): {hits} of {args.agent_runs}; "
          f"A/A false alarms: {alarms} of {args.aa_runs} (busy node said in {busy_runs}); "
          f"load {load_text()}")  # fmt: skip


if __name__ == "__main__":
    main()
