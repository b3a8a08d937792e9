"""Finalizing a definition: solved variables put in, unsolved dims generalized into the
definition's own symbols (named as people name dims), and the records of Dataflow statements
published for tools.
"""

from __future__ import annotations

from itertools import chain
from typing import AbstractSet, Any, Callable, Optional
from typing import TypeVar as _TypeVar

from gradual.checker.names import FunctionInfo, Resolution
from gradual.checker.records import DataflowRecord
from gradual.shapes import Dimension, Poly, Symbol
from gradual.syntax import ast
from gradual.types import (
    DYN,
    DYN_DTYPE,
    AdtType,
    DimVar,
    DType,
    DTypeVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
    Variadic,
    erase_symbols,
    is_ground,
    map_dims,
    map_dtypes,
)
from gradual.types.unify import HintVar, Solver

_NICE_NAMES = "nmkpqrstuvwxyzabcdefghij"

K = _TypeVar("K")  # a table's key


def finalized_by_identity(table: dict[K, Any], finalize: Callable[[Any], Any]) -> dict[K, Any]:
    """`{key: finalize(value)}` (the table itself when that changes nothing: its owner is done
    with it), finalizing each distinct value object once: recorded types
    and instantiations are mostly the same few objects (a reused call outcome is shared), and
    an identity lookup costs less than hashing a type. The table keeps every value alive, so
    identities are not reused meanwhile. The walks over the whole table run in C."""
    values = table.values()
    done = _finalized_distinct(values, finalize)
    if done is None:
        return table  # already final (no inference variable in any of them): the table as it is
    return dict(zip(table.keys(), map(done.__getitem__, map(id, values))))


def _finalized_distinct(values: Any, finalize: Callable[[Any], Any]) -> Optional[dict[int, Any]]:
    """Each distinct value object (None apart) finalized once, by identity; None when that
    changes none of them. A value whose finalized form is equal to it stays itself: types
    and instantiations are values (symbols and variables compare by identity), and equal
    copies of one type (the finalizer's memo answers each with the first one's form) would
    make every table and list that holds them be copied."""
    distinct = dict(zip(map(id, values), values))
    distinct.pop(id(None), None)
    done: dict[int, Any] = {}
    changed = False
    for ident, value in distinct.items():
        final = finalize(value)
        if final is not value:
            if final == value:
                final = value
            else:
                changed = True
        done[ident] = final
    if not changed:
        return None
    done[id(None)] = None
    return done


def finalized_dataflow(table: dict[int, DataflowRecord], finalize: "Finalizer") -> dict[int, DataflowRecord]:
    """Frame.dataflow with its types and instantiations resolved, each distinct one once over
    all the Dataflows (as finalized_by_identity does): a body may hold many short ones."""
    records = table.values()
    types_done = _finalized_distinct(list(chain.from_iterable(r[1] for r in records)), finalize.type)
    found_done = _finalized_distinct(
        list(chain.from_iterable(r[2] for r in records)), lambda inst: finalize_instantiation(inst, finalize)
    )
    return {
        key: (flow, _mapped_list(types, types_done), _mapped_list(found, found_done))
        for key, (flow, types, found) in table.items()
    }


def _mapped_list(values: list[Any], done: Optional[dict[int, Any]]) -> list[Any]:
    """`values` with each replaced by its finalized value in `done` (by identity; the list
    itself when `done` is None: nothing changed)."""
    return values if done is None else list(map(done.__getitem__, map(id, values)))


def publish_dataflow(
    resolution: Resolution,
    types: dict[int, Type],
    instantiations: dict[int, tuple[Any, ...]],
    dataflow: dict[int, DataflowRecord],
) -> None:
    """Record every Dataflow statement checked without its syntax as a let checked with it
    would be: its nodes made, their binders in `resolution`, their types and instantiation
    in `types` and `instantiations`. Then tools may walk the module's plain lets."""
    for flow, recorded, found in dataflow.values():
        for i, t in enumerate(recorded):
            let = resolution.publish(flow, i)
            if t is None:
                continue  # made and recorded while checking
            call = let.value
            assert isinstance(call, ast.Call), "a Dataflow statement is an operator call"
            types[id(let)] = types[id(call)] = t
            types[id(call.callee)] = DYN
            inst = found[i]
            if inst:
                instantiations[id(call)] = inst


def finalize_instantiation(found: tuple[Any, ...], finalize: "Finalizer") -> tuple[Any, ...]:
    """A call's instantiation with its inference variables resolved (`?` where unsolved; the
    same tuple when nothing changes)."""
    out = []
    for name, value in found:
        if isinstance(value, Dimension):
            value = finalize.dim(value)
        elif isinstance(value, tuple):
            value = tuple(finalize.dim(v) for v in value)
        else:
            value = finalize.dtype(value)
        out.append((name, value))
    return found if all(new[1] is old[1] or new[1] == old[1] for new, old in zip(out, found)) else tuple(out)


def rename_symbols(t: Type, mapping: dict[Symbol, Symbol]) -> Type:
    polys = {old: Poly.atom(new) for old, new in mapping.items()}

    def rename(d: Dimension) -> Dimension:
        if d.is_symbolic and d.symbols() & mapping.keys():
            return Dimension.of_expr(d.expr.substitute(lambda s: polys.get(s)))
        return d

    return map_dims(t, rename)


def rename_runs(t: Type, mapping: dict[Symbol, Symbol]) -> Type:
    """The type with each `*r` run of dims whose symbol the mapping names renamed (a rank
    pattern's run binds at runtime, like a dim's binder)."""
    if isinstance(t, TupleType):
        return TupleType(tuple(rename_runs(f, mapping) for f in t.fields))
    if not isinstance(t, TensorType) or t.dims is None:
        return t
    if not any(isinstance(d, Variadic) and d.symbol in mapping for d in t.dims):
        return t
    dims = tuple(Variadic(mapping[d.symbol]) if isinstance(d, Variadic) and d.symbol in mapping else d for d in t.dims)
    return TensorType(dims, t.dtype, t.value)


def freeze(value: Any) -> Any:
    return tuple(value) if value.__class__ is list else value


def is_closed(t: Type) -> bool:
    """No inference variable in a tensor or a tuple of tensors (`?` dims, intervals, rigid
    symbols and dtypes are fine); remembered by each type, which are shared and asked about at
    every call."""
    if isinstance(t, TensorType):
        return is_ground(t)
    if isinstance(t, TupleType):
        return all(is_closed(f) for f in t.fields)
    return False


def deep_resolve(t: Type, solver: Solver) -> Type:
    """Replace bound type variables everywhere inside a type."""
    t = solver.resolve_type(t)
    if isinstance(t, TupleType):
        return TupleType(tuple(deep_resolve(f, solver) for f in t.fields))
    if isinstance(t, FuncType):
        return t.with_parts(tuple(deep_resolve(p, solver) for p in t.params), deep_resolve(t.ret, solver))
    if isinstance(t, TensorType):
        dtype = solver.resolve_dtype(t.dtype)
        return t if dtype is t.dtype else TensorType(t.dims, dtype, t.value)
    if isinstance(t, RefType):
        return RefType(deep_resolve(t.content, solver))
    if isinstance(t, AdtType) and t.args:
        return AdtType(t.name, tuple(deep_resolve(a, solver) for a in t.args))
    return t


def finalized_type(t: Type, solver: Solver, keep_hints: bool = False) -> Type:
    t = solver.resolve_type(t)
    if is_ground(t):
        return t
    if isinstance(t, TupleType):
        fields = tuple(finalized_type(f, solver, keep_hints) for f in t.fields)
        return t if _same_items(fields, t.fields) else TupleType(fields)
    if isinstance(t, FuncType):
        params = tuple(finalized_type(p, solver, keep_hints) for p in t.params)
        ret = finalized_type(t.ret, solver, keep_hints)
        return t if ret is t.ret and _same_items(params, t.params) else t.with_parts(params, ret)
    if isinstance(t, TensorType):
        dtype = solver.resolve_dtype(t.dtype)
        t = t if dtype is t.dtype else TensorType(t.dims, dtype, t.value)
        return map_dims(t, lambda d: solver.resolve(d, final=True, keep_hints=keep_hints))
    if isinstance(t, RefType):
        content = finalized_type(t.content, solver, keep_hints)
        return t if content is t.content else RefType(content)
    if isinstance(t, AdtType):
        args = tuple(finalized_type(a, solver, keep_hints) for a in t.args)
        return t if _same_items(args, t.args) else AdtType(t.name, args)
    return t


def _same_items(new: tuple[Any, ...], old: tuple[Any, ...]) -> bool:
    return all(a is b for a, b in zip(new, old))


class Finalizer:
    """Resolves recorded types at the end of a definition and generalizes its free variables."""

    def __init__(self, solver: Solver, info: FunctionInfo) -> None:
        self.solver = solver
        self.taken = {s.name for s in info.dim_params}
        # a generalized dtype takes a name neither a dtype variable nor a type parameter has
        self.dtype_taken = {v.name for v in info.dtype_params} | {p.name for p in info.type_params}
        self.dims: dict[DimVar, Symbol] = {}
        self.dtypes: dict[DTypeVar, DTypeVar] = {}
        self.generalizing = False
        self.keep_hints = False
        self.done: dict[Type, Type] = {}  # recorded types repeat a lot: finalize each distinct one once
        #: whole types nothing constrained, generalized into type parameters (`fn (%y, %x) {
        #: Cons(%x, %y) }` is `fn [A](List[A], A) -> List[A]`), in the order met
        self.types: dict[TypeVar, Type] = {}
        self.type_taken = {p.name for p in info.type_params}
        #: the unbound whole types that become type parameters (a closed closure's that are
        #: elements of an ADT); the others are `?`
        self.type_params: frozenset[TypeVar] = frozenset()

    def generalize(self, t: Type) -> Type:
        """A parameter type with free inference variables turned into the definition's own."""
        self.generalizing = True
        try:
            return self.type(t)
        finally:
            self.generalizing = False

    def new_dims(self) -> tuple[Symbol, ...]:
        return tuple(self.dims.values())

    def new_dtypes(self) -> tuple[DTypeVar, ...]:
        return tuple(self.dtypes.values())

    def new_type_params(self) -> tuple[Type, ...]:
        return tuple(self.types.values())

    def _type_param(self, v: TypeVar) -> Type:
        """An unbound type variable: the type parameter it was generalized into (made when
        generalizing a parameter), else `?`."""
        found = self.types.get(v)
        if found is None and self.generalizing and v in self.type_params:
            found = self.types[v] = TypeParam(_fresh("ABCDEFGH", "T", self.type_taken))
        return found if found is not None else DYN

    def type(self, t: Type) -> Type:
        """A recorded type, fully resolved."""
        if self.generalizing or isinstance(t, TypeVar):
            return self._finalize(t)
        try:
            found = self.done.get(t)
        except TypeError:  # an unhashable value inside: finalize it without memo
            return self._finalize(t)
        if found is None:
            found = self.done[t] = self._finalize(t)
        return found

    def _finalize(self, t: Type) -> Type:
        t = self.solver.resolve_type(t)
        if isinstance(t, TypeVar):
            return self._type_param(t)
        if is_ground(t):  # nothing to resolve (a closed closure's type, final already)
            return t
        if isinstance(t, TupleType):
            fields = tuple(self._part(f) for f in t.fields)
            return t if _same_items(fields, t.fields) else TupleType(fields)
        if isinstance(t, FuncType):
            params = tuple(self._part(p) for p in t.params)
            ret = self._part(t.ret)
            return t if ret is t.ret and _same_items(params, t.params) else t.with_parts(params, ret)
        if isinstance(t, RefType):
            content = self._part(t.content)
            return t if content is t.content else RefType(content)
        if isinstance(t, AdtType):
            args = tuple(self._finalize(a) for a in t.args)  # an unbound element type is `?`
            return t if _same_items(args, t.args) else AdtType(t.name, args)
        t = deep_resolve(t, self.solver)
        t = map_dims(t, self.dim)
        return map_dtypes(t, self.dtype)

    def _part(self, t: Type) -> Type:
        """A field, parameter or result inside a type: finalized once per distinct type (a
        type n deep is made of n parts); a type variable still unknown stays one (or is the
        type parameter it was generalized into)."""
        t = self.solver.resolve_type(t)
        if isinstance(t, TypeVar):
            return self.types.get(t, t)
        return self.type(t)

    def dim(self, d: Dimension) -> Dimension:
        d = self.solver.resolve(d, final=True, keep_hints=self.keep_hints)
        free = [s for s in d.symbols() if isinstance(s, DimVar) and not isinstance(s, HintVar)]
        if not free:
            return d
        mapping: dict[Symbol, Poly] = {}
        for v in free:
            sym = self.dims.get(v)
            if sym is None and self.generalizing:
                sym = self.dims[v] = Symbol(self._fresh_name())
            if sym is None:
                return Dimension.dynamic()
            mapping[v] = Poly.atom(sym)
        return Dimension.of_expr(d.expr.substitute(lambda s: mapping.get(s)))

    def dtype(self, dt: DType) -> DType:
        dt = self.solver.resolve_dtype(dt)
        if isinstance(dt, DTypeVar) and dt.meta:
            found = self.dtypes.get(dt)
            if found is None and self.generalizing:
                found = self.dtypes[dt] = DTypeVar(self._fresh_dtype_name())
            return found if found is not None else DYN_DTYPE
        return dt

    def _fresh_name(self) -> str:
        return _fresh(_NICE_NAMES, "n", self.taken)

    def _fresh_dtype_name(self) -> str:
        return _fresh("TUVW", "T", self.dtype_taken)


def _fresh(preferred: str, prefix: str, taken: set[str]) -> str:
    """The first preferred one-letter name not taken, else prefix + a number; marks it taken."""
    name = next((c for c in preferred if c not in taken), None)
    if name is None:
        name = f"{prefix}{len(taken)}"
        while name in taken:
            name += "_"
    taken.add(name)
    return name


def holds_function(t: Type) -> bool:
    """Whether a type is a function type or a tuple holding one."""
    pending = [t]
    while pending:
        t = pending.pop()
        if isinstance(t, FuncType):
            return True
        if isinstance(t, TupleType):
            pending.extend(t.fields)
    return False


def loses_function_dims(declared: Type, result: Type, inferred: AbstractSet[object]) -> bool:
    """Whether a call's result holds a function whose declared type states a dim (a dtype)
    that the caller's type of it leaves imprecise (`?`, an interval): a callee's symbol bound
    from a `?` argument. The function itself keeps the size it was made with and rejects other
    arguments, which the caller's type lets through. A dim made only of the function type's
    own symbols is bound afresh at each of its calls and loses nothing, and so does a dtype
    that is the caller's own parameter's, still being inferred (`inferred`)."""
    if isinstance(declared, TupleType) and isinstance(result, TupleType):
        return any(loses_function_dims(d, r, inferred) for d, r in zip(declared.fields, result.fields))
    if isinstance(declared, FuncType) and isinstance(result, FuncType):
        own = frozenset(declared.dim_params)
        pairs = list(zip(declared.params, result.params)) + [(declared.ret, result.ret)]
        return any(_imprecise_part(d, r, own, inferred) for d, r in pairs)
    return False


def _imprecise_part(declared: Type, result: Type, own: AbstractSet[Symbol], inferred: AbstractSet[object]) -> bool:
    """`loses_function_dims` inside a function type: a tensor dim or dtype that is stated in
    `declared` and not in `result`, or a nested function that loses one."""
    if isinstance(declared, TupleType) and isinstance(result, TupleType):
        return any(_imprecise_part(d, r, own, inferred) for d, r in zip(declared.fields, result.fields))
    if isinstance(declared, FuncType) and isinstance(result, FuncType):
        inner = own | frozenset(declared.dim_params)
        pairs = list(zip(declared.params, result.params)) + [(declared.ret, result.ret)]
        return any(_imprecise_part(d, r, inner, inferred) for d, r in pairs)
    if not (isinstance(declared, TensorType) and isinstance(result, TensorType)):
        return False
    if isinstance(declared.dtype, DTypeVar) and (
        result.dtype == DYN_DTYPE
        or isinstance(result.dtype, DTypeVar)
        and result.dtype.meta
        and result.dtype not in inferred
    ):
        return True  # a dtype the call did not know (a `?`, or one a later use decides)
    if declared.dims is None or result.dims is None or len(declared.dims) != len(result.dims):
        return False
    for d, r in zip(declared.dims, result.dims):
        if not isinstance(d, Dimension) or not isinstance(r, Dimension):
            continue
        if d.is_symbolic and not d.symbols() <= own and not r.is_exact:
            return True
    return False


def unquantified(t: Type) -> Type:
    """A type to cast to, with each function type's own symbols (bound afresh at each call)
    written `?`: a cast's names are existentials, bound once (design.md)."""
    if isinstance(t, TupleType):
        return TupleType(tuple(unquantified(f) for f in t.fields))
    if isinstance(t, FuncType):
        inner = FuncType(tuple(unquantified(p) for p in t.params), unquantified(t.ret))
        return erase_symbols(inner, set(t.dim_params)) if t.dim_params else inner
    return t


def learned_dtype_requires(
    found: dict[DTypeVar, Any], finalize: "Finalizer", dtype_params: tuple[DTypeVar, ...]
) -> tuple[tuple[DTypeVar, str], ...]:
    """The dtype classes a definition's body needs of its own dtype variables, `(T, class)`,
    in a stable order: a written `T` stays itself, an inferred one becomes the generalized
    variable it was finalized to; other variables (a `?` argument's) are not the caller's to
    bind."""
    out: set[tuple[DTypeVar, str]] = set()
    for var, classes in found.items():
        final = finalize.dtype(var)
        if isinstance(final, DTypeVar) and final in dtype_params:
            out |= {(final, cls) for cls in classes}
    return tuple(sorted(out, key=lambda pair: (pair[0].name, pair[1])))


def quantifies_functions(t: Type) -> bool:
    """Whether a return type holds a function type with names of its own (bound at each call
    of that function, `fn (Tensor[(n,)]) -> Tensor[(n,)]`): no cast can restate it (a cast's
    names are its existentials, bound once), so the written annotation is the check, as a
    let's is (the runtime checks the return against it)."""
    if isinstance(t, FuncType):
        return (
            bool(t.dim_params or t.dtype_params)
            or any(quantifies_functions(p) for p in t.params)
            or quantifies_functions(t.ret)
        )
    if isinstance(t, TupleType):
        return any(quantifies_functions(f) for f in t.fields)
    return False


def tensor_dims(t: Type) -> tuple[Any, ...]:
    """The dims of a tensor type, or of the tensors in a tuple type (for hints)."""
    if isinstance(t, TensorType):
        return t.dims or ()
    if isinstance(t, TupleType):
        return tuple(d for f in t.fields for d in tensor_dims(f))
    return ()
