"""The one reader of every input (python/mpiscope/inputs.py, issue 25):
regular files only, refused at once (never waited on), size and JSON depth
bounded before parsing, one line naming the file. Rows of the 2026-11-26
sweep: 3, 4, 18, 19, 21, 22, 30, 32, 33, 48."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from mpiscope import inputs
from mpiscope.errors import MpiscopeError
from mpiscope_fakes import SAMPLE, FakeMpi, run_cli

#: A refusal comes at once: far below this (a blocked read never ends).
AT_ONCE_S = 20


def one_error(run: object, *fragments: str, code: int = 2) -> None:
    lines = run.err_lines  # type: ignore[attr-defined]
    assert run.code == code, lines  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error:"), lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> object:
    start = time.monotonic()
    run = run_cli(args, env=env, cwd=cwd)
    assert time.monotonic() - start < AT_ONCE_S * 6  # run_cli's own timeout would say it
    return run


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


# --- regular files only ----------------------------------------------------------------
def test_the_reader_refuses_a_fifo_without_waiting(fifo: Path) -> None:
    for read in (inputs.read_bytes, inputs.read_json):
        with pytest.raises(MpiscopeError, match="not a regular file \\(a named pipe\\)"):
            read(fifo)
    with pytest.raises(MpiscopeError, match="cannot read --hostfile .*: not a regular file"):
        inputs.check_input(fifo, "--hostfile")
    with pytest.raises(MpiscopeError, match="it is a directory"):
        inputs.read_bytes(fifo.parent)
    with pytest.raises(MpiscopeError, match="a character device"):
        inputs.read_bytes("/dev/zero")


@pytest.mark.parametrize(
    "argv",
    [
        ["html", "{fifo}"],
        ["html", "/dev/zero"],
        ["alltoall", "tune", "--check", "{fifo}"],
        ["run", "bcast", "--sizes", "1", "--hostfile", "{fifo}", "--dry-run"],
        ["run", "bcast", "--sizes", "1", "--run-profile", "{fifo}", "--dry-run"],
    ],
    ids=lambda argv: " ".join(a for a in argv[:2]),
)
def test_a_fifo_or_a_device_is_refused_at_once(argv: list[str], fifo: Path, tmp_path: Path,
                                                fake_mpi: FakeMpi) -> None:  # fmt: skip
    run = cli([a.format(fifo=fifo) for a in argv], tmp_path, fake_mpi.env)
    one_error(run)
    assert "named pipe" in run.stderr or "character device" in run.stderr  # type: ignore[attr-defined]


def test_a_trace_whose_rank_file_is_a_fifo(tmp_path: Path) -> None:
    trace = tmp_path / "app.trace"
    trace.mkdir()
    os.mkfifo(trace / "rank-00000.mst")
    one_error(cli(["trace", "summary", str(trace)], tmp_path), "not a regular file")


def test_an_mpi_profile_that_is_a_fifo_or_too_deep(tmp_path: Path) -> None:
    for name, make in (("fifo", lambda p: os.mkfifo(p)),
                       ("deep", lambda p: p.write_text("[" * 100000 + "]" * 100000))):  # fmt: skip
        profiles = tmp_path / name
        profiles.mkdir()
        make(profiles / "mpich.json")
        env = {**os.environ, "MPISCOPE_PROFILE_DIR": str(profiles)}
        argv = ["run", "bcast", "--sizes", "1", "--out", str(tmp_path / "r.json")]
        run = cli(argv, tmp_path, env)
        one_error(run, "MPI profile", "mpich.json")
    assert not (tmp_path / "r.json").exists()


def test_a_tuning_base_that_is_a_fifo(fifo: Path, tmp_path: Path) -> None:
    from mpiscope.alltoall import tune

    with pytest.raises(MpiscopeError, match="cannot read --base .*not a regular file"):
        tune.mpich_tree(fifo)


# --- bounded before parsing ---------------------------------------------------------------
def test_nesting_is_measured_outside_strings() -> None:
    assert inputs.json_depth(b'{"a": [1, {"b": "[[[[{{{"}]}') == 3
    assert inputs.json_depth(b'"[\\"[" [] ') == 1
    assert inputs.json_depth(b"") == 0
    # no escaped quote (the split path), with one (the regex path), and an
    # escaped backslash before a closing quote
    assert inputs.json_depth(b'["[", "]]]", [[]]]') == 3
    assert inputs.json_depth(b'["\\"[", [[]]]') == 3
    assert inputs.json_depth(b'{"x": "a\\\\", "y": [[1]]}') == 3
    golden = Path(__file__).resolve().parents[1] / "data" / "golden" / "default.json"
    data = golden.read_bytes()
    plain = data.replace(b'\\"', b"")  # the same brackets, no escaped quote
    assert inputs.json_depth(plain) == inputs.json_depth(data + b' "\\""') == 7


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_deep_json_is_one_line(opening: str, tmp_path: Path) -> None:
    closing = "]" if opening == "[" else "}"
    nested = tmp_path / "nested.json"
    nested.write_text(opening * 200000 + ("1" if opening != "[" else "") + closing * 200000)
    one_error(cli(["html", str(nested)], tmp_path), "nested too deeply")
    one_error(cli(["report", str(nested)], tmp_path), "nested too deeply")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nested.json"]


def test_the_size_is_bounded_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 5000)
    with pytest.raises(MpiscopeError, match="5000 bytes, more than the 4096"):
        inputs.read_bytes(big, limit=4096)


def test_a_binary_tuning_file_is_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "bin.dat"
    binary.write_bytes(bytes(range(256)) * 4)
    from mpiscope.alltoall import tune

    with pytest.raises(MpiscopeError, match="not a tuning file"):
        tune.prove("mpich", binary, tmp_path, lambda *a: (0, ""))


# --- the hostfile ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "it is a directory"),
        (bytes(range(256)), "not UTF-8 text"),
        (b"# only a comment\n\n", "names no host"),
        (b"node1:2\n!!! nonsense\n", "line 2 does not start with a host name"),
    ],
)
def test_an_unusable_hostfile_is_refused_before_launching(
    content: bytes | None, fragment: str, tmp_path: Path, fake_mpi: FakeMpi
) -> None:
    hostfile = tmp_path / "hosts"
    if content is None:
        hostfile.mkdir()
    else:
        hostfile.write_bytes(content)
    run = cli(["run", "bcast", "--sizes", "1", "--hostfile", str(hostfile), "--out",
               str(tmp_path / "r.json")], tmp_path, fake_mpi.env)  # fmt: skip
    one_error(run, "--hostfile", fragment)
    assert not fake_mpi.mpiexec_log.exists()  # nothing launched


def test_a_host_without_an_address_is_refused_before_launching(
    tmp_path: Path, fake_mpi: FakeMpi
) -> None:
    run = cli(["run", "bcast", "--sizes", "1", "--hosts", "nosuchhost.invalid:2", "--out",
               str(tmp_path / "r.json")], tmp_path, fake_mpi.env)  # fmt: skip
    one_error(run, "--hosts", "nosuchhost.invalid", "no address")
    assert not fake_mpi.mpiexec_log.exists()


# --- documents the schema lets through -----------------------------------------------
@pytest.mark.parametrize(
    "field",
    ["size_bytes", "nprocs", "root", "launches_total", "launches_valid", "samples_used",
     "actual_bytes"],
)  # fmt: skip
def test_an_integer_beyond_the_engine_is_refused(field: str, tmp_path: Path) -> None:
    doc = json.loads(SAMPLE.read_text())
    doc["points"][0][field] = 1e308
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    for command in (["export"], ["html"], ["plot"]):
        one_error(cli([*command, str(path)], tmp_path), f"points[0].{field}", "maximum")


def test_a_point_without_a_launch_is_readable(tmp_path: Path) -> None:
    """max_point_seconds 1e-9: the point's time ran out before its first
    launch; the bench writes invalid_fraction null (0/0), which the schema
    refused: mpiscope lost the run's document."""
    doc = json.loads(SAMPLE.read_text())
    point = doc["points"][0]
    point.update(launches_total=0, launches_valid=0, samples_used=0, invalid_fraction=None)
    for key in ("median_ns", "mean_ns", "min_ns", "max_ns", "error_ns"):
        point[key] = None
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    for command in (["report"], ["export"], ["html", "-o", str(tmp_path / "r.html")],
                    ["plot", "--out", str(tmp_path / "plots")]):  # fmt: skip
        run = cli([*command, str(path)], tmp_path)
        assert run.code == 0, run.stderr  # type: ignore[attr-defined]


def test_winners_that_name_no_variant_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """An alltoall-compare document whose winners name a variant it does not
    have passed the schema and made plot and html raise StopIteration."""
    from mpiscope.result import alltoall

    monkeypatch.setattr(alltoall, "check_schema", lambda *args: None)  # the schema's part holds
    doc = {"kind": "alltoall-compare", "schema_version": "1.0", "variants": [],
           "winners": [{"winner": "plp:d=2", "best_lab": None, "best_native": None}]}  # fmt: skip
    with pytest.raises(MpiscopeError, match=r"winners\[0\].winner 'plp:d=2' is none of its"):
        alltoall.validate(doc, "a2a.json")
