"""What the figures of result documents show, as plain data.

:func:`plot_data` turns result documents into :class:`Plot` objects: every
number a figure shows, already in the unit of its axis, with the axis
labels, scales and a caption. It imports neither matplotlib nor pandas, so
tests (and the golden files) compare data, not pixels; :mod:`mpiscope.reports.plots.render`
draws them.

The figures, one module each (registered in :func:`plot_data`, in the
order shown), each only when the documents have what it needs:

- ``time-vs-size``: time against message size, one line per result file /
  operation / timing method (and process count when several), the trimmed
  mean T with its confidence interval as a band; for merged runs the
  median of the runs' medians with its bootstrap interval over
  runs (``run_summary``). Unstable points (and runs that
  disagree) are circled in red.
- ``bandwidth``: bytes / time for the operations of :data:`BANDWIDTH_OPS`.
- ``time-no-size``: operations without a size (barrier, wait patterns).
- ``time-vs-nprocs``: time against the number of processes, for documents
  whose ``varied`` is ``"nprocs"``.
- ``per-rank``: heat map rank x size of each rank's median duration,
  colored relative to the slowest rank of the same point.
- ``start-skew``: max(start) - min(start) over ranks, per launch from the
  raw samples when the point kept them, else the point's median and maximum.
- ``methods``: each timing method's median over the window method's median,
  per size (documents from ``mpiscope methods``).
- ``runs``: per-run medians as points, with the median over runs
  and its interval (documents from ``mpiscope run --runs``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mpiscope.reports.plots.bandwidth import bandwidth_plot
from mpiscope.reports.plots.common import read_doc, source_labels
from mpiscope.reports.plots.figure import Plot
from mpiscope.reports.plots.methods import methods_plot
from mpiscope.reports.plots.per_rank import per_rank_plot
from mpiscope.reports.plots.runs import runs_plot
from mpiscope.reports.plots.skew import skew_plot
from mpiscope.reports.plots.time import time_plot
from mpiscope.reports.plots.unsized import unsized_plot
from mpiscope.result import Result

__all__ = ["plot_data"]


def plot_data(results: Sequence[Result], labels: Sequence[str] | None = None) -> list[Plot]:
    """Every figure the documents allow, as data (see the module doc)."""
    labels = list(labels) if labels is not None else source_labels(results)
    docs = [read_doc(label, result) for label, result in zip(labels, results, strict=True)]
    by_size = [d for d in docs if d.result.varied == "size"]
    by_nprocs = [d for d in docs if d.result.varied == "nprocs"]
    builders: list[Callable[[], Plot | None]] = [
        lambda: time_plot(by_size, len(docs) > 1, "size"),
        lambda: bandwidth_plot(by_size, len(docs) > 1),
        lambda: unsized_plot(by_size, len(docs) > 1),
        lambda: time_plot(by_nprocs, len(docs) > 1, "nprocs"),
        lambda: per_rank_plot(docs, len(docs) > 1),
        lambda: skew_plot(docs, len(docs) > 1),
        lambda: methods_plot(docs, len(docs) > 1),
        lambda: runs_plot(docs, len(docs) > 1),
    ]
    return [plot for build in builders if (plot := build()) is not None]
