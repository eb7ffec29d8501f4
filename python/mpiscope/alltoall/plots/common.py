"""What the Alltoall figures share: the simulated-run mark, the size axis,
and writing a figure."""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpiscope import outputs

__all__ = ["figure_png", "new_figure", "save", "size_axis", "title_of"]


def new_figure() -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8), layout="constrained")
    # up to 20 variants with their own color (the default cycle repeats after 10)
    ax.set_prop_cycle(color=matplotlib.colormaps["tab20"].colors)  # type: ignore[attr-defined]
    return fig, ax


def title_of(doc: Mapping[str, Any], what: str) -> str:
    """The figure's title; a simulated run says so in it."""
    sim = " - SIMULATED (SimGrid SMPI)" if doc.get("simulated") else ""
    return (f"{what}: {doc['nprocs']} processes, {doc['nodes']} node(s), "
            f"{doc['mpi_implementation']}{sim}")  # fmt: skip


def size_axis(ax: Any) -> None:
    """Bytes per destination on a log2 axis with 1K/1M labels."""
    from matplotlib.ticker import FuncFormatter

    def label(value: float, _pos: int) -> str:
        for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
            if value >= scale:
                return f"{value / scale:g}{unit}"
        return f"{value:g}"

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(label))
    ax.set_xlabel("bytes per destination")


def save(fig: Any, path: Path) -> Path:
    """Write ``fig`` as the PNG ``path`` (:mod:`mpiscope.outputs`)."""
    try:
        with outputs.replacing(path) as file:
            fig.savefig(file, format="png", dpi=110)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path


def figure_png(fig: Any) -> bytes:
    """The figure as PNG bytes (closed afterwards)."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()
