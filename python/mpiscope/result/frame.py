"""Result documents as pandas DataFrames: ``mpiscope.load(path)``.

One row per measured point, one column per number, the unit in the column
name (``median_ns``, ``size_bytes``) and again in ``df.attrs["units"]``
(column -> unit). ``df.attrs`` also holds the document's ``environment``,
``method``, ``varied``, ``warnings``, ``status``, ``schema_version``,
``source`` (the path) and, for merged runs, ``run_summary``.

With ``raw=True``, one row per launch of every point that kept its raw
samples (``mpiscope run --raw``), and per rank when the document has each
rank's start and end: ``point`` (the point's index in the document) joins
it back to the point table.

Naming: ``run`` is the run of the bench a point came from (``mpiscope run
--runs R`` merges R of them; missing for a single run), while
``launch_index`` counts the timed launches inside one point (the samples);
``op_launch`` is the operation's own number of the launch (schema 1.7: the
launches of stage 0 counted too), which says which round of a ``pairs``
schedule it ran.

pandas is imported inside the functions, so importing this module is cheap.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpiscope.errors import MpiscopeError
from mpiscope.result.document import Point, Result, load_result
from mpiscope.result.estimate import point_cache, point_method
from mpiscope.result.noise import document_kind, load_noise, noise_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "POINT_COLUMNS",
    "RAW_COLUMNS",
    "load",
    "points_frame",
    "raw_frame",
]

#: Columns of the point table, in order, with their unit ("1": a plain
#: fraction or ratio, "count": a number of things, "": not a quantity).
POINT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("point", ""),
    ("op", ""),
    ("method", ""),
    ("cache", ""),
    ("kind", ""),
    ("run", ""),
    ("size_bytes", "bytes"),
    ("actual_bytes", "bytes"),
    ("nprocs", "count"),
    ("root", ""),
    ("dtype", ""),
    ("reduce_op", ""),
    ("options", ""),
    ("launches_total", "count"),
    ("launches_valid", "count"),
    ("samples_used", "count"),
    ("mean_ns", "ns"),
    ("stddev_ns", "ns"),
    ("se_ns", "ns"),
    ("rse", "1"),
    ("median_ns", "ns"),
    ("min_ns", "ns"),
    ("max_ns", "ns"),
    ("trimmed_min_ns", "ns"),
    ("trimmed_max_ns", "ns"),
    ("q25_ns", "ns"),
    ("q75_ns", "ns"),
    ("confidence", "1"),
    ("error_ns", "ns"),
    ("ci_low_ns", "ns"),
    ("ci_high_ns", "ns"),
    ("run_error_ns", "ns"),
    ("run_low_ns", "ns"),
    ("run_high_ns", "ns"),
    ("between_rsd", "1"),
    ("global_span_median_ns", "ns"),
    ("global_span_max_ns", "ns"),
    ("start_skew_median_ns", "ns"),
    ("start_skew_max_ns", "ns"),
    ("window_final_ns", "ns"),
    ("invalid_fraction", "1"),
    ("stop_reason", ""),
    ("unstable", ""),
    ("unstable_reasons", ""),
    ("oversubscribed", ""),
    ("validation_failures", "count"),
    ("elapsed_ns", "ns"),
)

#: Columns of the raw table (one row per launch, and per rank when present).
RAW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("point", ""),
    ("op", ""),
    ("method", ""),
    ("run", ""),
    ("size_bytes", "bytes"),
    ("nprocs", "count"),
    ("launch_index", ""),
    ("op_launch", ""),
    ("valid", ""),
    ("late", ""),
    ("overrun", ""),
    ("discarded", ""),
    ("slot_ns", "ns"),
    ("time_ns", "ns"),
    ("start_skew_ns", "ns"),
    ("rank", ""),
    ("start_ns", "ns"),
    ("end_ns", "ns"),
    ("duration_ns", "ns"),
)

_INTEGER_COLUMNS = (
    "point",
    "run",
    "size_bytes",
    "actual_bytes",
    "nprocs",
    "root",
    "launches_total",
    "launches_valid",
    "samples_used",
    "validation_failures",
    "launch_index",
    "op_launch",
    "rank",
)
_BOOLEAN_COLUMNS = ("unstable", "oversubscribed", "valid", "late", "overrun", "discarded")


def load(path: str | Path, raw: bool = False) -> pd.DataFrame:
    """Read a result document (validated) as a DataFrame.

    A health document (``mpiscope health``) gives one row per measured pair
    of its link matrix (:func:`mpiscope.result.health.health_frame`). A
    noise document (``kind`` noise-run, noise-probe, noise-verdict or
    noise-calibration) gives its own frame (see
    :func:`mpiscope.result.noise.noise_frame`), and so does an
    alltoall-compare document (:func:`mpiscope.result.alltoall.alltoall_frame`)
    and a model document (:func:`mpiscope.result.model.model_frame`: one row
    per fitted parameter).

    ``raw=False``: one row per point (:data:`POINT_COLUMNS`). ``raw=True``:
    one row per launch, and per rank where the document has per-rank start
    and end times (:data:`RAW_COLUMNS`); an error if no point kept raw
    samples. Raises :class:`~mpiscope.errors.MpiscopeError` for a file that
    is missing or not a valid result document.
    """
    kind = document_kind(path)
    if kind == "health":
        from mpiscope.result.health import health_frame, load_health

        if raw:
            raise MpiscopeError(f"{path} is a health document: its launches are in its raw_dir")
        return health_frame(load_health(path))
    if kind == "model":
        from mpiscope.result.model import load_model, model_frame

        if raw:
            raise MpiscopeError(f"{path} is a model document: raw=True is for result documents")
        return model_frame(load_model(path))
    if kind is not None and kind.startswith("alltoall-"):
        from mpiscope.result.alltoall import alltoall_frame, load_alltoall

        if raw:
            raise MpiscopeError(f"{path} is a {kind} document: raw=True is for result documents")
        return alltoall_frame(load_alltoall(path))
    if kind is not None and kind.startswith("noise-"):
        if raw:
            raise MpiscopeError(f"{path} is a {kind} document: raw=True is for result documents")
        return noise_frame(load_noise(path))
    result = load_result(path)
    return raw_frame(result) if raw else points_frame(result)


def points_frame(result: Result) -> pd.DataFrame:
    """One row per point of ``result`` (see :func:`load`)."""
    rows = [_point_row(result, index, point) for index, point in enumerate(result.points)]
    return _frame(rows, POINT_COLUMNS, result)


def raw_frame(result: Result) -> pd.DataFrame:
    """One row per launch (and rank) of the points that kept raw samples."""
    points = [(i, p) for i, p in enumerate(result.points) if p.get("raw") is not None]
    if not points:
        raise MpiscopeError(
            f"{_source(result)} has no raw samples (measure with mpiscope run --raw)"
        )
    rows: list[dict[str, Any]] = []
    for index, point in points:
        rows += list(_raw_rows(result, index, point))
    return _frame(rows, RAW_COLUMNS, result)


def _point_row(result: Result, index: int, point: Point) -> dict[str, Any]:
    row: dict[str, Any] = {
        "point": index,
        "method": point_method(result, point),
        "cache": point_cache(result, point),
        "kind": point.get("kind", "measure"),
    }
    for name, _unit in POINT_COLUMNS:
        if name in point.data and name not in row:
            row[name] = point.data[name]
    row["options"] = _options_text(point.get("options"))
    row["unstable_reasons"] = ",".join(point.get("unstable_reasons") or [])
    for key in ("global_span", "start_skew"):
        summary = point.get(key) or {}
        row[f"{key}_median_ns"] = summary.get("median_ns")
        row[f"{key}_max_ns"] = summary.get("max_ns")
    row["window_final_ns"] = (point.get("window") or {}).get("final_ns")
    # what another run would read: the run profile folded in (docs/method.md 11)
    interval = point.get("run_interval") or {}
    row["run_error_ns"] = interval.get("error_ns")
    row["run_low_ns"] = interval.get("low_ns")
    row["run_high_ns"] = interval.get("high_ns")
    row["between_rsd"] = interval.get("between_rsd")
    validation = point.get("validation")
    row["validation_failures"] = None if validation is None else validation.get("failures")
    return row


def _raw_rows(result: Result, index: int, point: Point) -> Iterator[dict[str, Any]]:
    raw: Mapping[str, Any] = point["raw"]
    base = {
        "point": index,
        "op": point.op,
        "method": point_method(result, point),
        "run": point.get("run"),
        "size_bytes": point.size_bytes,
        "nprocs": point.nprocs,
    }
    starts: list[list[float]] = raw.get("start_ns") or []
    ends: list[list[float]] = raw.get("end_ns") or []
    for i, time_ns in enumerate(raw["time_ns"]):
        row = dict(base)
        row.update(
            launch_index=i,
            op_launch=_at(raw.get("launch"), i),
            valid=_at(raw.get("valid"), i),
            late=_at(raw.get("late"), i),
            overrun=_at(raw.get("overrun"), i),
            discarded=_at(raw.get("discarded"), i),
            slot_ns=_at(raw.get("slot_ns"), i),
            time_ns=time_ns,
        )
        start = _at(starts, i) or []
        end = _at(ends, i) or []
        row["start_skew_ns"] = max(start) - min(start) if start else None
        if not start:
            yield row
            continue
        for rank, (t0, t1) in enumerate(zip(start, end, strict=False)):
            yield dict(row, rank=rank, start_ns=t0, end_ns=t1, duration_ns=t1 - t0)


def _frame(
    rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...], result: Result
) -> pd.DataFrame:
    import pandas as pd  # lazy: keeps `mpiscope --help` fast

    names = [name for name, _unit in columns]
    frame = pd.DataFrame.from_records(rows, columns=names)
    for name, unit in columns:
        if name in _INTEGER_COLUMNS:
            frame[name] = frame[name].astype("Int64")
        elif name in _BOOLEAN_COLUMNS:
            frame[name] = frame[name].astype("boolean")
        elif unit in ("ns", "1"):  # times and fractions
            frame[name] = frame[name].astype("float64")
        else:
            frame[name] = frame[name].astype("string")
    frame.attrs.update(_attrs(result, columns))
    return frame


def _attrs(result: Result, columns: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    # A deep copy through JSON: attrs must not share mutable state with the document.
    attrs: dict[str, Any] = {
        "source": _source(result),
        "schema_version": result.schema_version,
        "status": result.status,
        "varied": result.varied,
        "environment": json.loads(json.dumps(result.environment)),
        "method": json.loads(json.dumps(result.method)),
        "warnings": result.warnings,
        "units": {name: unit for name, unit in columns if unit},
    }
    summary = result.data.get("run_summary")
    if summary is not None:
        attrs["run_summary"] = json.loads(json.dumps(summary))
    return attrs


def _options_text(options: Mapping[str, str] | None) -> str | None:
    if not options:
        return None
    return ",".join(f"{name}={options[name]}" for name in sorted(options))


def _at(values: Any, index: int) -> Any:
    if values is None or index >= len(values):
        return None
    value = values[index]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _source(result: Result) -> str:
    return str(result.path) if result.path is not None else "<document>"
