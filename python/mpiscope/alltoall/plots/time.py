"""Time vs size, one line per variant; the library's default thick and
black, its forced algorithms dashed, the lab solid; the Hockney prediction
of the best lab variant dotted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mpiscope.alltoall.plots.common import new_figure, size_axis, title_of

__all__ = ["time_figure"]


def time_figure(doc: Mapping[str, Any]) -> Any:
    fig, ax = new_figure()
    for v in doc["variants"]:
        pts = [p for p in v["points"] if p["size_bytes"] > 0 and p["median_ns"]]
        if not pts:
            continue
        xs = [p["size_bytes"] for p in pts]
        ys = [p["median_ns"] / 1e3 for p in pts]
        if v["kind"] == "native":
            ax.plot(xs, ys, color="black", linewidth=3, label="native MPI_Alltoall (default)",
                    zorder=5)  # fmt: skip
        elif v["kind"] == "native-forced":
            ax.plot(xs, ys, linestyle="--", linewidth=1, label=v["name"])
        else:
            ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.2, label=v["name"])
    best = _best_lab_prediction(doc)
    if best is not None:
        xs, ys, name = best
        ax.plot(xs, ys, linestyle=":", color="gray", label=f"Hockney model of {name}")
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("median time per call (us)")
    ax.set_title(title_of(doc, "Alltoall time"), fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    return fig


def _best_lab_prediction(doc: Mapping[str, Any]) -> tuple[list[int], list[float], str] | None:
    counts: dict[str, int] = {}
    for w in doc["winners"]:
        if w.get("best_lab"):
            counts[w["best_lab"]] = counts.get(w["best_lab"], 0) + 1
    if not counts:
        return None
    name = max(counts, key=lambda n: counts[n])
    v = next(v for v in doc["variants"] if v["name"] == name)
    pts = [p for p in v["points"] if p["size_bytes"] > 0 and p.get("predicted_ns")]
    if not pts:
        return None
    return [p["size_bytes"] for p in pts], [p["predicted_ns"] / 1e3 for p in pts], name
