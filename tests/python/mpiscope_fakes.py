"""A fake MPI (bench + mpiexec) for tests that must not need a real one.

The fake bench is a small Python script written to tmp_path at test time.
It answers ``--list-ops`` with a fixed catalogue; otherwise it takes only
``--plan FILE``, as mpiscope-bench is started by mpiscope, and reads the
plan as the real one does (docs/plan-format.md): a field the engine does not
describe (python/mpiscope/result/describe.json ``plan_parameters``), or a
value not of the field's JSON type, is refused as the real bench refuses it
(``mpiscope-bench: error: plan field ...``, exit code 2). Then it behaves
like mpiscope-bench: progress and warning lines on stdout, a result
document at the plan's ``out``, built from :func:`sample`: the document a real
run of the MPICH bench wrote (tests/data/sample-result.json, recorded by
tests/data/record.py; test_fixture_shapes.py fails when the real bench's
documents and the fake's differ in shape) with round statistics
(:data:`KNOWN_POINT`) in place of the measured ones, so that tests can say
what a view shows.
FAKE_BENCH_MODE selects "ok", "fail" (a partial result, exit code 3),
"crash" (no result, exit code 4), "garbage" (a truncated file, exit code 5)
or "hang". The fake mpiexec strips ``-n N [--oversubscribe]`` and execs the
rest. Both log what they were given as JSON: the bench its arguments and
the plan it read (``{"argv": [...], "plan": {...}}``), the mpiexec its
arguments and a few environment variables; the bench also appends each
call's log to ``FAKE_BENCH_LOG + ".all"`` (one JSON line per call, which
also numbers the calls from 0).

Beyond that, the fake knows the fields of the timing-method issue:
``methods`` and ``cache: ["cold", "warm"]`` multiply the points
(interleaved, no bcast-supinski for other ops), each method's times scaled
by METHOD_FACTORS (warm: x0.5), with ``gap`` and, for barrier, ``views``;
``shuffle`` shuffles the points; ``arrival`` is recorded per point;
``firstcall`` writes FIRSTCALL points; ``check`` writes FAKE_CHECK.
``FAKE_BENCH_SCALES=1,1,10`` scales every time of call i by the i-th value
(cyclically); ``FAKE_BENCH_FAIL_AT=i`` makes call i behave as "fail".
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpiscope.result.describe import description

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
SAMPLE = DATA / "sample-result.json"

#: The statistics of the sample's one point (bcast 1 KiB, 2 ranks) as the
#: tests know them: set on the recorded document by :func:`sample`.
KNOWN_POINT: dict[str, Any] = {
    "launches_total": 40, "launches_valid": 30, "samples_used": 16, "samples": 30,
    "mean_ns": 812.4, "stddev_ns": 20.1, "se_ns": 5.0, "rse": 0.0062, "median_rse": 0.0062,
    "median_ns": 810.0, "min_ns": 790.0, "max_ns": 5400.0, "trimmed_min_ns": 795.0,
    "trimmed_max_ns": 840.0, "q25_ns": 800.0, "q75_ns": 830.0, "confidence": 0.95,
    "error_ns": 10.7, "ci_low_ns": 801.7, "ci_high_ns": 823.1,
    "intervals": {"0.90": [803.6, 821.2], "0.95": [801.7, 823.1], "0.99": [797.7, 827.1]},
    "global_span": {"median_ns": 900.0, "mean_ns": 910.0, "max_ns": 5600.0},
    "start_skew": {"median_ns": 40.0, "mean_ns": 45.0, "max_ns": 300.0},
    "gap": {"median_ns": 400.0, "min_ns": 100.0},
    "per_rank": [{"rank": 0, "median_ns": 700.0, "mean_ns": 705.0, "min_ns": 690.0,
                  "max_ns": 900.0},
                 {"rank": 1, "median_ns": 810.0, "mean_ns": 812.0, "min_ns": 790.0,
                  "max_ns": 5400.0}],
    "unstable": False, "unstable_reasons": [],
}  # fmt: skip


#: A fine timer and a tight clock sync, as the tests know them: the recorded
#: machine's (a 20 ns timer step, a sync residual of 100 ns or more) would
#: put the clock's limit and sync warnings into every view.
KNOWN_TIMER = {"resolution_ns": 0.4, "read_overhead_ns": 18.2}
KNOWN_RESIDUAL_NS = 3.1


def sample() -> dict[str, Any]:
    """The recorded sample with :data:`KNOWN_POINT`'s statistics and the
    known timer and clock sync."""
    doc: dict[str, Any] = json.loads(SAMPLE.read_text())
    doc["points"][0].update(copy.deepcopy(KNOWN_POINT))
    env = doc["environment"]
    env["timer"].update(KNOWN_TIMER)
    sync = env["clock_sync"]
    sync["max_abs_residual_ns"] = KNOWN_RESIDUAL_NS
    sync["residual_ns"] = [0.0] + [KNOWN_RESIDUAL_NS] * (len(sync["residual_ns"]) - 1)
    return doc


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
        "name": "barrier",
        "description": "MPI_Barrier: no rank leaves before all have entered",
        "size_meaning": "not used",
        "flags": ["synchronizing"],
        "options": [],
    },
    {
        "name": "reduce",
        "description": "MPI_Reduce",
        "size_meaning": "bytes of the reduced vector",
        "flags": ["size", "root", "reduction"],
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

#: Time factor of each timing method in the fake bench (window = 1).
METHOD_FACTORS = {
    "window": 1.0, "roundtime": 1.1, "barrier": 0.5, "barrier-each": 1.5, "none": 0.75,
    "root": 0.9, "max": 1.25, "global": 1.3, "bcast-supinski": 0.8,
}  # fmt: skip
#: The barrier method's suite views, as factors of its median.
BARRIER_VIEWS = {
    "rank0_ns": 0.5, "mean_over_ranks_ns": 0.75, "max_over_ranks_ns": 1.0,
    "per_launch_max_ns": 2.0,
}  # fmt: skip
#: --firstcall: per op, each rank's first and second call (ns), 2 ranks.
FIRSTCALL = {
    "bcast": ([6178000.0, 5000.0], [1000.0, 1250.0]),
    "allreduce": ([11710.0, 40000.0], [1000.0, 2000.0]),
    "waitpattern_up": ([1000.0, 2000.0], [1000.0, 2000.0]),
    "reduce": ([9000.0, 30000.0], [900.0, 1800.0]),
    "barrier": ([4000.0, 4100.0], [800.0, 820.0]),
}
#: --check: the timers and sync algorithms of the machine check section (2
#: ranks) as the tests know them, set on the recorded check-result.json by
#: :func:`_fake_check` (which keeps every other field the real bench writes).
_KNOWN_CHECK: dict[str, Any] = {
    "timers": [
        {
            "name": "tsc", "available": True, "resolution_ns": 0.4,
            "read_overhead_ns": 18.0, "reads": 4000000, "monotonic_violations": 0,
            "invariant": True, "frequency_hz": 2.6e9, "frequency_error_ppm": 1.5,
            "wtime_is_global": None,
            "waitpatterns": [
                {"op": "waitpattern_null", "expected_ns": 0.0, "median_ns": 40.0,
                 "ci_low_ns": 38.0, "ci_high_ns": 42.0, "span_median_ns": 60.0,
                 "skew_median_ns": 20.0},
                {"op": "waitpattern_up", "expected_ns": 2000.0, "median_ns": 2030.0,
                 "ci_low_ns": 2020.0, "ci_high_ns": 2040.0, "span_median_ns": 2050.0,
                 "skew_median_ns": 25.0},
                {"op": "waitpattern_down", "expected_ns": 2000.0, "median_ns": 2040.0,
                 "ci_low_ns": 2030.0, "ci_high_ns": 2050.0, "span_median_ns": 2060.0,
                 "skew_median_ns": 22.0},
            ],
        },
        {
            "name": "monotonic", "available": True, "resolution_ns": 25.0,
            "read_overhead_ns": 24.0, "reads": 4000000,
            "monotonic_violations": 0, "invariant": None, "frequency_hz": None,
            "frequency_error_ppm": None, "wtime_is_global": None,
            "waitpatterns": [
                {"op": "waitpattern_null", "expected_ns": 0.0, "median_ns": 60.0,
                 "ci_low_ns": 55.0, "ci_high_ns": 65.0, "span_median_ns": 90.0,
                 "skew_median_ns": 30.0},
                {"op": "waitpattern_up", "expected_ns": 2000.0, "median_ns": 2050.0,
                 "ci_low_ns": 2040.0, "ci_high_ns": 2060.0, "span_median_ns": 2080.0,
                 "skew_median_ns": 30.0},
            ],
        },
        {
            "name": "gettimeofday", "available": True, "resolution_ns": 1000.0,
            "read_overhead_ns": 20.0, "reads": 4000000,
            "monotonic_violations": 3, "invariant": None, "frequency_hz": None,
            "frequency_error_ppm": None, "wtime_is_global": None,
            "waitpatterns": [
                {"op": "waitpattern_up", "expected_ns": 2000.0, "median_ns": 3000.0,
                 "ci_low_ns": 2000.0, "ci_high_ns": 4000.0, "span_median_ns": 3000.0,
                 "skew_median_ns": 500.0},
            ],
        },
        {
            "name": "wtime", "available": False, "why_unavailable": "MPI_Wtime is gettimeofday",
        },
    ],
    "sync": [
        {"algorithm": "linear", "duration_ns": 2.0e6, "exchanges": 400, "fitpoints": 1,
         "max_error_ns": 45.0, "max_abs_residual_ns": 40.0,
         "after_seconds": 2.0, "max_abs_residual_after_ns": 46.0, "drift_ppm": 0.003},
        {"algorithm": "ring", "duration_ns": 1.0e6, "exchanges": 300, "fitpoints": 1,
         "max_error_ns": 1600.0, "max_abs_residual_ns": 1500.0,
         "after_seconds": 2.0, "max_abs_residual_after_ns": 51500.0, "drift_ppm": 25.0},
    ],
    "states": {
        "op": "bcast", "method": "barrier-each", "size_bytes": 1048576, "gap_seconds": 0.25,
        "runs": [{"at_ns": i * 250e6, "median_ns": m, "q25_ns": 0.99 * m, "q75_ns": 1.01 * m,
                  "launches_valid": 50} for i, m in enumerate((500e3, 505e3, 495e3, 500e3))],
    },
}  # fmt: skip


def _fake_check() -> dict[str, Any]:
    """The recorded check section with the known timers and sync entries: an
    available timer keeps what the real one writes besides the known values,
    an unavailable one is its name and why (as the engine writes it)."""
    check: dict[str, Any] = json.loads((DATA / "check-result.json").read_text())["check"]
    timers = {t["name"]: t for t in check["timers"] if t["available"]}
    syncs = {s["algorithm"]: s for s in check["sync"]}
    check["timers"] = [{**timers[t["name"]], **t} if t["available"] else t
                       for t in _KNOWN_CHECK["timers"]]  # fmt: skip
    check["sync"] = [{**syncs[s["algorithm"]], **s} for s in _KNOWN_CHECK["sync"]]
    check["states"] = {**check["states"], **_KNOWN_CHECK["states"]}
    return check


FAKE_CHECK = _fake_check()

#: The plan's fields and the JSON type of each, as the engine describes them.
PLAN_FIELDS = {p["name"]: p["type"] for p in description()["plan_parameters"]}

FAKE_BENCH = r"""
import itertools, json, os, random, subprocess, sys, time

OPS = json.loads(__OPS__)
EXTRA = json.loads(__EXTRA__)
args = sys.argv[1:]
if args == ["--list-ops"]:
    print(json.dumps(OPS))
    sys.exit(0)

def refuse(message):
    print("mpiscope-bench: error: " + message, file=sys.stderr)
    sys.exit(2)

if len(args) != 2 or args[0] != "--plan":
    refuse("the fake bench takes --list-ops or --plan FILE only, not " + " ".join(args))
with open(args[1]) as f:
    plan = json.load(f, parse_constant=lambda c: refuse(f"{args[1]}: {c} is not JSON"))

def number(v, integer=False):
    return not isinstance(v, bool) and isinstance(v, int if integer else (int, float))

def text_or_scalar(v):
    return isinstance(v, (str, bool)) or number(v)

TYPES = {  # the JSON type of each kind of plan field (describe.json plan_parameters)
    "array of integers": lambda v: isinstance(v, list) and all(number(x, True) for x in v),
    "integer": lambda v: number(v, True),
    "number": number,
    "boolean": lambda v: isinstance(v, bool),
    "object of name: value": lambda v: isinstance(v, dict) and all(
        text_or_scalar(x) for x in v.values()),
    # the text form (late:1:100) or the object form ({"kind": "late", ...})
    "arrival pattern": lambda v: isinstance(v, str) or (
        isinstance(v, dict) and isinstance(v.get("kind"), str)),
}
for name, value in plan.items():
    if name not in EXTRA["fields"]:
        refuse(f"plan field '{name}': unknown field")
    kind = EXTRA["fields"][name]
    if kind.startswith("array of") and kind not in TYPES:
        fits = isinstance(value, list) and all(isinstance(x, str) for x in value)
    else:
        fits = TYPES.get(kind, lambda v: isinstance(v, str))(value)
    if not fits:
        refuse(f"plan field '{name}': must be {kind}, not {json.dumps(value)}")
if "out" not in plan:
    refuse("plan field 'out': required")
if "ops" not in plan and not plan.get("check"):
    refuse("plan field 'ops': required (unless check is true)")

call = 0
if os.environ.get("FAKE_BENCH_LOG"):
    record = json.dumps({"argv": args, "plan": plan})
    with open(os.environ["FAKE_BENCH_LOG"], "w") as f:
        f.write(record)
    every = os.environ["FAKE_BENCH_LOG"] + ".all"
    if os.path.exists(every):
        with open(every) as f:
            call = sum(1 for _ in f)
    with open(every, "a") as f:
        f.write(record + "\n")

def write(doc, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)

mode = os.environ.get("FAKE_BENCH_MODE", "ok")
if os.environ.get("FAKE_BENCH_FAIL_AT", "") == str(call):
    mode = "fail"
scales = [float(x) for x in os.environ.get("FAKE_BENCH_SCALES", "").split(",") if x]
scale = scales[call % len(scales)] if scales else 1.0
TIMES = ("mean_ns", "stddev_ns", "se_ns", "median_ns", "min_ns", "max_ns", "trimmed_min_ns",
         "trimmed_max_ns", "q25_ns", "q75_ns", "error_ns", "ci_low_ns", "ci_high_ns")
out = plan["out"]
if mode == "crash":
    print("crashed before writing anything", file=sys.stderr)
    sys.exit(4)
if mode == "garbage":
    with open(out, "w") as f:
        f.write('{"schema_version": "1.0", "status": "running", "points": [')
    sys.exit(5)
with open(os.environ["FAKE_BENCH_SAMPLE"]) as f:
    doc = json.load(f)
if plan.get("check") or plan.get("firstcall"):
    doc.pop("floor", None)  # the real bench measures its floor only before points
if plan.get("check"):
    doc["points"] = []
    doc["check"] = EXTRA["check"]
    write(doc, out)
    sys.exit(0)
ops = plan["ops"]
sizes = plan.get("sizes", [1024])
nprocs = plan.get("nprocs", [2])
template = doc["points"][0]
if not plan.get("ledger"):
    template.pop("ledger", None)
if plan.get("firstcall"):
    doc["points"] = []
    for op in ops:
        first, second = EXTRA["firstcall"][op]
        doc["points"].append({"kind": "firstcall", "op": op, "size_bytes": sizes[0],
            "nprocs": nprocs[0], "first_ns": first, "second_ns": second,
            "ratio_rank0": first[0] / second[0], "ratio_max": max(first) / max(second)})
    write(doc, out)
    sys.exit(0)
methods = plan.get("methods") or [None]
caches = plan["cache"] if len(plan.get("cache", [])) > 1 else [None]
combos = [(op, size, n, m, c) for op, size, n in itertools.product(ops, sizes, nprocs)
          for m in methods if m != "bcast-supinski" or op == "bcast" for c in caches]
if plan.get("shuffle"):
    random.Random(plan["shuffle"]).shuffle(combos)
if plan.get("methods"):
    doc["methods"] = methods
doc["points"] = []
doc["status"] = "running"
for i, (op, size, n, m, c) in enumerate(combos):
    point = dict(template, op=op, size_bytes=size, actual_bytes=size, nprocs=n)
    factor = scale * (EXTRA["factors"][m] if m else 1.0) * (0.5 if c == "warm" else 1.0)
    for key in TIMES:
        point[key] = template[key] * factor
    point["intervals"] = {k: [v * factor for v in p] for k, p in template["intervals"].items()}
    if m:
        point["method"] = m
        point["gap"] = {"median_ns": float(plan.get("gap_ns", 0)) + 10.0,
                        "min_ns": float(plan.get("gap_ns", 0))}
        if m != "window":
            point.pop("window")
        if m == "barrier":
            point["views"] = {k: v * point["median_ns"] for k, v in EXTRA["views"].items()}
    if c:
        point["cache"] = c
    if plan.get("arrival"):
        a = plan["arrival"]  # the object form, written back as the user's text
        point["arrival"] = ":".join(f"{a[k]:g}" if isinstance(a[k], float) else str(a[k])
                                    for k in ("kind", "rank", "us", "seed") if k in a)
    doc["points"].append(point)
    if plan.get("progress"):
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
if mode == "shapeless":  # valid JSON, but not the shape of a result
    doc["points"] = {"bcast": doc["points"]}
if mode == "offschema":  # the shape of a result, a value the schema refuses
    doc["points"][0]["launches_total"] = -1
doc["status"] = "complete"
write(doc, out)
"""
FAKE_BENCH = FAKE_BENCH.replace(
    "__EXTRA__",
    repr(
        json.dumps(
            {
                "factors": METHOD_FACTORS,
                "views": BARRIER_VIEWS,
                "firstcall": FIRSTCALL,
                "check": FAKE_CHECK,
                "fields": PLAN_FIELDS,
            }
        )
    ),
)

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

    def bench_call(self) -> dict[str, Any]:
        """The last bench call: its ``argv`` and the ``plan`` it read."""
        call: dict[str, Any] = json.loads(self.bench_log.read_text())
        return call

    def bench_plan(self) -> dict[str, Any]:
        """The plan document of the last bench call."""
        plan: dict[str, Any] = self.bench_call()["plan"]
        return plan

    def all_bench_plans(self) -> list[dict[str, Any]]:
        """The plan of every bench call so far, in order."""
        path = self.bench_log.with_name(self.bench_log.name + ".all")
        if not path.exists():
            return []
        return [json.loads(line)["plan"] for line in path.read_text().splitlines()]

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
