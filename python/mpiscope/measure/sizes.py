"""Size and process-count specifications of ``mpiscope run``.

Sizes (bytes) accept binary suffixes K, M, G, T (powers of 1024), also
written KiB, MiB, GiB, TiB, case-insensitive, and an optional B:

* ``"1:1M:x4"``   geometric: 1, 4, 16, ... up to 1 MiB (factor 4);
* ``"0:64K:+4K"`` arithmetic: 0, 4096, ..., 65536 (step 4 KiB);
* ``"1:1M"``      geometric with factor 2;
* ``"8,1K,64K"``  an explicit list, measured in that order;
* ``"4K"``        one size.

Process counts use the same forms without suffixes (``"2:8"`` steps by 1).
Every error is an :class:`~mpiscope.errors.MpiscopeError` naming the spec.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Sequence

from mpiscope.errors import MpiscopeError
from mpiscope.parsing import Ranged
from mpiscope.result.units import format_bytes

__all__ = [
    "MAX_POINTS",
    "ByteSize",
    "check_fits",
    "check_memory",
    "machine_memory",
    "one_size",
    "parse_nprocs",
    "parse_nprocs_spec",
    "parse_size",
    "parse_size_spec",
]

#: A spec may expand to at most this many values.
MAX_POINTS = 1000

_SUFFIX_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}
_SIZE_RE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """One size in bytes: "64", "4K", "4KiB", "1M", "512B"."""
    match = _SIZE_RE.match(text)
    if match is None:
        raise MpiscopeError(
            f"invalid size {text.strip()!r}: expected a whole number of bytes "
            "with an optional K, M, G or T suffix (powers of 1024), e.g. 64K or 1MiB"
        )
    digits, prefix, tail = match.groups()
    tail = tail.lower()
    if tail == "i" or (tail == "ib" and not prefix):
        raise MpiscopeError(f"invalid size {text.strip()!r}: unknown unit")
    if tail == "b" and prefix:
        unit = prefix.upper() + "B"
        raise MpiscopeError(
            f"ambiguous size {text.strip()!r}: write {prefix.upper()} or "
            f"{prefix.upper()}iB (1024-based) instead of {unit}"
        )
    return int(digits) * (1 << (10 * _SUFFIX_POWER[prefix.lower()]))


def parse_nprocs(text: str) -> int:
    """One process count: a whole number >= 1."""
    stripped = text.strip()
    if not stripped.isdigit():
        raise MpiscopeError(f"invalid number of processes {stripped!r}: expected a whole number")
    value = int(stripped)
    if value < 1:
        raise MpiscopeError(f"invalid number of processes {stripped!r}: must be at least 1")
    return value


def parse_size_spec(spec: str) -> list[int]:
    """Expand a size spec (see the module doc) into a list of sizes in bytes."""
    return _parse_spec(spec, parse_size, "size")


def one_size(spec: str, flag: str) -> int:
    """The one size in bytes that ``flag`` (``--size``, ``--latency-size``)
    takes; one MpiscopeError line naming it otherwise."""
    sizes = parse_size_spec(spec)
    if len(sizes) != 1:
        raise MpiscopeError(f"{flag} must be one size, not {len(sizes)} ({spec!r})")
    return sizes[0]


def parse_nprocs_spec(spec: str) -> list[int]:
    """Expand a process-count spec ("2:8", "2:16:x2", "2,4,8") into a list."""
    return _parse_spec(spec, parse_nprocs, "process count", default_step="+1")


def _parse_spec(
    spec: str, parse_one: Callable[[str], int], what: str, default_step: str = "x2"
) -> list[int]:
    text = spec.strip()
    if not text:
        raise MpiscopeError(f"empty {what} specification")
    try:
        if ":" in text:
            if "," in text:
                raise MpiscopeError("mix of ',' and ':'")
            values = _expand_range(text, parse_one, default_step)
        else:
            values = [parse_one(item) for item in text.split(",")]
    except MpiscopeError as exc:
        if ":" not in text and "," not in text:
            raise  # one value: its own message already names it
        raise MpiscopeError(f"bad {what} specification {text!r}: {exc}") from None
    seen: set[int] = set()
    for value in values:
        if value in seen:
            raise MpiscopeError(f"bad {what} specification {text!r}: {value} appears twice")
        seen.add(value)
    if len(values) > MAX_POINTS:
        raise MpiscopeError(
            f"bad {what} specification {text!r}: expands to more than "
            f"{MAX_POINTS} values (the limit)"
        )
    return values


def _expand_range(text: str, parse_one: Callable[[str], int], default_step: str) -> list[int]:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise MpiscopeError("expected MIN:MAX or MIN:MAX:STEP (STEP is xFACTOR or +INCREMENT)")
    low, high = parse_one(parts[0]), parse_one(parts[1])
    if low > high:
        raise MpiscopeError(
            f"the minimum {parts[0].strip()} is larger than the maximum {parts[1].strip()}"
        )
    step = parts[2].strip() if len(parts) == 3 else default_step
    if step.startswith("+"):
        increment = parse_one(step[1:])
        if increment == 0:
            raise MpiscopeError("the step must not be zero")
        return _bounded(range(low, high + 1, increment))
    if step.lower().startswith("x") or step.startswith("*"):
        return _geometric(low, high, step[1:].strip())
    raise MpiscopeError(f"invalid step {step!r}: expected xFACTOR (e.g. x2) or +INCREMENT (+4K)")


def _geometric(low: int, high: int, factor_text: str) -> list[int]:
    try:
        factor = float(factor_text)
    except ValueError:
        raise MpiscopeError(f"invalid factor {factor_text!r}: expected a number > 1") from None
    if not factor > 1.0 or factor != factor or factor == float("inf"):
        raise MpiscopeError(f"invalid factor {factor_text!r}: must be larger than 1")
    values: list[int] = []
    if low == 0:
        values.append(0)
    current = float(max(low, 1))
    while round(current) <= high:
        value = round(current)
        if not values or value != values[-1]:
            values.append(value)
        if len(values) > MAX_POINTS:
            break
        current *= factor
    return values


def _bounded(values: range) -> list[int]:
    if len(values) > MAX_POINTS:
        # Report the true count without building a huge list.
        raise MpiscopeError(f"expands to {len(values)} values, more than {MAX_POINTS} (the limit)")
    return list(values)


#: Message buffers a rank holds for one point, at the least: one to send,
#: one to receive (the buffer pool and some operations hold more).
BUFFERS_PER_RANK = 2


def machine_memory() -> int | None:
    """This machine's memory in bytes (MemTotal), None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def check_memory(sizes: Sequence[int], ranks: int, memory: int | None = None) -> None:
    """Refuse, before anything is launched, a size whose buffers alone (two of
    that size on each of ``ranks`` ranks on this machine) exceed its memory
    (``memory``: bytes, default :func:`machine_memory`): such a point could
    only fail in the bench, after the launch."""
    if not sizes:
        return
    largest = max(sizes)
    check_fits(BUFFERS_PER_RANK * largest * ranks, f"size {format_bytes(largest)}",
               f"{BUFFERS_PER_RANK} buffers of {format_bytes(largest)} on each of {ranks} "
               "rank(s)", memory)  # fmt: skip


def check_fits(need: int, what: str, detail: str, memory: int | None = None) -> None:
    """Refuse ``what`` when it needs more than this machine's memory (``need``
    bytes, held as ``detail`` says)."""
    memory = machine_memory() if memory is None else memory
    if memory is not None and need > memory:
        raise MpiscopeError(
            f"{what} needs at least {format_bytes(need)} of memory ({detail}); this machine "
            f"has {format_bytes(memory)}"
        )


class ByteSize(Ranged):
    """An argparse type: a number of bytes as :func:`parse_size` reads it
    (64, 4K, 1M), in ``[low, high]``."""

    integer = True

    def parse(self, text: str) -> float:
        try:
            return parse_size(text)
        except MpiscopeError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
