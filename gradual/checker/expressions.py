"""Bodies, statements and expressions: lets and their annotations, Dataflow statements,
variables, projections, conditionals, casts and literals, each given a type and recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from gradual.checker import messages
from gradual.checker.adt import check_match, constructor_value
from gradual.checker.finalize import tensor_dims
from gradual.checker.fixpoint import Definitions
from gradual.checker.names import Binder
from gradual.checker.records import CheckRecord, Env
from gradual.checker.site.values import Callee, SiteOutcome
from gradual.diagnostics import Diagnostic
from gradual.ops.attributes import written_key
from gradual.shapes import Dimension
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    BOTTOM,
    DYN,
    DYN_DTYPE,
    ERROR,
    INT_DTYPES,
    AdtType,
    BottomType,
    DynType,
    FuncType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeVar,
    Variadic,
    erase_symbols,
    scalar,
)
from gradual.types.join import join
from gradual.types.unify import HintVar

_UNRECORDED = (ast.Var, ast.Literal, ast.OpRef, ast.GlobalVar)
#: `argument_sharing` of two arguments: the same variable twice, or two
_SAME, _DISTINCT = (0, 0), (0, 1)


def _as_value(fn: Optional[FuncType]) -> Optional[FuncType]:
    """A definition's type where it is a value (`%f = @h`, `(@h, %x)`, `ref(@h)`, an argument):
    the type itself, with what its body was learned to check (`FuncType.requires`, the bounds
    on its signature symbols, and `dtype_requires`, the dtype classes its operators need):
    whatever holds the value holds that definition, so a call through it fails where a call of
    `@h` would. Where another function of the type may take its place, a join or a cell forgets
    them (join.py, references.py). Outside pass 9 found `%f = @h; %f(%x)` clean where `@h(%x)`
    was a static error (an integer-only `@h` given a float32, a bound `m >= 1` given a 0)."""
    return fn


def meet(target: Type, actual: Type) -> Type:
    """What is known after a value of type `actual` passes a cast to `target`."""
    if isinstance(target, TensorType) and isinstance(actual, TensorType):
        dims = target.dims
        if target.dims is None or any(isinstance(d, Variadic) for d in target.dims):
            dims = actual.dims  # a run of dims (`*r`, a rank check) says nothing of them
        elif actual.dims is not None and len(actual.dims) == len(target.dims):
            dims = tuple(_meet_dim(t, a) for t, a in zip(target.dims, actual.dims))
        dtype = actual.dtype if target.dtype == DYN_DTYPE else target.dtype
        value = actual.value if dims == actual.dims else None
        return TensorType(dims, dtype, value)
    if isinstance(target, TupleType) and isinstance(actual, TupleType) and len(target.fields) == len(actual.fields):
        return TupleType(tuple(meet(t, a) for t, a in zip(target.fields, actual.fields)))
    if isinstance(target, RefType) and isinstance(actual, RefType):
        return RefType(meet(target.content, actual.content))
    if isinstance(target, AdtType) and isinstance(actual, AdtType) and target.name == actual.name:
        if len(target.args) == len(actual.args):
            return AdtType(target.name, tuple(meet(t, a) for t, a in zip(target.args, actual.args)))
    if isinstance(target, DynType):
        return actual
    return target


def _meet_dim(t: object, a: object) -> object:
    if not isinstance(t, Dimension):
        return a if isinstance(a, Dimension) else Dimension.dynamic()
    if not isinstance(a, Dimension):
        return t
    if t.is_exact:
        return t
    if a.is_exact:
        return a
    merged = Dimension.merge(t, a)
    return t if merged is None else merged


_INT_RANGES = {
    **{f"int{b}": (-(2 ** (b - 1)), 2 ** (b - 1) - 1) for b in (2, 4, 8, 16, 32, 64)},
    **{f"uint{b}": (0, 2**b - 1) for b in (2, 4, 8, 16, 32, 64)},
}


def literal_problem(lit: ast.Literal) -> Optional[Diagnostic]:
    """An integer literal its dtype cannot hold (the parser reads integers of any size)."""
    bounds = _INT_RANGES.get(lit.dtype)
    if bounds is None or not isinstance(lit.value, int) or bounds[0] <= lit.value <= bounds[1]:
        return None
    return messages.literal_out_of_range(lit.span, lit.text or str(lit.value), lit.dtype, *bounds)


def literal_type(lit: ast.Literal) -> TensorType:
    """A literal's scalar type; integer literals carry their value (shape arithmetic)."""
    if lit.dtype in INT_DTYPES and isinstance(lit.value, int):
        return scalar(lit.dtype, (Dimension.static(lit.value) if lit.value >= 0 else lit.value,))
    return scalar(lit.dtype)


def known_condition(t: Type) -> Optional[bool]:
    """The value of an `if` condition whose one element the checker knows (TorchScript's
    `If(Size(Shape(x)) == 0)`, the rank of a tensor of known rank), else None."""
    if not isinstance(t, TensorType) or t.value is None or len(t.value) != 1:
        return None
    element = t.value[0]
    if isinstance(element, Dimension):
        element = element.get_length() if element.is_static else None
    return bool(element) if isinstance(element, int) else None


class Expressions(Definitions):
    """Typing bodies and expressions (see the module docstring)."""

    if TYPE_CHECKING:  # what the mixins above this one give infer.Checker

        def quick_outcome(
            self, name: str, binders: list[Any], env: Env, attr_nodes: tuple[ast.Attr, ...]
        ) -> Optional[SiteOutcome]: ...

        def quick_call(self, e: ast.Call, env: Env) -> Optional[Type]: ...

        def learn(self, learned: list[Any], env: Env) -> None: ...

        def call(self, e: ast.Call, env: Env) -> Type: ...

        def closure(self, fn: ast.Fn, env: Env) -> Type: ...

        def recursive_closure(self, fn: ast.Fn, binder: Binder, env: Env) -> Type: ...

    def body(self, body: ast.Body, env: Env) -> Type:
        """Infer a body's statements and result; existentials bound inside do not escape."""
        let = self.let
        for stmt in body.stmts:
            if stmt.__class__ is ast.Let:
                let(stmt, env)
            elif stmt.__class__ is ast.Dataflow:
                self.dataflow_statements(stmt, env)
        result = self.expr(body.result, env)
        introduced = set(self.res.body_scopes.get(id(body), ()))
        return erase_symbols(result, introduced) if introduced else result

    def nested_body(self, body: ast.Body, env: Env) -> Type:
        """A body in a level of its own (a branch): what it binds or refines stays inside."""
        mark = env.mark()
        try:
            return self.body(body, env)
        finally:
            env.undo(mark)

    def let(self, stmt: ast.Let, env: Env) -> None:
        binder = self.res.binders[id(stmt)]
        value = stmt.value
        if value.__class__ is ast.Call:
            t = None
            if value.callee.__class__ is ast.OpRef and not self.record_uses:
                t = self.quick_call(value, env)
            if t is None:
                t = self.call(value, env)
            self.current.frame.types[id(value)] = t  # type: ignore[union-attr]
        elif isinstance(value, ast.Fn) and id(stmt) in self.res.recursive:
            t = self.recursive_closure(value, binder, env)
            self.record(value, t)
        elif value.__class__ is ast.Fn:  # bound, not escaping: its calls meet its guesses
            self.calling = value
            t = self.expr(value, env)
        else:
            t = self.expr(value, env)
        if stmt.type is not None:
            target = self.res.annotations[id(stmt.type)]
            t = self.flow(
                t,
                target,
                stmt.value,
                env,
                self.res.introduced.get(id(stmt), ()),
                Callee("flow", f"the value of `%{binder.name}`", decl_span=stmt.type.span, expected=target),
                insert=False,
                blame=stmt.type.span,
            )
        log = env.log
        if log.open > log.unlogged:
            log.set(env.types, id(binder), t)
        else:  # the body's outermost level: nothing to undo
            env.types[id(binder)] = t
        self.current.frame.types[id(stmt)] = t  # type: ignore[union-attr]

    def dataflow_statements(self, flow: ast.Dataflow, env: Env) -> None:
        """A Dataflow's statements. A call whose outcome is known already and needs nothing of
        its own (no cast, no refinement: `known_calls`) is checked from the arrays, its type
        recorded by position; any other is made into syntax and checked as the let it is.

        A statement of one or two variables is first looked up in `quick_calls` under the key
        `quick_key` would make for it, built here (most statements of a model are found so)."""
        binders, uses = self.res.dataflow[id(flow)]
        types, log = env.types, env.log
        recorded: list[Optional[Type]] = [None] * len(flow)
        instantiations: list[Any] = [None] * len(flow)  # each statement's, as the call site gives it
        self.current.frame.dataflow[id(flow)] = (flow, recorded, instantiations)  # type: ignore[union-attr]
        if self.record_uses:  # every variable's use is recorded: each statement is checked as syntax
            for i in range(len(flow)):
                self.let(self.res.publish(flow, i), env)
            return
        quick, quick_calls, learn = self.quick_outcome, self.quick_calls, self.learn
        attributed = flow.attrs
        plain = not env.facts and not env.loose  # quick_key's own form (no facts in the key)
        nested = log.open > log.unlogged  # logged only inside a nested level
        pos = 0  # where statement i's arguments begin in `uses`
        for i, (op, names) in enumerate(zip(flow.ops, flow.args)):
            count = len(names)
            start, pos = pos, pos + count
            attrs = attributed.get(i, ()) if attributed else ()
            found = None
            if plain:
                try:
                    if count == 1:
                        t0 = types.get(id(uses[start]))
                        if t0 is not None and t0.__class__ is not TypeVar:
                            found = quick_calls.get((op, written_key(attrs) if attrs else (), id(t0)))
                    elif count == 2:
                        b0, b1 = uses[start], uses[start + 1]
                        t0, t1 = types.get(id(b0)), types.get(id(b1))
                        if (
                            t0 is not None
                            and t1 is not None
                            and t0.__class__ is not TypeVar
                            and t1.__class__ is not TypeVar
                        ):
                            sharing = _SAME if b0 is b1 else _DISTINCT
                            found = quick_calls.get((op, written_key(attrs) if attrs else (), id(t0), id(t1), sharing))
                except TypeError:  # an attribute value that cannot be hashed: `quick_outcome` decides
                    found = None
            if found is not None:
                outcome: Optional[SiteOutcome] = found[0]
                if outcome.learned:  # type: ignore[union-attr]
                    learn(outcome.learned, env)  # type: ignore[union-attr]
            else:
                outcome = quick(op, uses[start:pos], env, attrs)
                if outcome is None:
                    self.let(self.res.publish(flow, i), env)
                    plain = not env.facts and not env.loose
                    nested = log.open > log.unlogged
                    continue
            recorded[i] = t = outcome.result  # type: ignore[union-attr]
            if outcome.instantiation:  # type: ignore[union-attr]
                instantiations[i] = outcome.instantiation  # type: ignore[union-attr]
            if nested:
                log.set(types, id(binders[i]), t)
            else:
                types[id(binders[i])] = t

    def record(self, node: object, t: Type) -> Type:
        assert self.current is not None
        self.current.frame.types[id(node)] = t
        return t

    def record_check(
        self, node: ast.Node, t: Type, blame: Span, reason: str, verifies: bool, inserted: bool = True
    ) -> None:
        """A check site: a cast elaboration inserts (or, not `inserted`, one the runtime makes)."""
        assert self.current is not None
        self.current.frame.checks.append(CheckRecord(node, t, blame, reason, verifies, inserted))

    def expr(self, e: ast.Expr, env: Env) -> Type:
        """The type of an expression (compound ones are recorded for the elaborator and the
        API; a variable's or literal's type is its binding's, or obvious). A closed closure
        (or a definition) with a `can_unify` guess that is used as a value, not called (passed
        on, returned, stored), may be called with any size from there: its guess is widened."""
        if e.__class__ is ast.Var:  # the commonest expression, and the cheapest
            t = self.var_type(e, env)
            if self.record_uses:
                self.current.frame.types[id(e)] = t  # type: ignore[union-attr]
            if t.__class__ is FuncType and e is not self.calling:
                self.widen_escaping_hints(t)
            return t
        as_value = e is not self.calling  # read before the body's own calls set it
        t = self._expr(e, env)
        if not isinstance(e, _UNRECORDED):
            self.current.frame.types[id(e)] = t  # type: ignore[union-attr]
        if t.__class__ is FuncType and (e.__class__ is ast.Fn or e.__class__ is ast.GlobalVar) and as_value:
            self.widen_escaping_hints(t)
        return t

    def widen_escaping_hints(self, t: FuncType) -> None:
        """Widen the guesses a closed closure's (or a definition's) parameters keep for its
        calls (`expr`); a definition's widen on the next whole-module round."""
        hints = {
            s
            for p in t.params
            for d in tensor_dims(p)
            if isinstance(d, Dimension) and d.is_symbolic
            for s in d.symbols()
            if isinstance(s, HintVar)
        }
        if hints:  # any value may come: its rank as well as its dims (the guess is dropped)
            self.current.solver.widen |= hints  # type: ignore[union-attr]
            self.current.solver.widen_ranks |= {h.origin[0] for h in hints}  # type: ignore[union-attr]

    def var_type(self, e: ast.Var, env: Env) -> Type:
        """A variable's type: its binding's, as solved so far (`?` from error when unbound)."""
        binder = self.res.uses.get(id(e))
        if binder is None:
            return ERROR
        t = env.types.get(id(binder))
        if t is None:
            return ERROR
        return t if t.__class__ is not TypeVar else self.current.solver.resolve_type(t)  # type: ignore[union-attr]

    def _expr(self, e: ast.Expr, env: Env) -> Type:
        """The type of a compound expression or literal (`expr` reads variables itself)."""
        assert self.current is not None
        if isinstance(e, ast.Call):
            return self.call(e, env)
        if isinstance(e, ast.Literal):
            problem = literal_problem(e)
            if problem is not None:
                self.report(problem)
            return literal_type(e)
        if isinstance(e, ast.TupleExpr):
            return TupleType(tuple(self.expr(f, env) for f in e.fields))
        if isinstance(e, ast.Proj):
            return self.projection(e, env)
        if isinstance(e, ast.If):
            return self.conditional(e, env)
        if isinstance(e, ast.Fn):
            return self.closure(e, env)
        if isinstance(e, ast.Cast):
            return self.cast(e, env)
        if isinstance(e, ast.Block):
            return self.nested_body(e.body, env)
        if isinstance(e, ast.GlobalVar):
            return _as_value(self.global_type(e.name)) or ERROR
        if isinstance(e, ast.Match):
            return check_match(self, e, env)  # type: ignore[arg-type]
        if isinstance(e, ast.OpRef):
            if e.name in self.res.ctors:
                return constructor_value(self.res.ctors[e.name])
            if e.name in self.registry or e.name in ast.REF_FORMS:
                self.report(messages.operator_as_value(e.span, e.name))
            return ERROR
        raise TypeError(f"unknown expression {e!r}")

    def global_type(self, name: str) -> Optional[FuncType]:
        """A definition's type: its current assumption inside its own component."""
        return self.assumed.get(name) or self.globals.get(name)

    def projection(self, e: ast.Proj, env: Env) -> Type:
        t = self.current.solver.resolve_type(self.expr(e.tuple, env))  # type: ignore[union-attr]
        if isinstance(t, TupleType):
            if 0 <= e.index < len(t.fields):
                return t.fields[e.index]
            self.report(messages.tuple_index(e.span, e.index, t))
            return ERROR
        if isinstance(t, BottomType):
            return BOTTOM
        if isinstance(t, DynType) and t.from_error:
            return ERROR
        if isinstance(t, (DynType, TypeVar)):
            # a `?` may be no tuple, or a shorter one: the runtime checks it at the projection
            # (no cast states "a tuple of at least k fields"), so it is a check site
            self.record_check(
                e, DYN, e.span, messages.projection_reason(e.index, e.span), verifies=True, inserted=False
            )
            return DYN
        self.report(messages.not_a_tuple(e.span, e.index, t))
        return ERROR

    def conditional(self, e: ast.If, env: Env) -> Type:
        cond = self.expr(e.cond, env)
        self.flow(
            cond,
            scalar("bool"),
            e.cond,
            env,
            (),
            Callee("flow", "the condition of this `if`", expected=scalar("bool")),
            insert=True,
            blame=e.cond.span,
        )
        then_t = self.nested_body(e.then, env)
        else_t = self.nested_body(e.otherwise, env)
        solver = self.current.solver  # type: ignore[union-attr]
        taken = known_condition(solver.resolve_type(cond))
        if taken is not None:  # only that branch runs: its type is the result (both are checked)
            return self.final_type(then_t if taken else else_t, solver)
        return join(self.final_type(then_t, solver), self.final_type(else_t, solver))

    def cast(self, e: ast.Cast, env: Env) -> Type:
        t = self.expr(e.expr, env)
        target = self.res.annotations[id(e.type)]
        return self.flow(
            t,
            target,
            e.expr,
            env,
            self.res.introduced.get(id(e), ()),
            Callee("flow", e.what or "the value cast here", decl_span=e.type.span, expected=target, cast=True),
            insert=False,
            blame=e.span,
        )
