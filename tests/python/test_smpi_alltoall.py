"""The Alltoall lab's leader schemes on a simulated cluster: their set-up
gathers every rank's node under SMPI by point-to-point messages and a
Bcast (mpiscope__allgather, src/engine/gather.c), not SMPI's own
MPI_Allgather, whose cost grows far faster than p^2 (minutes a point at
160 ranks). Nodes of unequal size (8 + 4 ranks of cluster-8x8) make a
wrong node map move blocks to the wrong ranks, which --validate finds."""

from __future__ import annotations

from pathlib import Path

from test_smpi import document, mpiscope, needs_smpi


@needs_smpi
def test_leader_schemes_validate_on_unequal_simulated_nodes(tmp_path: Path) -> None:
    ops = "alltoall_one_leader,alltoall_m_leader,alltoall_plp"
    proc = mpiscope("run", ops, "--np", "12", "--launcher", "smpi", "--platform", "cluster-8x8",
                    "--sizes", "8,1K", "--validate", "--out", "r.json", "--quiet",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = document(tmp_path / "r.json")
    assert doc["environment"]["simulated"] is True
    assert doc["environment"]["nodes"] == 2
    points = doc["points"]
    assert {(p["op"], p["size_bytes"]) for p in points} == {
        (op, size) for op in ops.split(",") for size in (8, 1024)
    }
    for p in points:
        assert p["validation"]["launches_checked"] > 0, p["op"]
        assert p["validation"]["failures"] == 0, (p["op"], p["size_bytes"])
