"""mpiscope html: the page's content, and the page in a real headless browser.

The browser tests open the report in Debian's chromium (see browser.py and
`make chromium`): no console error, no request beyond the file itself and
its data: URLs, the expected tables in the DOM, every figure decoded, and
each figure's region of a screenshot far from blank. Two control pages
(a broken image, a script error) show that these checks can fail.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from browser import Chromium
from mpiscope.reports.html import render_html, result_warnings, write_html
from mpiscope.reports.ledger import result_ledgers
from mpiscope.reports.plots.data import plot_data
from mpiscope.reports.report import table_cells
from mpiscope.reports.tails import tail_rows
from mpiscope.result import Result, load_result, parse_result
from mpiscope_fakes import run_cli

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"

#: A plot region counts as drawn when at least this share of its pixels is
#: not the page's white (axes, ticks, text and lines), and some are colored.
MIN_INK = 0.03
MIN_COLOURED = 0.0003


def doc(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return data


def as_result(data: dict[str, Any], name: str = "r.json") -> Result:
    return parse_result(json.dumps(data), path=Path(name))


def warning_texts(result: Result) -> list[str]:
    return [w.text for w in result_warnings(result)]


# --- content ------------------------------------------------------------------------


def test_page_is_self_contained() -> None:
    page = render_html([load_result(GOLDEN / "default.json")])
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page, re.I)
    assert "@import" not in page and "url(http" not in page
    images = re.findall(r'<img alt="[^"]*" src="data:image/svg\+xml;base64,', page)
    assert len(images) == len(plot_data([load_result(GOLDEN / "default.json")]))


def test_page_holds_the_report_tables() -> None:
    result = load_result(GOLDEN / "default.json")
    page = render_html([result])
    titles, _aligns, rows = table_cells(result)
    assert page.count('<table class="points">') == 1
    for title in titles:
        assert f"<th>{title}</th>" in page
    assert page.count("<tr") >= len(rows)
    assert "MPICH Version:      5.0.2" in page  # the full library version, in <pre>
    assert "clock residual per rank" in page
    assert "mpiscope run barrier,bcast,allreduce" in page


def quiet_setup(data: dict[str, Any]) -> dict[str, Any]:
    """A recorded document with a tight clock sync and no warning of its
    own: what a test sets is then the only thing to warn about."""
    sync = data["environment"]["clock_sync"]
    sync["max_abs_residual_ns"] = 3.0
    sync["residual_ns"] = [0.0] * len(sync["residual_ns"])
    data["warnings"] = []
    for point in data["points"]:
        point.update(unstable=False, unstable_reasons=[], at_resolution=False)
    return data


def test_default_suite_warns_about_its_unstable_points_only() -> None:
    data = quiet_setup(doc("default"))
    for point in data["points"]:
        unstable = point["op"] == "bcast" and point["size_bytes"] in (16384, 65536)
        point.update(unstable=unstable, unstable_reasons=["invalid_fraction"] if unstable else [])
    texts = warning_texts(as_result(data))
    assert texts == [
        "2 of 36 points are unstable: bcast 16 KiB (invalid_fraction), "
        "bcast 64 KiB (invalid_fraction)"
    ]


def test_a_clean_result_says_so() -> None:
    data = quiet_setup(doc("default"))
    page = render_html([as_result(data)])
    assert '<section class="warnings none" id="warnings"><h2>No warnings</h2>' in page


def test_every_kind_of_warning() -> None:
    data = doc("default")
    data["status"] = "failed"
    data["error"] = "MPI_Bcast returned MPI_ERR_OTHER"
    data["environment"]["timer"].update(invariant=False, resolution_ns=1000.0)
    data["environment"]["clock_sync"]["max_abs_residual_ns"] = 500.0
    data["environment"]["oversubscribed"] = True
    data["points"][2]["validation"] = {
        "supported": True,
        "launches_checked": 16,
        "failures": 3,
        "first_mismatch_rank": 1,
        "first_mismatch_launch": 4,
        "first_mismatch": "byte 12: expected 0x0c, got 0x00",
    }
    data["warnings"] = ["clock drift is large"]
    texts = warning_texts(as_result(data))
    assert texts[0] == (
        "PARTIAL RESULT: the run did not finish (status: failed): MPI_Bcast returned MPI_ERR_OTHER"
    )
    assert texts[1].startswith("VALIDATION FAILED for bcast 4 B: 3 failed rank-launches; first on")
    assert any(t.startswith("the timer (tsc) is not invariant") for t in texts)
    assert any(t.startswith("the timer's resolution (1 us, tsc) is more than 10%") for t in texts)
    assert any(t.startswith("the clock synchronization's residual (500 ns)") for t in texts)
    assert any(t.startswith("oversubscribed") for t in texts)
    assert texts[-1] == "clock drift is large"
    severe = [w.text for w in result_warnings(as_result(data)) if w.severe]
    assert len(severe) == 4


def test_runs_that_disagree_are_warned_and_tabled() -> None:
    data = doc("runs")
    for entry in data["run_summary"][:2]:  # two points whose runs disagree
        entry.update(disagree=True, disagree_reasons=["spread"])
    result = as_result(data, "runs.json")
    disagree = [s for s in data["run_summary"] if s["disagree"]]
    assert disagree
    texts = warning_texts(result)
    line = next(t for t in texts if t.startswith("the runs disagree"))
    assert f"for {len(disagree)} of {len(data['run_summary'])} points" in line
    page = render_html([result])
    assert page.count('<table class="run-summary">') == 1
    assert page.count('<table class="runs">') == 1
    assert page.count("NO: spread") == len(disagree)
    assert "<th>run</th>" in page  # the point table tells the runs apart


def test_several_results_get_a_section_each_and_shared_figures() -> None:
    results = [load_result(GOLDEN / "runs.json"), load_result(GOLDEN / "methods.json")]
    page = render_html(results)
    assert "<h2>Result: runs</h2>" in page and "<h2>Result: methods</h2>" in page
    assert 'id="plot-methods"' in page and 'id="plot-runs"' in page
    assert "<th>method</th>" in page


def test_cli_writes_the_page_and_prints_its_path(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    run = run_cli(["html", str(GOLDEN / "nprocs.json"), "-o", str(out)])
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == str(out)
    assert 'id="plot-time-vs-nprocs"' in out.read_text()


def test_cli_default_output_and_refusals(tmp_path: Path) -> None:
    source = tmp_path / "r.json"
    source.write_text((GOLDEN / "nprocs.json").read_text())
    run = run_cli(["html", str(source)])
    assert run.code == 0 and run.stdout.strip() == str(tmp_path / "r.html")
    run = run_cli(["html", str(source), "-o", str(source)])
    assert run.code == 2 and len(run.err_lines) == 1
    assert "is one of the inputs" in run.err_lines[0]
    run = run_cli(["html", str(tmp_path / "none.json")])
    assert run.code == 2 and "no such file" in run.err_lines[0]


# --- in a real browser ----------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()


PAGE_FACTS = """JSON.stringify({
  tables: [...document.querySelectorAll('table')].map(t => ({
    cls: t.className,
    heads: [...t.querySelectorAll('thead th')].map(th => th.textContent),
    rows: t.querySelectorAll('tbody tr').length})),
  warnings: [...document.querySelectorAll('#warnings li')].map(li => li.textContent),
  images: [...document.querySelectorAll('figure.plot img')].map(img => {
    const r = img.getBoundingClientRect();
    return {id: img.closest('figure').id, complete: img.complete, natural: img.naturalWidth,
            x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height};
  })})"""


def page_facts(browser: Chromium) -> dict[str, Any]:
    facts: dict[str, Any] = json.loads(browser.evaluate(PAGE_FACTS))
    return facts


def ink(png: bytes) -> tuple[float, float]:
    """Shares of pixels that are not white, and that are clearly colored."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int).reshape(-1, 3)
    dark = (pixels.min(axis=1) < 235).mean()
    colored = (pixels.max(axis=1) - pixels.min(axis=1) > 60).mean()
    return float(dark), float(colored)


def open_report(browser: Chromium, path: Path) -> dict[str, Any]:
    load = browser.open(path.as_uri())
    assert load.errors == []
    outside = [u for u in load.requests if u != path.as_uri() and not u.startswith("data:")]
    assert outside == [], outside
    return page_facts(browser)


def assert_plots_drawn(browser: Chromium, images: list[dict[str, Any]]) -> None:
    for image in images:
        assert image["complete"] and image["natural"] > 0, image["id"]
        assert image["width"] > 300 and image["height"] > 200, image
        clip = {k: image[k] for k in ("x", "y", "width", "height")}
        dark, colored = ink(browser.screenshot(clip))
        assert dark > MIN_INK, (image["id"], dark)
        assert colored > MIN_COLOURED, (image["id"], colored)


def expected_tables(result: Result) -> list[str]:
    """The tables of one result's section, in page order, from its document:
    a tails table when the points have tails, one ledger table per point and
    suite, the run tables when there are runs."""
    tables = ["environment", "points"]
    tables += ["tails"] * bool(tail_rows(result))
    tables += ["ledger"] * sum(len(result_ledgers(result, p)) for p in result.points)
    tables += ["runs", "run-summary"] * bool(result.data.get("run_summary"))
    return tables


def test_report_in_a_browser(chromium: Chromium, tmp_path: Path) -> None:
    result = load_result(GOLDEN / "default.json")
    path = tmp_path / "report.html"
    write_html([result], path)
    facts = open_report(chromium, path)
    tables = {t["cls"]: t for t in facts["tables"]}
    assert [t["cls"] for t in facts["tables"]] == expected_tables(result)
    assert {"environment", "points", "tails", "ledger"} <= set(tables)
    titles, _aligns, rows = table_cells(result)
    assert tables["points"]["heads"] == titles
    assert tables["points"]["rows"] == len(rows)
    assert tables["environment"]["rows"] >= 13
    assert facts["warnings"] == warning_texts(result)
    names = [p.name for p in plot_data([result])]
    assert [i["id"] for i in facts["images"]] == [f"plot-{n}" for n in names]
    assert_plots_drawn(chromium, facts["images"])


def test_report_of_several_results_in_a_browser(chromium: Chromium, tmp_path: Path) -> None:
    results = [load_result(GOLDEN / "runs.json"), load_result(GOLDEN / "methods.json")]
    path = tmp_path / "both.html"
    write_html(results, path)
    facts = open_report(chromium, path)
    classes = [t["cls"] for t in facts["tables"]]
    assert classes == expected_tables(results[0]) + expected_tables(results[1])
    assert classes.count("run-summary") == 1
    summary = next(t for t in facts["tables"] if t["cls"] == "run-summary")
    assert summary["rows"] == len(doc("runs")["run_summary"])
    ids = [i["id"] for i in facts["images"]]
    assert "plot-methods" in ids and "plot-runs" in ids
    assert_plots_drawn(chromium, facts["images"])


def replace_first_image(page: str, svg: str) -> str:
    data = base64.b64encode(svg.encode()).decode()
    return re.sub(
        r"data:image/svg\+xml;base64,[A-Za-z0-9+/=]+",
        f"data:image/svg+xml;base64,{data}",
        page,
        count=1,
    )


def test_the_browser_checks_can_fail(chromium: Chromium, tmp_path: Path) -> None:
    page = render_html([load_result(GOLDEN / "nprocs.json")])
    broken = tmp_path / "broken.html"
    broken.write_text(replace_first_image(page, "not an image"))
    assert open_report(chromium, broken)["images"][0]["natural"] == 0
    blank = tmp_path / "blank.html"
    white = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480">'
        '<rect width="640" height="480" fill="white"/></svg>'
    )
    blank.write_text(replace_first_image(page, white))
    first = open_report(chromium, blank)["images"][0]
    assert first["natural"] == 640
    clip = {k: first[k] for k in ("x", "y", "width", "height")}
    dark, colored = ink(chromium.screenshot(clip))
    assert dark < MIN_INK and colored < MIN_COLOURED  # an empty figure is seen as blank
    scripted = tmp_path / "scripted.html"
    scripted.write_text(page.replace("</body>", "<script>undefinedFunction();</script></body>"))
    load = chromium.open(scripted.as_uri())
    assert any("undefinedFunction" in e or "exception" in e for e in load.errors), load.errors


def test_untrusted_setups_show_in_the_browser(chromium: Chromium, tmp_path: Path) -> None:
    data = copy.deepcopy(doc("nprocs"))
    data["environment"]["timer"]["invariant"] = False
    path = tmp_path / "w.html"
    write_html([as_result(data, "w.json")], path)
    facts = open_report(chromium, path)
    assert any(w.startswith("the timer (tsc) is not invariant") for w in facts["warnings"])
    severe = chromium.evaluate(
        "[...document.querySelectorAll('#warnings li.severe')]"
        ".map(li => [li.textContent, getComputedStyle(li).color])"
    )
    assert [color for _text, color in severe] == ["rgb(176, 0, 32)"]
    assert severe[0][0].startswith("the timer (tsc) is not invariant")


@pytest.mark.parametrize(
    ("name", "title", "row"),
    [
        ("firstcall-result.json", "First call vs second call", "reduce"),
        ("check-result.json", "Machine check", "VERDICT tsc"),
    ],
)
def test_check_and_firstcall_documents(name: str, title: str, row: str) -> None:
    """Recorded `mpiscope check` and `mpiscope firstcall` documents have no
    point table: their report body is shown instead."""
    from mpiscope.reports.html import render_html
    from mpiscope.result import load_result

    page = render_html([load_result(Path(__file__).parent.parent / "data" / name)])
    assert f"<h3>{title}</h3>" in page
    assert row in page
    assert '<table class="points">' not in page


def test_run_summary_shows_the_run_to_run_part_as_the_text_does() -> None:
    """The text table had gained the run-to-run column (between_rsd),
    the HTML's copy of it had not: both take their cells from one place now."""
    data = doc("runs")
    for k, row in enumerate(data["run_summary"]):
        row["between_rsd"] = 0.01 * (k + 1)
    page = render_html([as_result(data, "runs.json")])
    assert "<th>run-to-run</th>" in page
    assert f">{len(data['run_summary'])}%<" in page  # the last row's 0.01 * n
