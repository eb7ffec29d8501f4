"""``mpiscope model`` from the command line: one-line errors, predict,
check and platform on a model document, the platform accepted by smpirun
(a tiny simulated ping-pong), and one real 2-rank ``model measure``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from model_helpers import hockney_doc, loggp_doc
from mpiscope.models.document import fit_document, model_document
from mpiscope.models.fit import FitOptions
from test_smpi import needs_smpi

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "sample-result.json"  # bcast on 2 ranks


def mpiscope(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip


def one_error_line(proc: subprocess.CompletedProcess[str], text: str) -> None:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpiscope: error: "), proc.stderr
    assert text in lines[0], lines[0]


def write_model(tmp: Path, doc: dict[str, Any], kind: str = "hockney") -> Path:
    options = FitOptions(replicates=20)
    fit = fit_document(doc, kind, options)
    path = tmp / f"{kind}.json"
    path.write_text(json.dumps(model_document(fit, {"points": [{"nprocs": 2}]}, "synthetic",
                                              options, "0.1.0")))  # fmt: skip
    return path


def regimes(s: float) -> float:
    return 1000.0 + 0.5 * s if s <= 1024 else 5000.0 + 0.1 * s


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["model"], "model needs a subcommand"),
        (["model", "fit", "missing.json", "--model", "hockney", "--out", "m.json"],
         "missing.json"),
        (["model", "fit", str(SAMPLE), "--model", "nope", "--out", "m.json"],
         "unknown model 'nope'"),
        (["model", "fit", str(SAMPLE), "--model", "hockney", "--out", "m.json"],
         "no ping-pong between ranks 0 and 1"),
        (["model", "fit", str(SAMPLE), "--model", "lmo", "--out", "m.json"],
         "LMO needs one-to-two experiments on 3 ranks at least; this document was measured on 2"),
        (["model", "fit", str(SAMPLE), "--model", "hockney", "--out", "m.json", "--statistic",
          "mean"], "unknown statistic 'mean'"),
        (["model", "predict", str(SAMPLE), "bcast:linear", "--np", "4"], "has kind None"),
        (["model", "measure", "--np", "2", "--lmo", "--out", "x.json"], "--lmo needs 3 ranks"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], text: str) -> None:
    one_error_line(mpiscope(*args, cwd=tmp_path), text)


def test_predict_check_and_platform(tmp_path: Path) -> None:
    model = write_model(tmp_path, hockney_doc(regimes))
    proc = mpiscope("model", "predict", str(model), "bcast:binomial,alltoall:bruck,alltoall:plp",
                    "--np", "8", "--sizes", "1K", "--ranks-per-node", "4", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "bcast:binomial" in proc.stdout and "alltoall:plp" in proc.stdout
    one_error_line(mpiscope("model", "predict", str(model), "bcast:tree", "--np", "4",
                            cwd=tmp_path), "unknown collective algorithm 'bcast:tree'")
    proc = mpiscope("model", "check", str(model), str(SAMPLE), "--plot", "c.png", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "bcast: predicted vs measured" in proc.stdout and (tmp_path / "c.png").stat().st_size
    proc = mpiscope("model", "platform", str(model), "-o", "p.xml", "--hosts", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert 'radical="0-1"' in (tmp_path / "p.xml").read_text()
    one_error_line(mpiscope("model", "platform", str(model), "-o", "p.xml", cwd=tmp_path),
                   "p.xml exists (use --force to overwrite)")


def test_loggp_document_predicts(tmp_path: Path) -> None:
    model = write_model(tmp_path, loggp_doc(500.0, 300.0, 200.0, 400.0, 0.2), "loggp")
    proc = mpiscope("model", "predict", str(model), "all", "--np", "4", "--sizes", "1,1K",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "barrier:dissemination" in proc.stdout


@needs_smpi
def test_the_platform_runs_in_smpi_and_reproduces_the_model(tmp_path: Path) -> None:
    """Simulated time is deterministic: the one-way time is the model's
    within 5% (what SMPI adds: its clock reads, the engine's bookkeeping),
    on both sides of the breakpoint (1 KiB, 1025 B)."""
    model = write_model(tmp_path, hockney_doc(regimes))
    assert mpiscope("model", "platform", str(model), "-o", "p.xml", "--hosts", "2",
                    cwd=tmp_path).returncode == 0  # fmt: skip
    proc = mpiscope("run", "pingpong", "--launcher", "smpi", "--platform", "p.xml", "--np", "2",
                    "--sizes", "16,1K,1025,64K", "--out", "sim.json", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    fitted = json.loads(model.read_text())["hockney"]["segments"]
    for point in json.loads((tmp_path / "sim.json").read_text())["points"]:
        s = point["size_bytes"]
        seg = next(x for x in fitted if x["to_bytes"] is None or s <= x["to_bytes"])
        expected = seg["alpha_ns"] + seg["beta_ns_per_byte"] * s
        assert point["median_ns"] / 2 == pytest.approx(expected, rel=0.05), s


@pytest.mark.mpi
def test_real_two_rank_measure_and_fits(tmp_path: Path) -> None:
    proc = mpiscope("model", "measure", "--np", "2", "--sizes", "1,1K,16K", "--max-launches",
                    "40", "--out", "pp.json", "--quiet", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("result: ") == 1, proc.stdout  # once, after the summary
    ops = {p["op"] for p in json.loads((tmp_path / "pp.json").read_text())["points"]}
    assert {"pingpong", "prtt", "overhead_send", "overhead_recv", "reduce_local"} <= ops
    for kind in ("hockney", "loggp", "plogp"):
        proc = mpiscope("model", "fit", "pp.json", "--model", kind, "--out", f"{kind}.json",
                        "--bootstrap", "20", cwd=tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "interval" in proc.stdout


def test_load_and_html_read_a_model_document(tmp_path: Path) -> None:
    from mpiscope import load

    model = write_model(tmp_path, hockney_doc(regimes))
    frame = load(model)
    assert "segment1.alpha_ns" in list(frame["name"]) and frame.attrs["fit"]["replicates"] == 20
    proc = mpiscope("html", str(model), "-o", "m.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "hockney model of synthetic" in (tmp_path / "m.html").read_text()
    one_error_line(mpiscope("html", str(model), str(SAMPLE), "-o", "x.html", cwd=tmp_path),
                   "give model documents or other documents")


@needs_smpi
def test_lmo_on_three_simulated_ranks(tmp_path: Path) -> None:
    """LMO needs 3 ranks or more: measured and fitted end to end on 3 ranks of
    one simulated 8-core node (cluster-8x8). Real ranks cannot do it here: 3
    busy-polling ranks on 2 cores leave 84-100% of window launches invalid
    (0 valid of 1,000 for a pair, measured on the 2-core VM), so the fit
    fails for want of data. The node is symmetric: every link reads the same."""
    proc = mpiscope("model", "measure", "--lmo", "--np", "3", "--launcher", "smpi", "--platform",
                    "cluster-8x8", "--sizes", "1,1K,16K", "--out", "lmo.json", "--quiet",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ops = {(p["op"], p.get("options", {}).get("pairs"))
           for p in json.loads((tmp_path / "lmo.json").read_text())["points"]}  # fmt: skip
    assert {("pingpong", "0-1"), ("pingpong", "0-2"), ("pingpong", "1-2")} <= ops
    fit = mpiscope("model", "fit", "lmo.json", "--model", "lmo", "--out", "model.json",
                   "--bootstrap", "20", cwd=tmp_path)  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    lmo = json.loads((tmp_path / "model.json").read_text())["lmo"]
    assert [p["rank"] for p in lmo["processors"]] == [0, 1, 2]
    links = {tuple(link["ranks"]): link for link in lmo["links"]}
    assert set(links) == {(0, 1), (0, 2), (1, 2)}
    first = links[(0, 1)]
    assert first["L_ns"] > 0 and first["inv_beta_ns_per_byte"] > 0
    for link in links.values():
        assert link["L_ns"] == pytest.approx(first["L_ns"], rel=1e-9)
        assert link["inv_beta_ns_per_byte"] == pytest.approx(first["inv_beta_ns_per_byte"],
                                                             rel=1e-9)  # fmt: skip
