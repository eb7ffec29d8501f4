"""Keyword options of the Python API, read by the command line's own parser.

``mpiscope.run("bcast", np=2, sizes="8,1K")`` is read as ``mpiscope run
bcast --np=2 --sizes=8,1K`` would be: each keyword is the option's name
(``max_point_seconds`` for ``--max-point-seconds``; ``srun_nodes`` for
``--nodes``, as the result and the request name it), written as the option's
text and parsed by the command's parser
(:mod:`mpiscope.measure.command_options`). So a value is checked by the
same type, refused with the same one line, and an option not given has the
same default. A value may be given as Python values too: numbers, True
(a flag), a list (a repeatable option, or a comma-separated one: ``sizes=
[8, 1024]``), a dict (``option={"mode": "nonblocking"}``), a Path.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import Parser, unknown

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["api_call", "parse_options"]


@contextmanager
def api_call(options: dict[str, Any], quiet: bool = True) -> Iterator[None]:
    """One call of the API: quiet unless ``quiet=False`` is given (no
    progress line; ``quiet``: the command has the option), and the output
    files it claimed released at its end, as the command line releases
    them when it exits."""
    from mpiscope.outputs import release_all

    if quiet:
        options.setdefault("quiet", True)
    try:
        yield
    finally:
        release_all()


def parse_options(
    command: str,
    add_options: Callable[[argparse.ArgumentParser], None],
    positionals: Sequence[str],
    options: Mapping[str, Any],
    function: str | None = None,
) -> dict[str, Any]:
    """The parsed options of ``mpiscope COMMAND`` given ``positionals`` and
    keyword ``options`` (None: not given), as argparse gives them, with
    ``argv``: the equivalent command line after ``mpiscope`` (the result
    records it). MpiscopeError for an unknown option or a bad value, naming
    the API's ``function`` (default: the command's name)."""
    parser = Parser(prog=f"mpiscope {command}", add_help=False)
    add_options(parser)
    actions = {a.dest: a for a in parser._actions if a.option_strings}
    for old in (a for a in parser._actions if a.help == argparse.SUPPRESS):  # old names
        actions.setdefault(old.option_strings[0].lstrip("-").replace("-", "_"), old)
    words: list[str] = []
    for name, value in options.items():
        if value is None:
            continue
        action = actions.get(name)
        if action is None:
            raise MpiscopeError(f"mpiscope.{function or command}(): "
                                + unknown("option", name, list(actions)))  # fmt: skip
        words += _words(action, name, value)
    args = parser.parse_args([*words, "--", *positionals] if positionals else words)
    return {**vars(args), "argv": [command, *positionals, *words]}


def _words(action: argparse.Action, name: str, value: Any) -> list[str]:
    """The command-line words of option ``name`` at ``value``."""
    flag = max(action.option_strings, key=len)
    if action.nargs == 0:  # a flag: True or False
        if not isinstance(value, bool):
            raise MpiscopeError(f"{flag}: {name}= takes True or False, not {value!r}")
        return [flag] if value else []
    if isinstance(action, argparse._AppendAction):
        items = _items(value) if isinstance(value, list | tuple | dict) else [value]
        return [f"{flag}={_text(item)}" for item in items]
    return [f"{flag}={_text(value)}"]


def _items(value: list[Any] | tuple[Any, ...] | dict[str, Any]) -> list[Any]:
    if isinstance(value, dict):
        return [f"{key}={_text(item)}" for key, item in value.items()]
    return list(value)


def _text(value: Any) -> str:
    """``value`` as a user types it: a list comma-separated."""
    if isinstance(value, list | tuple):
        return ",".join(_text(item) for item in value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str | int | Path):
        return str(value)
    raise MpiscopeError(f"a value of type {type(value).__name__} cannot be an option: {value!r}")
