"""Opening a call's arguments: every exact dim used as it is, every imprecise one (`?`, an
interval, an unknown rank or dtype) a site variable for the value it will have at runtime.
Tuples, references and functions are opened field by field; function-typed arguments are
matched against the parameter's function type (a contract where only a runtime check can tell).
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.checker import contracts
from gradual.checker.site.state import SiteState
from gradual.checker.site.values import (
    ArgInfo,
    ArgPath,
    FuncArg,
    Opened,
    Origin,
    ProtoFunction,
    RefArg,
    SDim,
    SDType,
    Slot,
    ValueArg,
    raw_dtype,
    sdim,
)
from gradual.ops.context import ArgView, TensorArg, TupleArg
from gradual.shapes import Dimension, Grade, Poly, Symbol
from gradual.types import (
    DYN,
    DYN_DTYPE,
    REF_CONTENT,
    AdtType,
    BottomType,
    DType,
    DTypeVar,
    DynType,
    ElemVar,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
    Variadic,
    map_dims,
    map_dtypes,
)
from gradual.types.params import type_at
from gradual.types.unify import SiteVar


class Opening(SiteState):
    """The call site's arguments, opened for its rule (see the module docstring)."""

    def _open(self, t: Type, index: int, path: ArgPath, info: ArgInfo) -> ArgView:
        t = self.solver.resolve_type(t)
        key = (index, path)
        if isinstance(t, TupleType):
            fields = [self._open(f, index, path + (i,), info) for i, f in enumerate(t.fields)]
            view: ArgView = TupleArg(index, path, fields)
            self.opened[key] = Opened(view)
            return view
        if isinstance(t, TensorType):
            view = self._open_tensor(t, index, path, info)
            self.opened[key] = Opened(view)
            return view
        if isinstance(t, RefType):
            view = RefArg(index, path, self._open(t.content, index, path + (REF_CONTENT,), info))
            self.opened[key] = Opened(view)
            return view
        if isinstance(t, (AdtType, TypeParam)):
            view = ValueArg(index, path, t)
            self.opened[key] = Opened(view)
            return view
        if isinstance(t, BottomType):
            self.bottom = True
        if isinstance(t, DynType) and t.from_error:
            self.after_error = True
        dynamic = isinstance(t, (DynType, BottomType))
        view = TensorArg(index, path, None, self._open_dtype(DYN_DTYPE, index, path), None)
        self.opened[key] = Opened(view, t if isinstance(t, TypeVar) else None, dynamic)
        if isinstance(t, FuncType):
            self.opened[key].view = FuncArg(index, path, t)
            return self.opened[key].view
        return view

    def _open_tensor(self, t: TensorType, index: int, path: ArgPath, info: ArgInfo) -> TensorArg:
        if t.dims is not None and any(isinstance(d, Variadic) for d in t.dims):
            self._open_run(t.dims, index, path, info)
            return TensorArg(index, path, None, self._open_dtype(t.dtype, index, path), None)
        dims = None if t.dims is None else [self._open_dim(d, index, path, axis, info) for axis, d in enumerate(t.dims)]
        value = None
        if t.value is not None:
            value = [v if isinstance(v, int) else SDim(self.solver.resolve(v)) for v in t.value]
        return TensorArg(index, path, dims, self._open_dtype(t.dtype, index, path), value)

    def _open_dim(self, d: Any, index: int, path: ArgPath, axis: int, info: ArgInfo) -> SDim:
        origin = Origin(index, path, axis)
        if not isinstance(d, Dimension):
            return SDim(Dimension.dynamic(), origin)
        d = self.solver.resolve(d)
        if d.is_exact:
            return SDim(d, origin)
        memo_key = (id(info.binder), path, axis) if info.binder is not None else None
        var = self.memo.get(memo_key) if memo_key is not None else None
        if var is None:
            var = SiteVar(f"d{index}_{axis}", d.min_length, d.max_length)
            if memo_key is not None:
                self.memo[memo_key] = var
            self.slots[(index, path, axis)] = Slot(origin, var, d)
        return SDim(Dimension.of_expr(Poly.atom(var)), origin)

    def _open_run(self, dims: tuple[Any, ...], index: int, path: ArgPath, info: ArgInfo) -> None:
        """A type with a run of dims (`(*b, k)`, a parameter of a definition that takes any
        number of leading dims) has unknown rank: the rule sees no dims, and the dims on either
        side of the run are known edges (`edge_dims`)."""
        at = next(i for i, d in enumerate(dims) if isinstance(d, Variadic))
        prefix, suffix = dims[:at], dims[at + 1 :]
        edges = self.edges.setdefault((index, path), {})
        for axis, d in enumerate(prefix):
            edges[axis] = self._open_dim(d, index, path, axis, info)
        for offset, d in enumerate(suffix):
            axis = offset - len(suffix)
            edges[axis] = self._open_dim(d, index, path, axis, info)
        self.known_runs[(index, path)] = (dims[at].symbol, len(prefix), len(suffix))

    def edge_dims(self, arg: TensorArg, prefix: int, suffix: int) -> tuple[list[Any], list[Any]]:
        if arg.dims is not None:
            return super().edge_dims(arg, prefix, suffix)
        key = (arg.index, arg.path)
        edges = self.edges.setdefault(key, {})
        axes = list(range(prefix)) + list(range(-suffix, 0))
        for axis in axes:
            if axis not in edges:
                edges[axis] = self._edge_dim(arg, axis)
        return [edges[a] for a in range(prefix)], [edges[a] for a in range(-suffix, 0)]

    def _edge_dim(self, arg: TensorArg, axis: int) -> SDim:
        """A dim of a value of unknown rank: what an earlier check of this value verified it is,
        or the runtime value (a site variable) it will have."""
        info = self.arg_infos[arg.index]
        for fact in info.facts:
            if fact[:3] == ("edge", arg.path, axis):
                return SDim(fact[3], Origin(arg.index, arg.path, axis))
        return self._open_dim(Dimension.dynamic(), arg.index, arg.path, axis, info)

    def require_run(self, arg: TensorArg, symbol: Any, prefix: int, suffix: int) -> None:
        key = (arg.index, arg.path)
        if self.known_runs.get(key) != (symbol, prefix, suffix):
            self.run_checks[key] = symbol

    def _open_dtype(self, dtype: DType, index: int, path: ArgPath) -> SDType:
        dtype = self.solver.resolve_dtype(dtype)
        if dtype == DYN_DTYPE:
            var = DTypeVar("?", meta=True)
            self.dtype_slots[(index, path)] = var
            return SDType(var, Origin(index, path))
        return SDType(dtype, Origin(index, path))

    def expect_tensor(self, arg: ArgView) -> TensorArg:
        """The argument as a tensor; a tuple or function here is a type mismatch."""
        if isinstance(arg, TensorArg):
            opened = self.opened.get((arg.index, arg.path))
            if opened is not None and opened.typevar is not None and opened.view is arg:
                self._bind_typevar_tensor(opened, arg)
            elif opened is not None and opened.dynamic:
                self.kind_checks[(arg.index, arg.path)] = "tensor"
            return arg
        self.fail("not-a-tensor", arg=arg)
        raise AssertionError("unreachable")

    def expect_tuple(self, arg: ArgView, length: int) -> TupleArg:
        """The argument as a tuple of `length` fields."""
        if isinstance(arg, TupleArg):
            if arg.fields is not None and len(arg.fields) != length:
                self.fail("tuple-length", arg=arg, expected=length, actual=len(arg.fields))
            return arg
        opened = self.opened.get((arg.index, arg.path))
        info = self.arg_infos[arg.index]
        if opened is not None and (opened.dynamic or opened.typevar is not None):
            fields_t = tuple(TypeVar() if opened.typevar is not None else DYN for _ in range(length))
            if opened.typevar is not None:
                self.solver.bind_type(opened.typevar, TupleType(fields_t))
            else:
                self.kind_checks[(arg.index, arg.path)] = f"tuple{length}"
            fields = [self._open(f, arg.index, arg.path + (i,), info) for i, f in enumerate(fields_t)]
            view = TupleArg(arg.index, arg.path, fields)
            self._replace_view(arg, view)
            return view
        self.fail("not-a-tuple", arg=arg, expected=length)
        raise AssertionError("unreachable")

    def expect_ref(self, arg: ArgView) -> ArgView:
        """The contents of a reference argument (a `?` argument is checked to be one)."""
        if isinstance(arg, RefArg):
            return arg.content
        opened = self.opened.get((arg.index, arg.path))
        if opened is None or not (opened.dynamic or opened.typevar is not None):
            self.fail("not-a-reference", arg=arg)
        if opened.typevar is not None:
            content: Type = TypeVar()
            self.solver.bind_type(opened.typevar, RefType(content))
        else:
            content = DYN
            self.kind_checks[(arg.index, arg.path)] = "ref"
        view = RefArg(
            arg.index, arg.path, self._open(content, arg.index, arg.path + (REF_CONTENT,), self.arg_infos[arg.index])
        )
        self._replace_view(arg, view)
        return view.content

    def _replace_view(self, old: ArgView, new: ArgView) -> None:
        self.opened[(old.index, old.path)] = Opened(new)
        if not old.path:
            self.args[old.index] = new

    def _bind_typevar_tensor(self, opened: Opened, arg: TensorArg) -> None:
        assert opened.typevar is not None
        if self.solver.resolve_type(opened.typevar) is opened.typevar:
            dtype = self.new_def_dtype(opened.typevar)
            self.solver.bind_type(opened.typevar, TensorType(None, dtype))
        self._sync_typevar_views(opened.typevar)

    def _sync_typevar_views(self, typevar: TypeVar) -> None:
        """Every argument that is this inferred parameter sees what is now known of it."""
        bound = self.solver.resolve_type(typevar)
        if not isinstance(bound, TensorType):
            return
        for (index, path), opened in self.opened.items():
            view = opened.view
            if opened.typevar is not typevar or not isinstance(view, TensorArg):
                continue
            opened.dynamic = False
            view.dtype = SDType(bound.dtype, Origin(index, path))
            self.dtype_slots.pop((index, path), None)
            if view.dims is None and bound.dims is not None:
                view.dims = [
                    self._open_dim(d, index, path, axis, self.arg_infos[index]) for axis, d in enumerate(bound.dims)
                ]
                view.rank = len(view.dims)

    def tuple_fields(self, arg: ArgView) -> Optional[list[Any]]:
        """The fields of a tuple argument as tensors; None when its length is unknown."""
        if isinstance(arg, TupleArg):
            return None if arg.fields is None else [self.expect_tensor(f) for f in arg.fields]
        opened = self.opened.get((arg.index, arg.path))
        if opened is not None and (opened.dynamic or opened.typevar is not None):
            return None
        self.fail("not-a-tuple", arg=arg, expected="tensors")
        raise AssertionError("unreachable")

    def match_other(self, param: Type, arg: ArgView, matcher: Any = None) -> None:
        """Function-typed parameters: the argument must be a function (or `?`) that fits the
        parameter's type, instantiated with what the call's other arguments bound; where only
        a runtime check can tell, the argument gets a contract (contracts.py)."""
        if isinstance(param, (FuncType, AdtType)) and matcher is not None:
            param = self._instantiated(param, matcher)
        if isinstance(param, (AdtType, TypeParam, ElemVar)) or isinstance(arg, ValueArg):
            self._match_value(param, arg)
            return
        if isinstance(arg, FuncArg):
            if isinstance(param, FuncType):
                self._contract(param, arg)
            elif isinstance(param, TypeVar):  # as for a tensor below: `?`, not a function type the result would claim
                self.solver.bind_type(param, DYN)
            return
        opened = self.opened.get((arg.index, arg.path))
        if opened is not None and opened.dynamic:
            if isinstance(param, FuncType):  # a `?` is cast to the function type: a contract
                self.contracts[(arg.index, arg.path)] = param
            return
        if opened is not None and opened.typevar is not None:
            self.solver.bind_type(opened.typevar, param)
            return
        if isinstance(param, TypeVar):
            # a parameter its function never constrained (`fn (%z) { %z }`) takes anything, as
            # `%z: ?` does: bound to `?` rather than to this argument's type, which the result
            # (the same variable) would then claim for every later call
            self.solver.bind_type(param, DYN)
            return
        self.fail("not-a-function", arg=arg)

    def _match_value(self, param: Type, arg: ArgView) -> None:
        """An argument where a parameter of an algebraic data type or a type parameter stands
        (or an ADT value where another kind does): compared whole, graded as any flow; a
        runtime check (a cast of the whole value) where only one can tell."""
        key = (arg.index, arg.path)
        opened = self.opened.get(key)
        param = self.solver.resolve_type(param)
        if isinstance(param, ElemVar):  # a type parameter no other argument gave: this one does
            self.solver.bind_type(param, self._whole_type(arg))
            return
        if opened is not None and opened.typevar is not None and not isinstance(arg, ValueArg):
            self.solver.bind_type(opened.typevar, param)  # an unannotated parameter: it is this type
            return
        if opened is not None and opened.dynamic:
            if not isinstance(param, (DynType, TypeParam)):
                self.contracts[key] = param  # a `?` is cast to it: checked when the call runs
            return
        actual = self._whole_type(arg)
        grade, where = contracts.value_grade(self.solver, actual, param, frozenset(self.chosen))
        if grade is Grade.NEVER:
            shown = map_dims(param, lambda d: self.solver.resolve(d, final=True))
            self.fail("value-mismatch", arg=arg, expected=shown, actual=actual, detail=contracts.mismatch_text(where))
        if grade is Grade.CHECK:
            self.contracts[key] = param

    def _whole_type(self, arg: ArgView) -> Type:
        """The type of an argument (or a part of one) as the caller has it."""
        if isinstance(arg, (ValueArg, FuncArg)):
            return arg.type
        return type_at(self.arg_infos[arg.index].type, arg.path, self.solver)

    def _instantiated(self, param: Type, matcher: Any) -> Type:
        """A signature's function type in this call: its symbols are what the matcher bound
        them to. One that no other argument binds is the callee's to choose: it binds it at
        runtime from the first value it sees there (an argument it passes, a result), so the
        call cannot choose it. It becomes a fresh symbol of this call (`chosen`): equal to
        itself, possibly equal to anything else (never solved), and the contract's cast binds
        it afresh each time the call runs."""
        quantified = matcher.quantified
        bound: dict[Symbol, Poly] = {}
        inexact: set[Symbol] = set()
        for sym, bound_to in matcher.dims.items():
            resolved = self.solver.resolve(sdim(bound_to).dim)
            if resolved.is_exact:
                bound[sym] = resolved.expr
            else:
                inexact.add(sym)

        def value(sym: Symbol) -> Optional[Poly]:
            if sym not in quantified or sym in bound:
                return bound.get(sym)
            found = self.chosen_for.get(sym)
            if found is None:
                found = self.chosen_for[sym] = Symbol(sym.name, sym.lo, sym.hi)
                self.chosen.add(found)
            return Poly.atom(found)

        def dim(d: Dimension) -> Dimension:
            if not d.is_symbolic or not d.symbols() & quantified:
                return d
            if d.symbols() & inexact:  # bound to an interval or `?` by another argument
                return Dimension.dynamic()
            return Dimension.of_expr(d.expr.substitute(value))

        def dtype(t: Any) -> Any:
            if t not in matcher.quantified_dtypes:
                return t
            if t not in matcher.dtypes:  # no tensor argument binds it: the callee's choice, as a symbol's
                found = self.chosen_dtype_for.get(t)
                if found is None:
                    found = self.chosen_dtype_for[t] = DTypeVar(t.name)
                    self.chosen.add(found)
                return found
            return raw_dtype(matcher.dtypes[t])

        found = map_dtypes(map_dims(param, dim), dtype)
        if not isinstance(found, FuncType):
            return found
        return FuncType(found.params, found.ret, type_params=found.type_params)

    def _contract(self, expected: FuncType, arg: "FuncArg") -> None:
        grade, where = contracts.function_grade(self.solver, arg.type, expected, self.chosen)
        if grade is Grade.NEVER:
            shown = map_dims(expected, lambda d: self.solver.resolve(d, final=True))
            self.fail("function-mismatch", arg=arg, expected=shown, actual=arg.type, where=where)
        if grade is Grade.CHECK:
            self.contracts[(arg.index, arg.path)] = expected

    def other_result(self, t: Type, matcher: Any) -> Any:
        """Non-tensor results of a signature (function types, `?`). A function type is the
        callee's, over its signature's symbols: this call's values of them replace them when
        the result is resolved (`@mk(%x: (n,))` returning `fn () -> (n,)` gives `fn () -> (3,)`
        for a (3,) argument; left as `n`, two calls shared one `n`)."""
        if not isinstance(t, (FuncType, AdtType)):
            return t
        return ProtoFunction(
            t,
            dict(matcher.dims),
            dict(matcher.dtypes),
            frozenset(matcher.quantified),
            frozenset(matcher.quantified_dtypes),
        )
