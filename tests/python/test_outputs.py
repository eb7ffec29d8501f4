"""The one writer of every output (python/mpiscope/outputs.py, issue 25):
regular files only (a device node is never renamed over), never an input,
whole or not at all, one writer at a time, no directory created by a typo;
standard output failures as one line. Rows of the 2026-11-26 sweep: 1, 2,
12-17, 23, 44-46, faults 15, 22, 23. The suite runs as root in CI: the
device cases use /dev/null and /dev/full themselves and check afterwards
that they are still the devices they were."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope_fakes import SAMPLE, run_cli

DEVICES = {"/dev/null": (1, 3), "/dev/full": (1, 7)}


def devices_intact() -> bool:
    for path, (major, minor) in DEVICES.items():
        st = os.lstat(path)
        if not stat.S_ISCHR(st.st_mode) or (os.major(st.st_rdev), os.minor(st.st_rdev)) != (
                major, minor):  # fmt: skip
            return False
    return True


def one_error(run: object, *fragments: str, code: int = 2) -> None:
    lines = run.err_lines  # type: ignore[attr-defined]
    assert run.code == code, lines  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error:"), lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(autouse=True)
def _devices_stay() -> object:
    """Every test here ends with the device nodes as they were: put back
    (as root) if a broken build replaced one, and the test fails."""
    yield
    if devices_intact():
        return
    for path, (major, minor) in DEVICES.items():
        st = os.lstat(path)
        if not stat.S_ISCHR(st.st_mode):
            os.unlink(path)
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
            os.chmod(path, 0o666)
    pytest.fail("a device node was replaced (put back)")


# --- regular files only ---------------------------------------------------------------
@pytest.mark.parametrize("device", sorted(DEVICES))
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_run_never_replaces_a_device(device: str, force: list[str], tmp_path: Path) -> None:
    run = run_cli(["run", "bcast", "--sizes", "1", "--out", device, *force], cwd=tmp_path)
    one_error(run, device, "character device", "only one is ever replaced")


@pytest.mark.parametrize(
    "argv",
    [
        ["model", "fit", "--model", "hockney", str(SAMPLE), "--out", "/dev/null", "--force"],
        ["noise", "compare", str(SAMPLE), "--out", "/dev/full", "--force"],
        ["html", str(SAMPLE), "-o", "/dev/null"],
        ["export", str(SAMPLE), "-o", "/dev/full"],
        ["model", "platform", str(SAMPLE), "-o", "/dev/null", "--force"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_every_command_refuses_a_device_output(argv: list[str], tmp_path: Path) -> None:
    one_error(run_cli(argv, cwd=tmp_path), "character device")


def test_a_launch_profile_at_dev_null_is_refused() -> None:
    from mpiscope.measure.run_profile import check_profile_path

    with pytest.raises(MpiscopeError, match="character device"):
        check_profile_path(Path("/dev/null"), None)


def test_the_writer_refuses_a_fifo_a_socket_and_a_directory(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    (tmp_path / "adir").mkdir()
    try:
        for name, kind in (("fifo", "named pipe"), ("sock", "socket"), ("adir", "directory")):
            with pytest.raises(MpiscopeError, match=kind):
                outputs.write_text(tmp_path / name, "x")
            with pytest.raises(MpiscopeError, match=kind):
                outputs.check_output(tmp_path / name, force=True)
    finally:
        sock.close()
        outputs.release_all()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "fifo", "sock"]


def test_a_symbolic_link_is_written_through(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    (tmp_path / "link.txt").symlink_to(target)
    outputs.write_text(tmp_path / "link.txt", "new")
    assert (tmp_path / "link.txt").is_symlink() and target.read_text() == "new"
    (tmp_path / "to-null").symlink_to("/dev/null")
    with pytest.raises(MpiscopeError, match="character device"):
        outputs.write_text(tmp_path / "to-null", "x")
    outputs.release_all()


# --- never an input ------------------------------------------------------------------
@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "run.json"
    shutil.copy(SAMPLE, path)
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["noise", "compare", "--out", "{doc}", "--force", "{doc}"],
        ["model", "fit", "--model", "hockney", "--out", "{doc}", "--force", "{doc}"],
        ["model", "check", "--plot", "{same}", "{doc}", "{doc}"],
        ["model", "platform", "-o", "{doc}", "--force", "{doc}"],
        ["alltoall", "tune", "--format", "mpich", "-o", "{doc}", "--force", "{doc}"],
        ["html", "{doc}", "-o", "{link}"],
        ["export", "{doc}", "-o", "{same}"],
        ["noise", "plot", "-o", "{same}", "{doc}"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_an_output_that_is_an_input_is_refused(argv: list[str], doc: Path, tmp_path: Path) -> None:
    """By device and inode: a hard link (``same``, with a suffix the command
    accepts) or a symbolic link of the input is the input too."""
    suffix = {"check": ".png", "plot": ".png", "export": ".csv"}.get(argv[1], ".json")
    same = tmp_path / f"same{suffix}"
    os.link(doc, same)
    (tmp_path / "link.html").symlink_to(doc)
    before = doc.read_bytes()
    args = [a.format(doc=doc, same=same, link=tmp_path / "link.html") for a in argv]
    one_error(run_cli(args, cwd=tmp_path), "is one of the inputs")
    assert doc.read_bytes() == before


def test_a_trace_view_never_writes_into_its_trace(tmp_path: Path) -> None:
    trace = tmp_path / "app.trace"
    trace.mkdir()
    (trace / "rank-00000.mst").write_bytes(b"MPISCOPE" + bytes(8))
    before = (trace / "rank-00000.mst").read_bytes()
    for argv in (["summary"], ["export", "--format", "chrome"]):
        run = run_cli(["trace", *argv, "-o", str(trace / "rank-00000.mst"), str(trace)])
        one_error(run, "is one of the inputs")
    assert (trace / "rank-00000.mst").read_bytes() == before


# --- whole or not at all -------------------------------------------------------------
WRITE_TOO_MUCH = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from mpiscope import outputs
from mpiscope.errors import MpiscopeError
try:
    outputs.write_text(sys.argv[1], "x" * 100000)
except MpiscopeError as exc:
    print(exc)
"""


def test_a_failed_write_leaves_the_old_file_and_nothing_else(tmp_path: Path) -> None:
    """A write that fails part-way (here a file size limit: on a full disk
    the same) keeps the previous output byte for byte, and leaves no
    temporary file and no lock file (fault 15: html -o, trace summary -o,
    trace export -o, alltoall tune -o truncated the old file)."""
    old = tmp_path / "report.html"
    old.write_text("the previous report")
    done = subprocess.run([sys.executable, "-c", WRITE_TOO_MUCH, str(old)], capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    assert done.stdout.startswith(f"cannot write {old}: File too large"), done.stdout
    assert old.read_text() == "the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


@pytest.mark.parametrize(
    ("out", "fragment"),
    [
        ("/proc/x.json", "cannot write"),
        ("a" * 300 + ".json", "file name too long"),
        ("newdir/", "is a directory path"),
        ("missing/deeper/x.json", "does not exist"),
        ("r\udcff.json", "not a UTF-8 file name"),
    ],
)
def test_an_output_that_cannot_be_written_is_one_line(out: str, fragment: str,
                                                       tmp_path: Path) -> None:  # fmt: skip
    one_error(run_cli(["run", "bcast", "--sizes", "1", "--out", out], cwd=tmp_path), fragment)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["html", str(SAMPLE), "-o", "{missing}/x.html"],
        ["export", str(SAMPLE), "-o", "{missing}/x.csv"],
        ["plot", str(SAMPLE), "--out", "{missing}/deep/plots"],
        ["trace", "-o", "{missing}/t.trace", "--", "true"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_typo_creates_no_directory(argv: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    run = run_cli([a.format(missing=missing) for a in argv], cwd=tmp_path)
    one_error(run, "does not exist")
    assert not missing.exists()


# --- one writer at a time ---------------------------------------------------------------
HOLD = """
import sys
from mpiscope import outputs
outputs.check_output(sys.argv[1], force=True)
print("holding", flush=True)
sys.stdin.read()
"""


def test_a_second_writer_of_one_output_is_refused_and_told_who(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        for force in ([], ["--force"]):
            run = run_cli(["run", "bcast", "--sizes", "1", "--out", str(out), *force])
            one_error(run, "is being written by another mpiscope", f"pid {holder.pid}")
        assert not out.exists()
    finally:
        holder.communicate("", timeout=60)
    assert list(tmp_path.iterdir()) == []  # the holder's lock file went with it
    out.write_text("{}")
    outputs.check_output(out, force=True)  # free again
    outputs.release_all()


# --- standard output -------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv", [["report", str(SAMPLE)], ["export", str(SAMPLE)], ["model", "--help"]],
    ids=lambda argv: argv[0],
)
def test_a_full_standard_output_is_one_line(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "mpiscope", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and lines == [
        "mpiscope: error: cannot write standard output: No space left on device"], lines


def test_a_closed_standard_output_is_one_line() -> None:
    done = subprocess.run(["bash", "-c", f"{sys.executable} -m mpiscope export {SAMPLE} >&-"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "mpiscope: error: cannot write standard output: Bad file descriptor"]


def test_an_ascii_terminal_gets_ascii() -> None:
    run = run_cli(["report", str(SAMPLE)], env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert run.code == 0 and run.stderr == ""
    assert "+/-" in run.stdout and "±" not in run.stdout


def test_a_misspelt_matplotlib_backend_does_not_matter(tmp_path: Path) -> None:
    run = run_cli(["plot", str(SAMPLE), "--out", str(tmp_path / "plots")],
                  env={**os.environ, "MPLBACKEND": "nonexistent"})  # fmt: skip
    assert run.code == 0, run.stderr
    assert list((tmp_path / "plots").iterdir())
