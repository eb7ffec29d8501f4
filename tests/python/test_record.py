"""mpiscope.record: the value classes of the measuring path behave as the
frozen dataclasses they replaced did (arguments, defaults, equality,
hashing, replace), and defining one generates no code."""

from __future__ import annotations

import subprocess
import sys
from typing import ClassVar

import pytest

from mpiscope.record import Record, asdict, field, fields, replace


class Link(Record):
    source: str
    weight: float = 1.0
    notes: list[str] = field(default_factory=list)
    KIND: ClassVar[str] = "link"


class Pair(Record):
    key: str
    value: float = 1.0


class Named(Link):
    name: str = ""


class Mutable(Record, frozen=False):
    count: int
    seen: dict[str, int] = field(default_factory=dict)


class Options(Record, kw_only=True):
    np: int
    quiet: bool = False


class MoreOptions(Options):
    size: str = "1"


def test_arguments_defaults_and_factories() -> None:
    a = Link("x")
    assert (a.source, a.weight, a.notes) == ("x", 1.0, [])
    b = Link(source="y", weight=2.5, notes=["n"])
    assert (b.source, b.weight, b.notes) == ("y", 2.5, ["n"])
    assert Link("x").notes is not a.notes  # a fresh default each time
    assert fields(Link) == ("source", "weight", "notes")  # the ClassVar is not a field
    assert fields(Named) == ("source", "weight", "notes", "name")  # a base's first
    assert Named("s", 3.0, [], "n").name == "n"
    assert asdict(b) == {"source": "y", "weight": 2.5, "notes": ["n"]}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Link(), "missing 'source'"),
        (lambda: Link("x", nope=1), "no field 'nope'"),
        (lambda: Link("x", source="y"), "got 'source' twice"),
        (lambda: Link("a", 1.0, [], "extra"), "takes 3 arguments, 4 given"),
        (lambda: Options(2), "keyword arguments only"),
        (lambda: MoreOptions(2), "keyword arguments only"),  # kw_only is inherited
    ],
)
def test_wrong_arguments_are_refused(make: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()  # type: ignore[operator]


def test_frozen_equal_and_hashed_by_fields() -> None:
    a, b = Link("x", 2.0), Link("x", 2.0)
    assert a == b and a is not b
    assert a != Link("x", 3.0) and a != Named("x", 2.0)  # another type is never equal
    assert hash(Pair("p")) == hash(Pair("p", 1.0)) and {Pair("p"), Pair("p")} == {Pair("p")}
    with pytest.raises(TypeError, match="unhashable"):  # a list field, as in a dataclass
        hash(a)
    with pytest.raises(AttributeError, match="does not change"):
        a.source = "z"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="does not change"):
        del a.source  # type: ignore[misc]
    c = replace(a, weight=5.0)
    assert (c.source, c.weight, a.weight, type(c)) == ("x", 5.0, 2.0, Link)
    assert repr(Options(np=2)) == "Options(np=2, quiet=False)"


def test_a_mutable_record_takes_assignments_and_has_no_hash() -> None:
    m = Mutable(1)
    m.count = 2
    m.seen["a"] = 1
    assert (m.count, m.seen, Mutable(1).seen) == (2, {"a": 1}, {})
    with pytest.raises(TypeError):
        hash(m)


def test_the_measuring_path_defines_no_dataclass() -> None:
    """`mpiscope run` imports neither dataclasses nor inspect before and
    after its bench (each dataclass compiles its methods when defined)."""
    code = ("import sys, mpiscope.cli, mpiscope.commands.run, mpiscope.reports.report, "
            "mpiscope.reports.ledger; "
            "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
