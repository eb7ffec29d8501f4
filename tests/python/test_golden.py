"""Golden files: recorded result documents and what every view makes of them.

tests/data/golden/ holds result documents (real runs, and documents derived
from real runs by tests/data/derive_fixtures.py) next to their expected
outputs: NAME.report.txt (`mpiscope report`), NAME.csv (`mpiscope export`),
NAME.raw.csv (`mpiscope export --raw`, where the document kept raw samples),
NAME.plots.json (the numbers every figure draws, from
mpiscope.reports.plots.data.plot_data) and BASE-vs-NEW.compare.txt (`mpiscope
compare`). A change to the schema or to a view shows up here as a diff.

When a change is deliberate, regenerate the expected files and review the
diff before committing it:

    MPISCOPE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/python/test_golden.py
"""

from __future__ import annotations

import difflib
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from mpiscope.reports.compare import compare_results, render_comparison
from mpiscope.reports.export import export_bytes
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.plots.figure import plots_as_json
from mpiscope.reports.report import render_report
from mpiscope.result import Result, parse_result

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
UPDATE = os.environ.get("MPISCOPE_UPDATE_GOLDEN") == "1"
DOCUMENTS = ("default", "raw-a", "raw-b", "nprocs", "methods", "launches", "slower")
COMPARISONS = (("default", "slower"), ("raw-a", "raw-b"), ("default", "methods"))
REL_TOLERANCE = 1e-12


def result(name: str) -> Result:
    # A relative path: the outputs must not depend on where the tree is.
    path = Path(f"{name}.json")
    return parse_result((GOLDEN / path).read_text(), source=str(path), path=path)


def outputs(name: str) -> dict[str, str]:
    doc = result(name)
    out = {
        f"{name}.report.txt": render_report(doc) + "\n",
        f"{name}.csv": export_bytes(doc, "csv").decode(),
        f"{name}.plots.json": json.dumps(plots_as_json(plot_data([doc])), indent=1) + "\n",
    }
    if any(p.get("raw") is not None for p in doc.points):
        out[f"{name}.raw.csv"] = export_bytes(doc, "csv", raw=True).decode()
    return out


def check(file_name: str, actual: str) -> None:
    path = GOLDEN / file_name
    if UPDATE:
        path.write_text(actual)
        return
    assert path.exists(), f"{path} is missing: {__doc__}"
    expected = path.read_text()
    if file_name.endswith(".json"):
        assert_same_json(json.loads(expected), json.loads(actual), file_name)
        return
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                f"expected {file_name}",
                "now",
                n=1,
            )
        )
        pytest.fail(f"{file_name} changed (see the docstring to accept):\n{diff[:4000]}")


def assert_same_json(expected: Any, actual: Any, where: str) -> None:
    """Equal, floats to REL_TOLERANCE (the last bits of a division may differ)."""
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        assert math.isclose(expected, actual, rel_tol=REL_TOLERANCE), (where, expected, actual)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and list(expected) == list(actual), where
        for key in expected:
            assert_same_json(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(expected) == len(actual), (where, len(actual))
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            assert_same_json(e, a, f"{where}[{i}]")
    else:
        assert expected == actual, (where, expected, actual)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_views_of_recorded_documents(name: str) -> None:
    for file_name, text in outputs(name).items():
        check(file_name, text)


@pytest.mark.parametrize(("base", "new"), COMPARISONS)
def test_comparisons_of_recorded_documents(base: str, new: str) -> None:
    comparison = compare_results(result(base), result(new))
    check(f"{base}-vs-{new}.compare.txt", render_comparison(comparison) + "\n")


def test_every_golden_file_belongs_to_a_case() -> None:
    expected = {f"{name}.json" for name in DOCUMENTS}
    for name in DOCUMENTS:
        expected |= set(outputs(name))
    expected |= {f"{b}-vs-{n}.compare.txt" for b, n in COMPARISONS}
    present = {p.name for p in GOLDEN.iterdir()}
    assert present == expected, (present - expected, expected - present)
