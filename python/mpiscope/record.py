"""Records: value classes that cost nothing to define.

``dataclasses`` writes and compiles each class's ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` when the class
is defined, and imports inspect (with ast, dis and tokenize) to do it. The
38 dataclasses that ``mpiscope run`` defined before and after its bench,
with that import, took half of its Python start-up on the AMD EPYC VM
(docs/benchmarks.md). A record reads its fields from its annotations and
shares one ``__init__``, so defining one costs microseconds; building one
costs a little more than a dataclass (a loop, not generated code), so the
classes built in hot loops (the tracer's) stay dataclasses::

    class Link(Record):
        source: str
        label: str = ""            # a default
        notes: list[str] = field(default_factory=list)

    class Profile(Record, frozen=False): ...    # fields may be assigned
    class Request(Record, kw_only=True): ...    # keyword arguments only

Fields are the annotations (``ClassVar`` ones excepted), a base record's
first. Records are frozen unless ``frozen=False``; equal when of the same
type with equal fields; hashed by their fields when frozen.
:func:`replace`, :func:`fields` and :func:`asdict` are the dataclasses
functions of the same names.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time (mpiscope/__init__.py)
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[type], type]:
        return lambda cls: cls


__all__ = ["Record", "asdict", "field", "fields", "replace"]

class _Factory:
    """A default made anew for each record (``field(default_factory=...)``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], Any]) -> Any:
    """A field whose default is ``default_factory()``, called for each record."""
    return _Factory(default_factory)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Record:
    """The base of a record (see the module)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _names: ClassVar[frozenset[str]] = frozenset()
    _defaults: ClassVar[dict[str, Any]] = {}
    _frozen: ClassVar[bool] = True
    _kw_only: ClassVar[bool] = False

    def __init_subclass__(cls, frozen: bool | None = None, kw_only: bool | None = None,
                          **kwargs: Any) -> None:  # fmt: skip
        super().__init_subclass__(**kwargs)
        own = [name for name, kind in cls.__dict__.get("__annotations__", {}).items()
               if not str(kind).startswith(("ClassVar", "typing.ClassVar"))]  # fmt: skip
        cls._fields = (*cls._fields, *(name for name in own if name not in cls._fields))
        cls._names = frozenset(cls._fields)
        defaults = {name: cls.__dict__[name] for name in own if name in cls.__dict__}
        cls._defaults = {**cls._defaults, **defaults}
        for name, value in defaults.items():
            if isinstance(value, _Factory):
                delattr(cls, name)  # an instance without the field must not read the factory
        cls._frozen = cls._frozen if frozen is None else frozen  # a base record's, else given
        cls._kw_only = cls._kw_only if kw_only is None else kw_only
        if cls._frozen:
            cls.__hash__ = Record._hash  # type: ignore[method-assign,assignment]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # as a dataclass with eq, mutable

    def __init__(self, *args: Any, **values: Any) -> None:
        cls = type(self)
        names = cls._fields
        if args:
            if cls._kw_only:
                raise TypeError(f"{cls.__name__} takes keyword arguments only")
            if len(args) > len(names):
                raise TypeError(f"{cls.__name__} takes {len(names)} arguments, {len(args)} given")
            given = dict(zip(names, args, strict=False))
            twice = values.keys() & given.keys()
            if twice:
                raise TypeError(f"{cls.__name__} got {sorted(twice)[0]!r} twice")
            values.update(given)
        if values.keys() != cls._names:  # some left to their defaults, or unknown
            unknown = values.keys() - cls._names
            if unknown:
                raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
            for name in names:
                if name in values:
                    continue
                if name not in cls._defaults:
                    raise TypeError(f"{cls.__name__} is missing {name!r}")
                default = cls._defaults[name]
                values[name] = default.make() if isinstance(default, _Factory) else default
        self.__dict__.update(values)  # one call, not a __setattr__ per field

    def __setattr__(self, name: str, value: Any) -> None:
        if type(self)._frozen:
            raise _unchanging(self)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if type(self)._frozen:
            raise _unchanging(self)
        object.__delattr__(self, name)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return _values(self) == _values(other)

    def _hash(self) -> int:
        return hash(_values(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({shown})"


if TYPE_CHECKING:  # bound after the class
    _R = TypeVar("_R", bound=Record)


def _unchanging(record: Record) -> AttributeError:
    return AttributeError(f"a {type(record).__name__} does not change: replace() makes another")


def _values(record: Record) -> tuple[Any, ...]:
    return tuple(getattr(record, name) for name in record._fields)


def fields(record: Record | type[Record]) -> tuple[str, ...]:
    """The names of the fields, in order (a base's first)."""
    return record._fields


def asdict(record: Record) -> dict[str, Any]:
    """The fields and their values (not copied, not recursed into)."""
    return {name: getattr(record, name) for name in record._fields}


def replace(record: _R, **changes: Any) -> _R:
    """Another record of the same type, ``changes`` made."""
    return type(record)(**{**asdict(record), **changes})
