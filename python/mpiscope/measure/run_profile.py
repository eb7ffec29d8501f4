"""The per-machine profile of run-to-run variation, recorded and used.

``mpiscope run ... --runs K`` (K >= 3) estimates per point how much
its center varies between runs beyond each run's own error
(:func:`mpiscope.result.run_variation.between_runs`) and records it
here (:func:`record_runs`); a single-run ``mpiscope run`` folds the
recorded value into each point it finds (:func:`fold_profile`), which gets
``run_interval``: what another run would read. docs/method.md
section 11, docs/cli.md.

The profile is one JSON file per host: ``--run-profile FILE``, else
``$MPISCOPE_RUN_PROFILE``, else
``$XDG_STATE_HOME/mpiscope/run-variation-HOST.json`` (``~/.local/state``
without XDG_STATE_HOME); ``off`` (either way) disables it. The names of
before schema 1.11 are still read: ``--launch-profile``,
``$MPISCOPE_LAUNCH_PROFILE``, a ``launch-variation-HOST.json`` beside an
absent default file (read; the recording goes to the new name), and a
profile of kind ``mpiscope-launch-variation`` with entries' ``launches``.
A point's
entry is found by the exact key of :func:`profile_key` (hosts, MPI library
and version, launcher, binding, the operation and all its parameters): no
interpolation between sizes, whose run-to-run behavior can change
at a protocol switch. A newer measurement of a key replaces the older.
Written atomically; a damaged file is named in one warning line and
ignored (replaced when recording).
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Mapping, MutableMapping
from pathlib import Path

from mpiscope import inputs
from mpiscope.errors import MpiscopeError
from mpiscope.measure.runner import Finish
from mpiscope.record import Record, field
from mpiscope.result import write_document
from mpiscope.result.run_variation import (
    MIN_RUNS,
    between_runs,
    run_interval,
    schema_version_with,
    summary_key,
    summary_rows,
)

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ENV_VAR",
    "OFF",
    "check_profile_path",
    "PROFILE_KIND",
    "Profile",
    "default_profile_path",
    "fold_profile",
    "profile_key",
    "profile_path",
    "profile_step",
    "read_profile",
    "record_runs",
]

#: The largest profile read (an entry per point measured with --runs).
MAX_PROFILE_BYTES = 64 << 20
#: The environment variable naming the profile (or ``off``).
ENV_VAR = "MPISCOPE_RUN_PROFILE"
#: Its name before schema 1.11, still read when ENV_VAR is not set.
OLD_ENV_VAR = "MPISCOPE_LAUNCH_PROFILE"
#: The value that disables the profile.
OFF = "off"
PROFILE_KIND = "mpiscope-run-variation"
#: The kind (and an entry's count of runs) before schema 1.11, still read.
OLD_PROFILE_KIND = "mpiscope-launch-variation"
_OLD_DEFAULT_PREFIX = "launch-variation-"
_DEFAULT_PREFIX = "run-variation-"
_VERSION = 1
#: An entry's fields and their JSON types (a file whose entries lack one is damaged).
_ENTRY_TYPES: dict[str, type | tuple[type, ...]] = {
    "key": dict,
    "between_rsd": (int, float),
    "runs": int,
    "measured_utc": str,
    "disagree": bool,
}


class Profile(Record, frozen=False):
    """A profile as read: its entries by key id, and why the file was
    ignored (None: read, or absent)."""

    path: Path
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    problem: str | None = None


def default_profile_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/mpiscope/run-variation-HOST.json`` (else ~/.local/state)."""
    env = os.environ if env is None else env
    base = Path(env.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    host = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.uname().nodename)
    return base / "mpiscope" / f"{_DEFAULT_PREFIX}{host or 'host'}.json"


def profile_path(option: str | None, env: Mapping[str, str] | None = None) -> Path | None:
    """The profile to use: ``option`` (``--run-profile``), else $MPISCOPE_RUN_PROFILE,
    else the default; None when that says ``off``."""
    env = os.environ if env is None else env
    chosen = option if option is not None else env.get(ENV_VAR, env.get(OLD_ENV_VAR))
    if chosen is None or chosen == "":
        return default_profile_path(env)
    if chosen.strip().lower() == OFF:
        return None
    return Path(chosen).expanduser()


def check_profile_path(path: Path, option: str | None) -> None:
    """Refuse, before the run, a profile that is there but not a regular
    file: it would block the reading (a named pipe) or be replaced (a
    device)."""
    named = next((f"${v}" for v in (ENV_VAR, OLD_ENV_VAR) if os.environ.get(v)), None)
    what = "--run-profile" if option is not None else named or "the run profile"
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise MpiscopeError(f"{what} {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise MpiscopeError(f"{what} {path} is {inputs.file_kind(st.st_mode)}: a run profile "
                            "is a regular file (or 'off')")  # fmt: skip


def profile_key(doc: Mapping[str, Any], point: Mapping[str, Any]) -> dict[str, Any] | None:
    """What makes a point comparable between runs; None for a point that is
    not a measurement (first-call points) or has no center."""
    if point.get("kind", "measure") != "measure" or point.get("mean_ns") is None:
        return None
    env = doc.get("environment") or {}
    library = str(env.get("mpi_library_version") or "").strip().splitlines()
    op, size, nprocs, method, cache = summary_key(doc, point)
    return {
        "hosts": list(env.get("hosts") or ()),
        "ranks_per_node": env.get("ranks_per_node"),
        "mpi": env.get("mpi_implementation"),
        "mpi_library": " ".join(library[0].split()) if library else None,
        "launcher": env.get("launcher_name"),
        "binding": env.get("binding"),
        "op": op,
        "size_bytes": size,
        "nprocs": nprocs,
        "method": method,
        "cache": cache,
        "root": point.get("root"),
        "dtype": point.get("dtype"),
        "reduce_op": point.get("reduce_op"),
        "options": dict(point.get("options") or {}),
        "arrival": point.get("arrival"),
    }


def _key_id(key: Mapping[str, Any]) -> str:
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def read_profile(path: Path) -> Profile:
    """The profile at ``path``: empty when absent; empty with ``problem`` when
    it cannot be read or is not a profile (never an exception)."""
    profile = Profile(path)
    source = path if path.exists() else _old_default(path)
    if source is None:
        return profile
    try:
        data = inputs.read_bytes(source, limit=MAX_PROFILE_BYTES)
    except MpiscopeError as exc:
        profile.problem = f"cannot be read ({exc})"
        return profile
    try:
        entries = _parse(inputs.parse_json(data, str(source)))
    except (MpiscopeError, ValueError) as exc:
        profile.problem = f"is damaged ({exc})"
        return profile
    profile.entries = {_key_id(entry["key"]): entry for entry in entries}
    return profile


def _old_default(path: Path) -> Path | None:
    """The default profile's name before schema 1.11 beside ``path``, when
    ``path`` is a default one and only the old file is there."""
    if not path.name.startswith(_DEFAULT_PREFIX):
        return None
    old = path.with_name(_OLD_DEFAULT_PREFIX + path.name[len(_DEFAULT_PREFIX):])
    return old if old.exists() else None


def _parse(doc: Any) -> list[dict[str, Any]]:
    """The entries of a profile's document (an old one's ``launches`` read as
    ``runs``); ValueError saying what is wrong."""
    if not isinstance(doc, dict) or doc.get("kind") not in (PROFILE_KIND, OLD_PROFILE_KIND):
        raise ValueError(f"not a {PROFILE_KIND} document")
    if doc.get("version") != _VERSION:
        raise ValueError(f"version {doc.get('version')!r}, this mpiscope reads {_VERSION}")
    entries = doc.get("entries")
    if not isinstance(entries, list):
        raise ValueError("no entries list")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"entry {index} is not an object")
        if "runs" not in entry and "launches" in entry:
            entry["runs"] = entry.pop("launches")
        for name, kind in _ENTRY_TYPES.items():
            value = entry.get(name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError(f"entry {index}: {name} is missing or of the wrong type")
        if not 0 <= entry["between_rsd"] < math.inf or entry["runs"] < MIN_RUNS:
            raise ValueError(f"entry {index}: between_rsd not >= 0 or runs < {MIN_RUNS}")
    return entries


def _write(profile: Profile) -> None:
    """Write ``profile`` atomically, creating its directory."""
    try:
        profile.path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MpiscopeError(f"cannot write {profile.path}: {exc.strerror or exc}") from None
    host = os.uname().nodename
    entries = sorted(profile.entries.values(), key=lambda e: _key_id(e["key"]))
    write_document(
        {"kind": PROFILE_KIND, "version": _VERSION, "host": host, "entries": entries},
        profile.path, update=True,
    )


def _utc(doc: Mapping[str, Any]) -> str:
    env = doc.get("environment") or {}
    return str(env.get("end_time_utc") or env.get("start_time_utc") or "")


def record_runs(doc: MutableMapping[str, Any], path: Path, document: Path) -> None:
    """Estimate the between-run part of every point of a merged document
    (``run --runs``, points carrying ``run``) measured by at least
    :data:`MIN_RUNS` runs; record it in the profile at ``path`` and
    say so in ``doc["run_profile"]`` (and a warning if the file was
    damaged). ``document``: where ``doc`` is written, named in the entries."""
    groups: dict[str, tuple[dict[str, Any], list[Mapping[str, Any]]]] = {}
    for point in doc.get("points") or ():
        key = profile_key(doc, point)
        if key is not None and point.get("run") is not None:
            groups.setdefault(_key_id(key), (key, []))[1].append(point)
    rows = summary_rows(doc)
    profile = read_profile(path)
    recorded = 0
    for key_id, (key, points) in groups.items():
        estimate = between_runs([p["mean_ns"] for p in points], [p.get("se_ns") for p in points])
        if estimate is None:
            continue
        row = rows.get(summary_key(doc, points[0])) or {}
        profile.entries[key_id] = {
            "key": key,
            "between_rsd": estimate.rsd,
            "runs": estimate.runs,
            "disagree": bool(row.get("disagree")),
            "disagree_reasons": list(row.get("disagree_reasons") or ()),
            "modes": [
                {"value_ns": m["value_ns"], "count": m["count"]} for m in row.get("modes") or ()
            ],
            "measured_utc": _utc(doc),
            "command_line": (doc.get("environment") or {}).get("command_line"),
            "document": str(document.resolve()),
        }
        recorded += 1
    if recorded:
        if profile.problem is not None:
            _warn(doc, f"run profile {path} {profile.problem}: replaced by this run's entries")
        _write(profile)
    doc["run_profile"] = {"path": str(path), "action": "recorded", "points": recorded}


def _warn(doc: MutableMapping[str, Any], text: str) -> None:
    doc["warnings"] = [*(doc.get("warnings") or ()), text]


def fold_profile(doc: MutableMapping[str, Any], path: Path) -> bool:
    """Give each point of a single-run ``doc`` the profile has an entry for
    its ``run_interval``, and ``doc["run_profile"]``; a damaged profile
    is one warning. Whether ``doc`` changed (nothing found: unchanged)."""
    profile = read_profile(path)
    if profile.problem is not None:
        _warn(doc, f"run profile {path} {profile.problem}: ignored")
        return True
    if not profile.entries:
        return False
    confidence = float((doc.get("method") or {}).get("confidence", 0.95))
    folded = 0
    for point in doc.get("points") or ():
        key = profile_key(doc, point)
        entry = None if key is None else profile.entries.get(_key_id(key))
        if entry is None:
            continue
        interval = run_interval(
            point["mean_ns"], point.get("se_ns"), int(point.get("samples_used") or 0),
            float(entry["between_rsd"]), int(entry["runs"]), confidence,
            float(point.get("error_floor_ns") or 0.0),
        )  # fmt: skip
        if interval is None:
            continue
        point["run_interval"] = {
            "confidence": confidence,
            "low_ns": interval.low_ns,
            "high_ns": interval.high_ns,
            "error_ns": interval.error_ns,
            "df": interval.df,
            **_calibration(entry),
        }
        folded += 1
    if not folded:
        return False
    points = sum(1 for p in doc.get("points") or () if profile_key(doc, p) is not None)
    doc["run_profile"] = {
        "path": str(path),
        "action": "used",
        "points": folded,
        "points_without": points - folded,
    }
    doc["schema_version"] = schema_version_with(str(doc.get("schema_version", "1.0")))
    return True


def _calibration(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What a point keeps of the entry it was folded from."""
    out = {
        "between_rsd": float(entry["between_rsd"]),
        "runs": int(entry["runs"]),
        "measured_utc": entry["measured_utc"],
        "command_line": _text(entry.get("command_line")),
        "document": _text(entry.get("document")),
        "disagree": entry["disagree"],
        "disagree_reasons": [r for r in entry.get("disagree_reasons") or () if r in _REASONS],
    }
    modes = [m for m in entry.get("modes") or () if _mode_ok(m)]
    if modes:
        out["modes"] = [{"value_ns": float(m["value_ns"]), "count": int(m["count"])} for m in modes]
    return out


_REASONS = ("spread", "modes")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _mode_ok(mode: Any) -> bool:
    return (
        isinstance(mode, dict)
        and isinstance(mode.get("value_ns"), (int, float))
        and mode["value_ns"] >= 0
        and isinstance(mode.get("count"), int)
        and mode["count"] >= 1
    )



def profile_step(option: str | None, runs: int) -> Finish | None:
    """The last step of ``mpiscope run`` (a :data:`mpiscope.measure.runner.Finish`):
    with ``runs`` >= :data:`MIN_RUNS` record the runs in the
    profile, with one run fold the profile in, with 2 say that they are
    too few; None when the profile is ``off``. A profile that cannot be written is a
    warning in the result, not a failure of the run."""
    path = profile_path(option)
    if path is None:
        return None
    check_profile_path(path, option)
    if runs == 2:
        def too_few(doc: dict[str, Any], out: Path) -> bool:
            _warn(doc, f"--runs 2 is too few to measure the run-to-run part "
                       f"({MIN_RUNS} or more): nothing recorded in the run profile {path}")
            return True

        return too_few

    def finish(doc: dict[str, Any], out: Path) -> bool:
        if runs == 1:
            return fold_profile(doc, path)
        try:
            record_runs(doc, path, out)
        except MpiscopeError as exc:
            _warn(doc, f"the run-to-run variation was not recorded: {exc}")
        return True

    return finish
