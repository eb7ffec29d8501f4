"""The winner map: process count (one row per document) x size, each cell
colored by the fastest variant and labeled with its name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mpiscope.alltoall.plots.common import new_figure

__all__ = ["winner_figure", "winner_grid"]


def winner_grid(
    docs: Sequence[Mapping[str, Any]],
) -> tuple[list[int], list[int], list[list[str | None]]]:
    """(process counts ascending, sizes, the winner per count and size:
    None where that count has no measurement of that size)."""
    counts = sorted({int(d["nprocs"]) for d in docs})
    sizes = sorted({int(w["size_bytes"]) for d in docs for w in d["winners"]})
    grid: list[list[str | None]] = [[None] * len(sizes) for _ in counts]
    for d in docs:
        row = counts.index(int(d["nprocs"]))
        for w in d["winners"]:
            grid[row][sizes.index(int(w["size_bytes"]))] = w["winner"]
    return counts, sizes, grid


def winner_figure(docs: Sequence[Mapping[str, Any]]) -> Any:
    import matplotlib

    counts, sizes, grid = winner_grid(docs)
    names = sorted({n for row in grid for n in row if n})
    index = {n: i for i, n in enumerate(names)}
    data = [[index[n] if n else -1 for n in row] for row in grid]
    fig, ax = new_figure()
    cmap = matplotlib.colormaps["tab20"].resampled(max(len(names), 1))
    cmap.set_under("white")
    ax.imshow(data, aspect="auto", cmap=cmap, vmin=0, vmax=max(len(names) - 1, 0.5),
              origin="lower")  # fmt: skip
    for r, row in enumerate(grid):
        for c, name in enumerate(row):
            if name:
                ax.text(c, r, name.replace("native:", "n:"), ha="center", va="center",
                        fontsize=6, rotation=90 if len(sizes) > 6 else 0)  # fmt: skip
    ax.set_xticks(range(len(sizes)), [_size(s) for s in sizes], fontsize=7)
    simulated = {int(d["nprocs"]) for d in docs if d.get("simulated")}
    ax.set_yticks(range(len(counts)), [f"{n} (sim)" if n in simulated else str(n) for n in counts])
    ax.set_xlabel("bytes per destination")
    ax.set_ylabel("processes")
    sim = any(d.get("simulated") for d in docs)
    ax.set_title("Fastest Alltoall per size and process count"
                 + (" (SIMULATED runs included)" if sim else ""), fontsize=9)  # fmt: skip
    return fig


def _size(s: int) -> str:
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if s >= scale and s % scale == 0:
            return f"{s // scale}{unit}"
    return str(s)
