"""Run mpiscope-contention and check the structure of what it writes.

Usage: check_contention.py --nodes K --ranks P --sizes B,B --iterations N --window W
           --json FILE -- COMMAND...
       check_contention.py --expect-error LINE -- COMMAND...
No timing is checked (the machine is shared): the document parses, names
its schema, has both phases for every size with the right sample counts,
and the stream counts agree with the roles.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys


def fail(message: str) -> None:
    print(f"check_contention: {message}", file=sys.stderr)
    sys.exit(1)


def check_phase(entry: dict, name: str, iterations: int) -> None:
    phase = entry.get(name)
    if not isinstance(phase, dict):
        fail(f"size {entry.get('size_bytes')}: no {name}")
    if phase.get("samples") != iterations:
        fail(f"size {entry['size_bytes']} {name}: samples {phase.get('samples')} != {iterations}")
    values = [phase.get(key) for key in ("min_ns", "median_ns", "p90_ns")]
    if not all(isinstance(v, (int, float)) and v > 0 for v in values):
        fail(f"size {entry['size_bytes']} {name}: latencies {values}")
    if not values[0] <= values[1] <= values[2]:
        fail(f"size {entry['size_bytes']} {name}: min <= median <= p90 violated: {values}")


def check_document(args: argparse.Namespace, stdout: str) -> None:
    with open(args.json, encoding="utf-8") as handle:
        doc = json.load(handle)
    sizes = [int(s) for s in args.sizes.split(",")]
    per_node = args.ranks // args.nodes
    expected = {"schema": "mpiscope-contention", "schema_version": 1, "nodes": args.nodes,
                "ranks": args.ranks, "ranks_per_node": per_node, "latency_ranks": [0, per_node],
                "streamer_count": args.nodes * (per_node - 1), "window_messages": args.window,
                "iterations": args.iterations}
    for key, value in expected.items():
        if doc.get(key) != value:
            fail(f"{key}: {doc.get(key)!r}, want {value!r}")
    # every streamer has a next node (others): one END round each
    if doc["streamed_end_messages"] != doc["streamer_count"] * args.window:
        fail(f"streamed_end_messages {doc['streamed_end_messages']}")
    if doc["streamed_messages"] % args.window:
        fail(f"streamed_messages {doc['streamed_messages']} not whole rounds")
    if [entry.get("size_bytes") for entry in doc.get("sizes", [])] != sizes:
        fail(f"sizes {doc.get('sizes')}")
    for entry in doc["sizes"]:
        check_phase(entry, "without_contention", args.iterations)
        check_phase(entry, "with_contention", args.iterations)
        if not isinstance(entry.get("median_ratio"), (int, float)):
            fail(f"size {entry['size_bytes']}: median_ratio {entry.get('median_ratio')}")
    rows = [line for line in stdout.splitlines() if line.split() and line.split()[0].isdigit()]
    if len(rows) != len(sizes):
        fail(f"{len(rows)} table rows on stdout, want {len(sizes)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--nodes", "--ranks", "--iterations", "--window"):
        parser.add_argument(name, type=int, default=0)
    parser.add_argument("--sizes", default="")
    parser.add_argument("--json", default="")
    parser.add_argument("--expect-error", default="")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    run = subprocess.run(command, capture_output=True, text=True, timeout=100, check=False)
    if args.expect_error:
        lines = run.stderr.strip().splitlines()
        if run.returncode != 2 or lines != [args.expect_error]:
            fail(f"exit {run.returncode}, stderr {run.stderr!r}; want 2 and {args.expect_error!r}")
        return
    if run.returncode != 0:
        fail(f"exit {run.returncode}: {run.stderr}")
    check_document(args, run.stdout)


if __name__ == "__main__":
    main()
