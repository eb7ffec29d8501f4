"""Faults of real 2-rank runs that used to lose what was measured (issue 25,
faults 22, 23, 27, 29 and 32 of the 2026-11-26 sweep), and the bench's own
output rules (a device node never renamed over; a document it writes is
always one mpiscope reads). Every wait is for an event the run emits (a
file, a line), never for a time."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import real_bench
from mpiscope.mpi_profile import find_profiles
from mpiscope.trace.reader import read_trace
from real_bench import REAL_MPI

pytestmark = pytest.mark.mpi

#: Longest wait for an event of a run on a loaded machine.
PATIENCE_S = 120.0

SLOW_APP = r"""
#include <mpi.h>
#include <unistd.h>
/* An MPI program that calls MPI slowly (an allreduce a millisecond): its
   4096-record halves of trace records take seconds to fill. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double x = 1, y;
    for (int i = 0; i < 100000; i++) {
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        usleep(1000);
    }
    MPI_Finalize();
    return 0;
}
"""


def profile() -> object:
    found = find_profiles().get(REAL_MPI)
    assert found is not None, f"no {REAL_MPI} profile: run `make`"
    return found


def start(args: list[str], cwd: Path, mark: str) -> subprocess.Popen[str]:
    """``mpiscope ARGS`` in a session of its own (a terminal's Ctrl-C goes
    to its group); every process of it carries ``mark`` in its environment."""
    env = {**os.environ, "MPISCOPE_TEST_MARK": mark, "MPISCOPE_MPI": REAL_MPI}
    return subprocess.Popen([sys.executable, "-m", "mpiscope", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip


def marked(mark: str, name: str) -> dict[int, int]:
    """rank -> pid of the processes called ``name`` that carry ``mark``."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if Path(f"/proc/{entry}/comm").read_text().strip() != name[:15]:
                continue
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"MPISCOPE_TEST_MARK={mark}".encode() in environ:
            for item in environ:
                if item.startswith(b"PMI_RANK="):
                    found[int(item[9:])] = int(entry)
    return found


def wait_for(event: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + PATIENCE_S
    while not event():
        assert time.monotonic() < end, f"no {what} in {PATIENCE_S:g} s"
        time.sleep(0.02)


def test_two_runs_of_one_out_the_second_is_refused_at_once(tmp_path: Path) -> None:
    """Fault 22/23: both ran; with --force the file held one run while the
    other reported success, without it the other's message pointed at a
    file that held none of its data. Now the second is told who writes.
    The first run cannot end before the test has acted (real_bench's
    UNENDING: its launches wait seconds each), so the second always meets
    it writing, on any processor; it used to be a sweep that a fast machine
    finished before the second came, which then replaced it."""
    out = tmp_path / "r.json"
    first = real_bench.start("run", *real_bench.UNENDING, "--out", str(out), cwd=tmp_path)
    try:
        real_bench.wait_for_progress(first)  # measuring: the lock is held
        for force in ([], ["--force"]):
            second = subprocess.run(
                [sys.executable, "-m", "mpiscope", "run", "bcast", "--sizes", "1", "--quiet",
                 "--out", str(out), *force], capture_output=True, text=True, timeout=PATIENCE_S)
            assert second.returncode == 2, second.stderr
            assert second.stderr.splitlines() == [
                f"mpiscope: error: --out {out} is being written by another mpiscope (pid "
                f"{first.pid}): wait for it to end or choose another output"]
        first.send_signal(signal.SIGINT)
    finally:
        _, err = real_bench.finish(first)
    assert first.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["status"] != "complete"  # the first's partial result, kept
    assert {p["op"] for p in doc["points"]} == {"barrier"}  # its first point, none of the second's


def test_a_traced_rank_killed_by_sigkill_leaves_calls_in_every_file(tmp_path: Path) -> None:
    """Fault 27: the launcher kills the other rank too; a program that calls
    MPI slowly filled no half in seconds and both rank files held 0 calls.
    Records older than 100 ms are written now: every file has its calls."""
    (tmp_path / "app.c").write_text(SLOW_APP)
    subprocess.run([profile().mpicc, "-O1", "-o", "app", "app.c"], cwd=tmp_path,  # type: ignore[attr-defined]
                   check=True, capture_output=True)  # fmt: skip
    run = start(["trace", "--np", "2", "-o", "t.trace", "./app"], tmp_path, "trace")
    rank1 = tmp_path / "t.trace" / "rank-00001.mst"
    wait_for(lambda: rank1.exists(), "rank file")
    first_size = rank1.stat().st_size
    wait_for(lambda: rank1.stat().st_size > first_size, "records written early")
    victim = marked("trace", "app").get(1)
    assert victim is not None
    os.kill(victim, signal.SIGKILL)
    _, err = run.communicate(timeout=PATIENCE_S)
    assert run.returncode == 1 and len(err.splitlines()) == 1, err
    trace = read_trace(tmp_path / "t.trace")
    calls = {r.meta["rank"]: len(r.records) for r in trace.ranks}
    assert sorted(calls) == [0, 1] and min(calls.values()) > 0, calls


def test_an_interrupted_probe_keeps_the_probes_that_finished(tmp_path: Path) -> None:
    """Fault 29: Ctrl-C after two of six seconds kept nothing."""
    run = start(["noise", "probe", "--seconds", "6", "--out", "p.json"], tmp_path, "probe")
    raw = tmp_path / "p.raw"
    wait_for(lambda: raw.is_dir() and any(raw.glob("fwq-*.txt")), "first probe's records")
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=PATIENCE_S)
    assert run.returncode == 130, err
    kept = tmp_path / "p.json"
    said = f"mpiscope: interrupted (the probes that finished are kept in {kept})"
    assert err.splitlines()[-1] == said
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["kind"] == "noise-probe" and all(w["fwq"] for w in doc["workers"])
    assert subprocess.run([sys.executable, "-m", "mpiscope", "noise", "plot", "-o", "p.png",
                           "p.json"], cwd=tmp_path, capture_output=True).returncode == 0


@pytest.mark.slow
def test_an_interrupted_alltoall_check_keeps_what_it_checked(tmp_path: Path) -> None:
    """Fault 32: alltoall check --out never wrote --out when interrupted."""
    run = start(["alltoall", "check", "--quiet", "--out", "ac.json"], tmp_path, "a2a")
    assert run.stdout is not None
    ended = []  # two launches ended: the first one's records are in (a launch's line is

    def launch_ended() -> bool:  # printed before its records are)
        if "points" in run.stdout.readline():  # type: ignore[union-attr]
            ended.append(1)
        return len(ended) == 2

    wait_for(launch_ended, "two launches' ends")
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=PATIENCE_S)
    assert run.returncode == 130, err
    doc = json.loads((tmp_path / "ac.json").read_text())
    assert doc["status"] == "partial" and doc["results"]


def test_an_interrupted_machine_check_keeps_the_parts_it_measured(tmp_path: Path) -> None:
    """Fault 30: check --out wrote nothing when interrupted. The bench now
    writes the document after each part (a timer, a synchronization, a
    state run); the event waited for is its first write."""
    run = start(["check", "--quiet", "--drift-seconds", "30", "--out", "chk.json"], tmp_path,
                "chk")  # fmt: skip

    def first_part_written() -> bool:
        assert run.poll() is None, run.communicate()
        return any(tmp_path.glob(".chk.json.runs-*/check.json"))

    wait_for(first_part_written, "first part of the check")
    os.killpg(run.pid, signal.SIGINT)  # during the first synchronization's 30 s wait at most
    _, err = run.communicate(timeout=PATIENCE_S)
    assert run.returncode == 130, err
    doc = json.loads((tmp_path / "chk.json").read_text())
    assert doc["status"] != "complete"
    assert [t["name"] for t in doc["check"]["timers"]][:1] == ["tsc"]
    assert "states" not in doc["check"]


def test_the_bench_never_renames_over_a_device(tmp_path: Path) -> None:
    """Row 1 on the C side: mpiscope-bench itself (not only the front end)
    refuses an output that is not a regular file, with or without force."""
    bench = profile().bench  # type: ignore[attr-defined]
    for force in ([], ["--force"]):
        done = subprocess.run([bench, "--ops", "bcast", "--sizes", "1", "--out", "/dev/null",
                               *force], cwd=tmp_path, capture_output=True, text=True,
                              timeout=PATIENCE_S)  # fmt: skip
        st = os.lstat("/dev/null")
        if not stat.S_ISCHR(st.st_mode):  # put back for every other program, then fail
            os.unlink("/dev/null")
            os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            os.chmod("/dev/null", 0o666)
            pytest.fail("mpiscope-bench replaced /dev/null (put back)")
        assert done.returncode != 0


def test_a_point_that_ran_out_of_time_before_its_first_launch(tmp_path: Path) -> None:
    """Row 30: --max-point-seconds 1e-9 wrote a document mpiscope refused."""
    def mpiscope(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=PATIENCE_S)  # fmt: skip

    run = mpiscope("run", "bcast", "--sizes", "1", "--quiet", "--max-point-seconds", "1e-9",
                   "--out", "r.json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = mpiscope("report", "r.json")
    assert report.returncode == 0, report.stderr
