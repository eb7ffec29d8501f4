"""Documents of older schema versions (tests/data/compat, never recorded
again) are read by every view: report, export, the figures, HTML, compare."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpiscope.reports.compare import compare_results, render_comparison
from mpiscope.reports.export import export_bytes
from mpiscope.reports.html import render_html
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.report import render_report
from mpiscope.result import load_result

COMPAT = Path(__file__).resolve().parents[1] / "data" / "compat"
OLD = sorted(COMPAT.glob("result-*.json"))


def test_there_are_old_documents() -> None:
    assert {p.name for p in OLD} >= {"result-1.0.json", "result-1.1-launches.json"}


@pytest.mark.parametrize("path", OLD, ids=[p.name for p in OLD])
def test_every_view_reads_an_old_document(path: Path) -> None:
    doc = load_result(path)
    assert doc.schema_version in ("1.0", "1.1")
    assert render_report(doc).startswith("MPI library ")
    assert export_bytes(doc, "csv").decode().count("\n") == len(doc.points) + 1
    assert plot_data([doc])
    assert "<html" in render_html([doc])
    assert render_comparison(compare_results(doc, doc))
