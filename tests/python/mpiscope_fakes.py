"""A fake MPI (bench + mpiexec) for tests that must not need a real one.

The fake bench is a small Python script written to tmp_path at test time.
It answers ``--list-ops`` with a fixed catalogue and otherwise behaves like
mpiscope-bench: progress and warning lines on stdout, a result document
(built from tests/data/sample-result.json) at ``--out``. FAKE_BENCH_MODE
selects "ok", "fail" (a partial result, exit code 3), "crash" (no result,
exit code 4), "garbage" (a truncated file, exit code 5) or "hang". The fake
mpiexec strips ``-n N [--oversubscribe]`` and execs the rest. Both log their
arguments (and the fake mpiexec a few environment variables) as JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "sample-result.json"

FAKE_OPS = [
    {
        "name": "bcast",
        "description": "MPI_Bcast from the root",
        "size_meaning": "bytes sent by the root",
        "flags": ["size", "root"],
        "options": [],
    },
    {
        "name": "allreduce",
        "description": "MPI_Allreduce",
        "size_meaning": "bytes per rank",
        "flags": ["size", "reduction"],
        "options": [],
    },
    {
        "name": "waitpattern_up",
        "description": "rank i waits (i+1) us: true time n us",
        "size_meaning": "unused",
        "flags": ["ground_truth"],
        "options": [{"name": "unit", "default": "1000", "unit": "ns", "description": "wait step"}],
    },
]

FAKE_BENCH = r"""
import itertools, json, os, subprocess, sys, time

OPS = json.loads(__OPS__)
args = sys.argv[1:]
if args == ["--list-ops"]:
    print(json.dumps(OPS))
    sys.exit(0)
if os.environ.get("FAKE_BENCH_LOG"):
    with open(os.environ["FAKE_BENCH_LOG"], "w") as f:
        json.dump(args, f)

def opt(name):
    return args[args.index(name) + 1] if name in args else None

def write(doc, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)

mode = os.environ.get("FAKE_BENCH_MODE", "ok")
if mode == "crash":
    print("crashed before writing anything", file=sys.stderr)
    sys.exit(4)
if mode == "garbage":
    with open(opt("--out"), "w") as f:
        f.write('{"schema_version": "1.0", "status": "running", "points": [')
    sys.exit(5)
with open(os.environ["FAKE_BENCH_SAMPLE"]) as f:
    doc = json.load(f)
out = opt("--out")
ops = opt("--ops").split(",")
sizes = [int(s) for s in opt("--sizes").split(",")]
nprocs = [int(n) for n in (opt("--nprocs") or "2").split(",")]
template = doc["points"][0]
combos = list(itertools.product(ops, sizes, nprocs))
doc["points"] = []
doc["status"] = "running"
for i, (op, size, n) in enumerate(combos):
    point = dict(template, op=op, size_bytes=size, actual_bytes=size, nprocs=n)
    doc["points"].append(point)
    if "--progress" in args:
        print("@mpiscope progress " + json.dumps({
        "index": i + 1, "total": len(combos), "op": op, "size_bytes": size, "nprocs": n,
        "median_ns": point["median_ns"], "ci_low_ns": point["ci_low_ns"],
        "ci_high_ns": point["ci_high_ns"], "unstable": False}), flush=True)
    if mode == "fail":
        doc["status"] = "failed"
        doc["error"] = "MPI_Bcast returned MPI_ERR_OTHER"
        write(doc, out)
        print("boom: rank 1 died", file=sys.stderr, flush=True)
        sys.exit(3)
print("@mpiscope warning clock drift is large", flush=True)
print("plain output from the bench", flush=True)
if mode == "hang":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.environ["FAKE_BENCH_CHILD"], "w") as f:
        f.write(str(child.pid))
    time.sleep(600)
doc["status"] = "complete"
write(doc, out)
"""

FAKE_MPIEXEC = r"""
import json, os, sys
args = sys.argv[1:]
if os.environ.get("FAKE_MPIEXEC_LOG"):
    keys = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "PYTHONPATH")
    with open(os.environ["FAKE_MPIEXEC_LOG"], "w") as f:
        json.dump({"args": args, "env": {k: os.environ.get(k) for k in keys}}, f)
assert args[0] == "-n", args
rest = args[2:]
if rest[0] == "--oversubscribe":
    rest = rest[1:]
os.execv(rest[0], rest)
"""


def write_script(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return path


@dataclass
class FakeMpi:
    """Paths of a fake MPI installation; ``env`` selects it."""

    root: Path
    profile_dir: Path
    bench: Path
    mpiexec: Path
    bench_log: Path
    mpiexec_log: Path
    env: dict[str, str]

    def write_profile(self, name: str = "fake", implementation: str = "mpich") -> Path:
        profile = {
            "name": name,
            "implementation": implementation,
            "prefix": str(self.root),
            "mpicc": "",
            "mpiexec": str(self.mpiexec),
            "bench": str(self.bench),
        }
        path = self.profile_dir / f"{name}.json"
        path.write_text(json.dumps(profile))
        return path

    def bench_args(self) -> list[str]:
        args: list[str] = json.loads(self.bench_log.read_text())
        return args

    def mpiexec_call(self) -> dict[str, Any]:
        call: dict[str, Any] = json.loads(self.mpiexec_log.read_text())
        return call


@dataclass
class CliRun:
    code: int
    stdout: str
    stderr: str

    @property
    def err_lines(self) -> list[str]:
        return self.stderr.splitlines()


def run_cli(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> CliRun:
    """Run the real entry point in a child process (exit code, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "mpiscope", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return CliRun(proc.returncode, proc.stdout, proc.stderr)
