"""Running mpiscope-bench: under mpiexec for measurements, alone for queries.

Every child runs with an explicit environment, in its own process group
(its own session), with an optional timeout. On timeout or Ctrl-C the whole
group (mpiexec, its proxies and the local ranks) gets SIGTERM, then SIGKILL
if it has not ended after a grace period.

The bench speaks a small line protocol on its standard output:

* ``@mpiscope progress {json}``: a finished point (:class:`ProgressEvent`);
* ``@mpiscope warning <text>``: something the user must know
  (:class:`WarningEvent`);
* anything else is ordinary output (:class:`OutputEvent`).

Its standard error is passed through untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Protocol

from mpiscope.errors import MpiscopeError, RunFailedError, StoppedError

__all__ = [
    "Event",
    "Installation",
    "OutputEvent",
    "ProgressEvent",
    "WarningEvent",
    "build_env",
    "format_command",
    "mpiexec_command",
    "parse_line",
    "run_captured",
    "run_passthrough",
    "run_streaming",
    "stop_process_group",
]

PROGRESS_PREFIX = "@mpiscope progress "
WARNING_PREFIX = "@mpiscope warning "
#: Seconds between SIGTERM and SIGKILL when stopping a process group: long
#: enough for traced ranks to write their event files on SIGTERM.
KILL_GRACE_SECONDS = 5.0
_POLL_SECONDS = 0.2
_NONFINITE_RE = re.compile(r"([:\[,]\s*)[-+]?(?:nan|inf(?:inity)?)\b", re.IGNORECASE)


class Installation(Protocol):
    """What launching needs of an MPI installation
    (:class:`mpiscope.mpi_profile.MpiProfile` is one)."""

    @property
    def implementation(self) -> str: ...  # "mpich" | "openmpi" | "other"

    @property
    def prefix(self) -> str: ...  # its bin/ goes first on PATH

    @property
    def mpiexec(self) -> str: ...


@dataclass(frozen=True)
class ProgressEvent:
    """One measured point, as announced by the bench (times in ns)."""

    index: int  # 1-based position of the point in the run
    total: int  # number of points in the run
    op: str
    size_bytes: int
    nprocs: int
    median_ns: float | None
    ci_low_ns: float | None
    ci_high_ns: float | None
    unstable: bool


@dataclass(frozen=True)
class WarningEvent:
    text: str


@dataclass(frozen=True)
class OutputEvent:
    line: str


Event = ProgressEvent | WarningEvent | OutputEvent


def parse_line(line: str) -> Event:
    """Classify one line of the bench's standard output (without newline)."""
    if line.startswith(PROGRESS_PREFIX):
        payload = line[len(PROGRESS_PREFIX) :]
        event = _progress_from_json(payload)
        if event is None:
            return WarningEvent(f"unreadable progress line from the bench: {payload.strip()}")
        return event
    if line.startswith(WARNING_PREFIX):
        return WarningEvent(line[len(WARNING_PREFIX) :].strip())
    return OutputEvent(line)


def _progress_from_json(payload: str) -> ProgressEvent | None:
    # C's printf("%g") writes nan/inf, which JSON lacks: read them as "no value".
    payload = _NONFINITE_RE.sub(r"\1null", payload)
    try:
        data: Any = json.loads(payload)
        if not isinstance(data, dict):
            return None

        def number(key: str) -> float | None:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else None

        return ProgressEvent(
            index=int(data["index"]),
            total=int(data["total"]),
            op=str(data["op"]),
            size_bytes=int(data["size_bytes"]),
            nprocs=int(data["nprocs"]),
            median_ns=number("median_ns"),
            ci_low_ns=number("ci_low_ns"),
            ci_high_ns=number("ci_high_ns"),
            unstable=bool(data.get("unstable", False)),
        )
    except (ValueError, KeyError, TypeError):
        return None


def mpiexec_command(profile: Installation, nprocs: int, oversubscribe: bool = False) -> list[str]:
    """The launcher part of the command: ``mpiexec -n N [--oversubscribe]``."""
    command = [profile.mpiexec, "-n", str(nprocs)]
    if oversubscribe and profile.implementation == "openmpi":
        command.append("--oversubscribe")  # MPICH's hydra oversubscribes by default
    return command


def build_env(profile: Installation, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The explicit environment of the bench and its launcher.

    It starts from ``base`` (default: this process's environment, so that
    the user's MPI tuning variables reach the ranks), puts the MPI's ``bin``
    first on PATH, and for Open MPI run as root adds the two variables that
    allow it. Python's own variables are removed: the ranks are C.
    """
    env = dict(os.environ if base is None else base)
    for key in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
        env.pop(key, None)
    if profile.prefix:
        bin_dir = os.path.join(profile.prefix, "bin")
        path = env.get("PATH", "")
        if bin_dir not in path.split(os.pathsep):
            env["PATH"] = bin_dir + (os.pathsep + path if path else "")
    if profile.implementation == "openmpi" and os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def format_command(argv: Sequence[str]) -> str:
    """A command as a shell would need it typed."""
    return shlex.join(argv)


def run_captured(
    argv: Sequence[str], env: Mapping[str, str], timeout: float | None
) -> tuple[int, str, str]:
    """Run a short command to completion; return (exit code, stdout, stderr)."""
    proc = _start(argv, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_process_group(proc)
        proc.communicate()
        raise RunFailedError(
            f"{format_command(argv)} did not finish within {timeout:g} s and was stopped"
        ) from None
    except BaseException:
        stop_process_group(proc)
        raise
    return proc.returncode, stdout, stderr


def run_passthrough(argv: Sequence[str], env: Mapping[str, str], timeout: float | None) -> int:
    """Run a program with this terminal's stdin, stdout and stderr; return its
    exit code. Raises :class:`RunFailedError` on timeout; re-raises
    KeyboardInterrupt. In both cases the process group is stopped first."""
    with _termination_raises():
        proc = _start(argv, env, stdout=None, stderr=None, stdin=None)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_process_group(proc)
            raise RunFailedError(
                f"the program did not finish within --timeout {timeout:g} s and was stopped"
            ) from None
        except BaseException:
            stop_process_group(proc)
            raise


def run_streaming(
    argv: Sequence[str],
    env: Mapping[str, str],
    timeout: float | None,
    on_event: Callable[[Event], None],
    idle_timeout: Callable[[], float | None] | None = None,
) -> int:
    """Run the bench, feeding each stdout line to ``on_event``; return its exit code.

    ``idle_timeout``, when given, is asked for the longest silence allowed
    (seconds; None: any): a program whose pace is known only once it runs
    (a detector's calibrated packets) is stopped when it falls silent for
    longer, instead of after a fixed total time.

    Raises :class:`RunFailedError` on timeout; re-raises KeyboardInterrupt.
    In both cases the process group is stopped first.
    """
    with _termination_raises():
        return _stream(argv, env, timeout, on_event, idle_timeout)


def _stream(
    argv: Sequence[str],
    env: Mapping[str, str],
    timeout: float | None,
    on_event: Callable[[Event], None],
    idle_timeout: Callable[[], float | None] | None = None,
) -> int:
    proc = _start(argv, env, stdout=subprocess.PIPE, stderr=None)
    lines: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
    reader.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    last_line = time.monotonic()
    try:
        while True:
            _check_deadline(deadline, timeout)
            try:
                line = lines.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                _check_silence(last_line, idle_timeout)
                continue
            if line is None:
                break
            last_line = time.monotonic()
            on_event(parse_line(line))
        while True:
            _check_deadline(deadline, timeout)
            try:
                return proc.wait(timeout=_POLL_SECONDS)
            except subprocess.TimeoutExpired:
                continue
    except BaseException:
        stop_process_group(proc)
        reader.join(timeout=KILL_GRACE_SECONDS)
        raise


@contextlib.contextmanager
def _termination_raises() -> Iterator[None]:
    """While running, SIGTERM and SIGHUP raise RunFailedError in the main thread.

    The bench runs in its own session, so a signal that ends mpiscope would
    not reach it: turning the signal into an exception lets the usual
    clean-up stop the process group first.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise StoppedError(f"mpiscope received {signal.Signals(signum).name}: run stopped")

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _check_deadline(deadline: float | None, timeout: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise RunFailedError(
            f"the run did not finish within --timeout {timeout:g} s: "
            "mpiexec and its ranks were stopped"
        )


def _check_silence(last_line: float, idle_timeout: Callable[[], float | None] | None) -> None:
    allowed = idle_timeout() if idle_timeout is not None else None
    if allowed is not None and time.monotonic() - last_line > allowed:
        raise RunFailedError(
            f"the run printed nothing for {allowed:.0f} s, far longer than its pace: "
            "mpiexec and its ranks were stopped"
        )


def _start(
    argv: Sequence[str],
    env: Mapping[str, str],
    stdout: int | None,
    stderr: int | None,
    stdin: int | None = subprocess.DEVNULL,
) -> subprocess.Popen[str]:
    try:
        return subprocess.Popen(
            list(argv),
            env=dict(env),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,  # own process group: killed as a whole
        )
    except OSError as exc:
        raise MpiscopeError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    try:
        for line in stream:
            lines.put(line.rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


def stop_process_group(proc: subprocess.Popen[Any]) -> None:
    """Stop a child started in its own session and everything it started:
    SIGTERM to its process group, then, once the leader has ended or after
    :data:`KILL_GRACE_SECONDS`, SIGKILL to what is left (no rank outlives
    its mpiexec). The one way mpiscope stops a process."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=KILL_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        return


def describe_exit(code: int) -> str:
    """``exit code 3`` or ``killed by SIGKILL``."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
