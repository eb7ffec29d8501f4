"""The Python API (mpiscope.run, methods, firstcall, ...) and the typed
requests under it: the same plan, the same checks and messages as the
command line, a Result as mpiscope.load_result gives, nothing printed
unless asked; and no function below the commands takes a Namespace.

The unit tests run the API in this process against the fake bench
(mpiscope_fakes.py); the ``mpi`` test measures with the real one.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mpiscope
from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.measure.command_options import add_run_options
from mpiscope.measure.options import engine_parameters, measure_defaults
from mpiscope.measure.request import MeasureRequest, RunRequest
from mpiscope.parsing import Parser
from mpiscope.record import fields
from mpiscope.result import Result, load_result
from mpiscope_fakes import FakeMpi, run_cli

PACKAGE = Path(mpiscope.__file__).resolve().parent


@pytest.fixture
def fake_env(fake_mpi: FakeMpi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeMpi:
    """This process in the fake MPI's environment, in tmp_path."""
    for key in set(os.environ) - set(fake_mpi.env):
        monkeypatch.delenv(key)
    for key, value in fake_mpi.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    return fake_mpi


def _nothing_launched(fake: FakeMpi) -> None:
    assert not fake.bench_log.exists() and not fake.mpiexec_log.exists()


def test_run_returns_the_result_load_result_gives(
    fake_env: FakeMpi, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = mpiscope.run("bcast", np=2, sizes="8,1K", out="r.json")
    assert isinstance(result, Result)
    assert result.path == tmp_path / "r.json"
    assert result.data == load_result(tmp_path / "r.json").data
    assert result.points and {p.op for p in result.points} == {"bcast"}
    plan = fake_env.bench_plan()
    assert plan["sizes"] == [8, 1024] and plan["ranks"] == 2
    # the result says how to measure it again from the command line
    command = "mpiscope run bcast --np=2 --sizes=8,1K --out=r.json --quiet"
    assert plan["meta"]["command_line"] == command
    # nothing of mpiscope's own (no progress, no report): the bench's own
    # lines pass through as with --quiet (the fake bench says one of each)
    assert capsys.readouterr() == ("plain output from the bench\n",
                                   "mpiscope: warning: clock drift is large\n")


def test_show_prints_what_the_command_prints(
    fake_env: FakeMpi, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mpiscope.run(["bcast", "allreduce"], sizes=[8, 1024], out=tmp_path / "r.json", show=True)
    shown = capsys.readouterr().out
    cli = run_cli(["run", "bcast,allreduce", "--sizes", "8,1K", "--out", "c.json"],
                  fake_env.env, tmp_path)  # fmt: skip
    assert cli.code == 0, cli
    assert shown.replace("r.json", "c.json") == cli.stdout


def test_the_api_and_the_command_line_send_one_plan(fake_env: FakeMpi, tmp_path: Path) -> None:
    options: dict[str, Any] = {
        "np": 2, "sizes": "1:16:x4", "confidence": 0.99, "method": ["window", "barrier"],
        "cache": "cold,warm", "option": {"unit": "2000"}, "gap_ns": 500, "raw": True,
        "runs": 2, "seed": 7, "run_profile": "off",
    }  # fmt: skip
    mpiscope.run("bcast,waitpattern_up", out="api.json", **options)
    api = fake_env.all_bench_plans()
    argv = ["run", "bcast,waitpattern_up", "--out", "cli.json"]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif name == "option":
            argv += [flag, "unit=2000"]
        else:
            argv += [flag, ",".join(value) if isinstance(value, list) else str(value)]
    cli = run_cli(argv, fake_env.env, tmp_path)
    assert cli.code == 0, cli
    both = fake_env.all_bench_plans()[len(api):]
    assert len(api) == len(both) == 2
    for mine, theirs in zip(api, both, strict=True):
        for plan in (mine, theirs):
            del plan["out"], plan["meta"]["command_line"]
        assert mine == theirs


@pytest.mark.parametrize(
    ("options", "argv"),
    [
        ({"np": 0}, ["--np", "0"]),
        ({"np": "two"}, ["--np", "two"]),
        ({"confidence": 1.5}, ["--confidence", "1.5"]),
        ({"sizes": "lots"}, ["--sizes", "lots"]),
        ({"sizes": "1:1M:x1"}, ["--sizes", "1:1M:x1"]),
        ({"timer": "rdtsc"}, ["--timer", "rdtsc"]),
        ({"dtype": "dubble"}, ["--dtype", "dubble"]),
        ({"reduce_op": "bxor"}, ["--reduce-op", "bxor"]),
        ({"root": 2}, ["--root", "2"]),
        ({"nprocs": "2,3"}, ["--nprocs", "2,3"]),
        ({"cache": "hot"}, ["--cache", "hot"]),
        ({"out": ""}, ["--out", ""]),
        ({"max_point_seconds": float("inf")}, ["--max-point-seconds", "inf"]),
        ({"hosts": "a", "hostfile": "h"}, ["--hosts", "a", "--hostfile", "h"]),
        ({"srun_nodes": 2}, ["--nodes", "2"]),
    ],
)
def test_bad_options_are_refused_with_the_command_lines_line(
    fake_env: FakeMpi, tmp_path: Path, options: dict[str, Any], argv: list[str]
) -> None:
    with pytest.raises(MpiscopeError) as caught:
        mpiscope.run("bcast", **options)
    cli = run_cli(["run", "bcast", *argv], fake_env.env, tmp_path)
    assert cli.code == 2 and len(cli.err_lines) == 1, cli
    assert cli.err_lines[0] == "mpiscope: error: " + " ".join(str(caught.value).split())
    _nothing_launched(fake_env)


def test_an_unknown_op_is_refused_as_the_command_line_refuses_it(fake_env: FakeMpi) -> None:
    with pytest.raises(MpiscopeError, match=r"unknown operation 'bcats' \(did you mean 'bcast'"):
        mpiscope.run("bcats")
    _nothing_launched(fake_env)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mpiscope.run("bcast", npp=2),
         r"mpiscope.run\(\): unknown option 'npp' \(did you mean 'np'\?\)"),
        (lambda: mpiscope.run("bcast", raw="yes"), r"--raw: raw= takes True or False, not 'yes'"),
        (lambda: mpiscope.run("bcast", np=object()), "cannot be an option"),
        (lambda: mpiscope.methods("bcast", runs=3), "unknown option 'runs'"),
        (lambda: mpiscope.firstcall("bcast", size="8,16"), "--size must be one size, not 2"),
        (lambda: mpiscope.overlap("ibcast,iallreduce"), "overlap takes one operation"),
        (lambda: mpiscope.startup(how="init,boot"), "'boot' is not one of init"),
    ],
)
def test_what_only_the_api_can_get_wrong_is_one_line_too(
    fake_env: FakeMpi, call: Any, message: str
) -> None:
    with pytest.raises(MpiscopeError, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)
    _nothing_launched(fake_env)


def test_dry_run_prints_the_plan_and_returns_none(
    fake_env: FakeMpi, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert mpiscope.run("bcast", sizes=[8, "1K"], dry_run=True, out="r.json") is None
    plan = json.loads(capsys.readouterr().out)
    assert plan["sizes"] == [8, 1024] and plan["out"] == str(tmp_path / "r.json")
    _nothing_launched(fake_env)
    assert not (tmp_path / "r.json").exists()


def test_a_failed_run_raises_and_keeps_what_it_measured(
    fake_env: FakeMpi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_BENCH_MODE", "fail")
    with pytest.raises(RunFailedError, match="partial result kept in"):
        mpiscope.run("bcast", sizes="8", out="r.json")
    assert load_result(tmp_path / "r.json").status != "complete"


def test_the_other_measuring_commands(fake_env: FakeMpi, tmp_path: Path) -> None:
    both = mpiscope.methods(["bcast"], sizes="8", method="barrier", out="m.json")
    assert both is not None and fake_env.bench_plan()["methods"] == ["window", "barrier"]
    assert {p.get("method") for p in both.points} == {"window", "barrier"}
    first = mpiscope.firstcall("bcast,allreduce", out="f.json")
    assert first is not None and first.path == tmp_path / "f.json"
    assert [p["ops"] for p in fake_env.all_bench_plans()[-2:]] == [["bcast"], ["allreduce"]]
    assert all(p["firstcall"] and p["sizes"] == [8192] for p in fake_env.all_bench_plans()[-2:])


def test_a_request_has_the_options_names_and_the_registrys_defaults() -> None:
    """One field per option of ``run`` (the engine's parameters: ``engine``),
    named as the option is; the defaults are the registry's alone."""
    defaults = measure_defaults()
    engine = {p["name"] for p in engine_parameters()}
    own = set(fields(MeasureRequest)) - {"engine", "ops", "argv", "ranks_per_host"}
    assert own == set(defaults) - engine
    assert all(not hasattr(MeasureRequest, name) for name in own)  # no defaults here
    parser = Parser(prog="mpiscope run")
    add_run_options(parser)
    parsed = vars(parser.parse_args(["bcast"]))
    request = RunRequest.of(parsed)
    shared = own | {"engine", "ops", "argv", "ranks_per_host"}
    assert set(fields(RunRequest)) - shared == {"run_profile", "ledger"}
    assert all(request.param(name) == defaults[name] for name in engine)
    assert request.cache == tuple(defaults["cache"]) and request.ops == "bcast"
    changed = request.with_options(np=4, root=3)
    assert (changed.np, changed.param("root"), request.param("root")) == (4, 3, 0)
    with pytest.raises(TypeError, match="no option 'nope'"):
        request.with_options(nope=1)
    with pytest.raises(AttributeError, match="does not change"):
        request.np = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="is missing 'launcher'"):
        RunRequest(np=2)


def _namespace_parameters(package: Path) -> list[str]:
    """Functions below the commands with a parameter annotated as an
    argparse Namespace: ``module:line function(parameter)``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] == "commands" or relative.name == "cli.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                if arg.annotation is not None and "Namespace" in ast.unparse(arg.annotation):
                    found.append(f"{relative}:{node.lineno} {node.name}({arg.arg})")
    return found


def test_no_function_below_the_commands_takes_a_namespace(tmp_path: Path) -> None:
    assert _namespace_parameters(PACKAGE) == []
    planted = tmp_path / "mpiscope" / "measure"
    planted.mkdir(parents=True)
    (planted / "plan.py").write_text(
        "import argparse\n\n\ndef plan_run(args: argparse.Namespace) -> None:\n    pass\n"
    )
    assert _namespace_parameters(tmp_path / "mpiscope") == ["measure/plan.py:4 plan_run(args)"]


def test_the_package_face_imports_the_api_when_it_is_used() -> None:
    code = (
        "import sys, mpiscope; before = 'mpiscope.measure.plan' in sys.modules; "
        "mpiscope.run; print(before, 'mpiscope.measure.plan' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
    from mpiscope import api

    assert set(api.__all__) <= set(mpiscope.__all__)


@pytest.mark.mpi
def test_a_real_measurement_through_the_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = mpiscope.run("bcast", np=2, sizes="8,1K")
    assert isinstance(result, Result) and result.status == "complete"
    assert [(p.op, p.size_bytes) for p in result.points] == [("bcast", 8), ("bcast", 1024)]
    assert all(p.median_ns is not None and p.median_ns > 0 for p in result.points)
    assert result.path is not None and result.path.parent == tmp_path
    assert load_result(result.path).data == result.data


def test_the_health_check_refuses_bad_options_in_one_line(tmp_path: Path) -> None:
    unknown = r"mpiscope.health_check\(\): unknown option 'pair_samples'"
    with pytest.raises(MpiscopeError, match=unknown):
        mpiscope.health_check(np=2, out=tmp_path / "h.json", pair_samples=3)
    with pytest.raises(MpiscopeError, match="--np 1: a health check needs 2 ranks at least"):
        mpiscope.health_check(np=1, out=tmp_path / "h.json")
    with pytest.raises(MpiscopeError, match="invalid choice: 'pairs'"):
        mpiscope.health_check(np=2, links="pairs", out=tmp_path / "h.json")
    with pytest.raises(MpiscopeError, match="--ops ' , ': no operation"):
        mpiscope.health_check(np=2, ops=" , ", out=tmp_path / "h.json")
    assert not (tmp_path / "h.json").exists()


@pytest.mark.mpi
@pytest.mark.slow
def test_a_real_health_check_through_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check's document, its text as `mpiscope health report` prints it,
    and the exit code the command gives; nothing printed."""
    out = tmp_path / "h.json"
    health = mpiscope.health_check(np=2, seconds=0.5, probe_seconds=0.2, no_check=True, out=out)
    assert capsys.readouterr().out == ""
    assert health.path == out and json.loads(out.read_text()) == health.document
    assert health.document["status"] == "complete"
    assert [p["status"] for p in health.document["phases"]] == ["complete"] * 4 + ["skipped"]
    assert health.exit_code == (1 if health.suspects else 0)
    report = subprocess.run([sys.executable, "-m", "mpiscope", "health", "report", str(out)],
                            capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert report.returncode == health.exit_code and report.stdout == health.text() + "\n"
    assert mpiscope.open_health(out).text() == health.text()
