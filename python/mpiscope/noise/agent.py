"""The agent under test: the built-in injector or any command, pinned and stopped by us.

The agent runs in its own process group, so the detector's rank 0 can pause
and resume all of it (SIGSTOP / SIGCONT to the group) for the alternating
design, and stopping it reaches every process the command started. Its
binding is read back from /proc once it runs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.launcher import stop_process_group
from mpiscope.noise.binding import cpus_allowed
from mpiscope.noise.spec import InjectorSpec

__all__ = ["Agent", "AgentSpec", "RECORD_PREFIX", "parse_record"]

RECORD_PREFIX = "@mpiscope "
_START_WAIT_S = 5.0


def parse_record(line: str) -> tuple[str, dict[str, Any]] | None:
    """``@mpiscope KIND {json}`` -> (KIND, object); None for any other line."""
    if not line.startswith(RECORD_PREFIX):
        return None
    kind, _, payload = line[len(RECORD_PREFIX):].partition(" ")
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    return (kind, data) if isinstance(data, dict) else None


@dataclass(frozen=True)
class AgentSpec:
    """Either the injector (``injector``) or a shell command (``command``)."""

    injector: InjectorSpec | None = None
    command: str | None = None
    core: int | None = None  # for a command; the injector carries its own

    @property
    def pinned_core(self) -> int | None:
        return self.injector.core if self.injector else self.core

    def describe(self) -> dict[str, Any]:
        """The agent part of a noise-run document (summary filled in later)."""
        inj = self.injector
        return {
            "kind": "injector" if inj else "command",
            "command": inj.label if inj else self.command,
            "core": self.pinned_core,
            "hz": inj.hz if inj else None,
            "burst_ns": inj.burst_ns if inj else None,
            "jitter": inj.jitter if inj else None,
            "cpus_allowed": None,
            "summary": None,
        }


@dataclass
class Agent:
    """A running agent; use as a context manager (it is always stopped)."""

    spec: AgentSpec
    inject_program: str
    env: dict[str, str]
    proc: subprocess.Popen[str] | None = None
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    binding: list[int] | None = None
    _reader: threading.Thread | None = None

    def __enter__(self) -> Agent:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def pgid(self) -> int:
        assert self.proc is not None
        return self.proc.pid  # started in its own session: pid == pgid

    def start(self) -> None:
        """Start the agent pinned; read its binding back once it runs."""
        spec = self.spec
        if spec.injector:
            argv = spec.injector.argv(self.inject_program)
        else:
            argv = ["/bin/sh", "-c", spec.command or ""]
        core = spec.pinned_core
        try:
            self.proc = subprocess.Popen(
                argv,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=None,
                text=True,
                start_new_session=True,
                # A command is pinned before it starts, so its children inherit it.
                preexec_fn=(lambda: os.sched_setaffinity(0, {core})) if core is not None
                and not spec.injector else None,
            )
        except OSError as exc:
            reason = exc.strerror or exc
            raise MpiscopeError(f"cannot start the agent {argv[0]}: {reason}") from None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if spec.injector:
            started = self._wait_for("inject-start")
            self.binding = [int(c) for c in started.get("cpus_allowed") or []] or None
        else:
            self.binding = cpus_allowed(self.pgid)

    def document(self) -> dict[str, Any]:
        """The agent part of a document: what was asked, the binding read
        back, and (once stopped) the injector's summary."""
        return {**self.spec.describe(), "cpus_allowed": self.cpus_allowed(),
                "summary": self.record("inject-summary")}

    def cpus_allowed(self) -> list[int] | None:
        """The agent's binding, read back once it ran (by the injector itself,
        or from /proc for a command: it is pinned before it execs)."""
        return self.binding

    def record(self, kind: str) -> dict[str, Any] | None:
        for name, data in self.records:
            if name == kind:
                return data
        return None

    def stop(self) -> dict[str, Any] | None:
        """Resume (if paused), stop the whole group; return the injector's summary."""
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            for sig in (signal.SIGCONT, signal.SIGTERM):
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
            try:
                proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                stop_process_group(proc)
        if self._reader is not None:
            self._reader.join(timeout=3.0)
        return self.record("inject-summary")

    def play(self, command: list[str], seconds: float | None,
             on_start: Callable[[], None] = lambda: None) -> int:
        """Run the agent around ``command`` (or for ``seconds``, or until
        Ctrl-C when neither is given); return the command's exit code."""
        code = 0
        with self:
            on_start()
            try:
                if command:
                    try:
                        code = subprocess.call(command)
                    except OSError as exc:
                        reason = exc.strerror or exc
                        raise MpiscopeError(f"cannot run {command[0]}: {reason}") from None
                else:
                    deadline = None if seconds is None else time.monotonic() + seconds
                    while self.alive() and (deadline is None or time.monotonic() < deadline):
                        time.sleep(0.05)
            except KeyboardInterrupt:
                code = 130
        return code

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            parsed = parse_record(line.rstrip("\n"))
            if parsed is not None:
                self.records.append(parsed)

    def _wait_for(self, kind: str) -> dict[str, Any]:
        deadline = time.monotonic() + _START_WAIT_S
        while (found := self.record(kind)) is None:
            if self.proc is not None and self.proc.poll() is not None:
                raise MpiscopeError(
                    f"the injector stopped at start ({self.proc.returncode}); "
                    f"is core {self.spec.pinned_core} online?"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise MpiscopeError("the injector did not start within 5 s")
            time.sleep(0.01)
        return found
