"""The trace format's constants as the tracer (C) writes them and as the
reader (Python) reads them: the C headers are the one source, and this
test reads them, so that a change on one side without the other fails
here instead of in a misread trace."""

from __future__ import annotations

import re
from pathlib import Path

from mpiscope.trace import reader

TRACER = Path(__file__).resolve().parents[2] / "src" / "tracer"


def defines(header: str, prefix: str) -> dict[str, int]:
    """NAME (without prefix) -> value of each ``#define PREFIXNAME value``."""
    text = (TRACER / header).read_text()
    pattern = rf"^#define {prefix}(\w+) \(?(-?(?:0x[0-9a-fA-F]+|\d+))u?\)?"
    return {m[1]: int(m[2], 0) for m in re.finditer(pattern, text, re.M)}


def test_the_format_version_and_header() -> None:
    assert defines("trace_record.h", "MPISCOPE_TRACE_")["FORMAT_VERSION"] == reader.FORMAT_VERSION
    assert reader.FORMAT_VERSION in reader.READABLE_VERSIONS
    writer = (TRACER / "writer.c").read_text()
    magic = re.search(r"magic\[8\] = \{([^}]*)\}", writer)
    assert magic is not None
    assert "".join(re.findall(r"'(.)'", magic[1])).encode() == reader.MAGIC
    assert f"0x{reader.BYTE_ORDER_MARK:08x}u" in writer


def test_every_record_flag() -> None:
    flags = defines("trace_record.h", "MPISCOPE_TRACE_F_")
    assert flags, "no MPISCOPE_TRACE_F_ flag found in trace_record.h"
    assert {name: getattr(reader, f"F_{name}", None) for name in flags} == flags


def test_the_sentinels() -> None:
    c = defines("trace_record.h", "MPISCOPE_TRACE_")
    assert c["NONE"] == reader.NONE
    assert c["PEER_PROC_NULL"] == reader.PEER_PROC_NULL
    assert c["PEER_ANY_SOURCE"] == reader.PEER_ANY_SOURCE
    assert c["TAG_ANY"] == reader.TAG_ANY


def test_the_call_classes_in_order() -> None:
    classes = defines("generated/trace_functions.h", "MPISCOPE_TRACE_CLASS_")
    assert [name.lower() for name, _ in sorted(classes.items(), key=lambda kv: kv[1])] == \
        list(reader.CLASS_NAMES)
    assert sorted(classes.values()) == list(range(len(classes)))


def test_the_end_states_in_order() -> None:
    state = (TRACER / "trace_state.h").read_text()
    enum = re.search(r"enum\s*\{\s*(MPISCOPE__TRACE_END_NONE = 0,[^}]*)\}", state)
    assert enum is not None
    names = re.findall(r"MPISCOPE__TRACE_END_(\w+)", enum[1])
    assert len(names) == len(reader.END_STATUS) == 5
    assert names == ["NONE", "FINALIZED", "SIGNAL", "ABORT", "EXIT"]
    assert [reader.END_STATUS[i] for i in range(len(names))] == [
        "none", "finalized", "signal", "MPI_Abort", "exit without finalize"]
