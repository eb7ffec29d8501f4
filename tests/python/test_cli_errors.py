"""Every bad input: exit code 2 and exactly one stderr line, no traceback.

The fake bench (see mpiscope_fakes.py) stands in for mpiscope-bench where a
check needs the catalogue of operations; each test also checks that
nothing was launched.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mpiscope_fakes import SAMPLE, FakeMpi, run_cli


def assert_one_error(run: object, *fragments: str) -> str:
    code, err_lines = run.code, run.err_lines  # type: ignore[attr-defined]
    assert code == 2, run
    assert len(err_lines) == 1, err_lines
    line: str = err_lines[0]
    assert line.startswith("mpiscope: error: "), line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


def cores() -> int:
    return len(os.sched_getaffinity(0))


def run_fake(fake: FakeMpi, tmp_path: Path, *args: str) -> object:
    result = run_cli(["run", *args], env=fake.env, cwd=tmp_path)
    assert not fake.mpiexec_log.exists(), "bad input reached mpiexec"
    assert not fake.bench_log.exists(), "bad input reached the bench"
    return result


def test_unknown_op(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_fake(fake_mpi, tmp_path, "bcats")
    assert_one_error(run, "unknown operation 'bcats' (did you mean 'bcast'?)")


def test_unknown_op_in_a_list(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_fake(fake_mpi, tmp_path, "bcast,nosuchthing")
    assert_one_error(run, "unknown operation 'nosuchthing'", "known: bcast, allreduce")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--sizes", "1:1M:x1"], "factor"),
        (["--sizes", "0:64K:+0"], "zero"),
        (["--sizes", "1M:1K"], "larger than the maximum"),
        (["--sizes", "1:1G:+1"], "more than 1000"),
        (["--sizes", "4KB"], "ambiguous"),
        (["--sizes", "lots"], "invalid size 'lots'"),
        (["--np", "0"], "argument --np: must be at least 1"),
        (["--np", "two"], "argument --np: expected a whole number"),
        (["--confidence", "1.5"], "argument --confidence: must be in (0, 1)"),
        (["--confidence", "0"], "argument --confidence"),
        (["--confidence", "1"], "argument --confidence"),
        (["--confidence", "nan"], "argument --confidence"),
        (["--trim", "0.5"], "argument --trim"),
        (["--target-rse", "0"], "argument --target-rse"),
        (["--min-valid", "1"], "argument --min-valid"),
        (["--align", "48"], "power of two"),
        (["--timer", "rdtsc"], "unknown timer 'rdtsc'"),
        (["--sync", "star"], "unknown clock sync algorithm"),
        (["--cache", "hot"], "unknown cache mode 'hot'"),
        (["--dtype", "dubble"], "did you mean 'double'"),
        (["--reduce-op", "bxor"], "does not apply to --dtype double"),
        (["--dtype", "char"], "--reduce-op sum does not apply to --dtype char"),
        (["--dtype", "c_bool"], "unknown datatype 'c_bool'"),
        (["--reduce-op", "maxloc"], "unknown reduction 'maxloc'"),
        (["--root", "2"], "--root 2 is not a rank"),
        (["--nprocs", "2,3", "--np", "2"], "goes up to 3, more than --np 2"),
        (["--nprocs", "2", "--sizes", "1,2"], "--sizes must be one size"),
        (["--nprocs", "0:2"], "at least 1"),
        (["--timeout", "-1"], "argument --timeout"),
        (["--max-point-seconds", "inf"], "--max-point-seconds: must be in (0, 1000000]"),
        (["--gap-ns", "inf"], "--gap-ns: must be in [0, 1e+12], not inf"),  # a plan is JSON
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_run_options(fake_mpi: FakeMpi, tmp_path: Path, args: list[str], fragment: str) -> None:
    assert_one_error(run_fake(fake_mpi, tmp_path, "bcast", *args), fragment)


def test_bad_op_list(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    assert_one_error(run_fake(fake_mpi, tmp_path, "bcast,,barrier"), "empty name")
    assert_one_error(run_fake(fake_mpi, tmp_path, "bcast,bcast"), "appears twice")
    assert_one_error(run_fake(fake_mpi, tmp_path, "bcast,BCAST"), "appears twice")


def test_missing_ops(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    assert_one_error(run_fake(fake_mpi, tmp_path), "required: OPS")


def test_too_many_ranks_without_oversubscribe(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    n = cores() + 1
    run = run_fake(fake_mpi, tmp_path, "bcast", "--np", str(n))
    assert_one_error(run, f"--np {n} is more than the {cores()} core(s)", "--oversubscribe")


def test_existing_out_without_force(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text("keep me")
    run = run_fake(fake_mpi, tmp_path, "bcast", "--out", "old.json")
    assert_one_error(run, "old.json exists (use --force to overwrite)")
    assert (tmp_path / "old.json").read_text() == "keep me"


def test_out_in_missing_directory(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_fake(fake_mpi, tmp_path, "bcast", "--out", "no/such/dir/r.json")
    assert_one_error(run, "does not exist")


def test_report_of_missing_file(tmp_path: Path) -> None:
    assert_one_error(run_cli(["report", str(tmp_path / "nope.json")]), "no such file")


def test_report_of_not_json(tmp_path: Path) -> None:
    path = tmp_path / "junk.json"
    path.write_text("not json at all")
    assert_one_error(run_cli(["report", str(path)]), "is not valid JSON")


def test_report_of_wrong_major_version(tmp_path: Path) -> None:
    doc = json.loads(SAMPLE.read_text())
    doc["schema_version"] = "2.0"
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(doc))
    assert_one_error(run_cli(["report", str(path)]), "schema_version 2.0")


def test_report_of_schema_violation(tmp_path: Path) -> None:
    doc = json.loads(SAMPLE.read_text())
    del doc["points"][0]["median_ns"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    assert_one_error(run_cli(["report", str(path)]), "'median_ns' is a required property")


def test_no_mpi_named(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, MPISCOPE_MPI="nosuchmpi")
    for args in (["run", "bcast"], ["list-ops"]):
        run = run_cli(args, env=env, cwd=tmp_path)
        assert_one_error(run, "'nosuchmpi'", "available: fake", "run `make`")
    assert not fake_mpi.mpiexec_log.exists()


def test_no_mpi_at_all(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(fake_mpi.env, MPISCOPE_PROFILE_DIR=str(empty))
    run = run_cli(["run", "bcast"], env=env, cwd=tmp_path)
    assert_one_error(run, "no MPI installation found", "run `make` (or make MPI=openmpi)")


def test_mpi_option_names_a_missing_profile(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["list-ops", "--mpi", "openmpi"], env=fake_mpi.env, cwd=tmp_path)
    assert_one_error(run, "no MPI installation named 'openmpi'")


def test_broken_profile(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    (fake_mpi.profile_dir / "bad.json").write_text("{")
    run = run_cli(["list-ops"], env=fake_mpi.env, cwd=tmp_path)
    assert_one_error(run, "bad.json is not valid JSON")


def test_bench_missing(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    fake_mpi.bench.unlink()
    run = run_cli(["list-ops"], env=fake_mpi.env, cwd=tmp_path)
    assert_one_error(run, "mpiscope-bench not found or not executable")


def test_no_command() -> None:
    assert_one_error(run_cli([]), "no command given")


def test_unknown_command() -> None:
    assert_one_error(run_cli(["benchmark"]), "invalid choice: 'benchmark'")


def test_a_default_name_taken_by_a_run_of_the_same_second_is_not_an_error(
        fake_mpi: FakeMpi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs take a fraction of a second: the second of two in one second said
    'mpiscope-...json exists (use --force ...)' for a name the user never gave."""
    import time

    from mpiscope.measure import plan

    monkeypatch.chdir(tmp_path)
    now = time.time()
    taken = {time.strftime("mpiscope-%Y%m%d-%H%M%S.json", time.localtime(now + k))
             for k in range(-1, 30)}  # the names of this half minute, as earlier runs left them
    for name in taken:
        (tmp_path / name).write_text("{}")
    run = run_cli(["run", "bcast", "--quiet"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    made = {p.name for p in tmp_path.glob("mpiscope-2*.json")} - taken
    assert len(made) == 1 and made.pop().endswith("-2.json")
    monkeypatch.setattr(plan.time, "strftime", lambda fmt: fmt.split("-%")[0] + "-20261124-082731")
    assert plan.fresh_name("mpiscope-a2a") == "mpiscope-a2a-20261124-082731.json"
    (tmp_path / "mpiscope-a2a-20261124-082731.json").write_text("{}")
    (tmp_path / "mpiscope-a2a-20261124-082731-2.json").write_text("{}")
    assert plan.fresh_name("mpiscope-a2a") == "mpiscope-a2a-20261124-082731-3.json"
    # alltoall --nprocs 4,8 writes BASE-np4.json and BASE-np8.json: those are what must be free
    (tmp_path / "mpiscope-a2a-20261124-082731-np8.json").write_text("{}")
    name = plan.fresh_name("mpiscope-a2a", ["-np4", "-np8"])
    assert name == "mpiscope-a2a-20261124-082731-2.json"


def test_ctrl_c_inside_an_import_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C that lands while a command module is imported reaches main()
    wrapped (Python 3.11 turns it into 'RuntimeError: Error calling
    __set_name__' when it hits a class body: seen under load, at start-up):
    still one line and exit code 130, not a traceback."""
    from mpiscope import cli

    def interrupted_import(only: str | None = None) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on 'cached_property'") from exc

    monkeypatch.setattr(cli, "build_parser", interrupted_import)
    assert cli.main(["run", "bcast"]) == cli.EXIT_INTERRUPTED
    assert capsys.readouterr().err == "mpiscope: interrupted\n"


def test_other_errors_are_not_taken_for_an_interrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    from mpiscope import cli

    def broken(only: str | None = None) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "build_parser", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["run", "bcast"])


@pytest.mark.parametrize("group", ["alltoall", "model", "noise"])
def test_a_group_without_subcommand_lists_what_its_help_lists(group: str) -> None:
    """The one-line error names the subcommands in the order --help shows
    them, taken from the parser (mpiscope.parsing.subcommands), not typed again."""
    import re
    import subprocess
    import sys

    help_text = subprocess.run([sys.executable, "-m", "mpiscope", group, "--help"],
                               capture_output=True, text=True, check=True).stdout
    run = subprocess.run([sys.executable, "-m", "mpiscope", group], capture_output=True,
                         text=True, check=False)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    names = re.findall(r"^    (\w+)", help_text, re.M)
    assert names, help_text
    assert run.stderr.startswith(f"mpiscope: error: {group} needs a subcommand: ")
    said = re.findall(r"\w+", run.stderr.split(": ", 3)[-1].split(" (see")[0].replace(" or ", ", "))
    assert said == names
