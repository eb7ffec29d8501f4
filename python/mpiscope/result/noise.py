"""The noise documents on disk: validation, loading, and pandas frames.

Four kinds share one JSON Schema (python/mpiscope/schema/noise-v1.schema.json,
described in docs/noise-schema.md): "noise-run" (packet times of a detector
run), "noise-verdict" (the comparison of two samples), "noise-probe" (the
per-core FWQ/FTQ/selfish summaries) and "noise-calibration" (a sweep of
injected agents). Every error is one line naming the field.

jsonschema and pandas are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mpiscope import inputs
from mpiscope.errors import MpiscopeError
from mpiscope.inputs import bundled_json
from mpiscope.result.document import check_kind, check_schema, check_version, read_document

__all__ = [
    "KINDS",
    "SCHEMA_MAJOR",
    "document_kind",
    "load_noise",
    "noise_frame",
    "noise_schema",
    "validate",
]

#: The document kinds this module reads.
KINDS = ("noise-run", "noise-verdict", "noise-probe", "noise-calibration")
#: The schema major version this mpiscope reads.
SCHEMA_MAJOR = 1


def noise_schema() -> dict[str, Any]:
    """The bundled JSON Schema of the noise documents (version 1)."""
    return bundled_json("schema/noise-v1.schema.json")


def validate(doc: Any, source: str = "document") -> None:
    """Raise a one-line :class:`MpiscopeError` unless ``doc`` is a valid noise document.

    Checked in this order: a JSON object, a known ``kind``, a ``schema_version``
    of major 1, then the schema (the message names the first offending field).
    """
    kind = check_kind(doc, source, "a noise", KINDS)
    check_version(doc.get("schema_version"), source, SCHEMA_MAJOR)
    check_schema(doc, noise_schema(), source, kind)


def document_kind(path: str | Path) -> str | None:
    """The ``kind`` of the JSON document at ``path`` (None when it has none or
    cannot be read: the real loader then says what is wrong)."""
    try:
        doc = inputs.read_json(path)
    except MpiscopeError:
        return None
    kind = doc.get("kind") if isinstance(doc, dict) else None
    return kind if isinstance(kind, str) else None


def load_noise(path: str | Path) -> dict[str, Any]:
    """Read and validate a noise document (any of the three kinds)."""
    return read_document(path, validate)


def _run_frame(doc: Mapping[str, Any]) -> Any:
    import pandas as pd

    packets = doc.get("packets") or []
    frame = pd.DataFrame(
        {
            "index": [p["index"] for p in packets],
            "block": [p["block"] for p in packets],
            "agent": pd.array([p["agent"] for p in packets], dtype="boolean"),
            "seconds": [float(p["seconds"]) for p in packets],
        }
    )
    # Normalised to the baseline median: the agent-off packets of an alternating run.
    base = frame["seconds"]
    if doc.get("design") == "alternate":
        base = frame.loc[frame["agent"].eq(False).fillna(False), "seconds"]
    median = float(base.median()) if len(base) else float("nan")
    frame["normalised"] = frame["seconds"] / median if median > 0 else float("nan")
    return frame


def _probe_frame(doc: Mapping[str, Any]) -> Any:
    import pandas as pd

    def field(part: Mapping[str, Any] | None, key: str) -> Any:
        return None if part is None else part.get(key)

    rows = []
    for w in doc["workers"]:
        fwq, ftq, selfish, triad = w.get("fwq"), w.get("ftq"), w.get("selfish"), w.get("triad")
        rows.append(
            {
                "host": w.get("host"),
                "rank": w["rank"],
                "core": w["core"],
                "fwq_count": field(fwq, "count"),
                "fwq_median_ns": field(fwq, "median_ns"),
                "fwq_p99_ns": field(fwq, "p99_ns"),
                "fwq_share_lost": field(fwq, "share_lost"),
                "ftq_quantum_ns": field(ftq, "quantum_ns"),
                "ftq_share_lost": field(ftq, "share_lost"),
                "ftq_peaks": len(ftq["peaks"]) if ftq else None,
                "selfish_detours": field(selfish, "detours"),
                "selfish_total_ns": field(selfish, "total_ns"),
                "selfish_share_lost": field(selfish, "share_lost"),
                "selfish_p99_ns": field(selfish, "p99_ns"),
                "selfish_period_ns": field(selfish, "period_ns"),
                "dominant_hz": w.get("dominant_hz"),
                "triad_bytes_per_s": field(triad, "bandwidth_bytes_per_s"),
            }
        )
    return pd.DataFrame(rows)


def _verdict_frame(doc: Mapping[str, Any]) -> Any:
    import pandas as pd

    crit = doc["criteria"]
    ci, iq, mw = crit["ci_overlap"], crit["iqr_outliers"], crit["mann_whitney"]
    rows = [
        ("ci_overlap", "boundary_gap", ci["boundary_gap"], None, 0.0, ci["detected"]),
        ("iqr_outliers", "share", iq["share"], iq["p_value"], iq.get("alpha"), iq["detected"]),
        ("mann_whitney", "u", mw["u"], mw["p_value"], mw["alpha"], mw["detected"]),
    ]
    rows += [
        ("quantile_shift", key, crit["quantile_shift"][key], None, None, None)
        for key in ("p50", "p90", "p99")
    ]
    if "signed_rank" in crit:  # schema 1.3: the ABBA pairs of an alternating run
        sr, pi = crit["signed_rank"], crit["paired_interval"]
        rows.append(("signed_rank", "w_plus", sr["w_plus"], sr["p_value"], sr["alpha"],
                     sr["detected"]))
        rows.append(("paired_interval", "estimate", pi["estimate"], None, 0.0, pi["detected"]))
    frame = pd.DataFrame(
        rows, columns=["criterion", "statistic", "value", "p_value", "threshold", "detected"]
    )
    frame["detected"] = frame["detected"].astype("boolean")
    return frame


def noise_frame(doc: Mapping[str, Any]) -> Any:
    """A pandas DataFrame of a noise document.

    * noise-run: one row per packet - ``index``, ``block``, ``agent``
      (nullable boolean), ``seconds``, ``normalised`` (to the baseline median:
      all packets of a separate run, the agent-off packets of an alternating one);
    * noise-probe: one row per worker - host, rank, core and the FWQ, FTQ and
      selfish summaries (``*_ns`` in ns, ``*_share_lost`` fractions), ``dominant_hz``,
      ``triad_bytes_per_s`` (the STREAM triad probe; empty when it did not run);
    * noise-calibration: one row per run (detector, agent, load, fired...);
    * noise-verdict: one row per criterion - ``criterion``, ``statistic``,
      ``value`` (normalised to the baseline median, a share, or U), ``p_value``,
      ``threshold``, ``detected``; quantile_shift gives one row per quantile
      (p50, p90, p99) with ``detected`` empty.
    """
    kind = doc.get("kind")
    if kind == "noise-run":
        return _run_frame(doc)
    if kind == "noise-probe":
        return _probe_frame(doc)
    if kind == "noise-verdict":
        return _verdict_frame(doc)
    if kind == "noise-calibration":
        import pandas as pd

        runs = [{**r, "fired": ",".join(r["fired"])} for r in doc["runs"]]
        return pd.DataFrame(runs)
    raise MpiscopeError(f"no frame for kind {kind!r}; expected one of {', '.join(KINDS)}")
