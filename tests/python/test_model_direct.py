"""Models that say where they hold: the direct fit of a collective's own
times (model fit --model direct), its predictions, and model check naming
the collectives no point-to-point algorithm can predict."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from model_helpers import SIZES, hockney_doc, noisy, point
from mpiscope.errors import MpiscopeError
from mpiscope.models.check import CheckRow, check_points, mechanism, unpredictable
from mpiscope.models.data import across_runs, state_change
from mpiscope.models.document import fit_document, model_document, model_of
from mpiscope.models.fit import FitOptions
from mpiscope.result.model import validate

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-result.json"  # bcast, 2 ranks


def two_regimes(s: float) -> float:
    """A shared-memory Bcast's shape: flat, then a copy at 0.25 ns/B."""
    return 300.0 + 0.01 * s if s <= 4096 else 1000.0 + 0.25 * s


def collective_doc(time: Any, op: str = "bcast", seed: int = 5) -> dict[str, Any]:
    rng = random.Random(seed)
    points = [point(op, s, [noisy(rng, time(s), rel=0.0), noisy(rng, time(s), rel=0.0)])
              for s in SIZES]
    points.append({**point("barrier", 0, [[800.0] * 9, [800.0] * 9]), "size_bytes": None})
    return {"points": points, "environment": {"mpi_implementation": "mpich", "nodes": 1}}


def test_the_direct_fit_recovers_each_regime_and_predicts_it() -> None:
    fit = fit_document(collective_doc(two_regimes), "direct", FitOptions(replicates=20))
    model = fit.model
    bcast = model.find("bcast", 2)
    assert bcast is not None and len(bcast.line.segments) == 2
    first, second = bcast.line.segments
    assert first.alpha_ns == pytest.approx(300.0) and first.beta_ns_per_byte == pytest.approx(0.01)
    assert second.alpha_ns == pytest.approx(1000.0)
    assert second.beta_ns_per_byte == pytest.approx(0.25)
    assert model.find("barrier", 2).time_ns(0) == pytest.approx(800.0)
    assert max(abs(r["rel_error"]) for r in fit.residuals) < 1e-9
    doc = model_document(fit, {"points": [{"nprocs": 2}]}, "synthetic",
                         FitOptions(replicates=20), "0.1.0")  # fmt: skip
    validate(doc, "direct")
    again = model_of(doc)
    assert again.find("bcast", 2).time_ns(65536) == pytest.approx(two_regimes(65536))
    with pytest.raises(MpiscopeError, match="no fit of bcast on 4 ranks"):
        again.collective("bcast", 4)
    with pytest.raises(MpiscopeError, match="no point-to-point time"):
        again.time_ns(1)
    rows = check_points(again, collective_doc(two_regimes))
    assert {r.op for r in rows} == {"bcast", "barrier"}
    assert all(abs(r.error("bcast:direct" if r.op == "bcast" else "barrier:direct")) < 1e-9
               for r in rows)  # fmt: skip


def crossing(s: float) -> float:
    """A regime whose line crosses zero below its sizes (alltoall's large
    messages here): flat, then a steeper line with a negative intercept."""
    return 500.0 + 0.02 * s if s <= 4096 else -5000.0 + 0.5 * s


def test_a_later_regime_keeps_its_negative_intercept() -> None:
    fit = fit_document(collective_doc(crossing), "direct", FitOptions(replicates=20))
    first, second = fit.model.find("bcast", 2).line.segments
    assert first.alpha_ns == pytest.approx(500.0)
    assert second.alpha_ns == pytest.approx(-5000.0) and second.beta_ns_per_byte == 0.5
    assert max(abs(r["rel_error"]) for r in fit.residuals) < 1e-9
    doc = model_document(fit, {"points": [{"nprocs": 2}]}, "synthetic",
                         FitOptions(replicates=20), "0.1.0")  # fmt: skip
    validate(doc, "direct")  # the schema takes it for a direct fit ...
    hockney = {**doc, "model": "hockney", "hockney": {"segments": doc["direct"]["collectives"][0]
                                                      ["segments"]}}  # fmt: skip
    with pytest.raises(MpiscopeError, match="alpha_ns"):
        validate(hockney, "hockney")  # ... not for a message time
    collective = model_of(doc).find("bcast", 2)
    end, start = first.to_bytes, second.from_bytes
    middle = (end + start) / 2  # not measured: on the line joining the regimes' ends
    assert collective.time_ns(middle) == pytest.approx((crossing(end) + crossing(start)) / 2)
    assert collective.time_ns(start) == pytest.approx(crossing(start))


def test_a_collective_faster_than_every_algorithm_is_named() -> None:
    beaten = CheckRow("bcast", 1, 2, 300.0, {"bcast:linear": 1000.0, "bcast:binomial": 1000.0})
    near = CheckRow("bcast", 1024, 2, 950.0, {"bcast:linear": 1000.0, "bcast:binomial": 1000.0})
    slower = CheckRow("allreduce", 1, 2, 2000.0, {"allreduce:recursive_doubling": 1000.0})
    found = unpredictable([beaten, near, slower], fit_error=0.088)
    assert len(found) == 1 and found[0].op == "bcast" and found[0].sizes == (1,)
    assert found[0].factor == pytest.approx(1000.0 / 300.0)
    assert unpredictable([beaten], fit_error=3.0) == []  # within the model's own error
    assert "shared-memory" in mechanism({"mpi_implementation": "mpich", "nodes": 1})
    assert "hierarchical" in mechanism({"nodes": 4})


def mpiscope(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def test_check_names_it_and_the_direct_model_predicts(tmp_path: Path) -> None:
    """A ping-pong of 1 us + 0.1 ns/B predicts a 2-rank Bcast of 1 us; the
    measured one takes 300 ns: no point-to-point algorithm, one line."""
    options = FitOptions(replicates=20)
    p2p = fit_document(hockney_doc(lambda s: 1000.0 + 0.1 * s), "hockney", options)
    model = tmp_path / "hockney.json"
    model.write_text(json.dumps(model_document(p2p, {"points": [{"nprocs": 2}]}, "synthetic",
                                               options, "0.1.0")))  # fmt: skip
    measured = tmp_path / "measured.json"
    base = json.loads(SAMPLE.read_text())  # a real result: its environment and fields
    template = {k: v for k, v in base["points"][0].items() if k not in ("raw", "per_rank")}
    base["points"] = [{**template, **{k: v for k, v in p.items() if k not in ("per_rank", "raw")}}
                      for p in collective_doc(two_regimes)["points"][:-1]]  # fmt: skip
    measured.write_text(json.dumps(base))
    check = mpiscope("model", "check", str(model), str(measured), cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    named = [line for line in check.stdout.splitlines() if "faster than every" in line]
    assert len(named) == 1 and named[0].startswith("bcast on 2 ranks is up to")
    assert "--model direct" in named[0] and "shared-memory" in named[0]
    fit = mpiscope("model", "fit", str(measured), "--model", "direct", "--out", "d.json",
                   "--bootstrap", "20", cwd=tmp_path)  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    assert "bcast on 2 ranks: T(m) = a + b m per regime" in fit.stdout
    predict = mpiscope("model", "predict", "d.json", "bcast", "--np", "2", "--sizes", "64K",
                       cwd=tmp_path)  # fmt: skip
    assert predict.returncode == 0 and "bcast:direct" in predict.stdout, predict.stderr
    assert "17.4 us" in predict.stdout  # 1000 + 0.25 * 65536 ns
    again = mpiscope("model", "check", "d.json", str(measured), cwd=tmp_path)
    assert "bcast: largest |error| 0%" in again.stdout, again.stdout
    wrong = mpiscope("model", "predict", "d.json", "bcast", "--np", "4", cwd=tmp_path)
    assert wrong.returncode == 2 and len(wrong.stderr.strip().splitlines()) == 1
    platform = mpiscope("model", "platform", "d.json", "-o", "p.xml", cwd=tmp_path)
    assert platform.returncode == 2 and "no point-to-point time" in platform.stderr


RUNS = Path(__file__).resolve().parents[1] / "data" / "golden" / "runs.json"  # 3 real runs


def test_a_series_of_runs_is_fitted_and_checked_on_the_median_of_its_runs() -> None:
    """Not on one run's points (the last run's, one per size): a model of
    one run follows that run's state of the machine."""
    doc = json.loads(RUNS.read_text())
    summary = {(r["op"], r["size_bytes"]): r["median_ns"] for r in doc["run_summary"]}
    last = {(p["op"], p["size_bytes"]): p["median_ns"] for p in doc["points"]}
    assert any(last[k] != pytest.approx(v) for k, v in summary.items())  # the runs differ
    folded = across_runs(doc)
    assert len(folded["points"]) == len(summary) < len(doc["points"])
    assert all("raw" not in p and "run" not in p for p in folded["points"])
    fit = fit_document(doc, "direct", FitOptions(replicates=20))
    read = {(r["op"], r["size_bytes"]): r["measured_ns"] for r in fit.residuals}
    assert read == pytest.approx({k: v for k, v in summary.items() if k[0] != "barrier"}
                                 | {("barrier", 0): summary[("barrier", None)]})  # fmt: skip
    rows = check_points(fit.model, doc)
    assert len(rows) == len(summary)
    assert {(r.op, r.size_bytes or None): r.measured_ns for r in rows} == pytest.approx(summary)
    one_run = {**doc, "run_summary": []}  # a single run is read as it is
    assert across_runs(one_run) is one_run


def test_runs_in_two_states_of_the_machine_are_said() -> None:
    doc = json.loads(RUNS.read_text())
    assert state_change(doc, "the runs") is None  # they agree
    rows = doc["run_summary"]
    split = [dict(r, disagree=True, disagree_reasons=["modes"]) if i % 4 == 0 else r
             for i, r in enumerate(rows)]  # fmt: skip
    line = state_change({**doc, "run_summary": split}, "the runs of r.json")
    worst = max(split[::4], key=lambda r: r["run_max_ns"] / r["run_min_ns"])
    assert line is not None and line.startswith(
        f"the runs of r.json form groups that do not overlap at {len(split[::4])} of {len(rows)} "
        f"points ({worst['op']} ")
    assert "the machine changed state between runs" in line
    fewer = [dict(r, disagree_reasons=["modes"]) if i == 0 else r for i, r in enumerate(rows)]
    assert state_change({**doc, "run_summary": fewer}, "the runs") is None  # one point: noise
    fit = fit_document({**doc, "run_summary": split}, "direct", FitOptions(replicates=20))
    assert any(w.startswith("the runs the model was fitted on form groups") for w in fit.warnings)
