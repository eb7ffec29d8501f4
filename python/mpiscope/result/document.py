"""Reading result documents written by mpiscope-bench.

:func:`load_result` reads a file, checks its ``schema_version`` (major 1) and
validates it against the bundled JSON Schema (draft 2020-12), then wraps it
in :class:`Result`, a small typed view. Every problem is an
:class:`~mpiscope.errors.MpiscopeError` with a one-line message. The whole
document stays available as plain dicts (``Result.data``, ``Point.data``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from mpiscope import inputs, outputs
from mpiscope.errors import MpiscopeError
from mpiscope.record import Record
from mpiscope.result.center import median
from mpiscope.result.old_names import upgrade

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "SCHEMA_MAJOR",
    "PerRank",
    "Point",
    "Result",
    "Summary",
    "load_result",
    "check_kind",
    "check_schema",
    "check_version",
    "import_validator",
    "checks_own_documents",
    "parse_json",
    "parse_result",
    "read_document",
    "read_text",
    "result_schema",
    "validate_result",
    "write_document",
    "write_text_atomic",
]

#: The major schema version this package reads.
SCHEMA_MAJOR = 1
_VERSION_RE = re.compile(r"^(\d+)\.(\d+)$")
_MAX_MESSAGE = 240


class Summary(Record):
    """Median, mean and maximum of a per-launch quantity (ns)."""

    median_ns: float | None
    mean_ns: float | None
    max_ns: float | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Summary | None:
        if data is None:
            return None
        return cls(data.get("median_ns"), data.get("mean_ns"), data.get("max_ns"))


class PerRank(Record):
    """One rank's own durations for a point (ns); ``start_delay_ns``: how much
    later than the first rank it started a launch (median over the valid
    launches; only with raw samples)."""

    rank: int
    median_ns: float | None
    mean_ns: float | None
    min_ns: float | None
    max_ns: float | None
    start_delay_ns: float | None = None


class Point(Record):
    """One measurement point: an operation at one size and process count."""

    data: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def op(self) -> str:
        return str(self.data["op"])

    @property
    def size_bytes(self) -> int | None:
        """The size asked for; None for operations without a size."""
        value = self.data["size_bytes"]
        return None if value is None else int(value)

    @property
    def actual_bytes(self) -> int | None:
        value = self.data["actual_bytes"]
        return None if value is None else int(value)

    @property
    def nprocs(self) -> int:
        return int(self.data["nprocs"])

    @property
    def launches_total(self) -> int:
        return int(self.data["launches_total"])

    @property
    def launches_valid(self) -> int:
        return int(self.data["launches_valid"])

    @property
    def samples_used(self) -> int:
        return int(self.data["samples_used"])

    @property
    def median_ns(self) -> float | None:
        return _ns(self.data["median_ns"])

    @property
    def mean_ns(self) -> float | None:
        return _ns(self.data["mean_ns"])

    @property
    def error_ns(self) -> float | None:
        return _ns(self.data["error_ns"])

    @property
    def min_ns(self) -> float | None:
        return _ns(self.data["min_ns"])

    @property
    def max_ns(self) -> float | None:
        return _ns(self.data["max_ns"])

    @property
    def confidence(self) -> float:
        return float(self.data["confidence"])

    @property
    def global_span(self) -> Summary | None:
        return Summary.from_dict(self.data.get("global_span"))

    @property
    def start_skew(self) -> Summary | None:
        return Summary.from_dict(self.data.get("start_skew"))

    @property
    def unstable(self) -> bool:
        return bool(self.data["unstable"])

    @property
    def unstable_reasons(self) -> list[str]:
        return list(self.data["unstable_reasons"])

    @property
    def oversubscribed(self) -> bool:
        return bool(self.data["oversubscribed"])

    @property
    def per_rank(self) -> list[PerRank] | None:
        rows = self.data.get("per_rank")
        if rows is None:
            return None
        delays = _start_delays(self.data.get("raw"))
        return [
            PerRank(
                r["rank"], r["median_ns"], r["mean_ns"], r["min_ns"], r["max_ns"],
                delays.get(r["rank"]),
            )
            for r in rows
        ]  # fmt: skip


def launch_is_kept(raw: Mapping[str, Any], index: int) -> bool:
    """Whether launch ``index`` of a point's raw samples counts in its
    statistics: valid, and not discarded by a window restart (schema 1.13;
    a launch the lists do not reach counts)."""
    valid = raw.get("valid") or ()
    discarded = raw.get("discarded") or ()
    return (index >= len(valid) or bool(valid[index])) and not (
        index < len(discarded) and discarded[index])


def kept_times(point: Mapping[str, Any] | Point) -> list[float] | None:
    """The times of the launches a point's statistics use (``raw.time_ns``
    of its kept launches, unmeasured ones left out); None when the point
    kept no raw samples."""
    raw = point.get("raw")
    if not raw:
        return None
    times = raw.get("time_ns") or ()
    return [float(t) for i, t in enumerate(times) if t is not None and launch_is_kept(raw, i)]


def _start_delays(raw: Mapping[str, Any] | None) -> dict[int, float]:
    """Per rank, the median over kept launches of its start minus the
    earliest start of the launch (global clock)."""
    if not raw:
        return {}
    per_rank: dict[int, list[float]] = {}
    for i, starts in enumerate(raw.get("start_ns") or []):
        if not starts or not launch_is_kept(raw, i):
            continue
        first = min(starts)
        for rank, start in enumerate(starts):
            per_rank.setdefault(rank, []).append(start - first)
    return {rank: median(values) for rank, values in per_rank.items()}


class Result(Record):
    """A validated result document."""

    data: Mapping[str, Any]
    path: Path | None = None

    @property
    def schema_version(self) -> str:
        return str(self.data["schema_version"])

    @property
    def status(self) -> str:
        """One of "running", "complete", "failed"."""
        return str(self.data["status"])

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def error(self) -> str | None:
        """Why the run failed, when the bench said so."""
        return self.data.get("error")

    @property
    def environment(self) -> Mapping[str, Any]:
        environment: Mapping[str, Any] = self.data["environment"]
        return environment

    @property
    def method(self) -> Mapping[str, Any]:
        method: Mapping[str, Any] = self.data["method"]
        return method

    @property
    def confidence(self) -> float:
        return float(self.data["method"]["confidence"])

    @property
    def varied(self) -> str:
        """What the points vary: "size" or "nprocs"."""
        return str(self.data["varied"])

    @property
    def points(self) -> list[Point]:
        return [Point(p) for p in self.data["points"]]

    @property
    def points_kind(self) -> str | None:
        """The kind every point shares ("firstcall", "startup"); None when
        they differ, have none (a measurement's points) or there is none."""
        kinds = {p.get("kind") for p in self.data["points"]}
        return kinds.pop() if len(kinds) == 1 else None

    @property
    def warnings(self) -> list[str]:
        return list(self.data["warnings"])

    def __iter__(self) -> Iterator[Point]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.data["points"])


def result_schema() -> dict[str, Any]:
    """The bundled JSON Schema of result documents (version 1)."""
    return inputs.bundled_json("schema/result-v1.schema.json")


#: Set (to anything but "" or "0") to validate against the schema also the
#: documents mpiscope-bench writes in a run, as the test suite does.
CHECK_OWN_ENV = "MPISCOPE_CHECK_DOCUMENTS"


def checks_own_documents() -> bool:
    """Whether the documents a run's own bench writes are validated against
    the schema (CHECK_OWN_ENV), not only checked for version and shape."""
    return os.environ.get(CHECK_OWN_ENV, "") not in ("", "0")


def load_result(path: str | Path, own: bool = False) -> Result:
    """Read, check and validate a result document. ``own``: one the bench
    of this run wrote (:func:`validate_result`)."""
    path = Path(path)
    try:
        text = read_text(path)
    except UnicodeDecodeError:
        raise MpiscopeError(f"{path} is not a result document: not UTF-8 text") from None
    return parse_result(text, source=str(path), path=path, own=own)


def read_text(path: Path) -> str:
    """A document's text; one MpiscopeError line when it cannot be read
    (:func:`mpiscope.inputs.read_text`: a regular file only, its size
    bounded). UnicodeDecodeError is left to the caller to name."""
    return inputs.read_text(path)


#: JSON text as Python values (:func:`mpiscope.inputs.parse_json`).
parse_json = inputs.parse_json


def parse_result(text: str, source: str = "<string>", path: Path | None = None,
                 own: bool = False) -> Result:
    """Check and validate a result document given as JSON text."""
    data = parse_json(text, source)
    validate_result(data, source, own)
    upgrade(data)  # the names of before schema 1.11, once, here
    return Result(data, path)


def validate_result(data: Any, source: str = "<document>", own: bool = False) -> None:
    """Raise MpiscopeError unless ``data`` is a valid version-1 result
    document. ``own``: written by this run's bench (and this mpiscope), so
    its version and the shape the views rely on are checked, and the schema
    only when :func:`checks_own_documents`: the validator's import and
    compilation cost 30 ms of a 2-rank sweep's 0.37 s (AMD EPYC VM); the
    tests validate every document the bench writes."""
    if not isinstance(data, dict):
        raise MpiscopeError(f"{source} is not a result document: the top level is not an object")
    version = data.get("schema_version")
    if version is None:
        raise MpiscopeError(f"{source} is not a result document: no schema_version")
    check_version(version, source, SCHEMA_MAJOR, " (use a matching mpiscope version)")
    if own and not checks_own_documents():
        _check_shape(data, source)
    else:
        check_schema(data, result_schema(), source, "result")


def _check_shape(data: Mapping[str, Any], source: str) -> None:
    """The containers every view reads: one line naming the first that is
    not there or not of its kind."""
    kinds = {"environment": dict, "method": dict, "points": list, "warnings": list}
    for key, kind in kinds.items():
        if not isinstance(data.get(key), kind):
            raise MpiscopeError(f"{source} is not a result document: {key} is not a JSON "
                                f"{'object' if kind is dict else 'array'}")
    for index, point in enumerate(data["points"]):
        if not isinstance(point, dict):
            raise MpiscopeError(f"{source} is not a result document: points[{index}] is not "
                                "a JSON object")


def check_kind(doc: Any, source: str, family: str, kinds: tuple[str, ...]) -> str:
    """The ``kind`` of ``doc``; a one-line MpiscopeError unless ``doc`` is a
    JSON object of one of ``kinds`` (documents of the ``family``)."""
    if not isinstance(doc, dict):
        raise MpiscopeError(f"{source} is not {family} document: the top level is not an object")
    kind = doc.get("kind")
    if kind not in kinds:
        raise MpiscopeError(f"{source} has kind {kind!r}; expected one of {', '.join(kinds)}")
    return str(kind)


def check_version(version: Any, source: str, major: int, advice: str = "") -> None:
    """Raise a one-line MpiscopeError unless ``version`` is "MAJOR.MINOR" of ``major``."""
    match = _VERSION_RE.match(version) if isinstance(version, str) else None
    if match is None:
        raise MpiscopeError(f"{source}: schema_version {version!r} is not of the form MAJOR.MINOR")
    if int(match.group(1)) != major:
        raise MpiscopeError(
            f"{source} has schema_version {version}; this mpiscope reads {major}.x{advice}"
        )


def import_validator() -> None:
    """Import the JSON Schema validator now. It is imported lazily (keeps
    ``mpiscope --help`` fast); a command that validates after a stretch a
    Ctrl-C may cut short (a launch) calls this first, so that the interrupt
    cannot land inside the import and leave it half initialized for the
    reading of what was kept."""
    if _fast_validator_module() is None:
        import jsonschema  # noqa: F401


@functools.lru_cache(maxsize=1)
def _fast_validator_module() -> Any:
    """jsonschema_rs (compiled: ~0.2 ms for a sweep's document and ~10 ms to
    import, where jsonschema takes ~20 ms and ~50 ms), or None without it."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    return jsonschema_rs


_fast_validators: dict[int, tuple[Mapping[str, Any], Any]] = {}


def _fast_valid(doc: Any, schema: Mapping[str, Any]) -> bool:
    """Whether the compiled validator accepts ``doc`` (False without it, or
    when it cannot compile ``schema``: jsonschema then decides)."""
    module = _fast_validator_module()
    if module is None:
        return False
    entry = _fast_validators.get(id(schema))
    if entry is None or entry[0] is not schema:
        try:
            entry = (schema, module.Draft202012Validator(schema))
        except Exception:  # noqa: BLE001 - any failure of the optional fast path: use jsonschema
            return False
        _fast_validators[id(schema)] = entry
    try:
        return bool(entry[1].is_valid(doc))
    except Exception:  # noqa: BLE001 - e.g. a value it cannot convert: jsonschema decides
        return False


def check_schema(doc: Any, schema: Mapping[str, Any], source: str, name: str) -> None:
    """Raise a one-line MpiscopeError naming the first offending field unless
    ``doc`` matches the JSON Schema ``schema`` (of the document kind ``name``).
    A document the compiled validator accepts is valid; any other is judged
    by jsonschema, whose best match names the field."""
    if _fast_valid(doc, schema):
        return
    import jsonschema  # lazy: keeps `mpiscope --help` fast

    validator = jsonschema.Draft202012Validator(schema)
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    except RecursionError:
        raise MpiscopeError(f"{source} is not a {name} document: nested too deeply") from None
    if error is None:
        return
    parts = list(error.absolute_path)
    missing = re.match(r"^'([^']+)'", error.message) if error.validator == "required" else None
    if missing:  # "'x' is a required property" at the parent: name the missing field itself
        parts.append(missing.group(1))
    message = " ".join(error.message.split())
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    raise MpiscopeError(
        f"{source} does not match the {name} schema {doc.get('schema_version')}: "
        f"{_json_path(parts)}{message}"
    )


def read_document(path: str | Path, validate: Callable[[Any, str], None]) -> dict[str, Any]:
    """The JSON document at ``path``, checked by ``validate(doc, source)``;
    every failure is one MpiscopeError line naming the file."""
    path = Path(path)
    with contextlib.suppress(ValueError):  # a bad name: the reader says so
        if not path.exists() and not path.is_symlink():
            raise MpiscopeError(f"{path} does not exist")
    doc = inputs.read_json(path)
    validate(doc, str(path))
    return dict(doc)


def _ns(value: Any) -> float | None:
    return None if value is None else float(value)


def _json_path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return f"at {text}: " if text else ""


def write_document(doc: Mapping[str, Any], path: Path, update: bool = False) -> None:
    """Write a JSON document to ``path`` (:func:`mpiscope.outputs.write_text`:
    whole or not at all, a regular file only, never an input unless
    ``update``)."""
    try:
        text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
    except ValueError as exc:
        raise MpiscopeError(f"cannot write {path}: {exc}") from None
    outputs.write_text(path, text, update=update)


def write_text_atomic(path: Path, text: str, update: bool = False) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename
    (:func:`mpiscope.outputs.write_text`)."""
    outputs.write_text(path, text, update=update)
