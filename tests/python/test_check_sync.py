"""``mpiscope check --sync``: the comparison of sync algorithms (the
columns, the verdict on an injected truth) and the choice of algorithms,
from recorded check documents (no MPI)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from mpiscope.reports.check import SYNC_CRITERIA, check_lines, verdicts
from mpiscope.result import Result
from mpiscope_fakes import FAKE_CHECK, run_cli

#: What the bench writes for one algorithm against an injected transform
#: (test_fixture_shapes.py checks its fields against a real `check --sync`).
TREE: dict[str, Any] = {
    "algorithm": "tree", "duration_ns": 3.28e8, "max_abs_residual_ns": 0.4,
    "after_seconds": 1, "max_abs_residual_after_ns": 2.5, "drift_ppm": 0.002,
    "exchanges": 29036, "fitpoints": 4, "max_hops": 6, "nodes": 64, "node_shared": False,
    "max_error_ns": 31100, "max_drift_error_ppm": 228, "max_abs_drift_fitted_ppm": 56.2,
    "recovered": True, "max_offset_miss_ns": 0.122, "max_drift_miss_ppm": 0.002,
}  # fmt: skip


def check_with(*syncs: dict[str, Any]) -> dict[str, Any]:
    check: dict[str, Any] = copy.deepcopy(FAKE_CHECK)
    check["sync"] = list(syncs)
    return check


def test_the_comparison_columns() -> None:
    doc = {"schema_version": "1.4", "check": check_with(TREE)}
    lines = check_lines(Result(doc, Path("check.json")))
    head = next(line for line in lines if line.startswith("clock sync"))
    for title in ("sync time", "exchanges", "hops", "bound", "max |residual|", "drift fitted",
                  "injected truth recovered"):  # fmt: skip
        assert title in head
    row = next(line for line in lines if line.startswith("tree"))
    assert row.split()[:8] == ["tree", "328", "ms", "29036", "6", "31.1", "us", "0.4"]
    assert "yes (miss 0.122 ns" in row and "56.2 ppm ±228" in row


def test_a_missed_truth_is_not_trusted() -> None:
    missed = dict(TREE, recovered=False, max_offset_miss_ns=45000.0)
    assert "recovered" in [c.name for c in SYNC_CRITERIA]
    (tree,) = [v for v in verdicts(check_with(missed)) if v.subject == "sync tree"]
    assert not tree.trusted
    assert any("outside its reported bound of the injected truth" in r for r in tree.reasons)
    assert "45 us" in tree.line
    (fine,) = [v for v in verdicts(check_with(TREE)) if v.subject == "sync tree"]
    assert fine.trusted  # residual 0.4 ns, drift seen 0.002 ppm, truth recovered


def test_unknown_algorithm_is_one_line(tmp_path: Path) -> None:
    run = run_cli(["check", "--sync", "linear,bogus"], None, tmp_path)
    assert run.code == 2
    assert run.err_lines == [
        "mpiscope: error: argument --sync: unknown clock sync algorithm 'bogus' "
        "(all, linear, ring, tree); see mpiscope check --help"
    ]
