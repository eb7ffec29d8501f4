"""The growing document: valid after every element, written whole only when
more than its array changed (mpiscope.result.growing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mpiscope import outputs
from mpiscope.result.growing import GrowingDocument


def _doc(packets: int) -> dict:
    return {"kind": "noise-run", "status": "running",
            "packets": [{"index": i, "groups_ns": [[1.5 * i, 2.0], [3.0, 4.0]]}
                        for i in range(packets)]}


def _whole_writes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = outputs.write_bytes

    def counting(name, data, what="", update=False):  # type: ignore[no-untyped-def]
        calls.append(Path(name))
        real(name, data, what, update)

    monkeypatch.setattr(outputs, "write_bytes", counting)
    return calls


def test_each_packet_is_inserted_in_place_and_the_file_stays_valid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _whole_writes(monkeypatch)
    out, doc = tmp_path / "noise.json", _doc(0)
    file = GrowingDocument(out, "packets")
    file.save(doc, whole=True)
    assert json.loads(out.read_text()) == doc
    for index in range(5):
        doc["packets"].append(_doc(index + 1)["packets"][-1])
        file.save(doc)
        assert json.loads(out.read_text()) == doc
    # The empty document and the first packet were written whole; the rest in place.
    assert len(whole) == 2
    rows = out.read_text().split('"packets": [\n', 1)[1].splitlines()
    assert [json.loads(row.rstrip(",")) for row in rows[:-2]] == doc["packets"]  # one per line


def test_a_changed_head_or_a_replaced_file_is_written_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _whole_writes(monkeypatch)
    doc = _doc(2)
    file = GrowingDocument(tmp_path / "noise.json", "packets")
    out = file.path
    file.save(doc)
    doc["packets"].append({"index": 2})
    doc["status"] = "complete"
    file.save(doc, whole=True)
    assert json.loads(out.read_text())["status"] == "complete"
    out.write_text(json.dumps({"someone": "else"}))  # replaced meanwhile
    doc["packets"].append({"index": 3})
    file.save(doc)
    assert json.loads(out.read_text()) == doc
    assert len(whole) == 3


def test_members_after_the_array_are_kept(tmp_path: Path) -> None:
    out = tmp_path / "noise.json"
    doc = {"packets": [], "command": ["mpiexec"]}  # a member set after the array
    file = GrowingDocument(out, "packets")
    file.save(doc)
    doc["packets"].append({"index": 0})
    file.save(doc)
    doc["packets"].append({"index": 1})
    file.save(doc)
    assert json.loads(out.read_text()) == doc
