"""Speed-up over the library's default MPI_Alltoall per variant and size
(above 1: faster than the default)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from mpiscope.alltoall.compare import variant_median
from mpiscope.alltoall.plots.common import new_figure, size_axis, title_of

__all__ = ["speedup_figure"]


def speedup_figure(doc: Mapping[str, Any]) -> Any:
    fig, ax = new_figure()
    default = next((v for v in doc["variants"] if v["kind"] == "native"), None)
    for v in doc["variants"]:
        if default is None or v is default:
            continue
        xs, ys = [], []
        for size in doc["sizes"]:
            base, t = variant_median(default, size), variant_median(v, size)
            if size > 0 and math.isfinite(base) and math.isfinite(t) and t > 0:
                xs.append(size)
                ys.append(base / t)
        if xs:
            style = "--" if v["kind"] == "native-forced" else "-"
            ax.plot(xs, ys, linestyle=style, marker="o", markersize=3, label=v["name"])
    ax.axhline(1.0, color="black", linewidth=2, label="native default")
    size_axis(ax)
    ax.set_yscale("log", base=2)
    ax.set_ylabel("speed-up over native default (x)")
    ax.set_title(title_of(doc, "Speed-up over MPI_Alltoall"), fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    return fig
