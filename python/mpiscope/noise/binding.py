"""Where processes run: the machine's cores and a process's binding, read back.

A layout is only as good as the binding the kernel really applied, so every
binding mpiscope reports is read from /proc and /sys, never taken from what
was asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mpiscope.errors import MpiscopeError

__all__ = [
    "Topology",
    "cpus_allowed",
    "format_cpu_list",
    "last_cpu",
    "parse_cpu_list",
    "read_topology",
]

_SYS_CPU = Path("/sys/devices/system/cpu")


def parse_cpu_list(text: str) -> list[int]:
    """``"0-2,5"`` -> ``[0, 1, 2, 5]`` (the kernel's cpulist format)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        low, sep, high = part.partition("-")
        try:
            first = int(low)
            last = int(high) if sep else first
        except ValueError:
            raise MpiscopeError(f"'{text}' is not a CPU list such as 0-2,5") from None
        if first < 0 or last < first:
            raise MpiscopeError(f"'{text}' is not a CPU list such as 0-2,5")
        cpus.extend(range(first, last + 1))
    return sorted(set(cpus))


def format_cpu_list(cpus: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2,5"``."""
    parts: list[str] = []
    ordered = sorted(set(cpus))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def cpus_allowed(pid: int) -> list[int] | None:
    """The CPUs process ``pid`` may run on, from /proc; None if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return parse_cpu_list(line.split(":", 1)[1])
    return None


def last_cpu(pid: int) -> int | None:
    """The CPU process ``pid`` last ran on (field 39 of /proc/PID/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces: count fields after its ')'.
    fields = stat.rsplit(")", 1)[-1].split()
    try:
        return int(fields[36])
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Topology:
    """Logical CPUs of this machine grouped by physical core."""

    logical: list[int]  # online logical CPUs
    physical: list[list[int]]  # one list of logical CPUs (hyper-threads) per physical core

    def first_threads(self) -> list[int]:
        """One logical CPU per physical core (layout A: no hyper-thread shared)."""
        return [siblings[0] for siblings in self.physical]


def read_topology(sys_cpu: Path = _SYS_CPU) -> Topology:
    """The online CPUs and their physical cores, from /sys (or os.cpu_count)."""
    try:
        logical = parse_cpu_list((sys_cpu / "online").read_text())
    except (OSError, MpiscopeError):
        logical = sorted(os.sched_getaffinity(0))
    cores: dict[tuple[str, str], list[int]] = {}
    for cpu in logical:
        topo = sys_cpu / f"cpu{cpu}" / "topology"
        try:
            key = ((topo / "physical_package_id").read_text().strip(),
                   (topo / "core_id").read_text().strip())
        except OSError:
            key = ("?", str(cpu))
        cores.setdefault(key, []).append(cpu)
    physical = sorted((sorted(cpus) for cpus in cores.values()), key=lambda c: c[0])
    return Topology(logical=logical, physical=physical)
