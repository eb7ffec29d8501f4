"""The reliability sweep: bad inputs and faults, each judged clean or a defect.

    python bench/reliability.py [--cases bench/reliability-cases.txt]
                                [--only d1,f22,...] [--dir DIR] [--json OUT]

Runs every case of the case list (bench/reliability-cases.txt says the
format) with the ``mpiscope`` of this interpreter's environment, each under
bash in its own session, in a fixture directory built first (real result,
noise, model, alltoall documents and a trace, made by the same mpiscope;
a FIFO, a directory, binary and deeply nested files; ``full/`` a 64 KiB
tmpfs and ``ro/`` a read-only one: this needs root). A case is clean when
it did what its line expects; besides, for every case: no ``Traceback``,
done within 30 s (stopped at 60 s), /dev/null, /dev/full and /dev/zero still
the character devices they were (put back, and the case a defect, when
not), no fixture changed, nothing left behind by a refused case, no
process of its session left running. Prints one line per case and the
totals per set (bad inputs, faults).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
SLOW_S = 30.0
KILL_S = 60.0
DEVICES = {"/dev/null": (1, 3), "/dev/full": (1, 7), "/dev/zero": (1, 5)}
SWEEP = ("mpiscope run bcast,allreduce,gather,scatter,alltoall --np 2 --sizes 1:4M:x2 "
         "--stop count --max-valid 1000 --quiet --out r.json")  # fmt: skip
APP_C = r"""
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* app [SECONDS [SLEEP_US]]: allreduce + sendrecv loop for SECONDS (default
 * 0.2), sleeping SLEEP_US between iterations (a program that calls MPI
 * slowly: its halves of trace records do not fill) */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 0.2, x = 1, y = 0;
    long pause = argc > 2 ? atol(argv[2]) : 0;
    double end = MPI_Wtime() + seconds;
    int go = 1;
    while (go) {
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &y, 1, MPI_DOUBLE,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (pause)
            usleep((useconds_t)pause);
        int more = MPI_Wtime() < end;
        MPI_Allreduce(&more, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
"""


@dataclass
class Case:
    ident: str
    expect: str  # error | either | ok | fault
    options: dict[str, str]
    command: str


@dataclass
class Outcome:
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    problems: list[str] = field(default_factory=list)


# --- the case list ------------------------------------------------------------------------
def read_cases(path: Path) -> list[Case]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        head, sep, command = line.partition(" :: ")
        if not sep:
            sys.exit(f"{path}:{number}: no ' :: ' in {line!r}")
        words = shlex.split(head)
        options = dict(word.split("=", 1) for word in words[2:])
        cases.append(Case(words[0], words[1], options, command.strip()))
    return cases


def selected(cases: list[Case], only: str | None) -> list[Case]:
    if not only:
        return cases
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    return [c for c in cases if any(c.ident == w or c.ident.startswith(w + ".") for w in wanted)]


# --- the machine's state ------------------------------------------------------------------
def devices_ok() -> list[str]:
    """The device nodes that are not what they were; each put back."""
    broken = []
    for path, (major, minor) in DEVICES.items():
        try:
            st = os.lstat(path)
            good = stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == major \
                and os.minor(st.st_rdev) == minor
        except FileNotFoundError:
            good = False
        if not good:
            broken.append(path)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
            os.chmod(path, 0o666)
    return broken


#: The environment variable that marks every process of a case (MPI ranks
#: run in sessions of their own, but inherit the environment).
MARK = "MPISCOPE_RELIABILITY_CASE"


def case_pids(mark: str) -> list[int]:
    """The processes whose environment carries ``MARK=mark``."""
    wanted = f"{MARK}={mark}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            with contextlib.suppress(OSError):
                if wanted in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    pids.append(int(entry))
    return pids


def kill_case(mark: str) -> list[int]:
    left = case_pids(mark)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


_marks = iter(range(1, 1 << 30))


def snapshot(root: Path) -> dict[str, str]:
    """path -> a digest of every entry under root (mounts' contents included)."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256()
                with contextlib.suppress(OSError), open(path, "rb") as f:
                    for block in iter(lambda f=f: f.read(1 << 20), b""):
                        digest.update(block)
                found[rel] = "file:" + digest.hexdigest()
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = "dir"
            else:
                found[rel] = f"mode:{stat.S_IFMT(st.st_mode):o}"
    return found


# --- running ------------------------------------------------------------------------------
class Started(subprocess.Popen):  # type: ignore[type-arg]
    mark: str


def start(command: str, cwd: Path, env: dict[str, str]) -> Started:
    mark = f"{os.getpid()}-{next(_marks)}"
    proc = Started(
        ["bash", "-c", command], cwd=cwd, env={**env, MARK: mark}, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
        start_new_session=True,
    )  # fmt: skip
    proc.mark = mark
    return proc


def finish(proc: Started, began: float, limit: float = KILL_S) -> Outcome:
    problems = []
    try:
        out, err = proc.communicate(timeout=max(0.1, limit - (time.monotonic() - began)))
    except subprocess.TimeoutExpired:
        kill_case(proc.mark)
        out, err = proc.communicate()
        problems.append(f"hang: still running at {limit:.0f} s")
    seconds = time.monotonic() - began
    if seconds > SLOW_S and not problems:
        problems.append(f"slow: {seconds:.0f} s")
    time.sleep(0.3)
    left = kill_case(proc.mark)
    if left:
        problems.append(f"{len(left)} process(es) left running")
    return Outcome(proc.returncode, out, err, seconds, problems)


def run(command: str, cwd: Path, env: dict[str, str]) -> Outcome:
    began = time.monotonic()
    return finish(start(command, cwd, env), began)


_PROGRESS = re.compile(r"^\s*\[\d+/\d+\]|^note: |^mpiscope: note: |^left out: |^injecting |"
                       r"^agent pid |^\d+ bursts, ")


def error_lines(text: str) -> list[str]:
    """The lines of stderr that say something went wrong (progress lines and
    notes are not)."""
    return [line for line in text.splitlines() if line.strip() and not _PROGRESS.match(line)]


def judge_lines(outcome: Outcome, expect: str, exits: str = "") -> None:
    """The exit code and stderr against what the case expects: ``error``,
    refused with exit code 2 (bad input is refused before anything is
    launched) unless ``exits`` lists others; ``either``, that or success."""
    lines = error_lines(outcome.stderr)
    if "Traceback" in outcome.stderr:
        outcome.problems.append("traceback: " + lines[-1][:120])
        return
    errors = [line for line in lines if line.startswith("mpiscope: error:")]
    if outcome.code == 0:
        if expect == "error":
            outcome.problems.append("accepted (exit 0)")
        elif "Warning" in outcome.stderr:
            outcome.problems.append("a warning on stderr: " + lines[0][:100])
        return
    allowed = {int(c) for c in exits.split(",")} if exits else {2}
    if outcome.code not in allowed or expect == "ok":
        outcome.problems.append(f"exit {outcome.code}, not {'/'.join(map(str, sorted(allowed)))}")
    if len(errors) != 1 or len(lines) != 1:
        outcome.problems.append(f"{len(lines)} stderr lines: " + " | ".join(lines)[:200])


# --- bad inputs ---------------------------------------------------------------------------
def bad_input(case: Case, fixtures: Path, pristine: dict[str, str], env: dict[str, str]) -> Outcome:
    outcome = run(case.command, fixtures, env)
    judge_lines(outcome, case.expect, case.options.get("exit", ""))
    says = case.options.get("says")
    if says and says not in outcome.stderr and outcome.code != 0:
        outcome.problems.append(f"does not say {says!r}: {outcome.stderr.strip()[:120]}")
    readable = case.options.get("readable")
    if readable and (fixtures / readable).exists():
        check = run(f"mpiscope report {shlex.quote(readable)} >/dev/null", fixtures, env)
        if check.code != 0:
            outcome.problems.append(f"{readable} unreadable: {check.stderr.strip()[:120]}")
    absent = case.options.get("absent")
    if absent and os.path.lexists(absent):
        outcome.problems.append(f"{absent} created")
        shutil.rmtree(absent, ignore_errors=True)
    after = snapshot(fixtures)
    changed = [p for p, d in pristine.items() if after.get(p) != d]
    if changed:
        outcome.problems.append(f"changed {', '.join(sorted(changed)[:4])}")
    new = sorted(p for p in after if p not in pristine)
    if new and outcome.code == 2:  # refused: nothing; a run that failed keeps what it made
        outcome.problems.append(f"left {', '.join(new[:4])}")
    return outcome


def restore(fixtures: Path, copy: Path, pristine: dict[str, str]) -> None:
    """Fixtures as they were: new entries removed, changed ones copied back."""
    after = snapshot(fixtures)
    for rel in sorted((p for p in after if p not in pristine), key=len, reverse=True):
        path = fixtures / rel
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    for rel, digest in pristine.items():
        if after.get(rel) != digest and digest.startswith("file:"):
            with contextlib.suppress(OSError):
                (fixtures / rel).unlink()
            shutil.copy2(copy / rel, fixtures / rel)


# --- faults -------------------------------------------------------------------------------
class Fault:
    """The scenarios of the fault lines: each returns the problems it saw."""

    def __init__(self, fixtures: Path, env: dict[str, str]) -> None:
        self.dir = fixtures
        self.env = env

    # helpers
    def points(self, name: str) -> int:
        try:
            doc = json.loads((self.dir / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return -1
        items = doc.get("points") or doc.get("packets") or doc.get("launches") or doc.get("runs")
        return len(items or [])

    def wait(self, test: Callable[[], bool], seconds: float = 40.0) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if test():
                return True
            time.sleep(0.02)
        return False

    def readable(self, name: str, problems: list[str], command: str = "report") -> None:
        check = run(f"mpiscope {command} {shlex.quote(name)} > /dev/null", self.dir, self.env)
        if check.code != 0:
            problems.append(f"{name} not readable: {check.stderr.strip()[:120]}")

    def ranks(self, mark: str, name: str = "mpiscope-bench") -> dict[int, int]:
        found = {}
        for pid in case_pids(mark):
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() != name[:15]:
                    continue
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                for item in environ:
                    if item.startswith(b"PMI_RANK="):
                        found[int(item[9:])] = pid
        return found

    @staticmethod
    def send(proc: subprocess.Popen[str], spec: str) -> None:
        """INT,INT/0.2: SIGINT, then 0.2 s later SIGINT again (to the group)."""
        for part in spec.split(","):
            name, _, pause = part.partition("/")
            if pause:
                time.sleep(float(pause))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, getattr(signal, "SIG" + name))

    def lines(self, outcome: Outcome, problems: list[str], allowed: int = 1) -> None:
        lines = error_lines(outcome.stderr)
        if "Traceback" in outcome.stderr:
            problems.append("traceback: " + lines[-1][:120])
        elif len(lines) > allowed:
            problems.append(f"{len(lines)} stderr lines: " + " | ".join(lines)[:200])

    # scenarios
    def signal_sweep(self, spec: str) -> list[str]:
        began = time.monotonic()
        proc = start(SWEEP, self.dir, self.env)
        problems = [] if self.wait(lambda: self.points("r.json") >= 2) else ["no point in 40 s"]
        self.send(proc, spec)
        outcome = finish(proc, began)
        problems += outcome.problems
        self.lines(outcome, problems)
        want = 1 if spec.startswith(("TERM", "HUP")) else 130
        if outcome.code != want:
            problems.append(f"exit {outcome.code}, not {want}")
        self.readable("r.json", problems)
        return problems

    def signal_early(self, spec: str, delay: str) -> list[str]:
        began = time.monotonic()
        proc = start(SWEEP, self.dir, self.env)
        time.sleep(float(delay))
        self.send(proc, spec)
        outcome = finish(proc, began)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        if (self.dir / "r.json").exists():
            self.readable("r.json", problems)
        return problems

    def kill_cli_sweep(self) -> list[str]:
        began = time.monotonic()
        proc = start("exec " + SWEEP, self.dir, self.env)
        problems = [] if self.wait(lambda: self.points("r.json") >= 2) else ["no point in 40 s"]
        os.kill(proc.pid, signal.SIGKILL)
        time.sleep(2)
        left = case_pids(proc.mark)
        if left:
            problems.append(f"{len(left)} process(es) run on after the CLI was killed")
        finish(proc, began)
        self.readable("r.json", problems)
        return problems

    def signal_over_old(self, delay: str) -> list[str]:
        old = (self.dir / "run.json").read_bytes()
        (self.dir / "r.json").write_bytes(old)
        began = time.monotonic()
        proc = start(SWEEP + " --force", self.dir, self.env)
        time.sleep(float(delay))
        self.send(proc, "INT")
        outcome = finish(proc, began)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        now = (self.dir / "r.json").read_bytes()
        if now != old and self.points("r.json") < 1:
            problems.append("the old result was replaced by one without a point")
        return problems

    def kill_cli_over_old(self) -> list[str]:
        (self.dir / "r.json").write_bytes((self.dir / "run.json").read_bytes())
        began = time.monotonic()
        proc = start("exec " + SWEEP + " --force", self.dir, self.env)
        time.sleep(3)
        os.kill(proc.pid, signal.SIGKILL)
        finish(proc, began)
        problems: list[str] = []
        self.readable("r.json", problems)
        return problems

    def signal_rank(self, name: str, rank: str) -> list[str]:
        began = time.monotonic()
        proc = start(SWEEP, self.dir, self.env)
        problems = [] if self.wait(lambda: self.points("r.json") >= 2) else ["no point in 40 s"]
        pid = self.ranks(proc.mark).get(int(rank))
        if pid is None:
            problems.append(f"rank {rank} not found")
        else:
            os.kill(pid, getattr(signal, "SIG" + name))
        outcome = finish(proc, began)
        problems += outcome.problems
        self.lines(outcome, problems)
        if outcome.code != 1:
            problems.append(f"exit {outcome.code}")
        self.readable("r.json", problems)
        return problems

    def stop_rank(self) -> list[str]:
        began = time.monotonic()
        proc = start(SWEEP + " --timeout 8", self.dir, self.env)
        problems = [] if self.wait(lambda: self.points("r.json") >= 2) else ["no point in 40 s"]
        pid = self.ranks(proc.mark).get(1)
        if pid is not None:
            os.kill(pid, signal.SIGSTOP)
        outcome = finish(proc, began)
        problems += outcome.problems
        self.lines(outcome, problems)
        self.readable("r.json", problems)
        return problems

    def fill(self) -> None:
        """full/ with no byte left."""
        with contextlib.suppress(OSError), open(self.dir / "full" / ".filler", "ab") as f:
            while True:
                f.write(b"\0" * 512)
                f.flush()

    def empty_full(self) -> None:
        for entry in (self.dir / "full").iterdir():
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()

    def full_during_run(self) -> list[str]:
        self.empty_full()
        outcome = run("mpiscope run bcast,allreduce --sizes 1:64K:x2 --raw --quiet "
                      "--stop count --max-valid 200 --out full/r.json", self.dir, self.env)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        if outcome.code == 0:
            problems.append("exit 0 on a 64 KiB disk")
        if self.points("full/r.json") < 1:
            problems.append("no point kept")
        else:
            self.readable("full/r.json", problems)
        self.empty_full()
        return problems

    def full_before(self, *command: str) -> list[str]:
        """Refused with one line on a full disk; an old file stays, no file is left empty."""
        self.empty_full()
        olds = {}
        for name in ("old.json", "old.html", "old.txt"):
            (self.dir / "full" / name).write_text('{"old": true}\n')
            olds[name] = (self.dir / "full" / name).read_bytes()
        self.fill()
        outcome = run(" ".join(command), self.dir, self.env)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        if outcome.code == 0:
            problems.append("exit 0 on a full disk")
        for name, data in olds.items():
            if (self.dir / "full" / name).read_bytes() != data:
                problems.append(f"previous full/{name} destroyed")
        for entry in (self.dir / "full").iterdir():
            if entry.name not in olds and entry.name != ".filler":
                problems.append(f"left full/{entry.name}"
                                + (" (0 bytes)" if entry.is_file() and not entry.stat().st_size
                                   else ""))  # fmt: skip
        self.empty_full()
        return problems

    def full_trace(self) -> list[str]:
        self.empty_full()
        outcome = run("mpiscope trace --np 2 -o full/t.trace ./app 1", self.dir, self.env)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        if outcome.code == 0:
            problems.append("exit 0 on a 64 KiB disk")
        self.empty_full()
        return problems

    def refused(self, *command: str) -> list[str]:
        outcome = run(" ".join(command), self.dir, self.env)
        judge_lines(outcome, "error")
        return outcome.problems

    def read_while_written(self, how: str) -> list[str]:
        source = (self.dir / "run.json").read_bytes()
        target = self.dir / "w.json"
        target.write_bytes(source)
        problems = []
        for i in range(40):
            if how == "atomic":
                tmp = self.dir / ".w.json.tmp"
                tmp.write_bytes(source)
                os.replace(tmp, target)
            else:
                with open(target, "r+b") as f:
                    f.write(source[: len(source) // 2])
            outcome = run("mpiscope report w.json > /dev/null", self.dir, self.env)
            if outcome.code not in (0, 2) or "Traceback" in outcome.stderr:
                problems.append(f"read {i}: exit {outcome.code} {outcome.stderr.strip()[:80]}")
                break
            if how == "atomic" and outcome.code != 0:
                problems.append(f"read {i}: a whole document refused")
                break
            target.write_bytes(source)
        return problems

    def two_runs(self, *flags: str) -> list[str]:
        command = ("mpiscope run bcast,allreduce --sizes 1:64K:x2 --stop count --max-valid 100 "
                   "--quiet --out same.json " + " ".join(flags))  # fmt: skip
        if flags:
            (self.dir / "same.json").write_bytes((self.dir / "run.json").read_bytes())
        began = time.monotonic()
        a = start(command + " > a.out", self.dir, self.env)
        time.sleep(0.05)
        b = start(command + " > b.out", self.dir, self.env)
        oa, ob = finish(a, began), finish(b, began)
        problems = oa.problems + ob.problems
        codes = (oa.code, ob.code)
        if codes.count(0) != 1:
            problems.append(f"exits {codes}: both wrote same.json or neither did")
        loser = ob if oa.code == 0 else oa
        self.lines(loser, problems)
        if loser.code not in (1, 2):
            problems.append(f"the other run exited {loser.code}")
        if "same.json" in loser.stderr and "partial result kept" in loser.stderr:
            problems.append("the other run says its result is kept in a file that holds none of it")
        self.readable("same.json", problems)
        return problems

    def signal_trace(self, spec: str) -> list[str]:
        began = time.monotonic()
        proc = start("mpiscope trace --np 2 -o st.trace ./app 4", self.dir, self.env)
        time.sleep(2)
        self.send(proc, spec)
        outcome = finish(proc, began)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        self.readable("st.trace", problems, "trace summary")
        return problems

    def kill_cli_trace(self) -> list[str]:
        began = time.monotonic()
        proc = start("exec mpiscope trace --np 2 -o kt.trace ./app 4", self.dir, self.env)
        time.sleep(1.5)
        os.kill(proc.pid, signal.SIGKILL)
        time.sleep(1.0)
        left = case_pids(proc.mark)
        finish(proc, began)
        problems = []
        if left:
            problems.append(f"minor: {len(left)} process(es) of the traced job run on")
        return problems

    def kill_traced_rank(self) -> list[str]:
        began = time.monotonic()
        proc = start("mpiscope trace --np 2 -o kr.trace ./app 4 1000", self.dir, self.env)
        time.sleep(2)
        pid = self.ranks(proc.mark, "app").get(1)
        problems = ["rank 1 not found"] if pid is None else []
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
        outcome = finish(proc, began)
        problems += outcome.problems
        self.lines(outcome, problems)
        summary = run("mpiscope trace summary kr.trace", self.dir, self.env)
        if summary.code != 0:
            problems.append(f"summary fails: {summary.stderr.strip()[:100]}")
            return problems
        rows = rank_calls(summary.stdout)
        if sorted(rows) != [0, 1] or min(rows.values()) == 0:
            problems.append(f"calls per rank file: {rows} (a rank file without a call)")
        return problems

    def signal_noise(self, spec: str, *flags: str) -> list[str]:
        command = ("mpiscope noise run --detector barrier --np 2 --packet 0.2s --packets 40 "
                   "--quiet --out nz.json " + " ".join(flags))  # fmt: skip
        began = time.monotonic()
        proc = start(command, self.dir, self.env)
        problems = [] if self.wait(lambda: self.points("nz.json") >= 3) else ["no packet in 40 s"]
        self.send(proc, spec)
        outcome = finish(proc, began)
        problems += outcome.problems
        self.lines(outcome, problems)
        if self.points("nz.json") < 1:
            problems.append("no packet kept")
        return problems

    def signal_kept(self, spec: str, delay: str, kept: str, *command: str) -> list[str]:
        began = time.monotonic()
        proc = start(" ".join(command), self.dir, self.env)
        time.sleep(float(delay))
        self.send(proc, spec)
        outcome = finish(proc, began)
        problems = list(outcome.problems)
        self.lines(outcome, problems)
        if outcome.code == 0:
            problems.append("finished before the signal (make the run longer)")
        if kept != "-" and not (self.dir / kept).exists():
            problems.append(f"nothing kept: no {kept}")
        return problems


def rank_calls(summary: str) -> dict[int, int]:
    """Calls per rank from the summary's per-rank table."""
    lines = summary.splitlines()
    header = next((i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "run"]), None)
    found: dict[int, int] = {}
    if header is None:
        return found
    names = lines[header].split()
    for line in lines[header + 2:]:
        words = line.split()
        if not words or not words[0].isdigit():
            break
        # "1.14 s" and "558 ms" are two words each: count from the right
        found[int(words[0])] = int(words[-(len(names) - names.index("calls"))])
    return found


def fault(case: Case, fixtures: Path, env: dict[str, str]) -> Outcome:
    name, *args = case.command.replace(" :: ", " ").split()
    began = time.monotonic()
    problems = getattr(Fault(fixtures, env), name)(*args)
    seconds = time.monotonic() - began
    return Outcome(None, "", "", seconds, [p for p in problems if p])


# --- fixtures -----------------------------------------------------------------------------
def make_fixtures(root: Path, env: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)

    def sh(command: str) -> None:
        done = subprocess.run(["bash", "-c", command], cwd=root, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"fixture step failed: {command}\n{done.stderr}")

    sh("mpiscope run bcast --sizes 1,1K --quiet --out run.json > /dev/null")
    sh("mpiscope noise run --detector barrier --np 2 --packet 0.05s --packets 6 --quiet "
       "--out run1.json > /dev/null")  # fmt: skip
    sh("mpiscope noise run --detector barrier --np 2 --packet 0.05s --packets 6 --quiet "
       "--inject 50Hz:2ms --same-as run1.json --out run2.json > /dev/null")  # fmt: skip
    sh("mpiscope model measure --sizes 1:1K:x4 --quiet --out meas.json > /dev/null")
    sh("mpiscope model fit --model hockney --out model.json meas.json > /dev/null")
    sh("mpiscope run bcast,allreduce --sizes 1:1K:x4 --quiet --out coll.json > /dev/null")
    sh("mpiscope alltoall compare --np 2 --sizes 1,64 --quiet --out a2a.json > /dev/null")
    (root / "app.c").write_text(APP_C)
    mpicc = Path(sys.prefix) / "bin" / "mpicc"
    sh(f"{mpicc} -O1 -o app app.c")
    sh("mpiscope trace --np 2 -o app.trace ./app 2> /dev/null")
    shutil.copytree(root / "app.trace", root / "fifo.trace")
    (root / "fifo.trace" / "rank-00000.mst").unlink()
    os.mkfifo(root / "fifo.trace" / "rank-00000.mst")
    os.mkfifo(root / "fifo")
    (root / "adir").mkdir()
    (root / "bin.dat").write_bytes(bytes(range(256)) * 16)
    (root / "nested.json").write_text("[" * 200000 + "]" * 200000)
    (root / "nested-obj.json").write_text('{"a":' * 200000 + "1" + "}" * 200000)
    (root / "hanging-bench").write_text("#!/bin/sh\nexec sleep 1000\n")
    (root / "hanging-bench").chmod(0o755)
    profiles = Path(sys.prefix) / "share" / "mpiscope" / "mpi"
    for name in ("proffifo", "profdeep", "profgone"):
        (root / name).mkdir()
    os.mkfifo(root / "proffifo" / "mpich.json")
    (root / "profdeep" / "mpich.json").write_text("[" * 200000 + "]" * 200000)
    gone = json.loads((profiles / "mpich.json").read_text())
    gone["mpiexec"] = str(root / "no-such-mpiexec")
    (root / "profgone" / "mpich.json").write_text(json.dumps(gone))
    a2a = json.loads((root / "a2a.json").read_text())
    a2a["variants"] = []
    (root / "a2a-empty.json").write_text(json.dumps(a2a))
    result = json.loads((root / "run.json").read_text())
    for name in ("size_bytes", "nprocs", "root", "launches_total", "launches_valid",
                 "samples_used", "actual_bytes"):  # fmt: skip
        doc = json.loads(json.dumps(result))
        doc["points"][0][name] = 1e308
        (root / f"r-{name}.json").write_text(json.dumps(doc))
    for name, options in (("full", "size=64k"), ("ro", "size=64k,ro")):
        (root / name).mkdir()
        sh(f"mount -t tmpfs -o {options} mpiscope-{name} {name}")


def unmount(root: Path) -> None:
    for name in ("full", "ro"):
        if (root / name).is_mount():
            subprocess.run(["umount", "-l", str(root / name)], check=False)


# --- main ---------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=HERE / "reliability-cases.txt")
    parser.add_argument("--only", help="case ids or rows, comma-separated (d1,f22,d3.a)")
    parser.add_argument("--dir", type=Path, help="where the fixtures go (default: a new /tmp dir)")
    parser.add_argument("--json", type=Path, help="write every case's outcome here")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("reliability.py needs root (device nodes, tmpfs mounts)")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.prefix) / 'bin'}:{env.get('PATH', '')}"
    env.pop("MPISCOPE_RUN_PROFILE", None)
    base = args.dir or Path(f"/tmp/mpiscope-reliability-{os.getpid()}")
    fixtures, copy = base / "fixtures", base / "pristine"
    if base.exists():  # a directory of an earlier sweep: built again
        unmount(fixtures)
        shutil.rmtree(base)
    env["XDG_STATE_HOME"] = str(base / "state")
    cases = selected(read_cases(args.cases), args.only)
    print(f"{len(cases)} cases; fixtures in {fixtures}", flush=True)
    make_fixtures(fixtures, env)
    shutil.copytree(fixtures, copy, symlinks=True, ignore=lambda d, names: [
        n for n in names if n in ("full", "ro") or stat.S_ISFIFO(os.lstat(Path(d) / n).st_mode)])
    totals: dict[str, list[int]] = {"bad inputs": [0, 0], "faults": [0, 0]}
    record = []
    try:
        for case in cases:
            pristine = snapshot(fixtures)
            if case.expect == "fault":
                outcome = fault(case, fixtures, env)
            else:
                outcome = bad_input(case, fixtures, pristine, env)
            broken = devices_ok()
            if broken:
                outcome.problems.append(f"replaced {', '.join(broken)} (put back)")
            restore(fixtures, copy, pristine)
            minor = all(p.startswith("minor") for p in outcome.problems)
            verdict = "clean" if not outcome.problems else "minor" if minor else "DEFECT"
            kind = "faults" if case.expect == "fault" else "bad inputs"
            totals[kind][0] += 1
            totals[kind][1] += verdict == "DEFECT"
            detail = "; ".join(outcome.problems)
            print(f"{case.ident:7} {verdict:6} {outcome.seconds:5.1f}s  {detail}"[:260], flush=True)
            record.append({"id": case.ident, "verdict": verdict, "problems": outcome.problems,
                           "exit": outcome.code, "seconds": round(outcome.seconds, 2),
                           "stderr": outcome.stderr[-2000:], "command": case.command})  # fmt: skip
    finally:
        unmount(fixtures)
        devices_ok()
    print()
    for kind, (count, defects) in totals.items():
        print(f"{kind}: {count} cases, {count - defects} clean, {defects} defects")
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
