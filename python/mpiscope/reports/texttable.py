"""Plain-text tables: a title row, a rule, one line per row, columns padded.

Used by the reports of ``methods``, ``firstcall``, ``check`` and the run
summary (``report.py`` has its own column objects for the point table).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["format_table"]


def format_table(
    titles: Sequence[str], aligns: str, rows: Sequence[Sequence[str]], indent: str = ""
) -> list[str]:
    """``aligns`` has one character per column, ``<`` (left) or ``>`` (right).
    Trailing spaces are removed from every line."""
    if len(aligns) != len(titles):
        raise ValueError(f"{len(titles)} titles but {len(aligns)} alignments")
    widths = [len(title) for title in titles]
    for row in rows:
        if len(row) != len(titles):
            raise ValueError(f"a row has {len(row)} cells, not {len(titles)}")
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = (
            f"{cell:{align}{width}}"
            for cell, align, width in zip(cells, aligns, widths, strict=True)
        )
        return (indent + "  ".join(padded)).rstrip()

    rule = indent + "  ".join("-" * width for width in widths)
    return [line(titles), rule] + [line(row) for row in rows]
