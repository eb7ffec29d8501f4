"""The serial MPI of the unit tests (tests/serial_mpi, -DMPISCOPE_SERIAL=ON):
its generated prototypes and "needs a real MPI" functions are those
tools/gen_serial_mpi.py makes from the MPI standard (pympistandard) and
serial_mpi.c, and the generator notices a stale file. No MPI needed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "tools" / "gen_serial_mpi.py"
SERIAL = ROOT / "tests" / "serial_mpi"
GENERATED = SERIAL / "generated"


def check(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(GENERATOR), "--check", "--out", str(out)],
                          capture_output=True, text=True, check=False, timeout=60)


def test_generated_files_are_current() -> None:
    proc = check(GENERATED)
    assert proc.returncode == 0, proc.stderr


def test_check_notices_a_stale_file(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    shutil.copytree(GENERATED, out)
    (out / "unavailable.c").write_text("/* edited by hand */\n")
    proc = check(out)
    assert proc.returncode == 1 and "unavailable.c" in proc.stderr


def test_every_function_is_implemented_or_stops_the_program() -> None:
    """Each prototype has exactly one definition: serial_mpi.c's or a stub."""
    prototypes = set(re.findall(r"^\w+ (MPI_\w+)\(", (GENERATED / "mpi_prototypes.h").read_text(),
                                re.MULTILINE))
    implemented = set(re.findall(r"^(?:int|double|MPI_[A-Za-z]+) (MPI_\w+)\(",
                                 (SERIAL / "serial_mpi.c").read_text(), re.MULTILINE))
    stubs = re.findall(r"^\w+ (MPI_\w+)\(", (GENERATED / "unavailable.c").read_text(), re.MULTILINE)
    assert len(prototypes) == 690
    assert {"MPI_Init", "MPI_Allreduce", "MPI_Comm_split_type", "MPI_Wtime"} <= implemented
    assert len(stubs) == len(set(stubs)) and not implemented & set(stubs)
    assert implemented | set(stubs) == prototypes
