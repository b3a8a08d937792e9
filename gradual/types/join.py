"""Joins of types (spec §3.4): total, they only lose precision.

Equal dims stay, two static dims give their interval hull, anything else gives `?`; tensors
of different rank join to dynamic rank; different dtypes to `?`. `widen` is the join used
between fixpoint iterations: a dim that changed at all becomes `?`, so loops terminate.
"""

from __future__ import annotations

from typing import Callable, Optional

from gradual.shapes import Dimension, Poly
from gradual.shapes import join as join_dims
from gradual.types import (
    DYN,
    DYN_DTYPE,
    AdtType,
    BottomType,
    DynType,
    ElemVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeVar,
    Variadic,
    map_dims,
    map_dtypes,
)
from gradual.types.params import instantiate_like


def _join(a: Type, b: Type, dim_join: Callable[[Dimension, Dimension], Dimension]) -> Type:
    if a is b or hash(a) == hash(b) and a == b:  # hashes are cached: nested types compare once
        return a
    if isinstance(a, BottomType):
        return b
    if isinstance(b, BottomType):
        return a
    if isinstance(a, DynType) and a.from_error:
        return b
    if isinstance(b, DynType) and b.from_error:
        return a
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return _join_tensors(a, b, dim_join)
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.fields) == len(b.fields):
        return TupleType(tuple(_join(x, y, dim_join) for x, y in zip(a.fields, b.fields)))
    if isinstance(a, FuncType) and isinstance(b, FuncType) and len(a.params) == len(b.params):
        if a.type_params != b.type_params:  # `@id` beside a `fn (A) -> A`: the instance that fits
            a = instantiate_like(a, b) or a
            b = instantiate_like(b, a) or b
        return _join_functions(a, b, dim_join)
    if isinstance(a, RefType) and isinstance(b, RefType):
        # sound for monotonic references: a cell keeps its own type, every write is checked
        return RefType(_join(a.content, b.content, dim_join))
    if isinstance(a, AdtType) and isinstance(b, AdtType) and a.name == b.name and len(a.args) == len(b.args):
        return AdtType(a.name, tuple(_join(x, y, dim_join) for x, y in zip(a.args, b.args)))
    if isinstance(a, ElemVar):  # no value has it (an empty list's elements): the other side says all
        return b
    if isinstance(b, ElemVar):
        return a
    return DYN


def _join_functions(a: FuncType, b: FuncType, dim_join: Callable[[Dimension, Dimension], Dimension]) -> Type:
    """What two functions of one arity share: the type of both where they are the same up to
    the names of their own symbols and dtype variables (two definitions of one signature);
    with the same parameters (so renamed), those parameters and the join of the results
    (each function returns within it: `fn (n) -> (2 * n)` and `fn (n) -> (n)` give
    `fn (n) -> (?)`); `?` otherwise (a fully static program that
    chose between `@f` and `@g` of one signature had its calls checked)."""
    b = _renamed_like(b, a)
    params = tuple(_without_values(p) for p in a.params)
    if params != tuple(_without_values(p) for p in b.params):
        return DYN
    # the results are joined by `_join` itself, level by level (stripping a function nested n
    # deep at every level was quadratic)
    return FuncType(params, _join(a.ret, b.ret, dim_join), a.dim_params, a.dtype_params)


def _renamed_like(b: FuncType, a: FuncType) -> FuncType:
    """`b` with its own symbols and dtype variables renamed, in order, to `a`'s (unchanged
    where their numbers differ)."""
    if (
        not (b.dim_params or b.dtype_params)
        or len(a.dim_params) != len(b.dim_params)
        or len(a.dtype_params) != len(b.dtype_params)
    ):
        return b
    mapping = dict(zip(b.dim_params, a.dim_params))
    polys = {old: Poly.atom(new) for old, new in mapping.items()}
    dtypes = dict(zip(b.dtype_params, a.dtype_params))

    def rename(d: Dimension) -> Dimension:
        if d.is_symbolic and d.symbols() & mapping.keys():
            return Dimension.of_expr(d.expr.substitute(lambda sym: polys.get(sym)))
        return d

    def runs(t: Type) -> Type:
        if isinstance(t, TupleType):
            return TupleType(tuple(runs(f) for f in t.fields))
        if isinstance(t, FuncType):
            return t.with_parts(tuple(runs(p) for p in t.params), runs(t.ret))
        if not isinstance(t, TensorType) or t.dims is None:
            return t
        return TensorType(
            tuple(Variadic(mapping.get(d.symbol, d.symbol)) if isinstance(d, Variadic) else d for d in t.dims),
            t.dtype,
            t.value,
        )

    parts = [map_dtypes(runs(map_dims(t, rename)), lambda d: dtypes.get(d, d)) for t in b.params + (b.ret,)]
    return FuncType(tuple(parts[:-1]), parts[-1], a.dim_params, a.dtype_params)


def _join_tensors(a: TensorType, b: TensorType, dim_join: Callable[[Dimension, Dimension], Dimension]) -> TensorType:
    dtype = a.dtype if a.dtype == b.dtype else DYN_DTYPE
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims) or not _runs_agree(a.dims, b.dims):
        return TensorType(None, dtype)
    dims = tuple(_join_item(x, y, dim_join) for x, y in zip(a.dims, b.dims))
    return TensorType(dims, dtype, _join_values(a.value, b.value, dim_join))


def _join_values(
    a: Optional[tuple], b: Optional[tuple], dim_join: Callable[[Dimension, Dimension], Dimension]
) -> Optional[tuple]:
    """Known element values both branches share, element by element: two sizes join as dims do
    (`shape_of` of a (n, 4) and of a (n, 5) is `[n, 4..5]`, spec §3.4 and 3.7; it was no value,
    so a `dyn.reshape` to it lost `n`); an int element (a reshape's -1) must be equal, or
    nothing is known."""
    if a == b:
        return a
    if a is None or b is None or len(a) != len(b):
        return None
    out = []
    for x, y in zip(a, b):
        if x == y:
            out.append(x)
        elif isinstance(x, Dimension) and isinstance(y, Dimension):
            out.append(dim_join(x, y))
        else:
            return None
    return tuple(out)


def _runs_agree(a: tuple, b: tuple) -> bool:
    """Whether two shapes of one length have the same run (`*b`) at the same place, or none:
    a run against dims (`(*b, k)` and `(2, 3)`) may be of any rank."""
    return all(
        isinstance(x, Variadic) == isinstance(y, Variadic) and (not isinstance(x, Variadic) or x == y)
        for x, y in zip(a, b)
    )


def _join_item(x: object, y: object, dim_join: Callable[[Dimension, Dimension], Dimension]) -> object:
    if isinstance(x, Dimension) and isinstance(y, Dimension):
        return dim_join(x, y)
    return x if x == y else Dimension.dynamic()


def without_values(t: Type) -> Type:
    """A type with its tensors' known element values forgotten (what a type argument holds:
    `Cons(0, Nil)` is a `List[int32]`, not a list of zeros)."""
    return _without_values(t)


def _without_values(t: Type) -> Type:
    """A type with the known element values of its tensors, and what its functions' bodies
    were learned to check, forgotten (the shapes stay): what two branches' functions share."""
    if isinstance(t, TensorType):
        return t.without_value()
    if isinstance(t, TupleType):
        return TupleType(tuple(_without_values(f) for f in t.fields))
    if isinstance(t, FuncType):
        return t.with_parts(tuple(_without_values(p) for p in t.params), _without_values(t.ret)).without_requires()
    if isinstance(t, AdtType) and t.args:
        return AdtType(t.name, tuple(_without_values(a) for a in t.args))
    return t


def join(a: Type, b: Type) -> Type:
    """The join of two types: what both branches of an `if` share."""
    return _join(a, b, join_dims)


def _widen_dim(a: Dimension, b: Dimension) -> Dimension:
    return a if a == b else Dimension.dynamic()


def widen(previous: Type, current: Type) -> Type:
    """The join used between iterations: anything that changed becomes `?`."""
    return _join(previous, current, _widen_dim)


def join_all(types: list[Type]) -> Optional[Type]:
    """The join of several types (None for none)."""
    result: Optional[Type] = None
    for t in types:
        result = t if result is None else join(result, t)
    return result


__all__ = ["join", "widen", "join_all", "TypeVar"]
