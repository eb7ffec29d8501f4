"""Standard output, watched by the command line (:func:`mpiscope.cli.main`).

A write to standard output that fails (``> /dev/full``, a full disk, a
closed descriptor ``>&-``) becomes :class:`StdoutError`, one line at the
top level (``cannot write standard output: ...``), exit code 1, instead of
a traceback. A character the output's encoding lacks (``PYTHONIOENCODING=
ascii``) is spelt in ASCII (``±`` as ``+/-``). A reader that went away
(``| head``) is not an error: :func:`discard` silences what is left.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import sys

from mpiscope.errors import MpiscopeError

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["StdoutError", "discard", "restore", "watch"]

#: How characters mpiscope prints are spelt in ASCII.
_ASCII = {"±": "+/-", "µ": "u", "×": "x", "→": "->", "←": "<-", "–": "-", "—": "-",
          "≥": ">=", "≤": "<=", "·": ".", "…": "...", "≈": "~", "°": " deg"}  # fmt: skip
_HANDLER = "mpiscope-ascii"


def _spell(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return "".join(_ASCII.get(c, "?") for c in bad), exc.end


codecs.register_error(_HANDLER, _spell)


class StdoutError(MpiscopeError):
    """Standard output could not be written."""

    exit_code = 1


def _failed(exc: OSError) -> StdoutError:
    return StdoutError(f"cannot write standard output: {exc.strerror or exc}")


class _Buffer:
    """A watched binary stream (``sys.stdout.buffer``)."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def write(self, data: bytes) -> int:
        try:
            return int(self._raw.write(data))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _failed(exc) from None

    def flush(self) -> None:
        try:
            self._raw.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _Closed:
    """Standard output when its descriptor is closed: every write fails."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text: Any) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    @property
    def buffer(self) -> _Closed:
        return self


class _Watched:
    """``sys.stdout`` whose write errors are :class:`StdoutError`."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _failed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _failed(exc) from None

    @property
    def buffer(self) -> _Buffer:
        return _Buffer(self._stream.buffer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def watch() -> Any:
    """Watch ``sys.stdout`` (and spell in ASCII what its encoding lacks);
    the stream it was, for :func:`restore`."""
    real = sys.stdout
    stream: Any = real if real is not None else _Closed()
    each: Any
    for each in (stream, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            if each is not None and codecs.lookup(each.encoding).name != "utf-8":
                each.reconfigure(errors=_HANDLER)
    sys.stdout = _Watched(stream)
    return real


def restore(real: Any) -> None:
    """Put back the stream :func:`watch` replaced."""
    sys.stdout = real


def discard() -> None:
    """Send whatever is still to be written to standard output nowhere: its
    reader is gone or it cannot be written (said once already)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
        os.close(devnull)
