"""The seed's bias of the classic loop (measurement.md section 1, point 6):
a linear broadcast timed with the IMB/OSU loop (method ``barrier``, k
launches back to back) reads rank i's time r_i(n,k) = ((n-1)(k-1)+i)/(ik)
times its true time, which the window method reads.

The formula and the report's bookkeeping are checked on their own; the
measured ratios on the simulator (SimGrid SMPI, deterministic to the last
digit), where 1% separates the formula from its plausible mistakes: a k
off by one, i counted from the wrong end, or a missing 1/i each move some
rank's ratio by 15% or more at n = 4, k = 2..4.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mpiscope.reports.method_compare import bias_lines, bias_rows, shown_ranks
from mpiscope.result.methods import LOOP_BIAS, linear_loop_ratio, linear_loop_ratio_of_times
from test_smpi import mpiscope, needs_smpi

TOLERANCE = 0.01  # relative; the simulator reads within 0.3% at n = 4


def test_the_formula_by_hand() -> None:
    assert linear_loop_ratio(4, 4, 1) == 2.5  # the seed's example
    assert LOOP_BIAS["linear_bcast"](4, 4, 1) == 2.5  # the op's registered loop bias
    assert linear_loop_ratio(4, 4, 2) == pytest.approx(11 / 8)
    assert linear_loop_ratio(16, 2, 3) == pytest.approx(18 / 6)
    assert all(linear_loop_ratio(64, 1, i) == 1 for i in range(1, 64))  # one launch: no bias
    assert all(linear_loop_ratio(n, k, n - 1) == 1 for n in (2, 4, 64) for k in (1, 5))
    for bad in ((4, 4, 0), (4, 4, 4), (4, 0, 1)):
        with pytest.raises(ValueError):
            linear_loop_ratio(*bad)
    # from the true times it is the same when every send costs one c ...
    assert linear_loop_ratio_of_times(2.0, 3.0, 4) == pytest.approx(linear_loop_ratio(4, 4, 2))
    # ... and follows the times when they do not: t_1 = 1, t_3 = 21 (far ranks)
    assert linear_loop_ratio_of_times(1.0, 21.0, 2) == pytest.approx((21 + 1) / 2)
    with pytest.raises(ValueError):
        linear_loop_ratio_of_times(0.0, 1.0, 2)


def _point(method: str, means: list[float], root: int = 0) -> dict[str, Any]:
    return {
        "op": "linear_bcast", "method": method, "size_bytes": 65536, "nprocs": len(means),
        "root": root, "cache": "cold",
        "per_rank": [{"rank": r, "mean_ns": m} for r, m in enumerate(means)],
    }  # fmt: skip


def test_bias_rows_count_ranks_from_the_root() -> None:
    # root 1 of 4: rank 2 is i = 1, rank 3 is i = 2, rank 0 is i = 3
    window = _point("window", [300.0, 300.0, 100.0, 200.0], root=1)
    loop = _point("barrier", [300.0, 300.0, 250.0, 275.0], root=1)
    no_baseline = {**_point("barrier", [1.0] * 4), "size_bytes": 8}
    rows = bias_rows([window, loop, no_baseline], k=4)
    assert [(row.i, row.measured, row.formula) for row in rows] == [
        (1, 2.5, 2.5), (2, 1.375, 1.375), (3, 1.0, 1.0),
    ]  # fmt: skip
    assert all(row.error == 0 and row.of_times == row.formula for row in rows)
    text = "\n".join(bias_lines(rows))
    assert "2.500x    2.500x  +0.00%" in text


def test_large_runs_show_some_ranks_and_the_worst() -> None:
    n = 64
    window = _point("window", [float(n - 1)] + [float(i) for i in range(1, n)])
    loop = _point("barrier", [float(n - 1)] + [linear_loop_ratio(n, 8, i) * i for i in range(1, n)])
    loop["per_rank"][32]["mean_ns"] *= 1.1  # one rank 10% off
    lines = bias_lines(bias_rows([window, loop], k=8))
    assert len(lines) == 2 + 2 + len(shown_ranks(n)) + 1
    assert lines[-1].endswith("all 63 ranks, largest error +10.00% (i = 32)")


@needs_smpi
def test_links_of_two_kinds_follow_the_times(tmp_path: Path) -> None:
    """16 ranks on two 8-core nodes of cluster-8x8: the root's sends to its
    own node are 15 times cheaper than the others, t_i is not i c and
    r_i(n,k) misses by up to 7x; the ratio from the window's t_i still holds."""
    out = tmp_path / "bias16.json"
    run = mpiscope(
        "methods", "linear_bcast", "--method", "barrier", "--k", "8", "--np", "16",
        "--sizes", "64K", "--launcher", "smpi", "--platform", "cluster-8x8", "--out", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    rows = bias_rows(doc["points"], k=8)
    assert len(rows) == 15 and max(abs(row.error or 0) for row in rows) > 5
    for row in rows:
        assert row.measured == pytest.approx(row.of_times, rel=TOLERANCE), row


@needs_smpi
@pytest.mark.parametrize(("k", "root"), [(2, 0), (3, 1), (4, 0)])
def test_the_loop_follows_r_i_on_the_simulator(tmp_path: Path, k: int, root: int) -> None:
    out = tmp_path / "bias.json"
    run = mpiscope(
        "methods", "linear_bcast", "--method", "barrier", "--k", str(k), "--root", str(root),
        "--np", "4", "--sizes", "64K", "--launcher", "smpi", "--platform", "cluster-8x8",
        "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "r_i(n,k) = ((n-1)(k-1)+i)/(ik)" in run.stdout
    doc = json.loads(out.read_text())
    rows = bias_rows(doc["points"], k=doc["method"]["k"])
    assert doc["method"]["k"] == k and [row.i for row in rows] == [1, 2, 3]
    for row in rows:
        expected = ((4 - 1) * (k - 1) + row.i) / (row.i * k)
        assert row.measured == pytest.approx(expected, rel=TOLERANCE), row
