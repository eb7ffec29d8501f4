"""Shared helpers of the bench/ scripts: run mpiscope, read its results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_SUITE = "barrier,bcast,allreduce,alltoall,waitpattern_up,waitpattern_null"
#: An environment variable that makes every start of mpiscope compile its
#: modules again (0.3-0.5 s on the AMD EPYC VM): an installed mpiscope has
#: its bytecode, so a wall time measured with it set is not a user's.
NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"


def user_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) as a user's shell has
    it for timing mpiscope: without :data:`NO_BYTECODE`."""
    env = dict(os.environ if base is None else base)
    env.pop(NO_BYTECODE, None)
    return env


def bytecode_note() -> str | None:
    """A line for the output when this process's environment had :data:`NO_BYTECODE`."""
    if os.environ.get(NO_BYTECODE):
        return (f"note: {NO_BYTECODE} was set here; the launches run without it, as an "
                "installed mpiscope starts (its modules compiled once, not at every start)")
    return None


def run_mpiscope(args: list[str], out: Path) -> tuple[dict[str, Any], float]:
    """Run `mpiscope run ARGS --out OUT --force --quiet`; the document and the wall time (s)."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "mpiscope", "run", *args, "--out", str(out), "--force", "--quiet"],
        capture_output=True, text=True, check=False, env=user_env(),
    )
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"mpiscope run failed:\n{proc.stderr}")
    return json.loads(out.read_text()), wall


def parse_nps(text: str) -> list[int]:
    """Process counts: LOW:HIGH (doubling from LOW) or a comma-separated list."""
    if ":" in text:
        low, high = (int(part) for part in text.split(":"))
        nps, p = [], low
        while p <= high:
            nps.append(p)
            p *= 2
        return nps
    return [int(part) for part in text.split(",")]


def point_key(p: dict[str, Any]) -> tuple[str, int | None, int]:
    return (p["op"], p["size_bytes"], p["nprocs"])


def human_ns(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def human_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def load_text() -> str:
    """The load average now, ``0.52 0.61 0.70`` (1, 5 and 15 minutes)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_name() -> str:
    """The processor's model name (/proc/cpuinfo), or ``unknown``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"
