"""The HTML page of model documents (``mpiscope html MODEL.json``): per
document the text report (parameters with their intervals, regimes, the
fit error per size) and one figure, the measured one-way ping-pong time
against the model's."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
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
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>mpiscope models</title>"
             f"<style>{_STYLE}</style></head><body><h1>Communication performance models</h1>"]
    for doc in docs:
        parts.append(f"<h2>{html.escape(doc['model'])} model of "
                     f"{html.escape(doc['source']['path'])}</h2>")  # fmt: skip
        parts.append(f"<pre>{html.escape(render_model(doc))}</pre>")
        parts.append(_figure(doc))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_model_html(docs: Sequence[Mapping[str, Any]], out: Path) -> None:
    try:
        outputs.write_text(out, render_model_html(docs))
    except OSError as exc:
        raise MpiscopeError(f"cannot write {out}: {exc.strerror or exc}") from None
