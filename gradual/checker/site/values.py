"""What a call site works with: symbolic dims and dtypes with their origin, the arguments'
slots, the callee, and what the site produces (outcomes, cast patterns, proto-results).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from gradual.ops.context import ArgView, RuleFailure
from gradual.shapes import Dimension
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    DYN,
    DimVar,
    DType,
    FuncType,
    TupleType,
    Type,
    TypeVar,
)
from gradual.types.unify import SiteVar, Solver

if TYPE_CHECKING:
    from gradual.checker.site.state import SiteState

#: what a rule passes as a dim: the site's own, a Dimension, or a size
DimLike = Union["SDim", Dimension, int]

#: where a part of an argument is: the tuple field indices (and reference markers) down to it
ArgPath = tuple[Any, ...]


@dataclass(frozen=True)
class Origin:
    """Where a dimension or dtype came from: argument, tuple path, axis (None for dtype)."""

    arg: int
    path: ArgPath = ()
    axis: Optional[int] = None


class SDim:
    """A dimension in the checker's domain: a Dimension and, if it is an argument's, where from."""

    __slots__ = ("dim", "origin", "symbol", "untracked")

    def __init__(self, dim: Dimension, origin: Optional[Origin] = None, symbol: Optional[str] = None) -> None:
        self.dim = dim
        self.origin = origin
        self.symbol = symbol
        # computed from exact dims, but not exact: "" (no), "size" (too large to track) or
        # "quotient" (a division by a dim that does not divide as polynomials)
        self.untracked = ""

    def _combine(self, other: Any, op: Callable[[Dimension, Dimension], Dimension], dividing: bool = False) -> "SDim":
        try:
            right = (
                other.dim if isinstance(other, SDim) else Dimension.static(other) if isinstance(other, int) else other
            )
            result = SDim(op(self.dim, right))
        except ValueError as exc:
            raise RuleFailure("negative-dim", {"detail": str(exc)}) from None
        lost = self.dim.is_exact and isinstance(right, Dimension) and right.is_exact and not result.dim.is_exact
        reason = ("quotient" if dividing and not right.is_static else "size") if lost else ""
        result.untracked = reason or self.untracked or (other.untracked if isinstance(other, SDim) else "")
        return result

    def extremum(self, kind: str, other: Any) -> "SDim":
        """`max(self, other)` or `min` (`kind`), as a signature's `max(a, b)` computes it."""
        pick = Dimension.maximum if kind == "max" else Dimension.minimum
        return self._combine(other, pick)

    def __add__(self, other: Any) -> "SDim":
        if isinstance(other, int) and other < 0:  # `h + -1`, as exporters write `h - 1`
            return self - (-other)
        return self._combine(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other: Any) -> "SDim":
        if isinstance(other, int) and other < 0:
            return self + (-other)
        return self._combine(other, lambda a, b: a - b)

    def __rsub__(self, other: Any) -> "SDim":
        if isinstance(other, int) and other < 0:
            raise RuleFailure("negative-dim", {"detail": f"a size of {other}"})
        left = SDim(Dimension.static(other)) if isinstance(other, int) else other
        return left - self

    def __mul__(self, other: Any) -> "SDim":
        if other.__class__ is int and other == 1:  # `I * groups` at groups = 1: still the argument's dim
            return self
        return self._combine(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other: Any) -> "SDim":
        if isinstance(other, int) and other <= 0:
            raise RuleFailure("bad-divisor", {"divisor": other})
        if isinstance(other, SDim) and other.dim.is_static and other.dim.get_length() == 0:
            raise RuleFailure("bad-divisor", {"divisor": 0})
        return self._combine(other, lambda a, b: a // b, dividing=True)

    def __repr__(self) -> str:
        return f"SDim({self.dim})"

    def __str__(self) -> str:
        return str(self.dim)


class SDType:
    """A dtype in the checker's domain, with the argument it came from."""

    __slots__ = ("dtype", "origin")

    def __init__(self, dtype: DType, origin: Optional[Origin] = None) -> None:
        self.dtype = dtype
        self.origin = origin


def raw_dtype(d: Any) -> DType:
    """The dtype inside an SDType (or a plain dtype)."""
    return d.dtype if isinstance(d, SDType) else d


@dataclass
class Slot:
    """One imprecise dimension of one argument: checked or bound at runtime."""

    origin: Origin
    var: SiteVar
    known: Dimension
    broadcast_to: Optional[SDim] = None


@dataclass
class ArgInfo:
    """One argument expression of the call."""

    type: Type
    node: Optional[ast.Node]
    span: Span
    binder: Optional[object] = None
    facts: frozenset[Any] = frozenset()  # what the argument's binder is known to satisfy


@dataclass
class Callee:
    """What is being called, for messages: `nn.dense`, `@f` or `%g`."""

    kind: str
    name: str
    param_names: tuple[str, ...] = ()
    signature: str = ""
    decl_span: Optional[Span] = None
    expected: Optional[Type] = None
    cast: bool = False

    @property
    def display(self) -> str:
        """The name as written at the call."""
        if self.kind == "closure" and self.name == "this function":  # a call of an expression, not of a variable
            return self.name
        return {"op": self.name, "global": f"@{self.name}", "closure": f"%{self.name}"}.get(self.kind, self.name)


@dataclass
class CastPattern:
    """What one argument was assumed to have, to be verified at runtime."""

    arg: int
    node: Optional[ast.Node]
    type: Type
    verifies: bool
    binds: bool
    reason: str = ""


@dataclass
class SiteOutcome:
    """The result of checking one call."""

    result: Type
    casts: list[CastPattern] = field(default_factory=list)
    refinements: list[tuple[int, Any, Type]] = field(default_factory=list)  # (argument index, binder, refined type)
    facts: list[tuple[int, Any, Any]] = field(default_factory=list)  # (argument index, binder, fact)
    failed: bool = False
    binders: list[Any] = field(default_factory=list)  # symbols the casts bind at runtime
    instantiation: tuple[tuple[str, Any], ...] = ()  # (symbol name, what it was bound to) for tools: `k := 784`
    #: (rigid symbol, lo, hi): bounds this call stops at runtime where a symbol is outside them
    learned: list[tuple[Any, Any, Any]] = field(default_factory=list)

    @property
    def shared(self) -> bool:
        """Whether nothing in it belongs to the call it came from (no cast, refinement or fact):
        another call of the same key may take it as it is."""
        return not (self.casts or self.refinements or self.facts)


@dataclass
class ProtoTensor:
    """A rule's tensor result before resolution."""

    dims: Optional[list[Any]]
    dtype: Any
    value: Optional[list[Any]] = None


@dataclass
class ProtoTuple:
    """A rule's tuple result before resolution."""

    fields: list[Any]


@dataclass
class ProtoRef:
    """A signature's reference result before resolution."""

    content: Any


@dataclass
class ProtoFunction:
    """A function-typed result before resolution: its type, whose symbols and dtype variables
    of the callee's signature stand for what this call bound them to."""

    type: Type
    dims: dict[Any, Any]  # symbol -> what this call bound it to
    dtypes: dict[Any, Any]  # dtype variable -> the dtype bound
    quantified: frozenset[Any]
    quantified_dtypes: frozenset[Any]


class Opened:
    """An argument opened as a tensor/tuple view, with its type-variable bookkeeping."""

    def __init__(self, view: ArgView, typevar: Optional[TypeVar] = None, dynamic: bool = False) -> None:
        self.view = view
        self.typevar = typevar
        self.dynamic = dynamic


class FuncArg(ArgView):
    """A function-typed argument."""

    __slots__ = ("type",)

    def __init__(self, index: int, path: ArgPath, t: FuncType) -> None:
        super().__init__(index, path)
        self.type = t


class ValueArg(ArgView):
    """An argument of an algebraic data type or a type parameter: compared whole (adt.py)."""

    __slots__ = ("type",)

    def __init__(self, index: int, path: ArgPath, t: Type) -> None:
        super().__init__(index, path)
        self.type = t


class RefArg(ArgView):
    """A reference argument: the view of its contents."""

    __slots__ = ("content",)

    def __init__(self, index: int, path: ArgPath, content: ArgView) -> None:
        super().__init__(index, path)
        self.content = content


def mentions_claimed(d: Dimension) -> bool:
    return d.is_symbolic and any(s.claimed for s in d.symbols())


def untracked(proto: Any) -> str:
    """Why a rule's result holds a dim computed from exact dims that is not exact ("size": past
    the polynomial bounds, "quotient": a division that does not divide), or ""."""
    if isinstance(proto, ProtoTuple):
        return next((r for r in map(untracked, proto.fields) if r), "")
    if isinstance(proto, ProtoTensor):
        items = list(proto.dims or ()) + list(proto.value or ())
        return next((d.untracked for d in items if isinstance(d, SDim) and d.untracked), "")
    return ""


def field_type(t: Type, i: int) -> Type:
    if isinstance(t, TupleType) and i < len(t.fields):
        return t.fields[i]
    return DYN


def sdim(d: Any) -> SDim:
    if isinstance(d, SDim):
        return d
    if isinstance(d, int):
        if d < 0:
            raise RuleFailure("negative-dim", {"detail": f"a size of {d}"})
        return SDim(Dimension.static(d))
    if isinstance(d, Dimension):
        return SDim(d)
    raise TypeError(f"not a dimension: {d!r}")


def value_item(v: Any) -> Any:
    """An element of a shape value: negative integers stay ints (reshape codes such as -1)."""
    if isinstance(v, int) and v < 0:
        return v
    return sdim(v)


def sdtype(d: Any) -> SDType:
    return d if isinstance(d, SDType) else SDType(d)


def as_dim(d: Any) -> Dimension:
    return d if isinstance(d, Dimension) else Dimension.static(d)


def bound_value(site: SiteState, value: Any, upper: bool) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    dim = site.solver.resolve(sdim(value).dim, final=True)
    if dim.is_static:
        return dim.get_length()
    return dim.max_length if upper else dim.min_length


def broadcast_hull(solver: Solver, a: DimVar, b: DimVar) -> Optional[Dimension]:
    """What the broadcast of two unknown runtime dims can be, from their bounds (the shape
    algebra's `broadcast_merge`: `1..4` with `5..8` is `5..8`, `?` with `?` is `?`). None when
    no value of either broadcasts with the other."""
    return Dimension.broadcast_merge(Dimension.interval(*solver.bounds(a)), Dimension.interval(*solver.bounds(b)))
