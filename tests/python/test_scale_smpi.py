"""The engine beyond 64 ranks, on the simulator (SimGrid SMPI,
deterministic): what breaks only at scale.

bcast-supinski visits the n-1 non-root ranks in a cycle; a stage holds at
most 64 launches (rank 0 gathers every rank's times of a stage), so beyond
65 ranks a cycle spans stages. Before, the method planned a whole cycle
per stage, the stage loop dropped it, and the point came out empty (the
bench wrote a document the schema refuses).
"""

from __future__ import annotations

import json
from pathlib import Path

from test_smpi import mpiscope, needs_smpi


@needs_smpi
def test_supinski_beyond_a_stage_of_launches(tmp_path: Path) -> None:
    out = tmp_path / "supinski.json"
    n = 70  # 69 acknowledging ranks: a cycle is more than one stage of 64 launches
    run = mpiscope(
        "run", "bcast", "--method", "bcast-supinski", "--np", str(n), "--sizes", "8",
        "--max-launches", "300", "--launcher", "smpi", "--platform", "flat-1024",
        "--out", str(out), "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    point = json.loads(out.read_text())["points"][0]
    assert point["method"] == "bcast-supinski"
    # every launch recorded, one sample per whole cycle of 69 launches
    assert point["launches_total"] == point["launches_valid"] >= 2 * (n - 1)
    assert point["samples"] == point["launches_total"] // (n - 1)
    assert point["median_ns"] > 0
