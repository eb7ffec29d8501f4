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

Its standard error is passed through, except, when the caller collects
them (``run_streaming(errors=...)``), the programs' own error lines
(``<program>: error: <text>``) and MPICH's multi-line banner about a rank
that died: those are kept for the caller's one error line.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from mpiscope.errors import MpiscopeError, RunFailedError, StoppedError
from mpiscope.record import Record
from mpiscope.session_dirs import LISTENER_FAILED, remove_left_behind, stale_dir_reason

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import IO, Any, Protocol
else:
    Protocol = object  # structural for mypy alone

__all__ = [
    "Event",
    "Installation",
    "OutputEvent",
    "ProgressEvent",
    "WarningEvent",
    "build_env",
    "describe_exit",
    "describe_launch_exit",
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
# Patterns, compiled by re's cache where first used: most read only a
# failed run's output (each compile at import cost `mpiscope run` 0.2 ms).
_NONFINITE_RE = r"(?i)([:\[,]\s*)[-+]?(?:nan|inf(?:inity)?)\b"
#: ``mpiscope-bench: error: text`` (any program's own error line).
_ERROR_LINE_RE = r"^[\w.+-]+: (?:error|fatal): (.*)$"
#: MPICH's (hydra's) report of a rank that died, between two rules of '='.
_BANNER_RULE_RE = r"^={20,}$"
_BANNER_SIGNAL_RE = r"EXIT STRING: .*\(signal (\d+)\)"
_BANNER_PID_RE = r"^=\s+PID (\d+) RUNNING AT (\S+)"


class Installation(Protocol):
    """What launching needs of an MPI installation
    (:class:`mpiscope.mpi_profile.MpiProfile` is one)."""

    @property
    def implementation(self) -> str: ...  # "mpich" | "openmpi" | "other"

    @property
    def prefix(self) -> str: ...  # its bin/ goes first on PATH

    @property
    def mpiexec(self) -> str: ...


class ProgressEvent(Record):
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


class WarningEvent(Record):
    text: str


class OutputEvent(Record):
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
    payload = re.sub(_NONFINITE_RE, r"\1null", payload)
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
    argv: Sequence[str], env: Mapping[str, str], timeout: float | None,
    stdin_text: str | None = None,
) -> tuple[int, str, str]:  # fmt: skip
    """Run a short command to completion (``stdin_text`` on its standard
    input); return (exit code, stdout, stderr)."""
    stdin = subprocess.DEVNULL if stdin_text is None else subprocess.PIPE
    proc = _start(argv, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin)
    try:
        stdout, stderr = proc.communicate(input=stdin_text, timeout=timeout)
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
            code = _wait_exit(proc, timeout)
        except BaseException:
            stop_process_group(proc)
            raise
        if code is None:
            stop_process_group(proc)
            raise RunFailedError(
                f"the program did not finish within --timeout {timeout:g} s and was stopped"
            )
        return code


def run_streaming(
    argv: Sequence[str],
    env: Mapping[str, str],
    timeout: float | None,
    on_event: Callable[[Event], None],
    idle_timeout: Callable[[], float | None] | None = None,
    errors: list[str] | None = None,
    given_timeout: float | None = None,
) -> int:
    """Run the bench, feeding each stdout line to ``on_event``; return its exit code.

    ``timeout`` is the time left (seconds); ``given_timeout``, when the caller
    runs a series under one --timeout, the user's value, which the error
    line names (else ``timeout``).

    ``idle_timeout``, when given, is asked for the longest silence allowed
    (seconds; None: any): a program whose pace is known only once it runs
    (a detector's calibrated packets) is stopped when it falls silent for
    longer, instead of after a fixed total time.

    ``errors``, when given, receives the text of each ``<program>: error:``
    line of the standard error (which is not printed) and, for a rank that
    MPICH saw die of a signal, ``a rank was killed by SIGKILL`` (its banner
    is not printed): the caller says them in its one error line.

    Raises :class:`RunFailedError` on timeout, :class:`StoppedError` on
    SIGTERM or SIGHUP; re-raises KeyboardInterrupt. In each case the
    process group is stopped first.
    """
    signals = _DeferredSignals()
    with signals:  # from before the start: an interrupt there would orphan the ranks
        collect = errors is not None
        proc = _start(argv, env, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE if collect else None)  # fmt: skip
        signals.proc = proc
        said = timeout if given_timeout is None else given_timeout
        return _follow(proc, signals, (timeout, said), on_event, idle_timeout, errors)


def _follow(
    proc: subprocess.Popen[str],
    signals: _DeferredSignals,
    timeouts: tuple[float | None, float | None],
    on_event: Callable[[Event], None],
    idle_timeout: Callable[[], float | None] | None,
    errors: list[str] | None,
) -> int:
    timeout, said = timeouts
    lines: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    banner = _Banner(errors) if errors is not None else None
    reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
    reader.start()
    pumps = [reader]
    if errors is not None and proc.stderr is not None:
        pumps.append(threading.Thread(target=_pump_errors, args=(proc.stderr, errors, proc.pid),
                                      daemon=True))
        pumps[-1].start()
    deadline = None if timeout is None else time.monotonic() + timeout
    last_line = time.monotonic()
    try:
        while True:
            signals.check()
            _check_deadline(deadline, said)
            try:
                line = lines.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                _check_silence(last_line, idle_timeout)
                continue
            if line is None:
                break
            last_line = time.monotonic()
            if banner is None or not banner.take(line):
                on_event(parse_line(line))
        while True:
            signals.check()
            _check_deadline(deadline, said)
            code = _wait_exit(proc, _POLL_SECONDS)
            if code is not None:
                # its standard error to the end: the caller's line comes after the bench's
                pumps[-1].join(timeout=KILL_GRACE_SECONDS)
                return code
    except BaseException:
        stop_process_group(proc)
        reader.join(timeout=KILL_GRACE_SECONDS)
        raise


class _DeferredSignals:
    """While streaming (main thread only): SIGINT, SIGTERM and SIGHUP are
    noted and raised by :meth:`check` at a safe point of the loop, not
    inside a lock's wait (two Ctrl-C in quick succession inside
    ``queue.get`` ended in 'RuntimeError: release unlocked lock'). A
    second signal kills the group of ``proc`` (once set) at once. A signal
    the process ignores (SIGHUP under nohup) stays ignored.

    The signal is deferred, not taken: on exit, the handler it displaced
    (mpiscope's own for SIGINT, which ignores every later Ctrl-C) is run
    with it, else it is raised if nothing is being raised yet (it came
    after the last check)."""

    _SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.proc: subprocess.Popen[Any] | None = None  # set once started
        self._received: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _DeferredSignals:
        if threading.current_thread() is threading.main_thread():
            self._previous = {
                sig: signal.signal(sig, self._note)
                for sig in self._SIGNALS
                if signal.getsignal(sig) is not signal.SIG_IGN
            }
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        for sig, old in self._previous.items():
            signal.signal(sig, old)
        if self._received is None:
            return
        displaced = self._previous.get(self._received)
        if callable(displaced) and displaced is not signal.default_int_handler:
            displaced(self._received, None)
        elif kind is None:
            self.check()

    def _note(self, signum: int, frame: object) -> None:
        if self._received is not None and self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self._received = signum

    def check(self) -> None:
        """Raise what the signal received means: KeyboardInterrupt for SIGINT,
        StoppedError for the others."""
        if self._received is None:
            return
        if self._received == signal.SIGINT:
            raise KeyboardInterrupt
        raise StoppedError(f"mpiscope received {_signal_name(self._received)}: run stopped")


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


def _wait_exit(proc: subprocess.Popen[Any], seconds: float | None) -> int | None:
    """``proc``'s exit code, or None if it is still running after ``seconds``
    (None: however long it takes).
    On Linux the wait wakes when the process exits (a pidfd); Popen.wait's
    own polling sleeps up to 50 ms between looks, and a run's wall is the
    sum of such delays."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux >= 5.3, or already reaped
        try:
            return _reaped(proc, proc.wait(timeout=seconds))
        except subprocess.TimeoutExpired:
            return None
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if not poller.poll(None if seconds is None else int(seconds * 1000)):
            return None
    finally:
        os.close(fd)
    return _reaped(proc, proc.wait())


def _reaped(proc: subprocess.Popen[Any], code: int) -> int:
    """``proc``'s exit ``code``, once what it could not clean up is: an
    mpiexec killed by SIGKILL (by mpiscope's stop, or anyone) leaves its
    Open MPI session directory (mpiscope.session_dirs)."""
    if code == -signal.SIGKILL:
        remove_left_behind(proc.pid)
    return code


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


class _Banner:
    """MPICH's report of a dead rank on standard output: a rule of '=', a few
    lines, a rule, then three lines of advice. Its lines are swallowed and
    the signal it names goes to ``errors``, with the process id and host the
    banner names (``a rank (pid 4242 on node7) was killed by SIGKILL``: the
    result's ``environment.rank_pids`` tells its rank)."""

    _AFTER = ("YOUR APPLICATION TERMINATED", "This typically refers", "Please see the FAQ")

    def __init__(self, errors: list[str]) -> None:
        self._errors = errors
        self._rules = 0
        self._where = ""

    def take(self, line: str) -> bool:
        """Whether ``line`` belongs to the banner (and is thus not output)."""
        if re.match(_BANNER_RULE_RE, line):
            self._rules += 1
            return True
        if self._rules == 1 and line.startswith("="):
            pid = re.match(_BANNER_PID_RE, line)
            if pid:
                self._where = f" (pid {pid.group(1)} on {pid.group(2)})"
            return True
        if self._rules >= 2 and line.startswith(self._AFTER):
            match = re.search(_BANNER_SIGNAL_RE, line)
            if match:
                self._errors.append(
                    f"a rank{self._where} was killed by {_signal_name(int(match.group(1)))}"
                )
            return True
        return False


def _pump_errors(stream: IO[str], errors: list[str], pid: int) -> None:
    """Standard error: error lines into ``errors``, the rest printed as it
    comes; Open MPI's failed start on a stale session directory (mpiexec
    ``pid``) also gives its reason to ``errors``."""
    try:
        for line in stream:
            match = re.match(_ERROR_LINE_RE, line.rstrip("\r\n"))
            if match:
                errors.append(match.group(1).strip())
            else:
                if LISTENER_FAILED in line:
                    errors.append(stale_dir_reason(pid))
                sys.stderr.write(line)
                sys.stderr.flush()
    except (OSError, ValueError):
        pass


def stop_process_group(proc: subprocess.Popen[Any]) -> None:
    """Stop a child started in its own session and everything it started:
    SIGTERM to its process group, then, once the leader has ended or after
    :data:`KILL_GRACE_SECONDS`, SIGKILL to what is left (no rank outlives
    its mpiexec). The one way mpiscope stops a process. A Ctrl-C while it
    stops kills the group at once instead of interrupting the stop."""
    with _interrupt_kills(proc):
        _stop_group(proc)


@contextlib.contextmanager
def _interrupt_kills(proc: subprocess.Popen[Any]) -> Iterator[None]:
    """While stopping ``proc``: SIGINT (a second Ctrl-C) sends SIGKILL to its
    group rather than raising KeyboardInterrupt inside Popen.wait, whose
    lock it would leave broken (RuntimeError: release unlocked lock)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _stop_group(proc: subprocess.Popen[Any]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if _wait_exit(proc, KILL_GRACE_SECONDS) is None:
            continue
        if sig == signal.SIGTERM:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        return


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(code: int) -> str:
    """``exit code 3`` or ``killed by SIGKILL``."""
    if code < 0:
        return f"killed by {_signal_name(-code)}"
    return f"exit code {code}"


def describe_launch_exit(code: int) -> str:
    """The exit code of a launcher (mpiexec, srun), naming a rank's signal
    when the code is 128 + its number, as Open MPI and shells report it:
    ``exit code 137: a rank was killed by SIGKILL``. (MPICH reports the
    bare number, indistinguishable from an exit code: its banner, which
    :func:`run_streaming` reads, names the signal instead.)"""
    if 128 < code < 128 + signal.NSIG:
        return f"exit code {code}: a rank was killed by {_signal_name(code - 128)}"
    return describe_exit(code)
