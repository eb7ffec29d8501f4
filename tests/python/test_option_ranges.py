"""Every option of every command, driven with values outside its own range
(issue 25): one line ``mpiscope: error: ...`` naming the option, exit code
2, no traceback, nothing created, nothing launched.

The values come from each option's definition: an option typed
:class:`~mpiscope.parsing.Ranged` (or a subclass: durations, frequencies,
byte sizes) says its range, and hypothesis draws values just outside it,
far outside it, NaN, infinities and text that is no number; a choice is
driven with names it does not know. The commands run in this process with
no MPI installation at all (an empty profile directory, an empty PATH), so
a check that happened after a launch would fail here with another message.
A second test holds the rule itself: no numeric option without a range.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpiscope import cli
from mpiscope.commands import trace
from mpiscope.parsing import Ranged

DRIVE = settings(
    max_examples=12, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip


def _walk(parser: argparse.ArgumentParser, path: list[str]) -> Iterator[tuple[list[str], argparse.Action]]:  # noqa: E501
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, [*path, name])
        elif action.option_strings and not isinstance(action, argparse._HelpAction):
            yield path, action


def all_options() -> list[tuple[list[str], argparse.Action]]:
    """(command path, option) of every command, trace's views included."""
    found = list(_walk(cli.build_parser(), []))
    for view in trace.VIEWS:
        found += list(_walk(trace._view_parser(view), ["trace", view]))
    return found


def _id(item: tuple[list[str], argparse.Action]) -> str:
    path, action = item
    return " ".join([*path, action.option_strings[-1]])


RANGED = [item for item in all_options() if isinstance(item[1].type, Ranged)]
TAKES_VALUE = (argparse._StoreAction, argparse._AppendAction)


def outside(kind: Ranged) -> st.SearchStrategy[str]:
    """Text an option of range ``kind`` must refuse."""
    low, high = float(kind.low), float(kind.high)
    below = st.floats(max_value=low, allow_nan=False, allow_infinity=False,
                      exclude_max=not kind.low_open)  # fmt: skip
    above = st.floats(min_value=high, allow_nan=False, allow_infinity=False,
                      exclude_min=not kind.high_open)  # fmt: skip
    if kind.integer:
        below = st.integers(max_value=math.ceil(low) - (0 if kind.low_open else 1))
        above = st.integers(min_value=math.floor(high) + (0 if kind.high_open else 1))
    numbers = st.one_of(below, above).map(kind.text)
    words = st.sampled_from(["nan", "inf", "-inf", "zz", "1..2", "0x", "1e", "½", " 7"])
    units = st.sampled_from([kind.text(math.nan), kind.text(math.inf)])
    return st.one_of(numbers, words, units)


def refused(argv: list[str], flag: str, capsys: pytest.CaptureFixture[str], where: Path) -> None:
    """``argv`` ends as one error line naming ``flag``, exit code 2, and
    leaves nothing in ``where``."""
    code = cli.main(argv)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2, (argv, err)
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error:"), (argv, err)
    assert flag in lines[0], (argv, lines[0])
    assert "Traceback" not in err
    assert list(where.iterdir()) == [], (argv, list(where.iterdir()))


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no MPI reachable: nothing can be launched."""
    work = tmp_path / "work"
    work.mkdir()
    empty = tmp_path / "no-profiles"
    empty.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("MPISCOPE_PROFILE_DIR", str(empty))
    monkeypatch.setenv("PATH", str(empty))
    for name in ("MPISCOPE_BENCH", "MPIEXEC", "MPISCOPE_MPI", "MPISCOPE_RUN_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return work


@pytest.mark.parametrize("item", RANGED, ids=_id)
def test_a_value_outside_the_range_is_one_line(
    item: tuple[list[str], argparse.Action], nowhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, action = item
    flag = action.option_strings[-1]

    @DRIVE
    @given(value=outside(action.type))
    def drive(value: str) -> None:
        refused([*path, f"{flag}={value}"], flag, capsys, nowhere)

    drive()


def _is_choice(kind: object) -> bool:
    return getattr(kind, "__qualname__", "").startswith("choice.")


CHOICES = [item for item in all_options()
           if isinstance(item[1], TAKES_VALUE) and (item[1].choices or _is_choice(item[1].type))]


@pytest.mark.parametrize("item", CHOICES, ids=_id)
def test_an_unknown_choice_is_one_line(
    item: tuple[list[str], argparse.Action], nowhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, action = item
    flag = action.option_strings[-1]

    @DRIVE
    @given(value=st.text(alphabet="qxzj#%", min_size=1, max_size=8))
    def drive(value: str) -> None:
        refused([*path, f"{flag}={value}"], flag, capsys, nowhere)

    drive()


def test_the_drive_reaches_every_command() -> None:
    """The walk finds the ranged options of every command (a command whose
    parser is built another way would be left undriven)."""
    commands = {item[0][0] for item in RANGED}
    assert commands >= {"run", "methods", "overlap", "firstcall", "check", "trace", "noise",
                        "alltoall", "model"}, commands  # fmt: skip
    assert {" ".join(item[0][:2]) for item in RANGED} >= {
        "trace heatmap", "trace summary", "noise run", "noise probe", "alltoall fft",
        "model fit", "model predict"}  # fmt: skip


def test_no_numeric_option_without_a_range() -> None:
    """The rule itself: an option that takes a number (typed int or float, or
    with a numeric default) is a Ranged type, so its range is documented
    and checked where it is defined."""
    loose = []
    for path, action in all_options():
        if not isinstance(action, TAKES_VALUE) or isinstance(action.type, Ranged):
            continue
        numeric = action.type in (int, float) or (
            isinstance(action.default, (int, float)) and not isinstance(action.default, bool))
        if numeric:
            loose.append(_id((path, action)))
    assert loose == []


def test_the_error_says_the_range(nowhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "bcast", "--gap-ns", "1e18"]) == 2
    assert "--gap-ns: must be in [0, 1e+12], not 1e18" in capsys.readouterr().err
    assert cli.main(["noise", "run", "--detector", "barrier", "--np", "2", "--out", "n.json",
                     "--packet", "1e300s"]) == 2  # fmt: skip
    assert "--packet: must be in (0, 86400], not 1e300s" in capsys.readouterr().err
    assert os.listdir(nowhere) == []
