"""Real short runs of ``mpiscope alltoall`` with MPICH (2 ranks, tiny sizes):
the tuning proof against the real library, compare, and check. No timing
threshold: the assertions are about what was run, chosen and written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from alltoall_helpers import compare_doc
from mpiscope.result.alltoall import load_alltoall
from real_bench import mpiscope

pytestmark = pytest.mark.mpi


def test_mpich_follows_the_tuned_tree_and_a_broken_range_fails_only_there(
    tmp_path: Path,
) -> None:
    """The file chooses brucks up to 512 B and pairwise above for 2 ranks;
    replacing one range by an algorithm that cannot run a plain Alltoall
    must abort exactly at the sizes of that range. A library that ignored
    the file (or a tree whose comm_size<2 branch caught 2 ranks, as
    MPICH 5.0.2 does) fails this test."""
    doc = tmp_path / "a2a.json"
    doc.write_text(json.dumps(compare_doc(nprocs=2, nodes=1)))
    tuned = tmp_path / "tuned.json"
    made = mpiscope("alltoall", "tune", str(doc), "--format", "mpich", "-o", str(tuned),
                    cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    tree = json.loads(tuned.read_text())
    assert "collective=barrier" in tree  # the whole tree, not only alltoall
    proof = mpiscope("alltoall", "tune", "--check", str(tuned), cwd=tmp_path, timeout=300)
    assert proof.returncode == 0, proof.stdout + proof.stderr
    assert proof.stdout.count(" ok ") == 6 and "WRONG" not in proof.stdout
    assert proof.stdout.count("sendbuf == MPI_IN_PLACE") == 2


def test_the_proof_fails_for_a_file_the_library_does_not_follow(tmp_path: Path) -> None:
    """The library's own tree with a tuned branch it never reaches (put after
    comm_size=any): the broken ranges do not fail, so the proof says WRONG."""
    doc = tmp_path / "a2a.json"
    doc.write_text(json.dumps(compare_doc(nprocs=2, nodes=1)))
    tuned = tmp_path / "tuned.json"
    assert mpiscope("alltoall", "tune", str(doc), "--format", "mpich", "-o", str(tuned),
                    cwd=tmp_path).returncode == 0  # fmt: skip
    tree = json.loads(tuned.read_text())
    branch = tree["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=no"]
    ours = branch.pop("comm_size<=2")
    branch["comm_size<=2"] = ours  # now after comm_size=any: never reached
    tuned.write_text(json.dumps(tree))
    proof = mpiscope("alltoall", "tune", "--check", str(tuned), cwd=tmp_path, timeout=300)
    assert proof.returncode == 1
    assert "WRONG" in proof.stdout and "does not follow" in proof.stderr


def test_compare_two_ranks_writes_one_document(tmp_path: Path) -> None:
    out = tmp_path / "a2a.json"
    proc = mpiscope("alltoall", "compare", "--np", "2", "--sizes", "8,512", "--out", str(out),
                    "--max-point-seconds", "1", "--quiet", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = load_alltoall(out)
    names = {v["name"] for v in doc["variants"]}
    assert {"native", "native:brucks", "native:pairwise", "bruck", "pairwise"} <= names
    assert [w["size_bytes"] for w in doc["winners"]] == [8, 512]
    assert all(w["winner"] in names for w in doc["winners"])
    assert len(doc["hockney"]["inter"]["segments"]) == 2
    assert doc["simulated"] is False
    forced = next(r for r in doc["runs"] if r["purpose"] == "native:brucks")
    assert forced["env"]["MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"] == "brucks"
    # the per-size table: sizes as rows, the library's default the first column
    header = next(line for line in proc.stdout.splitlines() if line.startswith("size "))
    assert header.split()[:2] == ["size", "native"] and header.split()[-1] == "speed-up"


def test_check_two_ranks(tmp_path: Path) -> None:
    proc = mpiscope("alltoall", "check", "--np", "2", "--sizes", "0,7,64", "--quiet",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = proc.stdout.split("\n\n")[-1]
    assert "bruck" in table and "MISMATCH" not in table


def test_the_command_is_registered() -> None:
    proc = subprocess.run([sys.executable, "-m", "mpiscope", "alltoall", "--help"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0 and "compare" in proc.stdout


def _openmpi(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", *args, "--mpi", "openmpi"], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip


def test_open_mpi_follows_a_rules_file_of_two_ranges(tmp_path: Path) -> None:
    """Open MPI itself proves it reads the rules file mpiscope writes (not our
    parser: the library runs the algorithm of each range, and the one a
    broken range names fails there only): algorithm 3 up to 64 B per
    destination, 2 above, for 2 ranks."""
    from mpiscope.alltoall import tune

    rules = tmp_path / "rules.txt"
    rules.write_text(tune.openmpi_rules({2: [(64, "3"), (None, "2")]}))
    proof = _openmpi("alltoall", "tune", "--check", str(rules), cwd=tmp_path)
    assert proof.returncode == 0, proof.stdout + proof.stderr
    written = [line for line in proof.stdout.splitlines() if "as written" in line]
    assert [line.split()[1] for line in written] == ["64", "65"]  # one size inside each range
    assert all(" ok " in line for line in written)
    assert proof.stdout.count(" ok ") == 2 + 2 * 2 and "WRONG" not in proof.stdout
    assert "MPI_ERR_ARG" in proof.stdout  # the broken range failed, in Open MPI's words


def test_compare_tune_and_proof_on_open_mpi(tmp_path: Path) -> None:
    """What a user of Open MPI does: compare its algorithms, write the rules
    file for the winners, and let Open MPI prove it follows it."""
    compare = _openmpi("alltoall", "compare", "--np", "2", "--sizes", "8,4096",
                       "--max-point-seconds", "1", "--out", "a2a.json", "--quiet",
                       cwd=tmp_path)  # fmt: skip
    assert compare.returncode == 0, compare.stderr
    made = _openmpi("alltoall", "tune", "a2a.json", "--format", "openmpi", "-o", "rules.txt",
                    cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "rules.txt").read_text().startswith("rule-file-version-2\n")
    proof = _openmpi("alltoall", "tune", "--check", "rules.txt", cwd=tmp_path)
    assert proof.returncode == 0, proof.stdout + proof.stderr
    assert "proved: openmpi reads rules.txt" in proof.stdout and "WRONG" not in proof.stdout
