"""Loading and validating result documents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import mpiscope
from mpiscope.errors import MpiscopeError
from mpiscope.result import Result, load_result, parse_result, result_schema, validate_result
from mpiscope_fakes import SAMPLE


def write(tmp_path: Path, doc: Any, name: str = "r.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_schema_is_valid_draft_2020_12() -> None:
    schema = result_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def accepted(doc: dict[str, Any]) -> bool:
    """Whether the result schema accepts a document (False: it names why)."""
    try:
        validate_result(doc, "doc.json")
    except MpiscopeError:
        return False
    return True


def test_schema_accepts_the_sample() -> None:
    sample = json.loads(SAMPLE.read_text())
    assert jsonschema.Draft202012Validator(result_schema()).is_valid(sample)
    del sample["points"][0]["op"]
    assert not jsonschema.Draft202012Validator(result_schema()).is_valid(sample)


def test_load_sample_and_accessors() -> None:
    """The accessors give what the document (a real run's) holds."""
    doc = json.loads(SAMPLE.read_text())
    result = mpiscope.load_result(SAMPLE)
    assert result.complete and result.status == "complete"
    assert result.schema_version == doc["schema_version"]
    assert result.varied == "size"
    assert result.confidence == doc["method"]["confidence"]
    assert result.environment["timer"]["name"] == doc["environment"]["timer"]["name"]
    assert len(result) == len(doc["points"]) == 1
    point, raw = result.points[0], doc["points"][0]
    assert (point.op, point.size_bytes, point.nprocs) == ("bcast", 1024, 2)
    assert (point.launches_total, point.launches_valid, point.samples_used) == (
        raw["launches_total"], raw["launches_valid"], raw["samples_used"])
    assert point.median_ns == raw["median_ns"] and point.error_ns == raw["error_ns"]
    assert point.global_span is not None
    assert point.global_span.median_ns == raw["global_span"]["median_ns"]
    assert point.start_skew is not None and point.start_skew.max_ns == raw["start_skew"]["max_ns"]
    ranks = point.per_rank
    assert ranks is not None and [r.rank for r in ranks] == [0, 1]
    assert "raw" not in raw  # the sample is a run without --raw
    assert result.warnings == doc.get("warnings", [])


def test_points_kind_names_what_every_point_is() -> None:
    """firstcall and startup documents (real runs) by their points' kind; a
    measurement's points have none, and mixed points are no one kind."""
    data = Path(__file__).resolve().parents[1] / "data"
    assert load_result(data / "firstcall-result.json").points_kind == "firstcall"
    assert load_result(data / "startup-result.json").points_kind == "startup"
    assert load_result(SAMPLE).points_kind is None
    startup = load_result(data / "startup-result.json").data
    mixed = {**startup, "points": [*startup["points"], *json.loads(SAMPLE.read_text())["points"]]}
    assert Result(mixed).points_kind is None


def test_package_exports_are_short() -> None:
    assert set(mpiscope.__all__) == {
        "MpiscopeError",
        "Point",
        "Result",
        "__version__",
        "load",
        "load_result",
        # the Python API: the measuring commands (mpiscope.api)
        "check",
        "firstcall",
        "methods",
        "overlap",
        "run",
        "startup",
        # the trace (mpiscope.api.trace) and the noise detector (mpiscope.api.noise)
        "open_trace",
        "trace_program",
        "noise_compare",
        "noise_run",
        # the health check (mpiscope.api.health)
        "health_check",
        "open_health",
    }



def test_one_version_everywhere() -> None:
    """VERSION is the one place: the package's metadata (pyproject reads it)
    and the engine's description (test_describe.py holds describe.json to
    what the bench says, which CMake builds from VERSION) carry it."""
    from importlib.metadata import version

    from mpiscope.result.describe import description

    written = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert version("mpiscope") == written
    assert description()["mpiscope_version"] == written
    assert mpiscope.__version__ == written


def test_version_alone_loads_no_command() -> None:
    """`mpiscope --version` reads the engine's description: no command's
    modules, and not importlib.metadata (~250 ms on the AMD EPYC VM)."""
    code = ("import sys\nfrom mpiscope.cli import main\n"
            "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('mpiscope.commands') "
            "or m == 'importlib.metadata'))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    written = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert out.stdout.splitlines() == [f"mpiscope {written}", "[]"]


def drop(doc: dict[str, Any], *path: str | int) -> None:
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]


def put(doc: dict[str, Any], value: Any, *path: str | int) -> None:
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "expect"),
    [
        (("status",), "'status' is a required property"),
        (("environment",), "'environment' is a required property"),
        (("points", 0, "median_ns"), "points[0]"),
        (("points", 0, "op"), "points[0]"),
        (("environment", "timer", "resolution_ns"), "environment.timer"),
        (("method", "confidence"), "method"),
        (("points", 0, "window"), "points[0]"),  # required for the window method
        (("method", "gamma"), "method"),  # required for the window method
    ],
)
def test_missing_required_field_is_rejected(
    sample_doc: dict[str, Any], path: tuple[str | int, ...], expect: str
) -> None:
    drop(sample_doc, *path)
    with pytest.raises(MpiscopeError) as info:
        validate_result(sample_doc, "doc.json")
    assert "doc.json does not match the result schema" in str(info.value)
    assert expect in str(info.value)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("points", 0, "mean_ns"), "812"),
        (("points", 0, "size_bytes"), 1.5),
        (("points", 0, "size_bytes"), -1),
        (("points", 0, "unstable"), "no"),
        (("points", 0, "confidence"), 1.0),
        (("points", 0, "per_rank", 0, "rank"), "0"),
        (("points", 0, "raw"), {"valid": [1, 0]}),
        (("points", 0, "intervals", "95%"), [1.0, 2.0]),
        (("status",), "done"),
        (("varied",), "message size"),
        (("units", "time"), "us"),
        (("environment", "ranks"), 0),
        (("environment", "hosts"), []),
        (("environment", "cache", "mode"), "hot"),
        (("method", "stop_rule"), "rse"),
        (("method", "trim_fraction"), 0.5),
        (("warnings",), "none"),
        (("points",), {}),
    ],
)
def test_wrong_type_is_rejected(
    sample_doc: dict[str, Any], path: tuple[str | int, ...], value: Any
) -> None:
    put(sample_doc, value, *path)
    with pytest.raises(MpiscopeError, match="does not match the result schema"):
        validate_result(sample_doc, "doc.json")


def test_error_names_the_field(sample_doc: dict[str, Any]) -> None:
    sample_doc["points"][0]["mean_ns"] = "812"
    with pytest.raises(MpiscopeError, match=r"at points\[0\]\.mean_ns: '812' is not of type"):
        validate_result(sample_doc, "doc.json")


def test_optional_blocks_and_new_fields_are_allowed(sample_doc: dict[str, Any]) -> None:
    point = sample_doc["points"][0]
    del point["per_rank"]
    point["a_field_from_version_1_1"] = {"x": 1}
    sample_doc["schema_version"] = "1.1"
    sample_doc["error"] = None
    assert accepted(sample_doc)


def test_null_statistics_for_a_point_without_valid_launch(sample_doc: dict[str, Any]) -> None:
    point = sample_doc["points"][0]
    for key in ("mean_ns", "stddev_ns", "se_ns", "rse", "median_ns", "error_ns", "ci_low_ns"):
        point[key] = None
    point["launches_valid"] = 0
    assert accepted(sample_doc)


def test_operation_without_size(sample_doc: dict[str, Any]) -> None:
    point = sample_doc["points"][0]
    point.update(size_bytes=None, actual_bytes=None, options={"unit_us": "1"})
    point["buffers"] = {"slots": 0, "region_bytes": 0}
    assert accepted(sample_doc)
    assert parse_result(json.dumps(sample_doc)).points[0].size_bytes is None


def test_other_methods_need_no_window_block(sample_doc: dict[str, Any]) -> None:
    sample_doc["method"]["name"] = "max"
    for key in ("t_bcast_ns", "k_init", "k", "gamma", "window_quantile"):
        del sample_doc["method"][key]
    del sample_doc["points"][0]["window"]
    assert accepted(sample_doc)


@pytest.mark.parametrize("version", ["2.0", "0.9", "10.0"])
def test_wrong_major_version_is_rejected(sample_doc: dict[str, Any], version: str) -> None:
    sample_doc["schema_version"] = version
    with pytest.raises(MpiscopeError, match=f"schema_version {version}; this mpiscope reads 1.x"):
        validate_result(sample_doc, "doc.json")


@pytest.mark.parametrize("version", [1, "1", "v1.0", "1.0.0", None])
def test_malformed_version_is_rejected(sample_doc: dict[str, Any], version: Any) -> None:
    sample_doc["schema_version"] = version
    with pytest.raises(MpiscopeError, match="schema_version"):
        validate_result(sample_doc, "doc.json")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="no such file"):
        load_result(tmp_path / "nope.json")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="directory"):
        load_result(tmp_path)


def test_unreadable_file(tmp_path: Path) -> None:
    """A file its reader may not read (root reads any file: as root, the
    reader runs without the capabilities that let it, by setpriv)."""
    path = write(tmp_path, {})
    path.chmod(0)
    if os.geteuid() != 0:
        with pytest.raises(MpiscopeError, match="permission denied"):
            load_result(path)
        return
    code = ("import sys; from mpiscope.errors import MpiscopeError; "
            "from mpiscope.result import load_result\n"
            "try: load_result(sys.argv[1])\nexcept MpiscopeError as e: print(e)")
    done = subprocess.run(["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
                           sys.executable, "-c", code, str(path)],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert "permission denied" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"schema_version": ', "not valid JSON"),
        (b"hello", "not valid JSON"),
        (b"", "not valid JSON"),
        (b"\xff\xfe\x00binary", "not UTF-8"),
        (b'{"schema_version": "1.0", "x": NaN}', "NaN"),
        (b"[1, 2]", "top level is not an object"),
        (b"{}", "no schema_version"),
    ],
)
def test_not_a_result_document(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(MpiscopeError, match=message):
        load_result(path)


def test_parse_result_from_text() -> None:
    result = parse_result(SAMPLE.read_text())
    assert result.path is None and result.points[0].op == "bcast"


def test_errors_are_one_line(sample_doc: dict[str, Any]) -> None:
    sample_doc["points"][0] = {"op": "x" * 1000}
    with pytest.raises(MpiscopeError) as info:
        validate_result(sample_doc, "doc.json")
    assert "\n" not in str(info.value) and len(str(info.value)) < 400


def test_kept_times_are_the_valid_launches_no_restart_discarded() -> None:
    from mpiscope.result.document import kept_times, launch_is_kept

    raw = {"time_ns": [10, 20, None, 40], "valid": [True, False, True]}
    assert kept_times({"raw": raw}) == [10.0, 40.0]  # the 4th is beyond the flags: valid
    assert [launch_is_kept(raw, i) for i in range(4)] == [True, False, True, True]
    assert kept_times({"raw": None}) is None and kept_times({}) is None
    # 1.13: the first launch was valid, but a window restart dropped its sample
    raw["discarded"] = [True, False, False, False]
    assert kept_times({"raw": raw}) == [40.0]
    assert [launch_is_kept(raw, i) for i in range(4)] == [False, False, True, True]
