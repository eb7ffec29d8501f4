"""Every file mpiscope reads goes through here (docs/guarantees.md, "Inputs").

* Only a regular file is read: a named pipe, a device, a socket or a
  directory is refused at once. The file is opened without blocking
  (O_NONBLOCK: opening a FIFO with no writer does not wait) and checked with
  fstat before a byte is read.
* Its size is bounded before it is read (``limit``), and a JSON document's
  nesting depth before it is parsed (:data:`MAX_DEPTH`): no input can take
  the machine's memory or the interpreter's stack.
* Every problem is one :class:`~mpiscope.errors.MpiscopeError` line naming
  the file (and the option or variable it came from, ``what``).
* Every file read is remembered by device and inode, so that no output of
  the same command can replace it (:mod:`mpiscope.outputs`).

A file another program reads (a hostfile, a tuning file, a library) is
checked here too (:func:`check_input`), so that the program never blocks on
it either.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import re
import stat
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path

from mpiscope.errors import MpiscopeError

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "bundled_json",
    "check_input",
    "file_kind",
    "is_input",
    "json_depth",
    "open_input",
    "parse_json",
    "read_bytes",
    "read_json",
    "read_text",
]

#: The largest JSON document read (a result with every raw sample of a long
#: sweep is tens of MB).
MAX_DOCUMENT_BYTES = 1 << 30
#: The deepest nesting of a JSON document read: mpiscope's own documents
#: are at most ~10 deep, MPICH's tuning trees ~20.
MAX_DEPTH = 100

#: (device, inode) of every file this process has read.
_read: set[tuple[int, int]] = set()

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _label(path: str | Path, what: str) -> str:
    return f"{what} {path}" if what else str(path)


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _refusal(path: str | Path, what: str, mode: int) -> MpiscopeError:
    label = _label(path, what)
    if stat.S_ISDIR(mode):
        return MpiscopeError(f"cannot read {label}: it is a directory")
    return MpiscopeError(f"cannot read {label}: not a regular file ({file_kind(mode)})")


def _os_error(path: str | Path, what: str, exc: OSError) -> MpiscopeError:
    label = _label(path, what)
    if exc.errno == errno.ENOENT:
        return MpiscopeError(f"cannot read {label}: no such file")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return MpiscopeError(f"cannot read {label}: permission denied")
    return MpiscopeError(f"cannot read {label}: {exc.strerror or exc}")


def _remember(st: os.stat_result) -> None:
    _read.add((st.st_dev, st.st_ino))


def is_input(st: os.stat_result) -> bool:
    """Whether the file of ``st`` was read by this process."""
    return (st.st_dev, st.st_ino) in _read


@contextlib.contextmanager
def open_input(path: str | Path, what: str = "", limit: int | None = MAX_DOCUMENT_BYTES
               ) -> Iterator[IO[bytes]]:  # fmt: skip
    """The regular file at ``path`` opened for reading (binary); refused at
    once when it is anything else or larger than ``limit`` bytes."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise MpiscopeError(f"cannot read {_label(path, what)}: it is a directory") from None
        raise _os_error(path, what, exc) from None
    except ValueError:  # a NUL byte in the name
        raise MpiscopeError(f"cannot read {str(path)!r}: not a valid file name") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refusal(path, what, st.st_mode)
        if limit is not None and st.st_size > limit:
            raise MpiscopeError(f"cannot read {_label(path, what)}: {st.st_size} bytes, more "
                                f"than the {limit} an input may have")  # fmt: skip
        os.set_blocking(fd, True)
        _remember(st)
        file = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with file:
        yield file


def read_bytes(path: str | Path, what: str = "", limit: int | None = MAX_DOCUMENT_BYTES) -> bytes:
    """The whole regular file at ``path`` (at most ``limit`` bytes)."""
    with open_input(path, what, limit) as file:
        try:
            data = file.read() if limit is None else file.read(limit + 1)
        except OSError as exc:
            raise _os_error(path, what, exc) from None
    if limit is not None and len(data) > limit:  # it grew while being read
        raise MpiscopeError(f"cannot read {_label(path, what)}: more than the {limit} bytes an "
                            "input may have")  # fmt: skip
    return data


def read_text(path: str | Path, what: str = "", limit: int | None = MAX_DOCUMENT_BYTES) -> str:
    """The regular file at ``path`` as UTF-8 text (a BOM is dropped);
    UnicodeDecodeError is left to the caller to name."""
    return read_bytes(path, what, limit).decode("utf-8-sig")


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets in
    strings do not count); linear, no recursion."""
    # with no backslash before a quote, no quote is escaped: every other piece
    # between quotes is outside strings (the regex took 1.6 ms of a 140 KB result)
    plain = b'\\"' not in data
    outside = b"".join(data.split(b'"')[::2]) if plain else _STRING.sub(b"", data)
    brackets = outside.translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def parse_json(data: str | bytes, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON text as Python values; NaN and Infinity (not JSON) are refused,
    and so is a document nested deeper than ``max_depth``. Errors are one
    line naming ``source`` and, for bad syntax, where."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if json_depth(raw) > max_depth:
        raise MpiscopeError(f"{source} is not a usable JSON document: nested too deeply "
                            f"(more than {max_depth} levels)")  # fmt: skip
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise MpiscopeError(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except ValueError as exc:
        raise MpiscopeError(f"{source} is not valid JSON: {exc}") from None
    except RecursionError:
        raise MpiscopeError(f"{source} is not a usable JSON document: nested too deeply") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json(path: str | Path, what: str = "", limit: int | None = MAX_DOCUMENT_BYTES,
              max_depth: int = MAX_DEPTH) -> Any:  # fmt: skip
    """The JSON document in the regular file at ``path``."""
    text = read_bytes(path, what, limit)
    try:
        text.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise MpiscopeError(f"cannot read {_label(path, what)}: not UTF-8 text") from None
    return parse_json(text.removeprefix(b"\xef\xbb\xbf"), _label(path, what), max_depth)


@functools.cache
def bundled_json(relative: str) -> dict[str, Any]:
    """A JSON file shipped in the package (``schema/result-v1.schema.json``,
    the engine's description), read once: beside the modules, where every
    install (wheel, editable, a source checkout) keeps them with the bench,
    not through importlib.resources, whose import (zipfile) cost `mpiscope
    run` 2 ms before the bench on the AMD EPYC VM."""
    data: dict[str, Any] = json.loads(Path(__file__).resolve().parent.joinpath(relative)
                                      .read_text("utf-8"))  # fmt: skip
    return data


def check_input(path: str | Path, what: str = "", executable: bool = False) -> Path:
    """``path`` (user's ~ expanded) after checking, without opening it, that
    it is a regular file this process may read (``executable``: and run),
    for a file another program reads: it must not block that program."""
    expanded = Path(path).expanduser()
    try:
        st = expanded.stat()
    except OSError as exc:
        raise _os_error(path, what, exc) from None
    except ValueError:
        raise MpiscopeError(f"cannot read {str(path)!r}: not a valid file name") from None
    if not stat.S_ISREG(st.st_mode):
        raise _refusal(path, what, st.st_mode)
    if not os.access(expanded, os.R_OK):
        raise MpiscopeError(f"cannot read {_label(path, what)}: permission denied")
    if executable and not os.access(expanded, os.X_OK):
        raise MpiscopeError(f"{_label(path, what)} is not executable")
    _remember(st)
    return expanded
