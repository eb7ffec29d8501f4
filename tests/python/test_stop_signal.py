"""A SIGTERM or SIGHUP to mpiscope ends the whole command, not one run.

Commands that run a series of runs and keep going after a failed one
(``alltoall compare`` records a failed run and runs the next) must not
treat "mpiscope was told to stop" as such a failure: it went on with the
next run until every one had been stopped by hand.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from mpiscope import launcher
from mpiscope.errors import RunFailedError, StoppedError
from mpiscope.measure import runner
from mpiscope.measure.options import measure_defaults
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.request import MeasureRequest
from mpiscope.mpi_profile import select_profile
from mpiscope_fakes import FakeMpi


def test_the_signal_handler_raises_a_stop_not_a_plain_failure() -> None:
    with launcher._termination_raises():
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        with pytest.raises(StoppedError, match="received SIGTERM"):
            handler(signal.SIGTERM, None)
    assert issubclass(StoppedError, RunFailedError)  # one-line error, exit code 1


def _args() -> MeasureRequest:
    return MeasureRequest.of(measure_defaults(), quiet=True, np=2)


def test_run_bench_runs_says_the_run_was_stopped(
    fake_mpi: FakeMpi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stopped(*_args: object, **_kwargs: object) -> int:
        raise StoppedError("mpiscope received SIGTERM: run stopped")

    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(fake_mpi.profile_dir))
    monkeypatch.setattr(runner, "run_streaming", stopped)
    bench = runner.Bench(select_profile("fake"), [str(fake_mpi.mpiexec), "-n", "2"],
                         str(fake_mpi.bench))  # fmt: skip
    out = tmp_path / "r.json"
    run = runner.BenchRun({"out": str(out)})
    with pytest.raises(StoppedError, match="received SIGTERM"):
        runner.run_bench_runs([run], bench, tmp_path, _args(),
                            ProgressDisplay(quiet=True, nprocs=2), out)  # fmt: skip


def test_a_failed_run_is_still_a_plain_failure(
    fake_mpi: FakeMpi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crashed(*_args: object, **_kwargs: object) -> int:
        return 4

    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(fake_mpi.profile_dir))
    monkeypatch.setattr(runner, "run_streaming", crashed)
    bench = runner.Bench(select_profile("fake"), [str(fake_mpi.mpiexec)], str(fake_mpi.bench))
    out = tmp_path / "r.json"
    with pytest.raises(RunFailedError) as caught:
        runner.run_bench_runs([runner.BenchRun({"out": str(out)})], bench, tmp_path, _args(),
                            ProgressDisplay(quiet=True, nprocs=2), out)  # fmt: skip
    assert not isinstance(caught.value, StoppedError)


def test_alltoall_series_stops_at_the_signal(
    fake_mpi: FakeMpi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mpiscope.measure.series import RunSeries

    calls = []

    def stopped(*_args: object, **_kwargs: object) -> int:
        calls.append(1)
        raise StoppedError("mpiscope received SIGTERM: run stopped; partial result kept")

    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(fake_mpi.profile_dir))
    monkeypatch.setattr(runner, "run_bench_runs", stopped)
    bench = runner.Bench(select_profile("fake"), [str(fake_mpi.mpiexec)], str(fake_mpi.bench))
    request = MeasureRequest.of(measure_defaults(), quiet=True, mpi="fake")
    series = RunSeries(request, bench, tmp_path, {"alltoall": set()})
    with pytest.raises(StoppedError):
        series.run("lab", ["alltoall"], [8], {})
    assert calls == [1]
