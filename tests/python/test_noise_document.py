"""Noise documents: schema validation, loading and frames (no MPI)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.noise.criteria import compare_samples
from mpiscope.noise.probes import read_probe_dir
from mpiscope.result.noise import load_noise, noise_frame, validate
from test_noise_probes import write_probe_dir


def accepted(doc: dict[str, Any]) -> bool:
    """Whether the noise schema accepts a document (False: it names why)."""
    try:
        validate(doc)
    except MpiscopeError:
        return False
    return True



def make_run(design: str = "alternate", packets: int = 8) -> dict[str, Any]:
    """A noise-run as the lead's session writes it (design document, noise-run)."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(packets):
        block = i // 2
        agent = bool(block % 2) if design == "alternate" else None
        rows.append(
            {
                "index": i,
                "block": block,
                "agent": agent,
                "seconds": float(1.0 + 0.1 * bool(agent) + rng.normal(0, 0.001)),
                "rank_seconds": [1.0, 1.0],
                "start_s": float(i),
            }
        )
    return {
        "schema_version": "1.0",
        "kind": "noise-run",
        "mpiscope_version": "0.1.0",
        "created": "2025-01-01T00:00:00+00:00",
        "status": "complete",
        "error": None,
        "units": {"time": "s", "burst": "ns", "frequency": "Hz"},
        "environment": {
            "host": "h",
            "cpu_model": "cpu",
            "logical_cpus": 2,
            "kernel": "6.1",
            "mpi": "MPICH",
        },
        "detector": {
            "detector": "barrier",
            "nprocs": 2,
            "iterations_per_packet": 123456,
            "packet_seconds": 1.0,
            "calibration": {"iterations": 1000, "seconds": 0.25, "per_iteration_ns": 250.0},
            "alltoall_bytes": None,
            "stream": None,
            "timer": "tsc",
        },
        "layout": "C",
        "design": design,
        "agent": {
            "kind": "injector",
            "command": "mpiscope-inject --hz 10 --burst-ns 1000000 --core 0",
            "core": 0,
            "hz": 10,
            "burst_ns": 1000000,
            "jitter": 0,
            "cpus_allowed": [0],
            "summary": {
                "bursts": 80,
                "burnt_cpu_ns": 8e7,
                "wall_ns": 8e9,
                "skipped_periods": 0,
                "stopped_ns": 0,
                "cpus_seen": [0],
            },
        },
        "binding": [
            {"rank": 0, "host": "h", "pid": 10, "cpus_allowed": [0], "cpu": 0},
            {"rank": 1, "host": "h", "pid": 11, "cpus_allowed": [1], "cpu": 1},
        ],
        "packets": rows,
    }


def make_verdict() -> dict[str, Any]:
    rng = np.random.default_rng(1)
    return compare_samples(
        rng.normal(1.0, 0.01, 30),
        rng.normal(1.05, 0.01, 30),
        baseline_source="run-A.json",
        test_source="run-C.json",
    )


@pytest.fixture
def probe(tmp_path: Path) -> dict[str, Any]:
    return read_probe_dir(write_probe_dir(tmp_path / "probe"))


def test_the_three_kinds_validate(probe: dict[str, Any]) -> None:
    for doc in (make_run(), make_run("separate"), make_verdict(), probe):
        assert accepted(doc)


def test_a_run_before_its_setup_line_validates() -> None:
    run = make_run()
    run.update(status="running", packets=[], binding=[], agent=None)
    run["detector"] = {"name": "barrier", "packet_seconds": 1.0, "packets": 30}
    assert accepted(run)
    run["status"], run["error"], run["detector"] = "failed", "mpiexec ended with 1", None
    assert accepted(run)


def test_load_noise_round_trip(tmp_path: Path, probe: dict[str, Any]) -> None:
    for name, doc in (("run", make_run()), ("verdict", make_verdict()), ("probe", probe)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        assert load_noise(path) == json.loads(json.dumps(doc))


def test_unknown_fields_are_allowed() -> None:
    doc = make_verdict()
    doc["from_the_future"] = {"x": 1}
    doc["criteria"]["ks"] = {"p_value": 0.5}
    assert accepted(doc)


def _edit(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    *parents, last = path.split("/")
    node: Any = doc
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    if value is KeyError:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return doc


@pytest.mark.parametrize(
    ("maker", "path", "value", "field"),
    [
        (make_run, "packets/3/seconds", -1.0, "packets[3].seconds"),
        (make_run, "packets/2/agent", "yes", "packets[2].agent"),
        (make_run, "design", "both", "design"),
        (make_run, "status", KeyError, "status"),
        (make_run, "units/time", "ns", "units.time"),
        (make_run, "detector/detector", "allreduce", "detector"),
        (make_run, "binding/1/rank", -1, "binding[1].rank"),
        (make_verdict, "criteria/ci_overlap/boundary_gap", KeyError, "boundary_gap"),
        (make_verdict, "criteria/mann_whitney/p_value", 1.5, "criteria.mann_whitney.p_value"),
        (make_verdict, "fired", ["luck"], "fired[0]"),
        (make_verdict, "baseline/n", 2, "baseline.n"),
        (make_verdict, "detected", "yes", "detected"),
    ],
)
def test_schema_errors_are_one_line_naming_the_field(maker, path, value, field) -> None:
    doc = maker()
    with pytest.raises(MpiscopeError) as info:
        validate(_edit(doc, path, value))
    message = str(info.value)
    assert "\n" not in message and field in message
    assert f"schema {doc['schema_version']}" in message


def test_a_verdict_of_schema_1_0_still_reads() -> None:
    """Before 1.3 a verdict had no limit and no paired criteria."""
    old = make_verdict()
    assert old["schema_version"] == "1.4" and "limit" in old
    del old["limit"]
    old["schema_version"] = "1.0"
    assert accepted(old)
    frame = noise_frame(old)
    assert "signed_rank" not in set(frame["criterion"])


def test_probe_schema_errors_name_the_field(probe: dict[str, Any]) -> None:
    for path, value, field in (
        ("workers/1/ftq/quantum_ns", 0, "workers[1].ftq.quantum_ns"),
        ("workers/0/core", KeyError, "workers[0].core"),
        ("workers/0/selfish/detours", -3, "workers[0].selfish.detours"),
    ):
        with pytest.raises(MpiscopeError) as info:
            validate(_edit(probe, path, value))
        assert field in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "does not exist"),
        ("{not json", "is not valid JSON (line 1"),
        ('{"kind": "noise-run", "x": NaN}', "not valid JSON"),
        ("[1, 2]", "not an object"),
        ('{"schema_version": "1.0", "kind": "result"}', "has kind 'result'"),
        ('{"schema_version": "2.0", "kind": "noise-probe"}', "schema_version 2.0; this mpiscope"),
        ('{"schema_version": "one", "kind": "noise-probe"}', "not of the form MAJOR.MINOR"),
        ('{"schema_version": "1.3", "kind": "noise-probe"}', "is a required property"),
    ],
)
def test_load_noise_errors(tmp_path: Path, content: str | None, words: str) -> None:
    path = tmp_path / "doc.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(MpiscopeError) as info:
        load_noise(path)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert str(path) in str(info.value)


def test_run_frame_is_normalised_to_the_baseline_packets() -> None:
    run = make_run()
    frame = noise_frame(run)
    assert list(frame.columns) == ["index", "block", "agent", "seconds", "normalised"]
    assert len(frame) == 8
    baseline = [p["seconds"] for p in run["packets"] if p["agent"] is False]
    median = float(np.median(baseline))
    assert frame["normalised"].tolist() == pytest.approx(
        [p["seconds"] / median for p in run["packets"]]
    )
    separate = noise_frame(make_run("separate"))
    assert separate["agent"].isna().all()
    assert separate["normalised"].median() == pytest.approx(1.0)


def test_probe_frame_has_one_row_per_worker(probe: dict[str, Any]) -> None:
    frame = noise_frame(probe)
    assert frame[["rank", "core"]].values.tolist() == [[0, 2], [1, 3]]
    assert frame.loc[0, "dominant_hz"] == pytest.approx(10.0, abs=0.25)
    assert frame["fwq_share_lost"].between(0, 1).all()


def test_verdict_frame_has_one_row_per_criterion() -> None:
    frame = noise_frame(make_verdict())
    assert frame["criterion"].tolist() == [
        "ci_overlap",
        "iqr_outliers",
        "mann_whitney",
        "quantile_shift",
        "quantile_shift",
        "quantile_shift",
    ]
    assert frame["statistic"].tolist()[-3:] == ["p50", "p90", "p99"]
    assert frame["detected"].tolist()[:3] == [True, True, True]


def test_noise_frame_refuses_other_kinds() -> None:
    with pytest.raises(MpiscopeError, match="no frame for kind"):
        noise_frame({"kind": "result"})
