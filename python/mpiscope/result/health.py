"""The health document on disk: validation, loading, and a pandas frame.

One JSON Schema (python/mpiscope/schema/health-v1.schema.json, described
in docs/health.md), kind ``health``, ``schema_version`` 1.x: a reader of
1.x accepts any 1.y and ignores what it does not know; another major is
refused with one line. ``mpiscope.load("h.json")`` gives
:func:`health_frame`: one row per measured pair of the link matrix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpiscope.inputs import bundled_json
from mpiscope.result.document import (
    check_kind,
    check_schema,
    check_version,
    read_document,
    write_document,
)

__all__ = ["health_frame", "health_schema", "load_health", "validate_health", "write_health"]

SCHEMA_MAJOR = 1


def health_schema() -> dict[str, Any]:
    """The bundled JSON Schema of the health document (version 1)."""
    return bundled_json("schema/health-v1.schema.json")


def validate_health(doc: Any, source: str = "document") -> None:
    """One-line MpiscopeError unless ``doc`` is a valid health document."""
    check_kind(doc, source, "a health", ("health",))
    check_version(doc.get("schema_version"), source, SCHEMA_MAJOR)
    check_schema(doc, health_schema(), source, "health")


def load_health(path: str | Path) -> dict[str, Any]:
    """Read and validate a health document."""
    return read_document(path, validate_health)


def write_health(doc: Mapping[str, Any], path: Path) -> None:
    """Validate, then write atomically (a reader never sees half of it)."""
    validate_health(doc, str(path))
    write_document(doc, path)


_COLUMNS = ("unit_a", "unit_b", "name_a", "name_b")


def health_frame(doc: Mapping[str, Any]) -> Any:
    """One row per measured pair: ``unit_a``, ``unit_b`` (indices),
    ``name_a``, ``name_b``, and per metric (latency in ns, bandwidth in
    bytes/s) its median, interval, samples and ``slow``. ``attrs`` holds the
    suspects, the stragglers, the fingerprint, the environment, the phases
    and the units."""
    import pandas as pd

    links = doc.get("links") or {}
    names = links.get("units") or []
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    for metric, section in (links.get("metrics") or {}).items():
        pairs = section["pairs"]
        suffix = "ns" if metric == "latency" else "bytes_per_s"
        for i, (a, b) in enumerate(zip(pairs["a"], pairs["b"], strict=True)):
            row = rows.setdefault(
                (a, b),
                {
                    "unit_a": a,
                    "unit_b": b,
                    "name_a": names[a] if a < len(names) else None,
                    "name_b": names[b] if b < len(names) else None,
                },
            )
            row[f"{metric}_{suffix}"] = pairs["median"][i]
            row[f"{metric}_low_{suffix}"] = pairs["low"][i]
            row[f"{metric}_high_{suffix}"] = pairs["high"][i]
            row[f"{metric}_samples"] = pairs["samples"][i]
            row[f"{metric}_slow"] = pairs["slow"][i]
    frame = pd.DataFrame.from_records([rows[k] for k in sorted(rows)])
    if frame.empty:
        frame = pd.DataFrame(columns=list(_COLUMNS))
    frame.attrs.update(
        {
            "kind": "health",
            "schema_version": doc.get("schema_version"),
            "status": doc.get("status"),
            "suspects": json.loads(json.dumps(doc.get("suspects") or [])),
            "stragglers": json.loads(json.dumps(doc.get("stragglers"))),
            "fingerprint": json.loads(json.dumps(doc.get("fingerprint"))),
            "environment": json.loads(json.dumps(doc.get("environment") or {})),
            "phases": json.loads(json.dumps(doc.get("phases") or [])),
            "units": dict(doc.get("units") or {}),
        }
    )
    return frame
