"""The trace's heat map (issue 15, "also" 2): each call's time split exactly
over the bins it spans, per rank and per function; the time not in MPI;
parts, unfinished calls, ranks without calls or files, one rank and a
thousand; the text, the pictures, the view's panel; one-line errors.

The expected bin times are computed here independently: by brute force
(the overlap of every call with every bin) from the in-memory merge
(:func:`mpiscope.trace.merge.load`), or by hand for a small trace."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mpiscope.errors import MpiscopeError
from mpiscope.trace.heatmap import (
    NOT_IN_MPI,
    compute_heatmap,
    heatmap_data,
    select_functions,
    split_time,
)
from mpiscope.trace.heatmap_text import render_text
from mpiscope.trace.merge import load
from mpiscope.trace.stream import open_stream
from trace_helpers import build_example, mpiscope, profile_or_fail, rec, write_rank

F_PART, F_COMPLETED = 0x2, 0x4
US = 1000
T0 = 1000  # the first stamp (a stamp of 0 is an unwritten slot): the trace's origin


def call(func: str, t0: int, t1: int, **kw: int) -> tuple:
    """A record at t0..t1 ns from the origin (t1 = 0: it had not returned)."""
    return rec(func, T0 + t0, T0 + t1 if t1 else 0, **kw)


def _overlap(starts: np.ndarray, ends: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Brute force: the overlap of each [start, end) with each bin, summed."""
    lo, hi = edges[:-1][None, :], edges[1:][None, :]
    s, e = np.asarray(starts)[:, None], np.asarray(ends)[:, None]
    return np.clip(np.minimum(e, hi) - np.maximum(s, lo), 0.0, None).sum(axis=0)


# --- the split ----------------------------------------------------------------

@pytest.mark.parametrize("bins", [1, 7, 64])
def test_split_equals_the_overlap_of_every_call_with_every_bin(bins: int) -> None:
    rng = np.random.default_rng(bins)
    start = rng.uniform(-50, 1000, 500)
    end = start + rng.exponential(80, 500) * (rng.random(500) < 0.9)  # some of length 0
    key = rng.integers(0, 3, 500)
    begin, width = 0.0, 900.0 / bins  # calls before and after the window too
    got = split_time(start, end, key, 3, begin, width, bins)
    edges = begin + width * np.arange(bins + 1)
    for k in range(3):
        want = _overlap(start[key == k], end[key == k], edges)
        np.testing.assert_allclose(got[k], want, rtol=1e-9, atol=1e-6)
        clipped = np.clip(end[key == k], 0, 900) - np.clip(start[key == k], 0, 900)
        assert got[k].sum() == pytest.approx(clipped.sum(), rel=1e-12)


def test_a_call_across_bins_is_split_at_their_edges() -> None:
    got = split_time(np.array([2.5]), np.array([5.25]), np.array([0]), 1, 0.0, 1.0, 10)[0]
    assert got.tolist() == [0, 0, 0.5, 1, 1, 0.25, 0, 0, 0, 0]


# --- synthetic traces ---------------------------------------------------------

def _two_ranks(directory: Path) -> Path:
    """Rank 0: Init, a send across bins, a Waitall with two parts, Finalize;
    rank 1: Init, a receive, a barrier, Finalize (times in ns)."""
    directory.mkdir()
    write_rank(directory, 0, 2, [
        call("MPI_Init", 0, 10 * US, comm=0),
        call("MPI_Send", 25 * US, 52_500, peer=1, tag=1, nbytes=8),
        call("MPI_Waitall", 60 * US, 70 * US, request=0),
        call("MPI_Waitall", 60 * US, 70 * US, request=0x91, flags=F_PART | F_COMPLETED),
        call("MPI_Waitall", 60 * US, 70 * US, request=0x92, flags=F_PART | F_COMPLETED),
        call("MPI_Finalize", 90 * US, 100 * US, comm=0)])
    write_rank(directory, 1, 2, [
        call("MPI_Init", 0, 20 * US, comm=0),
        call("MPI_Recv", 20 * US, 53 * US, peer=0, tag=1, nbytes=8),
        call("MPI_Barrier", 80 * US, 85 * US),
        call("MPI_Finalize", 85 * US, 100 * US, comm=0)])
    return directory


def test_bins_hold_each_calls_time_and_parts_count_once(tmp_path: Path) -> None:
    hm = compute_heatmap(open_stream(_two_ranks(tmp_path / "t")), bins=10, whole=True)
    assert (hm.begin_ns, hm.end_ns) == (0.0, 100 * US)  # 10 bins of 10 us
    us = np.round(hm.mpi_ns / US, 9)
    assert us[0].tolist() == [10, 0, 5, 10, 10, 2.5, 10, 0, 0, 10]  # Waitall once, not 3x
    assert us[1].tolist() == [10, 10, 10, 10, 10, 3, 0, 0, 10, 10]
    assert hm.calls.tolist() == [4, 4]
    assert np.round(hm.functions["MPI_Send"] / US, 9).tolist() == [0, 0, 5, 10, 10, 2.5,
                                                                   0, 0, 0, 0]
    assert hm.running_ns.sum(axis=1).tolist() == [100 * US, 100 * US]
    layers = {layer.label: layer.total_ns for layer in hm.layers(top=10)}
    assert layers[NOT_IN_MPI] == pytest.approx(2 * 100 * US - hm.mpi_ns.sum())
    assert sum(layers.values()) == pytest.approx(2 * 100 * US)  # every ns of every rank


def test_default_window_is_init_to_finalize_and_sums_match_the_merge(tmp_path: Path) -> None:
    trace = _two_ranks(tmp_path / "t")
    hm = compute_heatmap(open_stream(trace), bins=7)
    assert (hm.begin_ns, hm.end_ns) == (10 * US, 90 * US)  # first Init end, last Finalize start
    merged = load(trace)
    for tl in merged.timelines:
        main = tl.main
        want = _overlap(tl.start_ns[main], tl.end_ns[main], hm.edges_ns)
        np.testing.assert_allclose(hm.mpi_ns[tl.rank], want, rtol=1e-9)


def test_from_to_window_clips_the_calls(tmp_path: Path) -> None:
    trace = _two_ranks(tmp_path / "t")
    hm = compute_heatmap(open_stream(trace), bins=3, start_s=30e-6, end_s=60e-6)
    assert hm.mpi_ns[0].sum() == pytest.approx(52_500 - 30 * US)
    assert hm.mpi_ns[1].sum() == pytest.approx(53 * US - 30 * US)
    with pytest.raises(MpiscopeError, match="after the run's end"):
        compute_heatmap(open_stream(trace), bins=3, start_s=1.0)


def test_selection_by_name_pattern_and_class(tmp_path: Path) -> None:
    stream = open_stream(_two_ranks(tmp_path / "t"))
    send = select_functions(stream, ["send"])
    assert send.names == frozenset({"MPI_Send"})
    hm = compute_heatmap(stream, bins=10, selection=send, whole=True)
    assert hm.selected_ns.sum() == pytest.approx(27_500)
    assert hm.selected_ns[1].sum() == 0 and hm.mpi_ns[1].sum() > 0
    waits = select_functions(stream, ["MPI_Wait*"])
    assert waits.names == frozenset({"MPI_Waitall", "MPI_Wait"})
    coll = compute_heatmap(stream, 10, select_functions(stream, classes=["collective"]),
                           whole=True)
    assert coll.selected_ns.sum() == pytest.approx(5 * US)
    labels = [layer.label for layer in coll.layers(top=3)]
    assert labels == ["MPI_Barrier", "other MPI", NOT_IN_MPI]
    with pytest.raises(MpiscopeError, match="no function of the trace matches 'MPI_Sned'"):
        select_functions(stream, ["MPI_Sned"])
    with pytest.raises(MpiscopeError, match="unknown class 'colective'"):
        select_functions(stream, classes=["colective"])


def test_unfinished_call_lasts_to_the_ranks_end_and_silent_ranks_have_no_data(
        tmp_path: Path) -> None:
    """Rank 0 killed inside an MPI_Recv (no exit stamp, no END chunk); rank 1
    recorded nothing; rank 2 has no file."""
    d = tmp_path / "t"
    d.mkdir()
    write_rank(d, 0, 3, [call("MPI_Init", 0, 10 * US, comm=0),
                         call("MPI_Barrier", 20 * US, 30 * US),
                         call("MPI_Recv", 40 * US, 0, peer=1, tag=1)], end=None)
    write_rank(d, 1, 3, [])
    hm = compute_heatmap(open_stream(d), bins=4, whole=True)
    assert hm.unfinished == 1
    assert hm.end_ns == 40 * US  # the rank's last time: the unfinished call's start
    assert hm.mpi_ns[0].sum() == pytest.approx(20 * US)  # Init and Barrier; Recv ends at 40
    rows = hm.rows(10)
    assert rows.labels == ["rank 0", "rank 1 (no calls)", "rank 2 (no file)"]
    assert np.isnan(rows.share[1:]).all() and np.isfinite(rows.share[0]).all()
    text = render_text(hm, top=0)
    assert "no file for rank(s) 2" in text and "no call recorded on rank(s) 1" in text
    assert "1 call(s) had not returned" in text


def test_a_rank_of_two_threads_shares_their_mean(tmp_path: Path) -> None:
    """Thread 0: Init, Barrier, Finalize (40 us in MPI); thread 1: Send, Recv
    (30 us); 100 us run: the rank's share is 70 / (2 x 100)."""
    d = tmp_path / "t"
    d.mkdir()
    path = write_rank(d, 0, 1, [
        call("MPI_Init", 0, 10 * US, comm=0), call("MPI_Barrier", 20 * US, 40 * US),
        call("MPI_Send", 30 * US, 50 * US, peer=0, tag=1), call("MPI_Recv", 60 * US, 70 * US,
                                                                peer=0, tag=1),
        call("MPI_Finalize", 90 * US, 100 * US, comm=0)], block=2)
    data = bytearray(path.read_bytes())
    at = -1
    for thread, first in ((0, 0), (1, 0), (0, 2)):  # the 3 blocks: thread index, sequence
        at = data.index(b"THRD", at + 1)
        data[at + 16:at + 24] = thread.to_bytes(4, "little") + bytes(4)
        data[at + 32:at + 40] = first.to_bytes(8, "little")
    path.write_bytes(bytes(data))
    hm = compute_heatmap(open_stream(d), bins=1, whole=True)
    assert hm.threads.tolist() == [2] and hm.mpi_ns.sum() == pytest.approx(70 * US)
    rows = hm.rows(4)
    assert rows.labels == ["rank 0 (2 threads)"] and rows.totals == [pytest.approx(0.35)]
    assert "several threads" in " ".join(hm.notes(rows))


def test_the_tracers_clock_syncs_are_not_the_programs_time(tmp_path: Path) -> None:
    """Each rank: Init 0-1 ms, the tracer's start sync 1-2 ms (after Init
    returns), a 1 ms Barrier at 3 ms, the end sync 8-9 ms (before Finalize
    is entered), Finalize 9-10 ms; the syncs last 1 ms (write_rank)."""
    d = tmp_path / "t"
    d.mkdir()
    ms = 1_000_000
    for rank in (0, 1):
        write_rank(d, rank, 2, [call("MPI_Init", 0, 1 * ms, comm=0),
                                call("MPI_Barrier", 3 * ms, 4 * ms),
                                call("MPI_Finalize", 9 * ms, 10 * ms, comm=0)],
                   clocks=[(0, 0.0, T0 + 2 * ms), (1, 0.0, T0 + 9 * ms)])
    hm = compute_heatmap(open_stream(d), bins=8)  # 1..9 ms
    assert (hm.begin_ns, hm.end_ns) == (1 * ms, 9 * ms)
    assert np.round(hm.sync_ns / ms, 9).tolist() == [2, 0, 0, 0, 0, 0, 0, 2]
    assert np.round(hm.running_ns[0] / ms, 9).tolist() == [0, 1, 1, 1, 1, 1, 1, 0]
    rows = hm.rows(2)
    assert np.isnan(rows.share[0][[0, 7]]).all()  # in the sync: not running the program
    assert rows.totals[0] == pytest.approx(1 / 6)  # the Barrier over 6 ms of the program
    layers = {layer.label: layer.total_ns for layer in hm.layers(top=3)}
    assert layers["tracer's clock sync"] == pytest.approx(4 * ms)
    assert layers[NOT_IN_MPI] == pytest.approx(2 * 5 * ms)
    assert sum(layers.values()) == pytest.approx(hm.ranks_ns.sum()) == pytest.approx(16 * ms)


def test_one_rank(tmp_path: Path) -> None:
    d = tmp_path / "t"
    d.mkdir()
    write_rank(d, 0, 1, [call("MPI_Init", 0, 1 * US, comm=0),
                         call("MPI_Comm_rank", 3 * US, 4 * US),
                         call("MPI_Finalize", 9 * US, 10 * US, comm=0)])
    hm = compute_heatmap(open_stream(d), bins=2)
    assert hm.mpi_ns.tolist() == [[1 * US, 0.0]]  # 1..9 us: bins 1..5, 5..9
    lines = render_text(hm, top=0, title=False).splitlines()
    assert [line.split("|")[1] for line in lines if line.startswith("rank 0")] == ["▂ "]  # 1/4


def test_a_thousand_ranks_are_grouped_into_rows(tmp_path: Path) -> None:
    """Rank r is in MPI for r ns of each 1000: a group's share is its ranks' sum."""
    d = tmp_path / "t"
    d.mkdir()
    n = 1000
    for r in range(n):
        write_rank(d, r, n, [call("MPI_Init", 0, 1000, comm=0),
                             call("MPI_Barrier", 1000, 1000 + r),
                             call("MPI_Finalize", 2000, 3000, comm=0)])
    hm = compute_heatmap(open_stream(d), bins=4)
    rows = hm.rows(200)
    assert rows.group == 5 and len(rows.labels) == 200
    assert rows.labels[0] == "ranks 0-4" and rows.labels[-1] == "ranks 995-999"
    share = [float(np.nansum(hm.mpi_ns[g * 5:g * 5 + 5])) / 5000 for g in range(200)]
    assert rows.totals == pytest.approx(share)
    data = heatmap_data(hm, 200, 3)
    assert "1000 ranks in 200 rows of 5" in data["note"]
    assert len(data["values"]) == 200 and len(data["values"][0]) == 4


# --- the command ----------------------------------------------------------------

def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mpiscope", "trace", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_text_and_pictures(tmp_path: Path) -> None:
    _two_ranks(tmp_path / "t")
    out = _cli("heatmap", "t", "--bins", "10", "--whole", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = {line.split("|")[0].strip(): line.split("|")[1] for line in out.stdout.splitlines()
            if "|" in line}
    assert rows["rank 0"] == "█ ▄██▂█  █" and rows["rank 1"] == "█████▃  ██"
    assert len(rows["MPI_Send"]) == 10
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")):
        run = _cli("heatmap", "t", "-o", f"h{suffix}", cwd=tmp_path)
        assert run.returncode == 0 and run.stdout == "", run.stderr
        assert (tmp_path / f"h{suffix}").read_bytes().startswith(magic)
    run = _cli("heatmap", "t", "-o", "h.html", "--bins", "10", "--whole", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    page = (tmp_path / "h.html").read_text()
    data = json.loads(re.search(r"const HEATMAP = (\{.*?\});", page).group(1))
    assert data["values"][0] == [1.0, 0.0, 0.5, 1.0, 1.0, 0.25, 1.0, 0.0, 0.0, 1.0]
    run = _cli("heatmap", "t", "-o", "h.txt", "--ascii", cwd=tmp_path)
    assert run.returncode == 0 and "rank 1" in (tmp_path / "h.txt").read_text()


@pytest.mark.parametrize("args, message", [
    (["heatmap", "t", "--function", "MPI_Nothing"], "no function of the trace matches"),
    (["heatmap", "t", "--class", "nothing"], "unknown class"),
    (["heatmap", "t", "--bins", "0"], "--bins: must be at least 1, not 0"),
    (["heatmap", "t", "-o", "h.jpg"], "chosen by the suffix"),
    (["heatmap", "t", "--from", "5e-5", "--to", "1e-5"], "is not before --to"),
    (["heatmap", "t", "--whole", "--from", "1"], "choose the window twice"),
    (["heatmap", "nowhere"], "not a trace directory"),
    (["heatmap", "t", "-o", "no/such/dir/h.png"], "cannot write"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    _two_ranks(tmp_path / "t")
    run = _cli(*args, cwd=tmp_path)
    assert run.returncode != 0
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("mpiscope: error: "), run.stderr
    assert message in run.stderr


# --- a real trace ---------------------------------------------------------------

@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """late_p2p on 2 ranks under MPICH: rank 0 sends 100 ms late, twice."""
    profile_or_fail("mpich")
    where = tmp_path_factory.mktemp("real")
    exe = build_example("late_p2p", "mpich", where)
    run = mpiscope("trace", "--mpi", "mpich", "--np", "2", "--records", "65536", "-o", "t",
                   str(exe), "--late", "send", "--delay-ms", "100", "--trials", "2",
                   "--sizes", "8", mpi="mpich", cwd=where)
    assert run.returncode == 0, run.stderr
    return where


@pytest.mark.mpi
def test_real_trace_bins_sum_to_the_calls(real: Path) -> None:
    trace = real / "t"
    hm = compute_heatmap(open_stream(trace), bins=50, whole=True)
    merged = load(trace)
    per_function: dict[str, float] = {}
    for tl in merged.timelines:
        main = tl.main
        durations = tl.end_ns[main] - tl.start_ns[main]
        assert hm.mpi_ns[tl.rank].sum() == pytest.approx(float(durations.sum()), rel=1e-9)
        np.testing.assert_allclose(
            hm.mpi_ns[tl.rank], _overlap(tl.start_ns[main], tl.end_ns[main], hm.edges_ns),
            rtol=1e-9, atol=1e-3)
        names = np.array(tl.source.functions)[tl.records["func"][main]]
        for name, d in zip(names, durations, strict=True):
            per_function[name] = per_function.get(name, 0.0) + float(d)
    assert {n: float(v.sum()) for n, v in hm.functions.items()} == pytest.approx(
        {n: v for n, v in per_function.items() if v > 0}, rel=1e-9)
    # rank 1 waits in MPI_Recv for each late send (late sender): 2 x 100 ms
    assert hm.functions["MPI_Recv"].sum() > 2 * 0.05e9


@pytest.mark.mpi
@pytest.mark.browser
def test_real_trace_summary_and_view_carry_the_heat_map(real: Path) -> None:
    summary = _cli("summary", "t", cwd=real)
    assert summary.returncode == 0, summary.stderr
    section = summary.stdout.split("Time in MPI over the run")[1]
    assert sum(line.startswith(("rank 0 ", "rank 1 ")) for line in section.splitlines()) == 2
    view = mpiscope("trace", "view", "t", "-o", "t.html", mpi="mpich", cwd=real)
    assert view.returncode == 0, view.stderr
    page = (real / "t.html").read_text()
    assert page.index('id="heatmap"') < page.index('id="tl"')
    from browser import Chromium

    browser = Chromium(width=1200, height=800)
    try:
        opened = browser.open((real / "t.html").as_uri())
        assert not opened.errors, opened.errors
        state = json.loads(browser.evaluate("JSON.stringify(window.heatmap.state())"))
        data = json.loads(browser.evaluate("JSON.stringify(window.heatmap.data)"))
        assert state["cells"] == len(data["rows"]) * len(data["values"][0]) == 2 * 200
        # a click on rank 1's 100th cell shows that bin in the timeline
        box = browser.evaluate(
            "(() => { const c = document.getElementById('hm'), h = window.heatmap;"
            " const w = c.clientWidth - h.left - 10, x = h.left + (99.5 / 200) * w,"
            " y = h.top + 1.5 * h.rowHeight;"
            " c.dispatchEvent(new MouseEvent('click', {clientX: c.getBoundingClientRect().left"
            " + x, clientY: c.getBoundingClientRect().top + y, bubbles: true}));"
            " return JSON.stringify(window.timeline.state()); })()")
        view_state = json.loads(box)
        width = (data["end_ns"] - data["begin_ns"]) / 200
        assert view_state["t0"] == pytest.approx(data["begin_ns"] + 99 * width)
        assert view_state["t1"] == pytest.approx(data["begin_ns"] + 100 * width)
    finally:
        browser.close()


# --- damaged traces -------------------------------------------------------------

def test_corrupt_traces_give_a_heat_map_or_one_error(tmp_path: Path) -> None:
    """The corruptions of the reader's fuzz test: a heat map (finite, not
    negative, printable) or an MpiscopeError, nothing else."""
    import random

    from test_trace_fuzz import corrupt, valid_trace

    files = valid_trace(tmp_path / "t")
    originals = [f.read_bytes() for f in files]
    rng = random.Random(15)
    errors = 0
    for _ in range(200):
        which = rng.randrange(2)
        files[which].write_bytes(corrupt(originals[which], rng))
        try:
            hm = compute_heatmap(open_stream(files[0].parent), bins=16)
        except MpiscopeError:
            errors += 1
        else:
            assert np.isfinite(hm.mpi_ns).all() and np.isfinite(hm.running_ns).all()
            assert (hm.mpi_ns >= 0).all() and (hm.selected_ns <= hm.mpi_ns + 1e-6).all()
            render_text(hm)
            json.dumps(heatmap_data(hm, 8, 3), allow_nan=False)
        finally:
            files[which].write_bytes(originals[which])
    assert errors < 200  # most corruptions leave a readable trace
