"""The recorded fixtures and the fake bench write what the real bench writes.

Many tests read tests/data/*.json or run the fake bench of mpiscope_fakes.py
instead of a real MPI. Both are only as good as their likeness to what the
real mpiscope-bench writes today: here the same command runs on the real
MPICH build and through the fake, and the documents must have the same shape
(the same fields at every level, of the same JSON types; a value that is
null in one may be anything in the other, and an empty list matches any
list). When this fails after a deliberate change of the document, record
the fixtures again: ``.venv/bin/python tests/data/record.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mpiscope_fakes import SAMPLE, FakeMpi, run_cli
from real_bench import mpiscope

DATA = Path(__file__).resolve().parents[1] / "data"
RECORD = "record the fixtures again: .venv/bin/python tests/data/record.py"
#: Fields the real bench writes only in a case its recorded runs may not
#: show: why a timer is unavailable (src/engine/check_json.c writes it, and
#: nothing else, for a timer this machine lacks).
CONDITIONAL = {".check.timers[].why_unavailable"}


def shape(value: Any) -> Any:
    """The JSON shape of a value: field names and types, not values."""
    if isinstance(value, dict):
        return {key: shape(v) for key, v in value.items()}
    if isinstance(value, list):
        merged: Any = None
        for item in value:
            merged = _merge(merged, shape(item))
        return [merged]
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def _merge(a: Any, b: Any) -> Any:
    """One shape for the items of a list (the union of their fields)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a.get(k), b.get(k)) for k in {**a, **b}}
    return a


def differences(real: Any, other: Any, where: str = "") -> Iterator[str]:
    """Where two shapes differ (a null or an empty list matches anything)."""
    if real is None or other is None or [None] in (real, other):
        return
    if isinstance(real, dict) and isinstance(other, dict):
        for key in real.keys() - other.keys():
            yield f"{where}.{key}: only in the real document"
        for key in other.keys() - real.keys():
            yield f"{where}.{key}: not in the real document"
        for key in real.keys() & other.keys():
            yield from differences(real[key], other[key], f"{where}.{key}")
    elif isinstance(real, list) and isinstance(other, list):
        yield from differences(real[0], other[0], f"{where}[]")
    elif real != other:
        yield f"{where}: {real} in the real document, {other} here"


def assert_same_shape(real: dict[str, Any], other: dict[str, Any], what: str) -> None:
    found = sorted(d for d in differences(shape(real), shape(other))
                   if d.split(":")[0] not in CONDITIONAL)  # fmt: skip
    assert not found, f"{what} differs from the real bench's document ({RECORD}):\n" + "\n".join(
        found[:40])


def test_shapes_are_compared_field_by_field() -> None:
    """The comparison itself: a missing field, a changed type and a field in
    only some points are found; values, nulls and empty lists are not."""
    real = {"a": 1, "b": {"c": "x"}, "points": [{"x": 1}, {"x": 2, "y": True}], "e": []}
    assert not list(differences(shape(real), shape(
        {"a": 9.5, "b": {"c": "z"}, "points": [{"x": None, "y": False}], "e": [1]})))
    found = set(differences(shape(real), shape(
        {"a": "1", "b": {}, "points": [{"x": 1}], "e": [], "f": 0})))
    assert found == {".a: number in the real document, string here",
                     ".b.c: only in the real document", ".points[].y: only in the real document",
                     ".f: not in the real document"}  # fmt: skip


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What the real MPICH bench writes for each recorded fixture's command."""
    import sys

    sys.path.insert(0, str(DATA))
    from record import RUNS  # the commands the fixtures were recorded with

    where = tmp_path_factory.mktemp("real")
    docs = {}
    for name in ("sample", "check", "firstcall", "methods", "startup", "threads"):
        _, args = RUNS[name]
        proc = mpiscope(*args, "--out", f"{name}.json", "--quiet", cwd=where)
        assert proc.returncode == 0, proc.stderr
        docs[name] = json.loads((where / f"{name}.json").read_text())
    return docs


@pytest.mark.mpi
@pytest.mark.parametrize(("name", "path"), [("sample", SAMPLE),
                                            ("check", DATA / "check-result.json"),
                                            ("firstcall", DATA / "firstcall-result.json"),
                                            ("methods", DATA / "golden" / "methods.json"),
                                            ("startup", DATA / "startup-result.json"),
                                            ("threads", DATA / "threads-result.json")])
def test_recorded_fixtures_are_what_the_bench_writes_today(
    real_runs: dict[str, dict[str, Any]], name: str, path: Path
) -> None:
    assert_same_shape(real_runs[name], json.loads(path.read_text()), str(path.name))


@pytest.mark.mpi
@pytest.mark.parametrize("name", ["sample", "check", "firstcall", "methods"])
def test_the_fake_bench_writes_what_the_real_one_writes(
    real_runs: dict[str, dict[str, Any]], name: str, fake_mpi: FakeMpi, tmp_path: Path
) -> None:
    import sys

    sys.path.insert(0, str(DATA))
    from record import RUNS

    _, args = RUNS[name]
    run = run_cli([*args, "--mpi", "fake", "--out", "fake.json", "--quiet"], fake_mpi.env,
                  tmp_path)  # fmt: skip
    assert run.code == 0, run
    fake = json.loads((tmp_path / "fake.json").read_text())
    assert_same_shape(real_runs[name], fake, f"the fake bench's document for {' '.join(args)}")


@pytest.mark.mpi
def test_the_sync_entry_of_the_sync_tests_is_what_the_bench_writes(tmp_path: Path) -> None:
    """test_check_sync.py's TREE: one algorithm against an injected transform
    with a fitted drift, as `check --sync` writes it."""
    from test_check_sync import TREE

    proc = mpiscope("check", "--sync", "tree", "--clock-transform", "all:offset=1e6,drift=20",
                    "--sync-fitpoints", "4", "--sync-fit-gap-ns", "1e7", "--drift-seconds", "1",
                    "--out", "c.json", "--quiet", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    syncs = json.loads((tmp_path / "c.json").read_text())["check"]["sync"]
    real = next(s for s in syncs if s["algorithm"] == "tree")
    assert_same_shape(real, TREE, "test_check_sync.TREE")
