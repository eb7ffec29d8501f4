"""Noise figures and the HTML page (no MPI)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.noise import figures
from mpiscope.noise.html import render_noise_html
from mpiscope.noise.probes import read_probe_dir
from test_noise_document import make_run, make_verdict
from test_noise_probes import write_probe_dir

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def probe(tmp_path: Path) -> dict[str, Any]:
    return read_probe_dir(write_probe_dir(tmp_path / "probe"))


def _png(path: Path) -> bytes:
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 5000
    return data


def _samples() -> dict[str, list[float]]:
    rng = np.random.default_rng(2)
    return {
        "A": list(rng.normal(10.0, 0.1, 30)),
        "B": list(rng.normal(10.02, 0.1, 30)),
        "C": list(rng.normal(10.5, 0.1, 30)),
    }


def test_boxplots(tmp_path: Path) -> None:
    path = figures.boxplots(_samples(), "A", tmp_path / "box.png")
    assert path == tmp_path / "box.png"
    _png(path)
    fig = figures.boxplots_figure(_samples(), "A")
    assert len(fig.axes) == 1
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "B", "C"]
    assert "median" in ax.get_ylabel() and ax.get_title()
    # The shaded band is the baseline's Tukey band, normalised to its median.
    base = np.asarray(_samples()["A"]) / np.median(_samples()["A"])
    q25, q75 = np.percentile(base, [25, 75])
    band = ax.patches[0].get_extents().transformed(ax.transData.inverted())
    assert band.y0 == pytest.approx(q25 - 1.5 * (q75 - q25), rel=1e-6)
    assert band.y1 == pytest.approx(q75 + 1.5 * (q75 - q25), rel=1e-6)


def test_boxplots_refuses_an_unknown_baseline(tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="baseline 'Z'"):
        figures.boxplots(_samples(), "Z", tmp_path / "box.png")


def test_mean_vs_gap(tmp_path: Path) -> None:
    verdicts = [make_verdict(), make_verdict()]
    _png(figures.mean_vs_gap(verdicts, ["C vs A", "C' vs A"], tmp_path / "gap.png"))
    fig = figures.mean_vs_gap_figure(verdicts, ["C vs A", "C' vs A"])
    assert len(fig.axes) == 1
    heights = sorted(round(p.get_height(), 9) for p in fig.axes[0].patches)
    gap = verdicts[0]["criteria"]["ci_overlap"]["boundary_gap"] * 100
    assert heights[0] == pytest.approx(gap)  # in % of the baseline median
    assert "%" in fig.axes[0].get_ylabel()
    with pytest.raises(MpiscopeError, match="one label per verdict"):
        figures.mean_vs_gap(verdicts, ["only one"], tmp_path / "x.png")


def test_ftq_spectrum_has_one_panel_per_worker(tmp_path: Path, probe: dict[str, Any]) -> None:
    _png(figures.ftq_spectrum(probe, tmp_path / "ftq.png"))
    fig = figures.ftq_spectrum_figure(probe)
    assert len(fig.axes) == len(probe["workers"]) == 2
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert any(label.startswith("10 Hz") for label in labels)
    assert fig.axes[1].texts == [] or all("Hz" not in t.get_text() for t in fig.axes[1].texts)
    assert fig.axes[-1].get_xlabel() == "frequency (Hz)"


def test_selfish_timeline_has_one_panel_per_worker(tmp_path: Path, probe: dict[str, Any]) -> None:
    _png(figures.selfish_timeline(probe, tmp_path / "selfish.png"))
    fig = figures.selfish_timeline_figure(probe)
    assert len(fig.axes) == 2
    assert "period 100 ms" in fig.axes[0].get_title()
    assert "(s" in fig.axes[-1].get_xlabel() and "µs" in fig.axes[0].get_ylabel()


def test_probe_figures_refuse_an_empty_probe(tmp_path: Path) -> None:
    with pytest.raises(MpiscopeError, match="no workers"):
        figures.ftq_spectrum({"workers": []}, tmp_path / "x.png")


def _images(page: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"', page)]


def test_html_of_an_alternating_run() -> None:
    page = render_noise_html(make_run())
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    images = _images(page)
    assert len(images) == 2 and all(image.startswith(PNG_MAGIC) for image in images)
    assert "<table>" in page and "mann_whitney" in page and "Slowdown detected by" in page
    assert "<p>Limit: " in page  # every verdict states what the run rules out
    assert 'src="http' not in page  # standalone


def test_html_of_several_documents(probe: dict[str, Any]) -> None:
    runs = [make_run("separate"), make_run("separate")]
    runs[1]["layout"] = "A"
    page = render_noise_html([*runs, make_verdict(), probe])
    assert "Comparison with #1 barrier layout C (the baseline)" in page
    assert "noise-verdict: run-C.json against run-A.json" in page
    assert page.count("<h2>noise-probe") == 1 and "FWQ lost" in page
    # comparison: box + gap; each separate run: box; probe: spectrum + timeline
    assert len(_images(page)) == 2 + 2 + 2


def test_html_of_a_run_too_short_to_compare() -> None:
    run = make_run(packets=4)  # 2 baseline, 2 agent packets: fewer than 3 each
    page = render_noise_html(run)
    assert "No comparison" in page and "at least 3" in page


def test_html_refuses_unknown_kinds() -> None:
    with pytest.raises(MpiscopeError, match="cannot render"):
        render_noise_html({"kind": "result"})
    with pytest.raises(MpiscopeError, match="no noise document"):
        render_noise_html([])
