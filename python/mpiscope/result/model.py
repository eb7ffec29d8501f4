"""The model document on disk (kind ``model``, docs/model-schema.md): JSON
Schema validation (python/mpiscope/schema/model-v1.schema.json), loading,
and its pandas frame (one row per fitted parameter). Every error is one
line naming the field. The fitted model objects live in
:mod:`mpiscope.models` (a layer above this one), which reads documents
through here.

jsonschema and pandas are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpiscope.inputs import bundled_json
from mpiscope.result.document import check_kind, check_schema, check_version, read_document

__all__ = ["KINDS", "SCHEMA_MAJOR", "SCHEMA_VERSION", "load_model", "model_frame",
           "model_schema", "validate"]  # fmt: skip

KINDS = ("model",)
SCHEMA_MAJOR = 1
#: The version this package writes.
SCHEMA_VERSION = "1.2"


def model_schema() -> dict[str, Any]:
    """The bundled JSON Schema of the model document (version 1)."""
    return bundled_json("schema/model-v1.schema.json")


def validate(doc: Any, source: str = "document") -> None:
    """Raise a one-line :class:`MpiscopeError` unless ``doc`` is a valid
    model document (kind, then major version, then the schema)."""
    kind = check_kind(doc, source, "a model", KINDS)
    check_version(doc.get("schema_version"), source, SCHEMA_MAJOR)
    check_schema(doc, model_schema(), source, kind)


def load_model(path: str | Path) -> dict[str, Any]:
    """Read and validate a model document."""
    return read_document(path, validate)


def model_frame(doc: Mapping[str, Any]) -> Any:
    """One row per fitted parameter: ``model``, ``name``, ``unit``,
    ``value``, ``ci_low``, ``ci_high`` (in ``unit``); ``df.attrs`` holds
    the document's ``source``, ``fit``, ``fit_error`` and ``warnings``."""
    import pandas as pd

    frame = pd.DataFrame(
        [{"model": doc["model"], **p} for p in doc["parameters"]],
        columns=["model", "name", "unit", "value", "ci_low", "ci_high"],
    )
    for key in ("source", "fit", "fit_error", "warnings", "schema_version", "kind"):
        frame.attrs[key] = doc[key]
    return frame
