"""Every file mpiscope writes goes through here (docs/guarantees.md, "Outputs").

* Only a regular file is ever replaced. An existing output that is a
  device, a named pipe, a socket or a directory is refused, with or
  without ``--force``: the rename that replaces a file would replace
  ``/dev/null`` itself for every program of the machine. A symbolic link is
  followed: the file it names is the one replaced.
* An output is never one of the command's inputs: files are compared by
  device and inode (another name, a link, ``./x``, is the same file), both
  with the inputs a command names before it starts (:func:`check_output`)
  and with every file it has read (:mod:`mpiscope.inputs`).
* A file is written whole: into a temporary file in its own directory,
  then renamed over the output. A reader sees the old file or the new one;
  a failure (a full disk) leaves the old one and no temporary file.
* One writer at a time: from its check to its last write, a command holds
  an advisory lock (flock) on ``.NAME.lock`` beside the output; a second
  mpiscope that wants the same output is refused and told which process
  holds it. The lock goes with the process (even a killed one).
* The directory of an output must exist (a typo does not create a tree);
  a directory output (a trace, a folder of figures) is created, one level.
* Every refusal and every failure is one :class:`MpiscopeError` line
  naming the file.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from mpiscope.errors import MpiscopeError
from mpiscope.inputs import file_kind, is_input

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import IO

__all__ = [
    "check_output",
    "check_output_dir",
    "check_parent",
    "insert_before_tail",
    "output_name",
    "release_all",
    "replacing",
    "write_bytes",
    "write_text",
]

#: Locks this process holds: the output's path -> (lock file descriptor, lock file).
_held: dict[str, tuple[int, Path]] = {}
#: Outputs checked before the command read anything (:func:`check_output`):
#: what it reads of them later is its own output, which it may write again.
_checked: set[str] = set()


def _shown(path: str | Path, what: str) -> str:
    return f"{what} {path}" if what else str(path)


def _bare(shown: str) -> str:
    """The file of ``--out FILE`` (a write's failure names the file alone)."""
    first, _, rest = shown.partition(" ")
    return rest if rest and first.startswith(("-", "$")) else shown


def _failure(path: str | Path, what: str, exc: OSError) -> MpiscopeError:
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOENT:
        reason = "no such directory"
    return MpiscopeError(f"cannot write {_bare(_shown(path, what))}: {reason}")


def output_name(name: str | Path, what: str = "") -> Path:
    """The absolute path of an output as named: refused when the name
    cannot be one of a file (empty, ending in /, with a NUL byte)."""
    text = os.fspath(name)
    if not text.strip():
        raise MpiscopeError(f"{what or 'an output'}: empty file name")
    if text.endswith("/") or text.endswith("/.") or text.endswith("/.."):
        raise MpiscopeError(f"{_shown(text, what)} is a directory path, not a file name")
    if "\0" in text:
        raise MpiscopeError(f"{what or 'an output'} {text!r}: not a valid file name")
    return Path(text).expanduser().absolute()


def _target(path: Path) -> Path:
    """The file a write of ``path`` replaces: a symbolic link's target."""
    try:
        link = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:  # absent, or a name the checks that follow refuse
        return path
    return Path(os.path.realpath(path)) if link else path


def _check_existing(target: Path, shown: str, inputs: Iterable[str | Path]) -> bool:
    """Whether ``target`` exists (as a regular file); refused when it is
    anything else, or one of ``inputs`` or of the files already read."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return False
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            raise MpiscopeError(
                f"cannot write {_bare(shown)}: a part of its path is not a directory"
            ) from None
        if exc.errno == errno.ENAMETOOLONG:
            raise MpiscopeError(f"cannot write {_bare(shown)}: file name too long") from None
        return False
    if not stat.S_ISREG(st.st_mode):
        raise MpiscopeError(f"{shown} is {file_kind(st.st_mode)}: an output must be a regular "
                            "file, and only one is ever replaced")  # fmt: skip
    checked = str(target) in _checked  # checked against the inputs it named, before it read
    if any(_same_file(st, p) for p in inputs) or (is_input(st) and not checked):
        raise MpiscopeError(f"{shown} is one of the inputs: writing it would destroy it")
    return True


def _same_file(st: os.stat_result, other: str | Path) -> bool:
    try:
        theirs = os.stat(other)
    except (OSError, ValueError):
        return False
    if stat.S_ISDIR(theirs.st_mode):  # a trace directory: any file under it
        return _under(st, Path(other))
    return (theirs.st_dev, theirs.st_ino) == (st.st_dev, st.st_ino)


def _under(st: os.stat_result, directory: Path, limit: int = 100_000) -> bool:
    seen = 0
    for dirpath, _, filenames in os.walk(directory):
        for name in filenames:
            seen += 1
            with contextlib.suppress(OSError):
                theirs = os.stat(os.path.join(dirpath, name))
                if (theirs.st_dev, theirs.st_ino) == (st.st_dev, st.st_ino):
                    return True
            if seen > limit:
                return False
    return False


def _check_directory(directory: Path, shown: str) -> None:
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        raise MpiscopeError(f"cannot write {_bare(shown)}: directory {directory} does not exist"
                            ) from None  # fmt: skip
    except OSError as exc:
        raise _failure(shown, "", exc) from None
    if not stat.S_ISDIR(st.st_mode):
        raise MpiscopeError(f"cannot write {_bare(shown)}: {directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise MpiscopeError(f"cannot write {_bare(shown)}: directory {directory} is not writable")


def check_output(
    name: str | Path,
    force: bool | None = None,
    inputs: Iterable[str | Path] = (),
    what: str = "",
) -> Path:
    """Check, before any work, that the output ``name`` can be written, and
    claim it (its lock, held until the process ends or :func:`release_all`);
    its absolute path. ``force``: None for an output that is replaced
    whenever it exists; False refuses an existing file (``--force`` was not
    given). ``inputs``: the files the command will read (a directory: every
    file under it)."""
    path = output_name(name, what)
    shown = _shown(name, what)
    target = _target(path)
    exists = _check_existing(target, shown, inputs)
    _check_directory(target.parent, shown)
    _claim(target, shown)  # first: a file another run is writing is that run's, --force or not
    if exists and force is False:
        raise MpiscopeError(f"{_bare(shown)} exists (use --force to overwrite)")
    _checked.add(str(target))
    return path


def check_parent(name: str | Path, what: str = "") -> Path:
    """The absolute ``name`` of an output another writer makes (an OTF2
    archive), after checking that its directory exists and is writable."""
    path = output_name(name, what)
    _check_directory(path.parent, _shown(name, what))
    return path


def check_output_dir(name: str | Path, what: str = "", create: bool = True) -> Path:
    """Check that the directory output ``name`` is a directory or can be one
    (its parent exists), and with ``create`` make it; its absolute path."""
    path = output_name(str(name).rstrip("/") or "/", what)
    shown = _shown(name, what)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        _check_directory(path.parent, shown)
        if create:
            try:
                path.mkdir()
            except FileExistsError:
                pass
            except OSError as exc:
                raise _failure(shown, "", exc) from None
        return path
    except OSError as exc:
        raise _failure(shown, "", exc) from None
    if not stat.S_ISDIR(st.st_mode):
        raise MpiscopeError(f"{shown} is {file_kind(st.st_mode) if not stat.S_ISREG(st.st_mode) else 'a file'}"  # noqa: E501
                            ": a directory is needed")
    if not os.access(path, os.W_OK | os.X_OK):
        raise MpiscopeError(f"cannot write {_bare(shown)}: directory {path} is not writable")
    return path


def _claim(target: Path, shown: str) -> bool:
    """Take the lock of ``target`` (once per process); whether it was taken
    now (False: this process held it already)."""
    key = str(target)
    if key in _held:
        return False
    lock = target.with_name(f".{target.name}.lock")
    for _ in range(20):  # a holder that ends unlinks the file: lock a file that is still there
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise _failure(shown, "", exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise _failure(shown, "", exc) from None
            raise MpiscopeError(
                f"{shown} is being written by another mpiscope ({holder}): wait for it to end "
                "or choose another output"
            ) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            _held[key] = (fd, lock)
            return True
        os.close(fd)
    raise MpiscopeError(f"cannot write {_bare(shown)}: its lock file {lock} keeps changing")


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        pid = int(os.pread(fd, 32, 0).decode().strip())
        return f"pid {pid}"
    return "a process that is starting"


def release_all() -> None:
    """Give up every output lock this process holds (lock files removed)."""
    _checked.clear()
    for key in list(_held):
        _release(key)


def _release(key: str) -> None:
    fd, lock = _held.pop(key)
    with contextlib.suppress(OSError):
        os.unlink(lock)  # while holding it: a waiter then locks a file that is gone and retries
    with contextlib.suppress(OSError):
        os.close(fd)


atexit.register(release_all)


def _mode(existing: Path) -> int:
    """The new file's permissions: the old file's, else 0666 less the umask."""
    with contextlib.suppress(OSError):
        return stat.S_IMODE(os.stat(existing).st_mode)
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def replacing(name: str | Path, what: str = "", update: bool = False) -> Iterator[IO[bytes]]:
    """A binary file to write the output ``name`` into; on a normal exit it
    replaces the output (a rename), on an error it is removed and the output
    left as it was. ``update``: the output may be a file this command read
    (a profile or cache it updates)."""
    path = output_name(name, what)
    shown = _shown(name, what)
    target = _target(path)
    if update:
        _check_kind(target, shown)
    else:
        _check_existing(target, shown, ())
    claimed = _claim(target, shown)  # for this write alone unless checked before
    try:
        with _written(target, shown, update) as file:
            yield file
    finally:
        if claimed:
            _release(str(target))


@contextlib.contextmanager
def _written(target: Path, shown: str, update: bool) -> Iterator[IO[bytes]]:
    """The temporary file of ``target``, renamed over it on success."""
    import tempfile  # (with random and weakref: 2-4 ms of a run's start on the AMD EPYC VM)

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _failure(shown, "", exc) from None
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.chmod(tmp, _mode(target))
        if update:
            _check_kind(target, shown)
        else:
            _check_existing(target, shown, ())  # nothing else appeared meanwhile
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _failure(shown, "", exc) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_kind(target: Path, shown: str) -> None:
    with contextlib.suppress(OSError):
        st = os.stat(target)
        if not stat.S_ISREG(st.st_mode):
            raise MpiscopeError(f"{shown} is {file_kind(st.st_mode)}: an output must be a "
                                "regular file, and only one is ever replaced")  # fmt: skip


def write_bytes(name: str | Path, data: bytes, what: str = "", update: bool = False) -> None:
    """Write ``data`` as the output ``name`` (:func:`replacing`)."""
    with replacing(name, what, update) as file:
        file.write(data)


def write_text(name: str | Path, text: str, what: str = "", update: bool = False) -> None:
    """Write ``text`` (UTF-8) as the output ``name`` (:func:`replacing`)."""
    write_bytes(name, text.encode("utf-8"), what, update)


def insert_before_tail(name: str | Path, tail: bytes, data: bytes,
                       identity: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
    """Write ``data`` + ``tail`` over the last ``len(tail)`` bytes of the
    output ``name``, in one write: a growing document stays valid after each
    piece without being written whole again (docs/guarantees.md, "The noise
    document"). ``identity``: (device, inode, size) of the file as this
    process last left it. Returns the new identity, or None when the file is
    not that one any more (replaced, changed, or not ending in ``tail``):
    then write it whole. A failed write puts the old bytes back."""
    path = _target(output_name(name))
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if identity is None or (st.st_dev, st.st_ino, st.st_size) != identity or \
                not stat.S_ISREG(st.st_mode) or st.st_size < len(tail):
            return None
        offset = st.st_size - len(tail)
        if os.pread(fd, len(tail), offset) != tail:
            return None
        piece = data + tail
        try:
            if os.pwrite(fd, piece, offset) != len(piece):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, offset)
                os.pwrite(fd, tail, offset)
            raise _failure(name, "", exc) from None
        return (st.st_dev, st.st_ino, offset + len(piece))
    finally:
        os.close(fd)
