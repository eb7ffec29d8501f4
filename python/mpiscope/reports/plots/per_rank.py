"""``per-rank``: heat map rank x size of each rank's median duration,
colored relative to the slowest rank of the same point."""

from __future__ import annotations

from collections.abc import Sequence

from mpiscope.reports.plots.common import Doc, Pt, median_of, variant_label
from mpiscope.reports.plots.figure import Heatmap, Panel, Plot
from mpiscope.result.units import format_bytes, format_ns

__all__ = ["per_rank_plot"]


def _column_name(pt: Pt, varied: str) -> str:
    if varied == "nprocs":
        return f"np={pt.nprocs}"
    return format_bytes(pt.size) if pt.size is not None else pt.op


def per_rank_plot(docs: Sequence[Doc], several: bool) -> Plot | None:
    panels: list[Panel] = []
    for doc in docs:
        varied = doc.result.varied
        groups: dict[tuple[str, str, str | None], list[Pt]] = {}
        for pt in doc.points:
            if not pt.point.get("per_rank"):
                continue
            op = pt.op if (pt.size is not None or varied == "nprocs") else ""
            groups.setdefault((op, pt.method, pt.cache), []).append(pt)
        several_variants = len({key[1:] for key in groups}) > 1
        # Operations with a size first, those without one last, in one panel.
        for (op, method, cache), pts in sorted(groups.items(), key=lambda item: item[0][0] == ""):
            title = op or "operations without a size"
            if several_variants:
                title = f"{title} ({variant_label(method, cache, doc)})"
            panels.append(
                _heatmap_panel(
                    f"{doc.label}: {title}" if several else title, pts, varied, unsized=not op
                )
            )
    if not panels:
        return None
    note = (
        "Each cell: one rank's median duration of its own part of the operation (text), "
        "colored by its ratio to the slowest rank's median at that point: the ranks that "
        "wait the longest inside the operation stand out. Merged runs: the median over "
        "runs."
    )
    return Plot("per-rank", "Per-rank times", tuple(panels), note)


def _heatmap_panel(title: str, pts: Sequence[Pt], varied: str, unsized: bool) -> Panel:
    def order(pt: Pt) -> int:  # a stable sort: operations without a size keep their order
        return pt.nprocs if varied == "nprocs" else (pt.size if pt.size is not None else -1)

    columns: list[str] = []
    cells: dict[tuple[int, str], list[float | None]] = {}
    ranks: set[int] = set()
    for pt in sorted(pts, key=order):
        column = _column_name(pt, varied)
        if column not in columns:
            columns.append(column)
        for entry in pt.point.get("per_rank") or []:
            ranks.add(int(entry["rank"]))
            cells.setdefault((int(entry["rank"]), column), []).append(entry.get("median_ns"))
    rank_list = sorted(ranks)
    medians = {key: median_of(values) for key, values in cells.items()}
    values: list[tuple[float | None, ...]] = []
    texts: list[tuple[str | None, ...]] = []
    slowest = {
        c: max((v for (r, cc), v in medians.items() if cc == c and v is not None), default=None)
        for c in columns
    }
    for rank in rank_list:
        row_values: list[float | None] = []
        row_texts: list[str | None] = []
        for column in columns:
            median = medians.get((rank, column))
            top = slowest[column]
            row_values.append(None if median is None or not top else median / top)
            row_texts.append(None if median is None else format_ns(median))
        values.append(tuple(row_values))
        texts.append(tuple(row_texts))
    heatmap = Heatmap(
        rows=tuple(f"rank {r}" for r in rank_list),
        columns=tuple(columns),
        values=tuple(values),
        texts=tuple(texts),
        colorbar="rank's median / slowest rank's median",
    )
    return Panel(
        title=title,
        xlabel="operation" if unsized else ("processes" if varied == "nprocs" else "message size"),
        ylabel="rank",
        xscale="category",
        yscale="linear",
        heatmap=heatmap,
    )
