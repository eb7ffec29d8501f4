"""Running the bench: one or several runs, one result document, shown.

The one run path of every measuring command (run, methods, overlap,
firstcall, check). Every run has a private directory next to the result
file; each run's plan document (:mod:`mpiscope.measure.plan`) is written
there and the bench started as ``mpiscope-bench --plan FILE``. A single
run may write the final document itself (``run``: the bench's own file
is the result); otherwise each run writes into the private directory
too, and the document (one run's as it is, several merged by
:func:`mpiscope.measure.runs.merge_documents`) is then written to
``--out``. The result is printed with the renderer the command passes in;
with ``--dry-run`` the plans are printed instead and nothing is launched.
A run that fails or is interrupted stops the series; what was measured
until then is still written and shown, then the error is raised.
``--timeout`` bounds the whole series. This module prints: it is the end
of a command.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from mpiscope.errors import MpiscopeError, RunFailedError, StoppedError
from mpiscope.launcher import (
    Event,
    ProgressEvent,
    build_env,
    describe_launch_exit,
    format_command,
    run_captured,
    run_streaming,
)
from mpiscope.measure.cluster import check_cluster_flags, check_hosts, launch_command
from mpiscope.measure.plan import RunPlan, bench_plan
from mpiscope.measure.progress import ProgressDisplay
from mpiscope.measure.request import MeasureRequest
from mpiscope.measure.runs import (
    RunOutcome,
    merge_documents,
    run_seeds,
    run_summary,
)
from mpiscope.measure.simulation import launch_platform, smpi_alone, smpi_command, smpi_profile
from mpiscope.mpi_profile import MpiProfile, select_profile
from mpiscope.record import Record, field, replace
from mpiscope.result import Result, load_result, write_document
from mpiscope.result.document import checks_own_documents, import_validator, validate_result

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

#: (inode, mtime in ns) of a file: tells the bench's new file from an old one.
FileId = tuple[int, int]
#: A command's last step on the document before it is written and shown:
#: it may add fields (then returns True) and is given where it will be written.
Finish = Callable[["dict[str, Any]", Path], bool]  # quoted: typing is not imported at run time

__all__ = [
    "Bench",
    "Echo",
    "Finish",
    "BenchRun",
    "find_bench",
    "private_dir",
    "measure_plan",
    "run_bench_runs",
    "verify_plan",
]


class Bench(Record):
    """The MPI installation, its launcher command and the bench to run."""

    profile: MpiProfile
    launcher: list[str]
    path: str
    #: variables set for the run on top of the profile's environment
    #: (e.g. an MPI library's algorithm selection)
    env: Mapping[str, str] = field(default_factory=dict)

    def command(self, arguments: Sequence[str]) -> list[str]:
        return [*self.launcher, self.path, *arguments]

    def environment(self) -> dict[str, str]:
        """The run's explicit environment: the profile's, then ``env``."""
        return {**build_env(self.profile), **self.env}

    def with_settings(
        self, env: Mapping[str, str] | None = None, launcher_args: Sequence[str] = ()
    ) -> Bench:
        """The same bench with more environment variables and launcher
        arguments (placed after the launcher's own, before the program)."""
        return replace(
            self,
            launcher=[*self.launcher, *launcher_args],
            env={**self.env, **(env or {})},
        )


def find_bench(request: MeasureRequest) -> Bench:
    """The bench of ``--mpi`` under ``mpiexec -n --np`` (on ``--hosts``...) or
    ``srun`` (mpiscope.measure.cluster), or with ``--launcher smpi`` the
    SMPI build (built when missing) under ``smpirun`` on ``--platform``;
    MpiscopeError when either is missing or the launcher flags do not go
    together."""
    check_cluster_flags(request)  # every launcher: smpi refuses the placement flags too
    platform = launch_platform(request)
    if platform is not None:
        profile = smpi_profile()
        return Bench(profile, smpi_command(profile.mpiexec, platform, request), profile.bench)
    profile = select_profile(request.mpi)
    if profile.implementation == "smpi":
        raise MpiscopeError(
            f"the MPI installation {profile.name!r} is the SimGrid SMPI build: "
            "run it with --launcher smpi --platform NAME|FILE.xml"
        )
    bench = profile.check_bench()
    launcher = launch_command(profile, request)
    check_hosts(request)
    if request.launcher != "srun":
        profile.check_mpiexec()
    return Bench(profile, launcher, bench)


class Echo(Record):
    """What a command shows of its result on stdout: the text ``render``
    makes of it (None: none), then with ``path`` its path. The Python API
    shows nothing unless asked (no Echo)."""

    render: Callable[[Result], str] | None = None
    path: bool = True

    def show(self, result: Result) -> None:
        if self.render is not None:
            print(self.render(result))
        if self.path:
            print(f"\nresult: {result.path}")


class BenchRun(Record):
    """One run: its plan document (``out``: where the bench writes)."""

    plan: dict[str, Any]
    shuffle_seed: int | None = None
    #: the launcher of this run when it is not the bench's (another
    #: process count: mpiscope startup --nprocs)
    launcher: tuple[str, ...] | None = None

    @property
    def out(self) -> Path:
        return Path(self.plan["out"])


@contextlib.contextmanager
def private_dir(out: Path) -> Iterator[str]:
    """A run's private directory, next to ``out``: each run's plan, and its
    result unless it writes ``out`` itself (a path every rank, wherever it
    runs, can reach if rank 0 can write ``out``). Made only for this user
    under a name nobody can guess, removed with what it holds. (Not
    tempfile's: importing it, with random and weakref, cost 2-4 ms of every
    run's start on the AMD EPYC VM.)"""
    path = out.parent / f".{out.name}.runs-{os.urandom(8).hex()}"  # 64 random bits: no retry
    try:
        path.mkdir(mode=0o700)
    except OSError as exc:
        raise MpiscopeError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:
        yield str(path)
    finally:
        _remove_private(path)


def _remove_private(path: Path) -> None:
    """The private directory and the files in it. A run writes only files
    there; shutil, whose import (with bz2, lzma and zlib) cost ~4 ms of
    every run's start on the AMD EPYC VM, only for anything else."""
    try:
        names = os.listdir(path)
    except OSError:
        names = []
    for name in names:  # each error passed over, as rmtree(ignore_errors=True)
        entry = path / name
        with contextlib.suppress(OSError):
            if entry.is_dir() and not entry.is_symlink():
                import shutil

                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink()
    with contextlib.suppress(OSError):
        path.rmdir()


def measure_plan(
    request: MeasureRequest,
    plan: RunPlan,
    bench: Bench,
    echo: Echo | None = None,
    finish: Finish | None = None,
    ledger: bool = False,
) -> Result | None:
    """Measure ``plan``: one run that writes ``plan.out`` itself, or with
    ``--runs R`` R runs, each with its own point order (seeds drawn
    from ``--seed``, random when not given), merged and summarized; then
    ``finish`` (see :func:`run_bench_runs`). ``ledger``: with the bias
    ledger's companions."""
    display = ProgressDisplay(quiet=request.quiet, nprocs=request.np)
    repeats = request.runs
    with private_dir(plan.out) as tmp:
        if repeats == 1:
            run = BenchRun(bench_plan(request, plan, bench.profile, bench.launcher, ledger=ledger))
            return run_bench_runs(
                [run], bench, Path(tmp), request, display, plan.out, echo, finish=finish
            )
        import secrets

        seed = request.seed if request.seed is not None else secrets.randbelow(2**31)
        runs = []
        for index, shuffle in enumerate(run_seeds(seed, repeats)):
            own = replace(
                plan, out=Path(tmp) / f"run-{index}.json", shuffle_seed=shuffle
            )
            doc = bench_plan(request, own, bench.profile, bench.launcher, ledger=ledger)
            runs.append(BenchRun(doc, shuffle))
        return run_bench_runs(
            runs, bench, Path(tmp), request, display, plan.out, echo, summary_seed=seed,
            finish=finish,
        )


def run_bench_runs(
    runs: Sequence[BenchRun],
    bench: Bench,
    tmp: Path,
    request: MeasureRequest,
    display: ProgressDisplay,
    out: Path,
    echo: Echo | None = None,
    summary_seed: int | None = None,
    finish: Finish | None = None,
) -> Result | None:
    """Run ``runs`` in turn (their plans written into ``tmp``, the run's
    private directory), write one document to ``out``, show it (``echo``)
    and return it; with ``request.dry_run``, print the plans instead (one
    object, or a list) and return None.

    With one run the document is the bench's own (written by the bench
    itself when the run's ``out`` is ``out``); with several they are
    merged, and with ``summary_seed`` the run summary is added; then
    ``finish(doc, out)`` may add to it (a document it changes is written
    again, the bench's own too, and validated when read back). Raises
    RunFailedError (after writing and showing what exists) when a run
    failed, KeyboardInterrupt when interrupted. ``request`` gives ``np``,
    ``timeout`` and ``dry_run``. An ``out`` outside ``tmp`` is the user's
    file, which a failure's one line names ("partial result kept in").
    """
    verify_plan(bench, runs[0].plan, request.np)
    if request.dry_run:
        plans = [run.plan for run in runs]
        print(json.dumps(plans[0] if len(plans) == 1 else plans, indent=2))
        return None
    commands = [[*(run.launcher or bench.launcher), bench.path,
                 "--plan", str(_write_plan(run.plan, tmp, index))]
                for index, run in enumerate(runs)]  # fmt: skip
    env = bench.environment()
    if checks_own_documents():
        import_validator()  # now, not in the reading of a run a Ctrl-C may cut short
    direct = len(runs) == 1 and runs[0].out == out
    before = _file_id(out) if direct else None
    existed = out.exists()  # a failed run that measured nothing leaves it (--force)
    outcomes: list[RunOutcome] = []
    interrupted = stopped = False
    deadline = None if request.timeout is None else time.monotonic() + request.timeout
    try:
        for index, (run, command) in enumerate(zip(runs, commands, strict=True)):
            remaining = None if deadline is None else deadline - time.monotonic()
            progress = _Renumbered(display, index, len(runs))
            outcome, stopped = _run_one(run, command, env, (remaining, request.timeout),
                                        progress, before)
            outcomes.append(outcome)
            if outcome.error is not None:
                break
    except KeyboardInterrupt:
        interrupted = True
        outcomes.append(_interrupted(run, command, before))
    finally:
        display.close()
    doc = outcomes[0].doc if len(runs) == 1 else merge_documents(outcomes, len(runs))
    failed = StoppedError if stopped else RunFailedError  # a SIGTERM ends a series too
    failure = next((o.error for o in outcomes if o.error is not None), None)
    if len(runs) > 1 and failure is not None:
        failure = f"run {len(outcomes) - 1} of {len(runs)}: {failure}"
    if doc is None:
        note = "no result was written"
        if existed:
            note = f"no point was measured: the previous {out} is kept as it was"
        if direct and _file_id(out) not in (None, before):  # the bench's own file, unreadable
            note = f"partial result kept in {out}, but it cannot be shown: {_load_error(out)}"
        if interrupted:
            raise KeyboardInterrupt(note)
        raise failed(f"{failure}; {note}")
    doc = dict(doc)
    if summary_seed is not None:
        doc.update(run_summary(doc, summary_seed))
    if not direct and failure is not None and not doc.get("points") and existed:
        raise failed(
            f"{failure}; no point was measured: the previous {out} is kept as it was"
        )  # --force replaces a result only with one that holds a point
    if finish is not None and finish(doc, out):
        direct = False  # the bench's document with more: written and validated again
    if not direct:
        try:
            write_document(doc, out)
        except MpiscopeError as exc:
            if failure is None:
                raise
            raise failed(f"{failure}; {exc}") from None  # the run's own failure first
    try:  # the bench's own document was checked when _read read it; what Python added now
        if not direct:
            validate_result(doc, str(out), own=True)
        result = Result(doc, out)
    except MpiscopeError as exc:
        raise RunFailedError(f"the result cannot be read back: {exc}") from None
    if echo is not None:
        echo.show(result)
    kept = ("partial result shown above" if out.resolve().is_relative_to(tmp.resolve())
            else f"partial result kept in {out}")
    if interrupted:
        raise KeyboardInterrupt(kept)
    if failure is not None:
        raise failed(f"{failure}; {kept}")
    return result


class _Renumbered:
    """Progress of run ``index`` of ``count``, numbered across all of them
    (exact when every run has as many points as the first)."""

    def __init__(self, display: ProgressDisplay, index: int, count: int) -> None:
        self._display = display
        self._index = index
        self._count = count

    def __call__(self, event: Event) -> None:
        if isinstance(event, ProgressEvent) and self._count > 1:
            before = self._index * event.total
            event = replace(
                event, index=before + event.index, total=event.total * self._count
            )
        self._display(event)


def _write_plan(plan: dict[str, Any], tmp: Path, index: int) -> Path:
    """Write run ``index``'s plan into ``tmp``, strict JSON as the bench reads it."""
    path = tmp / f"plan-{index}.json"
    try:
        path.write_text(json.dumps(plan, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise MpiscopeError(f"cannot write the plan {path}: {exc.strerror or exc}") from None
    return path


#: Plan fields only the engine can check (their grammar is the engine's):
#: a plan that has one is checked by the bench itself before the run.
ENGINE_CHECKED = ("clock_transform",)
#: Seconds the bench may take to check a plan (it starts no MPI).
VERIFY_TIMEOUT = 20.0


def verify_plan(bench: Bench, plan: Mapping[str, Any], nprocs: int) -> None:
    """Have the bench check ``plan`` for a run on ``nprocs`` ranks without
    launching it (``mpiscope-bench --plan - --verify N``), when the plan has
    a field whose grammar only the engine knows; its refusal is one line."""
    if not any(plan.get(name) for name in ENGINE_CHECKED):
        return
    argv = [bench.path, "--plan", "-", "--verify", str(nprocs)]
    if bench.profile.implementation == "smpi":
        argv = smpi_alone(bench.profile.mpiexec, argv)
    code, _, err = run_captured(argv, bench.environment(), VERIFY_TIMEOUT, json.dumps(plan))
    if code == 0:
        return
    said = [line for line in err.splitlines() if line.strip()]
    last = (said[-1] if said else f"exit code {code}").removeprefix("mpiscope-bench: error: ")
    field = re.match(r"plan field '(\w+)': (?:clock transform: )?", last)
    if field:  # the flag the user typed, not the plan's field
        last = f"--{field.group(1).replace('_', '-')}: {last[field.end():]}"
    raise MpiscopeError(last)


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _run_one(
    run: BenchRun,
    command: list[str],
    env: Mapping[str, str],
    timeouts: tuple[float | None, float | None],
    progress: _Renumbered,
    before: FileId | None,
) -> tuple[RunOutcome, bool]:
    """The run's outcome, and whether mpiscope was told to stop during it
    (``timeouts``: the time left of the --timeout, and the --timeout)."""
    timeout, given = timeouts
    start = _utc_now()
    error: str | None = None
    stopped = False
    if timeout is not None and timeout <= 0:
        error = "the run did not finish within --timeout: the next run was not started"
    else:
        said: list[str] = []  # the bench's own error lines: the one line says them
        try:
            code = run_streaming(command, env, timeout, progress, errors=said,
                                 given_timeout=given)
            if code != 0:
                why = "; ".join(dict.fromkeys(said))
                error = (f"mpiscope-bench failed: {why}" if why
                         else f"mpiscope-bench failed ({describe_launch_exit(code)})")  # fmt: skip
        except RunFailedError as exc:
            error = str(exc)
            stopped = isinstance(exc, StoppedError)
    doc, read_error = _read(run.out, before)
    if error is None and read_error is not None:
        error = read_error
    elif error is None and doc is not None and doc.get("status") != "complete":
        error = f"mpiscope-bench exited normally but the result's status is {doc.get('status')!r}"
    outcome = RunOutcome(
        format_command(command), start, _utc_now(), doc, error, run.shuffle_seed
    )
    return outcome, stopped


def _interrupted(run: BenchRun, command: list[str], before: FileId | None) -> RunOutcome:
    doc, _ = _read(run.out, before)
    now = _utc_now()
    return RunOutcome(format_command(command), now, now, doc, "interrupted", run.shuffle_seed)


def _read(path: Path, before: FileId | None) -> tuple[dict[str, Any] | None, str | None]:
    """The document a run wrote (validated), or why there is none; a file
    with the id ``before`` was there before the run, not written by it."""
    if _file_id(path) in (None, before):
        return None, "mpiscope-bench wrote no result"
    try:
        return dict(load_result(path, own=True).data), None
    except MpiscopeError as exc:
        return None, f"mpiscope-bench wrote an unreadable result: {exc}"


def _load_error(path: Path) -> str:
    try:
        load_result(path)
    except MpiscopeError as exc:
        return str(exc)
    return "it changed while being read"


def _file_id(path: Path) -> FileId | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns)
