"""A JSON document that grows at its end: a run's packets, one at a time.

The document is written whole (through :mod:`mpiscope.outputs`: a temporary
file and a rename) with its growing array as its last member, one element
per line; each new element is then inserted before the closing ``]`` and
``}`` in place (:func:`mpiscope.outputs.insert_before_tail`). A noise run of
480 packets with their iteration groups is 1-2 MB: writing it whole after
every packet cost the detector's own cores up to half their time by the end
of a run, inside the packets it was timing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpiscope import outputs
from mpiscope.errors import MpiscopeError

__all__ = ["GrowingDocument"]

_TAIL = b"\n]\n}\n"


def _element(item: Any) -> bytes:
    try:
        return json.dumps(item, separators=(",", ":"), allow_nan=False).encode()
    except ValueError as exc:
        raise MpiscopeError(f"cannot write a document element: {exc}") from None


class GrowingDocument:
    """``path``'s document, whose member ``key`` (an array) grows."""

    def __init__(self, path: Path, key: str) -> None:
        self.path, self.key = path, key
        self._identity: tuple[int, int, int] | None = None
        self._written = 0  # elements of ``key`` in the file

    def save(self, doc: Mapping[str, Any], whole: bool = False) -> None:
        """The file as ``doc``: only the new elements of ``key`` when the rest
        is as last written (the caller says otherwise with ``whole``)."""
        items = doc[self.key]
        if not whole and 0 < self._written <= len(items):
            new = items[self._written:]
            data = b"".join(b",\n" + _element(item) for item in new)
            identity = outputs.insert_before_tail(self.path, _TAIL, data, self._identity)
            if identity is not None:
                self._identity, self._written = identity, len(items)
                return
        self._write_whole(doc)

    def _write_whole(self, doc: Mapping[str, Any]) -> None:
        head = {k: v for k, v in doc.items() if k != self.key}
        try:
            text = json.dumps(head, indent=1, allow_nan=False)
        except ValueError as exc:
            raise MpiscopeError(f"cannot write {self.path}: {exc}") from None
        items = doc[self.key]
        opening = (text[:-2] + ",\n" if head else "{\n") + f' "{self.key}": ['
        body = b",".join(b"\n" + _element(item) for item in items)
        data = opening.encode() + body + (_TAIL if items else b"]\n}\n")
        outputs.write_bytes(self.path, data)
        st = os.stat(self.path)
        self._identity = (st.st_dev, st.st_ino, st.st_size)
        self._written = len(items)
