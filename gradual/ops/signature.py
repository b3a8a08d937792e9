"""Signatures as shape rules: matching arguments against `fn [T](Tensor[(n, k), T], ...)`.

Written once against `ShapeContext`, so a signature is checked symbolically by the checker and
evaluated on concrete sizes by the runtime. The first occurrence of a symbol binds it, later
occurrences must equal it; `*b` binds a run of dims; expressions such as `n + 1` are evaluated
once their symbols are bound (or solved, when one unknown appears linearly).
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.ops.context import ArgView, ShapeContext, TensorArg, TupleArg
from gradual.ops.contracts import enforce
from gradual.ops.operand_dtypes import check_dtype_class, check_operand_dtypes
from gradual.shapes import Dimension, Poly, Symbol
from gradual.shapes.dimension import extremum_of
from gradual.shapes.poly import Extremum, FloorDiv
from gradual.types import (
    DYN_DTYPE,
    AdtType,
    Broadcast,
    DTypeVar,
    DynType,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeParam,
    TypeVar,
    Variadic,
)


class SignatureMatcher:
    """Binds a signature's symbols and dtype variables from the arguments of one call."""

    def __init__(self, ctx: ShapeContext, sig: FuncType, forms: tuple = ()) -> None:
        self.ctx = ctx
        self.sig = sig
        self.forms = forms  # per parameter: "", "optional" or "list" (Operator.forms)
        self.dims: dict[Symbol, Any] = {}
        self.seqs: dict[Symbol, list] = {}
        self.dtypes: dict[DTypeVar, Any] = {}
        self.pending: list[tuple[Dimension, Any]] = []
        self.functions: list[tuple[Type, ArgView]] = []
        self.quantified = set(sig.dim_params)
        self.quantified_dtypes = set(sig.dtype_params)

    # matching -----------------------------------------------------------------------------
    def match_params(self) -> None:
        """Match every argument against its parameter type."""
        for i, (param, arg) in enumerate(zip(self.sig.params, self.ctx.args)):
            form = self.forms[i] if self.forms else ""
            if form == "optional" and is_absent(arg):
                continue
            if form == "list":
                for field in self.ctx.tuple_fields(arg) or ():
                    self.match(param, field)
                continue
            self.match(param, arg)
        self._solve_pending()
        # function types last: the symbols they share with tensor parameters are bound by now
        for param, arg in self.functions:
            self.ctx.match_other(param, arg, self)  # type: ignore[attr-defined]

    def match(self, param: Type, arg: ArgView) -> None:
        """Match one argument (or tuple field) against a parameter type."""
        if isinstance(param, TensorType):
            if not isinstance(arg, TensorArg) and self.ctx.hinted_rank_conflict(param, arg):
                return  # a hinted parameter given a tuple or function: the hint is widened
            self.match_tensor(param, self.ctx.expect_tensor(arg))
        elif isinstance(param, TupleType):
            tup = self.ctx.expect_tuple(arg, len(param.fields))  # type: ignore[attr-defined]
            if tup.fields is not None:
                for field_type, field_arg in zip(param.fields, tup.fields):
                    self.match(field_type, field_arg)
        elif isinstance(param, RefType):  # only user functions take references
            self.match(param.content, self.ctx.expect_ref(arg))  # type: ignore[attr-defined]
        elif isinstance(param, (FuncType, TypeVar, AdtType, TypeParam)):
            self.functions.append((param, arg))  # other values: the context compares them whole
        elif not isinstance(param, DynType):
            raise TypeError(f"cannot match against {param!r}")

    def match_tensor(self, param: TensorType, arg: TensorArg) -> None:
        """Match dims, then dtype, of a tensor argument."""
        if param.dims is not None:
            variadic = [i for i, d in enumerate(param.dims) if isinstance(d, Variadic)]
            if variadic:
                self._match_variadic(param.dims, variadic[0], arg)
            else:
                if self.ctx.hinted_rank_conflict(param, arg):
                    return
                self.ctx.require_rank(arg, len(param.dims))
                if arg.dims is not None:
                    for p, d in zip(param.dims, arg.dims):
                        self.match_dim(p, d)
        self.match_dtype(param.dtype, arg.dtype)

    def _match_variadic(self, pattern: tuple, at: int, arg: TensorArg) -> None:
        prefix, suffix = pattern[:at], pattern[at + 1 :]
        fixed = len(prefix) + len(suffix)
        if arg.dims is None:  # unknown rank: the dims at either end are matched, the run checked
            self.ctx.require_rank_at_least(arg, fixed)
            first, last = self.ctx.edge_dims(arg, len(prefix), len(suffix))
            for p, d in zip(prefix, first):
                self.match_dim(p, d)
            for p, d in zip(suffix, last):
                self.match_dim(p, d)
            sym = pattern[at].symbol
            if sym not in self.quantified and sym not in self.seqs:
                self.ctx.require_run(arg, sym, len(prefix), len(suffix))
            return
        if arg.rank is not None and arg.rank < fixed:
            self.ctx.fail("rank-too-small", arg=arg, needed=fixed, rank=arg.rank)
        for p, d in zip(prefix, arg.dims[: len(prefix)]):
            self.match_dim(p, d)
        for p, d in zip(suffix, arg.dims[len(arg.dims) - len(suffix) :]):
            self.match_dim(p, d)
        run = arg.dims[len(prefix) : len(arg.dims) - len(suffix)]
        sym = pattern[at].symbol
        bound = self.seqs.get(sym)
        if bound is None:
            self.seqs[sym] = list(run)
        elif len(bound) != len(run):
            self.ctx.fail("variadic-rank", arg=arg, name=sym.name, expected=len(bound), actual=len(run))
        else:
            self.seqs[sym] = [self.ctx.equal(b, r, symbol=f"*{sym.name}") for b, r in zip(bound, run)]

    def match_dtype(self, pattern: Any, actual: Any) -> None:
        """Bind or check a dtype."""
        if isinstance(pattern, DTypeVar) and pattern in self.quantified_dtypes:
            if pattern in self.dtypes:
                self.dtypes[pattern] = self.ctx.same_dtype(self.dtypes[pattern], actual)
            else:
                self.dtypes[pattern] = actual
        elif pattern != DYN_DTYPE:
            self.ctx.same_dtype(pattern, actual)

    def match_dim(self, pattern: Dimension, d: Any) -> None:
        """Bind or check one dimension against a signature dimension."""
        ctx = self.ctx
        if isinstance(pattern, Broadcast):
            ctx.broadcast(d, self.dim_value(pattern.target))
        elif pattern.is_static:
            ctx.equal(ctx.const(pattern.get_length()), d)
        elif pattern.is_unknown:
            return
        elif pattern.is_interval:
            ctx.within(d, pattern.min_length, pattern.max_length)
        else:
            self._match_expr(pattern, d)

    def _match_expr(self, pattern: Dimension, d: Any) -> None:
        expr = pattern.expr
        if not expr.symbols() & self.quantified:
            self.ctx.equal(self.ctx.symbolic(pattern), d)
            return
        if len(expr.terms) == 1 and expr.terms[0][1] == 1 and len(expr.terms[0][0]) == 1:
            sym = expr.terms[0][0][0]
            if isinstance(sym, Symbol):
                if sym in self.dims:
                    self.dims[sym] = self.ctx.equal(self.dims[sym], d, symbol=sym.name)
                else:
                    self.dims[sym] = d
                return
        if expr.symbols() <= self.dims.keys():
            self.ctx.equal(self.evaluate(expr), d)
        else:
            self.pending.append((pattern, d))

    def _solve_pending(self) -> None:
        progress = True
        while self.pending and progress:
            progress = False
            for item in list(self.pending):
                pattern, d = item
                unbound = [s for s in pattern.expr.symbols() if s not in self.dims]
                if not unbound:
                    self.pending.remove(item)
                    self.ctx.equal(self.evaluate(pattern.expr), d, symbol=str(pattern))
                    progress = True
                elif len(unbound) == 1 and self._solve_linear(pattern.expr, unbound[0], d):
                    self.pending.remove(item)
                    progress = True
        self._equate_unsolved()

    def _equate_unsolved(self) -> None:
        """What stays unsolved (`n * m`, neither bound elsewhere) is one value wherever the same
        expression occurs: its first occurrence stands for it, later ones must equal it."""
        first: dict = {}
        for pattern, d in self.pending:
            key = pattern.expr
            first[key] = self.ctx.equal(first[key], d) if key in first else d

    def _solve_linear(self, expr: Poly, sym: Symbol, d: Any) -> bool:
        """Solve `c * sym + rest = d` for sym (c > 0): d - rest, which c must divide."""
        part = expr.linear_part(sym)
        if part is None or part[0] <= 0 or not part[1].symbols() <= self.dims.keys():
            return False
        coeff, rest = part
        if rest.is_const() and rest.const_value() > 0:  # `d + 1` is a size only where d >= 1
            self.ctx.assume_within(d, rest.const_value(), None)
        value = self.evaluate(-rest, base=d)  # d - rest, added before subtracted
        if coeff != 1:
            value = self.ctx.quotient(value, coeff, symbol=sym.name, written=(d, str(Dimension.of_expr(expr))))
        self.dims[sym] = value
        return True

    # instantiation ------------------------------------------------------------------------
    def evaluate(self, expr: Poly, base: Any = None) -> Any:
        """A signature expression's value in the context's domain (unbound symbols: unknown,
        and the whole expression when it holds a floor division), plus `base` when given."""
        env = {}
        for s in expr.symbols():
            if s in self.dims:
                env[s] = self.dims[s]
            elif s in self.quantified:
                if _has_quotient(expr):
                    # a size evaluated as `?` first cannot go below 0, but a quotient's numerator
                    # can: `(n - 1) // 2 + 1` is 0 at n = 0, where it came out 1..
                    return self.ctx.unknown()
                env[s] = self.ctx.unknown()
            else:
                env[s] = self.ctx.symbolic(Dimension.of_expr(Poly.atom(s)))
        return _evaluate(expr, env, self.ctx, base)

    def dim_value(self, pattern: Dimension) -> Any:
        """The value of a result dimension (`t|1` is only known to be one of two values)."""
        if isinstance(pattern, Broadcast):
            return self.ctx.unknown()
        if pattern.is_static:
            return self.ctx.const(pattern.get_length())
        if pattern.is_unknown:
            return self.ctx.unknown()
        if pattern.is_interval:
            return self.ctx.bounded(pattern.min_length, pattern.max_length)
        return self.evaluate(pattern.expr)

    def dtype_value(self, pattern: Any) -> Any:
        """The value of a result dtype."""
        if isinstance(pattern, DTypeVar) and pattern in self.quantified_dtypes:
            return self.dtypes.get(pattern, DYN_DTYPE)
        return pattern

    def instantiate(self, t: Type) -> Any:
        """The result of the call in the context's domain."""
        if isinstance(t, TensorType):
            value = None if t.value is None else [v if isinstance(v, int) else self.dim_value(v) for v in t.value]
            return self.ctx.tensor(self._result_dims(t.dims), self.dtype_value(t.dtype), value)
        if isinstance(t, TupleType):
            return self.ctx.tuple([self.instantiate(f) for f in t.fields])
        if isinstance(t, RefType):
            return self.ctx.reference(self.instantiate(t.content))  # type: ignore[attr-defined]
        return self.ctx.other_result(t, self)  # type: ignore[attr-defined]

    def _result_dims(self, dims: Optional[tuple]) -> Optional[list]:
        if dims is None:
            return None
        out: list = []
        for d in dims:
            if isinstance(d, Variadic):
                run = self.seqs.get(d.symbol)
                if run is None:
                    return None
                out.extend(run)
            else:
                out.append(self.dim_value(d))
        return out


def is_absent(arg: ArgView) -> bool:
    """Whether an argument is `()`, an optional operand left out (`%x: T?`)."""
    return isinstance(arg, TupleArg) and arg.fields is not None and not arg.fields


def _has_quotient(expr: Poly) -> bool:
    """Whether an expression holds a floor division."""
    return any(isinstance(atom, FloorDiv) for atom in expr.atoms())


def _evaluate(expr: Poly, env: dict, ctx: ShapeContext, base: Any = None) -> Any:
    """`base + expr` (base 0 when None). Every positive term is added before any negative one
    is subtracted: a dim cannot be negative, so no partial sum may be where the whole is not
    (`n - 1` solved from d is `d + 1`, not `0 - 1 + d`)."""
    total: Any = ctx.const(0) if base is None else base
    negative = []
    for mono, coeff in expr.terms:
        term: Any = ctx.const(abs(coeff))
        for atom in mono:
            if isinstance(atom, Symbol):
                term = term * env[atom]
            elif isinstance(atom, Extremum):
                term = term * _extremum(atom.kind, [_evaluate(arg, env, ctx) for arg in atom.args])
            else:
                term = term * (_evaluate(atom.num, env, ctx) // atom.den)
        if coeff < 0:
            negative.append(term)
        else:
            total = total + term
    for term in negative:
        total = total - term
    return total


def _extremum(kind: str, values: list) -> Any:
    """`max`/`min` of a rule's sizes: ints at runtime, the checker's dims (their own
    `extremum`, keeping where they came from), or Dimensions."""
    result = values[0]
    for value in values[1:]:
        if hasattr(result, "extremum"):
            result = result.extremum(kind, value)
        elif hasattr(value, "extremum"):
            result = value.extremum(kind, result)
        else:
            result = extremum_of(kind, [result, value])
    return result


def apply_signature(ctx: ShapeContext, sig: FuncType) -> Any:
    """Check a call against a signature and return its result (the signature is the rule)."""
    matcher = SignatureMatcher(ctx, sig)
    # a closure's parameter dtype that its definer infers (not quantified): the arguments passed
    # for it, found before matching binds it
    shared = [
        (arg, cls)
        for var, cls in sig.dtype_requires
        if var not in sig.dtype_params
        for arg in _arguments_of_dtype(ctx, sig, var)
    ]
    matcher.match_params()
    ctx.bound(matcher.dims, matcher.seqs, matcher.dtypes)
    if sig.requires:
        matcher.dims = dict(matcher.dims)  # the bindings reported stay what the arguments gave
        for sym, lo, hi in sig.requires:
            if sym in matcher.dims:
                matcher.dims[sym] = ctx.assured(matcher.dims[sym], lo, hi, sym.name)
    check_declared_classes(ctx, sig, matcher.dtypes)
    for arg, cls in shared:
        check_dtype_class(ctx, arg, arg.dtype, cls)
    return matcher.instantiate(sig.ret)


def check_declared_classes(ctx: ShapeContext, sig: FuncType, dtypes: dict) -> None:
    """Every dtype variable bound at this call is in the class its signature restricts it to
    (`[T: float]`, or a class a definition's body was learned to need)."""
    for var, cls in sig.dtype_requires:
        if var in dtypes:
            bound = dtypes[var]
            check_dtype_class(ctx, _argument_of(ctx, bound), bound, cls)


def _arguments_of_dtype(ctx: ShapeContext, sig: FuncType, var: Any) -> list:
    """The tensor arguments passed for parameters whose dtype is `var` (resolved as the
    checker's solver has it, where there is one)."""
    solver = getattr(ctx, "solver", None)
    same = (lambda d: solver.resolve_dtype(d)) if solver is not None else (lambda d: d)
    want = same(var)
    if not isinstance(want, DTypeVar):
        return []  # bound already (by an earlier call, or in the body after the operator): not this call's to say
    return [
        arg
        for param, arg in zip(sig.params, ctx.args)
        if isinstance(param, TensorType) and isinstance(arg, TensorArg) and same(param.dtype) == want
    ]


def _argument_of(ctx: ShapeContext, dtype: Any) -> Any:
    """The argument a dtype variable was bound from (its origin), for messages."""
    origin = getattr(dtype, "origin", None)
    index = getattr(origin, "arg", None)
    if index is not None and 0 <= index < len(ctx.args):
        return ctx.args[index]
    return ctx.args[0] if ctx.args else None


def apply_operator(ctx: ShapeContext, op: Any) -> Any:
    """Check a call of an operator: its signature gives arity, dtypes and any dims it states;
    its rule, when it has one, gives the result's dims (and dtype, if the rule sets one)."""
    if op.rule is None and not op.contract and not op.forms:
        result = apply_signature(ctx, op.signature)
        check_operand_dtypes(ctx, op)
        return result
    matcher = SignatureMatcher(ctx, op.signature, op.forms)
    matcher.match_params()
    ctx.bound(matcher.dims, matcher.seqs, matcher.dtypes)
    check_operand_dtypes(ctx, op)
    check_declared_classes(ctx, op.signature, matcher.dtypes)
    enforce(ctx, op, matcher.dims)
    if op.rule is None:
        return matcher.instantiate(op.signature.ret)
    result = op.rule(ctx)
    _fill_dtypes(result, op.signature.ret, matcher)
    return result


def _fill_dtypes(result: Any, declared: Type, matcher: SignatureMatcher) -> None:
    """Give a rule's result the dtype its declaration states, where the rule left it open."""
    if hasattr(result, "fields"):
        if isinstance(declared, TupleType):
            for field_result, field_type in zip(result.fields, declared.fields):
                _fill_dtypes(field_result, field_type, matcher)
        return
    if getattr(result, "dtype", "") is None:
        result.dtype = matcher.dtype_value(declared.dtype) if isinstance(declared, TensorType) else DYN_DTYPE
