"""Result documents as flat tables: CSV, Parquet or JSON (``mpiscope export``).

The table is :func:`mpiscope.result.frame.points_frame` (one row per point) or,
with ``raw``, :func:`mpiscope.result.frame.raw_frame` (one row per launch, and per
rank where the document has per-rank times). Units are in the column
names. CSV: comma-separated with a header line, empty cells for missing
values. JSON: an array of one object per row, ``null`` for missing values.
Parquet (through pyarrow): the column types kept, and the document's
metadata (environment, method, units...) in the file's pandas metadata as
``df.attrs``.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError
from mpiscope.result import Result
from mpiscope.result.frame import points_frame, raw_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "export_bytes", "table", "write_export"]

#: Formats of :func:`export_bytes` / ``mpiscope export --format``.
FORMATS = ("csv", "parquet", "json")


def table(result: Result, raw: bool = False) -> pd.DataFrame:
    """The flat table of ``result``: per point, or per launch with ``raw``."""
    return raw_frame(result) if raw else points_frame(result)


def export_bytes(result: Result, fmt: str, raw: bool = False) -> bytes:
    """The table of ``result`` encoded as ``fmt`` ("csv", "parquet", "json")."""
    frame = table(result, raw)
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    if fmt == "json":
        return (_json(frame) + "\n").encode("utf-8")
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, engine="pyarrow", index=False)
        return buffer.getvalue()
    raise MpiscopeError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")


def _json(frame: pd.DataFrame) -> str:
    rows = [
        {name: _plain(value) for name, value in row.items()}
        for row in frame.to_dict(orient="records")
    ]
    return json.dumps(rows, indent=1, allow_nan=False)


def _plain(value: Any) -> Any:
    """A cell as a JSON value: pandas' missing markers become None."""
    if value is None:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else value
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def write_export(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` (replaced if it exists)."""
    outputs.write_bytes(path, data, what="-o")
