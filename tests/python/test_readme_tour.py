"""The README's tour (tools/readme_tour.py): each block says when and where
it ran, and is the shape the command line prints today (column titles, row
labels, the keys of header lines; not the numbers)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import readme_tour  # noqa: E402

STAMP = re.compile(r"# \d{4}-\d\d-\d\d \d\d:\d\d UTC, .+, \d+ cores, load [\d.]+; .+; "
                   r"tools/readme_tour.py\n")  # fmt: skip


def readme() -> dict[str, str]:
    return readme_tour.readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))


def test_every_block_is_there_and_says_when_and_where() -> None:
    blocks = readme()
    assert list(blocks) == list(readme_tour.BLOCKS)
    for name, body in blocks.items():
        assert STAMP.match(body), f"README block {name} does not start with its stamp"
        assert "$ mpiscope " in body


def test_shape_leaves_numbers_out_and_keeps_titles() -> None:
    report = readme()["report"]
    renumbered = re.sub(r"\d+(\.\d+)? (ns|us)\b", "9.99 ms", report)
    assert renumbered != report
    assert readme_tour.shape(renumbered) == readme_tour.shape(report)
    retitled = report.replace("span med", "span mean")
    assert readme_tour.shape(retitled) != readme_tour.shape(report)
    relabelled = report.replace("allreduce   1 KiB", "allreduce   2 KiB")
    assert readme_tour.shape(relabelled) != readme_tour.shape(report)


def test_shape_of_rows() -> None:
    shape = readme_tour.shape("op    size  median\n---  -----  ------\n"
                              "bcast  8 B  1.2 us  UNSTABLE\nbcast  8 B  1.3 us\n"
                              "0 -> 1   6  604 ms\n1 -> 0   1  3 ms\n")
    assert shape == ["op | size | median", "---", "bcast | 8 B", "N -> N"]


def test_rewrite_replaces_the_marked_blocks_only() -> None:
    text = "a\n<!-- tour:run -->\n```\nold\n```\n<!-- /tour:run -->\nb\n"
    assert readme_tour.rewrite(text, {"run": "new\n"}) == text.replace("old", "new")
    with pytest.raises(SystemExit, match="report"):
        readme_tour.rewrite(text, {"run": "x\n", "report": "y\n"})


@pytest.mark.mpi
@pytest.mark.slow
def test_the_tour_is_the_shape_the_cli_prints(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from real_bench import REAL_MPI
    from trace_helpers import build_example, tracer_lib

    monkeypatch.setenv("MPISCOPE_TRACE_LIB", tracer_lib(REAL_MPI))
    late_p2p = build_example("late_p2p", REAL_MPI, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    fresh = readme_tour.produce(work, late_p2p, REAL_MPI)
    for name, body in readme().items():
        assert readme_tour.shape(body) == readme_tour.shape(fresh[name]), (
            f"README block {name} is not what the command line prints now: "
            ".venv/bin/python tools/readme_tour.py"
        )
