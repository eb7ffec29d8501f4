"""Timing methods: option checks, the bench's command line, the bookkeeping of
``mpiscope methods`` (ratios to the window method) and the report columns
that appear when methods, cache modes or arrival patterns vary."""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.measure.method_options import (
    Arrival,
    check_method_options,
    methods_for_ops,
    parse_arrival,
    parse_cache_modes,
    parse_methods,
)
from mpiscope.reports.method_compare import BARRIER_VIEWS as BARRIER_VIEWS_SHOWN
from mpiscope.reports.method_compare import method_rows, ratio
from mpiscope.reports.report import render_report
from mpiscope.result import Result, load_result, validate_result
from mpiscope.result.methods import METHODS
from mpiscope_fakes import BARRIER_VIEWS, METHOD_FACTORS, FakeMpi, run_cli
from real_bench import mpiscope, read

ALL = list(METHODS)
QUICK = ["--max-launches", "48", "--min-valid", "4", "--max-point-seconds", "5"]


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("  ") if cell.strip()]


# --- option parsing ----------------------------------------------------------------


def test_method_names() -> None:
    assert ALL == [
        "window", "roundtime", "barrier", "barrier-each", "none", "root", "max", "global",
        "bcast-supinski",
    ]  # fmt: skip
    assert parse_methods("Window, barrier-each") == ["window", "barrier-each"]
    with pytest.raises(argparse.ArgumentTypeError, match="did you mean 'barrier'"):
        parse_methods("barier")
    with pytest.raises(argparse.ArgumentTypeError, match="appears twice"):
        parse_methods("max,max")
    with pytest.raises(argparse.ArgumentTypeError, match="empty name"):
        parse_methods("window,")


def test_cache_modes() -> None:
    assert parse_cache_modes("cold") == ["cold"]
    assert parse_cache_modes("WARM,cold") == ["warm", "cold"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown cache mode 'hot'"):
        parse_cache_modes("hot")


@pytest.mark.parametrize(
    ("text", "arrival", "spec_text"),
    [
        ("none", Arrival("none"), "none"),
        ("late:1:100", Arrival("late", 100.0, rank=1), "late:1:100"),
        ("LATE:0:2.5", Arrival("late", 2.5, rank=0), "late:0:2.5"),
        ("linear:10", Arrival("linear", 10.0), "linear:10"),
        ("random:50", Arrival("random", 50.0), "random:50"),
        ("random:50:7", Arrival("random", 50.0, seed=7), "random:50:7"),
    ],
)
def test_arrival_specs(text: str, arrival: Arrival, spec_text: str) -> None:
    assert parse_arrival(text) == arrival
    assert arrival.text == spec_text


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("lat:1:100", "did you mean 'late'"),
        ("late:100", "expected late:RANK:US"),
        ("late:-1:100", "RANK must be a whole number >= 0"),
        ("linear:fast", "US must be a number of microseconds"),
        ("linear:-3", "US must be a number of microseconds"),
        ("random:20000000", "US must be a number of microseconds in [0, 10000000]"),
        ("random:5:x", "SEED must be a whole number"),
        ("none:3", "expected none"),
    ],
)
def test_bad_arrival_specs(text: str, fragment: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as info:
        parse_arrival(text)
    assert fragment in str(info.value)


def test_methods_that_apply() -> None:
    assert methods_for_ops(["bcast", "allreduce"]) == ALL
    assert methods_for_ops(["allreduce", "barrier"]) == ALL[:-1]
    assert methods_for_ops(["BCAST"], ["bcast-supinski", "max"]) == ["bcast-supinski", "max"]


def test_options_that_need_each_other() -> None:
    check_method_options(["bcast", "allreduce"], ALL, parse_arrival("late:1:5"), 2000.0, 2)
    with pytest.raises(MpiscopeError, match="bcast-supinski applies only to bcast"):
        check_method_options(["allreduce"], ["bcast-supinski"], None, None, 2)
    with pytest.raises(MpiscopeError, match="--window-ns applies to the window method"):
        check_method_options(["bcast"], ["barrier"], None, 1000.0, 2)
    with pytest.raises(MpiscopeError, match=r"--arrival applies to the scheduled methods"):
        check_method_options(["bcast"], ["barrier", "max"], parse_arrival("linear:1"), None, 2)
    with pytest.raises(MpiscopeError, match="rank 2 is not a rank of a 2-process run"):
        check_method_options(["bcast"], ["window"], parse_arrival("late:2:1"), None, 2)
    check_method_options(["bcast"], ["barrier"], parse_arrival("none"), None, 2)


# --- the bench's command line --------------------------------------------------------


def test_run_passes_the_method_options(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(
        ["run", "bcast", "--sizes", "8", "--method", "window,Barrier", "--gap-ns", "1500",
         "--window-ns", "20000", "--arrival", "late:1:100", "--cache", "cold,warm",
         "--out", "r.json"],
        fake_mpi.env,
        tmp_path,
    )  # fmt: skip
    assert run.code == 0, run
    plan = fake_mpi.bench_plan()
    assert plan["methods"] == ["window", "barrier"]
    assert plan["gap_ns"] == 1500.0
    assert plan["window_ns"] == 20000.0
    assert plan["arrival"] == {"kind": "late", "rank": 1, "us": 100.0}
    assert plan["cache"] == ["cold", "warm"]
    assert "shuffle" not in plan
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [(p["method"], p["cache"]) for p in doc["points"]] == [
        ("window", "cold"), ("window", "warm"), ("barrier", "cold"), ("barrier", "warm"),
    ]  # fmt: skip
    # the table shows what varies, and the comparison of the methods
    out = run.stdout.splitlines()
    title = next(line for line in out if line.startswith("op "))
    assert cells(title)[:4] == ["op", "size", "method", "cache"]
    assert "gap med" in title and "arrival" not in title  # the same arrival everywhere
    assert any(line.startswith("methods compared") for line in out)


def test_run_without_method_options_passes_none(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "8", "--out", "r.json"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    plan = fake_mpi.bench_plan()
    for field in ("methods", "gap_ns", "window_ns", "arrival", "shuffle"):
        assert field not in plan
    assert plan["cache"] == ["cold"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--method", "windw"], "argument --method: unknown method 'windw' (did you mean"),
        (["--method", "barrier", "--window-ns", "5000"], "--window-ns applies to the window"),
        (["--arrival", "late:5:10"], "rank 5 is not a rank of a 2-process run"),
        (["--arrival", "sideways"], "argument --arrival: unknown arrival pattern 'sideways'"),
        (["--method", "max", "--arrival", "linear:3"], "--arrival applies to the scheduled"),
        (["--cache", "cold,cold"], "argument --cache: bad cache mode list"),
        (["--gap-ns", "-1"], "argument --gap-ns: must be in [0, 1e+12], not -1"),
        (["--window-ns", "0"], "argument --window-ns: must be in (0, 1e+12], not 0"),
        (["--runs", "0"], "argument --runs: must be at least 1"),
    ],
)
def test_bad_method_options(
    fake_mpi: FakeMpi, tmp_path: Path, args: list[str], fragment: str
) -> None:
    run = run_cli(["run", "allreduce", *args], fake_mpi.env, tmp_path)
    assert run.code == 2, run
    assert len(run.err_lines) == 1 and run.err_lines[0].startswith("mpiscope: error: ")
    assert fragment in run.err_lines[0], run.err_lines
    assert not fake_mpi.bench_log.exists()


def test_supinski_with_other_ops_is_refused(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "allreduce", "--method", "bcast-supinski"], fake_mpi.env, tmp_path)
    assert run.code == 2
    assert run.err_lines == [
        "mpiscope: error: method bcast-supinski applies only to bcast, bcast_c, linear_bcast, "
        "which is not among the operations allreduce"
    ]


# --- the ratio bookkeeping ---------------------------------------------------------


def point(op: str, size: int | None, method: str | None, median: float | None,
          **extra: Any) -> dict[str, Any]:  # fmt: skip
    p: dict[str, Any] = {"op": op, "size_bytes": size, "nprocs": 2, "median_ns": median,
                         "mean_ns": median, "error_ns": 1.0, **extra}  # fmt: skip
    if method is not None:
        p["method"] = method
    return p


def test_ratio() -> None:
    assert ratio(300.0, 100.0) == 3.0
    assert ratio(None, 100.0) is None
    assert ratio(5.0, None) is None
    assert ratio(5.0, 0.0) is None


def test_method_rows_ratios_and_order() -> None:
    points = [
        point("bcast", 1024, "barrier", 250.0, views={"rank0_ns": 100.0}),
        point("bcast", 8, "max", 300.0),
        point("barrier", None, "none", 50.0),
        point("bcast", 8, "window", 200.0),
        point("bcast", 1024, None, 500.0),  # no method: the document's (window)
        point("barrier", None, "window", 0.0),
        point("bcast", 8, "mystery", 100.0),
    ]
    rows = method_rows(points, default_method="window", default_cache="cold")
    got = [(r.op, r.size_bytes, r.method, r.ratio) for r in rows]
    assert got == [
        ("bcast", 8, "window", 1.0),
        ("bcast", 8, "max", 1.5),
        ("bcast", 8, "mystery", 0.5),  # unknown methods last
        ("bcast", 1024, "window", 1.0),
        ("bcast", 1024, "barrier", 0.5),
        ("barrier", None, "window", None),  # a zero baseline gives no ratio
        ("barrier", None, "none", None),
    ]
    assert rows[4].views == {"rank0_ns": 100.0}
    assert rows[4].window_median_ns == 500.0
    assert {r.cache for r in rows} == {"cold"}


def test_baseline_is_the_window_point_of_the_same_cache_arrival_and_run() -> None:
    points = [
        point("bcast", 8, "window", 100.0, cache="cold"),
        point("bcast", 8, "window", 50.0, cache="warm"),
        point("bcast", 8, "barrier", 200.0, cache="cold"),
        point("bcast", 8, "barrier", 200.0, cache="warm"),
        point("bcast", 8, "window", 400.0, cache="cold", run=1),
        point("bcast", 8, "barrier", 200.0, cache="cold", run=1),
        point("bcast", 8, "roundtime", 10.0, cache="cold", arrival_ns=[0.0, 5.0]),
    ]
    rows = method_rows(points)
    got = {(r.method, r.cache, r.ratio) for r in rows}
    assert ("barrier", "cold", 2.0) in got and ("barrier", "warm", 4.0) in got
    assert ("barrier", "cold", 0.5) in got  # run 1 against run 1's window
    assert ("roundtime", "cold", None) in got  # no window point with that arrival


def test_firstcall_points_are_not_compared() -> None:
    rows = method_rows([point("bcast", 8, "window", 1.0), {"op": "bcast", "kind": "firstcall",
                        "size_bytes": 8, "nprocs": 2}])  # fmt: skip
    assert len(rows) == 1


# --- mpiscope methods, end to end with the fake bench ----------------------------------


def test_methods_runs_every_method_interleaved(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(
        ["methods", "bcast,allreduce", "--sizes", "8", "--out", "m.json", "--quiet"],
        fake_mpi.env,
        tmp_path,
    )
    assert run.code == 0, run
    calls = fake_mpi.all_bench_plans()
    assert len(calls) == 1  # one run: the methods see the same machine state
    assert calls[0]["methods"] == ALL
    out = run.stdout.splitlines()
    start = out.index(next(line for line in out if line.startswith("methods compared")))
    table = [cells(line) for line in out[start + 1 :] if line and not line.startswith("-")]
    rows = table[1 : table.index(next(r for r in table if r[0].startswith("barrier method")))]
    assert table[0] == ["op", "size", "method", "median", "mean ± E(95%)", "vs window",
                        "gap med", "flags"]  # fmt: skip
    bcast = {r[2]: r for r in rows if r[0] == "bcast"}
    allreduce = {r[2]: r for r in rows if r[0] == "allreduce"}
    assert list(bcast) == ALL and list(allreduce) == ALL[:-1]
    for name, factor in METHOD_FACTORS.items():
        assert bcast[name][5] == f"{factor:.2f}x"
    assert bcast["window"][3] == "810 ns" and bcast["barrier"][3] == "405 ns"
    assert bcast["window"][4] == "812 ± 11 ns"
    assert bcast["roundtime"][6] == "10 ns"  # the measured gap is shown
    views = out[out.index(next(line for line in out if line.startswith("barrier method"))) + 1 :]
    titles = cells(views[0])
    assert titles == ["op", "size", "rank 0", "mean over ranks", "max of per-rank means",
                      "per-launch max", "window median"]  # fmt: skip
    bcast_views = cells(next(line for line in views if line.startswith("bcast")))
    barrier = 810 * METHOD_FACTORS["barrier"]
    assert bcast_views[2:] == [
        f"{barrier * f:.0f} ns ({barrier * f / 810:.2f}x)" for f in BARRIER_VIEWS.values()
    ] + ["810 ns"]
    assert out[-1] == f"result: {tmp_path / 'm.json'}"
    doc = load_result(tmp_path / "m.json")
    assert doc.data["methods"] == ALL
    assert len(doc.points) == 17
    # `mpiscope report` shows every point, then the same comparison
    report = run_cli(["report", "m.json"], fake_mpi.env, tmp_path)
    assert report.code == 0 and "methods compared" in report.stdout
    assert "bcast-supinski" in report.stdout


def test_methods_always_compares_with_window(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(
        ["methods", "allreduce", "waitpattern_up", "--method", "barrier,max", "--sizes", "8",
         "--out", "m.json"],
        fake_mpi.env,
        tmp_path,
    )  # fmt: skip
    assert run.code == 0, run
    assert fake_mpi.bench_plan()["methods"] == ["window", "barrier", "max"]
    assert fake_mpi.bench_plan()["ops"] == ["allreduce", "waitpattern_up"]


def test_methods_refuses_before_launching(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text("{}")
    run = run_cli(["methods", "bcast", "--out", "m.json"], fake_mpi.env, tmp_path)
    assert run.code == 2 and run.err_lines == ["mpiscope: error: m.json exists (use --force to "
                                                "overwrite)"]  # fmt: skip
    run = run_cli(["methods", "bcast", "--method", "fastest"], fake_mpi.env, tmp_path)
    assert run.code == 2 and "unknown method 'fastest'" in run.err_lines[0]
    assert not fake_mpi.bench_log.exists()


# --- report columns --------------------------------------------------------------------


def render(doc: dict[str, Any], per_rank: bool = False) -> str:
    validate_result(doc)
    return render_report(Result(doc), per_rank=per_rank)


def title_cells(text: str) -> list[str]:
    return cells(next(line for line in text.splitlines() if line.startswith("op ")))


def test_columns_appear_only_when_they_vary(sample_doc: dict[str, Any]) -> None:
    base = sample_doc["points"][0]
    assert "method" not in title_cells(render(sample_doc))
    variants = []
    for method, cache, arrival in [("window", "cold", None), ("max", "cold", None),
                                   ("window", "warm", "late:1:100")]:  # fmt: skip
        p = copy.deepcopy(base)
        p.update(method=method, cache=cache, arrival=arrival, gap={"median_ns": 12.0,
                 "min_ns": 10.0})  # fmt: skip
        variants.append(p)
    sample_doc["points"] = variants
    text = render(sample_doc)
    titles = title_cells(text)
    assert titles[:5] == ["op", "size", "method", "cache", "arrival"]
    assert "gap med" in titles and "run" not in titles
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("op ")))
    table = lines[start + 2 : lines.index("", start)]
    rows = [cells(line) for line in table]
    assert [r[2:5] for r in rows] == [["window", "cold", "-"], ["max", "cold", "-"],
                                      ["window", "warm", "late:1:100"]]  # fmt: skip
    gap = titles.index("gap med")
    assert {r[gap] for r in rows} == {"12.0 ns"}


def test_arrival_offsets_from_the_bench_are_shown(sample_doc: dict[str, Any]) -> None:
    late = copy.deepcopy(sample_doc["points"][0])
    late["arrival_ns"] = [0.0, 100000.0]
    sample_doc["points"].append(late)
    text = render(sample_doc)
    assert "arrival" in title_cells(text)
    assert "late 0/100 us" in text


def test_per_rank_rows_show_how_late_each_rank_started(sample_doc: dict[str, Any]) -> None:
    p = sample_doc["points"][0]
    p["raw"] = {
        "valid": [True, True, True, False],
        "time_ns": [800.0, 810.0, 820.0, 9000.0],
        "start_ns": [[0.0, 40.0], [1000.0, 1020.0], [2030.0, 2000.0], [3000.0, 9000.0]],
        "end_ns": [[700.0, 840.0], [1700.0, 1830.0], [2800.0, 2820.0], [3700.0, 9900.0]],
    }
    text = render(sample_doc, per_rank=True)
    lines = text.splitlines()
    title = next(line for line in lines if line.startswith("op "))
    end = title.index("skew med") + len("skew med")  # a right-aligned column ends here
    ranks = [line[:end].rsplit("  ", 1)[-1].strip() for line in lines if line.startswith("  rank")]
    # rank 0: 0, 0, 30 -> 0; rank 1: 40, 20, 0 -> 20 (the invalid launch is left out)
    assert ranks == ["0 ns", "20.0 ns"]
    assert "how late the rank started" in text


# --- the real bench --------------------------------------------------------------------


@pytest.mark.mpi
def test_real_methods_side_by_side(tmp_path: Path) -> None:
    run = mpiscope("methods", "bcast,barrier,allreduce", "--np", "2", "--sizes", "8,4K",
                   *QUICK, "--out", "m.json", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    doc = read(tmp_path / "m.json")
    load_result(tmp_path / "m.json")  # valid against the schema
    assert doc["methods"] == ALL
    seen = {(p["op"], p.get("size_bytes"), p["method"]) for p in doc["points"]}
    for op, sizes in (("bcast", (8, 4096)), ("allreduce", (8, 4096)), ("barrier", (None,))):
        for size in sizes:
            for name in methods_for_ops([op]):
                assert (op, size, name) in seen, (op, size, name)
    assert not any(p["op"] != "bcast" and p["method"] == "bcast-supinski" for p in doc["points"])
    for p in doc["points"]:
        assert p["cache"] == "cold"
        assert "gap" in p
        assert ("window" in p) == (p["method"] == "window")
        if p["method"] == "barrier":
            assert set(p["views"]) == {key for key, _ in BARRIER_VIEWS_SHOWN}
    rows = method_rows(doc["points"])
    assert {r.ratio for r in rows if r.method == "window" and r.median_ns} == {1.0}
    out = run.stdout
    assert "methods compared" in out and "barrier method (IMB/OSU loop)" in out


@pytest.mark.mpi
def test_real_arrival_gap_and_both_caches(tmp_path: Path) -> None:
    run = mpiscope("run", "bcast", "--np", "2", "--sizes", "64", "--method", "window,roundtime",
                   "--arrival", "late:1:20", "--gap-ns", "2000", "--cache", "cold,warm", "--raw",
                   "--per-rank", *QUICK, "--out", "a.json", cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    doc = read(tmp_path / "a.json")
    load_result(tmp_path / "a.json")
    assert sorted((p["method"], p["cache"]) for p in doc["points"]) == [
        ("roundtime", "cold"), ("roundtime", "warm"), ("window", "cold"), ("window", "warm"),
    ]  # fmt: skip
    assert doc["method"]["gap_ns"] == 2000
    for p in doc["points"]:
        assert p["arrival_ns"] == [0, 20000]  # rank 1 starts 20 us late
    assert "  rank 1" in run.stdout
