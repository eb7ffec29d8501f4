"""The noise detector's orchestration without MPI: specs, layouts, agents, samples."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.launcher import OutputEvent
from mpiscope.noise.agent import Agent, AgentSpec, parse_record
from mpiscope.noise.binding import (
    Topology,
    cpus_allowed,
    format_cpu_list,
    parse_cpu_list,
    read_topology,
)
from mpiscope.noise.calibrate import CalibrationPlan, estimate_seconds, smallest_detected
from mpiscope.noise.samples import two_samples
from mpiscope.noise.session import DetectorPlan, detect_argv, plan_layout
from mpiscope.noise.spec import InjectorSpec, parse_duration_s, parse_frequency_hz, parse_injector

# Two sockets of two cores with two hyper-threads each: CPUs 0-3 are the
# first threads, 4-7 their siblings.
HT = Topology(logical=list(range(8)), physical=[[0, 4], [1, 5], [2, 6], [3, 7]])
TWO = Topology(logical=[0, 1], physical=[[0], [1]])


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("10s", 10.0), ("1ms", 1e-3), ("250us", 250e-6), ("0.5", 0.5), ("2min", 120.0)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration_s(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "ten", "-1s", "0", "5 parsecs"])
def test_bad_durations_are_one_line_errors(text: str) -> None:
    with pytest.raises(MpiscopeError, match="duration|positive"):
        parse_duration_s(text, "--packet")


def test_frequencies() -> None:
    assert parse_frequency_hz("10Hz") == 10.0
    assert parse_frequency_hz("2kHz") == 2000.0
    with pytest.raises(MpiscopeError):
        parse_frequency_hz("fast")


def test_injector_spec_round_trips_its_label() -> None:
    spec = parse_injector("10Hz:1ms@1")
    assert (spec.hz, spec.burst_ns, spec.core, spec.jitter) == (10.0, 1e6, 1, 0.0)
    assert parse_injector(spec.label) == spec
    jittery = parse_injector("20:0.1ms~0.25")
    assert (jittery.hz, jittery.burst_ns, jittery.core, jittery.jitter) == (20.0, 1e5, None, 0.25)
    assert parse_injector(jittery.label) == jittery


def test_injector_argv() -> None:
    argv = InjectorSpec(hz=10, burst_ns=1e6, core=1).argv("inject", seconds=2)
    assert argv == ["inject", "--hz", "10", "--burst-ns", "1000000", "--core", "1",
                    "--seconds", "2"]


@pytest.mark.parametrize("text", ["10Hz", "10Hz:200ms", "1Hz:1ms~1.5", "x:1ms"])
def test_bad_injectors(text: str) -> None:
    with pytest.raises(MpiscopeError):
        parse_injector(text)


def test_cpu_lists() -> None:
    assert parse_cpu_list("0-2,5,7-8\n") == [0, 1, 2, 5, 7, 8]
    assert format_cpu_list([8, 0, 1, 2, 5, 7]) == "0-2,5,7-8"
    with pytest.raises(MpiscopeError):
        parse_cpu_list("3-1")


def test_topology_of_this_machine_covers_every_online_cpu() -> None:
    topo = read_topology()
    assert sorted(c for core in topo.physical for c in core) == topo.logical
    assert set(topo.logical) >= set(os.sched_getaffinity(0))


def test_topology_from_a_synthetic_sysfs(tmp_path: Path) -> None:
    (tmp_path / "online").write_text("0-3\n")
    for cpu, core in ((0, 0), (1, 1), (2, 0), (3, 1)):
        topo = tmp_path / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text("0\n")
        (topo / "core_id").write_text(f"{core}\n")
    topology = read_topology(tmp_path)
    assert topology.physical == [[0, 2], [1, 3]]
    assert topology.first_threads() == [0, 1]


def test_layouts_of_the_seed() -> None:
    assert plan_layout(HT, 4, "A", None, has_agent=False) == ([0, 1, 2, 3], None)
    assert plan_layout(HT, 3, "B", None, has_agent=True) == ([0, 1, 2], 7)
    assert plan_layout(HT, 3, "B", 3, has_agent=True) == ([0, 1, 2], 3)
    assert plan_layout(HT, 4, "C", None, has_agent=True) == ([0, 1, 2, 3], 3)
    assert plan_layout(HT, 4, "C", 1, has_agent=True) == ([0, 1, 2, 3], 1)
    assert plan_layout(HT, 8, "all", 5, has_agent=True) == (list(range(8)), 5)
    assert plan_layout(HT, 2, None, 6, has_agent=True) == (None, 6)


@pytest.mark.parametrize(
    ("topo", "nprocs", "layout", "core", "agent", "message"),
    [
        (HT, 5, "A", None, False, "physical cores"),
        (HT, 2, "A", None, True, "without an agent"),
        (TWO, 2, "B", None, True, "--np 1"),
        (HT, 2, "B", 1, True, "runs a detector rank"),
        (HT, 2, "C", 3, True, "runs no detector rank"),
        (HT, 9, "all", None, False, "logical CPUs"),
    ],
)
def test_impossible_layouts_say_why(
    topo: Topology, nprocs: int, layout: str, core: int | None, agent: bool, message: str
) -> None:
    with pytest.raises(MpiscopeError, match=message):
        plan_layout(topo, nprocs, layout, core, has_agent=agent)


def test_detector_plans_are_checked() -> None:
    with pytest.raises(MpiscopeError, match="unknown detector"):
        DetectorPlan(detector="allgather", packet_s=1, packets=4, nprocs=2)
    with pytest.raises(MpiscopeError, match="switches an agent"):
        DetectorPlan(detector="barrier", packet_s=1, packets=16, nprocs=2, design="alternate")
    with pytest.raises(MpiscopeError, match="at least 16 packets"):
        DetectorPlan(detector="barrier", packet_s=1, packets=8, nprocs=2, design="alternate",
                     agent=AgentSpec(command="sleep 9"))


def test_detect_arguments() -> None:
    plan = DetectorPlan(detector="stream-ring", packet_s=0.5, packets=16, nprocs=2,
                        design="alternate", block=2, agent=AgentSpec(command="sleep 9"),
                        messages=20, message_bytes=32, pin_cores=[0, 1])
    argv = detect_argv(plan, "noise", agent_pgid=4242)
    assert argv[:8] == ["noise", "detect", "--detector", "stream-ring", "--packet-seconds",
                        "0.5", "--packets", "16"]
    pairs = dict(zip(argv[8::2], argv[9::2], strict=True))
    assert pairs == {"--messages": "20", "--message-bytes": "32", "--pin-cores": "0,1",
                     "--block": "2", "--agent-pgid": "4242"}
    separate = DetectorPlan(detector="barrier", packet_s=1, packets=4, nprocs=2)
    assert "--agent-pgid" not in detect_argv(separate, "noise", agent_pgid=99)
    assert "--groups" not in detect_argv(separate, "noise", agent_pgid=None)
    grouped = DetectorPlan(detector="barrier", packet_s=1, packets=4, nprocs=2, groups=64)
    assert detect_argv(grouped, "noise", agent_pgid=None)[-2:] == ["--groups", "64"]


def test_records() -> None:
    assert parse_record('@mpiscope noise-packet {"index": 3}') == ("noise-packet", {"index": 3})
    assert parse_record("@mpiscope noise-packet {broken") is None
    assert parse_record("plain output") is None


def test_a_command_agent_is_pinned_paused_and_stopped_as_a_group() -> None:
    core = sorted(os.sched_getaffinity(0))[-1]
    agent = Agent(AgentSpec(command="sleep 30 & sleep 30; wait", core=core), "unused",
                  dict(os.environ))
    with agent:
        deadline = time.monotonic() + 5
        while cpus_allowed(agent.pgid) != [core] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert agent.cpus_allowed() == [core]
        assert agent.alive()
        os.killpg(agent.pgid, 19)  # SIGSTOP, as the detector's rank 0 does
    assert not agent.alive()  # stopped even while paused


def _run_doc(values: list[float], agent: list[bool | None]) -> dict[str, object]:
    design = "separate" if agent[0] is None else "alternate"
    return {"kind": "noise-run", "design": design, "packets": [
        {"index": i, "block": i // 2, "agent": a, "seconds": v}
        for i, (v, a) in enumerate(zip(values, agent, strict=True))]}


def test_two_samples_from_one_alternating_run_or_two_runs() -> None:
    alt = _run_doc([1, 1, 2, 2, 1, 1, 2, 2], [False, False, True, True] * 2)
    (base, base_name), (test, test_name) = two_samples([alt], ["alt.json"])
    assert (base, test) == ([1, 1, 1, 1], [2, 2, 2, 2])
    assert "off" in base_name and "on" in test_name
    one = _run_doc([1, 2, 3], [None] * 3)
    two = _run_doc([4, 5, 6], [None] * 3)
    (base, _), (test, _) = two_samples([one, two], ["a", "b"])
    assert (base, test) == ([1, 2, 3], [4, 5, 6])
    with pytest.raises(MpiscopeError, match="one sample"):
        two_samples([one], ["a"])
    with pytest.raises(MpiscopeError, match="compare it alone"):
        two_samples([alt, one], ["alt", "a"])


def test_calibration_plan_and_smallest_agent() -> None:
    plan = CalibrationPlan(detectors=("barrier",), hz=(10, 100), bursts_ns=(1e6, 10e6),
                           nprocs=2, packet_s=0.5, packets=12, block=3)
    # 100 Hz x 10 ms fills the whole period: left out; equal loads, shorter burst first.
    assert [a.label for a in plan.agents()] == ["10Hz:1ms", "100Hz:1ms", "10Hz:10ms"]
    assert plan.runs() == 4
    assert estimate_seconds(plan) >= 4 * 12 * 0.5
    rows = [
        {"detector": "barrier", "sham": True, "agent": "A/A", "load": 0.0, "burst_ns": None,
         "fired": ["iqr_outliers"]},
        {"detector": "barrier", "sham": False, "agent": "100Hz:1ms", "load": 0.1,
         "burst_ns": 1e6, "fired": ["mann_whitney", "ci_overlap", "paired_interval"]},
        {"detector": "barrier", "sham": False, "agent": "10Hz:1ms", "load": 0.01,
         "burst_ns": 1e6, "fired": ["mann_whitney", "signed_rank"]},
    ]
    assert smallest_detected(rows, ("barrier",)) == {"barrier": {
        "ci_overlap": "100Hz:1ms", "iqr_outliers": None, "mann_whitney": "10Hz:1ms",
        "signed_rank": "10Hz:1ms", "paired_interval": "100Hz:1ms", "periodic": None,
        "stolen_time": None}}


def _calibration_doc() -> dict[str, object]:
    return {
        "schema_version": "1.0", "kind": "noise-calibration", "mpiscope_version": "0.1.0",
        "plan": {"detectors": ["barrier"], "hz": [10], "bursts_ns": [1e6], "nprocs": 2,
                 "packet_seconds": 0.5, "packets": 12, "block": 3, "layout": "C",
                 "design": "alternate"},
        "runs": [
            {"detector": "barrier", "agent": "A/A", "sham": True, "hz": None, "burst_ns": None,
             "load": 0.0, "fired": [], "detected": False, "mean_difference": 0.001,
             "boundary_gap": -0.02, "p_value": 0.6, "baseline_median_s": 0.5},
            {"detector": "barrier", "agent": "10Hz:1ms", "sham": False, "hz": 10,
             "burst_ns": 1e6, "load": 0.01, "fired": ["mann_whitney"], "detected": True,
             "mean_difference": 0.012, "boundary_gap": -0.001, "p_value": 0.004,
             "baseline_median_s": 0.5},
        ],
        "smallest": {"barrier": {"ci_overlap": None, "iqr_outliers": None,
                                 "mann_whitney": "10Hz:1ms"}},
        "false_positives": {"barrier": [[]]},
    }


def test_mpiscope_load_reads_noise_documents(tmp_path: Path) -> None:
    import json

    import mpiscope
    from test_noise_document import make_run

    run = tmp_path / "run.json"
    run.write_text(json.dumps(make_run()))
    frame = mpiscope.load(run)
    assert list(frame["index"]) == list(range(8))
    calib = tmp_path / "calib.json"
    calib.write_text(json.dumps(_calibration_doc()))
    frame = mpiscope.load(calib)
    assert list(frame["agent"]) == ["A/A", "10Hz:1ms"]
    assert list(frame["fired"]) == ["", "mann_whitney"]
    with pytest.raises(MpiscopeError, match="raw=True"):
        mpiscope.load(run, raw=True)
    broken = _calibration_doc()
    del broken["runs"][1]["load"]  # type: ignore[index]
    calib.write_text(json.dumps(broken))
    with pytest.raises(MpiscopeError, match="load"):
        mpiscope.load(calib)


def test_html_renders_noise_documents_and_refuses_a_mix(tmp_path: Path) -> None:
    import json

    from mpiscope_fakes import SAMPLE, run_cli
    from test_noise_document import make_run

    run = tmp_path / "run.json"
    run.write_text(json.dumps(make_run()))
    calib = tmp_path / "calib.json"
    calib.write_text(json.dumps(_calibration_doc()))
    proc = run_cli(["html", str(run), str(calib), "-o", str(tmp_path / "noise.html")])
    assert proc.code == 0, proc.stderr
    page = (tmp_path / "noise.html").read_text()
    assert "noise-calibration" in page and "10Hz:1ms" in page and "data:image/png" in page
    mixed = run_cli(["html", str(run), str(SAMPLE), "-o", str(tmp_path / "mixed.html")])
    assert mixed.code == 2 and "not both" in mixed.stderr


def test_a_silent_program_is_stopped_by_its_pace_not_a_total_time() -> None:
    import sys

    from mpiscope.errors import RunFailedError
    from mpiscope.launcher import run_streaming

    seen: list[str] = []
    script = "import time; print('@mpiscope noise-packet {}', flush=True); time.sleep(60)"
    start = time.monotonic()
    with pytest.raises(RunFailedError, match="printed nothing for 1 s"):
        run_streaming([sys.executable, "-c", script], dict(os.environ), None,
                      lambda e: seen.append(e.line) if isinstance(e, OutputEvent) else None,
                      idle_timeout=lambda: 1.0)
    assert seen == ["@mpiscope noise-packet {}"]
    assert time.monotonic() - start < 30  # stopped, not left to its 60 s


def test_the_calibrated_pace_sets_the_silence_allowed_and_warns() -> None:
    from mpiscope.noise.session import SILENCE_FLOOR_S, _Collector, new_document

    plan = DetectorPlan(detector="stream-ring", packet_s=0.1, packets=4, nprocs=2)
    warnings: list[str] = []
    collector = _Collector(new_document(plan, {}), None, None, warnings.append)
    assert collector.silence_s == SILENCE_FLOOR_S + 10 * 0.1
    setup = {"detector": "stream-ring", "packet_seconds": 0.1, "iterations_per_packet": 1,
             "calibration": {"iterations": 1, "seconds": 2.0, "per_iteration_ns": 2e9}}
    collector(OutputEvent("@mpiscope noise-setup " + json.dumps(setup)))
    assert collector.silence_s == SILENCE_FLOOR_S + 5 * 2.0
    assert len(warnings) == 1 and "about 2 s, not 0.1 s" in warnings[0]
    assert collector.doc["detector"]["name"] == "stream-ring"


def test_group_times_join_their_packet_in_the_document(tmp_path: Path) -> None:
    from mpiscope.noise.session import _Collector, new_document

    plan = DetectorPlan(detector="barrier", packet_s=0.1, packets=4, nprocs=2, groups=2)
    out = tmp_path / "run.json"
    collector = _Collector(new_document(plan, {}), out, None, lambda text: None)
    setup = {"detector": "barrier", "packet_seconds": 0.1, "iterations_per_packet": 8,
             "groups": 2, "group_read_ns": 30.0}
    collector(OutputEvent("@mpiscope noise-setup " + json.dumps(setup)))
    packet = {"index": 0, "block": 0, "agent": False, "seconds": 0.1}
    collector(OutputEvent("@mpiscope noise-packet " + json.dumps(packet)))
    assert not out.exists()  # saved once its group times are in
    groups = {"index": 0, "groups_ns": [[5e7, 5e7], [4e7, 6e7]], "stolen_ns": [[0, 0], [0, 1e7]]}
    collector(OutputEvent("@mpiscope noise-groups " + json.dumps(groups)))
    saved = json.loads(out.read_text())
    assert saved["packets"][0]["groups_ns"] == [[5e7, 5e7], [4e7, 6e7]]
    assert saved["packets"][0]["stolen_ns"] == [[0, 0], [0, 1e7]]
    # Later packets are inserted in place: the file is whole after each one.
    for index in (1, 2, 3):
        collector(OutputEvent("@mpiscope noise-packet " + json.dumps({**packet, "index": index})))
        collector(OutputEvent("@mpiscope noise-groups " + json.dumps({**groups, "index": index})))
        saved = json.loads(out.read_text())
        assert [p["index"] for p in saved["packets"]] == list(range(index + 1))
        assert saved["packets"][index]["groups_ns"] == groups["groups_ns"]
    assert saved["detector"]["group_read_ns"] == 30.0



def test_separate_runs_compare_only_the_same_work() -> None:
    from mpiscope.noise.session import same_work

    base = _run_doc([1, 2, 3], [None] * 3)
    base["detector"] = {"name": "stream-ring", "iterations_per_packet": 7,
                        "stream": {"elements_per_rank": 1000, "triads": 100, "messages": 20,
                                   "message_bytes": 32}, "alltoall_bytes": None}
    assert same_work(base, "stream-ring", "base.json") == {
        "iterations": 7, "stream_elements": 1000, "triads": 100, "messages": 20,
        "message_bytes": 32}
    with pytest.raises(MpiscopeError, match="not barrier"):
        same_work(base, "barrier", "base.json")
    other = _run_doc([4, 5, 6], [None] * 3)
    other["detector"] = {"name": "stream-ring", "iterations_per_packet": 8}
    with pytest.raises(MpiscopeError, match="7 and 8 iterations per packet.*--same-as a"):
        two_samples([base, other], ["a", "b"])
    other["detector"]["iterations_per_packet"] = 7
    assert two_samples([base, other], ["a", "b"])[1][0] == [4, 5, 6]
