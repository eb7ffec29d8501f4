"""The engine's description (``mpiscope-bench --describe``) checked in as
python/mpiscope/result/describe.json: it is the bench's current output, and
the command line takes its choices and defaults from it (a parameter, method
or op flag added in C reaches ``mpiscope run`` without a Python edit)."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import mpiscope.measure.defaults as defaults
import mpiscope.measure.options as options
import mpiscope.measure.request as request
from mpiscope.measure.command_options import add_run_options
from mpiscope.measure.method_options import ARRIVAL_KINDS, CACHE_MODES
from mpiscope.measure.plan import RunPlan, bench_plan
from mpiscope.measure.request import RunRequest
from mpiscope.mpi_profile import MpiProfile, find_profiles
from mpiscope.parsing import Parser
from mpiscope.reports.plots.bandwidth import BANDWIDTH_OPS
from mpiscope.result.describe import description, names, parameter
from mpiscope.result.methods import DEFAULT_METHOD, METHODS
from real_bench import REAL_MPI

REGENERATE = (
    "mpiscope-bench --describe | python -m json.tool --indent 1 "
    "> python/mpiscope/result/describe.json"
)


@pytest.mark.mpi
def test_checked_in_description_is_the_bench_output() -> None:
    bench = find_profiles()[REAL_MPI].bench
    out = subprocess.run([bench, "--describe"], capture_output=True, text=True, timeout=60,
                         check=True)  # fmt: skip
    assert json.loads(out.stdout) == description(), f"describe.json is out of date: {REGENERATE}"


def test_vocabulary_comes_from_the_description() -> None:
    assert list(METHODS) == list(names("methods"))
    assert METHODS["bcast-supinski"].only_ops == ("bcast", "bcast_c", "linear_bcast")
    assert [m for m, info in METHODS.items() if info.scheduled] == ["window", "roundtime"]
    assert [DEFAULT_METHOD] == parameter("methods")["default"]
    assert list(options.DTYPES) == list(names("element_types"))
    assert list(options.REDUCE_OPS) == list(names("reductions"))
    assert options.TIMERS == names("timers") and options.STOP_RULES == names("stop_rules")
    assert CACHE_MODES == names("cache") and "late" in ARRIVAL_KINDS
    assert BANDWIDTH_OPS == {op["name"] for op in description()["ops"] if op["bandwidth"]}
    assert "bcast" in BANDWIDTH_OPS and "barrier" not in BANDWIDTH_OPS
    # the MPI standard's rules: every element type has a kind, every reduction a use
    assert options.DTYPES["double"] == "floating" and options.DTYPES["uint8_t"] == "integer"
    assert all(options.REDUCE_OPS[name] for name in options.REDUCE_OPS)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="mpiscope run")
    options.add_measure_options(parser)
    return parser


def _run_request(argv: list[str]) -> RunRequest:
    parser = Parser(prog="mpiscope run")
    add_run_options(parser)
    return RunRequest.of(vars(parser.parse_args(["bcast", *argv])))


def test_defaults_and_ranges_are_the_engines() -> None:
    args = _parser().parse_args([])
    real = _run_request([])
    for name in defaults.ALWAYS_PASSED:  # as the bench gets them (a real cluster's)
        assert real.value(name) == parameter(name)["default"], name
    simulated = _run_request(["--launcher", "smpi"])
    for name, value in defaults.SIMULATED_DEFAULTS.items():
        if name == "ledger":  # run's own option, not the engine's
            assert real.ledger_on() and not simulated.ledger_on()
        else:
            assert simulated.value(name) == value, name
    assert args.cache == parameter("cache")["default"]
    with pytest.raises(Exception, match="must be at most 64"):
        _parser().parse_args(["--k", "65"])


def test_a_new_engine_parameter_becomes_a_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    knob: dict[str, Any] = {
        "name": "new_knob", "type": "integer", "default": 3, "unit": "launches", "min": 1,
        "max": 9, "choices": None, "help": "a knob added in C",
    }  # fmt: skip
    grown = {**description(), "plan_parameters": [*description()["plan_parameters"], knob]}
    monkeypatch.setattr(options, "description", lambda: grown)
    monkeypatch.setattr(request, "description", lambda: grown)
    parser = _parser()
    assert "a knob added in C" in parser.format_help()
    args = parser.parse_args(["--new-knob", "5"])
    profile = MpiProfile("fake", "mpich", "", "", "mpiexec", "bench", "test")
    plan = RunPlan(["bcast"], [8], None, Path("x.json"), False, 10)
    doc = bench_plan(request.MeasureRequest.of(vars(args)), plan, profile, ["mpiexec"])
    assert doc["new_knob"] == 5
    assert "k" not in doc  # engine parameters not given stay the bench's
