"""Checks that need several options, or the machine, before anything is
launched (issue 25): contradictions, options of another mode, process
counts, programs and libraries that cannot run. Rows of the 2026-11-26
sweep: 5-10, 20, 24-28, 34-48. Each case is one line, exit code 2, and
nothing is launched (the fake MPI logs every launch) or created."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mpiscope.measure.options import RANKS_PER_CORE
from mpiscope.measure.plan import available_cores
from mpiscope_fakes import SAMPLE, FakeMpi, run_cli


def refused(argv: list[str], fragment: str, tmp_path: Path, fake_mpi: FakeMpi | None = None,
            env: dict[str, str] | None = None) -> None:  # fmt: skip
    before = sorted(tmp_path.iterdir())
    run = run_cli(argv, env=env or (fake_mpi.env if fake_mpi else None), cwd=tmp_path)
    lines = run.err_lines
    assert run.code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error:"), lines
    assert fragment in lines[0], lines[0]
    assert sorted(tmp_path.iterdir()) == before  # nothing created
    if fake_mpi is not None:
        assert not fake_mpi.mpiexec_log.exists(), "launched"


# --- the measuring commands ------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--min-valid", "50", "--max-launches", "10"], "--min-valid 50 is more than --max-"),
        (["--min-point-seconds", "10", "--max-point-seconds", "1"], "--min-point-seconds 10"),
        (["--runs", "100000000", "--dry-run"], "--runs: must be at most 1000"),
        (["--np", "100000000", "--oversubscribe", "--dry-run"], "--np: must be at most 1048576"),
        (["--gap-ns", "1e18"], "--gap-ns: must be in [0, 1e+12]"),
        (["--timeout", "nan"], "--timeout: must be in"),
    ],
)
def test_run_refuses_before_launching(argv: list[str], fragment: str, tmp_path: Path,
                                      fake_mpi: FakeMpi) -> None:  # fmt: skip
    refused(["run", "bcast", "--sizes", "1", *argv], fragment, tmp_path, fake_mpi)


def test_an_empty_op_option_value_is_refused_unless_it_is_the_default(
    tmp_path: Path, fake_mpi: FakeMpi
) -> None:
    """--option datatype= was launched, then 'invalid argument'; an option
    whose default is empty (topology's graph) may be given empty."""
    refused(["run", "waitpattern_up", "--option", "unit="], "--option unit=: empty value",
            tmp_path, fake_mpi)  # fmt: skip
    from mpiscope.measure.catalogue import OpInfo, OpOption
    from mpiscope.measure.op_options import check_op_options

    graph = OpInfo("cart", "", "", (), (OpOption("graph", "", "path", ""),))
    check_op_options([("graph", "")], [graph])


def test_a_pair_operation_needs_two_ranks(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    refused(["run", "pingpong", "--np", "1", "--sizes", "1"], "pingpong sends messages between "
            "ranks: it needs 2 ranks at least, not 1", tmp_path, fake_mpi)  # fmt: skip
    refused(["run", "bcast,one_to_two", "--np", "2", "--nprocs", "1,2", "--sizes", "1"],
            "one_to_two sends messages", tmp_path, fake_mpi)  # fmt: skip
    refused(["model", "measure", "--np", "1", "--sizes", "1"], "--np 2 at least", tmp_path,
            fake_mpi)  # fmt: skip


def test_ranks_beyond_the_cores_are_bounded(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    many = RANKS_PER_CORE * available_cores() + 1
    refused(["run", "bcast", "--np", str(many), "--oversubscribe", "--dry-run"],
            f"--np {many} is more than {many - 1} ranks", tmp_path, fake_mpi)  # fmt: skip
    refused(["alltoall", "contention", "--nodes", "100", "--ppn", "100"],
            "--nodes x --ppn 10000 is more than", tmp_path, fake_mpi)  # fmt: skip
    refused(["alltoall", "check", "--np", "4096", "--sizes", "1"], "--np 4096 is more than",
            tmp_path, fake_mpi)  # fmt: skip


def test_list_ops_takes_one_form_and_check_one_sync_each(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    refused(["list-ops", "--json", "--markdown"], "not allowed with argument", tmp_path, fake_mpi)
    refused(["check", "--sync", "linear,linear"], "appears twice", tmp_path, fake_mpi)


def test_overlap_takes_one_operation(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    refused(["overlap", "ibcast,iallreduce"], "overlap takes one operation", tmp_path, fake_mpi)


# --- alltoall ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["check", "--np", "2", "--nodes", "5"], "--nodes 5 is more than the 2 processes"),
        (["check", "--sizes", "1T"], "needs at least"),
        (["compare", "--np", "2", "--sizes", "1", "--size-crit", "-1"], "--size-crit: must be"),
        (["compare", "--np", "2", "--sizes", "1", "--nodes", "3"], "--nodes 3 is more than"),
        (["contention", "--sizes", "zz"], "invalid size 'zz'"),
        (["contention", "--stream-bytes", "-1"], "--stream-bytes"),
        (["fft", "--grid", "100000"], "--grid: must be at most 4096"),
        (["fft", "--grid", "4096"], "--grid 4096 needs at least"),
        (["tune", "--check", "x.json", "--format", "mpich"], "--format belongs to writing one"),
        (["tune", "--format", "openmpi", "--base", "b.json", "-o", "t", "a.json"],
         "--format mpich only"),
    ],
)
def test_alltoall_refuses_before_launching(argv: list[str], fragment: str, tmp_path: Path,
                                           fake_mpi: FakeMpi) -> None:  # fmt: skip
    refused(["alltoall", *argv], fragment, tmp_path, fake_mpi)


# --- model ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--model", "loggp", "--segments", "2"], "--segments is an option of the Hockney fit"),
        (["--model", "loggp", "--per-pair"], "--per-pair is an option of the Hockney fit"),
        (["--model", "hockney", "--segments", "3", "--max-segments", "2"], "give one"),
        (["--model", "hockney", "--bootstrap", "1000000000"], "--bootstrap: must be at most"),
        (["--model", "hockney", "--confidence", "1"], "--confidence: must be in (0, 1)"),
    ],
)
def test_model_fit_refuses_options_of_another_model(argv: list[str], fragment: str,
                                                     tmp_path: Path) -> None:  # fmt: skip
    refused(["model", "fit", str(SAMPLE), "--out", "m.json", *argv], fragment, tmp_path)


def test_model_fit_refuses_more_regimes_than_the_sizes_hold() -> None:
    """--segments 50 on three sizes found one regime from the data, silently."""
    from model_helpers import hockney_doc
    from mpiscope.errors import MpiscopeError
    from mpiscope.models.fit import FitOptions
    from mpiscope.models.hockney_fit import fit_hockney_document

    doc = hockney_doc(lambda s: 1000 + s, sizes=[1, 64, 4096])
    with pytest.raises(MpiscopeError, match="--segments 50 needs 150 measured sizes .* has 3"):
        fit_hockney_document(doc, FitOptions(replicates=0, segments=50))


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--np", "4", "--ranks-per-node", "3", "alltoall:plp"], "not a whole number of nodes"),
        (["--np", "4", "--ranks-per-node", "8", "alltoall:plp"], "not a whole number of nodes"),
        (["--np", "4", "--ranks-per-node", "2", "bcast:binomial"], "none is asked for"),
    ],
)
def test_model_predict_needs_whole_nodes(argv: list[str], fragment: str, tmp_path: Path) -> None:
    model = tmp_path / "model.json"
    model.write_text("{}")
    refused(["model", "predict", str(model), *argv[-1:], *argv[:-1]], fragment, tmp_path)


@pytest.mark.parametrize("plot", ["x.gif", "fig"])
def test_a_figure_named_for_another_format_is_refused(plot: str, tmp_path: Path) -> None:
    refused(["model", "check", "--plot", plot, str(SAMPLE), str(SAMPLE)], "chosen by the suffix",
            tmp_path)  # fmt: skip
    refused(["noise", "plot", "-o", plot, str(SAMPLE)], "the figures are PNG files", tmp_path)


# --- noise ------------------------------------------------------------------------------
NOISE_RUN = ["noise", "run", "--detector", "barrier", "--np", "2", "--packet", "0.05s",
             "--packets", "4", "--out", "n.json"]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--block", "4"], "--block sizes the blocks of --design alternate"),
        (["--alltoall-bytes", "64"], "--alltoall-bytes is an option of --detector alltoall"),
        (["--timeout", "nan"], "--timeout: must be in"),
        (["--calibrate", "1s", "--iterations", "5"], "nothing to --calibrate"),
        (["--agent", "nosuchcmd-of-mpiscope"], "no program 'nosuchcmd-of-mpiscope' found"),
        (["--inject", "10Hz:1ms", "--agent-core", "4095"], "CPU 4095 is not online"),
        (["--until-decided"], "--until-decided adds ABBA blocks: it needs --design alternate"),
        (["--max", "5min"], "--max is an option of --until-decided"),
        (["--groups", "64"], "--groups feeds the periodic test of --design alternate"),
        (["--design", "alternate", "--inject", "10Hz:1ms", "--until-decided"],
         "--until-decided sizes the run from --max: drop --packets"),
    ],
)
def test_noise_run_checks_before_it_prints(argv: list[str], fragment: str, tmp_path: Path,
                                           fake_mpi: FakeMpi) -> None:  # fmt: skip
    refused([*NOISE_RUN, *argv], fragment, tmp_path, fake_mpi)


def test_until_decided_needs_room_for_four_quartets(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    argv = [a for a in NOISE_RUN if a not in ("--packets", "4")]
    refused([*argv, "--design", "alternate", "--inject", "10Hz:1ms", "--until-decided", "--max",
             "1s"], "--max 1 s holds 1 ABBA quartet(s) of 16 packets of 0.05 s", tmp_path,
            fake_mpi)  # fmt: skip


def test_noise_run_options_of_the_stream_ring(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    ring = [a if a != "barrier" else "stream-ring" for a in NOISE_RUN]
    refused([*ring, "--preset", "short", "--messages", "5"], "give it or --messages", tmp_path,
            fake_mpi)  # fmt: skip
    refused([*ring, "--stream-elements", "999999999999"], "--stream-elements 999999999999 needs",
            tmp_path, fake_mpi)  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["probe", "--seconds", "1e12"], "--seconds: must be in (0, 86400]"),
        (["probe", "--seconds", "1", "--fwq-work", "1s"], "longer than the 0.333333 s each"),
        (["calibrate", "--packets", "4", "--block", "10"], "needs at least 40 packets"),
        (["inject", "--hz", "10", "--burst", "1ms", "--core", "4095"], "CPU 4095 is not online"),
        (["inject", "--hz", "10", "--burst", "1ms", "--", "nosuchcmd-of-mpiscope"],
         "no program 'nosuchcmd-of-mpiscope' found"),
    ],
)
def test_noise_subcommands_check_first(argv: list[str], fragment: str, tmp_path: Path,
                                       fake_mpi: FakeMpi) -> None:  # fmt: skip
    refused(["noise", *argv], fragment, tmp_path, fake_mpi)


# --- trace ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--np", "2", "--", "mpiexec", "-n", "2", "./app"], "both start the ranks"),
        (["--np", "2", "./nope"], "the program ./nope does not exist"),
        (["--np", "2", "./adir"], "is not a program"),
        (["--np", "2", "./bin.dat"], "is not executable"),
        (["--np", "2", "--timeout", "nan", "./app"], "--timeout: must be in"),
    ],
)
def test_trace_checks_the_program_first(argv: list[str], fragment: str, tmp_path: Path,
                                        fake_mpi: FakeMpi) -> None:  # fmt: skip
    (tmp_path / "app").write_text("#!/bin/sh\n")
    (tmp_path / "app").chmod(0o755)
    (tmp_path / "bin.dat").write_bytes(bytes(64))
    (tmp_path / "adir").mkdir()
    refused(["trace", "-o", "t.trace", *argv], fragment, tmp_path, fake_mpi)


def test_trace_refuses_a_tracer_that_is_no_library(tmp_path: Path, fake_mpi: FakeMpi) -> None:
    (tmp_path / "app").write_text("#!/bin/sh\n")
    (tmp_path / "app").chmod(0o755)
    (tmp_path / "bin.dat").write_bytes(bytes(range(64)))
    env = {**fake_mpi.env, "MPISCOPE_TRACE_LIB": str(tmp_path / "bin.dat")}
    refused(["trace", "--np", "2", "-o", "t.trace", "./app"], "is not a shared library", tmp_path,
            env=env)  # fmt: skip


def test_a_heatmap_window_must_be_finite(tmp_path: Path) -> None:
    refused(["trace", "heatmap", "--to", "inf", "t.trace"], "--to: must be in", tmp_path)
    refused(["trace", "heatmap", "--from", "2", "--to", "1", "t.trace"], "is not before", tmp_path)


# --- the engine checks a clock transform itself ----------------------------------------
@pytest.mark.mpi
@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("zzz", "expected SELECTOR:KEY=VALUE"),
        ("all:foo=1", "unknown key 'foo'"),
        ("all:offset=nan", "bad number for offset"),
        ("1-0:offset=5", "bad selector '1-0'"),
        ("7:offset=5", "selector '7' names rank 7 of a 2-rank run"),
    ],
)
def test_a_clock_transform_is_checked_before_launching(spec: str, fragment: str,
                                                       tmp_path: Path) -> None:  # fmt: skip
    for command in (["run", "bcast", "--sizes", "1"], ["check"]):
        run = run_cli([*command, "--clock-transform", spec, "--out", str(tmp_path / "r.json")])
        assert run.code == 2 and len(run.err_lines) == 1, run.err_lines
        assert f"--clock-transform: {fragment}" in run.err_lines[0], run.err_lines
    assert os.listdir(tmp_path) == []
