"""The field names of result documents before schema 1.11, read as today's.

Up to schema 1.10 one start of ``mpiscope-bench`` by the launcher was a
"launch", the word the engine also uses for one timed execution of an
operation (``launches_valid``, ``--max-launches``). Schema 1.11 calls the
first a **run** (docs/glossary.md): ``launches[]`` became ``runs[]`` (each
record's ``launch`` its ``run``), ``launch_summary`` ``run_summary`` (a
row's ``launches``, ``launch_min_ns``, ``launch_max_ns`` and its modes'
``launches`` too), ``launch_statistics`` ``run_statistics``,
``launch_profile`` ``run_profile``, a point's ``launch`` its ``run`` and its
``launch_interval`` ``run_interval`` (with ``runs``).

:func:`upgrade` renames them, once, where a document is loaded
(:func:`mpiscope.result.document.parse_result`), so no other code sees the
old names. The engine's names (``launches_total``, ``raw.launch``, ...)
keep their sense and are not touched. :func:`upgrade_alltoall` does the
same for an alltoall-compare document of schema 1.0 (``launches``, each
variant's ``launch``; 1.1: ``runs``, ``run``).
"""

from __future__ import annotations

from collections.abc import MutableMapping

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RENAMED_IN", "upgrade", "upgrade_alltoall"]

#: The schema version that renamed the fields.
RENAMED_IN = "1.11"

_TOP = {
    "launches": "runs",
    "launch_summary": "run_summary",
    "launch_statistics": "run_statistics",
    "launch_profile": "run_profile",
}
_ROW = {"launches": "runs", "launch_min_ns": "run_min_ns", "launch_max_ns": "run_max_ns"}


def upgrade(data: MutableMapping[str, Any]) -> None:
    """Rename, in place, the fields ``data`` (a valid result document) has
    under their names of before schema 1.11; a new name already there wins."""
    _rename(data, _TOP)
    for record in _dicts(data.get("runs")):
        _rename(record, {"launch": "run"})
    for row in _dicts(data.get("run_summary")):
        _rename(row, _ROW)
        for mode in _dicts(row.get("modes")):
            _rename(mode, {"launches": "runs"})
    for point in _dicts(data.get("points")):
        _rename(point, {"launch": "run", "launch_interval": "run_interval"})
        interval = point.get("run_interval")
        if isinstance(interval, dict):
            _rename(interval, {"launches": "runs"})


def upgrade_alltoall(doc: MutableMapping[str, Any]) -> None:
    """Rename, in place, the fields a (valid) alltoall-compare document of
    schema 1.0 has under their old names."""
    _rename(doc, {"launches": "runs"})
    for variant in _dicts(doc.get("variants")):
        _rename(variant, {"launch": "run"})


def _rename(obj: MutableMapping[str, Any], names: dict[str, str]) -> None:
    for old, new in names.items():
        if old in obj:
            value = obj.pop(old)
            obj.setdefault(new, value)


def _dicts(value: Any) -> list[MutableMapping[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
