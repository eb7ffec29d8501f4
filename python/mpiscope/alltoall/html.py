"""The HTML section of alltoall-compare documents (``mpiscope html``): per
document the run's shape (simulated or not), the per-size table with the
winner, PLP's rule vs the measured best d, the Hockney fit, and the
figures embedded as PNG; one winner map of all documents."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.alltoall.plots.common import figure_png
from mpiscope.alltoall.plots.speedup import speedup_figure
from mpiscope.alltoall.plots.time import time_figure
from mpiscope.alltoall.plots.winners import winner_figure
from mpiscope.alltoall.text import Table, compare_table, hockney_lines, plp_table
from mpiscope.errors import MpiscopeError
from mpiscope.html_page import escape, page

__all__ = ["alltoall_section", "render_alltoall_html", "write_alltoall_html"]

_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: right; }
th { background: #eee; } td.l { text-align: left; } td.win { font-weight: bold; }
.sim { color: #a00; font-weight: bold; } .note { color: #666; }
img { max-width: 100%; display: block; margin: 0.6em 0; }
"""



def _img(fig: Any, alt: str) -> str:
    data = base64.b64encode(figure_png(fig)).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def _table(table: Table) -> str:
    titles, aligns, rows = table
    head = "".join(f"<th>{escape(t)}</th>" for t in titles)

    def cell(value: str, align: str) -> str:
        cls = ["l"] if align == "<" else []
        if value.endswith("*"):
            cls.append("win")
        attr = f' class="{" ".join(cls)}"' if cls else ""
        return f"<td{attr}>{escape(value)}</td>"

    body = "".join(
        "<tr>" + "".join(cell(v, a) for v, a in zip(row, aligns, strict=True)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def alltoall_section(doc: Mapping[str, Any]) -> str:
    sim = ('<p class="sim">SIMULATED: these times come from SimGrid SMPI, not from '
           "hardware.</p>" if doc["simulated"] else "")  # fmt: skip
    shape = (f"{doc['nprocs']} processes, {doc['nodes']} node(s) "
             f"({', '.join(map(str, doc['ranks_per_node']))} ranks), "
             f"{doc['mpi_implementation']}, status {doc['status']}")  # fmt: skip
    parts = [f"<h2>Alltoall: {escape(shape)}</h2>", sim,
             f'<p class="note">{escape(doc["command_line"])}</p>',
             "<p>Median time per call; * the fastest variant; speed-up: the library's "
             "default over the best lab algorithm.</p>",
             _table(compare_table(doc))]  # fmt: skip
    if doc["plp"]:
        parts += [f"<h3>PLP: rule vs measured best d (size_crit {doc['size_crit_bytes']} B)</h3>",
                  _table(plp_table(doc))]  # fmt: skip
    fits = hockney_lines(doc)
    if fits:
        parts += ["<h3>Hockney model</h3>", *(f"<p>{escape(line)}</p>" for line in fits)]
    if doc["errors"]:
        parts += ["<h3>Failed runs</h3><ul>",
                  *(f"<li>{escape(e)}</li>" for e in doc["errors"]), "</ul>"]  # fmt: skip
    parts += [_img(time_figure(doc), "time vs size"), _img(speedup_figure(doc), "speed-up")]
    return "\n".join(p for p in parts if p)


def render_alltoall_html(docs: Sequence[Mapping[str, Any]]) -> str:
    if not docs:
        raise MpiscopeError("no alltoall document to render")
    body = [alltoall_section(doc) for doc in docs]
    body.append("<h2>Winner map</h2>" + _img(winner_figure(docs), "winner map"))
    return page("mpiscope Alltoall", "\n".join(body), _STYLE, heading="mpiscope Alltoall lab")


def write_alltoall_html(docs: Sequence[Mapping[str, Any]], out: Path) -> None:
    try:
        outputs.write_text(out, render_alltoall_html(docs))
    except OSError as exc:
        raise MpiscopeError(f"cannot write {out}: {exc.strerror or exc}") from None
