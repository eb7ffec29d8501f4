"""How the derived documents under tests/data/golden/ were made from real runs.

The real documents there (default.json, raw-a.json, raw-b.json, nprocs.json)
are unmodified results of `mpiscope run`. The others are derived from real
ones with this script, so the views can be tested on fields that a single
`mpiscope run` does not write:

    methods.json   several timing methods in one document (`"method"` per point)
    launches.json  three real launches merged by mpiscope.launches (as `mpiscope
                   run --launches 3` does: `"launch"` per point, `"launches"`,
                   `"launch_summary"`); launch 2's allreduce 16 KiB is made 40%
                   slower first
    slower.json    default.json with allreduce >= 64 KiB 25% slower and
                   bcast 1 B 20% faster (a regression for `mpiscope compare`)

    python tests/data/derive_fixtures.py DEFAULT LAUNCH0 LAUNCH1 LAUNCH2 OUTDIR

where LAUNCH0..2 are three runs of
`mpiscope run bcast,allreduce,barrier --np 2 --sizes 1:64K:x4`.
The result is deterministic (fixed bootstrap seed). Run it with the project's
Python (it imports mpiscope).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

SCALED_SUMMARIES = ("global_span", "start_skew")
METHOD_FACTORS = {
    # method: (factor at the smallest size, factor at the largest)
    "roundtime": (1.45, 1.08),
    "barrier": (1.9, 1.02),
    "root": (0.7, 0.97),
}


def scale_point(point: dict[str, Any], factor: float) -> None:
    """Multiply every time statistic of a point by ``factor`` (in place)."""
    for key, value in list(point.items()):
        if key.endswith("_ns") and key != "elapsed_ns" and isinstance(value, (int, float)):
            point[key] = value * factor
    for key in SCALED_SUMMARIES:
        if point.get(key):
            point[key] = {k: (v * factor if v is not None else None) for k, v in point[key].items()}
    point["intervals"] = {
        level: [v * factor if v is not None else None for v in pair]
        for level, pair in point["intervals"].items()
    }
    for rank in point.get("per_rank") or []:
        for key in ("median_ns", "mean_ns", "min_ns", "max_ns"):
            if rank[key] is not None:
                rank[key] *= factor


def methods_doc(default: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(default)
    window = [p for p in doc["points"] if p["op"] in ("barrier", "bcast", "allreduce")]
    sizes = sorted({p["size_bytes"] for p in window if p["size_bytes"] is not None})
    points: list[dict[str, Any]] = []
    for point in window:
        points.append(point)  # no "method": the window method
        position = 0.0 if point["size_bytes"] is None else sizes.index(point["size_bytes"])
        for name, (small, large) in METHOD_FACTORS.items():
            other = copy.deepcopy(point)
            other["method"] = name
            scale_point(other, small + (large - small) * position / (len(sizes) - 1))
            points.append(other)
    doc["points"] = points
    doc["schema_version"] = "1.1"
    doc["methods"] = ["window", *METHOD_FACTORS]
    doc["environment"]["command_line"] = (
        "mpiscope methods barrier,bcast,allreduce --np 2 --sizes 1:1M:x4 "
        "--methods window,roundtime,barrier,root"
    )
    return doc


def launches_doc(launches: list[dict[str, Any]]) -> dict[str, Any]:
    """Merged as `mpiscope run --launches` merges (mpiscope.launches)."""
    from mpiscope.launches import LaunchOutcome, launch_summary, merge_documents

    launches = copy.deepcopy(launches)
    for point in launches[2]["points"]:
        if point["op"] == "allreduce" and point["size_bytes"] == 16384:
            scale_point(point, 1.4)
    command = (
        "mpiscope-bench --ops bcast,allreduce,barrier --sizes 1,4,16,64,256,1024,4096,16384,65536"
    )
    outcomes = [
        LaunchOutcome(
            command=f"{command} --shuffle {seed}",
            start_time_utc=doc["environment"]["start_time_utc"],
            end_time_utc=doc["environment"]["end_time_utc"],
            doc=doc,
            shuffle_seed=seed,
        )
        for seed, doc in zip((11, 22, 33), launches, strict=True)
    ]
    doc = merge_documents(outcomes)
    assert doc is not None
    doc.update(launch_summary(doc, seed=4, resamples=2000))
    doc["schema_version"] = "1.1"
    doc["environment"]["command_line"] = (
        "mpiscope run bcast,allreduce,barrier --np 2 --sizes 1:64K:x4 --launches 3 --seed 4"
    )
    return doc


def slower_doc(default: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(default)
    for point in doc["points"]:
        if point["op"] == "allreduce" and (point["size_bytes"] or 0) >= 65536:
            scale_point(point, 1.25)
        if point["op"] == "bcast" and point["size_bytes"] == 1:
            scale_point(point, 0.8)
    return doc


def main(argv: list[str]) -> None:
    default_path, *launch_paths, out = argv
    default = json.loads(Path(default_path).read_text())
    launches = [json.loads(Path(p).read_text()) for p in launch_paths]
    outdir = Path(out)
    for name, doc in (
        ("methods.json", methods_doc(default)),
        ("launches.json", launches_doc(launches)),
        ("slower.json", slower_doc(default)),
    ):
        (outdir / name).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
