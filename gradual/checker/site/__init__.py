"""One call, checked: the symbolic side of a shape rule (spec §3.1, 3.2, 3.8, 3.10).

The call's arguments are *opened* (opening.py): every exact dimension is used as it is, every
imprecise one (`?`, an interval, an unknown rank or dtype) becomes a site variable standing for
the value it will have at runtime. The operator's signature or rule then runs on these symbolic
values; `equal` and `broadcast` unify them (constraints.py: graded: proven, runtime check, or
static error), and bounds and ranks are required (requirements.py).

Finalizing the site gives the result type and, per argument, a *cast pattern* (casts.py): the
type the argument was assumed to have. A fully static program gets no checks.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from gradual.checker import messages
from gradual.checker.site.casts import CastBuilder
from gradual.checker.site.requirements import Requirements
from gradual.checker.site.values import (
    ArgInfo,
    Callee,
    ProtoFunction,
    ProtoRef,
    ProtoTensor,
    ProtoTuple,
    SDim,
    SiteOutcome,
    raw_dtype,
    sdim,
    untracked,
    value_item,
)
from gradual.diagnostics import Diagnostic
from gradual.ops.context import ArgView, RuleFailure, TensorArg
from gradual.shapes import Dimension, Poly
from gradual.shapes.reasoning import at_least_a_size, least_natural_point, linear_in, nondecreasing
from gradual.syntax.source import Span
from gradual.types import (
    BOTTOM,
    DYN_DTYPE,
    ERROR,
    DimVar,
    DType,
    DTypeVar,
    DynType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeVar,
    map_dims,
    map_dtypes,
)
from gradual.types.unify import SiteVar, Solver

#: what a call's signature symbols and dtype variables stand for: (name, value) pairs (named
#: here: CallSite's own `tuple` method shadows the builtin inside the class)
Instantiation = tuple[tuple[str, Any], ...]
#: a symbolic argument dim and its polynomial
DimAndPoly = tuple[SDim, Poly]


class CallSite(Requirements):
    """The symbolic ShapeContext of one call (see the module docstring)."""

    """The symbolic ShapeContext of one call (see the module docstring)."""

    def __init__(
        self,
        solver: Solver,
        callee: Callee,
        args: Sequence[ArgInfo],
        attrs: dict[str, Any],
        span: Span,
        report: Callable[[Diagnostic], None],
        new_def_var: Callable[[TypeVar, int], Optional[DimVar]],
        new_def_dtype: Callable[[TypeVar], DTypeVar],
    ) -> None:
        super().__init__(solver, callee, args, attrs, span, report, new_def_var, new_def_dtype)
        self.args: list[ArgView] = [self._open(info.type, i, (), info) for i, info in enumerate(self.arg_infos)]

    def tensor(
        self, dims: Optional[Sequence[Any]], dtype: Any = None, value: Optional[Sequence[Any]] = None
    ) -> ProtoTensor:
        return ProtoTensor(
            None if dims is None else [sdim(d) for d in dims],
            dtype,
            None if value is None else [value_item(v) for v in value],
        )

    def tuple(self, fields: Sequence[Any]) -> ProtoTuple:
        return ProtoTuple(list(fields))

    def reference(self, content: Any) -> ProtoRef:
        """A reference result (of a function whose signature returns one)."""
        return ProtoRef(content)

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
        if any(at_least_a_size(expr, whole) for _, whole in dims):
            return  # `n - 1` of an argument whose dim is `n - 1`: that value's size shows it
        if len(symbols) == 1 and nondecreasing(expr):
            (sym,) = symbols
            target = Poly.atom(sym)
            source = next((d for d, e in dims if e == target), None)
            need = least_natural_point(expr, sym)
            if source is not None and need is not None:
                self._within(source, need, None, assumed=True)
                return
        for source, whole in dims:
            scaled = linear_in(expr, whole)
            if scaled is not None:
                k, c = scaled
                need = -(c // k)  # k * e + c >= 0
                if need > 0:  # else the argument's dim, a size, makes it one
                    self._within(source, need, None, assumed=True)
                return

    def _argument_dims(self) -> list[DimAndPoly]:
        """(dim, its polynomial) of each symbolic argument dim (where a bound can be checked)."""
        found: list[DimAndPoly] = []
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
        reason = untracked(proto)
        if reason:
            self.report_diag(messages.dim_untracked(self.span, self.op_name, reason))
        builder = CastBuilder(self)
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

    def _instantiation(self) -> Instantiation:
        """What the signature's symbols and dtype variables stand for at this call."""
        if not self.bindings:
            return ()
        dims, seqs, dtypes = self.bindings
        out: list[tuple[str, Any]] = [(sym.name, self._final_dim(sdim(d))) for sym, d in dims.items()]
        out += [(f"*{sym.name}", tuple(self._final_dim(sdim(d)) for d in run)) for sym, run in seqs.items()]
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
                values[sym] = self._final_dim(sdim(bound))
            if all(v.is_exact for v in values.values()):
                return Dimension.of_expr(d.expr.substitute(lambda s: values[s].expr if s in values else None))
            if len(mentioned) != 1:
                return Dimension.dynamic()
            (sym,) = mentioned
            return values[sym] if d.expr == Poly.atom(sym) else Dimension.dynamic()

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
