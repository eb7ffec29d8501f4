"""What every view makes of a golden document: the expected outputs that
tests/data/golden/ holds next to the documents (test_golden.py checks them;
tests/data/record.py writes them)."""

from __future__ import annotations

import json
from pathlib import Path

from mpiscope.reports.compare import compare_results, render_comparison
from mpiscope.reports.export import export_bytes
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.plots.figure import plots_as_json
from mpiscope.reports.report import render_report
from mpiscope.result import Result, parse_result

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
#: The golden documents: real runs (tests/data/record.py), slower.json derived.
DOCUMENTS = ("default", "raw-a", "raw-b", "nprocs", "methods", "runs", "slower", "simulated")
COMPARISONS = (("default", "slower"), ("raw-a", "raw-b"), ("default", "methods"))


def result(name: str) -> Result:
    # A relative path: the outputs must not depend on where the tree is.
    path = Path(f"{name}.json")
    return parse_result((GOLDEN / path).read_text(), source=str(path), path=path)


def outputs(name: str) -> dict[str, str]:
    """File name -> expected text of each view of document ``name``."""
    doc = result(name)
    out = {
        f"{name}.report.txt": render_report(doc) + "\n",
        f"{name}.csv": export_bytes(doc, "csv").decode(),
        f"{name}.plots.json": json.dumps(plots_as_json(plot_data([doc])), indent=1) + "\n",
    }
    if any(p.get("raw") is not None for p in doc.points):
        out[f"{name}.raw.csv"] = export_bytes(doc, "csv", raw=True).decode()
    return out


def comparison(base: str, new: str) -> tuple[str, str]:
    """The file name and expected text of `mpiscope compare BASE NEW`."""
    text = render_comparison(compare_results(result(base), result(new))) + "\n"
    return f"{base}-vs-{new}.compare.txt", text


def every_output() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in DOCUMENTS:
        found.update(outputs(name))
    for base, new in COMPARISONS:
        file_name, text = comparison(base, new)
        found[file_name] = text
    return found
