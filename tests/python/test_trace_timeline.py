"""The HTML timeline in a real browser (issue 15 defect 4): drawn for the
visible range, ticks that resolve at every zoom, arrows with heads that are
bundled when many, a legend of the colors used, a first view on the
communication. Chromium as in test_html.py (browser.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser import Chromium
from mpiscope.trace.html import BUNDLE_AT, write_html
from mpiscope.trace.merge import load
from trace_helpers import rec, write_rank


def _trace(directory: Path, exchanges: int) -> Path:
    """Init 0..1 ms, `exchanges` ping-pongs of 1.7 us calls 10 us apart, Finalize at 1 s."""
    directory.mkdir()
    for rank in (0, 1):
        out = [rec("MPI_Init", 1, 1_000_000, comm=0)]
        t = 1_000_000
        for k in range(exchanges):
            first, second = ("MPI_Send", "MPI_Recv") if rank == 0 else ("MPI_Recv", "MPI_Send")
            out += [rec(first, t, t + 1700, peer=1 - rank, tag=k % 5, nbytes=8),
                    rec(second, t + 3000, t + 4700, peer=1 - rank, tag=k % 5, nbytes=8)]
            t += 10_000
        out.append(rec("MPI_Barrier", t, t + 2000))
        out.append(rec("MPI_Finalize", 1_000_000_000, 1_000_100_000, comm=0))
        write_rank(directory, rank, 2, out)
    return directory


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    browser = Chromium(width=1300, height=500)
    try:
        yield browser
    finally:
        browser.close()


def _open(chromium: Chromium, tmp_path: Path, exchanges: int) -> dict:
    page = tmp_path / "t.html"
    write_html(load(_trace(tmp_path / "t", exchanges)), page)
    load_ = chromium.open(page.as_uri())
    assert not load_.errors, load_.errors
    return _state(chromium)


def _state(chromium: Chromium) -> dict:
    return json.loads(chromium.evaluate("JSON.stringify(window.timeline.state())"))


def test_first_view_is_the_communication_and_the_legend_has_every_colour(
        chromium: Chromium, tmp_path: Path) -> None:
    state = _open(chromium, tmp_path, 20)
    # communication: 1 ms to 1.2 ms, not Init (0..1 ms) nor Finalize (1 s)
    assert 0.99e6 < state["t0"] < 1.0e6 and 1.2e6 < state["t1"] < 1.21e6
    assert state["arrows"] == 40 and state["bundles"] == 0
    legend = chromium.evaluate("document.getElementById('legend').textContent")
    kinds = json.loads(chromium.evaluate("JSON.stringify(window.timeline.data.kinds)"))
    assert {k for k, _ in kinds} == {"init/finalize", "send", "recv", "collective"}
    assert all(k in legend for k, _ in kinds)


@pytest.mark.parametrize("span", [1e3, 1e9])
def test_ticks_resolve_at_every_zoom(chromium: Chromium, tmp_path: Path, span: float) -> None:
    _open(chromium, tmp_path, 20)
    chromium.evaluate(f"window.timeline.view(1.0e6 + 500, 1.0e6 + 500 + {span})")
    ticks = _state(chromium)["ticks"]
    assert len(ticks) >= 5 and len(set(ticks)) == len(ticks), ticks


def test_bars_at_true_width_when_zoomed(chromium: Chromium, tmp_path: Path) -> None:
    """A 1.7 us call over a 10 us view is 17% of the width, not a baked minimum."""
    _open(chromium, tmp_path, 20)
    chromium.evaluate("window.timeline.view(1.0e6 - 1000, 1.0e6 + 9000)")
    state = _state(chromium)
    assert state["bars"] >= 2 and state["bins"] == 0
    width = chromium.evaluate("document.getElementById('tl').clientWidth - 140")
    png = chromium.screenshot()
    from io import BytesIO

    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(BytesIO(png)).convert("RGB"), dtype=int)
    blue = (abs(pixels - [0x1f, 0x77, 0xb4]).sum(axis=2) < 30).sum(axis=1).max()
    assert abs(blue - 0.17 * width) < 0.03 * width, (blue, width)


def test_many_calls_and_arrows_are_binned_and_bundled(chromium: Chromium,
                                                      tmp_path: Path) -> None:
    state = _open(chromium, tmp_path, 3000)
    assert state["arrows"] == 6000 > BUNDLE_AT
    assert 0 < state["bundles"] <= BUNDLE_AT and state["bins"] > 0 and state["bars"] == 0


def test_collective_links_are_drawn_and_can_be_hidden(chromium: Chromium, tmp_path: Path) -> None:
    """The closing MPI_Barrier is a collective instance: an arrow from the
    last member to arrive to the other's completion, in its own color, in
    the legend, and hidden by its checkbox (it was never drawn)."""
    state = _open(chromium, tmp_path, 3)
    links = json.loads(chromium.evaluate("JSON.stringify(window.timeline.data.links)"))
    assert len(links["s"]) == 1 and links["r"][0] > links["s"][0]
    assert state["links"] == 1 and state["arrows"] == 6
    legend = chromium.evaluate("document.getElementById('legend').textContent")
    assert "collective: last to arrive" in legend and "one-sided" not in legend
    chromium.evaluate("const c = document.getElementById('links'); c.checked = false; "
                      "c.dispatchEvent(new Event('change')); 0")
    state = _state(chromium)
    assert state["links"] == 0 and state["arrows"] == 6
