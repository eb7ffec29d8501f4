#!/usr/bin/env python3
"""The README's five-minute tour, from real runs: runs each block's
commands (2 ranks, small sizes: seconds in all) in a scratch directory and
rewrites the blocks between ``<!-- tour:NAME -->`` and ``<!-- /tour:NAME -->``
in README.md, each headed by when and where it ran.

    .venv/bin/python tools/readme_tour.py              # rewrite README.md
    .venv/bin/python tools/readme_tour.py --print      # print the blocks only

tests/python/test_readme_tour.py runs the same blocks and checks that the
README's are the shape the command line prints today (column titles, row
labels, the keys of the header lines), not the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
LATE_P2P = Path("build/mpich/examples/trace/late_p2p")  # built by make (tests/CMakeLists.txt)
BLOCK = re.compile(r"(<!-- tour:(?P<name>[a-z-]+) -->\n```\n)(?P<body>.*?)"
                   r"(```\n<!-- /tour:(?P=name) -->)", re.S)  # fmt: skip
TIMEOUT = 300


@dataclass
class Tour:
    """Runs the commands of the blocks in ``work``; ``late_p2p``: the traced
    program (examples/trace/late_p2p.c, built)."""

    work: Path
    late_p2p: Path
    mpi: str | None = None

    def run(self, *args: str, shown: str | None = None) -> tuple[str, str]:
        """(``$ mpiscope ...`` as a user types it, its output) of one command;
        a failure stops the tour (its output is no tour)."""
        env = dict(os.environ, XDG_STATE_HOME=str(self.work / "state"))
        env.pop("MPISCOPE_RUN_PROFILE", None)  # no launch profile: the same legend anywhere
        if self.mpi:
            env["MPISCOPE_MPI"] = self.mpi
        done = subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=self.work, env=env,
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)
        if done.returncode not in (0, 1):  # 1: noise found, a regression: still a result
            raise RuntimeError(f"{shlex.join(args)} exited {done.returncode}: "
                               f"{done.stderr[-2000:]}")
        command = "$ mpiscope " + (shown or shlex.join(args))
        return command, self.relative(done.stdout)

    def relative(self, text: str) -> str:
        """No machine's absolute path in the README: the scratch directory's
        and the checkout's are cut off (``.venv/bin/mpiexec``)."""
        for where in (self.work.resolve(), self.work, ROOT):
            text = text.replace(f"{where}/", "")
        return text


def sections(text: str, titles: tuple[str, ...]) -> str:
    """The blank-line separated sections of ``text`` whose first line starts
    with one of ``titles``, in order, with ``...`` where others were left out."""
    out: list[str] = []
    skipped = False
    for part in text.strip("\n").split("\n\n"):
        if not part.startswith(titles):
            skipped = True
            continue
        if out:
            out.append("..." if skipped else "")
        out.append(part)
        skipped = False
    return "\n".join(out)


def lines_from(text: str, first: str) -> str:
    """``text`` from its first line that starts with ``first``."""
    rows = text.splitlines()
    start = next(i for i, row in enumerate(rows) if row.startswith(first))
    return "\n".join(rows[start:])


def block_run(t: Tour) -> str:
    command, out = t.run("run", "bcast,allreduce", "--np", "2", "--sizes", "8,1K,64K",
                         "--out", "tour.json", "--quiet")  # fmt: skip
    elided = "...  (the table of `mpiscope report`, below)"
    return "\n".join([command, elided, lines_from(out, "vs OSU")])


def block_report(t: Tour) -> str:
    command, out = t.run("report", "tour.json")
    return f"{command}\n{out.rstrip()}"


def block_trace(t: Tour) -> str:
    shown = f"trace --np 2 -o tour.trace {LATE_P2P} --late send --delay-ms 100 --trials 2"
    traced, out = t.run("trace", "--np", "2", "-o", "tour.trace", str(t.late_p2p), "--late",
                        "send", "--delay-ms", "100", "--trials", "2", shown=shown)  # fmt: skip
    command, summary = t.run("trace", "summary", "tour.trace")
    picked = sections(summary, ("trace ", "Time in MPI per rank", "Late sender"))
    return "\n".join([traced, out.rstrip(), command, picked])


def block_noise(t: Tour) -> str:
    args = ("noise", "run", "--detector", "barrier", "--np", "2", "--layout", "C", "--design",
            "alternate", "--block", "2", "--inject", "20Hz:2ms", "--packet", "0.5s",
            "--packets", "32", "--out", "noise.json")  # fmt: skip
    run_command, _ = t.run(*args)
    command, verdict = t.run("noise", "compare", "noise.json")
    return "\n".join([run_command, "...", command, verdict.rstrip()])


def block_alltoall(t: Tour) -> str:
    command, out = t.run("alltoall", "compare", "--np", "2", "--sizes", "8,1K,64K", "--out",
                         "a2a.json", "--quiet")
    table = lines_from(out, "Alltoall, ").split("\n\n")[0]
    return "\n".join([command, "...", table, "..."])


#: Each block of the README, in the order it runs (report reads run's result).
BLOCKS: dict[str, Callable[[Tour], str]] = {
    "run": block_run,
    "report": block_report,
    "trace": block_trace,
    "noise": block_noise,
    "alltoall": block_alltoall,
}


def stamp(work: Path) -> str:
    """When and where: the time, the processor, the cores and load, the MPI."""
    env = json.loads((work / "tour.json").read_text())["environment"]
    mpi = (env.get("mpi_library_version") or env.get("mpi_implementation", "?")).splitlines()[0]
    load = os.getloadavg()[0]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (f"# {when}, {env.get('cpu_model', '?')}, {os.cpu_count()} cores, load {load:.1f}; "
            f"{' '.join(mpi.split())}; tools/readme_tour.py")  # fmt: skip


def produce(work: Path, late_p2p: Path, mpi: str | None = None) -> dict[str, str]:
    """Every block's text (stamp first), run in ``work``."""
    tour = Tour(work, late_p2p, mpi)
    bodies = {name: make(tour) for name, make in BLOCKS.items()}
    head = stamp(work)
    return {name: f"{head}\n{body.rstrip()}\n" for name, body in bodies.items()}


def readme_blocks(text: str) -> dict[str, str]:
    """The tour blocks of a README: name -> the text between the fences."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


def rewrite(text: str, blocks: dict[str, str]) -> str:
    """``text`` with each marked block replaced; every block must be there."""
    missing = set(blocks) - set(readme_blocks(text))
    if missing:
        raise SystemExit(f"README.md lacks the tour block(s) {', '.join(sorted(missing))}")
    return BLOCK.sub(lambda m: m[1] + blocks.get(m["name"], m["body"]) + m[4], text)


#: A number with its unit, as the tables print them (``1.23 us``, ``97.1%``).
NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d.,]*(?:e[-+]?\d+)?"
                    r"(?:\s?(?:ns|us|ms|s|min|B|KiB|MiB|GiB|GB/s|GHz|%|x|ppm)(?![\w/]))?")
#: A message size, a row label the command's options fix (``8 B``, ``64 KiB``).
SIZE = re.compile(r"\d+ (?:B|KiB|MiB|GiB)")


def shape(block: str) -> list[str]:
    """What of a block must not drift from what the command line prints:
    the commands, the keys of key-value lines, the column titles of tables
    and the labels of their rows (op and size, a rank, a criterion).
    Numbers, units, flags and verdicts are not shape: they are what was
    measured. Repeated labels count once (how many ranks waited late is
    measured too)."""
    out: list[str] = []
    for row in block.splitlines():
        if row.startswith(("#", "...")) or not row.strip():
            continue
        line = row if row.startswith("$ ") else _row_shape(row.strip())
        if not out or out[-1] != line:
            out.append(line)
    return out


def _row_shape(row: str) -> str:
    if set(row) <= set("- "):
        return "---"
    cells = [c for c in re.split(r"\s{2,}|: ", row) if c]
    if len(cells) > 2 and not any(re.search(r"\d", c) for c in cells[1:3]):
        return " | ".join(c.rstrip("*") for c in cells)  # a table's column titles
    if len(cells) > 1 and SIZE.fullmatch(cells[1]):
        return f"{cells[0]} | {cells[1]}"
    if SIZE.fullmatch(cells[0]):
        return cells[0]
    return NUMBER.sub("N", cells[0])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--print", action="store_true", help="print the blocks; README.md unchanged")
    p.add_argument("--late-p2p", type=Path, default=ROOT / LATE_P2P,
                   help="the built examples/trace/late_p2p (default: make's build)")
    p.add_argument("--mpi", help="the MPI installation (mpiscope --mpi)")
    args = p.parse_args(argv)
    if not args.late_p2p.exists():
        raise SystemExit(f"{args.late_p2p} is missing: run make build (or give --late-p2p)")
    with tempfile.TemporaryDirectory(prefix="mpiscope-tour-") as work:
        blocks = produce(Path(work), args.late_p2p.resolve(), args.mpi)
    if args.print:
        print("\n".join(blocks.values()))
        return 0
    README.write_text(rewrite(README.read_text(encoding="utf-8"), blocks), encoding="utf-8")
    print(f"rewrote {len(blocks)} tour blocks in {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
