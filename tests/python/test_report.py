"""Rendering result documents as text."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mpiscope.reports.report import render_report
from mpiscope.result import Result, validate_result


def render(doc: dict[str, Any], per_rank: bool = False) -> str:
    validate_result(doc)  # every rendered document is a valid one
    return render_report(Result(doc), per_rank=per_rank)


def header_value(text: str, name: str) -> str:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return line[len(name) :].strip()
    raise AssertionError(f"no header line {name!r} in:\n{text}")


def table(text: str) -> list[list[str]]:
    """The table rows (header first) split on runs of 2+ spaces."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("op "))
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        if not line.startswith("-"):
            rows.append([cell.strip() for cell in line.split("  ") if cell.strip()])
    return rows


#: The environment the tests below render, set on the recorded sample (whose
#: own is that of the machine it was recorded on).
KNOWN_ENVIRONMENT = {
    "mpi_library_version": "MPICH Version: 5.0.2 ...", "mpi_version": "4.1",
    "mpi_implementation": "mpich", "hosts": ["node1"], "nodes": 1, "ranks": 2,
    "ranks_per_node": 2, "command_line": "mpiscope run bcast --np 2 --sizes 1,1024",
}  # fmt: skip


def known(doc: dict[str, Any]) -> dict[str, Any]:
    doc["environment"].update(copy.deepcopy(KNOWN_ENVIRONMENT))
    doc["environment"]["timer"].update(name="tsc", source="rdtscp", resolution_ns=0.4,
                                       read_overhead_ns=18.2)  # fmt: skip
    doc["environment"]["clock_sync"].update(algorithm="linear", max_abs_residual_ns=3.1)
    doc["method"].update(k=8, k_init=4, gamma=1.1, confidence=0.95, trim_fraction=0.25,
                         stop_rule="error", target_rse=0.05)  # fmt: skip
    doc["environment"]["cache"].update(mode="cold", alignment_bytes=64)
    return doc


def test_header_block(sample_doc: dict[str, Any]) -> None:
    text = render(known(sample_doc))
    assert text.splitlines()[0].startswith("MPI library ")
    assert header_value(text, "MPI library") == "MPICH Version: 5.0.2 ... (MPI 4.1, mpich)"
    assert header_value(text, "hosts") == "node1 (1 node, 2 ranks, 2 per node)"
    timer = header_value(text, "timer")
    assert timer.startswith("tsc (rdtscp)")
    assert "resolution 0.4 ns" in timer and "read overhead 18.2 ns" in timer
    sync = header_value(text, "clock sync")
    assert sync.startswith("linear") and "max residual 3.1 ns" in sync
    method = header_value(text, "method")
    assert method.startswith("window: k=8, k_init=4, gamma=1.1")
    assert "confidence 95%" in method and "trim 25%" in method
    assert "RSE of the trimmed mean and of the median <= 5%" in header_value(text, "stopping")
    assert header_value(text, "cache").startswith("cold (alignment 64 B")
    assert header_value(text, "command") == "mpiscope run bcast --np 2 --sizes 1,1024"
    assert "PARTIAL" not in text


def test_only_the_first_line_of_the_library_version(sample_doc: dict[str, Any]) -> None:
    known(sample_doc)
    sample_doc["environment"]["mpi_library_version"] = (
        "MPICH Version:      5.0.2\nMPICH Release date: Fri Sep 25 20:45:26 UTC 2026\n"
    )
    text = render(sample_doc)
    assert header_value(text, "MPI library") == "MPICH Version: 5.0.2 (MPI 4.1, mpich)"
    assert "Release date" not in text


def test_operation_without_size(sample_doc: dict[str, Any]) -> None:
    point = sample_doc["points"][0]
    point.update(op="waitpattern_up", size_bytes=None, actual_bytes=None, root=None)
    row = table(render(sample_doc))[1]
    assert [row[0].strip(), row[1].strip()] == ["waitpattern_up", "-"]
    assert "actual" not in render(sample_doc)


def test_table_cells_keep_their_precision(sample_doc: dict[str, Any]) -> None:
    sample_doc["points"][0].update(min_ns=920.0, max_ns=1000.0)
    cells = dict(zip(*table(render(sample_doc))[:2], strict=False))
    assert cells["min"].strip() == "920 ns"
    assert cells["max"].strip() == "1.00 us"
    sample_doc["points"][0].update(min_ns=9200.0)
    cells = dict(zip(*table(render(sample_doc))[:2], strict=False))
    assert cells["min"].strip() == "9.20 us"


def test_point_row(sample_doc: dict[str, Any]) -> None:
    rows = table(render(known(sample_doc)))
    header, row = rows[0], rows[1]
    assert header[:4] == ["op", "size", "n_t/n_c/n_s", "median"]
    assert "mean ± E(95%)" in header
    cells = dict(zip(header, row, strict=False))
    assert cells["op"].strip() == "bcast"
    assert cells["size"].strip() == "1 KiB"
    assert cells["n_t/n_c/n_s"].strip() == "40/30/16"
    assert cells["median"].strip() == "810 ns"
    assert cells["mean ± E(95%)"].strip() == "812 ± 11 ns"
    assert cells["min"].strip() == "790 ns"
    assert cells["max"].strip() == "5.40 us"  # every cell in its own unit
    assert cells["span med"].strip() == "900 ns"
    assert cells["skew med"].strip() == "40.0 ns"  # 3 significant digits
    assert len(rows) == 2


def test_confidence_label_follows_the_run(sample_doc: dict[str, Any]) -> None:
    sample_doc["method"]["confidence"] = 0.99
    sample_doc["points"][0]["confidence"] = 0.99
    text = render(sample_doc)
    assert "mean ± E(99%)" in text and "99% confidence interval" in text


def test_cell_units_follow_the_values(sample_doc: dict[str, Any]) -> None:
    known(sample_doc)
    big = copy.deepcopy(sample_doc["points"][0])
    big.update(
        size_bytes=1024**2,
        actual_bytes=1024**2,
        median_ns=250_000.0,
        mean_ns=251_234.0,
        error_ns=1_500.0,
        min_ns=240_000.0,
    )
    sample_doc["points"].append(big)
    sample_doc["points"].append(copy.deepcopy(big))
    sample_doc["points"][-1]["size_bytes"] = 4 * 1024**2
    rows = table(render(sample_doc))
    cells = dict(zip(rows[0], rows[2], strict=False))
    assert cells["size"].strip() == "1 MiB"
    assert cells["median"].strip() == "250 us"
    assert cells["mean ± E(95%)"].strip() == "251.2 ± 1.5 us"
    small = dict(zip(rows[0], rows[1], strict=False))
    assert small["median"].strip() == "810 ns"


def test_flags(sample_doc: dict[str, Any]) -> None:
    point = sample_doc["points"][0]
    point.update(
        unstable=True,
        unstable_reasons=["rse 0.12 > 0.05", "max_launches reached"],
        oversubscribed=True,
        actual_bytes=1032,
    )
    text = render(sample_doc)
    row = next(line for line in text.splitlines() if line.startswith("bcast"))
    assert row.endswith(
        "UNSTABLE: rse 0.12 > 0.05, max_launches reached; oversubscribed; actual 1.01 KiB"
    )


def test_missing_statistics_are_dashes(sample_doc: dict[str, Any]) -> None:
    point = sample_doc["points"][0]
    for key in ("median_ns", "mean_ns", "error_ns", "min_ns", "max_ns"):
        point[key] = None
    row = table(render(sample_doc))[1]
    assert [c.strip() for c in row[3:7]] == ["-"] * 4


def test_per_rank_rows(sample_doc: dict[str, Any]) -> None:
    assert "rank 0" not in render(sample_doc)
    rows = table(render(sample_doc, per_rank=True))
    assert [r[0].strip() for r in rows[1:]] == ["bcast", "rank 0", "rank 1"]
    assert [c.strip() for c in rows[2][1:3]] == ["700 ns", "705 ns"]


def test_per_rank_absent_is_said(sample_doc: dict[str, Any]) -> None:
    del sample_doc["points"][0]["per_rank"]
    assert "no per-rank data" in render(sample_doc, per_rank=True)


def test_nprocs_column_when_varied(sample_doc: dict[str, Any]) -> None:
    sample_doc["varied"] = "nprocs"
    rows = table(render(sample_doc))
    assert rows[0][2] == "np" and rows[1][2].strip() == "2"
    sample_doc["varied"] = "size"
    assert "np" not in table(render(sample_doc))[0]


def test_warnings_come_last(sample_doc: dict[str, Any]) -> None:
    sample_doc["warnings"] = ["timer resolution is coarse", "clock drift 3 ppm"]
    lines = render(sample_doc).splitlines()
    assert lines[-3:] == ["warnings:", "  - timer resolution is coarse", "  - clock drift 3 ppm"]
    assert lines.index("warnings:") > max(i for i, ln in enumerate(lines) if ln.startswith("bcast"))


@pytest.mark.parametrize("status", ["running", "failed"])
def test_partial_result_banner(sample_doc: dict[str, Any], status: str) -> None:
    sample_doc["status"] = status
    sample_doc["environment"]["end_time_utc"] = None
    lines = render(sample_doc).splitlines()
    assert lines[0] == f"PARTIAL RESULT: the run did not finish (status: {status})"
    assert lines[-1].startswith("PARTIAL RESULT: the run did not finish: 1 point(s)")
    assert "not finished" in header_value("\n".join(lines), "time (UTC)")


def test_failed_result_shows_its_error(sample_doc: dict[str, Any]) -> None:
    sample_doc["status"] = "failed"
    sample_doc["error"] = "MPI_Bcast returned MPI_ERR_TRUNCATE"
    first = render(sample_doc).splitlines()[0]
    assert first.endswith("(status: failed): MPI_Bcast returned MPI_ERR_TRUNCATE")


def test_no_points(sample_doc: dict[str, Any]) -> None:
    sample_doc["points"] = []
    sample_doc["status"] = "running"
    text = render(sample_doc)
    assert "no measurement point" in text and text.startswith("PARTIAL RESULT")


def test_oversubscribed_run_is_said(sample_doc: dict[str, Any]) -> None:
    sample_doc["environment"]["oversubscribed"] = True
    assert header_value(render(sample_doc), "hosts").endswith("OVERSUBSCRIBED)")
