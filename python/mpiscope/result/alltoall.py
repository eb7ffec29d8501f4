"""The alltoall-compare document on disk (docs/alltoall-schema.md): JSON
Schema validation (python/mpiscope/schema/alltoall-v1.schema.json), loading,
writing, and its pandas frame. Every error is one line naming the field.

jsonschema and pandas are imported inside the functions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from mpiscope.errors import MpiscopeError
from mpiscope.result.document import parse_json

__all__ = ["KINDS", "SCHEMA_MAJOR", "alltoall_frame", "alltoall_schema", "load_alltoall",
           "validate"]  # fmt: skip

KINDS = ("alltoall-compare",)
SCHEMA_MAJOR = 1
_VERSION_RE = re.compile(r"^(\d+)\.(\d+)$")
_MAX_MESSAGE = 200


def alltoall_schema() -> dict[str, Any]:
    """The bundled JSON Schema of the alltoall-compare document (version 1)."""
    text = resources.files("mpiscope").joinpath("schema/alltoall-v1.schema.json").read_text(
        "utf-8"
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate(doc: Any, source: str = "document") -> None:
    """Raise a one-line :class:`MpiscopeError` unless ``doc`` is a valid
    alltoall-compare document (kind, then major version, then the schema)."""
    if not isinstance(doc, dict):
        raise MpiscopeError(f"{source} is not an alltoall document: the top level is not an object")
    kind = doc.get("kind")
    if kind not in KINDS:
        raise MpiscopeError(f"{source} has kind {kind!r}; expected {', '.join(KINDS)}")
    version = doc.get("schema_version")
    match = _VERSION_RE.match(version) if isinstance(version, str) else None
    if match is None or int(match.group(1)) != SCHEMA_MAJOR:
        raise MpiscopeError(
            f"{source} has schema_version {version!r}; this mpiscope reads {SCHEMA_MAJOR}.x"
        )
    import jsonschema  # type: ignore[import-untyped]

    validator = jsonschema.Draft202012Validator(alltoall_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if error is None:
        return
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    message = " ".join(error.message.split())
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    raise MpiscopeError(
        f"{source} does not match the {kind} schema {version}: "
        f"{where.lstrip('.') or 'top level'}: {message}"
    )


def load_alltoall(path: str | Path) -> dict[str, Any]:
    """Read and validate an alltoall-compare document."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MpiscopeError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MpiscopeError(
            f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    doc = parse_json(text, str(path))
    validate(doc, str(path))
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
