"""mpiscope.result.center gives what the statistics module gives."""

from __future__ import annotations

import random
import statistics

import pytest

from mpiscope.result.center import mean, median


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 101])
def test_the_same_median_and_mean_as_statistics(n: int) -> None:
    rng = random.Random(n)
    values = [rng.lognormvariate(6, 1) for _ in range(n)]
    assert median(values) == statistics.median(values)
    assert median(iter(values)) == statistics.median(values)  # any iterable
    assert mean(values) == statistics.fmean(values)
    assert median([3, 1, 2, 10]) == 2.5 and median([5]) == 5


def test_no_values_is_an_error() -> None:
    with pytest.raises(ValueError, match="no median"):
        median([])
    with pytest.raises(ValueError, match="no mean"):
        mean([])


def test_the_report_and_the_ledger_lines_import_no_statistics() -> None:
    """What `mpiscope run` prints after its bench needs neither statistics
    nor numpy (4-9 ms and 40 ms of every run)."""
    import subprocess
    import sys
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "data" / "golden" / "default.json"
    code = ("import sys; from mpiscope.result import load_result; "
            "from mpiscope.reports.report import render_report; "
            "from mpiscope.reports.ledger import closing_lines; "
            f"r = load_result({str(doc)!r}); render_report(r); closing_lines(r); "
            "print(sorted({'statistics', 'numpy'} & set(sys.modules)))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
