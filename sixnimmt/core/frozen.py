"""Immutable value classes that are quick to make: the engine makes hundreds of events and decisions
per game (docs/performance.md).

A :class:`FrozenTuple` subclass is written like a frozen dataclass (annotated fields, defaults,
class variables) and behaves like one where it matters: keyword construction, field access,
``repr``, equality only with its own class, hashing, pickling and assignment refused. Underneath it
is a tuple of its fields, as a named tuple is: making one is a single C call, which the engine
uses directly (:func:`make`), and reading a field is C's tuple indexing.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any, ClassVar, TypeVar, dataclass_transform

try:  # the C descriptor that named tuples use for their fields
    from collections import _tuplegetter  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


T = TypeVar("T", bound="FrozenTuple")

#: ``make(cls, (field, ...))``: a ``cls`` holding these fields, in order, unchecked. The engine's
#: quick way to make its own events and decisions; everyone else calls the class.
make: Callable[[type[T], tuple[Any, ...]], T] = tuple.__new__


class _FrozenTupleType(type):
    """Reads a class body's annotated fields (not its ``ClassVar`` ones) and builds the class as a
    tuple of them: a slot-less layout, a field getter per position, a ``__new__`` with the fields'
    names and defaults."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> _FrozenTupleType:
        inherited: list[str] = []
        defaults: dict[str, Any] = {}
        for base in bases:
            inherited.extend(getattr(base, "_fields", ()))
            defaults.update(getattr(base, "_field_defaults", {}))
        own = [
            field
            for field, annotation in namespace.get("__annotations__", {}).items()
            if "ClassVar" not in str(annotation)
        ]
        fields = (*inherited, *own)
        for field in own:
            if field in namespace:
                defaults[field] = namespace.pop(field)
        namespace["__slots__"] = ()
        namespace["_fields"] = fields
        namespace["_field_defaults"] = defaults
        namespace["__match_args__"] = fields
        for index, field in enumerate(fields):
            namespace[field] = _tuplegetter(index, f"Field {index}: {field}")
        if fields:
            namespace["__new__"] = _constructor(name, fields, defaults, namespace.get("__module__", __name__))
        return super().__new__(mcs, name, bases, namespace)


def _constructor(name: str, fields: tuple[str, ...], defaults: dict[str, Any], module: str) -> Any:
    """``__new__(cls, field, ...)`` with the fields' defaults, as a dataclass's ``__init__`` takes them."""
    required = len(fields) - len(defaults)
    if any(field not in defaults for field in fields[required:]):
        raise TypeError(f"{name}: a field without a default follows one with a default")
    tail = tuple(defaults.get(field) for field in fields)  # each field's default, where it has one

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if not kwargs and required <= len(args) <= len(fields):  # the usual call: fields in order
            return tuple.__new__(cls, args + tail[len(args):])
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} fields but {len(args)} were given")
        given = dict(zip(fields, args))
        for field, value in kwargs.items():
            if field not in fields or field in given:
                raise TypeError(f"{name}() got an unexpected or repeated field {field!r}")
            given[field] = value
        missing = [field for field in fields if field not in given and field not in defaults]
        if missing:
            raise TypeError(f"{name}() is missing the fields {', '.join(missing)}")
        return tuple.__new__(cls, [given[f] if f in given else defaults[f] for f in fields])

    __new__.__qualname__ = f"{name}.__new__"
    __new__.__module__ = module
    return __new__


@dataclass_transform(frozen_default=True)
class FrozenTuple(tuple[Any, ...], metaclass=_FrozenTupleType):
    """Base of the engine's immutable values (events, decisions). Subclasses declare fields as a
    frozen dataclass does; instances equal only instances of the same class with equal fields."""

    _fields: ClassVar[tuple[str, ...]]
    _field_defaults: ClassVar[dict[str, Any]]

    def __repr__(self) -> str:
        # As a dataclass writes it: Class(field=value, ...).
        return f"{type(self).__qualname__}({', '.join(f'{n}={v!r}' for n, v in zip(self._fields, self))})"

    def __eq__(self, other: object) -> bool:
        # A tuple equals any tuple with the same items; an event equals only its own kind.
        return self.__class__ is other.__class__ and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)  # pickle and copy call __new__ with the fields

    def _asdict(self) -> dict[str, Any]:
        """Each field by name (every field is an int, a string, None or a tuple of them)."""
        return dict(zip(self._fields, self))
