"""The catalogue of operations mpiscope-bench can measure.

The catalogue comes from the bench itself (``mpiscope-bench --list-ops``
prints a JSON array), so it is always the one of the build in use. It is
shown by ``mpiscope list-ops`` and validates the operation names of a plan.

Asking costs a start of the bench (~40 ms: loading the MPI library runs its
constructors) before every launch, so the answer is kept in the user's
cache directory under the identity (path, size, modification time, inode)
of the bench and of the libmpiscope next to it: a rebuild asks again.
Each rebuild leaves a copy behind, so writing one removes all but the
newest :data:`KEEP_CACHES`.
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from pathlib import Path

from mpiscope.errors import MpiscopeError, RunFailedError
from mpiscope.inputs import read_text
from mpiscope.launcher import build_env, format_command, run_captured
from mpiscope.measure.simulation import smpi_alone
from mpiscope.mpi_profile import MpiProfile
from mpiscope.record import Record
from mpiscope.result.document import write_text_atomic

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

#: The largest catalogue cache read (the catalogue is tens of KB).
MAX_CACHE_BYTES = 16 << 20

#: Catalogue copies kept (by modification time): one per build in use (an
#: install per MPI, a few virtual environments); an older build that comes
#: back asks its bench again.
KEEP_CACHES = 8

__all__ = ["OpInfo", "OpOption", "parse_ops", "query_ops", "render_ops"]

#: Seconds the bench may take to print its catalogue (it starts no MPI job:
#: ~40 ms, a few seconds on a loaded machine).
LIST_OPS_TIMEOUT = 20.0


class OpOption(Record):
    name: str
    default: str
    unit: str
    description: str


class OpInfo(Record):
    name: str
    description: str
    size_meaning: str
    flags: tuple[str, ...]
    options: tuple[OpOption, ...]


def query_ops(profile: MpiProfile, timeout: float | None = None) -> tuple[str, list[OpInfo]]:
    """Ask the profile's bench for its catalogue: (the JSON text, the parsed
    list), waiting at most ``timeout`` s (the run's --timeout) and never
    more than :data:`LIST_OPS_TIMEOUT`."""
    timeout = LIST_OPS_TIMEOUT if timeout is None else min(timeout, LIST_OPS_TIMEOUT)
    bench = profile.check_bench()
    argv = [bench, "--list-ops"]
    if profile.implementation == "smpi":  # an SMPI program runs only in the simulator
        argv = smpi_alone(profile.check_mpiexec(), argv)
    cache = _cache_file(bench)
    with contextlib.suppress(OSError, UnicodeDecodeError, MpiscopeError):
        if cache is not None and cache.is_file():
            text = read_text(cache, "the catalogue cache", MAX_CACHE_BYTES)
            return text, parse_ops(text, str(cache))
    code, out, err = run_captured(argv, build_env(profile), timeout)
    if code != 0:
        last = (err.strip().splitlines() or ["no message"])[-1]
        raise RunFailedError(f"{format_command(argv)} failed with exit code {code}: {last}")
    ops = parse_ops(out, format_command(argv))
    if cache is not None:
        _keep(cache, out)
    return out, ops


def cache_dir() -> Path:
    """mpiscope's cache directory: $XDG_CACHE_HOME/mpiscope, else ~/.cache/mpiscope."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mpiscope"


def _cache_file(program: str) -> Path | None:
    """The cache file of the catalogue of ``program`` as built now; None when
    it cannot be identified (then the bench is asked every time)."""
    try:
        exe = Path(program).resolve(strict=True)
        files = [exe, *sorted(exe.parent.parent.joinpath("lib").glob("libmpiscope.so*"))]
        ids = []
        for path in files:
            st = path.stat()
            ids.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}")
        data = "\n".join(ids).encode()
        # two 32-bit checksums, not a hash: hashlib loads OpenSSL (3 ms a run)
        key = f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
        return cache_dir() / f"ops-{key}.json"
    except (OSError, RuntimeError):
        return None


def _keep(cache: Path, text: str) -> None:
    """Write the cache file whole (rename); a cache that cannot be written is
    only slower, never an error."""
    with contextlib.suppress(OSError, MpiscopeError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(cache, text, update=True)
        _prune(cache)


def _prune(kept: Path) -> None:
    """Remove the catalogue copies beyond the newest :data:`KEEP_CACHES`,
    never ``kept`` (another mpiscope may remove the same ones meanwhile)."""
    def mtime(path: Path) -> int:
        with contextlib.suppress(OSError):
            return path.stat().st_mtime_ns
        return 0

    others = [path for path in kept.parent.glob("ops-*.json") if path != kept]
    others.sort(key=mtime, reverse=True)
    for stale in others[KEEP_CACHES - 1:]:
        with contextlib.suppress(OSError):
            stale.unlink()


def parse_ops(text: str, source: str = "list-ops") -> list[OpInfo]:
    """Parse and check the catalogue printed by ``mpiscope-bench --list-ops``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MpiscopeError(f"{source} did not print valid JSON: {exc}") from None
    if not isinstance(data, list):
        raise MpiscopeError(f"{source} printed JSON that is not an array of operations")
    try:
        return [_op_from_json(item) for item in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise MpiscopeError(f"{source} printed a malformed operation entry: {exc!r}") from None


def _op_from_json(item: Any) -> OpInfo:
    if not isinstance(item, dict) or not isinstance(item["name"], str):
        raise ValueError(item)
    options = tuple(
        OpOption(
            name=str(o["name"]),
            default=str(o.get("default", "")),
            unit=str(o.get("unit", "")),
            description=str(o.get("description", "")),
        )
        for o in item.get("options") or []
    )
    return OpInfo(
        name=item["name"],
        description=str(item.get("description", "")),
        size_meaning=str(item.get("size_meaning", "")),
        flags=tuple(str(f) for f in item.get("flags") or []),
        options=options,
    )


def render_ops(ops: list[OpInfo]) -> str:
    """The catalogue as a table; under each operation what its size means
    and its options."""
    if not ops:
        return "mpiscope-bench reports no operation"
    flags = [",".join(op.flags) or "-" for op in ops]
    name_width = max(len("operation"), *(len(op.name) for op in ops))
    flag_width = max(len("flags"), *(len(f) for f in flags))
    indent = " " * (name_width + flag_width + 4)
    lines = [
        f"{'operation':<{name_width}}  {'flags':<{flag_width}}  description",
        f"{'-' * name_width}  {'-' * flag_width}  {'-' * 11}",
    ]
    for op, flag in zip(ops, flags, strict=True):
        lines.append(f"{op.name:<{name_width}}  {flag:<{flag_width}}  {op.description}".rstrip())
        if op.size_meaning:
            lines.append(f"{indent}size: {op.size_meaning}")
        for o in op.options:
            unit = f" {o.unit}" if o.unit else ""
            lines.append(f"{indent}option {o.name} = {o.default}{unit}: {o.description}".rstrip())
    return "\n".join(lines)
