"""The command line's building blocks, shared by :mod:`mpiscope.cli` and the
commands: the parser class and the argument types.

:class:`Parser` raises :class:`~mpiscope.errors.MpiscopeError` instead of
printing usage, so every bad input ends as one line, ``mpiscope: error:
...``. Each argument type is an argparse ``type=``: it raises
ArgumentTypeError, which argparse turns into that one line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Collection, Sequence

from mpiscope.errors import MpiscopeError
from mpiscope.terminal import columns

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = [
    "MAX_RANKS",
    "Integer",
    "Parser",
    "Ranged",
    "choice",
    "float_in",
    "int_in",
    "name_list",
    "subcommands",
    "unknown",
]


class HelpFormatter(argparse.HelpFormatter):
    """argparse's, its width found without importing shutil
    (:mod:`mpiscope.terminal`): argparse makes one for every option added."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:  # fmt: skip
        super().__init__(prog, indent_increment, max_help_position,
                         columns() - 2 if width is None else width)  # fmt: skip


class Parser(argparse.ArgumentParser):
    """argparse that raises MpiscopeError instead of printing usage, and
    refuses an empty value for an option (``--out ''`` is a mistake, which
    would otherwise fall back to the default as if the option were absent)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise MpiscopeError(f"{message}; see {self.prog} --help")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        if action.option_strings and any(not text.strip() for text in arg_strings):
            self.error(f"argument {'/'.join(action.option_strings)}: empty value")
        return super()._get_values(action, arg_strings)


def subcommands(parser: argparse.ArgumentParser, group: str,
                adders: Sequence[Callable[[Any], None]]) -> None:  # fmt: skip
    """A group command's subcommands, one adder each (it makes its own
    parser); without one the group says, in one line, which there are: the
    names as the adders made them, so they are written once."""
    sub = parser.add_subparsers(dest=f"{group}_command", metavar="SUBCOMMAND", title="subcommands")
    for add in adders:
        add(sub)
    names = list(sub.choices)

    def missing(_parsed: object) -> int:
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        raise MpiscopeError(f"{group} needs a subcommand: {listed} (see mpiscope {group} --help)")

    parser.set_defaults(handler=missing)


def unknown(what: str, name: str, known: Sequence[str]) -> str:
    """``unknown timer 'tcs' (did you mean 'tsc'?)``, else the known names."""
    import difflib

    close = difflib.get_close_matches(name.lower(), list(known), n=1)
    if close:
        return f"unknown {what} {name!r} (did you mean {close[0]!r}?)"
    return f"unknown {what} {name!r} (known: {', '.join(known)})"


#: The most MPI processes any command starts or plans for: more than any
#: launcher here can start (a count beyond the cores is bounded again by
#: :func:`mpiscope.measure.plan.check_ranks`).
MAX_RANKS = 1 << 20


class Ranged:
    """An argparse type for a value in a range: ``[low, high]`` (either end
    open with ``low_open``/``high_open``), ``integer`` or not. The range is
    the option's documented one: its help can say it (:meth:`range_text`)
    and the tests drive the option with values outside it (:meth:`text`
    writes a value the way a user types it). Non-finite values are refused.
    Subclasses read other spellings (durations, sizes) in :meth:`parse`."""

    integer = False

    def __init__(self, low: float, high: float, low_open: bool = False,
                 high_open: bool = False) -> None:  # fmt: skip
        self.low, self.high = low, high
        self.low_open, self.high_open = low_open, high_open

    @property
    def __name__(self) -> str:  # argparse names the type in some messages
        return "integer" if self.integer else "number"

    def parse(self, text: str) -> float:
        """The value ``text`` spells (ArgumentTypeError when it spells none)."""
        try:
            return int(text) if self.integer else float(text)
        except ValueError:
            what = "a whole number" if self.integer else "a number"
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}") from None

    def text(self, value: float) -> str:
        """``value`` as a user types it."""
        return str(int(value)) if self.integer and float(value).is_integer() else repr(value)

    def range_text(self) -> str:
        """``[1, 1000]``, ``(0, 1e+06]`` (what the help and the errors say)."""
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f"{left}{self._short(self.low)}, {self._short(self.high)}{right}"

    def _short(self, value: float) -> str:
        if self.integer or float(value).is_integer() and abs(value) < 1e7:
            return str(int(value))
        return f"{value:g}"

    def contains(self, value: float) -> bool:
        below = value <= self.low if self.low_open else value < self.low
        above = value >= self.high if self.high_open else value > self.high
        return math.isfinite(value) and not below and not above

    def __call__(self, text: str) -> Any:
        value = self.parse(text)
        if not self.contains(value):
            raise argparse.ArgumentTypeError(f"must be in {self.range_text()}, not {text}")
        return value


class Integer(Ranged):
    """A whole number in ``[low, high]``; ``power_of_two``: a power of two."""

    integer = True

    def __init__(self, low: int, high: int, power_of_two: bool = False) -> None:
        super().__init__(low, high)
        self.power_of_two = power_of_two

    def __call__(self, text: str) -> int:
        value = int(self.parse(text))
        if value < self.low:
            raise argparse.ArgumentTypeError(f"must be at least {self.low}, not {value}")
        if value > self.high:
            raise argparse.ArgumentTypeError(f"must be at most {self.high}, not {value}")
        if self.power_of_two and value & (value - 1):
            raise argparse.ArgumentTypeError(f"must be a power of two, not {value}")
        return value


def int_in(minimum: int, maximum: int, power_of_two: bool = False) -> Integer:
    """A whole number in [minimum, maximum], with ``power_of_two`` a power of two."""
    return Integer(minimum, maximum, power_of_two)


def float_in(low: float, high: float, low_open: bool = False, high_open: bool = False) -> Ranged:
    """A finite number in an interval."""
    return Ranged(low, high, low_open, high_open)


def choice(choices: Collection[str], what: str, mpi_prefix: bool = False) -> Callable[[str], str]:
    """One of ``choices``, any case; ``mpi_prefix``: ``MPI_DOUBLE`` is ``double``."""

    def parse(text: str) -> str:
        name = text.strip().lower()
        if mpi_prefix and name.startswith("mpi_"):
            name = name[4:]  # MPI_DOUBLE, mpi_sum: the names of the MPI standard
        if name in choices:
            return name
        raise argparse.ArgumentTypeError(unknown(what, text, list(choices)))

    return parse


def name_list(text: str, known: Sequence[str], what: str) -> list[str]:
    """``a,b`` -> ["a", "b"]: known names, any case, none twice."""
    names = [name.strip().lower() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"bad {what} list {text!r}: empty name")
    for name in names:
        if name not in known:
            raise argparse.ArgumentTypeError(unknown(what, name, known))
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"bad {what} list {text!r}: a {what} appears twice")
    return names
