"""One call, checked: the symbolic side of a shape rule (SPEC 3.1, 3.2, 3.8, 3.10).

The call's arguments are *opened*: every exact dimension is used as it is, every imprecise one
(`?`, an interval, an unknown rank or dtype) becomes a site variable standing for the value it
will have at runtime. The operator's signature or rule then runs on these symbolic values;
`equal` and `broadcast` unify them (graded: proven, runtime check, or static error).

Finalizing the site gives the result type and, per argument, a *cast pattern*: the type the
argument was assumed to have. A site variable solved to a dimension becomes a check of that
dimension, one that stays unsolved is bound by its first occurrence and checked at the others,
a broadcast against a known dimension becomes `d|1`. Arguments with nothing to verify get no
cast, so a fully static program gets no checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

from gradual import contracts, messages
from gradual.diagnostics import Diagnostic
from gradual.ops.context import ArgView, RuleFailure, ShapeContext, TensorArg, TupleArg
from gradual.shapes import Dimension, Grade, Poly, Symbol
from gradual.shapes.constraint import solve as solve_constraint
from gradual.shapes.poly import INF, Extremum, FloorDiv
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    BOTTOM,
    DYN,
    DYN_DTYPE,
    ERROR,
    REF_CONTENT,
    BottomType,
    Broadcast,
    DimVar,
    DType,
    DTypeVar,
    DynType,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeVar,
    Variadic,
    map_dims,
    map_dtypes,
    type_symbols,
)
from gradual.unify import HintVar, SiteVar, Solver


@dataclass(frozen=True)
class Origin:
    """Where a dimension or dtype came from: argument, tuple path, axis (None for dtype)."""

    arg: int
    path: tuple = ()
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
    facts: frozenset = frozenset()


@dataclass
class Callee:
    """What is being called, for messages: `nn.dense`, `@f` or `%g`."""

    kind: str
    name: str
    param_names: tuple = ()
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
    casts: list = field(default_factory=list)
    refinements: list = field(default_factory=list)  # (argument index, binder, refined type)
    facts: list = field(default_factory=list)  # (argument index, binder, fact)
    failed: bool = False
    binders: list = field(default_factory=list)  # symbols the casts bind at runtime
    instantiation: tuple = ()  # (symbol name, what it was bound to) for tools: `k := 784`
    #: (rigid symbol, lo, hi): bounds this call stops at runtime where a symbol is outside them
    learned: list = field(default_factory=list)

    @property
    def shared(self) -> bool:
        """Whether nothing in it belongs to the call it came from (no cast, refinement or fact):
        another call of the same key may take it as it is."""
        return not (self.casts or self.refinements or self.facts)


@dataclass
class ProtoTensor:
    """A rule's tensor result before resolution."""

    dims: Optional[list]
    dtype: Any
    value: Optional[list] = None


@dataclass
class ProtoTuple:
    """A rule's tuple result before resolution."""

    fields: list


@dataclass
class ProtoRef:
    """A signature's reference result before resolution."""

    content: Any


@dataclass
class ProtoFunction:
    """A function-typed result before resolution: its type, whose symbols and dtype variables
    of the callee's signature stand for what this call bound them to."""

    type: Type
    dims: dict
    dtypes: dict
    quantified: frozenset
    quantified_dtypes: frozenset


class _Opened:
    """An argument opened as a tensor/tuple view, with its type-variable bookkeeping."""

    def __init__(self, view: ArgView, typevar: Optional[TypeVar] = None, dynamic: bool = False) -> None:
        self.view = view
        self.typevar = typevar
        self.dynamic = dynamic


class CallSite(ShapeContext):
    """The symbolic ShapeContext of one call (see the module docstring)."""

    #: existentials bound to a dim that was not known (infer.Env.loose; True: it may be 1): one
    #: meets another dim as `?` would, with a check (`_loose_equal`); one that may be 1 is not
    #: claimed by a broadcast of an unknown dim against it (a more precise program binds it to 1,
    #: and a check that the unknown dim is it or 1 fails where that program runs). Against a dim
    #: it can never equal (`n1` against `n1 + 1`) it stays an error.
    loose: Mapping = {}
    #: a call of a definition inside its own recursive component: an unannotated parameter's
    #: dim that meets another value here is widened to `?` (next pass), not an error
    recursive_call = False

    def __init__(
        self,
        solver: Solver,
        callee: Callee,
        args: Sequence[ArgInfo],
        attrs: dict,
        span: Span,
        report: Callable[[Diagnostic], None],
        new_def_var: Callable[[TypeVar, int], Optional[DimVar]],
        new_def_dtype: Callable[[TypeVar], DTypeVar],
    ) -> None:
        self.solver = solver
        self.callee = callee
        self.op_name = callee.display
        self.arg_infos = list(args)
        self.attrs = attrs
        self.span = span
        self.report_diag = report
        self.new_def_var = new_def_var
        self.new_def_dtype = new_def_dtype
        self.slots: dict[tuple, Slot] = {}
        self.bound_checks: dict[tuple, tuple] = {}
        self.learned: list = []
        self.claim_checks: dict[
            tuple, Any
        ] = {}  # argument dims checked to equal a dim, or (Broadcast) it or 1 (SPEC 6)
        self.rank_checks: dict[tuple, int] = {}
        self.rank_min_checks: dict[tuple, int] = {}
        #: dims at either end of an argument of unknown rank, by axis (negative: from the end)
        self.edges: dict[tuple, dict[int, SDim]] = {}
        #: the run `*b` an argument's own type has (`(*b, k)`) and how many dims are on each side
        self.known_runs: dict[tuple, tuple] = {}
        #: arguments of unknown rank whose middle dims must be an enclosing signature's run
        self.run_checks: dict[tuple, Symbol] = {}
        self.contracts: dict[tuple, FuncType] = {}
        #: the symbols of function-typed parameters that only the callee binds, made fresh
        self.chosen_for: dict[Symbol, Symbol] = {}
        self.chosen_dtype_for: dict = {}
        self.chosen: set = set()
        self.dtype_slots: dict[tuple, DTypeVar] = {}
        self.kind_checks: dict[tuple, str] = {}
        self.opened: dict[tuple, _Opened] = {}
        self.memo: dict[tuple, SiteVar] = {}
        self.binder_first: dict[int, int] = {}
        self.bindings: tuple = ()
        self.flow_dims: dict = {}
        self.errors = 0
        self.bottom = False
        self.after_error = False
        self.args = [self._open(info.type, i, (), info) for i, info in enumerate(self.arg_infos)]

    # opening arguments --------------------------------------------------------------------
    def _open(self, t: Type, index: int, path: tuple, info: ArgInfo) -> ArgView:
        t = self.solver.resolve_type(t)
        key = (index, path)
        if isinstance(t, TupleType):
            fields = [self._open(f, index, path + (i,), info) for i, f in enumerate(t.fields)]
            view: ArgView = TupleArg(index, path, fields)
            self.opened[key] = _Opened(view)
            return view
        if isinstance(t, TensorType):
            view = self._open_tensor(t, index, path, info)
            self.opened[key] = _Opened(view)
            return view
        if isinstance(t, RefType):
            view = _RefArg(index, path, self._open(t.content, index, path + (REF_CONTENT,), info))
            self.opened[key] = _Opened(view)
            return view
        if isinstance(t, BottomType):
            self.bottom = True
        if isinstance(t, DynType) and t.from_error:
            self.after_error = True
        dynamic = isinstance(t, (DynType, BottomType))
        view = TensorArg(index, path, None, self._open_dtype(DYN_DTYPE, index, path), None)
        self.opened[key] = _Opened(view, t if isinstance(t, TypeVar) else None, dynamic)
        if isinstance(t, FuncType):
            self.opened[key].view = _FuncArg(index, path, t)
            return self.opened[key].view
        return view

    def _open_tensor(self, t: TensorType, index: int, path: tuple, info: ArgInfo) -> TensorArg:
        if t.dims is not None and any(isinstance(d, Variadic) for d in t.dims):
            self._open_run(t.dims, index, path, info)
            return TensorArg(index, path, None, self._open_dtype(t.dtype, index, path), None)
        dims = None if t.dims is None else [self._open_dim(d, index, path, axis, info) for axis, d in enumerate(t.dims)]
        value = None
        if t.value is not None:
            value = [v if isinstance(v, int) else SDim(self.solver.resolve(v)) for v in t.value]
        return TensorArg(index, path, dims, self._open_dtype(t.dtype, index, path), value)

    def _open_dim(self, d: Any, index: int, path: tuple, axis: int, info: ArgInfo) -> SDim:
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

    def _open_run(self, dims: tuple, index: int, path: tuple, info: ArgInfo) -> None:
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

    def edge_dims(self, arg: TensorArg, prefix: int, suffix: int) -> tuple[list, list]:
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

    def _open_dtype(self, dtype: DType, index: int, path: tuple) -> SDType:
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
        if isinstance(arg, _RefArg):
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
        view = _RefArg(
            arg.index, arg.path, self._open(content, arg.index, arg.path + (REF_CONTENT,), self.arg_infos[arg.index])
        )
        self._replace_view(arg, view)
        return view.content

    def _replace_view(self, old: ArgView, new: ArgView) -> None:
        self.opened[(old.index, old.path)] = _Opened(new)
        if not old.path:
            self.args[old.index] = new

    def _bind_typevar_tensor(self, opened: _Opened, arg: TensorArg) -> None:
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

    def tuple_fields(self, arg: ArgView) -> Optional[list]:
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
        if isinstance(param, FuncType) and matcher is not None:
            param = self._instantiated(param, matcher)
        if isinstance(arg, _FuncArg):
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

    def _instantiated(self, param: FuncType, matcher: Any) -> FuncType:
        """A signature's function type in this call: its symbols are what the matcher bound
        them to. One that no other argument binds is the callee's to choose: it binds it at
        runtime from the first value it sees there (an argument it passes, a result), so the
        call cannot choose it. It becomes a fresh symbol of this call (`chosen`): equal to
        itself, possibly equal to anything else (never solved), and the contract's cast binds
        it afresh each time the call runs."""
        quantified = matcher.quantified
        bound, inexact = {}, set()
        for sym, value in matcher.dims.items():
            dim = self.solver.resolve(_sdim(value).dim)
            if dim.is_exact:
                bound[sym] = dim.expr
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
        assert isinstance(found, FuncType)
        return FuncType(found.params, found.ret)

    def _contract(self, expected: FuncType, arg: "_FuncArg") -> None:
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
        if not isinstance(t, FuncType):
            return t
        return ProtoFunction(
            t,
            dict(matcher.dims),
            dict(matcher.dtypes),
            frozenset(matcher.quantified),
            frozenset(matcher.quantified_dtypes),
        )

    # attributes and knowledge ---------------------------------------------------------------
    def attr(self, name: str) -> Any:
        return self.attrs.get(name)

    def static(self, d: Any) -> Optional[int]:
        if isinstance(d, int):
            return d  # a (possibly negative) element of a shape value
        dim = self.solver.resolve(d.dim if isinstance(d, SDim) else _as_dim(d))
        lo, hi = _signed_bounds(dim)
        return int(lo) if lo == hi else None

    def exact(self, d: Any) -> bool:
        if isinstance(d, int):
            return True
        d = _sdim(d)
        return self._site_var(d) is None and self.solver.resolve(d.dim).is_exact

    def exact_quotient(self, a: Any, b: Any) -> Any:
        if isinstance(a, int) or isinstance(b, int):
            return super().exact_quotient(a, b)
        resolve = self.solver.resolve
        quotient = resolve(_sdim(a).dim).exact_div(resolve(_sdim(b).dim))
        return None if quotient is None else SDim(quotient)

    def claimed(self, d: Any) -> bool:
        return not isinstance(d, int) and _mentions_claimed(self.solver.resolve(_sdim(d).dim))

    def bounds(self, d: Any) -> tuple:
        if isinstance(d, int):
            return d, d
        dim = self.solver.resolve(_sdim(d).dim, final=True)
        return dim.min_length, dim.max_length

    def maybe_one(self, d: Any) -> Optional[bool]:
        if isinstance(d, int):
            return d == 1
        lo, hi = _signed_bounds(self.solver.resolve(d.dim if isinstance(d, SDim) else _as_dim(d)))
        return False if not lo <= 1 <= hi else None

    def const(self, value: int) -> SDim:
        return SDim(Dimension.static(value))

    def symbolic(self, dim: Any) -> SDim:
        return SDim(dim)

    def unknown(self) -> SDim:
        return SDim(Dimension.dynamic())

    def bounded(self, lo: Any, hi: Any) -> SDim:
        lo_v = _bound_value(self, lo, upper=False) or 0
        hi_v = _bound_value(self, hi, upper=True)
        if hi_v is not None and hi_v < lo_v:
            hi_v = lo_v
        return SDim(Dimension.interval(lo_v, hi_v))

    # constraints --------------------------------------------------------------------------
    def equal(self, a: Any, b: Any, symbol: Optional[str] = None, otherwise: Optional[tuple] = None) -> SDim:
        a, b = _sdim(a), _sdim(b)
        if self.recursive_call and self._parameters_meet(a, b):
            return SDim(Dimension.dynamic(), a.origin)
        grade = self.solver.unify(a.dim, b.dim)
        if grade is Grade.NEVER:
            claimed = self._claimed_constraint(a, b, symbol)
            if claimed is not None:
                return claimed
            loose = self._loose_equal(a, b, symbol)
            if loose is not None:
                return loose
        if grade is Grade.NEVER and otherwise is not None:
            raise RuleFailure(otherwise[0], dict(otherwise[1]))
        if grade is Grade.NEVER and self.recursive_call and self._widen_parameters(a, b):
            return SDim(Dimension.dynamic(), a.origin)
        if grade is Grade.NEVER:
            self._error(messages.dim_mismatch(self, a, b, symbol, self._shown(a), self._shown(b)))
            return SDim(Dimension.dynamic(), a.origin)
        if grade is Grade.CHECK:
            self._check_equal_later(a, b)
        keep = a if a.origin is not None or b.origin is None else b
        return SDim(self.solver.resolve(a.dim), keep.origin, symbol or a.symbol)

    def quotient(self, value: Any, coeff: int, symbol: Optional[str] = None, written: Optional[tuple] = None) -> SDim:
        """`value // coeff` where coeff must divide value: a value of the caller's own symbols that
        it may divide (`m` for a signature's `2 * n`: every even m) is checked at runtime, as the
        same call with an unknown in m's place is; only a value it can never divide is an error
        (a static 5, `2 * m + 1`). The check was "m can never be 2 * (m // 2)": a less precise
        program rejected where the precise one ran (found by an outside pass)."""
        value = _sdim(value)
        resolved = self.solver.resolve(value.dim)
        if (
            resolved.is_static
            and resolved.get_length() % coeff
            and written is not None
            and self.callee.kind != "flow"
            and not self.recursive_call
        ):
            # a size it can never divide: named with the signature's expression (the product
            # below is the multiple under it: "is 5, but needs 4")
            arg = _sdim(written[0])
            if arg.origin is not None:
                self._error(messages.indivisible_dim(self, arg, coeff, written[1], self.solver.resolve(arg.dim)))
                return SDim(Dimension.dynamic(), arg.origin)
        q = value // coeff
        product = q * coeff
        if self._may_divide(value.dim, product.dim, coeff):
            self._check_equal_later(product, value)
        else:
            self.equal(product, value, symbol=symbol)
        return q

    def _may_divide(self, value: Dimension, product: Dimension, coeff: int) -> bool:
        """Whether value is rigid (no inference variable to solve), not provably the product,
        and some sizes of its symbols make it a multiple of coeff."""
        resolved = self.solver.resolve(value)
        if not resolved.is_exact or resolved.is_static or self.solver.mentions_vars(resolved.expr):
            return False
        if _mentions_claimed(resolved):
            return False  # an exporter's claimed size: `equal` warns of the constraint and checks it (SPEC 6)
        if resolved == self.solver.resolve(product):
            return False
        for k in range(coeff):  # every symbol k: a sufficient witness (m + 1 at m = 1, 2 * m + 1 at none)
            at_k = resolved.expr.substitute(lambda s, k=k: Poly.const(k))
            if at_k.is_const() and at_k.const_value() % coeff == 0:
                return True
        return False

    def _parameters_meet(self, a: SDim, b: SDim) -> bool:
        """At a recursive call, two different unannotated parameters' dims made equal (a loop
        that transposes its value passes its (d1, d0) for (d0, d1)): both are widened, as for
        any other change (`_widen_parameters`), instead of forcing the value square."""
        va, vb = self.solver.free_var(a.dim), self.solver.free_var(b.dim)
        if type(va) is not DimVar or type(vb) is not DimVar or self.solver.find(va) is self.solver.find(vb):
            return False
        self.solver.widen_params |= {va, vb}
        return True

    def _widen_parameters(self, a: SDim, b: SDim) -> bool:
        """At a recursive call, the unannotated parameters' dims among two that can never be
        equal (`d0 + 1` passed for `d0`: a loop that pads its value) go to the solver to be
        widened, as a `can_unify` hint's are (SPEC 3.5); whether there were any."""
        symbols = {s for d in (a.dim, b.dim) for dim in (d, self.solver.resolve(d)) for s in dim.symbols()}
        found = {s for s in symbols if type(s) is DimVar}
        hints = {s for s in symbols if isinstance(s, HintVar)}
        self.solver.widen_params |= found
        self.solver.widen |= hints
        return bool(found or hints)

    def _check_equal_later(self, a: SDim, b: SDim) -> Optional[SDim]:
        """Two exact dims that only a runtime check can equate, no polynomial solving them (`2 *
        d` of a `?` argument against a rigid `n`): an argument dim without a slot of its own is
        checked to equal the other, once the runtime has bound the other's variables. The
        other (the dim the call goes on with), or None where neither is such an argument dim."""
        for mine, other in ((b, a), (a, b)):
            origin = mine.origin
            if origin is None or origin.axis is None:
                continue
            key = (origin.arg, origin.path, origin.axis)
            if key not in self.slots and key not in self.claim_checks:
                self.claim_checks[key] = other.dim
                return other
        return None

    def _loose_equal(self, a: SDim, b: SDim, symbol: Optional[str]) -> Optional[SDim]:
        """Two exact dims that differ where one mentions a loose existential (a name bound where
        the value's dim was not known: `let %y: (n1, 4) = <a (?, 4)>`, infer.Env.loose): unless
        no value makes them equal (`n1` against `n1 + 1`), the argument dim is checked at runtime
        against the other. A name for an unknown dim is as unknown as `?`: the more precise
        program, where the same name aliases the dim it met, checks clean (the gradual
        guarantee; found by its property). None: an ordinary mismatch."""
        if not self.loose:
            return None
        ra, rb = self.solver.resolve(a.dim), self.solver.resolve(b.dim)
        if not any(d.is_symbolic and d.symbols() & self.loose.keys() for d in (ra, rb)):
            return None
        if solve_constraint(ra, rb).kind == "impossible":
            return None
        kept = self._check_equal_later(a, b)
        return None if kept is None else SDim(self.solver.resolve(kept.dim), kept.origin, symbol or kept.symbol)

    def broadcast(self, a: Any, b: Any) -> SDim:
        a, b = _sdim(a), _sdim(b)
        if self.is_one(a):
            return b
        if self.is_one(b):
            return a
        # only unknown runtime values broadcast lazily; an inferred parameter's dim is exact
        va, vb = self._site_var(a), self._site_var(b)
        if va is not None and vb is not None:
            if va is vb:
                return a
            hull = _broadcast_hull(self.solver, va, vb)
            if hull is None:
                self._error(messages.broadcast_mismatch(self, a, b, self._shown(a), self._shown(b)))
                return SDim(Dimension.dynamic())
            return SDim(hull)
        if va is not None or vb is not None:
            free, other = (a, b) if va is not None else (b, a)
            if type(self.solver.free_var(other.dim)) is DimVar:
                return self._broadcast_parameter_unknown(other)
            return self._broadcast_free(free, other)
        widened = self._broadcast_parameter(a, b)
        if widened is not None:
            return widened
        grade = self.solver.unify(a.dim, b.dim)
        if grade is Grade.NEVER:
            maybe_one = self._maybe_one_of(a, b)
            if maybe_one is not None:  # a computed `0..1` broadcasts with 2 when it is 1
                return maybe_one
            claimed = self._claimed_constraint(a, b, None, broadcasting=True)
            if claimed is not None:
                return claimed
            self._error(messages.broadcast_mismatch(self, a, b, self._shown(a), self._shown(b)))
            return SDim(Dimension.dynamic())
        return self._broadcast_result(a, b)

    def _broadcast_parameter(self, a: SDim, b: SDim) -> Optional[SDim]:
        """An unannotated parameter's dim broadcast against another dim: the parameter may be
        1 or that dim (its annotated twin `(1,)` checks, so the unannotated one must: the static
        gradual guarantee), so its dim becomes their hull (`1..2` against 2, `1..5` against
        `3..5`, `?` against a symbol or `?`: never more precise than what it met) and the result
        is the other dim (the parameter is 1 or that), which the operator's rule checks when it
        runs; `?` where the other dim may itself be 1 (a symbol `n`: where n is 1 the result is
        the parameter's dim, 0 against 1 gives 0; the deep run found `n` claimed for it). None
        where neither is such a parameter, or both are (they are made equal)."""
        for free, other in ((a, b), (b, a)):
            var = self.solver.free_var(free.dim)
            if type(var) is not DimVar or self.solver.free_var(other.dim) is not None:
                continue
            resolved = self.solver.resolve(other.dim)
            hi = resolved.max_length
            hull = Dimension.interval(min(1, resolved.min_length), None if hi is None else max(1, hi))
            if self.solver.bind_imprecise(var, hull) is Grade.NEVER:
                return None
            if self.maybe_one(other) is not False:  # where it is 1, the result is the parameter's dim
                return SDim(Dimension.dynamic())
            return SDim(resolved, other.origin)
        return None

    def _broadcast_parameter_unknown(self, param: SDim) -> SDim:
        """An unannotated parameter's dim broadcast against an unknown one: as against any dim
        (`_broadcast_parameter`), the parameter may be 1 or the other, so it is `?` (the hull of 1
        and anything) and so is the result. Made equal to the parameter, the unknown dim was
        checked to be it or 1 and a later annotation of the result solved the parameter: more
        precise than with a static 2 in the unknown's place (1..2; found by the deep run)."""
        var = self.solver.free_var(param.dim)
        assert isinstance(var, DimVar)
        self.solver.bind_imprecise(var, Dimension.dynamic())
        return SDim(Dimension.dynamic())

    def _claimed_constraint(
        self, a: SDim, b: SDim, symbol: Optional[str], broadcasting: bool = False
    ) -> Optional[SDim]:
        """Two exact dims that differ, where one mentions a claimed symbol (an exporter's dynamic
        dim, SPEC 6): unless no value of it can make them agree, a warning that states the
        constraint, and a runtime check of the argument dim that mentions it (the later one when
        both do); the call goes on with the other dim. None: an ordinary mismatch.
        When `broadcasting`, see `_claimed_broadcast`."""
        ra, rb = self._shown(a), self._shown(b)
        if not (_mentions_claimed(ra) or _mentions_claimed(rb)):
            return None
        constraint = solve_constraint(ra, rb)
        if b.origin is not None and _mentions_claimed(rb):
            sides = (b, rb, a, ra)
        else:
            sides = (a, ra, b, rb)
        if broadcasting:
            return self._claimed_broadcast(sides, constraint, symbol)
        if constraint.kind == "impossible":
            return None
        return self._claim_checked(sides, constraint, (), symbol)

    def _claimed_broadcast(self, sides: tuple, constraint: Any, symbol: Optional[str]) -> Optional[SDim]:
        """Broadcasting two such dims also works where one of them is 1 (`(2 * n, 3) + (n, 3)`
        runs for n = 0 and n = 1). The side that can be 1 is checked to be the other or 1;
        when both can be 1 at different values (`n` and `n + 1`), no one dim is the result:
        it is unknown, and the operator's rule decides when it runs."""
        checked, checked_dim, kept, kept_dim = sides
        ones = [solve_constraint(d, Dimension.static(1)) for d in (checked_dim, kept_dim)]
        possible = [c.kind != "impossible" for c in ones]
        if constraint.kind == "impossible" and not any(possible):
            return None
        if possible[1] and not possible[0]:
            checked, checked_dim, kept, kept_dim = kept, kept_dim, checked, checked_dim
            ones.reverse()
        if all(possible) and ones[0] != ones[1]:
            either = ((checked_dim, ones[0]), (kept_dim, ones[1]))
            self.report_diag(
                messages.dim_constraint(self, checked, kept, checked_dim, kept_dim, constraint, False, either)
            )
            return SDim(Dimension.dynamic())
        one = ((checked_dim, ones[0]),) if any(possible) else ()
        return self._claim_checked((checked, checked_dim, kept, kept_dim), constraint, one, symbol)

    def _claim_checked(self, sides: tuple, constraint: Any, one: tuple, symbol: Optional[str]) -> SDim:
        """The warning, a check that the argument dim equals the kept one (or, `one` given,
        is it or 1), and the kept dim as the result."""
        checked, checked_dim, kept, kept_dim = sides
        inserted = checked.origin is not None and checked.origin.axis is not None
        if inserted:
            origin = checked.origin
            self.claim_checks[(origin.arg, origin.path, origin.axis)] = Broadcast(kept_dim) if one else kept_dim
        self.report_diag(messages.dim_constraint(self, checked, kept, checked_dim, kept_dim, constraint, inserted, one))
        return SDim(kept_dim, kept.origin, symbol or kept.symbol)

    def _broadcast_result(self, a: SDim, b: SDim) -> SDim:
        """Two dims that may broadcast: an exact one wins over a computed imprecise one (which is
        1 or equal to it), two imprecise ones give their hull (the result is one of them)."""
        ra, rb = self.solver.resolve(a.dim), self.solver.resolve(b.dim)
        if ra.is_exact or not rb.is_exact and ra == rb:
            return SDim(ra, a.origin or b.origin)
        if rb.is_exact:
            return SDim(rb, b.origin or a.origin)
        hi = None if ra.max_length is None or rb.max_length is None else max(ra.max_length, rb.max_length)
        return SDim(Dimension.interval(min(ra.min_length, rb.min_length), hi))

    def _maybe_one_of(self, a: SDim, b: SDim) -> Optional[SDim]:
        """The broadcast of two dims that differ where one is a computed imprecise dim that may
        be 1: the other (the runtime's rule rejects the values that do not broadcast)."""
        ra, rb = self.solver.resolve(a.dim), self.solver.resolve(b.dim)
        for one, other, resolved in ((ra, b, rb), (rb, a, ra)):
            if not one.is_exact and one.contains_value(1):
                return SDim(resolved, other.origin) if resolved.is_exact else SDim(Dimension.dynamic())
        return None

    def _loose_one(self, d: Dimension) -> bool:
        """A dim over a loose existential (CallSite.loose) that may be 1."""
        return (
            bool(self.loose)
            and d.is_symbolic
            and any(self.loose.get(s) for s in d.symbols())
            and self.maybe_one(SDim(d)) is not False
        )

    def _site_var(self, d: SDim) -> Optional[SiteVar]:
        var = self.solver.free_var(d.dim)
        return var if isinstance(var, SiteVar) else None

    def _broadcast_free(self, free: SDim, other: SDim) -> SDim:
        resolved = self.solver.resolve(other.dim)
        var = self.solver.free_var(free.dim)
        assert var is not None
        if not resolved.is_exact or self._loose_one(resolved):
            return SDim(Dimension.dynamic())
        if not var.lo <= 1 <= (var.hi if var.hi is not None else 1):
            grade = self.solver.unify(free.dim, other.dim)
            if grade is Grade.NEVER:
                self._error(messages.broadcast_mismatch(self, free, other, self._shown(free), self._shown(other)))
            return other
        slot = self._slot_of(var)
        if slot is not None:
            slot.broadcast_to = other
        return SDim(resolved, other.origin)

    def _slot_of(self, var: DimVar) -> Optional[Slot]:
        for slot in self.slots.values():
            if self.solver.find(slot.var) is self.solver.find(var):
                return slot
        return None

    def hinted_rank_conflict(self, param: Any, arg: Any) -> bool:
        """A hinted parameter (its dims `can_unify` guesses) met by a value of another rank,
        or of unknown rank (as a `?` dim widens a hinted dim): its hints are widened and the
        parameter is inferred unhinted in the next pass."""
        if param.dims is None or arg.dims is not None and len(arg.dims) == len(param.dims):
            return False
        hints = {
            s
            for d in param.dims
            if isinstance(d, Dimension) and d.is_symbolic
            for s in self.solver.resolve(d).symbols()
            if isinstance(s, HintVar)
        }
        if not hints:
            return False
        self.solver.widen |= hints
        self.solver.widen_ranks |= {h.origin[0] for h in hints}
        return True

    def dtype_needs(self, dtype: Any, cls: str) -> None:
        """A dtype variable an operand's class constrains: learned like a bound (infer.learn
        keeps it for the definition's own dtype variables, FuncType.dtype_requires)."""
        dt = self.solver.resolve_dtype(raw_dtype(dtype))
        if isinstance(dt, DTypeVar):
            self.learned.append((dt, cls, None))

    def within(self, d: Any, lo: int, hi: Optional[int]) -> None:
        """d must lie in lo..hi. An operator's rule checks that itself when it runs; a
        definition's or a closure's interval parameter (`Tensor[(1..4,)]`) met by a rigid
        symbol of the caller is checked at the call, as a `?` there is (the callee's entry
        check stopped such a run where no check site of the caller stated it)."""
        self._within(_sdim(d), lo, hi, assumed=self.callee.kind != "op")

    def assume_within(self, d: Any, lo: int, hi: Optional[int], needed: bool = True) -> None:
        self._within(_sdim(d), lo, hi, assumed=True, needed=needed)

    def _within(self, d: SDim, lo: int, hi: Optional[int], assumed: bool, needed: bool = True) -> None:
        var = self.solver.free_var(d.dim)
        if var is not None:
            if self.solver.narrow(var, lo, hi) is Grade.NEVER:
                self._error(messages.bound_violation(self, d, lo, hi, self._shown(d)))
            return
        dim = self.solver.resolve(d.dim)
        dlo, dhi = _signed_bounds(dim)
        if dhi < lo or hi is not None and dlo > hi:
            self._error(messages.bound_violation(self, d, lo, hi, self._shown(d)))
        elif dim.is_symbolic and (dlo < lo or hi is not None and dhi > hi):
            if needed:
                self._learn(dim, lo, hi)
            if assumed:
                self._check_bound(d, lo, hi)

    def assured(self, d: Any, lo: int, hi: Optional[int], symbol: str) -> SDim:
        """A callee's result dim whose symbol its body checks to lie in lo..hi before it
        returns: `?` or an interval comes back narrowed (the argument itself is not: the
        callee's check runs), a dim provably outside is an error (the call always fails), and
        a rigid symbol of the caller is a bound the caller learns in turn."""
        d = _sdim(d)
        dim = self.solver.resolve(d.dim)
        dlo, dhi = _signed_bounds(dim)
        if dlo >= lo and (hi is None or dhi <= hi):
            return d
        if dhi < lo or hi is not None and dlo > hi:
            self._error(messages.requirement_violation(self, d, symbol, lo, hi, self._shown(d)))
            return d
        if dim.is_symbolic and self.solver.free_var(dim) is None:
            self._learn(dim, lo, hi)
            return d
        top = hi if dhi == INF else (dhi if hi is None else min(hi, dhi))
        return SDim(Dimension.interval(max(lo, dlo), top))

    def _learn(self, dim: Dimension, lo: int, hi: Optional[int]) -> None:
        """A bound on a rigid symbol, which this call stops at runtime where it does not hold:
        of the symbol itself, or of `k * s + c` (k > 0; `q + 1 >= 3` is `q >= 2`)."""
        symbols = dim.expr.symbols()
        if len(symbols) != 1:
            return
        (sym,) = symbols
        part = dim.expr.linear_part(sym)
        if isinstance(sym, DimVar) or part is None or part[0] <= 0 or not part[1].is_const():
            return
        k, c = part[0], part[1].const_value()
        low, high = -((c - lo) // k), None if hi is None else (hi - c) // k
        if low > sym.lo or high is not None:
            self.learned.append((sym, low, high))

    def _check_bound(self, d: SDim, lo: int, hi: Optional[int]) -> None:
        """A rigid dim that is not provably inside lo..hi: checked at runtime where it came from
        (`strided_slice(x, begin=[1], end=[5])` on (b, s) needs s >= 5). Without an origin the
        runtime's shape rule, evaluated before the kernel, is what stops a bad size."""
        origin = d.origin
        if origin is None or origin.axis is None:
            return
        key = (origin.arg, origin.path, origin.axis)
        old_lo, old_hi = self.bound_checks.get(key, (0, None))
        new_hi = hi if old_hi is None else (old_hi if hi is None else min(old_hi, hi))
        self.bound_checks[key] = (max(old_lo, lo), new_hi)

    def at_least(self, d: Any, lo: int) -> Optional[bool]:
        """True if d >= lo for sure, False if d < lo for sure, None if it depends."""
        if isinstance(d, int):
            return d >= lo
        dim = self.solver.resolve(_sdim(d).dim)
        dlo, dhi = _signed_bounds(dim)
        if dlo >= lo:
            return True
        if dhi < lo:
            return False
        return True if dim.is_symbolic and _follows_from_facts(dim.expr - lo) else None

    def require_rank(self, arg: TensorArg, rank: int) -> None:
        if arg.dims is not None:
            if len(arg.dims) != rank:
                self.fail("rank", arg=arg, expected=rank, actual=len(arg.dims))
            return
        opened = self.opened.get((arg.index, arg.path))
        info = self.arg_infos[arg.index]
        if opened is not None and opened.typevar is not None:
            made = [self.new_def_var(opened.typevar, i) for i in range(rank)]
            dtype = raw_dtype(arg.dtype)
            if all(v is not None for v in made):
                dims = tuple(Dimension.of_expr(Poly.atom(v)) for v in made)
            else:
                dims = (Dimension.dynamic(),) * rank
            self.solver.bind_type(opened.typevar, TensorType(dims, dtype))
            self._sync_typevar_views(opened.typevar)
            return
        else:
            self.rank_checks[(arg.index, arg.path)] = rank
            arg.dims = [self._open_dim(Dimension.dynamic(), arg.index, arg.path, i, info) for i in range(rank)]
        arg.rank = rank

    def require_rank_at_least(self, arg: TensorArg, rank: int) -> None:
        self.require_possible_rank(arg, rank)
        if arg.dims is not None or rank <= 0:
            super().require_rank_at_least(arg, rank)
            return
        key = (arg.index, arg.path)
        known = self.known_runs.get(key)
        if known is not None and known[1] + known[2] >= rank:  # its type has that many dims around its run
            return
        if self.rank_min_checks.get(key, 0) < rank:
            self.rank_min_checks[key] = rank

    def same_dtype(self, a: Any, b: Any) -> SDType:
        da, db = raw_dtype(a), raw_dtype(b)
        grade, result = self.solver.unify_dtype(da, db)
        if grade is Grade.NEVER:
            self._error(messages.dtype_mismatch(self, _sdtype(a), _sdtype(b), da, db))
            return SDType(DYN_DTYPE)
        origin = a.origin if isinstance(a, SDType) and a.origin is not None else getattr(b, "origin", None)
        return SDType(result, origin)

    def bound(self, dims: dict, seqs: dict, dtypes: dict) -> None:
        if self.callee.kind != "flow":
            self.bindings = (dims, seqs, dtypes)
        else:
            self.flow_dims = dims

    def bound_dim(self, sym: Symbol) -> Optional[Dimension]:
        """What a flow bound one of its new symbols to (None: nothing, or not one dim)."""
        d = self.flow_dims.get(sym)
        return None if d is None or isinstance(d, (list, tuple)) else self._final_dim(_sdim(d))

    def unchecked_dtype_agreement(self) -> Optional[tuple]:
        """(dtype, 1-based argument positions) of a `?` dtype that this call made equal to the
        dtype of another argument where no cast can state it: the other one is a `?` too, or
        a dtype variable the caller does not declare (its own inferred one, a closed
        closure's), so the pattern writes `?` (`_tensor_pattern`). None when there is none."""
        seen: dict = {}
        for (index, path), opened in self.opened.items():
            view = opened.view
            if isinstance(view, TensorArg) and view.dtype is not None:
                dt = self.solver.resolve_dtype(raw_dtype(view.dtype))
                if isinstance(dt, DTypeVar) and dt.meta:
                    seen.setdefault(dt, set()).add((index, path))
        unknown = {self.solver.resolve_dtype(var) for var in self.dtype_slots.values()}
        for dt, where in seen.items():
            if dt in unknown and len(where) > 1:
                return dt, tuple(sorted({i + 1 for i, _ in where}))
        return None

    # results ------------------------------------------------------------------------------
    def tensor(
        self, dims: Optional[Sequence[Any]], dtype: Any = None, value: Optional[Sequence[Any]] = None
    ) -> ProtoTensor:
        return ProtoTensor(
            None if dims is None else [_sdim(d) for d in dims],
            dtype,
            None if value is None else [_value_item(v) for v in value],
        )

    def tuple(self, fields: Sequence[Any]) -> ProtoTuple:
        return ProtoTuple(list(fields))

    def reference(self, content: Any) -> ProtoRef:
        """A reference result (of a function whose signature returns one)."""
        return ProtoRef(content)

    # running a rule -------------------------------------------------------------------------
    def run(self, rule: Callable[["CallSite"], Any]) -> SiteOutcome:
        """Run a rule or signature on this site and finalize (errors become diagnostics)."""
        if self.bottom:
            return SiteOutcome(BOTTOM)
        try:
            proto = rule(self)
            self._assume_natural(proto)
        except RuleFailure as failure:
            self._error(messages.rule_failure(self, failure.code, failure.facts))
            return SiteOutcome(ERROR, failed=True)
        except (ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
            # a shape rule with a bug: one diagnostic at this call, and checking goes on
            self._error(messages.rule_crashed(self, exc))
            return SiteOutcome(ERROR, failed=True)
        return self.finalize(proto)

    def _assume_natural(self, proto: Any) -> None:
        """Every result dim is a size: one that is not provably >= 0 (`n - 2` of a pad by -1,
        `(h - 5) // 2 + 1` of a pool with a large window, `m * n - 5` of a split of a flattened
        (n, m)) assumes its argument dim is large enough, which the runtime checks where the
        argument came in, as a slice's length does. A result over symbols of several argument
        dims (`n - m`) has no such bound: the runtime's evaluation of the rule before the
        kernel stops a negative size there."""
        if isinstance(proto, ProtoTuple):
            for field in proto.fields:
                self._assume_natural(field)
            return
        if not isinstance(proto, ProtoTensor) or proto.dims is None:
            return
        for d in proto.dims:
            dim = self.solver.resolve(d.dim)
            if dim.is_symbolic and dim.expr.bounds()[0] < 0:
                self._require_natural(dim.expr)

    def _require_natural(self, expr: Poly) -> None:
        """Check the argument dim that `expr` grows with is large enough to make it >= 0: a
        nondecreasing function of one symbol that an argument dim is, or `k * e + c` of an
        argument dim `e` (`k > 0`)."""
        symbols = expr.symbols()
        dims = self._argument_dims()
        if any(_at_least_a_size(expr, whole) for _, whole in dims):
            return  # `n - 1` of an argument whose dim is `n - 1`: that value's size shows it
        if len(symbols) == 1 and _nondecreasing(expr):
            (sym,) = symbols
            target = Poly.atom(sym)
            source = next((d for d, e in dims if e == target), None)
            need = _least_natural_point(expr, sym)
            if source is not None and need is not None:
                self._within(source, need, None, assumed=True)
                return
        for source, whole in dims:
            scaled = _linear_in(expr, whole)
            if scaled is not None:
                k, c = scaled
                need = -(c // k)  # k * e + c >= 0
                if need > 0:  # else the argument's dim, a size, makes it one
                    self._within(source, need, None, assumed=True)
                return

    def _argument_dims(self) -> list:
        """(dim, its polynomial) of each symbolic argument dim (where a bound can be checked)."""
        found = []
        for opened in self.opened.values():
            view = opened.view
            if isinstance(view, TensorArg) and view.dims is not None:
                for d in view.dims:
                    if isinstance(d, SDim) and d.origin is not None:
                        dim = self.solver.resolve(d.dim)
                        if dim.is_symbolic and not dim.expr.is_const():
                            found.append((d, dim.expr))
        return found

    def _error(self, diag: Diagnostic) -> None:
        self.errors += 1
        if self.callee.kind == "flow" and self.errors > 1:
            return  # a value that cannot flow somewhere is one mistake, reported once
        if self.after_error and self._mentions_error_arg(diag):
            return  # the mistake that produced that argument was reported already
        self.report_diag(diag)

    def _mentions_error_arg(self, diag: Diagnostic) -> bool:
        spans = [diag.span] + [label.span for label in diag.labels]
        for info in self.arg_infos:
            t = self.solver.resolve_type(info.type)
            if isinstance(t, DynType) and t.from_error and any(s == info.span for s in spans):
                return True
        return not any(s == info.span for s in spans for info in self.arg_infos)

    def _shown(self, d: SDim) -> Dimension:
        return self.solver.resolve(d.dim, final=True)

    def finalize(self, proto: Any) -> SiteOutcome:
        """The result type and the casts each argument needs (see the module docstring)."""
        if self.errors or self.after_error:
            # one mistake is reported once: what depends on a failed call is `?` from error
            return SiteOutcome(
                ERROR if self.callee.kind != "flow" else self.resolve_result(proto), failed=bool(self.errors)
            )
        result = self.resolve_result(proto)
        reason = _untracked(proto)
        if reason:
            self.report_diag(messages.dim_untracked(self.span, self.op_name, reason))
        builder = _CastBuilder(self)
        casts, refinements = builder.build()
        return SiteOutcome(
            result,
            casts,
            refinements,
            builder.facts,
            False,
            list(builder.binders.values()) + builder.runs,
            self._instantiation(),
            self.learned,
        )

    def _instantiation(self) -> tuple:
        """What the signature's symbols and dtype variables stand for at this call."""
        if not self.bindings:
            return ()
        dims, seqs, dtypes = self.bindings
        out: list = [(sym.name, self._final_dim(_sdim(d))) for sym, d in dims.items()]
        out += [(f"*{sym.name}", tuple(self._final_dim(_sdim(d)) for d in run)) for sym, run in seqs.items()]
        out += [(var.name, self.solver.resolve_dtype(raw_dtype(d))) for var, d in dtypes.items()]
        return tuple(out)

    def resolve_result(self, proto: Any) -> Type:
        """A rule's result as a Type, with site variables replaced by what is known of them."""
        if isinstance(proto, ProtoTensor):
            dims = None if proto.dims is None else tuple(self._final_dim(d) for d in proto.dims)
            dtype = self.solver.resolve_dtype(raw_dtype(proto.dtype)) if proto.dtype is not None else DYN_DTYPE
            if isinstance(dtype, DTypeVar) and dtype.meta and dtype.name == "?":
                dtype = DYN_DTYPE
            value = (
                None
                if proto.value is None
                else tuple(v if isinstance(v, int) else self._final_dim(v) for v in proto.value)
            )
            return TensorType(dims, dtype, value)
        if isinstance(proto, ProtoTuple):
            return TupleType(tuple(self.resolve_result(f) for f in proto.fields))
        if isinstance(proto, ProtoRef):
            return RefType(self.resolve_result(proto.content))
        if isinstance(proto, ProtoFunction):
            return self._function_result(proto)
        if isinstance(proto, Type):
            return proto
        raise TypeError(f"a shape rule returned {proto!r}")

    def _function_result(self, proto: ProtoFunction) -> Type:
        """A function-typed result with the callee's symbols replaced by this call's values (an
        unbound one, or one bound to a run of dims, by `?`)."""

        def dim(d: Dimension) -> Dimension:
            if not d.is_symbolic:
                return d
            mentioned = d.expr.symbols() & proto.quantified
            if not mentioned:
                return d
            values = {}
            for sym in mentioned:
                bound = proto.dims.get(sym)
                if bound is None or isinstance(bound, (list, tuple)):
                    return Dimension.dynamic()
                values[sym] = self._final_dim(_sdim(bound))
            if all(v.is_exact for v in values.values()):
                return Dimension.of_expr(d.expr.substitute(lambda s: values[s].expr if s in values else None))
            (sym,) = mentioned if len(mentioned) == 1 else (None,)
            return values[sym] if sym is not None and d.expr == Poly.atom(sym) else Dimension.dynamic()

        def dtype(dt: DType) -> DType:
            if dt not in proto.quantified_dtypes:
                return dt
            bound = proto.dtypes.get(dt)
            return DYN_DTYPE if bound is None else self.solver.resolve_dtype(raw_dtype(bound))

        return map_dtypes(map_dims(proto.type, dim), dtype)

    def _final_dim(self, d: SDim) -> Dimension:
        dim = self.solver.resolve(d.dim)
        if any(isinstance(s, SiteVar) for s in dim.symbols()):
            return self.solver.resolve(dim, final=True)
        return dim


class _FuncArg(ArgView):
    """A function-typed argument."""

    __slots__ = ("type",)

    def __init__(self, index: int, path: tuple, t: FuncType) -> None:
        super().__init__(index, path)
        self.type = t


class _RefArg(ArgView):
    """A reference argument: the view of its contents."""

    __slots__ = ("content",)

    def __init__(self, index: int, path: tuple, content: ArgView) -> None:
        super().__init__(index, path)
        self.content = content


def _pattern_dims(t: Type) -> list:
    """The dims (and `e|1` items) of a cast pattern's tensors, in the order a runtime check
    meets them."""
    if isinstance(t, TupleType):
        return [d for f in t.fields for d in _pattern_dims(f)]
    if isinstance(t, TensorType) and t.dims is not None:
        return list(t.dims)
    return []


class _CastBuilder:
    """Turns a site's slots into per-argument cast patterns (see the module docstring)."""

    def __init__(self, site: CallSite) -> None:
        self.site = site
        self.solver = site.solver
        self.binders: dict[SiteVar, Symbol] = {}
        self.runs: list = []  # the `*r` of rank patterns, bound at runtime like the binders
        self.occurrences: dict[SiteVar, int] = {}
        # each shared dim's occurrences (argument index, path, axis, variable); the first binds it
        self.uses: dict[SiteVar, list] = {}
        self.facts: list = []

    def build(self) -> tuple[list, list]:
        self._count_occurrences()
        casts: list = []
        refinements: list = []
        seen_binders: set[int] = set()
        patterns = []
        for index, info in enumerate(self.site.arg_infos):
            if info.binder is not None:
                if id(info.binder) in seen_binders:
                    continue
                seen_binders.add(id(info.binder))
            pattern, verifies, refined = self._pattern(index, (), info.type)
            patterns.append((index, info, pattern, verifies))
            if verifies and info.binder is not None and refined is not None:
                refinements.append((index, info.binder, refined))
        binding = self._binding_arguments(patterns)
        sooner = self._bound_sooner(patterns, binding) if binding else set()
        for index, info, pattern, verifies in patterns:
            binds = index in binding
            verifies = verifies or index in sooner
            if verifies or binds:
                reason = messages.cast_reason(self.site, index)
                casts.append(CastPattern(index, info.node, pattern, verifies, binds, reason))
        return casts, refinements

    def _binding_arguments(self, patterns: list) -> set:
        """The arguments whose casts bind a symbol that a verifying pattern mentions (a cast
        that verifies nothing is kept only for that)."""
        if not self.uses:
            return set()
        mentioned: set = set()
        for _, _, pattern, verifies in patterns:
            if verifies:
                mentioned |= type_symbols(pattern)
        return {self.uses[var][0][0] for var, sym in self.binders.items() if sym in mentioned}

    def _bound_sooner(self, patterns: list, binding: set) -> set:
        """The binding arguments a symbol of whose is bound before their cast runs: casts run in
        argument order, and the runtime solves an expression with one unbound symbol it is
        linear in (`%y as (2 - d,)` before `%z as (d,)`: runtime/match.py), so such a cast
        checks it: a check site that can fail, and so counted (it failed with no check site
        counted: found by outside pass 9). `d // 2` or `d - d1` wait for their symbols; the
        caller's own names (`d + s10`) are bound already."""
        owned: dict = {}
        for var, sym in self.binders.items():
            owned.setdefault(self.uses[var][0][0], set()).add(sym)
        mine = set(self.binders.values()) | set(self.runs)  # the caller's own names are bound on entry
        bound: set = set()
        sooner: set = set()
        for i, _, pattern, verifies in patterns:  # in argument order
            if i in binding and owned.get(i, set()) & bound:
                sooner.add(i)
            if not (verifies or i in binding):
                continue  # no cast
            for d in _pattern_dims(pattern):
                if isinstance(d, Broadcast):  # binds where the size is not 1
                    d = d.target
                if not isinstance(d, Dimension) or not d.is_symbolic:
                    continue
                free = (d.symbols() & mine) - bound
                if len(free) == 1:
                    sym = next(iter(free))
                    fixed = d.expr.substitute(lambda s: Poly.const(1) if s in bound else None)
                    if fixed.linear_part(sym) is not None:
                        bound.add(sym)
        return sooner

    def _count_occurrences(self) -> None:
        for slot in self.site.slots.values():
            rep = self.solver.find(slot.var)
            if isinstance(rep, SiteVar) and self.solver.is_free(rep):
                self.occurrences[rep] = self.occurrences.get(rep, 0) + 1
            for target in self._referenced_vars(slot):
                self.occurrences[target] = self.occurrences.get(target, 0) + 2
        for claimed in self.site.claim_checks.values():  # a dim checked against site variables
            if isinstance(claimed, Broadcast):
                claimed = claimed.target
            for sym in self.solver.resolve(claimed).symbols():
                if isinstance(sym, SiteVar) and self.solver.is_free(sym):
                    rep = self.solver.find(sym)
                    self.occurrences[rep] = self.occurrences.get(rep, 0) + 2
        if self.site.contracts:  # a contract names the argument dims it shares
            args = {self.solver.find(slot.var) for slot in self.site.slots.values()}
            for contract in self.site.contracts.values():
                for sym in type_symbols(contract):
                    rep = self.solver.find(sym) if isinstance(sym, SiteVar) else None
                    if rep in args and self.solver.is_free(rep):
                        self.occurrences[rep] = self.occurrences.get(rep, 0) + 2

    def _referenced_vars(self, slot: Slot) -> list:
        found: list = []
        rep = self.solver.find(slot.var)
        exprs = []
        if rep in self.solver.solution:
            exprs.append(self.solver.resolve(self.solver.solution[rep]))
        if slot.broadcast_to is not None:
            exprs.append(self.solver.resolve(slot.broadcast_to.dim))
        for e in exprs:
            for s in e.symbols():
                if isinstance(s, SiteVar) and self.solver.is_free(s):
                    found.append(self.solver.find(s))
        return found

    def _pattern(self, index: int, path: tuple, t: Type) -> tuple[Type, bool, Optional[Type]]:
        t = self.solver.resolve_type(t)
        kind = self.site.kind_checks.get((index, path))
        opened = self.site.opened.get((index, path))
        view = opened.view if opened is not None else None
        key = (index, path)
        if (
            opened is not None
            and opened.dynamic
            and kind is None
            and key not in self.site.rank_checks
            and key not in self.site.contracts
        ):
            return DYN, False, None  # a `?` the call never looked inside (nor passed for a function)
        if isinstance(view, TupleArg) and view.fields is not None:
            parts = [self._pattern(index, path + (i,), _field_type(t, i)) for i in range(len(view.fields))]
            verifies = kind is not None or any(p[1] for p in parts)
            refined = TupleType(tuple(p[2] or p[0] for p in parts)) if isinstance(t, TupleType) else None
            return TupleType(tuple(p[0] for p in parts)), verifies, refined
        contract = self.site.contracts.get((index, path))
        if contract is not None:  # a function, or a `?` passed for one
            return self._contract_pattern(contract), True, None
        if isinstance(view, TensorArg):
            return self._tensor_pattern(index, path, t, view, kind is not None)
        if isinstance(view, _RefArg):
            content = t.content if isinstance(t, RefType) else DYN
            inner, verifies, refined = self._pattern(index, path + (REF_CONTENT,), content)
            return (
                RefType(inner),
                verifies or kind is not None,
                RefType(refined or inner) if isinstance(t, RefType) else None,
            )
        return (t if isinstance(t, Type) else DYN), False, None

    def _contract_pattern(self, contract: FuncType) -> FuncType:
        """The function type a contract checks, as the caller's frame can state it: a dim of
        another argument is its runtime binder, a dim nothing binds is `?`."""

        def dim(d: Dimension) -> Dimension:
            d = self.solver.resolve(d)
            if not any(isinstance(s, DimVar) for s in d.symbols()):
                return d
            expressed = self._express(d)
            if expressed is None or any(isinstance(s, DimVar) for s in expressed.symbols()):
                return Dimension.dynamic()
            return expressed

        def dtype(t: Any) -> Any:
            t = self.solver.resolve_dtype(t)
            return DYN_DTYPE if isinstance(t, DTypeVar) and (t.meta or t in self.site.chosen) else t

        found = map_dtypes(map_dims(contract, dim), dtype)
        assert isinstance(found, FuncType)
        return found

    def _tensor_pattern(self, index: int, path: tuple, t: Type, view: TensorArg, kind_check: bool) -> tuple:
        verifies = kind_check or (index, path) in self.site.rank_checks
        dims: Optional[tuple] = None
        refined_dims: Optional[tuple] = None
        if view.dims is None:
            dims, checks = self._unknown_rank_pattern(index, path)
            verifies |= checks
        else:
            out, ref = [], []
            for axis, d in enumerate(view.dims):
                item, checks, refined = self._dim_pattern(index, path, axis, d)
                verifies |= checks
                out.append(item)
                ref.append(refined)
            dims, refined_dims = tuple(out), tuple(ref)
        dtype = raw_dtype(view.dtype)
        dvar = self.site.dtype_slots.get((index, path))
        if dvar is not None:
            solved = self.solver.resolve_dtype(dvar)
            if isinstance(solved, str) and solved != DYN_DTYPE or isinstance(solved, DTypeVar) and not solved.meta:
                dtype, verifies = solved, True  # a static dtype, or a declared one of the frame
            else:
                dtype = DYN_DTYPE
        dtype = self.solver.resolve_dtype(dtype)
        pattern = TensorType(dims, dtype)
        # a `?` value checked to be a tensor is one from then on (each use checked it again)
        was_dynamic = isinstance(t, DynType) and not t.from_error
        refined = TensorType(refined_dims, dtype) if isinstance(t, TensorType) or was_dynamic else None
        if refined is not None and isinstance(t, TensorType) and t.value is not None:
            refined = TensorType(refined.dims, refined.dtype, t.value)
        return pattern, verifies, refined

    def _unknown_rank_pattern(self, index: int, path: tuple) -> tuple[Optional[tuple], bool]:
        """The dims to check of an argument of unknown rank, and whether they verify anything:
        `(*r, ?, ?)` where it must have at least two dims (an axis attribute names its dim 1),
        `(*r, 4)` where a signature's `(*b, k)` or a rule's axis from the end needs its last dim
        to be 4, `(*b, k)` where its middle must be the enclosing signature's run. What a check
        of this value established already is not checked again."""
        key = (index, path)
        info = self.site.arg_infos[index]
        least = self.site.rank_min_checks.get(key, 0)
        if any(f[0] == "rank-at-least" and f[1] == path and f[2] >= least for f in info.facts):
            least = 0
        edges = self.site.edges.get(key, {})
        first = _up_to_last_check(
            [self._edge_pattern(index, path, a, edges[a]) for a in sorted(a for a in edges if a >= 0)]
        )
        last = _up_to_last_check(
            [self._edge_pattern(index, path, a, edges[a]) for a in sorted(a for a in edges if a < 0)][::-1]
        )[::-1]
        known = self.site.known_runs.get(key)
        if first and last and len(first) + len(last) > max(least, known[1] + known[2] if known else 0):
            last = []  # both ends may be the same dims (dim 1 and the last of a rank-2 value): the rule checks it at the call
        run = self.site.run_checks.get(key)
        verifies = bool(least) or run is not None or any(v for _, v in first + last)
        if not verifies:
            return None, False
        padding = (Dimension.dynamic(),) * max(0, least - len(first) - len(last))
        if run is None:
            run = Symbol("r")
            self.runs.append(run)
        if least and info.binder is not None:
            self.facts.append((index, info.binder, ("rank-at-least", path, max(least, len(first) + len(last)))))
        return tuple(d for d, _ in first) + (Variadic(run),) + padding + tuple(d for d, _ in last), True

    def _edge_pattern(self, index: int, path: tuple, axis: int, d: SDim) -> tuple:
        """(pattern item, whether it verifies) of a dim at one end of a value of unknown rank; a
        verified dim that names no binder of this call is a fact of the value from then on."""
        item, verifies, _ = self._dim_pattern(index, path, axis, d)
        info = self.site.arg_infos[index]
        if (
            verifies
            and isinstance(item, Dimension)
            and item.is_exact
            and info.binder is not None
            and not item.symbols() & set(self.binders.values())
        ):
            self.facts.append((index, info.binder, ("edge", path, axis, item)))
        return item, verifies

    def _dim_pattern(self, index: int, path: tuple, axis: int, d: SDim) -> tuple:
        """(pattern item, whether it verifies something, refined dim for the value's type)."""
        slot = self.site.slots.get((index, path, axis))
        claimed = self.site.claim_checks.get((index, path, axis))
        if isinstance(claimed, Broadcast):  # the dim is the other or 1: the value keeps its own
            expressed = self._express(self.solver.resolve(claimed.target))
            if expressed is not None:
                own = self.solver.resolve(d.dim, final=True)
                if not self._new_broadcast_fact(index, path, axis, expressed):
                    return own, False, own
                return Broadcast(expressed), True, own
        elif claimed is not None:
            expressed = self._express(self.solver.resolve(claimed))
            if expressed is not None:
                own = self.solver.resolve(d.dim, final=True)
                if expressed.symbols() & set(self.binders.values()):
                    return expressed, True, own
                divisor = _divisibility(expressed, own)
                if divisor is not None:  # `m` as `2 * d`: a cast that binds d where 2 divides m
                    quotient = Symbol("d")
                    self.runs.append(quotient)
                    return Dimension.of_expr(Poly.atom(quotient) * divisor), True, own
                return expressed, True, _checked_dim(own, expressed)
        if slot is None:
            exact = self.solver.resolve(d.dim, final=True)
            bound = self.site.bound_checks.get((index, path, axis))
            if bound is not None:
                return self._bound_pattern(index, path, axis, bound, exact)
            return exact, False, exact
        rep = self.solver.find(slot.var)
        known = slot.known
        if rep in self.solver.solution:
            return self._solved_pattern(rep, known, (index, path, axis))
        if not isinstance(rep, SiteVar):  # equal to an inference variable (an unannotated parameter's dim)
            same = Dimension.of_expr(Poly.atom(rep))
            return same, True, same
        if slot.broadcast_to is not None:
            target = self._express(self.solver.resolve(slot.broadcast_to.dim))
            if target is None or not self._new_broadcast_fact(index, path, axis, target):
                return known, False, known
            return Broadcast(target), True, known
        bounds = Dimension.interval(*self.solver.bounds(rep))
        if self.occurrences.get(rep, 0) > 1:
            return self._shared_pattern(rep, index, path, axis, known, bounds)
        if not known.refines(bounds):
            return bounds, True, bounds
        return known, False, known

    def _new_broadcast_fact(self, index: int, path: tuple, axis: int, target: Dimension) -> bool:
        """Whether a check that the dim is `target` or 1 is still to make (no earlier check of this
        value made it); a check made here is a fact of the value from then on."""
        info = self.site.arg_infos[index]
        fact = ("broadcast", path, axis, target)
        if fact in info.facts:
            return False
        if info.binder is not None and not target.symbols() & set(self.binders.values()):
            self.facts.append((index, info.binder, fact))
        return True

    def _bound_pattern(self, index: int, path: tuple, axis: int, bound: tuple, exact: Dimension) -> tuple:
        """A rigid dim checked against bounds (a slice's or window's length): once per value,
        as a fact that an earlier check of bounds at least as tight makes unnecessary."""
        info = self.site.arg_infos[index]
        lo, hi = bound
        for fact in info.facts:
            if (
                fact[:3] == ("bound", path, axis)
                and fact[3] >= lo
                and (hi is None or fact[4] is not None and fact[4] <= hi)
            ):
                return exact, False, exact
        if info.binder is not None:
            self.facts.append((index, info.binder, ("bound", path, axis, lo, hi)))
        return Dimension.interval(lo, hi), True, exact

    def _shared_pattern(
        self, rep: SiteVar, index: int, path: tuple, axis: int, known: Dimension, bounds: Dimension
    ) -> tuple:
        """A dim that several argument dims share: the first occurrence binds it (checking its
        bounds where they are narrower than the value's type), each later one must equal it,
        unless its variable is already known equal to an earlier occurrence's (a fact from an
        earlier check: the same equality is never checked twice)."""
        binder = Dimension.of_expr(Poly.atom(self._binder(rep)))
        uses = self.uses.setdefault(rep, [])
        var = self.site.arg_infos[index].binder
        if not uses:
            uses.append((index, path, axis, var))
            narrowed = not known.refines(bounds)
            return binder, narrowed, bounds if narrowed else known
        known_facts = self.site.arg_infos[index].facts

        def known_equal(other: Any, p: tuple, a: int) -> bool:
            same_place = other is var and (p, a) == (path, axis)
            return same_place or ("equal", path, axis, id(other), p, a) in known_facts

        if var is not None and any(other is not None and known_equal(other, p, a) for _, p, a, other in uses):
            uses.append((index, path, axis, var))
            return binder, False, known
        first_index, first_path, first_axis, first_var = uses[0]
        if var is not None and first_var is not None:
            self.facts.append((index, var, ("equal", path, axis, id(first_var), first_path, first_axis)))
            self.facts.append((first_index, first_var, ("equal", first_path, first_axis, id(var), path, axis)))
        uses.append((index, path, axis, var))
        return binder, True, bounds

    def _solved_pattern(self, rep: SiteVar, known: Dimension, where: tuple) -> tuple:
        solution = self.solver.resolve(self.solver.solution[rep])
        hints = {s for s in solution.symbols() if isinstance(s, HintVar)}
        if hints:
            self.solver.widen |= hints
            return known, False, known
        expressed = self._express(solution)
        if expressed is None:
            return known, False, known
        if expressed.is_exact and not expressed.symbols() & set(self.binders.values()):
            return expressed, True, _checked_dim(known, expressed)
        self._binds_in(expressed, where)
        return expressed, True, known

    def _binds_in(self, expressed: Dimension, where: tuple) -> None:
        """An expression of binders (`2 * d`) in a cast binds them where it is the first of their
        occurrences, as a bare one would: a later bare `d` then verifies, and is counted (two
        casts that can each fail counted as one)."""
        mentioned = expressed.symbols()
        if len(mentioned) != 1:
            return  # `n - m` binds neither (the runtime waits for a bare occurrence)
        (sym,) = mentioned
        part = expressed.expr.linear_part(sym)
        if part is None or part[0] <= 0 or not part[1].is_const():
            return  # `d // 2` cannot be solved for d
        for rep, binder in self.binders.items():
            if binder is sym and not self.uses.get(rep):
                self.uses.setdefault(rep, []).append(where + (None,))

    def _express(self, dim: Dimension) -> Optional[Dimension]:
        """A dimension with free site variables replaced by their runtime binders."""
        # in the symbols' order, not the set's (hash) order: the binders made here are numbered
        # as they are made, and a product of them prints in that order (`d * d1 * d2`)
        free = sorted((s for s in dim.symbols() if isinstance(s, SiteVar)), key=lambda s: s.sort_key())
        if not free:
            return dim
        mapping = {}
        for s in free:
            rep = self.solver.find(s)
            if rep not in self.uses and self.occurrences.get(rep, 0) <= 1:
                return None
            # a variable a later argument binds is named now: the runtime checks the expression
            # once that argument's cast has bound it (match.py: deferred expressions)
            mapping[s] = Poly.atom(self._binder(rep))
        return Dimension.of_expr(dim.expr.substitute(lambda s: mapping.get(s)))

    def _binder(self, rep: SiteVar) -> Symbol:
        found = self.binders.get(rep)
        if found is None:
            found = self.binders[rep] = Symbol("d", rep.lo, rep.hi)
        return found


def _mentions_claimed(d: Dimension) -> bool:
    return d.is_symbolic and any(s.claimed for s in d.symbols())


def _untracked(proto: Any) -> str:
    """Why a rule's result holds a dim computed from exact dims that is not exact ("size": past
    the polynomial bounds, "quotient": a division that does not divide), or ""."""
    if isinstance(proto, ProtoTuple):
        return next((r for r in map(_untracked, proto.fields) if r), "")
    if isinstance(proto, ProtoTensor):
        items = list(proto.dims or ()) + list(proto.value or ())
        return next((d.untracked for d in items if isinstance(d, SDim) and d.untracked), "")
    return ""


def _field_type(t: Type, i: int) -> Type:
    if isinstance(t, TupleType) and i < len(t.fields):
        return t.fields[i]
    return DYN


def _sdim(d: Any) -> SDim:
    if isinstance(d, SDim):
        return d
    if isinstance(d, int):
        if d < 0:
            raise RuleFailure("negative-dim", {"detail": f"a size of {d}"})
        return SDim(Dimension.static(d))
    if isinstance(d, Dimension):
        return SDim(d)
    raise TypeError(f"not a dimension: {d!r}")


def _value_item(v: Any) -> Any:
    """An element of a shape value: negative integers stay ints (reshape codes such as -1)."""
    if isinstance(v, int) and v < 0:
        return v
    return _sdim(v)


def _follows_from_facts(expr: Poly) -> bool:
    """Whether `expr >= 0` follows from one fact a frontend declared about its symbols
    (`Symbol.facts`, torch's inequality guards): expr minus the fact is >= 0 by the symbols'
    bounds (`s3 - s12` from the guard `s12 <= s3`; `s53 - s88 - (s53 - s88) // 2` from `s88 +
    (s53 - s88) // 2 <= s53`)."""
    seen: set = set()
    for sym in expr.symbols():
        for fact in sym.facts:
            if id(fact) in seen:
                continue
            seen.add(id(fact))
            if (expr - fact).bounds()[0] >= 0:
                return True
    return False


def _signed_bounds(dim: Dimension) -> tuple:
    """The values a dimension's expression may take. A symbolic one is not clamped at 0 as
    the Dimension's own bounds are: `0 - n`, an element of a shape value, may be negative, and
    as a dim it holds only where it is not (so it is not the static 0)."""
    return dim.expr.bounds() if dim.is_symbolic else dim.bounds()


def _nondecreasing(expr: Poly) -> bool:
    """Whether a polynomial over natural numbers never decreases as its symbols grow: every
    term has a positive coefficient, and every quotient a nondecreasing numerator."""
    for mono, c in expr.terms:
        if mono and c < 0:
            return False
        if any(isinstance(a, FloorDiv) and not _nondecreasing(a.num) for a in mono):
            return False
        if any(isinstance(a, Extremum) and not all(_nondecreasing(arg) for arg in a.args) for a in mono):
            return False
    return True


def _linear_in(expr: Poly, whole: Poly) -> Optional[tuple]:
    """(k, c) with `expr == k * whole + c` for a positive integer k, or None."""
    mono, coefficient = next((m, c) for m, c in whole.terms if m)
    mine = next((c for m, c in expr.terms if m == mono), 0)
    if mine <= 0 or mine % coefficient or mine // coefficient <= 0:
        return None
    k = mine // coefficient
    rest = expr - whole * k
    return (k, rest.const_value()) if rest.is_const() else None


def _at_least_a_size(expr: Poly, whole: Poly) -> bool:
    """Whether `expr` is `k * whole + c` with `k > 0` and `c >= 0`: >= 0 where `whole` is a size."""
    scaled = _linear_in(expr, whole)
    return scaled is not None and scaled[1] >= 0


def _least_natural_point(expr: Poly, sym: Any) -> Optional[int]:
    """The least value of `sym` (within its bounds) where a nondecreasing `expr` is >= 0."""
    lo, hi = sym.bounds()
    at = lambda v: expr.evaluate({sym: v})  # noqa: E731
    if at(lo) >= 0:
        return lo
    step = 1
    while at(lo + step) < 0:
        step *= 2
        if lo + step > (hi if hi != float("inf") else 2**62):
            return None
    low, high = lo + step // 2, lo + step  # at(low) < 0 <= at(high)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if at(mid) < 0 else (low, mid)
    return high


def _sdtype(d: Any) -> SDType:
    return d if isinstance(d, SDType) else SDType(d)


def _as_dim(d: Any) -> Dimension:
    return d if isinstance(d, Dimension) else Dimension.static(d)


def _bound_value(site: CallSite, value: Any, upper: bool) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    dim = site.solver.resolve(_sdim(value).dim, final=True)
    if dim.is_static:
        return dim.get_length()
    return dim.max_length if upper else dim.min_length


def _broadcast_hull(solver: Solver, a: DimVar, b: DimVar) -> Optional[Dimension]:
    """What the broadcast of two unknown runtime dims can be, from their bounds (the shape
    algebra's `broadcast_merge`: `1..4` with `5..8` is `5..8`, `?` with `?` is `?`). None when
    no value of either broadcasts with the other."""
    return Dimension.broadcast_merge(Dimension.interval(*solver.bounds(a)), Dimension.interval(*solver.bounds(b)))


def _up_to_last_check(items: list) -> list:
    """Edge patterns (item, verifies) from the value's end inwards, without the `?`s past the
    last one that says something (a check, or a binder another argument's cast must equal:
    dropping that one lost the relation between dense's two arguments; found by the deep round
    trip)."""
    while items and not items[-1][1] and isinstance(items[-1][0], Dimension) and items[-1][0].is_unknown:
        items = items[:-1]
    return items


def _divisibility(checked: Dimension, own: Dimension) -> Optional[int]:
    """c where a check that a dim `own` is `c * (own // c)` only asks that c divides it: written
    so in a cast, that form is a rigid expression the checker cannot equate with `own` (the
    elaborated program was rejected); `c * d`, d bound by the cast, says the same and checks alike."""
    if not own.is_exact or not checked.is_exact or len(checked.expr.terms) != 1:
        return None
    mono, coeff = checked.expr.terms[0]
    if len(mono) != 1 or coeff < 2:
        return None
    (atom,) = mono
    if isinstance(atom, FloorDiv) and atom.den == coeff and atom.num == own.expr:
        return coeff
    return None


def _checked_dim(own: Dimension, checked: Dimension) -> Dimension:
    """A value's dim once a check showed it equals `checked`: an exact dim stays as it is (a
    rigid `m` checked to be `2 * (m // 2)` is still `m`: the other form is equal but no other
    use would know it), anything less precise becomes what was checked."""
    return own if own.is_exact else checked
