"""Records the documents the tests read, from real runs of the MPICH build.

    .venv/bin/python tests/data/record.py              # every document, then the outputs
    .venv/bin/python tests/data/record.py NAME...      # these documents, then the outputs
    .venv/bin/python tests/data/record.py --outputs    # the golden outputs alone

Each document is what the command beside its name in RUNS writes on this
machine (2 ranks; ``simulated``: 16 ranks of SimGrid SMPI, make smpi), with the absolute paths of the machine it ran on made
relative. tests/data/sample-result.json is the template of the fake bench
(tests/python/mpiscope_fakes.py): test_fixture_shapes.py fails when the real
bench's documents and the fake's differ in shape, and says to run this. The
golden outputs (what each view makes of tests/data/golden/*.json) are
written from the documents by tests/python/golden_views.py: review their
diff before committing it.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
GOLDEN = DATA / "golden"
sys.path.insert(0, str(REPO / "tests" / "python"))

#: Where each document goes, and the mpiscope command line that writes it.
RUNS: dict[str, tuple[Path, list[str]]] = {
    "sample": (DATA / "sample-result.json", ["run", "bcast", "--np", "2", "--sizes", "1024"]),
    "check": (DATA / "check-result.json", ["check", "--drift-seconds", "1"]),
    "firstcall": (DATA / "firstcall-result.json", ["firstcall", "bcast,reduce", "--np", "2"]),
    "startup": (DATA / "startup-result.json",
                ["startup", "--np", "2", "--runs", "2", "--validate"]),
    "threads": (DATA / "threads-result.json",
                ["run", "thread_pingpong,partitioned_pingpong,file_write", "--np", "2",
                 "--sizes", "8,1K", "--max-launches", "40"]),
    "default": (GOLDEN / "default.json",
                ["run", "barrier,bcast,allreduce,alltoall,waitpattern_up,waitpattern_null",
                 "--np", "2", "--sizes", "1:1M:x4"]),
    "raw-a": (GOLDEN / "raw-a.json",
              ["run", "bcast,allreduce,barrier", "--np", "2", "--sizes", "4,1K,64K", "--raw"]),
    "raw-b": (GOLDEN / "raw-b.json",
              ["run", "bcast,allreduce,barrier", "--np", "2", "--sizes", "4,1K,64K", "--raw"]),
    "nprocs": (GOLDEN / "nprocs.json",
               ["run", "bcast,allreduce,barrier", "--np", "2", "--nprocs", "1:2"]),
    "methods": (GOLDEN / "methods.json",
                ["methods", "barrier,bcast,allreduce", "--np", "2", "--sizes", "1:1M:x4",
                 "--method", "window,roundtime,barrier,root"]),
    "simulated": (GOLDEN / "simulated.json",
                  ["run", "bcast,alltoall", "--np", "16", "--sizes", "1,64K", "--launcher", "smpi",
                   "--platform", "cluster-8x8"]),
    "runs": (GOLDEN / "runs.json",
                 ["run", "bcast,allreduce,barrier", "--np", "2", "--sizes", "1:64K:x4",
                  "--runs", "3", "--seed", "4", "--run-profile", "off"]),
}  # fmt: skip


def record(name: str, work: Path) -> dict[str, Any]:
    target, args = RUNS[name]
    out = f"{name}.json"
    mpi = [] if "--launcher" in args else ["--mpi", "mpich"]  # a simulated run: the SMPI build
    proc = subprocess.run(
        [sys.executable, "-m", "mpiscope", *args, *mpi, "--out", out, "--quiet"],
        cwd=work, capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"record.py: error: {name}: {' '.join(args)} failed: {proc.stderr.strip()}")
    doc: dict[str, Any] = relative(json.loads((work / out).read_text()), work)
    write(target, doc)
    return doc


def relative(value: Any, work: Path) -> Any:
    """The document with the machine's own paths (the checkout, the working
    folder of the run) left out of its texts."""
    if isinstance(value, dict):
        return {k: relative(v, work) for k, v in value.items()}
    if isinstance(value, list):
        return [relative(v, work) for v in value]
    if isinstance(value, str):
        for prefix in (f"{REPO}/.venv/bin/", f"{REPO}/", f"{work}/"):
            value = value.replace(prefix, "")
        return value
    return value


def scale_point(point: dict[str, Any], factor: float) -> None:
    """Multiply every time statistic of a point by ``factor`` (in place)."""
    for key, value in list(point.items()):
        if key.endswith("_ns") and key != "elapsed_ns" and isinstance(value, (int, float)):
            point[key] = value * factor
    for key in ("global_span", "start_skew"):
        if point.get(key):
            point[key] = {k: (v * factor if v is not None else None) for k, v in point[key].items()}
    point["intervals"] = {
        level: [v * factor if v is not None else None for v in pair]
        for level, pair in point["intervals"].items()
    }
    for rank in point.get("per_rank") or []:
        for key in ("median_ns", "mean_ns", "min_ns", "max_ns"):
            if rank.get(key) is not None:
                rank[key] *= factor


def slower(default: dict[str, Any]) -> dict[str, Any]:
    """default.json with allreduce >= 64 KiB 25% slower and bcast 1 B 20%
    faster: a regression and an improvement for `mpiscope compare`."""
    doc = copy.deepcopy(default)
    for point in doc["points"]:
        if point["op"] == "allreduce" and (point["size_bytes"] or 0) >= 65536:
            scale_point(point, 1.25)
        if point["op"] == "bcast" and point["size_bytes"] == 1:
            scale_point(point, 0.8)
    return doc


def write(path: Path, doc: dict[str, Any]) -> None:
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path.relative_to(REPO)}")


def write_outputs() -> None:
    from golden_views import every_output

    for name, text in every_output().items():
        (GOLDEN / name).write_text(text)
    print(f"wrote the golden outputs in {GOLDEN.relative_to(REPO)}")


def main(argv: list[str]) -> None:
    if argv != ["--outputs"]:
        names = argv or list(RUNS)
        unknown = [n for n in names if n not in RUNS]
        if unknown:
            sys.exit(f"record.py: error: unknown document {unknown[0]!r} "
                     f"(one of {', '.join(RUNS)})")
        with tempfile.TemporaryDirectory(prefix="mpiscope-record-") as tmp:
            env_free = {k: v for k, v in os.environ.items() if not k.startswith("MPISCOPE_")}
            os.environ.clear()
            os.environ.update(env_free, XDG_STATE_HOME=tmp)  # no run profile of the user's
            for name in names:
                doc = record(name, Path(tmp))
                if name == "default":
                    write(GOLDEN / "slower.json", slower(doc))
    write_outputs()


if __name__ == "__main__":
    main(sys.argv[1:])
