"""The HTML page of model documents (``mpiscope html MODEL.json``): per
document the text report (parameters with their intervals, regimes, the
fit error per size) and one figure, the measured one-way ping-pong time
against the model's."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope.html_page import escape, page
from mpiscope.reports.model import render_model

__all__ = ["render_model_html", "write_model_html"]

_STYLE = ("body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; } "
          "pre { background: #f6f6f6; padding: 0.8em; } img { max-width: 100%; }")  # fmt: skip


def _figure(doc: Mapping[str, Any]) -> str:
    from mpiscope.reports.plots.model import fit_plot
    from mpiscope.reports.plots.render import render

    plot = fit_plot(doc)
    if plot is None:
        return ""
    data = base64.b64encode(render(plot)).decode("ascii")
    return f'<img alt="measured vs model" src="data:image/png;base64,{data}">'


def render_model_html(docs: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for doc in docs:
        parts.append(f"<h2>{escape(doc['model'])} model of {escape(doc['source']['path'])}</h2>")
        parts.append(f"<pre>{escape(render_model(doc))}</pre>")
        parts.append(_figure(doc))
    return page("mpiscope models", "\n".join(parts), _STYLE,
                heading="Communication performance models")


def write_model_html(docs: Sequence[Mapping[str, Any]], out: Path) -> None:
    try:
        outputs.write_text(out, render_model_html(docs))
    except OSError as exc:
        raise MpiscopeError(f"cannot write {out}: {exc.strerror or exc}") from None
