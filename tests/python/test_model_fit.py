"""Model fits on synthetic data with known parameters: recovered within
their intervals; breakpoints found; predictions against hand-computed
formulas; the platform's factors; bad input as one-line errors."""

from __future__ import annotations

import math

import pytest

from model_helpers import SIZES, hockney_doc, loggp_doc, point
from mpiscope.errors import MpiscopeError
from mpiscope.models.collectives import COLLECTIVES, collective
from mpiscope.models.document import fit_document, model_document, model_of
from mpiscope.models.fit import FitOptions
from mpiscope.models.hockney import Hockney, Segment, fit_hockney_auto
from mpiscope.models.platform import lines_of, platform_xml
from mpiscope.models.plogp import interpolate
from mpiscope.result.model import validate

TRUE = ((1024, 1000.0, 0.5), (None, 5000.0, 0.1))  # (to_bytes, alpha, beta)


def two_regimes(s: float) -> float:
    return 1000.0 + 0.5 * s if s <= 1024 else 5000.0 + 0.1 * s


def within(param: dict, value: float) -> bool:
    return param["ci_low"] <= value <= param["ci_high"]


def test_hockney_finds_the_breakpoint_and_recovers_the_parameters() -> None:
    """Ten noisy data sets: the breakpoint found in each, and each true value
    inside its 95% interval in 8 of them at least (the intervals' coverage
    was 92-98% over 40 seeds)."""
    truth = {"segment0.alpha_ns": 1000.0, "segment0.beta_ns_per_byte": 0.5,
             "segment1.alpha_ns": 5000.0, "segment1.beta_ns_per_byte": 0.1}  # fmt: skip
    covered = dict.fromkeys(truth, 0)
    for seed in range(10):
        fit = fit_document(hockney_doc(two_regimes, seed), "hockney", FitOptions(replicates=100))
        segs = fit.structure["segments"]
        assert [(s["from_bytes"], s["to_bytes"]) for s in segs] == [(1, 1024), (4096, None)]
        params = {p.name: p.as_dict() for p in fit.parameters}
        for name, value in truth.items():
            covered[name] += within(params[name], value)
        assert fit.ci_method == "bootstrap"
        assert fit.max_rel_error is not None and fit.max_rel_error < 0.1
    assert min(covered.values()) >= 8, covered


def test_one_line_is_kept_when_it_fits() -> None:
    model = fit_hockney_auto(list(SIZES), [800 + 0.2 * s for s in SIZES])
    assert len(model.segments) == 1
    assert model.segments[0].alpha_ns == pytest.approx(800)


def test_an_outlier_does_not_buy_a_segment() -> None:
    times = [800 + 0.2 * s for s in SIZES]
    times[0] *= 3
    model = fit_hockney_auto(list(SIZES), times)
    assert len(model.segments) <= 2


def test_a_ping_pong_with_fewer_sizes_than_a_segment_is_a_one_line_error() -> None:
    """Two sizes left (a size without a valid launch is left out) while a
    regime needs 3: an error, as in the C port, not a KeyError."""
    doc = hockney_doc(two_regimes)
    kept = {1, 16384}
    doc["points"] = [p for p in doc["points"] if p["size_bytes"] in kept]
    with pytest.raises(MpiscopeError, match="needs 3 sizes with a positive time, not 2"):
        fit_document(doc, "hockney", FitOptions(replicates=5))
    with pytest.raises(MpiscopeError, match="needs 3 sizes"):
        fit_hockney_auto([1, 1024], [1000.0, 1500.0], min_points=3)


def test_loggp_by_netgauge_recovers_the_parameters() -> None:
    doc = loggp_doc(L=500.0, o_s=300.0, o_r=200.0, g=400.0, G=0.2)
    fit = fit_document(doc, "loggp", FitOptions(replicates=100))
    got = {p.name: p.as_dict() for p in fit.parameters}
    for name, value in (("o_s_ns", 300.0), ("o_r_ns", 200.0), ("G_ns_per_byte", 0.2)):
        assert got[name]["value"] == pytest.approx(value, rel=0.05), name
    assert got["L_ns"]["value"] == pytest.approx(500.0, rel=0.1)
    assert got["g_ns"]["value"] == pytest.approx(400.0, rel=0.15)


def test_lmo_says_it_needs_three_ranks() -> None:
    with pytest.raises(MpiscopeError, match="LMO needs one-to-two experiments on 3 ranks"):
        fit_document(hockney_doc(two_regimes), "lmo", FitOptions(replicates=0))


def test_lmo_recovers_processor_and_link_terms() -> None:
    C, t = (100.0, 200.0, 300.0), (0.01, 0.02, 0.03)
    L = {(0, 1): 400.0, (0, 2): 500.0, (1, 2): 600.0}
    ib = {(0, 1): 0.1, (0, 2): 0.2, (1, 2): 0.3}

    def h(i: int, j: int, m: float) -> float:
        a, b = min(i, j), max(i, j)
        return C[i] + L[(a, b)] + C[j] + m * (t[i] + ib[(a, b)] + t[j])

    points = []
    for m in (0, 1024, 65536):
        for i, j in L:
            rtt = [2 * h(i, j, m)] * 5
            points.append(point("pingpong", m, [rtt, rtt], {"pairs": f"{i}-{j}"}, nprocs=3))
        for r in range(3):
            value = C[r] + m * t[r] + max(h(r, (r + s) % 3, m) + h(r, (r + s) % 3, 0)
                                          for s in (1, 2))  # fmt: skip
            ranks = [[value] * 5 if k == r else [1.0] * 5 for k in range(3)]
            points.append(point("one_to_two", m, ranks, root=r, nprocs=3))
    fit = fit_document({"points": points}, "lmo", FitOptions(replicates=0))
    v = {p.name: p.value for p in fit.parameters}
    for r in range(3):
        assert v[f"C[{r}]_ns"] == pytest.approx(C[r], abs=1e-6)
        assert v[f"t[{r}]_ns_per_byte"] == pytest.approx(t[r], abs=1e-9)
    assert v["L[1-2]_ns"] == pytest.approx(600.0, abs=1e-6)
    assert v["inv_beta[0-2]_ns_per_byte"] == pytest.approx(0.2, abs=1e-9)


def test_missing_experiments_are_one_line_errors() -> None:
    with pytest.raises(MpiscopeError, match="no prtt points"):
        fit_document(hockney_doc(two_regimes), "loggp", FitOptions())
    with pytest.raises(MpiscopeError, match="no ping-pong"):
        fit_document({"points": []}, "hockney", FitOptions())
    with pytest.raises(MpiscopeError, match="unknown model"):
        fit_document({"points": []}, "logp", FitOptions())
    # ping-pong points without one valid launch (late, on a busy machine)
    doc = hockney_doc(two_regimes)
    for p in doc["points"]:
        p.update(median_ns=None, per_rank=[])
        p["raw"]["valid"] = [False] * len(p["raw"]["valid"])
    with pytest.raises(MpiscopeError, match="ping-pong between ranks 0 and 1 with a valid launch"):
        fit_document(doc, "hockney", FitOptions())


HOCKNEY = Hockney((Segment(1, 1024, 1000.0, 0.5, 3, 0.0), Segment(4096, None, 5000.0, 0.1, 3, 0.0)),
                  gamma_ns_per_byte=0.25)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "p", "s", "expected"),
    [
        ("bcast:linear", 8, 100, 7 * (1000 + 50)),
        ("bcast:binomial", 8, 100, 3 * (1000 + 50)),
        ("bcast:binomial", 5, 2048, 3 * (5000 + 204.8)),
        ("alltoall:bruck", 8, 100, 3 * (1000 + 0.5 * 400)),
        ("alltoall:pairwise", 4, 10, 3 * (1000 + 5)),
        ("allreduce:recursive_doubling", 4, 1000, 2 * (1000 + 500 + 250)),
        ("allreduce:recursive_doubling", 5, 1000, 2 * (1000 + 500 + 250) + 2 * 1500 + 250),
        ("allreduce:rabenseifner", 4, 1000, 2 * ((1000 + 250) + (1000 + 125)) + 0.75 * 1000 * 0.25),
        ("allgather:ring", 3, 8, 2 * (1000 + 4)),
        ("barrier:dissemination", 9, 0, 4 * 1000),
    ],
)
def test_predictions_match_the_hand_computed_formulas(
    name: str, p: int, s: int, expected: float
) -> None:
    got = collective(name).time_ns(p, s, HOCKNEY.time_ns, HOCKNEY.gamma_ns_per_byte)
    assert got == pytest.approx(expected)


def test_every_collective_is_zero_on_one_rank_and_named_ok() -> None:
    for name, algo in COLLECTIVES.items():
        assert algo.time_ns(1, 1024, HOCKNEY.time_ns) == 0.0
        assert name.count(":") == 1
    with pytest.raises(MpiscopeError, match="unknown collective algorithm 'bcast:tree'"):
        collective("bcast:tree")


def test_the_model_document_validates_and_reads_back() -> None:
    options = FitOptions(replicates=20)
    fit = fit_document(hockney_doc(two_regimes), "hockney", options)
    doc = model_document(fit, {"points": [{"nprocs": 2}], "environment": {}}, "x.json", options,
                         "0.1.0")  # fmt: skip
    validate(doc, "model.json")
    model = model_of(doc)
    assert model.time_ns(2048) == pytest.approx(fit.model.time_ns(2048))
    bad = dict(doc, model="hockney")
    bad.pop("hockney")
    with pytest.raises(MpiscopeError, match="model.json does not match the model schema"):
        validate(bad, "model.json")


def test_platform_factors_reproduce_each_regime() -> None:
    """SMPI 3.32 sends m + 16 bytes and picks a factor for m + 16 > S."""
    lines = lines_of(HOCKNEY)
    assert [ln.from_bytes for ln in lines] == [0, 1025]
    text = platform_xml(HOCKNEY, 4, "test")
    assert 'lat-factor" value="0:1;1040:5.03871"' in text  # (5000 - 1.6) / (1000 - 8)
    assert 'bw-factor" value="0:1;1040:5"' in text  # 0.5 / 0.5 and 0.5 / 0.1
    assert 'bw="2e+09Bps"' in text and 'lat="496ns"' in text and 'radical="0-3"' in text
    for s in (1, 1024, 4096):  # 2 x lat x factor + (s + 16) / (bw x factor) == the model
        lat, bw = (1, 1) if s <= 1024 else (4998.4 / 992, 5)
        assert 2 * 496 * lat + (s + 16) / (2.0 * bw) == pytest.approx(HOCKNEY.time_ns(s), rel=1e-5)


def test_plogp_interpolation_extends_the_end_segments() -> None:
    assert interpolate([0, 10, 20], [1.0, 2.0, 4.0], 5) == pytest.approx(1.5)
    assert interpolate([0, 10, 20], [1.0, 2.0, 4.0], 30) == pytest.approx(6.0)
    assert math.isclose(interpolate([0, 10], [1.0, 2.0], -10), 0.0)


def test_seems_to_use_needs_a_clear_winner_and_breaks_runs() -> None:
    from mpiscope.models.check import CheckRow, seems_to_use

    def row(size: int, a: float, b: float) -> CheckRow:
        return CheckRow("allreduce", size, 4, 100.0, {"allreduce:x": a, "allreduce:y": b})

    rows = [row(1, 101, 150), row(2, 102, 160), row(4, 105, 104), row(8, 103, 170),
            row(16, 300, 110)]  # fmt: skip
    assert seems_to_use(rows) == [("allreduce", 4, 1, 2, "allreduce:x"),
                                  ("allreduce", 4, 8, 8, "allreduce:x"),
                                  ("allreduce", 4, 16, 16, "allreduce:y")]  # fmt: skip
