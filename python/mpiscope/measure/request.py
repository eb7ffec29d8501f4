"""What a measuring command was asked, as typed values: its request.

Each command that measures turns its parsed options into one request,
once (:meth:`MeasureRequest.of`); everything below the commands reads the
request, never a command line. The Python API (:mod:`mpiscope.api`) parses
its keyword options with the same parser as the command line and makes the
same request from them.

A field is named as its option is (``--max-point-seconds``:
``max_point_seconds``), and has no default here: the defaults are the
option registry's (:mod:`mpiscope.measure.options`), which every measuring
command's parser holds, those of the options it does not take too
(:mod:`mpiscope.measure.command_options`). The engine's plan parameters (``--root``,
``--stop``, ``--target-rse``, ...) are described by the engine itself
(:func:`mpiscope.measure.options.engine_parameters`): they are
:attr:`MeasureRequest.engine`, by name, not fields of their own. Lists
become tuples: a request does not change once made (:meth:`with_options`
makes another).
"""

from __future__ import annotations

from collections.abc import Mapping

from mpiscope.measure.defaults import ALWAYS_PASSED, SIMULATED_DEFAULTS
from mpiscope.measure.method_options import Arrival
from mpiscope.record import Record, fields, replace
from mpiscope.result.describe import description, parameter

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

__all__ = [
    "CheckRequest",
    "FirstcallRequest",
    "MeasureRequest",
    "OverlapRequest",
    "RunRequest",
    "StartupRequest",
]

class MeasureRequest(Record, kw_only=True):
    """The options every measuring command shares: those of ``mpiscope run``
    (:func:`~mpiscope.measure.options.add_measure_options`), launcher and
    placement flags among them."""

    # how the ranks start (add_launcher_options, mpiscope.measure.cluster)
    launcher: str
    srun_nodes: int | None
    ntasks_per_node: int | None
    cpu_bind: str | None
    partition: str | None
    account: str | None
    srun_mpi: str | None
    srun_arg: tuple[str, ...]
    hosts: str | None
    hostfile: str | None
    platform: str | None
    smpi_cfg: tuple[str, ...]
    # what is measured
    np: int
    sizes: str | None
    nprocs: str | None
    cache: tuple[str, ...]
    method: tuple[str, ...] | None
    arrival: Arrival | None
    clock_transform: str | None
    option: tuple[tuple[str, str], ...]
    runs: int
    seed: int | None
    #: the engine's plan parameters by name: each flag the engine describes,
    #: at its value (None: not given, the bench's default)
    engine: Mapping[str, Any]
    # what is kept and shown
    per_rank: bool
    raw: bool
    resync: bool
    validate: bool
    out: str | None
    force: bool
    oversubscribe: bool
    mpi: str | None
    timeout: float | None
    quiet: bool
    dry_run: bool
    #: the operations, comma-separated as given ("" for a command without)
    ops: str = ""
    #: the command line after ``mpiscope`` (the result records it)
    argv: tuple[str, ...] = ()
    #: ranks per simulated host (``mpiscope health``: one a node; not an
    #: option); None: each host filled to its cores
    ranks_per_host: int | None = None

    @classmethod
    def of(cls: type[_R], values: Mapping[str, Any], **changes: Any) -> _R:
        """The request of parsed options ``values`` (an option's name to its
        value, as argparse gives them: every option of the command, those it
        does not take at the registry's default,
        :func:`~mpiscope.measure.options.measure_defaults`), then
        ``changes``. A command's own option named as an engine parameter
        (``check --sync``) is the command's, not the engine's."""
        merged = {**values, **changes}
        names = _field_names(cls) - {"engine"}
        own = _field_names(cls) - _field_names(MeasureRequest)
        engine = {name: merged.get(name) for name in _engine_names() - names - own}
        given = {name: _frozen(merged[name]) for name in names if name in merged}
        return cls(**given, engine=engine)

    def param(self, name: str) -> Any:
        """The engine parameter ``name`` (None: not given); a parameter with
        a field of its own (``clock_transform``) is read from the field."""
        if name in self.engine:
            return self.engine[name]
        return getattr(self, name, None) if name in _field_names(type(self)) else None

    def value(self, name: str) -> Any:
        """The engine parameter ``name`` as the bench gets it: the flag's
        value as given, else on a simulated cluster (``--launcher smpi``) its
        :data:`~mpiscope.measure.defaults.SIMULATED_DEFAULTS` entry, else the
        flag's default (None: the engine's own, not passed)."""
        given = self.param(name)
        if given is not None:
            return given
        return self.simulated_default(name, parameter(name)["default"] if name in ALWAYS_PASSED
                                      else None)  # fmt: skip

    def simulated_default(self, name: str, default: Any) -> Any:
        """What an option not given takes: its simulated default under
        ``--launcher smpi``, else ``default``."""
        if self.launcher == "smpi" and name in SIMULATED_DEFAULTS:
            return SIMULATED_DEFAULTS[name]
        return default

    def stop_rule(self) -> str:
        """The stopping rule: deterministic on a simulated cluster unless
        ``--stop`` says otherwise."""
        return str(self.value("stop"))

    def with_options(self: _R, **changes: Any) -> _R:
        """This request with some options changed, fields and engine
        parameters alike (``np=4``, ``root=1``)."""
        names = _field_names(type(self))
        unknown = [k for k in changes if k not in names and k not in self.engine]
        if unknown:
            raise TypeError(f"no option {unknown[0]!r} in a {type(self).__name__}")
        engine = {k: v for k, v in changes.items() if k in self.engine and k not in names}
        given = {k: _frozen(v) for k, v in changes.items() if k in names}
        return replace(self, **given, engine={**self.engine, **engine})


if TYPE_CHECKING:  # bound after the class
    _R = TypeVar("_R", bound=MeasureRequest)


def _engine_names() -> set[str]:
    """The engine's plan parameters (a request holds the flags among them)."""
    return {str(p["name"]) for p in description()["plan_parameters"]}


def _field_names(cls: type[MeasureRequest]) -> set[str]:
    return set(fields(cls))


def _frozen(value: Any) -> Any:
    """Lists (and the pairs in them) as tuples."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


class RunRequest(MeasureRequest):
    """``mpiscope run``: and the run profile, the bias ledger."""

    run_profile: str | None
    ledger: str | None

    def ledger_on(self) -> bool:
        """Whether the bias ledger is measured: ``--ledger`` as given, by
        default on but on a simulated cluster."""
        return (self.ledger or self.simulated_default("ledger", "on")) == "on"


class FirstcallRequest(MeasureRequest):
    """``mpiscope firstcall``: the one message size (``--size``)."""

    size: str


class OverlapRequest(MeasureRequest):
    """``mpiscope overlap``: the one nonblocking or persistent operation."""

    op: str


class StartupRequest(MeasureRequest):
    """``mpiscope startup``: the ways to start MPI, the round trips' size,
    the runs of each and init_thread's level."""

    how: str
    size: str
    thread_level: str


class CheckRequest(MeasureRequest):
    """``mpiscope check``: the drift pause, the sync algorithms shown, and
    whether only the verdicts are."""

    drift_seconds: float
    sync: tuple[str, ...]
    brief: bool
