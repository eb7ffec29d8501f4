"""The one exception family of mpiscope.

Every error a user can cause (bad input, missing files, a failed run) is an
:class:`MpiscopeError`. The command line prints it as one line,
``mpiscope: error: <text>``, and exits with :attr:`MpiscopeError.exit_code`:
2 for bad input (the default), 1 for a run that failed after it started.
"""

from __future__ import annotations

__all__ = ["MpiscopeError", "RunFailedError", "StoppedError"]


class MpiscopeError(Exception):
    """An error meant for the user: its text is one self-contained line."""

    exit_code: int = 2


class RunFailedError(MpiscopeError):
    """The benchmark was launched but did not finish (crash, timeout)."""

    exit_code = 1


class StoppedError(RunFailedError):
    """mpiscope itself was told to stop (SIGTERM, SIGHUP): a command that
    runs a series of runs of the bench starts no further one."""
