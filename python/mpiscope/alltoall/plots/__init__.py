"""The figures of alltoall-compare documents, one module per figure:
time vs size (:mod:`.time`), speed-up over the library's default
(:mod:`.speedup`), the winner map (:mod:`.winners`). matplotlib is
imported inside the functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mpiscope.alltoall.plots.common import save
from mpiscope.alltoall.plots.speedup import speedup_figure
from mpiscope.alltoall.plots.time import time_figure
from mpiscope.alltoall.plots.winners import winner_figure
from mpiscope.outputs import check_output_dir

__all__ = ["figures", "write_figures"]


def figures(docs: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """(file stem, matplotlib figure) of every figure of ``docs``: per
    document its time and speed-up figures, and one winner map of all."""
    out = []
    for doc in docs:
        stem = f"a2a-np{doc['nprocs']}"
        out.append((f"{stem}-time", time_figure(doc)))
        out.append((f"{stem}-speedup", speedup_figure(doc)))
    out.append(("a2a-winners", winner_figure(docs)))
    return out


def write_figures(docs: Sequence[Mapping[str, Any]], directory: Path) -> list[Path]:
    """Write every figure as PNG into ``directory`` (created, one level); the paths."""
    check_output_dir(directory, "--out-dir")
    return [save(fig, directory / f"{stem}.png") for stem, fig in figures(docs)]
