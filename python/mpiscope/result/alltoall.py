"""The alltoall-compare document on disk (docs/alltoall-schema.md): JSON
Schema validation (python/mpiscope/schema/alltoall-v1.schema.json), loading,
writing, and its pandas frame. Every error is one line naming the field.

jsonschema and pandas are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.inputs import bundled_json
from mpiscope.result.document import check_kind, check_schema, check_version, read_document
from mpiscope.result.old_names import upgrade_alltoall

__all__ = ["KINDS", "SCHEMA_MAJOR", "alltoall_frame", "alltoall_schema", "load_alltoall",
           "validate"]  # fmt: skip

KINDS = ("alltoall-compare",)
SCHEMA_MAJOR = 1


def alltoall_schema() -> dict[str, Any]:
    """The bundled JSON Schema of the alltoall-compare document (version 1)."""
    return bundled_json("schema/alltoall-v1.schema.json")


def validate(doc: Any, source: str = "document") -> None:
    """Raise a one-line :class:`MpiscopeError` unless ``doc`` is a valid
    alltoall-compare document (kind, then major version, then the schema)."""
    kind = check_kind(doc, source, "an alltoall", KINDS)
    check_version(doc.get("schema_version"), source, SCHEMA_MAJOR)
    check_schema(doc, alltoall_schema(), source, kind)
    names = {v["name"] for v in doc["variants"]}
    for index, winner in enumerate(doc["winners"]):
        for field in ("winner", "best_lab", "best_native"):
            name = winner.get(field)
            if name is not None and name not in names:
                raise MpiscopeError(f"{source} is not a consistent {kind} document: "
                                    f"winners[{index}].{field} {name!r} is none of its variants")


def load_alltoall(path: str | Path) -> dict[str, Any]:
    """Read and validate an alltoall-compare document (one of schema 1.0
    with its names read as 1.1's)."""
    doc = read_document(path, validate)
    upgrade_alltoall(doc)
    return doc


def alltoall_frame(doc: Mapping[str, Any]) -> Any:
    """One row per variant and size: ``variant``, ``kind`` (native,
    native-forced, lab), ``algorithm``, ``leaders``, ``size_bytes``,
    ``median_ns``, ``ci_low_ns``, ``ci_high_ns``, ``predicted_ns`` (the
    Hockney model, ns), ``winner`` (this variant was the fastest at this size),
    ``simulated``."""
    import pandas as pd

    winners = {w["size_bytes"]: w["winner"] for w in doc["winners"]}
    rows = [
        {
            "variant": v["name"], "kind": v["kind"], "algorithm": v["algorithm"],
            "leaders": v["leaders"], "size_bytes": p["size_bytes"], "median_ns": p["median_ns"],
            "ci_low_ns": p["ci_low_ns"], "ci_high_ns": p["ci_high_ns"],
            "predicted_ns": p["predicted_ns"], "winner": winners.get(p["size_bytes"]) == v["name"],
            "simulated": doc["simulated"],
        }  # fmt: skip
        for v in doc["variants"]
        for p in v["points"]
    ]
    return pd.DataFrame(rows)
