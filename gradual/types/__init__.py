"""The checker's types: tensors with gradual shapes, tuples, functions, and `?`.

Types are immutable and hashable. A tensor's dims are `Dimension`s from the shape algebra
(static, symbolic, interval or `?`), or None for dynamic rank. Signatures may also hold
`Variadic` (`*b`: any number of dims); casts inserted by elaboration may hold `Broadcast`
(`e|1`). A small-integer tensor may carry its `value` (shape values, spec §3.7).

The rest of the type system lives beside them: `join` (total joins), `unify` (dimension
variables and the solver that grades equalities), `annotations` (written types to types).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Union

from gradual.shapes import Dimension, Poly, Symbol

#: narrow element types of quantized models (ONNX's, named as ml_dtypes and TVM name them)
NARROW_FLOAT_DTYPES = (
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn",
)
NARROW_INT_DTYPES = ("int4", "uint4", "int2", "uint2")
DTYPES = (
    (
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    )
    + NARROW_FLOAT_DTYPES
    + NARROW_INT_DTYPES
)
FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64", *NARROW_FLOAT_DTYPES})
INT_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", *NARROW_INT_DTYPES})
DYN_DTYPE = "?"


class DTypeVar:
    """A dtype variable: declared (`def @f[T]`, rigid in its body) or a unification variable."""

    __slots__ = ("name", "uid", "meta")
    _uids = itertools.count(1)

    def __init__(self, name: str, meta: bool = False) -> None:
        self.name = name
        self.uid = next(DTypeVar._uids)
        self.meta = meta

    def __repr__(self) -> str:
        return self.name


DType = Union[str, DTypeVar]


class DimVar(Symbol):
    """A dimension unification variable (a symbol the solver may bind)."""

    __slots__ = ("origin",)

    def __init__(self, name: str, lo: int = 0, hi: int | None = None, origin: object = None) -> None:
        super().__init__(name, lo, hi)
        self.origin = origin

    def sort_key(self) -> tuple:
        return (0, self.name, self.uid)


@dataclass(frozen=True, slots=True)
class Variadic:
    """`*b` in a signature's shape: a run of dims, named so a signature can repeat it."""

    symbol: Symbol

    def __str__(self) -> str:
        return f"*{self.symbol.name}"


@dataclass(frozen=True, slots=True)
class Broadcast:
    """`e|1` in a cast: the dim must be 1 or `target` (what broadcasting against it needs)."""

    target: Dimension

    def __str__(self) -> str:
        return f"{_format_dim_in_shape(self.target)}|1"


DimItem = Union[Dimension, Variadic, Broadcast]


class Type:
    """Base class of checker types."""

    __slots__ = ()

    def __str__(self) -> str:
        return format_type(self)


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """`Tensor[dims, dtype]`; dims None is dynamic rank; `value` holds known element values
    (Dimensions, or ints for negative elements such as a reshape's -1)."""

    dims: Optional[tuple]
    dtype: DType
    value: Optional[tuple] = None
    _hash: int = field(default=0, init=False, compare=False, repr=False)
    _closed: Optional[bool] = field(default=None, init=False, compare=False, repr=False)  # see is_ground

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.dims, self.dtype, self.value)))

    def __hash__(self) -> int:  # types are hashed often (memo keys): hash once
        return self._hash

    @property
    def rank(self) -> Optional[int]:
        """The static rank, or None."""
        if self.dims is None or any(isinstance(d, Variadic) for d in self.dims):
            return None
        return len(self.dims)

    def without_value(self) -> "TensorType":
        """The same type, forgetting the element values."""
        return self if self.value is None else TensorType(self.dims, self.dtype)

    __str__ = Type.__str__


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """`(T1, T2)`."""

    fields: tuple[Type, ...]
    _hash: Optional[int] = field(default=None, init=False, compare=False, repr=False)
    _ground: Optional[bool] = field(default=None, init=False, compare=False, repr=False)  # see is_ground

    def __hash__(self) -> int:  # hashed once: a type nested n deep would cost n per hash
        return _cached_hash(self, lambda: self.fields)

    __str__ = Type.__str__


@dataclass(frozen=True, slots=True)
class FuncType(Type):
    """`fn (T1) -> T2`, universally quantified over `dim_params` and `dtype_params`.

    `requires` holds what a definition's body checks of its signature symbols before it can
    return, `(symbol, lo, hi)` (`hi` None: no upper bound): a `pad` by -1 of `(n, m)` needs
    `m >= 1`. A call's result may assume it (`m` passed as `?` comes back as `1..`); it is
    learned, not written, so it does not print. `dtype_requires` holds, the same way, the
    dtype classes its body's operators need of its dtype variables, `(T, class)` (`bits` for a
    `bitwise_and` of a `T` tensor; ops/operand_dtypes.py): a call that binds T to a dtype
    outside the class always fails there."""

    params: tuple[Type, ...]
    ret: Type
    dim_params: tuple = ()
    dtype_params: tuple = ()
    requires: tuple = ()
    dtype_requires: tuple = ()
    #: TypeParams the type is polymorphic in (`fn [A](A) -> A`: Relay's polymorphic functions,
    #: constructors); each use instantiates them (checker/adt.py)
    type_params: tuple = ()
    _hash: Optional[int] = field(default=None, init=False, compare=False, repr=False)
    _ground: Optional[bool] = field(default=None, init=False, compare=False, repr=False)  # see is_ground

    def __hash__(self) -> int:
        return _cached_hash(
            self,
            lambda: (
                self.params,
                self.ret,
                self.dim_params,
                self.dtype_params,
                self.requires,
                self.dtype_requires,
                self.type_params,
            ),
        )

    def with_parts(self, params: tuple, ret: Type) -> "FuncType":
        """The same quantifiers and requirements over other parameter and result types."""
        return FuncType(
            params, ret, self.dim_params, self.dtype_params, self.requires, self.dtype_requires, self.type_params
        )

    def without_requires(self) -> "FuncType":
        """The same type with nothing learned of its body: what another function may share."""
        if not self.requires and not self.dtype_requires:
            return self
        return FuncType(self.params, self.ret, self.dim_params, self.dtype_params, type_params=self.type_params)

    __str__ = Type.__str__


def _cached_hash(t: Type, parts: Callable[[], tuple]) -> int:
    found = t._hash  # type: ignore[attr-defined]
    if found is None:
        found = hash(parts())
        object.__setattr__(t, "_hash", found)
    return found


@dataclass(frozen=True, slots=True)
class RefType(Type):
    """`ref(T)`: a reference to a mutable cell that holds a T (Relay's RefType).

    Invariant in T, and consistent with `ref(U)` when T is consistent with U. At runtime a
    cell carries the type it must keep (monotonic references: see runtime/values.py)."""

    content: Type
    _hash: Optional[int] = field(default=None, init=False, compare=False, repr=False)
    _ground: Optional[bool] = field(default=None, init=False, compare=False, repr=False)  # see is_ground

    def __hash__(self) -> int:
        return _cached_hash(self, lambda: (self.content,))

    __str__ = Type.__str__


@dataclass(frozen=True, slots=True)
class AdtType(Type):
    """`List[T]`: an algebraic data type (a `type` definition) applied to type arguments.

    Covariant in its arguments for consistency and joins (a value of an ADT is immutable):
    `List[Tensor[(?, 4), float32]]` is consistent with `List[Tensor[(3, 4), float32]]`."""

    name: str
    args: tuple = ()
    _hash: Optional[int] = field(default=None, init=False, compare=False, repr=False)
    _ground: Optional[bool] = field(default=None, init=False, compare=False, repr=False)  # see is_ground

    def __hash__(self) -> int:
        return _cached_hash(self, lambda: (self.name, self.args))

    __str__ = Type.__str__


class TypeParam(Type):
    """A type parameter (`A` of `def @map[A, B]`, of `type List[A]`, of `fn [A]`): rigid where
    it is declared, instantiated where a polymorphic function is used. Compares by identity."""

    __slots__ = ("name", "uid")
    _uids = itertools.count(1)

    def __init__(self, name: str) -> None:
        self.name = name
        self.uid = next(TypeParam._uids)

    def __repr__(self) -> str:
        return self.name

    __str__ = Type.__str__


@dataclass(frozen=True, slots=True)
class DynType(Type):
    """The dynamic type `?`; `from_error` marks a `?` that stands in after an error."""

    from_error: bool = field(default=False, compare=False)

    __str__ = Type.__str__


@dataclass(frozen=True, slots=True)
class BottomType(Type):
    """No information yet (a recursive call's result before the fixpoint knows it)."""

    __str__ = Type.__str__


class TypeVar(Type):
    """A type to infer (an unannotated parameter); bound by the solver."""

    __slots__ = ("name", "uid")
    _uids = itertools.count(1)

    def __init__(self, name: str = "?") -> None:
        self.name = name
        self.uid = next(TypeVar._uids)

    def __repr__(self) -> str:
        return f"?{self.name}"


class ElemVar(TypeVar):
    """A type argument no value constrains yet: the element type of `Nil`, of `None`, or a
    polymorphic function's type parameter that no argument bound. A later use binds it (the
    solver); no value of it exists, so a join with any type is that type (types/join.py)."""

    __slots__ = ()


#: the path element that stands for the contents of a reference (beside tuple field indices)
REF_CONTENT = "ref"

DYN = DynType()
ERROR = DynType(from_error=True)
BOTTOM = BottomType()


def scalar(dtype: DType, value: Optional[tuple] = None) -> TensorType:
    """The rank-0 tensor type of a dtype."""
    return TensorType((), dtype, value)


def tensor(dims: Optional[Iterable[object]], dtype: DType, value: Optional[tuple] = None) -> TensorType:
    """A tensor type from dimension-likes (ints, strings, Dimensions; None means dynamic rank)."""
    if dims is None:
        return TensorType(None, dtype, value)
    items = tuple(d if isinstance(d, (Dimension, Variadic, Broadcast)) else _as_dim(d) for d in dims)
    return TensorType(items, dtype, value)


def _as_dim(value: object) -> Dimension:
    from gradual.shapes import as_dimension

    return as_dimension(value)  # type: ignore[arg-type]


# printing ----------------------------------------------------------------------------------
def _format_dim_in_shape(dim: DimItem) -> str:
    return str(dim)


def format_dims(dims: Optional[tuple]) -> str:
    """`(2, n + 1, ?)`, `(3,)`, `()` or `*`."""
    from gradual.syntax.printer import format_dim_list

    return format_dim_list(None if dims is None else [_format_dim_in_shape(d) for d in dims])


def format_dtype(dtype: DType) -> str:
    """A dtype name, a dtype variable's name, or `?`."""
    return dtype.name if isinstance(dtype, DTypeVar) else dtype


def format_type(t: Type) -> str:
    """A type as it would be written in source (spec §5)."""
    out: list[str] = []
    _write_type(t, out)
    return "".join(out)


def _write_type(t: Type, out: list) -> None:
    """Append a type's text to `out` in pieces (joined once: a type n deep prints in linear time)."""
    if isinstance(t, TensorType):
        dtype = format_dtype(t.dtype)
        # a scalar of a dtype variable is spelled `Tensor[(), T]`: a bare `T` would read as a type parameter
        bare = t.dims == () and dtype != DYN_DTYPE and not isinstance(t.dtype, DTypeVar)
        out.append(dtype if bare else f"Tensor[{format_dims(t.dims)}, {dtype}]")
    elif isinstance(t, TupleType):
        out.append("(")
        _write_types(t.fields, out)
        out.append(",)" if len(t.fields) == 1 else ")")
    elif isinstance(t, FuncType):
        out.append(f"fn [{', '.join(p.name for p in t.type_params)}](" if t.type_params else "fn (")
        _write_types(t.params, out)
        out.append(") -> ")
        _write_type(t.ret, out)
    elif isinstance(t, RefType):
        out.append("ref(")
        _write_type(t.content, out)
        out.append(")")
    elif isinstance(t, AdtType):
        out.append(f"{t.name}[")
        _write_types(t.args, out)
        out.append("]")
    elif isinstance(t, TypeParam):
        out.append(t.name)
    elif isinstance(t, (DynType, TypeVar, BottomType)):
        out.append("?")
    else:
        raise TypeError(f"not a type: {t!r}")


def _write_types(types: tuple, out: list) -> None:
    from gradual.syntax.printer import write_separated

    write_separated(types, out, _write_type)


def format_value(value: tuple) -> str:
    """Known element values of a small tensor: `[n, 4]`."""
    return "[" + ", ".join(str(v) for v in value) + "]"


# structure ---------------------------------------------------------------------------------
def map_dims(t: Type, fn: Callable[[Dimension], Dimension]) -> Type:
    """Apply `fn` to every Dimension inside a type (signature markers are kept)."""
    if isinstance(t, TensorType):
        dims = None if t.dims is None else tuple(_map_item(d, fn) for d in t.dims)
        value = None if t.value is None else tuple(fn(v) if isinstance(v, Dimension) else v for v in t.value)
        if dims == t.dims and value == t.value:
            return t
        return TensorType(dims, t.dtype, value)
    if isinstance(t, TupleType):
        return TupleType(tuple(map_dims(f, fn) for f in t.fields))
    if isinstance(t, FuncType):
        return t.with_parts(tuple(map_dims(p, fn) for p in t.params), map_dims(t.ret, fn))
    if isinstance(t, RefType):
        content = map_dims(t.content, fn)
        return t if content is t.content else RefType(content)
    if isinstance(t, AdtType) and t.args:
        return AdtType(t.name, tuple(map_dims(a, fn) for a in t.args))
    return t


def _map_item(item: DimItem, fn: Callable[[Dimension], Dimension]) -> DimItem:
    if isinstance(item, Dimension):
        return fn(item)
    if isinstance(item, Broadcast):
        target = fn(item.target)
        return target if target.is_static and target.get_length() == 1 else Broadcast(target)  # 1|1 is 1
    return item


def map_dtypes(t: Type, fn: Callable[[DType], DType]) -> Type:
    """Apply `fn` to every dtype inside a type."""
    if isinstance(t, TensorType):
        dtype = fn(t.dtype)
        return t if dtype is t.dtype else TensorType(t.dims, dtype, t.value)
    if isinstance(t, TupleType):
        return TupleType(tuple(map_dtypes(f, fn) for f in t.fields))
    if isinstance(t, FuncType):
        return t.with_parts(tuple(map_dtypes(p, fn) for p in t.params), map_dtypes(t.ret, fn))
    if isinstance(t, RefType):
        content = map_dtypes(t.content, fn)
        return t if content is t.content else RefType(content)
    if isinstance(t, AdtType) and t.args:
        return AdtType(t.name, tuple(map_dtypes(a, fn) for a in t.args))
    return t


def type_symbols(t: Type) -> set[Symbol]:
    """Every dimension symbol a type mentions (including variadic names)."""
    found: set[Symbol] = set()

    def visit(d: Dimension) -> Dimension:
        found.update(d.symbols())
        return d

    map_dims(t, visit)
    for item in _all_items(t):
        if isinstance(item, Variadic):
            found.add(item.symbol)
    return found


def _all_items(t: Type) -> Iterable[DimItem]:
    if isinstance(t, TensorType) and t.dims is not None:
        yield from t.dims
    elif isinstance(t, TupleType):
        for f in t.fields:
            yield from _all_items(f)
    elif isinstance(t, FuncType):
        for p in t.params:
            yield from _all_items(p)
        yield from _all_items(t.ret)
    elif isinstance(t, RefType):
        yield from _all_items(t.content)
    elif isinstance(t, AdtType):
        for a in t.args:
            yield from _all_items(a)


def erase_symbols(t: Type, symbols: set[Symbol]) -> Type:
    """Forget symbols leaving scope: a dim that mentions one becomes its bounds (or `?`)."""
    if not symbols:
        return t

    def erase(d: Dimension) -> Dimension:
        if d.is_symbolic and d.symbols() & symbols:
            return Dimension.interval(d.min_length, d.max_length)
        return d

    return map_dims(t, erase)


def is_ground(t: Type) -> bool:
    """No inference variable anywhere: no type variable, no dimension variable (in dims or
    values), no dtype variable of inference; signature markers (`*b`, `e|1`) count as
    variables. Remembered by each tensor, tuple, function and reference type, so asking about a type
    built from ground parts costs one step per new part."""
    if isinstance(t, TensorType):
        ground = t._closed
        if ground is None:
            ground = _tensor_is_ground(t)
            object.__setattr__(t, "_closed", ground)
        return ground
    if isinstance(t, (TupleType, FuncType, RefType, AdtType)):
        ground = t._ground
        if ground is None:
            parts = (
                t.fields
                if isinstance(t, TupleType)
                else (t.content,)
                if isinstance(t, RefType)
                else t.args
                if isinstance(t, AdtType)
                else t.params + (t.ret,)
            )
            ground = all(is_ground(p) for p in parts)
            object.__setattr__(t, "_ground", ground)
        return ground
    return isinstance(t, (DynType, BottomType, TypeParam))


def _tensor_is_ground(t: TensorType) -> bool:
    dtype = t.dtype
    if isinstance(dtype, DTypeVar) and dtype.meta:
        return False
    if t.dims is not None:
        for d in t.dims:
            if not isinstance(d, Dimension):
                return False
            if d.is_symbolic and _mentions_variable(d):
                return False
    if t.value is not None:
        for v in t.value:
            if isinstance(v, Dimension) and v.is_symbolic and _mentions_variable(v):
                return False
    return True


def _mentions_variable(d: Dimension) -> bool:
    return any(isinstance(s, DimVar) for s in d.symbols())


def is_static_type(t: Type) -> bool:
    """No `?`, interval, dynamic rank or unknown dtype anywhere (symbols are allowed)."""
    if isinstance(t, TensorType):
        if t.dims is None or isinstance(t.dtype, str) and t.dtype == DYN_DTYPE:
            return False
        return all(isinstance(d, Dimension) and d.is_exact for d in t.dims)
    if isinstance(t, TupleType):
        return all(is_static_type(f) for f in t.fields)
    if isinstance(t, FuncType):
        return all(is_static_type(p) for p in t.params) and is_static_type(t.ret)
    if isinstance(t, RefType):
        return is_static_type(t.content)
    if isinstance(t, AdtType):
        return all(is_static_type(a) for a in t.args)
    return isinstance(t, TypeParam)


def poly_dim(expr: Poly) -> Dimension:
    """A Dimension from a polynomial."""
    return Dimension.of_expr(expr)
