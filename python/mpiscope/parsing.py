"""The command line's building blocks, shared by :mod:`mpiscope.cli` and the
commands: the parser class and the argument types.

:class:`Parser` raises :class:`~mpiscope.errors.MpiscopeError` instead of
printing usage, so every bad input ends as one line, ``mpiscope: error:
...``. Each argument type is an argparse ``type=``: it raises
ArgumentTypeError, which argparse turns into that one line.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Collection, Sequence
from typing import Any, NoReturn

from mpiscope.errors import MpiscopeError

__all__ = [
    "Parser",
    "choice",
    "float_in",
    "int_at_least",
    "int_in",
    "name_list",
    "unknown",
]


class Parser(argparse.ArgumentParser):
    """argparse that raises MpiscopeError instead of printing usage, and
    refuses an empty value for an option (``--out ''`` is a mistake, which
    would otherwise fall back to the default as if the option were absent)."""

    def error(self, message: str) -> NoReturn:
        raise MpiscopeError(f"{message}; see {self.prog} --help")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        if action.option_strings and any(not text.strip() for text in arg_strings):
            self.error(f"argument {'/'.join(action.option_strings)}: empty value")
        return super()._get_values(action, arg_strings)


def unknown(what: str, name: str, known: Sequence[str]) -> str:
    """``unknown timer 'tcs' (did you mean 'tsc'?)``, else the known names."""
    close = difflib.get_close_matches(name.lower(), list(known), n=1)
    if close:
        return f"unknown {what} {name!r} (did you mean {close[0]!r}?)"
    return f"unknown {what} {name!r} (known: {', '.join(known)})"


def int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


def int_in(minimum: int, maximum: int | None, power_of_two: bool = False) -> Callable[[str], int]:
    """A whole number in [minimum, maximum] (``maximum`` None: no bound),
    with ``power_of_two`` a power of two."""

    def parse(text: str) -> int:
        value = int_at_least(minimum)(text)
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, not {value}")
        if power_of_two and value & (value - 1):
            raise argparse.ArgumentTypeError(f"must be a power of two, not {value}")
        return value

    return parse


def float_in(
    low: float, high: float | None, low_open: bool, high_open: bool
) -> Callable[[str], float]:
    """A number in an interval; ``high`` None: no upper bound."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
        below = value <= low if low_open else value < low
        above = high is not None and (value >= high if high_open else value > high)
        if below or above or value != value:
            left = "(" if low_open else "["
            right = ")" if high_open else "]"
            upper = "inf" if high is None else f"{high:g}"
            raise argparse.ArgumentTypeError(
                f"must be in {left}{low:g}, {upper}{right}, not {text}"
            )
        return value

    return parse


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
