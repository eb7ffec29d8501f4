"""The ``mpiscope`` command line: one subcommand per module (commands/*.py).

Every error meant for the user is one line on stderr,
``mpiscope: error: <text>``, with exit code 2 for bad input and 1 for a run
that failed; Ctrl-C gives one line and exit code 130. Nothing heavy is
imported here, so ``mpiscope --help`` is instant.
"""

from __future__ import annotations

import _signal  # signal itself first imports enum: milliseconds a Ctrl-C could land in
import sys

from mpiscope.errors import MpiscopeError

TYPE_CHECKING = False  # typing is not imported at run time (see mpiscope/__init__.py)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["build_parser", "main"]

EXIT_INTERRUPTED = 130

# One line per command module (mpiscope/commands/NAME.py), in the order of
# `mpiscope --help`. Each has add_parser(commands) and keeps its heavy
# imports inside its handler.
COMMAND_MODULES = (
    "run",
    "methods",
    "overlap",
    "firstcall",
    "startup",
    "check",
    "report",
    "explain",
    "list_ops",
    "plot",
    "html",
    "compare",
    "export",
    "trace",
    "noise",
    "health",
    "alltoall",
    "model",
)


def _version_action() -> type:
    """argparse's version action, the version read only when asked: finding
    the installed package's metadata takes ~50 ms on the AMD EPYC VM, which
    every command would pay at its start otherwise."""
    import argparse

    class Version(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
            from mpiscope.version import package_version

            print(f"mpiscope {package_version()}")  # on stdout, as argparse's own version action
            parser.exit()

    return Version


def build_parser(commands: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The command line's parser with ``commands`` (their module names,
    default every one): the others are not imported (a run's start should
    not wait for fifteen modules it does not use)."""
    import importlib

    from mpiscope.parsing import Parser

    parser = Parser(
        prog="mpiscope",
        description="Precise MPI benchmarking: synchronized clocks, synchronized launches, "
        "honest statistics.",
        epilog="Run 'mpiscope COMMAND --help' for the options of a command. "
        "Exit codes: 0 success, 1 run failed, 2 bad input, 130 interrupted.",
    )
    parser.add_argument("--version", action=_version_action(), nargs=0,
                        help="show the version and exit")  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in commands:
        importlib.import_module(f"mpiscope.commands.{name}").add_parser(sub)
    return parser


def _commands_of(args: Sequence[str]) -> Sequence[str]:
    """The command modules ``args`` needs: the one it names first
    (``list-ops`` is module list_ops); none for ``--version`` alone; else
    every one (an option first, no command or an unknown one: the parser
    lists them all)."""
    if args and args[0].replace("-", "_") in COMMAND_MODULES and "_" not in args[0]:
        return (args[0].replace("-", "_"),)
    if list(args) == ["--version"]:
        return ()
    return COMMAND_MODULES


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    if argv is None:  # the program itself, not a caller's test: own the main thread's SIGINT
        _signal.signal(_signal.SIGINT, _interrupt_once)  # before importing the rest
    try:
        import os

        from mpiscope import standard_output
        from mpiscope.outputs import release_all
    except KeyboardInterrupt:
        print("mpiscope: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    args_list = list(sys.argv[1:] if argv is None else argv)
    # mpiscope writes figures to files only: never an interactive backend (nor a
    # misspelt one, which matplotlib would refuse with a traceback)
    os.environ["MPLBACKEND"] = "Agg"
    real = standard_output.watch()
    try:
        args = build_parser(_commands_of(args_list)).parse_args(args_list)
        if args.command is None:
            raise MpiscopeError(
                "no command given (see mpiscope --help for the commands)"
            )
        args.argv = args_list
        code: int = args.handler(args)
        sys.stdout.flush()  # a full disk or a closed descriptor says so now, in one line
        return code
    except MpiscopeError as exc:
        _print_error(f"mpiscope: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt as exc:
        detail = f" ({exc.args[0]})" if exc.args else ""
        _print_error(f"mpiscope: interrupted{detail}")
        return EXIT_INTERRUPTED
    except Exception as exc:
        # Ctrl-C inside an import (the handlers import lazily) can reach us
        # wrapped: a class body's __set_name__ turns it into a RuntimeError.
        if not _caused_by_interrupt(exc):
            raise
        _print_error("mpiscope: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): stop quietly.
        standard_output.discard()
        return 1
    except RecursionError:  # the readers bound nesting; this is the net under them
        _print_error("mpiscope: error: an input is nested too deeply to be read")
        return 2
    finally:
        standard_output.restore(real)
        release_all()


def _interrupt_once(signum: int, frame: object) -> None:
    """The first Ctrl-C raises KeyboardInterrupt; later ones are ignored, so
    that a second one cannot interrupt the first one's clean-up or its
    message (commands that must react to it install their own handler)."""
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    raise KeyboardInterrupt


def _caused_by_interrupt(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _print_error(line: str) -> None:
    from mpiscope import standard_output

    try:
        sys.stdout.flush()
    except (OSError, MpiscopeError):  # said in the line itself, or not worth a second line
        standard_output.discard()
    print(" ".join(line.split()), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
