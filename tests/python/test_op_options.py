"""Operation options on the Python side, without MPI: parsing --option,
checking names against the catalogue, the overlap command's arithmetic and
the operation reference's layout."""

from __future__ import annotations

import argparse

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.measure.catalogue import OpInfo, OpOption
from mpiscope.measure.op_options import check_op_options, parse_op_option
from mpiscope.measure.ops_markdown import render_markdown
from mpiscope.measure.overlap import blocking_counterpart, compute_option, overlap_rows

PINGPONG = OpInfo(
    "pingpong", "ping-pong latency", "bytes of each message", ("size",),
    (OpOption("mode", "blocking", "", "how"), OpOption("pairs", "0-1", "ranks", "who")),
)  # fmt: skip
BCAST = OpInfo(
    "bcast", "MPI_Bcast | root", "bytes", ("size", "root"),
    (OpOption("root", "0", "rank", "the root"), OpOption("datatype", "bytes", "", "layout")),
)  # fmt: skip


def test_parse_op_option() -> None:
    assert parse_op_option("mode=persistent") == ("mode", "persistent")
    assert parse_op_option("graph=a=b.txt") == ("graph", "a=b.txt")
    assert parse_op_option(" graph=") == ("graph", "")
    for bad in ("mode", "=x", "root=1", "op=max"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_op_option(bad)


def test_check_op_options() -> None:
    check_op_options([("mode", "persistent"), ("datatype", "struct")], [PINGPONG, BCAST])
    with pytest.raises(MpiscopeError, match="did you mean 'mode'"):
        check_op_options([("mod", "x")], [PINGPONG])
    with pytest.raises(MpiscopeError, match="no such option of bcast"):
        check_op_options([("mode", "x")], [BCAST])
    with pytest.raises(MpiscopeError, match="given twice"):
        check_op_options([("mode", "a"), ("mode", "b")], [PINGPONG])


def test_overlap_arithmetic() -> None:
    assert blocking_counterpart("iallreduce") == "allreduce"
    assert blocking_counterpart("bcast_init") == "bcast"
    assert blocking_counterpart("ineighbor_alltoall") == "neighbor_alltoall"
    with pytest.raises(MpiscopeError):
        blocking_counterpart("bcast")
    assert compute_option({4096: 25_000.0, 8: 1500.0}) == "8:1.5,4096:25"
    rows = overlap_rows({8: 1000.0, 64: 2000.0}, {8: 1200.0}, {8: 1500.0}, {8: 1000.0, 64: 2000.0})
    assert rows == [{"size_bytes": 8, "blocking_ns": 1000.0, "nonblocking_ns": 1200.0,
                     "compute_ns": 1000.0, "total_ns": 1500.0, "overlap": 0.5}]  # fmt: skip


def test_markdown_reference() -> None:
    text = render_markdown([PINGPONG, BCAST])
    assert text.startswith("# Operations\n") and text.endswith("\n") and not text.endswith("\n\n")
    assert "## All 2 operations" in text
    assert "| [`bcast`](#bcast) | MPI_Bcast \\| root |" in text  # table cells escaped
    assert "\n### pingpong\n" in text and "| `pairs` | `0-1` | ranks | who |" in text
    assert "`root` (--root)" in text
