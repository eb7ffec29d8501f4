"""Real traced runs of the shipped examples under MPICH and Open MPI (both
built by `make test`): the program's output is unchanged, messages become
arrows in every view, the analyses find what the examples stage, and a
killed program leaves a readable partial trace. No timing thresholds: the
examples make one side late by a sleep, and the tests check who waited.

The tracer library comes from the MPI profile's prefix (installed by
`make`), or from MPISCOPE_TRACE_LIB_MPICH / _OPENMPI for a development build.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mpiscope.trace.analysis import analyze
from mpiscope.trace.merge import load
from trace_helpers import EXAMPLES, build_example, mpiscope, plain_run, profile_or_fail

MPIS = ["mpich", "openmpi"]
SMALL = ["--records", "65536"]  # 4 MiB of records per thread: the runs are short


@pytest.fixture(scope="module")
def bins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bins")


@pytest.fixture(params=MPIS)
def mpi(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    profile_or_fail(name)
    return name


def traced(mpi: str, tmp_path: Path, argv: list[str], np_: int = 2, name: str = "t") -> Path:
    run = mpiscope("trace", "--mpi", mpi, "--np", str(np_), *SMALL, "-o", name, *argv, mpi=mpi,
                   cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    plain = plain_run(mpi, argv, tmp_path, np_)
    assert plain.returncode == 0, plain.stderr
    assert run.stdout == plain.stdout  # the tracer changes nothing the program prints
    return tmp_path / name


@pytest.mark.mpi
def test_late_sender_found_and_output_unchanged(mpi: str, bins: Path, tmp_path: Path) -> None:
    exe = build_example("late_p2p", mpi, bins)
    trace = traced(mpi, tmp_path, [str(exe), "--late", "send", "--delay-ms", "150",
                                   "--trials", "2", "--sizes", "8,65536"])
    merged = load(trace)
    assert len(merged.messages) == 5  # 2 trials x 2 sizes, and the checksum back
    assert merged.backwards == 0 and merged.unmatched_sends == merged.unmatched_recvs == 0
    late = analyze(merged).late_sender
    assert late[(0, 1)].count == 4  # rank 1 waited in MPI_Recv for every late send
    summary = mpiscope("trace", "summary", str(trace), mpi=mpi, cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    section = summary.stdout.split("Late sender")[1].split("Late receiver")[0]
    assert any(line.split()[:4] == ["0", "->", "1", "4"] for line in section.splitlines())
    assert "late_p2p.c:" in summary.stdout  # call sites resolved to file:line


@pytest.mark.mpi
def test_launcher_form_and_every_view(mpi: str, bins: Path, tmp_path: Path) -> None:
    exe = build_example("late_p2p", mpi, bins)
    profile = profile_or_fail(mpi)
    launcher = [profile.mpiexec, "-n", "2"]
    run = mpiscope("trace", "--mpi", mpi, *SMALL, "-o", "t", "--", *launcher, str(exe),
                   "--late", "recv", "--delay-ms", "50", "--trials", "1", "--sizes", "8",
                   mpi=mpi, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    merged = load(tmp_path / "t")
    messages = len(merged.messages)
    assert messages == 2
    arrows = messages + len(merged.links)  # and one per collective instance's other member

    out = mpiscope("trace", "export", "t", "--format", "perfetto", mpi=mpi, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import Trace

    pf = Trace()
    pf.ParseFromString((tmp_path / "t.pftrace").read_bytes())
    starts = sum(len(p.track_event.flow_ids) for p in pf.packet)
    ends = sum(len(p.track_event.terminating_flow_ids) for p in pf.packet)
    processes = {p.track_descriptor.process.process_name for p in pf.packet
                 if p.HasField("track_descriptor")} - {""}
    assert starts == ends == arrows and processes == {"rank 0", "rank 1"}

    assert mpiscope("trace", "export", "t", "--format", "chrome", mpi=mpi,
                    cwd=tmp_path).returncode == 0
    phases = [e["ph"] for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"]]
    assert phases.count("s") == phases.count("f") == arrows

    assert mpiscope("trace", "export", "t", "--format", "otf2", mpi=mpi,
                    cwd=tmp_path).returncode == 0
    import otf2

    kinds: dict[str, int] = {}
    with otf2.reader.open(str(tmp_path / "t.otf2" / "traces.otf2")) as archive:
        for _, event in archive.events:
            kinds[type(event).__name__] = kinds.get(type(event).__name__, 0) + 1
    assert kinds["MpiSend"] == kinds["MpiRecv"] == messages
    assert kinds["Enter"] == kinds["Leave"] > 0

    view = mpiscope("trace", "view", "t", mpi=mpi, cwd=tmp_path)
    assert view.returncode == 0, view.stderr
    page = (tmp_path / "t.html").read_text()
    assert f'data-messages="{messages}"' in page
    assert "ui.perfetto.dev" in view.stdout


@pytest.mark.parametrize("op", ["barrier", "bcast", "reduce"])
@pytest.mark.mpi
def test_collective_waits_for_late_rank_0(op: str, bins: Path, tmp_path: Path) -> None:
    exe = build_example("late_collective", "mpich", bins)
    merged = load(traced("mpich", tmp_path, [str(exe), "--op", op, "--late-ms", "100",
                                             "--loops", "3", "--size", "4096"]))
    stats = {c.name: c for c in analyze(merged).collectives}
    name = {"barrier": "MPI_Barrier", "bcast": "MPI_Bcast", "reduce": "MPI_Reduce"}[op]
    late = stats[name]
    # the aligning barriers alternate with the measured ones; a last MPI_Reduce
    # gathers the checksum
    expected = {"barrier": 6, "bcast": 3, "reduce": 4}[op]
    assert late.instances == expected and late.last_arrivals[0] >= 3
    assert late.early_wait_ns > 0


@pytest.mark.mpi
def test_collectives_on_time_open_mpi(bins: Path, tmp_path: Path) -> None:
    exe = build_example("late_collective", "openmpi", bins)
    merged = load(traced("openmpi", tmp_path, [str(exe), "--op", "reduce", "--loops", "2",
                                               "--size", "1024"]))
    stats = {c.name: c for c in analyze(merged).collectives}
    # two loops, and the checksum is reduced once more
    assert stats["MPI_Reduce"].instances == 3 and stats["MPI_Barrier"].instances == 2


@pytest.mark.mpi
def test_halo_exchange_two_ranks(mpi: str, bins: Path, tmp_path: Path) -> None:
    exe = build_example("halo4d", mpi, bins)
    merged = load(traced(mpi, tmp_path, [str(exe), "--dims", "1", "--lattice", "4",
                                         "--site", "2", "--iters", "3"]))
    # per iteration each rank sends its two faces of the one decomposed dimension
    assert len(merged.messages) == 3 * 2 * 2
    assert merged.unmatched_sends == merged.unmatched_recvs == 0
    assert {m.bytes for m in merged.messages} == {4 * 4 * 4 * 2 * 8}


@pytest.mark.mpi
def test_halo_exchange_more_dimensions_smaller_messages(bins: Path, tmp_path: Path) -> None:
    """The seed's QCD finding, on 4 ranks: a 2-D decomposition (2x2x1x1)
    sends twice as many messages as a 1-D one (4x1x1x1), each half as big."""
    exe = build_example("halo4d", "mpich", bins)
    shapes = {}
    for dims in (1, 2):
        merged = load(traced("mpich", tmp_path, [str(exe), "--dims", str(dims), "--lattice", "4",
                                                 "--site", "1", "--iters", "2"],
                             np_=4, name=f"d{dims}"))
        assert merged.unmatched_sends == merged.unmatched_recvs == 0
        sizes = {m.bytes for m in merged.messages}
        assert len(sizes) == 1
        shapes[dims] = (len(merged.messages), sizes.pop())
    # per rank and iteration: 2 faces per decomposed dimension; faces of 64 or 32 sites
    assert shapes[1] == (4 * 2 * 2, 64 * 8)
    assert shapes[2] == (4 * 2 * 4, 32 * 8)


@pytest.mark.mpi
def test_sessions_program_is_traced(mpi: str, bins: Path, tmp_path: Path) -> None:
    exe = build_example("sessions", mpi, bins)
    merged = load(traced(mpi, tmp_path, [str(exe)]))
    assert merged.trace.ranks[0].meta["model"] == "sessions"
    assert len(merged.messages) == 1
    names = {merged.timelines[0].name(i) for i in range(len(merged.timelines[0].records))}
    assert {"MPI_Session_init", "MPI_Comm_create_from_group", "MPI_Session_finalize"} <= names


@pytest.mark.mpi
def test_mpi4py_script(tmp_path: Path) -> None:
    pytest.importorskip("mpi4py")
    merged = load(traced("mpich", tmp_path, [sys.executable, str(EXAMPLES / "ring_mpi4py.py")]))
    assert merged.trace.ranks[0].meta["thread_level"] >= 0  # MPI_Init_thread, as mpi4py calls
    assert len(merged.messages) >= 4  # the sendrecv and the isend, both ways
    assert merged.unmatched_sends == 0


@pytest.mark.mpi
def test_killed_program_leaves_partial_trace(mpi: str, bins: Path, tmp_path: Path) -> None:
    exe = build_example("late_p2p", mpi, bins)
    run = mpiscope("trace", "--mpi", mpi, "--np", "2", *SMALL, "--timeout", "4", "-o", "t",
                   str(exe), "--late", "send", "--delay-ms", "600000", mpi=mpi, cwd=tmp_path)
    assert run.returncode == 1
    assert "partial trace is kept" in run.stderr
    merged = load(tmp_path / "t")
    assert not merged.trace.missing_ranks
    # SIGTERM to every process; a launcher may follow with SIGKILL (Open MPI's
    # mpirun does for one of the ranks): that rank's file is as streamed
    # (its header and clock, but its records were all in its current buffer)
    ends = {r.rank: r.end_status for r in merged.trace.ranks}
    assert set(ends.values()) <= {"signal", "none"} and "signal" in ends.values()
    assert all(0 in r.clocks for r in merged.trace.ranks)
    if ends[1] == "signal":
        receiver = merged.timelines[1]
        last = max(i for i in range(len(receiver.records)) if receiver.main[i])
        assert receiver.name(last) == "MPI_Recv" and receiver.unfinished[last]
    summary = mpiscope("trace", "summary", "t", mpi=mpi, cwd=tmp_path)
    assert summary.returncode == 0 and "PARTIAL" in summary.stdout


@pytest.mark.mpi
def test_isendrecv_then_send_all_paired(bins: Path, tmp_path: Path) -> None:
    """Issue 15, defect 1: after an MPI_Isendrecv (whose status MPICH leaves
    unfilled) the next message on the channel was paired with the wrong
    call: 1 matched, 2 sends and 2 receives unmatched before the fix."""
    exe = build_example("trace_isendrecv", "mpich", bins,
                        Path(__file__).resolve().parents[1] / "mpi" / "trace_isendrecv.c")
    merged = load(traced("mpich", tmp_path, [str(exe)]))
    assert len(merged.messages) == 3
    assert merged.unmatched_sends == merged.unmatched_recvs == 0
    last = max(merged.messages, key=lambda m: m.send_ns)
    assert merged.timelines[1].name(last.recv_index) == "MPI_Recv"
