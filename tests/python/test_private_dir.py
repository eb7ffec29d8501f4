"""A run's private directory (mpiscope.measure.runner.private_dir): next to
the result, only for this user, gone afterwards whatever happened; and
the run path does without tempfile (its import, with random and weakref,
cost 2-4 ms of every run's start), typing and shutil (with bz2, lzma and
zlib: about 4 ms each on the AMD EPYC VM)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.measure.runner import private_dir


def test_made_next_to_the_result_for_this_user_and_removed(tmp_path: Path) -> None:
    out = tmp_path / "bcast.json"
    with private_dir(out) as tmp:
        path = Path(tmp)
        assert path.parent == tmp_path and path.name.startswith(".bcast.json.runs-")
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
        (path / "plan.json").write_text("{}")
        (path / "sub").mkdir()
        (path / "sub" / "result.json").write_text("{}")
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_removed_when_the_run_fails(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), private_dir(tmp_path / "r.json") as tmp:
        Path(tmp, "plan.json").write_text("{}")
        raise RuntimeError("the bench failed")
    assert list(tmp_path.iterdir()) == []


def test_two_runs_get_two_directories(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with private_dir(out) as first, private_dir(out) as second:
        assert first != second and Path(first).is_dir() and Path(second).is_dir()


def test_an_unwritable_place_is_one_error_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = blocker / "r.json"
    with pytest.raises(MpiscopeError, match=r"^cannot write .*r\.json: "), private_dir(out):
        pass


def test_the_measuring_path_imports_none_of_the_slow_modules() -> None:
    code = ("import sys, mpiscope.cli, mpiscope.commands.run, mpiscope.reports.report, "
            "mpiscope.reports.ledger; "
            "mpiscope.cli.build_parser(['run']).parse_args(['run', 'bcast', '--sizes', '8']); "
            "print(sorted({'tempfile', 'random', 'weakref', 'typing', 'shutil'} "
            "& set(sys.modules)))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
