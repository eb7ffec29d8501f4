"""The result model: a result document (:mod:`.document`), its pandas frames
(:mod:`.frame`), the estimates and statistics read from it (:mod:`.estimate`,
:mod:`.stats`) and the units it is shown in (:mod:`.units`).

The document's main API is importable from here (``mpiscope.result.load_result``,
``mpiscope.result.validate_result``, as docs/result-schema.md says); the
other modules are imported by name. Nothing here imports pandas or numpy.
"""

from __future__ import annotations

from mpiscope.result.document import (
    Point,
    Result,
    load_result,
    parse_result,
    result_schema,
    validate_result,
    write_document,
)

__all__ = [
    "Point",
    "Result",
    "load_result",
    "parse_result",
    "result_schema",
    "validate_result",
    "write_document",
]
