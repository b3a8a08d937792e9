"""Type parameters: substituting them, instantiating a polymorphic function type, and merging
(in checker/adt.py) what the uses of one parameter say about it.

A polymorphic function (`fn [A](A, List[A]) -> List[A]`: a constructor, `@map`, `@id` used
as a value) is instantiated at each use: its parameters become what the arguments give them
(checker/adt.py), or fresh `ElemVar`s that a later use binds. When several arguments give
one parameter, the types are *merged*: where they agree the parameter is that type, where
one is less precise (`?` against 3) it is the less precise one, so that an argument that is
more precise than another never makes the other need a check of every element (a list's
shape is checked where an element is relied on); where they conflict (3 against 4) the first
one stays and the call reports the other.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from gradual.shapes import Dimension
from gradual.types import (
    DYN,
    DYN_DTYPE,
    REF_CONTENT,
    AdtType,
    DynType,
    ElemVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
)


def map_leaves(t: Type, fn: Callable[[Type], Optional[Type]]) -> Type:
    """The type with each TypeParam and TypeVar `fn` maps (to a type; None: kept) replaced,
    rebuilt only where something changed. Iterative over nesting is not needed: types are as
    deep as their annotations."""
    if isinstance(t, (TypeParam, TypeVar)):
        found = fn(t)
        return t if found is None else found
    if isinstance(t, TupleType):
        fields = tuple(map_leaves(f, fn) for f in t.fields)
        return t if all(a is b for a, b in zip(fields, t.fields)) else TupleType(fields)
    if isinstance(t, AdtType):
        args = tuple(map_leaves(a, fn) for a in t.args)
        return t if all(a is b for a, b in zip(args, t.args)) else AdtType(t.name, args)
    if isinstance(t, FuncType):
        params = tuple(map_leaves(p, fn) for p in t.params)
        ret = map_leaves(t.ret, fn)
        if ret is t.ret and all(a is b for a, b in zip(params, t.params)):
            return t
        return t.with_parts(params, ret)
    if isinstance(t, RefType):
        content = map_leaves(t.content, fn)
        return t if content is t.content else RefType(content)
    return t


def substitute(t: Type, mapping: dict) -> Type:
    """`t` with the type parameters `mapping` names replaced."""
    if not mapping:
        return t
    return map_leaves(t, lambda leaf: mapping.get(leaf) if isinstance(leaf, TypeParam) else None)


def fresh_instance(fn: FuncType) -> FuncType:
    """A polymorphic function type with its type parameters replaced by fresh ElemVars (to be
    bound by the use), no longer quantified over them."""
    if not fn.type_params:
        return fn
    mapping = {p: ElemVar(p.name) for p in fn.type_params}
    inner = FuncType(
        tuple(substitute(p, mapping) for p in fn.params),
        substitute(fn.ret, mapping),
        fn.dim_params,
        fn.dtype_params,
        fn.requires,
        fn.dtype_requires,
    )
    return inner


def conflicts(a: Type, b: Type) -> bool:
    """Whether two types can never describe one value: different kinds, dtypes, ranks, tuple
    lengths, type names or exact dims (variables, `?` and type parameters conflict with
    nothing; a dim over an inference variable may still be solved)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, (DynType, TypeVar)) or isinstance(y, (DynType, TypeVar)):
            continue
        if isinstance(x, TypeParam) or isinstance(y, TypeParam):
            if x is not y:
                return True
            continue
        if type(x) is not type(y):
            return True
        if isinstance(x, TensorType):
            assert isinstance(y, TensorType)
            if _dtype_conflict(x.dtype, y.dtype):
                return True
            if x.dims is not None and y.dims is not None:
                if len(x.dims) != len(y.dims):
                    return True
                if any(_dim_conflict(d, e) for d, e in zip(x.dims, y.dims)):
                    return True
        elif isinstance(x, TupleType):
            assert isinstance(y, TupleType)
            if len(x.fields) != len(y.fields):
                return True
            stack.extend(zip(x.fields, y.fields))
        elif isinstance(x, AdtType):
            assert isinstance(y, AdtType)
            if x.name != y.name or len(x.args) != len(y.args):
                return True
            stack.extend(zip(x.args, y.args))
        elif isinstance(x, FuncType):
            assert isinstance(y, FuncType)
            if len(x.params) != len(y.params):
                return True
            stack.extend(zip(x.params + (x.ret,), y.params + (y.ret,)))
        elif isinstance(x, RefType):
            assert isinstance(y, RefType)
            stack.append((x.content, y.content))
    return False


def _dtype_conflict(a: object, b: object) -> bool:
    return isinstance(a, str) and isinstance(b, str) and DYN_DTYPE not in (a, b) and a != b


def _dim_conflict(a: object, b: object) -> bool:
    if not isinstance(a, Dimension) or not isinstance(b, Dimension):
        return False
    if not (a.is_exact and b.is_exact) or a == b:
        return False
    from gradual.types import DimVar

    mentions_var = any(isinstance(s, DimVar) for d in (a, b) if d.is_symbolic for s in d.symbols())
    return not mentions_var


def instantiate_like(poly: FuncType, mono: FuncType) -> Optional[FuncType]:
    """A polymorphic function type instantiated to fit a monomorphic one of its arity (its
    type parameters taken from the other's types at their positions), or None when they do
    not fit (`@id` where `fn (A) -> A` is expected: `fn (A) -> A`)."""
    if not poly.type_params or mono.type_params or len(poly.params) != len(mono.params):
        return None
    mapping: dict = {}
    stack = list(zip(poly.params + (poly.ret,), mono.params + (mono.ret,)))
    own = set(poly.type_params)
    while stack:
        p, m = stack.pop()
        if isinstance(p, TypeParam) and p in own:
            if p in mapping and conflicts(mapping[p], m):
                return None
            mapping.setdefault(p, m)
        elif isinstance(p, TupleType) and isinstance(m, TupleType) and len(p.fields) == len(m.fields):
            stack.extend(zip(p.fields, m.fields))
        elif isinstance(p, AdtType) and isinstance(m, AdtType) and p.name == m.name:
            stack.extend(zip(p.args, m.args))
        elif isinstance(p, FuncType) and isinstance(m, FuncType) and len(p.params) == len(m.params):
            stack.extend(zip(p.params + (p.ret,), m.params + (m.ret,)))
        elif isinstance(p, RefType) and isinstance(m, RefType):
            stack.append((p.content, m.content))
    if set(mapping) != own:
        return None
    found = FuncType(
        tuple(substitute(p, mapping) for p in poly.params),
        substitute(poly.ret, mapping),
        poly.dim_params,
        poly.dtype_params,
    )
    return None if conflicts(found, mono) else found


def type_at(t: Type, path: tuple, solver: Any) -> Type:
    """The part of a type at a tuple/reference path (`?` where the path does not lead)."""
    for step in path:
        t = solver.resolve_type(t)
        if step == REF_CONTENT and isinstance(t, RefType):
            t = t.content
        elif isinstance(step, int) and isinstance(t, TupleType) and step < len(t.fields):
            t = t.fields[step]
        else:
            return DYN
    return solver.resolve_type(t)
