"""Operation-specific options (``mpiscope run --option NAME=VALUE``).

Each operation declares its options in its descriptor (``mpiscope
list-ops``); the values go to the bench in the plan's ``op_options`` object and
the operation parses them. Three names in the catalogue are the engine's
own parameters, set with their own flags, not with ``--option``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.measure.catalogue import OpInfo

__all__ = ["ENGINE_OPTIONS", "check_op_options", "check_op_paths", "parse_op_option"]

#: Catalogue options that are engine parameters, and the flag that sets each.
ENGINE_OPTIONS = {"root": "--root", "dtype": "--dtype", "op": "--reduce-op"}


def parse_op_option(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` (the value may be empty or contain ``=``)."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    if name in ENGINE_OPTIONS:
        raise argparse.ArgumentTypeError(
            f"{name} is set with {ENGINE_OPTIONS[name]}, not with --option"
        )
    return name, value


def check_op_options(options: Sequence[tuple[str, str]], ops: Sequence[OpInfo]) -> None:
    """Every option must be declared by at least one of ``ops`` and given
    once; raise MpiscopeError otherwise. Operations that do not declare an
    option ignore it."""
    declared = sorted({o.name for op in ops for o in op.options} - set(ENGINE_OPTIONS))
    may_be_empty = {o.name for op in ops for o in op.options if not o.default}
    seen: set[str] = set()
    for name, value in options:
        if name in seen:
            raise MpiscopeError(f"--option {name} is given twice")
        seen.add(name)
        if name in declared and not value.strip() and name not in may_be_empty:
            raise MpiscopeError(f"--option {name}=: empty value (leave the option out for its "
                                "default)")  # fmt: skip
        if name in declared:
            continue
        import difflib

        names = ", ".join(op.name for op in ops)
        close = difflib.get_close_matches(name, declared, n=1)
        listed = ", ".join(declared) or "none"
        hint = f"did you mean {close[0]!r}?" if close else f"their options: {listed}"
        raise MpiscopeError(f"--option {name}: no such option of {names} ({hint})")


def check_op_paths(options: Sequence[tuple[str, str]], ops: Sequence[OpInfo]) -> None:
    """An option whose unit is a path names something that exists: a
    directory for an op that writes files (flag ``files``: its ``dir``),
    else a file to read (``graph``); raise MpiscopeError otherwise, before
    anything is launched (the bench checks again on every rank's node)."""
    paths = {o.name for op in ops for o in op.options if o.unit == "path"}
    dirs = {o.name for op in ops if "files" in op.flags for o in op.options if o.unit == "path"}
    for name, value in options:
        if name not in paths or not value:
            continue
        path = Path(value).expanduser()
        if name in dirs and not path.is_dir():
            what = "not a directory" if path.exists() else "no such directory"
            raise MpiscopeError(f"--option {name}={value}: {what}")
        if name not in dirs and not path.is_file():
            what = "not a file" if path.exists() else "no such file"
            raise MpiscopeError(f"--option {name}={value}: {what}")
