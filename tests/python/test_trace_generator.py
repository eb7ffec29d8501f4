"""The tracer's wrappers: generated from the MPI standard (pympistandard),
checked in, reproducible, and built for each MPI with what it has."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trace_helpers import ROOT, tracer_lib

GENERATOR = ROOT / "tools" / "gen_tracer_wrappers.py"
GENERATED = ROOT / "src" / "tracer" / "generated"


def test_generated_sources_are_reproducible() -> None:
    pytest.importorskip("pympistandard")
    proc = subprocess.run([sys.executable, str(GENERATOR), "--check", "--out", str(GENERATED)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_check_notices_a_stale_file(tmp_path: Path) -> None:
    pytest.importorskip("pympistandard")
    out = tmp_path / "generated"
    shutil.copytree(GENERATED, out)
    (out / "wrappers_p2p.c").write_text("/* edited by hand */\n")
    proc = subprocess.run([sys.executable, str(GENERATOR), "--check", "--out", str(out)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "wrappers_p2p.c" in proc.stderr


def test_whole_api_is_covered() -> None:
    ids = (GENERATED / "trace_functions.h").read_text()
    names = {line.split()[1][len("MPISCOPE_TRACE_FN_"):] for line in ids.splitlines()
             if line.startswith("#define MPISCOPE_TRACE_FN_MPI_")}
    assert len(names) == 690  # MPI 5.0's C functions, large-count variants included
    for name in ("MPI_Send", "MPI_Send_c", "MPI_Init_thread", "MPI_Session_init",
                 "MPI_Comm_create_from_group", "MPI_Alltoallw_c", "MPI_Waitsome", "MPI_Pcontrol"):
        assert name in names
    wrappers = "".join(p.read_text() for p in GENERATED.glob("wrappers_*.c"))
    assert wrappers.count("\n{\n") == 690  # one wrapper each, none by hand
    assert "return PMPI_Send(buf, count, datatype, dest, tag, comm);" in wrappers


def _exported(lib: str) -> set[str]:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is needed to list the library's symbols")
    out = subprocess.run([nm, "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


@pytest.mark.mpi
def test_each_mpi_gets_the_functions_it_has() -> None:
    mpich, openmpi = _exported(tracer_lib("mpich")), _exported(tracer_lib("openmpi"))
    assert all(s.startswith("MPI_") for s in mpich | openmpi)  # nothing else exported
    assert {"MPI_Send_c", "MPI_Session_init", "MPI_Init_thread"} <= mpich
    assert "MPI_Send" in openmpi and "MPI_Send_c" not in openmpi  # Open MPI 5.0: no large count
    assert len(mpich) > 650 and len(openmpi) > 400
