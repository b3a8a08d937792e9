"""The types reference cells keep (monotonic references, see gradual/checker/references.py).

A cell's type is *closed*: what a reference type means in the frame where a cast checked the
cell, with every bound symbol and dtype variable replaced by its value (a cell outlives the
frame). Strengthening a cell takes the meet of its type and the closed cast type: the most
precise type both describe, or None where they conflict (then the cast fails).
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.runtime.values import Frame
from gradual.shapes import Dimension, Poly, Symbol
from gradual.types import (
    DYN_DTYPE,
    Broadcast,
    DTypeVar,
    DynType,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    Variadic,
)

_EXPRESSION_SYMBOLS: dict = {}


def expression_symbol(expr: Poly) -> Symbol:
    """The symbol that stands for an expression no cast could solve (`n * m`)."""
    found = _EXPRESSION_SYMBOLS.get(expr)
    if found is None:
        found = _EXPRESSION_SYMBOLS[expr] = Symbol(f"({expr})")
    return found


def closed_type(t: Type, frame: Frame, quantified: frozenset = frozenset()) -> Type:
    """`t` with the symbols and dtype variables bound in `frame` replaced by their values;
    anything else left open becomes `?` (a function type keeps its own quantified names)."""
    if isinstance(t, TensorType):
        dims = None if t.dims is None else _closed_dims(t.dims, frame, quantified)
        return TensorType(dims, _closed_dtype(t.dtype, frame, quantified))
    if isinstance(t, TupleType):
        return TupleType(tuple(closed_type(f, frame, quantified) for f in t.fields))
    if isinstance(t, RefType):
        return RefType(closed_type(t.content, frame, quantified))
    if isinstance(t, FuncType):
        inner = quantified | set(t.dim_params) | set(t.dtype_params)
        return FuncType(
            tuple(closed_type(p, frame, inner) for p in t.params),
            closed_type(t.ret, frame, inner),
            t.dim_params,
            t.dtype_params,
        )
    return t


def _closed_dims(dims: tuple, frame: Frame, quantified: frozenset) -> Optional[tuple]:
    """The dims with a run (`*b`) replaced by the sizes it was bound to; None (any rank) where
    it is not bound (a run is several dims: one `?` in its place fixed the rank wrongly)."""
    out: list = []
    for d in dims:
        if isinstance(d, Variadic) and d.symbol not in quantified:
            run = frame.dim(d.symbol)
            if not isinstance(run, tuple):
                return None
            out.extend(Dimension.static(size) for size in run)
        else:
            out.append(_closed_dim(d, frame, quantified))
    return tuple(out)


def _closed_dim(d: Any, frame: Frame, quantified: frozenset) -> Any:
    if isinstance(d, Variadic):
        return d if d.symbol in quantified else Dimension.dynamic()
    if isinstance(d, Broadcast) or not d.is_symbolic:
        return Dimension.dynamic() if isinstance(d, Broadcast) else d
    if d.symbols() & quantified:
        return d
    try:
        value = d.evaluate(frame.env())
    except KeyError:
        value = frame.dim(expression_symbol(d.expr))  # an expression a cast bound as a whole
    return Dimension.static(value) if isinstance(value, int) and value >= 0 else Dimension.dynamic()


def _closed_dtype(dtype: Any, frame: Frame, quantified: frozenset) -> Any:
    if not isinstance(dtype, DTypeVar) or dtype in quantified:
        return dtype
    return frame.dtype(dtype) or DYN_DTYPE


def meet(a: Type, b: Type) -> Optional[Type]:
    """The most precise type that both closed types describe, or None where they conflict."""
    if isinstance(a, DynType):
        return b
    if isinstance(b, DynType) or a == b:
        return a
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return _meet_tensors(a, b)
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.fields) == len(b.fields):
        return _all_or_none(TupleType, [meet(x, y) for x, y in zip(a.fields, b.fields)])
    if isinstance(a, RefType) and isinstance(b, RefType):
        content = meet(a.content, b.content)
        return None if content is None else RefType(content)
    if isinstance(a, FuncType) and isinstance(b, FuncType) and len(a.params) == len(b.params):
        if a.dim_params or a.dtype_params or b.dim_params or b.dtype_params:
            return None  # two different polymorphic types: no meet is computed
        met = [meet(x, y) for x, y in zip(a.params + (a.ret,), b.params + (b.ret,))]
        parts = [p for p in met if p is not None]
        if len(parts) < len(met):
            return None
        return FuncType(tuple(parts[:-1]), parts[-1])
    return None


def _all_or_none(make: Any, parts: list) -> Optional[Type]:
    return None if any(p is None for p in parts) else make(tuple(parts))


def _meet_tensors(a: TensorType, b: TensorType) -> Optional[TensorType]:
    if a.dtype == DYN_DTYPE:
        dtype = b.dtype
    elif b.dtype == DYN_DTYPE or a.dtype == b.dtype:
        dtype = a.dtype
    else:
        return None
    if a.dims is None or b.dims is None:
        return TensorType(b.dims if a.dims is None else a.dims, dtype)
    if len(a.dims) != len(b.dims):
        return None
    dims = []
    for x, y in zip(a.dims, b.dims):
        if not (isinstance(x, Dimension) and isinstance(y, Dimension)):
            dims.append(x if isinstance(x, Dimension) else y)
            continue
        merged = Dimension.merge(x, y)
        if merged is None:
            return None
        dims.append(merged)
    return TensorType(tuple(dims), dtype)
