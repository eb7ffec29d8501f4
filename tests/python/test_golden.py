"""Golden files: recorded result documents and what every view makes of them.

tests/data/golden/ holds result documents (real runs, recorded by
tests/data/record.py; slower.json derived from default.json there) next to
their expected outputs: NAME.report.txt (`mpiscope report`), NAME.csv
(`mpiscope export`), NAME.raw.csv (`mpiscope export --raw`, where the
document kept raw samples), NAME.plots.json (the numbers every figure draws,
from mpiscope.reports.plots.data.plot_data) and BASE-vs-NEW.compare.txt
(`mpiscope compare`). A change to the schema or to a view shows up here as a
diff. When a change is deliberate, write the expected files again and review
the diff before committing it:

    .venv/bin/python tests/data/record.py --outputs
"""

from __future__ import annotations

import difflib
import json
import math
from typing import Any

import pytest

from golden_views import COMPARISONS, DOCUMENTS, GOLDEN, comparison, every_output, outputs

REL_TOLERANCE = 1e-12


def check(file_name: str, actual: str) -> None:
    path = GOLDEN / file_name
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
    check(*comparison(base, new))


def test_every_golden_file_belongs_to_a_case() -> None:
    expected = {f"{name}.json" for name in DOCUMENTS} | set(every_output())
    present = {p.name for p in GOLDEN.iterdir()}
    assert present == expected, (present - expected, expected - present)
