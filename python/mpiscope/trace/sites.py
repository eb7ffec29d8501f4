"""Call sites: a record's return address as function and file:line.

The address is looked up in the rank's memory map (written into the trace)
to find the executable or library and the address inside it, which
``addr2line`` (binutils) turns into a function and file:line when the file
has debug information. Without it the site is shown as ``file+0xOFFSET``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Iterable

from mpiscope.trace.reader import MapEntry

__all__ = ["resolve_sites"]

ADDR2LINE_TIMEOUT = 30.0


def _elf_is_pie(path: str) -> bool:
    """ET_DYN (shared object, PIE): addresses are relative to the load base."""
    try:
        with open(path, "rb") as f:
            header = f.read(18)
    except OSError:
        return True
    return len(header) < 18 or header[:4] != b"\x7fELF" or header[16] == 3


def _locate(maps: list[MapEntry], address: int) -> tuple[str, int] | None:
    for m in maps:
        if m.start <= address < m.end:
            base = m.start - m.offset if _elf_is_pie(m.path) else 0
            return m.path, address - base
    return None


def _addr2line(path: str, offsets: list[int]) -> list[str | None]:
    tool = shutil.which("addr2line")
    if tool is None or not os.path.isfile(path):
        return [None] * len(offsets)
    argv = [tool, "-f", "-C", "-s", "-e", path, *(hex(o) for o in offsets)]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=ADDR2LINE_TIMEOUT,
                             check=False).stdout.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return [None] * len(offsets)
    names: list[str | None] = []
    for k in range(len(offsets)):
        func = out[2 * k] if 2 * k < len(out) else "??"
        where = out[2 * k + 1] if 2 * k + 1 < len(out) else "??:0"
        where = where.split(" (discriminator")[0]
        if func == "??" and where.startswith("??"):
            names.append(None)
        elif where.startswith("??"):
            names.append(f"{func} ({os.path.basename(path)})")
        else:
            names.append(f"{where} ({func})")
    return names


def resolve_sites(maps: list[MapEntry], addresses: Iterable[int]) -> dict[int, str]:
    """address -> "file.c:42 (function)", "lib.so+0x1234", or "0x7f...": one
    addr2line run per file."""
    result: dict[int, str] = {}
    by_file: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for address in set(addresses):
        where = _locate(maps, address)
        if where is None:
            result[address] = hex(address)
        else:
            by_file[where[0]].append((address, where[1]))
    for path, pairs in by_file.items():
        # the return address is the instruction after the call: look up the call
        names = _addr2line(path, [max(0, off - 1) for _, off in pairs])
        for (address, offset), name in zip(pairs, names, strict=True):
            result[address] = name or f"{os.path.basename(path)}+{offset:#x}"
    return result
