"""``mpiscope run`` and ``list-ops`` end to end with the fake MPI, and the
pieces they are made of (line protocol, progress display, profiles)."""

from __future__ import annotations

import io
import json
import os
import shlex
from pathlib import Path

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.launcher import (
    OutputEvent,
    ProgressEvent,
    WarningEvent,
    build_env,
    mpiexec_command,
    parse_line,
)
from mpiscope.measure.progress import ProgressDisplay, format_progress
from mpiscope.measure.runs import run_seeds
from mpiscope.mpi_profile import MpiProfile, select_profile
from mpiscope_fakes import FAKE_OPS, FakeMpi, run_cli


def test_run_passes_explicit_values(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(
        ["run", "bcast,allreduce", "--sizes", "1:16:x4", "--confidence", "0.99", "--out", "r.json"],
        env=fake_mpi.env,
        cwd=tmp_path,
    )
    assert run.code == 0, run
    plan = fake_mpi.bench_plan()
    assert plan["ops"] == ["bcast", "allreduce"]
    assert plan["sizes"] == [1, 4, 16]
    assert plan["confidence"] == 0.99
    assert plan["max_launches"] == 1000
    assert plan["timer"] == "auto" and plan["sync"] == "linear"
    assert plan["out"] == str(tmp_path / "r.json")
    assert plan["progress"] is True
    for flag in ("raw", "force", "oversubscribed"):
        assert plan[flag] is False
    assert "nprocs" not in plan
    meta = plan["meta"]
    assert meta["command_line"] == (
        "mpiscope run bcast,allreduce --sizes 1:16:x4 --confidence 0.99 --out r.json"
    )
    assert meta["launcher"] == f"{fake_mpi.mpiexec} -n 2"
    assert meta["mpi_implementation"] == "mpich"
    call = fake_mpi.mpiexec_call()
    assert call["args"][:3] == ["-n", "2", str(fake_mpi.bench)]
    assert call["env"]["PYTHONPATH"] is None


def test_the_plan_travels_as_one_private_file(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "4K", "--out", "r.json"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    argv = fake_mpi.bench_call()["argv"]
    assert argv[0] == "--plan" and len(argv) == 2  # nothing else: the plan is the whole input
    plan_file = Path(argv[1])
    assert plan_file.parent.parent == tmp_path and plan_file.parent.name.startswith(".r.json.")
    assert not plan_file.parent.exists()  # private to the run, gone after it
    assert fake_mpi.bench_plan()["sizes"] == [4096]  # parsed once, an integer in the plan
    assert [p.name for p in tmp_path.iterdir() if p.name != "fakempi"] == ["r.json"]


def test_dry_run_prints_the_plan_and_launches_nothing(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    args = ["run", "bcast,waitpattern_up", "--sizes", "8,1K", "--method", "window,barrier",
            "--gap-ns", "500", "--option", "unit=2000", "--out", "r.json"]  # fmt: skip
    dry = run_cli([*args, "--dry-run"], fake_mpi.env, tmp_path)
    assert dry.code == 0, dry
    assert not fake_mpi.bench_log.exists() and not fake_mpi.mpiexec_log.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["fakempi"]
    shown = json.loads(dry.stdout)
    assert shown["sizes"] == [8, 1024] and shown["methods"] == ["window", "barrier"]
    assert shown["gap_ns"] == 500.0 and shown["op_options"] == {"unit": "2000"}
    assert shown["out"] == str(tmp_path / "r.json")
    run = run_cli(args, fake_mpi.env, tmp_path)
    assert run.code == 0, run
    sent = fake_mpi.bench_plan()
    assert shown["meta"].pop("command_line").endswith(" --dry-run")
    assert sent["meta"].pop("command_line") == shlex.join(["mpiscope", *args])
    assert shown == sent  # what --dry-run shows is what the bench reads
    runs = run_cli([*args, "--runs", "2", "--seed", "3", "--force", "--dry-run"],
                       fake_mpi.env, tmp_path)  # fmt: skip
    plans = json.loads(runs.stdout)
    assert [plan["shuffle"] for plan in plans] == run_seeds(3, 2)


def test_run_shows_the_report_and_the_path(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "1K,4K", "--out", "r.json"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    out = run.stdout.splitlines()
    assert "plain output from the bench" in out  # other bench lines pass through
    assert any(line.startswith("MPI library ") for line in out)
    rows = [line.split() for line in out if line.startswith("bcast ")]
    assert [row[1:3] for row in rows] == [["1", "KiB"], ["4", "KiB"]]
    assert out[-1] == f"result: {tmp_path / 'r.json'}"
    err = run.err_lines
    assert "[1/2] bcast 1 KiB  median 810 ns" in err  # plain progress: not a TTY
    assert "[2/2] bcast 4 KiB  median 810 ns" in err
    assert "mpiscope: warning: clock drift is large" in err


def test_quiet_hides_progress_not_warnings(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(
        ["run", "bcast", "--sizes", "8", "--quiet", "--out", "r.json"], fake_mpi.env, tmp_path
    )
    assert run.code == 0, run
    assert run.err_lines == ["mpiscope: warning: clock drift is large"]


def test_default_out_name(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "8"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    written = sorted(p.name for p in tmp_path.glob("mpiscope-*.json"))
    assert len(written) == 1
    name = written[0]
    assert len(name) == len("mpiscope-YYYYmmdd-HHMMSS.json") and name[17] == "-"


def test_count_rule_and_other_options(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text("old")
    run = run_cli(
        [
            "run",
            "allreduce",
            "--stop",
            "count",
            "--max-valid",
            "50",
            "--cache",
            "warm",
            "--dtype",
            "MPI_INT",
            "--reduce-op",
            "mpi_bxor",
            "--raw",
            "--force",
            "--out",
            "r.json",
            "--timer",
            "TSC",
            "--sync",
            "ring",
            "--align",
            "4096",
            "--trim",
            "0",
            "--window-min-ns",
            "2500",
            "--max-point-seconds",
            "5",
            "--timeout",
            "300",
        ],
        fake_mpi.env,
        tmp_path,
    )
    assert run.code == 0, run
    plan = fake_mpi.bench_plan()
    assert plan["stop"] == "count" and plan["max_launches"] == 100
    assert plan["max_valid"] == 50 and plan["cache"] == ["warm"]
    assert plan["dtype"] == "int" and plan["reduce_op"] == "bxor"
    assert plan["timer"] == "tsc" and plan["sync"] == "ring"
    assert plan["align"] == 4096 and plan["trim"] == 0.0
    assert plan["window_min_ns"] == 2500.0
    assert plan["raw"] is True and plan["force"] is True
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "complete"


def test_nprocs_varies_the_process_count(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--nprocs", "1:2", "--out", "r.json"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    plan = fake_mpi.bench_plan()
    assert plan["nprocs"] == [1, 2] and plan["sizes"] == [1024]
    header = next(line for line in run.stdout.splitlines() if line.startswith("op "))
    assert header.split()[:3] == ["op", "size", "np"]


def test_oversubscribe_with_open_mpi(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    (fake_mpi.profile_dir / "fake.json").unlink()
    fake_mpi.write_profile("openmpi", implementation="openmpi")
    n = len(os.sched_getaffinity(0)) + 1
    run = run_cli(
        ["run", "bcast", "--sizes", "8", "--np", str(n), "--oversubscribe", "--out", "r.json"],
        fake_mpi.env,
        tmp_path,
    )
    assert run.code == 0, run
    call = fake_mpi.mpiexec_call()
    assert call["args"][:3] == ["-n", str(n), "--oversubscribe"]
    assert fake_mpi.bench_plan()["oversubscribed"] is True
    assert fake_mpi.bench_plan()["meta"]["mpi_implementation"] == "openmpi"
    root = "1" if os.geteuid() == 0 else None
    assert call["env"]["OMPI_ALLOW_RUN_AS_ROOT"] == root
    assert call["env"]["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == root


def test_failed_run_shows_the_partial_table(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="fail")
    run = run_cli(["run", "bcast", "--sizes", "8,16", "--out", "r.json"], env, tmp_path)
    assert run.code == 1
    out = run.stdout.splitlines()
    assert out[0].startswith("PARTIAL RESULT: the run did not finish (status: failed)")
    assert any(line.startswith("bcast ") for line in out)
    assert "boom: rank 1 died" in run.stderr  # the bench's stderr passes through
    assert run.err_lines[-1] == (
        "mpiscope: error: mpiscope-bench failed (exit code 3); "
        f"partial result kept in {tmp_path / 'r.json'}"
    )


def test_crash_does_not_show_an_old_file(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="crash")
    old = tmp_path / "r.json"
    old.write_text((Path(__file__).parents[1] / "data" / "sample-result.json").read_text())
    run = run_cli(["run", "bcast", "--sizes", "8", "--out", "r.json", "--force"], env, tmp_path)
    assert run.code == 1
    assert "MPI library" not in run.stdout  # the old file is not this run's result
    assert run.err_lines[-1] == (
        "mpiscope: error: mpiscope-bench failed (exit code 4); no point was measured: "
        f"the previous {old} is kept as it was"
    )


def test_unreadable_partial_file_is_said(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="garbage")
    run = run_cli(["run", "bcast", "--sizes", "8", "--out", "r.json"], env, tmp_path)
    assert run.code == 1
    assert run.err_lines[-1].startswith(
        f"mpiscope: error: mpiscope-bench failed (exit code 5); partial result kept in "
        f"{tmp_path / 'r.json'}, but it cannot be shown: "
    )
    assert "is not valid JSON" in run.err_lines[-1]


@pytest.mark.parametrize("checks", ["0", "1"])
def test_a_result_of_the_wrong_shape_is_one_line(fake_mpi: FakeMpi, tmp_path: Path,
                                                 checks: str) -> None:
    """The bench's own document: its shape is checked whether or not the
    schema is (MPISCOPE_CHECK_DOCUMENTS, set for every other test)."""
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="shapeless", MPISCOPE_CHECK_DOCUMENTS=checks)
    run = run_cli(["run", "bcast", "--sizes", "8", "--out", "r.json"], env, tmp_path)
    assert run.code == 1 and "Traceback" not in run.stderr
    assert run.err_lines[-1].startswith("mpiscope: error: mpiscope-bench wrote an unreadable "
                                        f"result: {tmp_path / 'r.json'} ")
    assert ("points is not a JSON array" if checks == "0" else "points") in run.err_lines[-1]


def test_the_schema_judges_the_benchs_document_when_asked(fake_mpi: FakeMpi,
                                                          tmp_path: Path) -> None:
    """A value only the schema refuses: named with MPISCOPE_CHECK_DOCUMENTS
    (as the tests run), taken as the bench wrote it without (a user's run
    skips the validator's 30 ms)."""
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="offschema")
    run = run_cli(["run", "bcast", "--sizes", "8", "--out", "r.json"], env, tmp_path)
    assert run.code == 1
    assert "launches_total" in run.err_lines[-1] and "schema" in run.err_lines[-1]
    env["MPISCOPE_CHECK_DOCUMENTS"] = "0"
    run = run_cli(["run", "bcast", "--sizes", "8", "--out", "r2.json"], env, tmp_path)
    assert run.code == 0, run
    assert json.loads((tmp_path / "r2.json").read_text())["points"][0]["launches_total"] == -1


def test_op_names_ignore_case(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(
        ["run", "BCast,AllReduce", "--sizes", "8", "--out", "r.json"], fake_mpi.env, tmp_path
    )
    assert run.code == 0, run
    assert fake_mpi.bench_plan()["ops"] == ["bcast", "allreduce"]


def test_timeout_kills_the_process_group(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    child_file = tmp_path / "child.pid"
    env = dict(fake_mpi.env, FAKE_BENCH_MODE="hang", FAKE_BENCH_CHILD=str(child_file))
    run = run_cli(
        ["run", "bcast", "--sizes", "8", "--timeout", "2", "--out", "r.json"], env, tmp_path
    )
    assert run.code == 1
    assert run.err_lines[-1].startswith(
        "mpiscope: error: the run did not finish within --timeout 2 s"
    )
    assert run.err_lines[-1].endswith("no result was written")
    pid = int(child_file.read_text())
    assert not alive(pid), "a process of the bench's group outlived the timeout"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def test_list_ops_table_and_json(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    run = run_cli(["list-ops"], fake_mpi.env, tmp_path)
    assert run.code == 0, run
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["operation", "flags", "description"]
    names = [line.split()[0] for line in lines[2:] if not line.startswith(" ")]
    assert names == [op["name"] for op in FAKE_OPS]
    assert lines[2].split() == ["bcast", "size,root", "MPI_Bcast", "from", "the", "root"]
    assert lines[3].strip() == "size: bytes sent by the root"
    assert lines[-1].strip() == "option unit = 1000 ns: wait step"
    raw = run_cli(["list-ops", "--json"], fake_mpi.env, tmp_path)
    assert raw.code == 0 and json.loads(raw.stdout) == FAKE_OPS


def test_bench_override_without_profile(fake_mpi: FakeMpi, tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    env = dict(fake_mpi.env, MPISCOPE_PROFILE_DIR=str(empty), MPISCOPE_BENCH=str(fake_mpi.bench))
    run = run_cli(["list-ops", "--json"], env, tmp_path)
    assert run.code == 0, run


# --- pieces -----------------------------------------------------------------------


def test_parse_progress_line() -> None:
    event = parse_line(
        '@mpiscope progress {"index": 12, "total": 40, "op": "bcast", "size_bytes": 4096, '
        '"nprocs": 2, "median_ns": 1234.0, "ci_low_ns": 1200, "ci_high_ns": 1260, '
        '"unstable": true}'
    )
    assert event == ProgressEvent(12, 40, "bcast", 4096, 2, 1234.0, 1200.0, 1260.0, True)
    assert format_progress(event, nprocs=2) == "[12/40] bcast 4 KiB  median 1.23 us  UNSTABLE"
    assert format_progress(event, nprocs=4) == "[12/40] bcast 4 KiB np=2  median 1.23 us  UNSTABLE"


def test_parse_other_lines() -> None:
    assert parse_line("@mpiscope warning  TSC is not invariant ") == WarningEvent(
        "TSC is not invariant"
    )
    assert parse_line("hello") == OutputEvent("hello")
    bad = parse_line("@mpiscope progress {not json")
    assert isinstance(bad, WarningEvent) and "unreadable progress line" in bad.text
    assert isinstance(parse_line('@mpiscope progress {"index": 1}'), WarningEvent)


def test_progress_line_with_c_nan() -> None:
    # printf("%g") of a point without valid launch: nan is not JSON, but not fatal either.
    event = parse_line(
        '@mpiscope progress {"index":1,"total":2,"op":"bcast","size_bytes":8,"nprocs":2,'
        '"median_ns":nan,"ci_low_ns":-nan,"ci_high_ns":inf,"unstable":true}'
    )
    assert isinstance(event, ProgressEvent) and event.median_ns is None
    assert format_progress(event) == "[1/2] bcast 8 B np=2  median -  UNSTABLE"


def test_progress_display_plain_and_tty() -> None:
    event = ProgressEvent(1, 2, "bcast", 8, 2, 900.0, None, None, False)
    err, out = io.StringIO(), io.StringIO()
    display = ProgressDisplay(err=err, out=out, tty=False, nprocs=2)
    display(event)
    display(WarningEvent("careful"))
    display(OutputEvent("text"))
    assert err.getvalue() == "[1/2] bcast 8 B  median 900 ns\nmpiscope: warning: careful\n"
    assert out.getvalue() == "text\n"

    err = io.StringIO()
    display = ProgressDisplay(err=err, out=io.StringIO(), tty=True, nprocs=2)
    display(event)
    display(WarningEvent("careful"))
    display.close()
    assert err.getvalue() == (
        "\r\x1b[K[1/2] bcast 8 B  median 900 ns"
        "\r\x1b[Kmpiscope: warning: careful\n[1/2] bcast 8 B  median 900 ns"
        "\r\x1b[K"
    )

    err = io.StringIO()
    quiet = ProgressDisplay(quiet=True, err=err, out=io.StringIO(), tty=True)
    quiet(event)
    assert err.getvalue() == ""


def profile(implementation: str) -> MpiProfile:
    return MpiProfile(
        "x",
        implementation,
        "/opt/mpi",
        "/opt/mpi/bin/mpicc",
        "/opt/mpi/bin/mpiexec",
        "/opt/mpi/bin/mpiscope-bench",
        "test",
    )


def test_mpiexec_command() -> None:
    assert mpiexec_command(profile("mpich"), 4, oversubscribe=True) == [
        "/opt/mpi/bin/mpiexec",
        "-n",
        "4",
    ]
    assert mpiexec_command(profile("openmpi"), 4, oversubscribe=True)[-1] == "--oversubscribe"
    assert "--oversubscribe" not in mpiexec_command(profile("openmpi"), 4)


def test_build_env_is_explicit() -> None:
    env = build_env(
        profile("openmpi"), base={"PATH": "/usr/bin", "PYTHONPATH": "/x", "OMPI_MCA_btl": "self"}
    )
    assert env["PATH"] == "/opt/mpi/bin:/usr/bin"
    assert "PYTHONPATH" not in env and env["OMPI_MCA_btl"] == "self"
    assert ("OMPI_ALLOW_RUN_AS_ROOT" in env) == (os.geteuid() == 0)
    assert "OMPI_ALLOW_RUN_AS_ROOT" not in build_env(profile("mpich"), base={})


def write_profile(directory: Path, name: str, implementation: str = "mpich") -> None:
    data = {
        "name": name,
        "implementation": implementation,
        "prefix": "/p",
        "mpicc": "/p/mpicc",
        "mpiexec": "/p/mpiexec",
        "bench": f"/p/{name}/mpiscope-bench",
    }
    (directory / f"{name}.json").write_text(json.dumps(data))


def test_profile_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("MPISCOPE_MPI", "MPIEXEC", "MPISCOPE_BENCH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(tmp_path))
    write_profile(tmp_path, "openmpi", "openmpi")
    assert select_profile().name == "openmpi"  # the only one
    write_profile(tmp_path, "mpich")
    assert select_profile().name == "mpich"  # the default when present
    assert select_profile("openmpi").implementation == "openmpi"
    monkeypatch.setenv("MPISCOPE_MPI", "openmpi")
    assert select_profile().name == "openmpi"
    assert select_profile("mpich").name == "mpich"  # --mpi beats the variable
    monkeypatch.setenv("MPIEXEC", "/elsewhere/mpiexec")
    monkeypatch.setenv("MPISCOPE_BENCH", "/elsewhere/bench")
    chosen = select_profile()
    assert (chosen.mpiexec, chosen.bench) == ("/elsewhere/mpiexec", "/elsewhere/bench")


def test_several_profiles_without_mpich(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MPISCOPE_MPI", raising=False)
    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(tmp_path))
    write_profile(tmp_path, "openmpi", "openmpi")
    write_profile(tmp_path, "cluster", "other")
    with pytest.raises(MpiscopeError, match="several MPI installations"):
        select_profile()


def test_bad_profile_implementation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(tmp_path))
    write_profile(tmp_path, "mpich", "intel")
    with pytest.raises(MpiscopeError, match="implementation 'intel'"):
        select_profile("mpich")


def test_help_imports_nothing_heavy() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mpiscope.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'numpy', 'jsonschema', 'pandas', 'scipy', 'matplotlib'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_command_imports_its_own_module_only() -> None:
    """`mpiscope run ...` builds the run command's parser alone, and importing
    the package does not import the result reader: a launch starts sooner."""
    import subprocess
    import sys

    code = (
        "import sys, mpiscope.cli; before = 'mpiscope.result' in sys.modules; "
        "mpiscope.cli.build_parser(mpiscope.cli._commands_of(['run', '--np', '2'])); "
        "print(before, sorted(m for m in sys.modules if m.startswith('mpiscope.commands.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False ['mpiscope.commands.run']", out.stdout
