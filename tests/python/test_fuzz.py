"""Fuzzing (issue 13, "make it stay fixed"): the result reader and the
command line's option parsing fed generated malformed input. Whatever the
input, the outcome is a result or one ``mpiscope: error:`` line: never a
traceback. Hypothesis draws a bounded, derandomized set of cases (the same
ones on every run), so a failure is reproducible and the suite stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpiscope import cli
from mpiscope.errors import MpiscopeError
from mpiscope.reports.report import render_report
from mpiscope.result import parse_result
from mpiscope_fakes import SAMPLE, FakeMpi

SAMPLE_TEXT = SAMPLE.read_text()
SAMPLE_DOC: dict[str, Any] = json.loads(SAMPLE_TEXT)

FUZZ = settings(
    max_examples=150, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


def read_or_refuse(text: str) -> None:
    """Read ``text`` as a result document and render it: a valid document
    renders, anything else is one MpiscopeError line."""
    try:
        result = parse_result(text, source="fuzzed.json")
    except MpiscopeError as exc:
        assert "\n" not in str(exc), str(exc)
        return
    render_report(result)


# --- the result reader -------------------------------------------------------------


@FUZZ
@given(st.data())
def test_flipped_and_cut_bytes(data: st.DataObject) -> None:
    """The sample document with bytes replaced, cut off or inserted."""
    text = SAMPLE_TEXT
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        edit = data.draw(st.sampled_from(["replace", "cut", "insert"]))
        junk = data.draw(st.text(min_size=1, max_size=8))
        if edit == "replace":
            text = text[:at] + junk + text[at + len(junk) :]
        elif edit == "cut":
            text = text[:at]
        else:
            text = text[:at] + junk + text[at:]
    read_or_refuse(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),  # fmt: skip
    max_leaves=8,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:2]):
            found += _paths(value, (*prefix, index))
    return found


PATHS = _paths(SAMPLE_DOC)[1:]


def _mutated(path: tuple[Any, ...], value: Any, remove: bool) -> Any:
    """The sample document with the field at ``path`` set to ``value``, or removed."""
    doc = json.loads(SAMPLE_TEXT)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if remove and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


@FUZZ
@given(st.sampled_from(PATHS), JSON_VALUES, st.booleans())
def test_fields_replaced_or_removed(path: tuple[Any, ...], value: Any, remove: bool) -> None:
    """The sample document with one field given another JSON value, or removed."""
    read_or_refuse(json.dumps(_mutated(path, value, remove)))


@FUZZ
@given(st.sampled_from(PATHS), JSON_VALUES, st.booleans())
def test_the_compiled_validator_accepts_only_what_jsonschema_accepts(
    path: tuple[Any, ...], value: Any, remove: bool
) -> None:
    """The fast path (jsonschema_rs) never lets through a document jsonschema
    refuses: a document it accepts is not validated a second time."""
    import jsonschema

    from mpiscope.result.document import _fast_valid, result_schema

    assert _fast_valid(SAMPLE_DOC, result_schema()) or not _has_fast_validator()

    doc = _mutated(path, value, remove)
    if _fast_valid(doc, result_schema()):
        jsonschema.validate(doc, result_schema(), cls=jsonschema.Draft202012Validator)


def _has_fast_validator() -> bool:
    from mpiscope.result.document import _fast_validator_module

    return _fast_validator_module() is not None


@FUZZ
@given(st.integers(1, 200_000), st.sampled_from(["[", "{\"a\":"]))
def test_deep_nesting(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    read_or_refuse(opener * depth + closer * depth)


# --- the command line's options -----------------------------------------------------


def _run_options() -> list[str]:
    """Every option of ``mpiscope run`` that takes a value."""
    commands = next(a for a in cli.build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))  # fmt: skip
    run = commands.choices["run"]
    return sorted(o for a in run._actions if a.nargs is None and a.option_strings
                  for o in a.option_strings if o.startswith("--"))  # fmt: skip


RUN_OPTIONS = _run_options()
VALUES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "-1", "0", "nan", "inf", "1e400", "9" * 30, "1:1M:x0", "8,,8",
                     "64T", "late:9:1", "a=b", "=", "\x00", "--np", "1:0"]),  # fmt: skip
)


@pytest.fixture
def fake_env(fake_mpi: FakeMpi, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeMpi:
    for key, value in fake_mpi.env.items():
        if os.environ.get(key) != value:
            monkeypatch.setenv(key, value)
    for key in ("MPISCOPE_MPI", "MPISCOPE_BENCH", "MPIEXEC"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    return fake_mpi


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(RUN_OPTIONS), VALUES), min_size=1, max_size=4))
def test_run_options(fake_env: FakeMpi, capsys: pytest.CaptureFixture[str],
                     options: list[tuple[str, str]]) -> None:  # fmt: skip
    """``mpiscope run bcast`` with generated option values, as a dry run
    (nothing is launched): success, or one error line and exit code 2."""
    argv = ["run", "bcast", "--dry-run", "--out", "fuzz.json", "--force"]
    for option, value in options:
        argv += [f"{option}={value}"]
    code = cli.main(argv)
    err = capsys.readouterr().err
    if code == 0:
        return
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("mpiscope: error: "), (argv, err)


@FUZZ
@given(st.lists(st.text(max_size=10), max_size=5))
def test_any_words(capsys: pytest.CaptureFixture[str], words: list[str]) -> None:
    """Any words after a reading command: one error line (or a result shown)."""
    for command in ("report", "export", "compare"):
        try:
            code = cli.main([command, *words])
        except SystemExit as exc:  # --help, --version
            assert exc.code == 0
            continue
        err = capsys.readouterr().err
        lines = err.splitlines()
        assert code == 0 or (len(lines) == 1 and lines[0].startswith("mpiscope: error: ")), (
            command, words, err,
        )  # fmt: skip
