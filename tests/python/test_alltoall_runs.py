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
    forced = next(r for r in doc["launches"] if r["purpose"] == "native:brucks")
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
