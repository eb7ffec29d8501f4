"""Fixtures of the Python tests: the sample result and a fake MPI; and the
strict mode of `make test`.

Under ``MPISCOPE_TEST_STRICT=1`` (the Makefile's ``test`` target sets it) a
test that skips fails instead, with its reason: there every part is built and
installed, so a skip can only mean a broken part (a bench that cannot start,
a build that is missing), and it must not pass as a quiet "s".
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mpiscope_fakes import (
    FAKE_BENCH,
    FAKE_MPIEXEC,
    FAKE_OPS,
    FakeMpi,
    sample,
    write_script,
)


def write_sample(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(sample()))
    return path

STRICT = os.environ.get("MPISCOPE_TEST_STRICT") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under MPISCOPE_TEST_STRICT=1 (make test): {reason}"


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report: pytest.CollectReport) -> None:
    if STRICT and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under MPISCOPE_TEST_STRICT=1 (make test): {reason}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that opens Chromium (the ``chromium`` fixture) is a browser test."""
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True, scope="session")
def _own_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """mpiscope's cache (the bench catalogs) and state (the run profile) in
    directories of this test session, for the tests and the commands they
    start, not the user's: a module-scoped fixture runs before each test's
    own state directory is set (a user's recorded profile added
    run_profile to test_fixture_shapes' real runs). Every document a bench
    writes is validated against the schema (a run of a user's does not)."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("session-state"))
    os.environ.pop("MPISCOPE_RUN_PROFILE", None)
    os.environ["MPISCOPE_CHECK_DOCUMENTS"] = "1"  # every document the bench writes: the schema


SESSION_TMPDIR: list[Path] = []  # the session's TMPDIR, once made


@pytest.fixture(autouse=True, scope="session")
def _own_tmpdir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """TMPDIR of this test session for the programs the tests start: Open
    MPI's session directories (``ompi.<pid>``) go there, where none that an
    earlier run's killed mpiexec left can meet a new mpiexec of the same
    process id (mpiscope/session_dirs.py). Any left at the end are listed
    in the summary."""
    SESSION_TMPDIR.append(tmp_path_factory.mktemp("tmp"))
    os.environ["TMPDIR"] = str(SESSION_TMPDIR[0])


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Open MPI session directories left in the session's TMPDIR: a test
    killed an mpiexec that mpiscope did not clean up after."""
    for tmpdir in SESSION_TMPDIR:
        left = [p.name for p in sorted(tmpdir.iterdir()) if re.fullmatch(r"ompi\.\d+", p.name)]
        if left:
            terminalreporter.write_line(f"Open MPI session directories left in {tmpdir}: "
                                        + ", ".join(left))


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A run profile per test: one that a test's `run --runs` records
    would change the single runs of later tests (their documents folded,
    then written by Python)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def sample_doc() -> dict[str, Any]:
    """A real run's document with known statistics (mpiscope_fakes.sample)."""
    return sample()


@pytest.fixture
def fake_mpi(tmp_path: Path) -> Iterator[FakeMpi]:
    root = tmp_path / "fakempi"
    profile_dir = root / "profiles"
    profile_dir.mkdir(parents=True)
    bench = write_script(
        root / "mpiscope-bench", FAKE_BENCH.replace("__OPS__", repr(json.dumps(FAKE_OPS)))
    )
    mpiexec = write_script(root / "mpiexec", FAKE_MPIEXEC)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("MPISCOPE_MPI", "MPISCOPE_BENCH", "MPIEXEC")
    }
    env.update(
        MPISCOPE_PROFILE_DIR=str(profile_dir),
        FAKE_BENCH_SAMPLE=str(write_sample(root / "sample.json")),
        FAKE_BENCH_LOG=str(root / "bench-args.json"),
        FAKE_MPIEXEC_LOG=str(root / "mpiexec-call.json"),
    )
    fake = FakeMpi(
        root, profile_dir, bench, mpiexec, root / "bench-args.json", root / "mpiexec-call.json", env
    )
    fake.write_profile()
    yield fake
