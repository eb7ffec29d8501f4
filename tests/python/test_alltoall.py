"""The Alltoall lab's logic on synthetic inputs: the piecewise Hockney fit,
the cost models, PLP's rule against the measured best d, the comparison
document, the tuning files (MPICH tree edit, Open MPI unit), the proof's
logic, the winner map, figures and HTML, and the command's error lines."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from alltoall_helpers import SIZES, compare_doc
from mpiscope.alltoall import tune
from mpiscope.alltoall.models import Hockney, Segment, Topology, fit_hockney, predict
from mpiscope.alltoall.plots.winners import winner_grid
from mpiscope.alltoall.plp import leader_choices, node_sizes, plp_rule
from mpiscope.errors import MpiscopeError
from mpiscope.result.alltoall import load_alltoall, validate

# --- Hockney fit ----------------------------------------------------------------------------
POW2 = [2**k for k in range(0, 21)]


def _two_regimes(s: int) -> float:
    return 500 + 0.1 * s if s <= 8192 else 4000 + 0.05 * s


def test_fit_finds_the_protocol_breakpoint_from_the_data() -> None:
    model = fit_hockney(POW2, [_two_regimes(s) for s in POW2])
    first, second = model.segments
    assert (first.from_bytes, first.to_bytes, second.to_bytes) == (1, 8192, None)
    assert first.alpha_ns == pytest.approx(500) and first.beta_ns_per_byte == pytest.approx(0.1)
    assert second.alpha_ns == pytest.approx(4000)
    assert second.beta_ns_per_byte == pytest.approx(0.05)
    assert model.time_ns(100) == pytest.approx(510)
    assert model.time_ns(1 << 22) == pytest.approx(4000 + 0.05 * (1 << 22))


def test_one_line_across_all_sizes_is_much_worse_than_two_segments() -> None:
    times = [_two_regimes(s) for s in POW2]
    one = fit_hockney(POW2, times, segments=1).segments[0].max_rel_error
    two = max(s.max_rel_error for s in fit_hockney(POW2, times).segments)
    assert two < 1e-9 < 0.5 < one


def test_fit_keeps_alpha_and_beta_non_negative_and_needs_two_points() -> None:
    model = fit_hockney([1, 2, 4, 8], [100, 90, 80, 70])  # falling: beta would be < 0
    assert all(s.beta_ns_per_byte >= 0 and s.alpha_ns >= 0 for s in model.segments)
    assert len(fit_hockney([1, 2, 4], [1, 2, 3]).segments) == 1  # 2 points per segment
    with pytest.raises(MpiscopeError):
        fit_hockney([1], [5])


# --- models -----------------------------------------------------------------------------------
LINE = Hockney((Segment(0, None, 1000.0, 0.5, 10, 0.0),))


def test_bruck_and_pairwise_formulas() -> None:
    topo = Topology(8, 1, 8, 8192)
    # Bruck: ceil(log2 8) = 3 steps of N/2 m = 4*100 bytes
    assert predict("bruck", topo, 100, LINE) == pytest.approx(3 * (1000 + 0.5 * 400))
    # pairwise: N-1 steps of m bytes
    assert predict("pairwise", topo, 100, LINE) == pytest.approx(7 * (1000 + 0.5 * 100))
    assert predict(None, topo, 100, LINE) is None
    assert predict("bruck", Topology(6, 1, 6, 8192), 10, LINE) == pytest.approx(
        3 * (1000 + 0.5 * 30)
    )


def test_leader_models_switch_the_exchange_at_size_crit() -> None:
    # 4 nodes of 4 ranks; One-leader's block M*M*m: 16 m
    topo = Topology(16, 4, 4, 8192)
    intra = Hockney((Segment(0, None, 0.0, 0.0, 2, 0.0),))  # free copies
    small = predict("one_leader", topo, 8, LINE, intra)  # 128 B <= size_crit: Bruck over K=4
    assert small == pytest.approx(2 * (1000 + 0.5 * 2 * 128))
    big = predict("one_leader", topo, 1024, LINE, intra)  # 16 KiB > size_crit: ring, 3 steps
    assert big == pytest.approx(3 * (1000 + 0.5 * 16384))
    # M-leader: 4 leaders at once, blocks of M*m, the link shared by 4 (beta x 4)
    assert predict("m_leader", topo, 8, LINE, intra) == pytest.approx(2 * (1000 + 4 * 0.5 * 64))


# --- PLP -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("block", "expected"),
    [(64, 8), (128, 8), (129, 1), (256, 1), (1024, 4), (4096, 8)],
)
def test_plp_rule_of_the_seed(block: int, expected: int) -> None:
    # M = 8, Size_crit 8192: M*M*m <= 8192 -> 8; else the largest d with M*M*m/d > 8192
    assert plp_rule(8, block, 8192) == expected


def test_nodes_and_leader_choices() -> None:
    assert node_sizes(7, 3) == [3, 2, 2]
    assert leader_choices([4, 4]) == [1, 2, 4]
    assert leader_choices([3, 2, 2]) == [1]
    assert leader_choices([6, 4]) == [1, 2]


def test_plp_rows_compare_the_rule_with_the_measured_best() -> None:
    doc = compare_doc()
    assert [r["best_leaders"] for r in doc["plp"]] == [2] * len(SIZES)
    row = doc["plp"][0]  # M = 4, 1 B: 16 B <= 8192 -> the rule takes d = 4
    assert row["rule_leaders"] == 4
    assert row["rule_over_best"] == pytest.approx(3.0)


# --- the document ---------------------------------------------------------------------------
def test_winners_and_speed_up_per_size() -> None:
    doc = compare_doc()
    winners = {w["size_bytes"]: w for w in doc["winners"]}
    assert winners[1]["winner"] == "bruck"
    assert winners[32768]["winner"] == "pairwise"
    assert winners[1]["best_native"] == "native:brucks"
    assert winners[1]["speedup_best_lab_over_native"] == pytest.approx(2002 / 1004)


def test_predictions_come_from_the_pingpong_of_the_same_run() -> None:
    doc = compare_doc()
    segs = doc["hockney"]["inter"]["segments"]
    assert [s["to_bytes"] for s in segs] == [16384, None]
    bruck = next(v for v in doc["variants"] if v["name"] == "bruck")
    p = next(p for p in bruck["points"] if p["size_bytes"] == 8)
    assert p["predicted_ns"] == pytest.approx(3 * (500 + 0.1 * 32))
    native = next(v for v in doc["variants"] if v["name"] == "native")
    # MPICH's own tree at 8 ranks: Bruck up to 256 B, scattered (linear) to 32 KiB
    assert [p["model"] for p in native["points"]] == ["bruck"] * 3 + ["linear"] * 3


def test_the_document_validates_and_says_when_simulated(tmp_path: Path) -> None:
    doc = compare_doc(simulated=True)
    assert doc["simulated"] is True and doc["status"] == "complete"
    path = tmp_path / "a2a.json"
    path.write_text(json.dumps(doc))
    assert load_alltoall(path)["nprocs"] == 8
    assert compare_doc()["simulated"] is False
    bad = copy.deepcopy(doc)
    bad["variants"][0]["kind"] = "other"
    with pytest.raises(MpiscopeError, match=r"variants\[0\]\.kind"):
        validate(bad, "a2a.json")


def test_a_failed_launch_keeps_the_others() -> None:
    from mpiscope.alltoall.compare import RunRecord, Variant, build_document

    good = {"environment": {}, "points": [
        {"op": "alltoall", "size_bytes": 8, "median_ns": 10.0, "ci_low_ns": 9.0,
         "ci_high_ns": 11.0}]}  # fmt: skip
    runs = [RunRecord("lab", doc=good), RunRecord("native:brucks", error="exit 3")]
    variants = [Variant("native", "native", "alltoall", "default", None, 0),
                Variant("native:brucks", "native-forced", "alltoall", "brucks", "bruck", 1)]
    doc = build_document(variants=variants, runs=runs, sizes=[8],
                         topology=Topology(2, 1, 2, 8192), node_sizes=[2], nodes_option=0,
                         implementation="mpich", command_line="x", inter_run=None,
                         intra_run=None)  # fmt: skip
    validate(doc)
    assert doc["status"] == "partial" and doc["errors"] == ["native:brucks: exit 3"]
    assert doc["winners"][0]["winner"] == "native"


def test_frame_via_mpiscope_load(tmp_path: Path) -> None:
    import mpiscope

    path = tmp_path / "a2a.json"
    path.write_text(json.dumps(compare_doc()))
    frame = mpiscope.load(path)
    assert set(frame["variant"]) >= {"native", "bruck", "plp:d=2"}
    assert frame.loc[frame["winner"], "variant"].tolist()[0] == "bruck"


# --- tuning files -----------------------------------------------------------------------------
BASE = {
    "collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
    "collective=alltoall": {
        "comm_type=intra": {
            "is_sendbuf_inplace=yes": {
                "algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
            "is_sendbuf_inplace=no": {
                "comm_size<8": {
                    "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_scattered": {}}},
                "comm_size=any": {
                    "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}},
            },
        },
        "comm_type=inter": {"algorithm=MPIR_Alltoall_inter_pairwise_exchange": {}},
    },
    "collective=barrier": {"comm_type=intra": {"algorithm=MPIR_Barrier_intra_k_dissemination": {}}},
}  # fmt: skip


def test_choices_take_the_fastest_native_algorithm_per_size() -> None:
    ranges = tune.choices([compare_doc()], "mpich")
    # brucks (1100 + 4.5 m) beats pairwise (3100 + 1.1 m) up to 512 B, not at 4 KiB
    assert ranges == {8: [(512, "brucks"), (None, "pairwise")]}
    with pytest.raises(MpiscopeError, match="cannot tune openmpi"):
        tune.choices([compare_doc()], "openmpi")


def test_mpich_tree_changes_only_the_not_in_place_alltoall_branch() -> None:
    ranges = {8: [(64, "brucks"), (None, "pairwise")]}
    tree = tune.mpich_tuned_tree(BASE, ranges)
    assert {k: v for k, v in tree.items() if k != "collective=alltoall"} == {
        k: v for k, v in BASE.items() if k != "collective=alltoall"
    }
    a2a, orig = tree["collective=alltoall"], BASE["collective=alltoall"]
    assert a2a["comm_type=inter"] == orig["comm_type=inter"]
    intra, orig_intra = a2a["comm_type=intra"], orig["comm_type=intra"]
    assert intra["is_sendbuf_inplace=yes"] == orig_intra["is_sendbuf_inplace=yes"]
    branch = intra["is_sendbuf_inplace=no"]
    # comm_size<=7, not comm_size<8: MPICH 5.0.2 matched comm_size<2 at 2 ranks (see tune.py)
    assert list(branch) == ["comm_size<=7", "comm_size<=8", "comm_size=any"]
    assert branch["comm_size<=7"] == branch["comm_size=any"] == orig_intra["is_sendbuf_inplace=no"]
    assert branch["comm_size<=8"] == {
        "avg_msg_size<=64": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
        "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}},
    }
    assert tune.parse_mpich_ranges(tree) == ranges
    two = tune.mpich_tuned_tree(BASE, {3: [(None, "brucks")], 4: [(None, "pairwise")]})
    branch = two["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=no"]
    assert list(branch) == ["comm_size<=2", "comm_size<=3", "comm_size<=4", "comm_size=any"]
    assert tune.parse_mpich_ranges(two) == {3: [(None, "brucks")], 4: [(None, "pairwise")]}
    assert BASE["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=no"].keys() == {
        "comm_size<8", "comm_size=any"}  # the base is not modified


def test_the_tree_is_found_in_a_library_binary(tmp_path: Path) -> None:
    posix = {"collective=alltoall": {"comm_type=intra": {"algorithm=MPIDI_POSIX_x": {}}}}
    blob = (b"\x7fELF\0junk\0" + json.dumps(posix).encode() + b"\0"
            + json.dumps(BASE).encode() + b"\0tail")  # fmt: skip
    lib = tmp_path / "libmpi.so.12"
    lib.write_bytes(blob)
    assert tune.mpich_tree(lib) == BASE
    (tmp_path / "other.so").write_bytes(b"nothing here")
    with pytest.raises(MpiscopeError, match="no MPIR selection tree"):
        tune.mpich_tree(tmp_path / "other.so")


def test_openmpi_rules_count_dtsize_times_comm_size_times_count() -> None:
    text = tune.openmpi_rules({4: [(64, "3"), (None, "2")], 16: [(None, "1")]})
    rules = [line.split("#")[0].split() for line in text.splitlines()]
    assert rules[0] == ["rule-file-version-2"]
    assert rules[2] == ["3"]  # alltoall
    # 4 ranks: modified_bruck from 0 bytes, pairwise from 4 x (64 + 1) = 260 bytes
    assert rules[4:8] == [["4"], ["2"], ["0", "3", "0", "0", "0"], ["260", "2", "0", "0", "0"]]
    assert tune.parse_openmpi_rules(text) == {4: [(0, "3"), (260, "2")], 16: [(0, "1")]}


# --- the proof's logic ---------------------------------------------------------------------------
def _fake_mpich(follows: bool) -> Any:
    """A library that follows the file (or ignores it): it runs the leaf of
    the range holding the size and fails on pairwise_sendrecv_replace."""

    def run(path: Path, nprocs: int, size: int) -> tuple[int, str]:
        if not follows:
            return 0, "ok"
        leaves = json.loads(path.read_text())["collective=alltoall"]["comm_type=intra"][
            "is_sendbuf_inplace=no"][f"comm_size<={nprocs}"]  # fmt: skip
        for cond, leaf in leaves.items():
            if cond == "avg_msg_size=any" or size <= int(cond.split("<=")[1]):
                if "sendrecv_replace" in next(iter(leaf)):
                    return 1, "Assertion failed in file x.c: sendbuf == MPI_IN_PLACE"
                return 0, "ok"
        return 2, "no match"

    return run


@pytest.mark.parametrize("follows", [True, False])
def test_the_proof_passes_only_for_a_library_that_follows_the_file(
    tmp_path: Path, follows: bool
) -> None:
    file = tmp_path / "tuned.json"
    ranges = {4: [(64, "brucks"), (4096, "scattered"), (None, "pairwise")]}
    file.write_text(json.dumps(tune.mpich_tuned_tree(BASE, ranges)))
    steps = tune.prove("mpich", file, tmp_path, _fake_mpich(follows))
    assert len(steps) == 3 + 3 * 3
    assert [s.size_bytes for s in steps[:3]] == [64, 4096, 4097]
    assert all(s.ok for s in steps) is follows


def test_the_openmpi_proof_uses_per_destination_sizes(tmp_path: Path) -> None:
    file = tmp_path / "rules"
    file.write_text(tune.openmpi_rules({4: [(64, "3"), (None, "2")]}))
    seen: list[tuple[int, str]] = []

    def run(path: Path, nprocs: int, size: int) -> tuple[int, str]:
        rules = tune.parse_openmpi_rules(path.read_text())[nprocs]
        alg = [a for start, a in rules if nprocs * size >= start][-1]
        seen.append((size, alg))
        return (1, "MPI_ERR_ARG: invalid argument") if alg == "6" else (0, "")

    steps = tune.prove("openmpi", file, tmp_path, run)
    assert all(s.ok for s in steps)
    assert seen[:2] == [(64, "3"), (65, "2")]


def test_the_proof_never_probes_zero_bytes(tmp_path: Path) -> None:
    """One open range from 0: probed at 1 byte (at 0 bytes no algorithm runs)."""
    file = tmp_path / "tuned.json"
    file.write_text(json.dumps(tune.mpich_tuned_tree(BASE, {2: [(None, "pairwise")]})))
    steps = tune.prove("mpich", file, tmp_path, _fake_mpich(True))
    assert [s.size_bytes for s in steps] == [1, 1] and all(s.ok for s in steps)


# --- winner map, figures, HTML ------------------------------------------------------------------
def test_winner_map_rows_are_process_counts() -> None:
    small, big = compare_doc(nprocs=8), compare_doc(nprocs=16, nodes=4)
    counts, sizes, grid = winner_grid([big, small])
    assert counts == [8, 16] and sizes == SIZES
    assert grid[0][0] == "bruck" and grid[1][-1] == "pairwise"


def test_plot_and_html_commands(tmp_path: Path) -> None:
    path = tmp_path / "a2a.json"
    path.write_text(json.dumps(compare_doc(simulated=True)))
    plots = _mpiscope("alltoall", "plot", str(path), "--out-dir", str(tmp_path / "figs"))
    assert plots.returncode == 0, plots.stderr
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "a2a-np8-speedup.png", "a2a-np8-time.png", "a2a-winners.png"]
    page = _mpiscope("html", str(path), "-o", str(tmp_path / "a2a.html"))
    assert page.returncode == 0, page.stderr
    text = (tmp_path / "a2a.html").read_text()
    assert "SIMULATED" in text and "plp:d=2" in text and text.count("<img") == 3


# --- the command's errors ---------------------------------------------------------------------
def _mpiscope(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mpiscope", *argv], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["alltoall"], "alltoall needs a subcommand"),
        (["alltoall", "tune"], "tune needs A2A.json"),
        (["alltoall", "tune", "missing.json", "--format", "mpich", "-o", "x"], "does not exist"),
        (["alltoall", "tune", "--check", "missing.json"], "no such file"),
        (["alltoall", "check", "--np", "2:x"], "process count"),
    ],
)
def test_errors_are_one_line(argv: list[str], message: str) -> None:
    proc = _mpiscope(*argv)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("mpiscope: error:")
    assert message in proc.stderr


def test_speedup_is_none_without_a_default() -> None:
    doc = compare_doc()
    doc["variants"] = [v for v in doc["variants"] if v["kind"] != "native"]
    from mpiscope.alltoall.compare import winner_rows

    assert all(w["speedup_best_lab_over_native"] is None for w in winner_rows(doc))
    assert not any(math.isnan(w["best_lab_ns"]) for w in winner_rows(doc))


def test_check_status_tells_data_mismatches_from_early_returns() -> None:
    from mpiscope.alltoall.lab import validation_status as _validation_status

    def doc(*validations: dict[str, Any]) -> dict[str, Any]:
        return {"points": [{"op": "alltoall_bruck", "size_bytes": s, "validation": v}
                           for s, v in zip((0, 8), validations, strict=False)]}  # fmt: skip

    ok = {"supported": True, "failures": 0}
    early = {"supported": True, "failures": 3,
             "first_mismatch": "rank 0 left 691 ns before rank 1 entered (global clock)"}
    wrong = {"supported": True, "failures": 1, "first_mismatch": "rank 1 block 0 byte 3"}
    assert _validation_status(doc(ok, ok), "alltoall_bruck", None, 2) == ("ok", False)
    assert _validation_status(doc(early, ok), "alltoall_bruck", "exit 1", 2) == (
        "ok (returns early at 0 B)", False)
    cell, failed = _validation_status(doc(ok, wrong), "alltoall_bruck", "exit 1", 2)
    assert failed and cell.startswith("MISMATCH 8 B: rank 1 block 0")
    assert _validation_status(doc(ok), "alltoall_bruck", "exit 1", 2) == ("error", True)
    assert _validation_status(doc({"supported": False}, ok), "alltoall_bruck", None, 2) == (
        "no check", True)


def test_a_document_of_schema_1_0_is_read_under_the_new_names(tmp_path: Path) -> None:
    """Schema 1.0 called the runs of the bench launches (``launches``, each
    variant's ``launch``): still valid, and read as ``runs`` and ``run``."""
    doc = compare_doc()
    assert doc["schema_version"] == "1.1" and "launches" not in doc
    old = copy.deepcopy(doc)
    old["schema_version"] = "1.0"
    old["launches"] = old.pop("runs")
    for variant in old["variants"]:
        variant["launch"] = variant.pop("run")
    validate(old)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    read = load_alltoall(path)
    assert read["runs"] == doc["runs"] and "launches" not in read
    assert [v["run"] for v in read["variants"]] == [v["run"] for v in doc["variants"]]
    missing = copy.deepcopy(doc)
    del missing["runs"]
    with pytest.raises(MpiscopeError):
        validate(missing)
