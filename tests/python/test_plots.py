"""mpiscope plot: the data of every figure, the drawing, the command."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.reports.plots.bandwidth import BANDWIDTH_OPS
from mpiscope.reports.plots.common import source_labels
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.plots.figure import Plot, plots_as_json
from mpiscope.reports.plots.render import render, write_plots
from mpiscope.result import Result, load_result, parse_result
from mpiscope_fakes import run_cli

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def result(name: str) -> Result:
    return load_result(GOLDEN / f"{name}.json")


def doc(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return data


def by_name(plots: list[Plot]) -> dict[str, Plot]:
    return {p.name: p for p in plots}


def find(points: list[dict[str, Any]], op: str, size: int | None, **extra: Any) -> dict[str, Any]:
    return next(
        p
        for p in points
        if p["op"] == op
        and p["size_bytes"] == size
        and all(p.get(k) == v for k, v in extra.items())
    )


def test_default_suite_figures() -> None:
    plots = by_name(plot_data([result("default")]))
    assert list(plots) == ["time-vs-size", "bandwidth", "time-no-size", "per-rank", "start-skew"]


def test_time_vs_size_draws_mean_with_its_interval_and_marks_unstable() -> None:
    data = doc("default")
    points = data["points"]
    for point in points:  # two unstable bcast points, whatever the recorded run had
        point["unstable"] = point["op"] == "bcast" and point["size_bytes"] in (16384, 65536)
    panel = by_name(plot_data([parse_result(json.dumps(data))]))["time-vs-size"].panels[0]
    assert (panel.xscale, panel.yscale) == ("log2", "log")
    assert panel.ylabel == "time (us)"  # the typical value is in microseconds
    assert [s.label for s in panel.series] == ["bcast", "allreduce", "alltoall"]
    bcast = panel.series[0]
    sizes = [p["size_bytes"] for p in points if p["op"] == "bcast"]
    assert list(bcast.x) == sizes
    for i, size in enumerate(sizes):
        point = find(points, "bcast", size)
        assert bcast.y[i] == pytest.approx(point["mean_ns"] / 1e3)
        assert bcast.low[i] == pytest.approx(point["ci_low_ns"] / 1e3)  # type: ignore[index]
        assert bcast.high[i] == pytest.approx(point["ci_high_ns"] / 1e3)  # type: ignore[index]
        assert bcast.flagged[i] is point["unstable"]  # type: ignore[index]
    assert sum(bcast.flagged or ()) == 2


def test_operations_without_a_size_get_their_own_figure() -> None:
    plots = by_name(plot_data([result("default")]))
    sized = plots["time-vs-size"].panels[0]
    assert all("barrier" not in s.label for s in sized.series)
    panel = plots["time-no-size"].panels[0]
    assert panel.categories == ("barrier", "waitpattern_up", "waitpattern_null")
    (series,) = panel.series
    barrier = find(doc("default")["points"], "barrier", None)
    unit_scale = {"ns": 1.0, "us": 1e3}[panel.ylabel.split("(")[1].rstrip(")")]
    assert series.y[0] == pytest.approx(barrier["mean_ns"] / unit_scale)


def test_bandwidth_only_where_it_means_something() -> None:
    points = doc("default")["points"]
    panel = by_name(plot_data([result("default")]))["bandwidth"].panels[0]
    assert {s.label for s in panel.series} <= BANDWIDTH_OPS
    assert "barrier" not in BANDWIDTH_OPS and "waitpattern_up" not in BANDWIDTH_OPS
    assert panel.ylabel == "bandwidth (MiB/s)"
    allreduce = next(s for s in panel.series if s.label == "allreduce")
    point = find(points, "allreduce", 1)  # 1 byte asked, 8 bytes moved (one double)
    expected = point["actual_bytes"] / point["mean_ns"] * 1e9 / 2**20
    assert allreduce.y[0] == pytest.approx(expected)
    # The bandwidth interval comes from the time interval, upside down.
    assert allreduce.low[0] == pytest.approx(  # type: ignore[index]
        point["actual_bytes"] / point["ci_high_ns"] * 1e9 / 2**20
    )


def test_per_rank_heat_map() -> None:
    points = doc("default")["points"]
    plot = by_name(plot_data([result("default")]))["per-rank"]
    titles = [p.title for p in plot.panels]
    assert titles == ["bcast", "allreduce", "alltoall", "operations without a size"]
    heat = plot.panels[0].heatmap
    assert heat is not None
    assert heat.rows == ("rank 0", "rank 1")
    assert heat.columns[0] == "1 B" and heat.columns[-1] == "1 MiB"
    point = find(points, "bcast", 1)
    r0, r1 = (r["median_ns"] for r in point["per_rank"])
    assert heat.values[0][0] == pytest.approx(r0 / max(r0, r1))
    assert heat.values[1][0] == pytest.approx(r1 / max(r0, r1))
    for c in range(len(heat.columns)):
        assert max(row[c] for row in heat.values if row[c] is not None) == pytest.approx(1.0)
    assert plot.panels[-1].heatmap.columns == (  # type: ignore[union-attr]
        "barrier",
        "waitpattern_up",
        "waitpattern_null",
    )


def test_start_skew_from_the_summary_without_raw_samples() -> None:
    points = doc("default")["points"]
    panel = by_name(plot_data([result("default")]))["start-skew"].panels[0]
    median, maximum = panel.series
    assert (median.label, maximum.label) == ("median of the launches", "maximum of the launches")
    assert len(median.x) == len(points)
    assert median.x[1] == "bcast 1 B"
    assert median.y[1] == pytest.approx(points[1]["start_skew"]["median_ns"])


def test_start_skew_per_launch_from_raw_samples() -> None:
    data = doc("raw-a")
    points = data["points"]
    # one launch invalid, its rank 1 a millisecond late, whatever the recorded run had
    points[0]["raw"]["valid"][0] = False
    points[0]["raw"]["start_ns"][0][1] += 1e6
    panel = by_name(plot_data([parse_result(json.dumps(data))]))["start-skew"].panels[0]
    series = {s.label: s for s in panel.series}
    skews = [
        (valid, max(s) - min(s))
        for p in points
        for valid, s in zip(p["raw"]["valid"], p["raw"]["start_ns"], strict=True)
    ]
    assert len(series["valid launches"].y) == sum(v for v, _ in skews)
    assert len(series["invalid launches"].y) == sum(not v for v, _ in skews)
    assert panel.ylabel == "start skew (ns)"
    assert series["valid launches"].y[0] == pytest.approx(next(s for v, s in skews if v))
    assert panel.yscale == "symlog"  # late launches are far above on-time ones


def test_methods_figure_plots_ratios_to_the_window_method() -> None:
    points = doc("methods")["points"]
    plot = by_name(plot_data([result("methods")]))["methods"]
    assert [p.title for p in plot.panels] == ["bcast", "allreduce", "operations without a size"]
    bcast = plot.panels[0]
    assert bcast.reference == 1.0
    assert [s.label for s in bcast.series] == ["roundtime", "barrier", "root"]
    roundtime = bcast.series[0]
    window = find(points, "bcast", 4096)
    other = find(points, "bcast", 4096, method="roundtime")
    assert roundtime.y[roundtime.x.index(4096)] == pytest.approx(
        other["median_ns"] / window["median_ns"]
    )
    unsized = plot.panels[2]
    assert unsized.categories == ("barrier",)
    assert "methods" not in by_name(plot_data([result("default")]))


def test_runs_figure_shows_each_run_and_the_summary() -> None:
    data = doc("runs")
    plot = by_name(plot_data([result("runs")]))["runs"]
    bcast = next(p for p in plot.panels if p.title == "bcast")
    dots, summary = bcast.series
    assert dots.style == "points" and summary.style == "interval"
    bcast_points = [p for p in data["points"] if p["op"] == "bcast"]
    assert len(dots.x) == len(bcast_points) == 3 * len(summary.x)
    entry = next(s for s in data["run_summary"] if s["op"] == "bcast" and s["size_bytes"] == 1)
    i = summary.x.index(1)
    assert summary.y[i] == pytest.approx(entry["median_ns"])  # the panel is in ns
    assert summary.low[i] == pytest.approx(entry["ci_low_ns"])  # type: ignore[index]
    assert summary.flagged[i] is entry["disagree"]  # type: ignore[index]
    # The time figure of merged runs draws the summary, not one run.
    time_panel = by_name(plot_data([result("runs")]))["time-vs-size"].panels[0]
    assert time_panel.ylabel == "time (ns)"
    line = next(s for s in time_panel.series if s.label == "bcast")
    assert line.y[line.x.index(1)] == pytest.approx(entry["median_ns"])


def test_time_vs_number_of_processes() -> None:
    plots = by_name(plot_data([result("nprocs")]))
    assert "time-vs-size" not in plots and "bandwidth" not in plots
    panel = plots["time-vs-nprocs"].panels[0]
    assert panel.xlabel == "processes" and panel.xscale == "linear"
    assert [s.label for s in panel.series] == ["bcast", "allreduce", "barrier"]
    assert all(s.x == (1, 2) for s in panel.series)


def test_several_files_share_the_figures_with_one_line_each() -> None:
    plots = by_name(plot_data([result("default"), result("slower")]))
    labels = [s.label for s in plots["time-vs-size"].panels[0].series]
    assert labels == [
        "default: bcast",
        "default: allreduce",
        "default: alltoall",
        "slower: bcast",
        "slower: allreduce",
        "slower: alltoall",
    ]


def test_source_labels_stay_distinct(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    paths = [tmp_path / "a" / "r.json", tmp_path / "b" / "r.json", tmp_path / "c.json"]
    results = [Result(doc("default"), path) for path in paths]
    assert source_labels(results) == ["a/r", "b/r", "c"]


def test_zero_byte_points_leave_the_log_axis_and_say_so() -> None:
    data = doc("default")
    extra = copy.deepcopy(find(data["points"], "bcast", 1))
    extra.update(size_bytes=0, actual_bytes=0)
    data["points"].insert(1, extra)
    plot = by_name(plot_data([parse_result(json.dumps(data))]))["time-vs-size"]
    assert 0 not in plot.panels[0].series[0].x
    assert "0-byte points are not shown" in plot.note


def test_plot_data_is_plain_json() -> None:
    data = plots_as_json(plot_data([result("methods"), result("runs")]))
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    for plot in data:
        for panel in plot["panels"]:
            for series in panel["series"]:
                assert all(y is None or math.isfinite(y) for y in series["y"])


@pytest.mark.parametrize(
    ("fmt", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_render_formats(fmt: str, magic: bytes, tmp_path: Path) -> None:
    plot = plot_data([result("default")])[0]
    path = tmp_path / f"p.{fmt}"
    data = render(plot, path, fmt)
    assert data.startswith(magic)
    assert path.read_bytes() == data


def test_svg_is_deterministic_and_has_its_labels_as_drawn_text() -> None:
    plot = plot_data([result("default")])[0]
    first = render(plot, fmt="svg")
    assert first == render(plot, fmt="svg")
    assert b"time (us)" in first  # matplotlib keeps each text as a comment


def test_unknown_format_is_an_error() -> None:
    with pytest.raises(MpiscopeError, match="unknown plot format 'gif'"):
        render(plot_data([result("default")])[0], fmt="gif")


def test_write_plots_of_an_empty_result_is_an_error(tmp_path: Path) -> None:
    data = doc("default")
    data["points"] = []
    with pytest.raises(MpiscopeError, match="nothing to plot"):
        write_plots([parse_result(json.dumps(data))], tmp_path)


def test_plot_command_writes_and_prints_its_files(tmp_path: Path) -> None:
    out = tmp_path / "figs"
    run = run_cli(["plot", str(GOLDEN / "methods.json"), "--out", str(out), "--format", "svg"])
    assert run.code == 0, run.stderr
    written = [Path(line) for line in run.stdout.splitlines()]
    assert [p.name for p in written] == [
        "time-vs-size.svg",
        "bandwidth.svg",
        "time-no-size.svg",
        "per-rank.svg",
        "start-skew.svg",
        "methods.svg",
    ]
    assert all(p.stat().st_size > 1000 for p in written)


def test_plot_command_default_folder_is_next_to_the_result(tmp_path: Path) -> None:
    source = tmp_path / "bcast.json"
    source.write_text((GOLDEN / "nprocs.json").read_text())
    run = run_cli(["plot", str(source)])
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[0] == str(tmp_path / "bcast-plots" / "time-vs-nprocs.png")


def test_plot_command_bad_input_is_one_line(tmp_path: Path) -> None:
    run = run_cli(["plot", str(tmp_path / "missing.json")])
    assert run.code == 2 and run.err_lines == [
        f"mpiscope: error: cannot read {tmp_path / 'missing.json'}: no such file"
    ]
    run = run_cli(["plot", str(GOLDEN / "default.json"), "--format", "gif"])
    assert run.code == 2 and len(run.err_lines) == 1
    assert "invalid choice: 'gif'" in run.err_lines[0]


def test_cache_modes_side_by_side_are_separate_lines() -> None:
    data = doc("nprocs")
    warm = copy.deepcopy(data["points"])
    for point in warm:
        point["cache"] = "warm"
    data["points"] += warm
    plots = by_name(plot_data([parse_result(json.dumps(data))]))
    labels = [s.label for s in plots["time-vs-nprocs"].panels[0].series]
    assert labels == [
        "bcast (cold cache)",
        "allreduce (cold cache)",
        "barrier (cold cache)",
        "bcast (warm cache)",
        "allreduce (warm cache)",
        "barrier (warm cache)",
    ]
    titles = [p.title for p in plots["per-rank"].panels]
    assert titles[:2] == ["bcast (window, cold cache)", "allreduce (window, cold cache)"]


def test_first_call_records_are_left_out_of_the_figures() -> None:
    data = doc("nprocs")
    data["points"].append(
        {
            "op": "gather",
            "kind": "firstcall",
            "size_bytes": 1024,
            "nprocs": 2,
            "first_ns": [9000.0, 9100.0],
            "second_ns": [400.0, 410.0],
            "ratio_rank0": 22.5,
            "ratio_max": 22.2,
        }
    )
    plots = plot_data([parse_result(json.dumps(data))])
    assert plots_as_json(plots) == plots_as_json(plot_data([result("nprocs")]))
