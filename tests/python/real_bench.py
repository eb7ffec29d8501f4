"""Whether the real mpiscope-bench (the MPICH build) takes given flags.

Tests of the timing-method issue that need the real bench are marked with
:func:`needs_bench_flags`: they run as soon as the built bench lists the
flags in its ``--help`` (as it does once the C side is in), and are skipped
with the reason until then.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mpiscope.mpi_profile import find_profiles

REAL_MPI = "mpich"


@functools.lru_cache(maxsize=1)
def bench_help() -> str:
    profile = find_profiles().get(REAL_MPI)
    if profile is None:
        return ""
    try:
        proc = subprocess.run(
            [profile.bench, "--help"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return ""
    return proc.stdout + proc.stderr


def needs_bench_flags(*flags: str) -> pytest.MarkDecorator:
    missing = [flag for flag in flags if flag not in bench_help()]
    return pytest.mark.skipif(
        bool(missing),
        reason=f"the built mpiscope-bench ({REAL_MPI}) does not take {', '.join(missing)} yet",
    )


def mpiscope(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The real command line, against the real MPICH build."""
    return subprocess.run(
        [sys.executable, "-m", "mpiscope", *args, "--mpi", REAL_MPI],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def read(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc
