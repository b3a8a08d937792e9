"""Calls: of operators (their signature or rule run at a call site), of definitions and of
function values; arguments that flow into parameters (graded: equal, a check, or an error),
what a call teaches the caller, and existentials a call binds.
"""

from __future__ import annotations

import typing
from typing import Any, Optional

from gradual.checker import adt, messages
from gradual.checker.expressions import Expressions, meet
from gradual.checker.finalize import (
    deep_resolve,
    freeze,
    holds_function,
    is_closed,
    loses_function_dims,
    rename_runs,
    rename_symbols,
    unquantified,
)
from gradual.checker.records import NO_FACTS, CheckRecord, Env, argument_sharing, quick_key, quick_referents
from gradual.checker.references import check_reference
from gradual.checker.site import CallSite
from gradual.checker.site.values import ArgInfo, Callee, CastPattern, SiteOutcome
from gradual.ops import messages as ops_messages
from gradual.ops.attributes import attribute_values, check_attributes, unreported
from gradual.ops.registry import Operator
from gradual.ops.signature import apply_operator, apply_signature
from gradual.shapes import Symbol
from gradual.syntax import ast
from gradual.syntax.source import NOWHERE, Span
from gradual.types import (
    BOTTOM,
    DYN,
    ERROR,
    BottomType,
    DimVar,
    DTypeVar,
    DynType,
    FuncType,
    TensorType,
    TupleType,
    Type,
    TypeVar,
    format_type,
    is_ground,
    type_symbols,
)


def _call_key(
    op: Operator, attrs: dict[str, Any], arg_types: list[Type], binders: list[Any], env: Env
) -> Optional[tuple[Any, ...]]:
    """A key under which a call's whole outcome can be reused, or None (it may still fail
    to hash, when an attribute's value cannot be).

    With no inference variables among the arguments, what a call concludes (its result, the
    cast each argument needs, what those casts teach about the variables) depends only on the
    operator, its attributes, the argument types, which arguments are the same variable, and
    the facts already checked about them. Layers repeat, so most calls of a model are reused.
    """
    for t in arg_types:
        if t.__class__ is TensorType:
            closed = t._closed  # is_ground's memo, read directly: this runs at every call
            if closed is None:
                closed = is_ground(t)
        else:
            closed = is_closed(t)
        if not closed:
            return None
    # each argument: -1, or the first argument that is the same variable (binders compare by identity)
    sharing = argument_sharing(binders)
    if env.loose and any(type_symbols(t) & env.loose.keys() for t in arg_types):
        return None  # how it broadcasts depends on more than the types
    known = env.facts
    if known:
        facts = tuple([NO_FACTS if b is None else known.get(id(b), NO_FACTS) for b in binders])
    else:  # no check has established anything yet (most programs, most of the time)
        facts = (NO_FACTS,) * len(binders)
    # attributes in the order check_attributes gives them (a different order only misses the memo)
    attr_key = tuple([(k, freeze(v)) for k, v in attrs.items()]) if attrs else ()
    return (op.name, attr_key, tuple(arg_types), sharing, facts)


def _reuse(cached: SiteOutcome, op: Operator, nodes: tuple[ast.Expr, ...], binders: list[Any]) -> SiteOutcome:
    """A cached outcome for this call's own argument nodes and variables, with fresh names for
    the symbols its casts bind (two calls must never share a runtime binding)."""
    if cached.shared:
        return cached
    fresh = {old: Symbol(old.name, old.lo, old.hi) for old in cached.binders}
    casts = []
    for cast in cached.casts:
        node = nodes[cast.arg]
        pattern = rename_symbols(cast.type, fresh) if fresh else cast.type
        pattern = rename_runs(pattern, fresh) if fresh else pattern
        reason = messages.operator_cast_reason(op.name, cast.arg, node.span)
        casts.append(CastPattern(cast.arg, node, pattern, cast.verifies, cast.binds, reason))
    refinements = [(i, binders[i], t) for i, _, t in cached.refinements]
    facts = [(i, binders[i], _refer_to(fact, cached.facts, binders)) for i, _, fact in cached.facts]
    return SiteOutcome(
        cached.result, casts, refinements, facts, False, list(fresh.values()), cached.instantiation, cached.learned
    )


def _refer_to(fact: tuple[Any, ...], cached_facts: list[Any], binders: list[Any]) -> tuple[Any, ...]:
    """A cached equality fact naming this call's variable where the cached call had its own."""
    if fact[0] != "equal":
        return fact
    partner = next((i for i, b, _ in cached_facts if id(b) == fact[3]), None)
    return fact if partner is None else fact[:3] + (id(binders[partner]),) + fact[4:]


def _callee_text(callee: ast.Expr) -> str:
    if isinstance(callee, ast.GlobalVar):
        return f"@{callee.name}"
    if isinstance(callee, ast.Var):
        return f"%{callee.name}"
    return "this function"


class Calls(Expressions):
    """Typing calls and flows (see the module docstring)."""

    def quick_outcome(
        self, name: str, binders: list[Any], env: Env, attr_nodes: tuple[ast.Attr, ...]
    ) -> Optional[SiteOutcome]:
        """The outcome of `name(binders..., attr_nodes...)`, its bounds learned, when an
        earlier call's outcome holds for it and has nothing of its own (no cast, refinement or
        fact: `call_operator`'s memo); else None (the call must be checked as syntax). An
        argument that is a Python tuple of binders is a tuple expression of those variables.

        Looked up first by `quick_key` (no attribute checked, no type hashed), then by
        `_call_key`, whose hit is remembered under the quick key."""
        quick = quick_key(name, binders, env, attr_nodes)
        if quick is not None:
            try:
                found = self.quick_calls.get(quick)
            except TypeError:  # an attribute value that cannot be hashed
                found = quick = None
            if found is not None:
                if found[0].learned:
                    self.learn(found[0].learned, env)
                return found[0]
        op = self.registry.ops.get(name)
        if op is None or len(binders) != len(op.signature.params) or name in ast.REF_FORMS:
            return None
        attrs = attribute_values(op, attr_nodes, NOWHERE, unreported) if attr_nodes else op.defaults()
        if attrs is None:
            return None
        types = env.types
        arg_types: list[Type] = []
        for binder in binders:
            if binder.__class__ is tuple:
                fields = [self._quick_type(b, types) for b in binder]
                if None in fields:
                    return None
                arg_types.append(TupleType(tuple(fields)))  # type: ignore[arg-type]
                continue
            t = self._quick_type(binder, types)
            if t is None:
                return None
            arg_types.append(t)
        key = _call_key(op, attrs, arg_types, [None if b.__class__ is tuple else b for b in binders], env)
        if key is None:
            return None
        try:
            cached = self.known_calls.get(key)
        except TypeError:
            return None
        if cached is None or not cached.shared:
            return None
        if quick is not None:
            self.quick_calls[quick] = (cached, quick_referents(binders, env))
        if cached.learned:
            self.learn(cached.learned, env)
        return cached

    def shared_tuple_type(self, fields: tuple[Type, ...]) -> TupleType:
        """`TupleType(fields)`, one object for the same field objects: the layers of a model
        record the same tuple of the same types at every call, and each distinct recorded
        type is finalized on its own. The table keeps the fields alive (ids stay theirs)."""
        key = tuple(map(id, fields))
        found = self.tuple_types.get(key)
        if found is None:
            found = self.tuple_types[key] = TupleType(fields)
        return found

    def _quick_type(self, binder: Any, types: dict[int, Type]) -> Optional[Type]:
        """A variable's type as `expr` reads it, or None (not typed yet)."""
        t = types.get(id(binder)) if binder is not None else None
        if t is not None and t.__class__ is TypeVar:
            t = self.current.solver.resolve_type(t)  # type: ignore[union-attr]
        return t

    def quick_call(self, e: ast.Call, env: Env) -> Optional[Type]:
        """A call of an operator on variables (or tuples of variables), checked by
        `quick_outcome` and recorded as `call` records it; None where `call` must check it."""
        uses = self.res.uses
        binders: list[Any] = []
        tupled = False
        for a in e.args:
            if a.__class__ is ast.Var:
                binders.append(uses.get(id(a)))
            elif a.__class__ is ast.TupleExpr:
                fields = a.fields
                for f in fields:
                    if f.__class__ is not ast.Var:
                        return None
                binders.append(tuple([uses.get(id(f)) for f in fields]))
                tupled = True
            else:
                return None
        callee = e.callee
        if callee.__class__ is not ast.OpRef:
            return None
        outcome = self.quick_outcome(callee.name, binders, env, e.attrs)
        if outcome is None:
            return None
        frame = self.current.frame  # type: ignore[union-attr]
        if tupled:
            types = env.types
            for a, binder in zip(e.args, binders):
                if binder.__class__ is tuple:  # recorded as `expr` records a tuple expression
                    found = tuple([self._quick_type(b, types) for b in binder])
                    frame.types[id(a)] = self.shared_tuple_type(typing.cast(tuple[Type, ...], found))
        frame.types[id(e.callee)] = DYN
        if outcome.instantiation:
            frame.instantiations[id(e)] = outcome.instantiation
        return outcome.result

    def call(self, e: ast.Call, env: Env) -> Type:
        callee = e.callee
        if callee.__class__ is ast.OpRef and self.res.ctors and callee.name in self.res.ctors:
            return adt.call_constructor(self, e, self.res.ctors[callee.name], env)
        if callee.__class__ is ast.OpRef:
            binders, arg_types = self.arguments(e.args, env)
            self.current.frame.types[id(callee)] = DYN  # type: ignore[union-attr]
            if callee.name in ast.REF_FORMS:
                return check_reference(self, e, arg_types, env)
            op = self.registry.ops.get(callee.name)
            if op is None:
                return ERROR
            return self.call_operator(e, op, arg_types, binders, env)
        arg_types = [self.expr(a, env) for a in e.args]
        self.reread_variables(e.args, arg_types, env)
        if e.attrs:
            self.report(
                ops_messages.unknown_attribute(e.attrs[0].span, _callee_text(callee), e.attrs[0].name, [], None)
            )
        if isinstance(callee, ast.GlobalVar):
            fn = self.global_type(callee.name)
            if fn is None:
                return ERROR
            self.record(callee, fn)
            info = self.res.function(self.res.defs[callee.name])
            desc = Callee(
                "global",
                callee.name,
                tuple(b.name for b in info.params),
                format_type(fn),
                self.res.defs[callee.name].name_span,
            )
            return self.call_function(e, fn, desc, arg_types, env, recursive=callee.name in self.assumed)
        self.calling = callee  # called, not used as a value: its guesses stay (`expr`)
        fn_type = self.current.solver.resolve_type(self.expr(callee, env))  # type: ignore[union-attr]
        name = callee.name if isinstance(callee, ast.Var) else "this function"
        return self.call_value(e, fn_type, name, arg_types, env)

    def call_value(self, e: ast.Call, fn_type: Type, name: str, arg_types: list[Type], env: Env) -> Type:
        if isinstance(fn_type, FuncType):
            desc = Callee("closure", name, (), format_type(fn_type), None)
            return self.call_function(e, fn_type, desc, arg_types, env)
        if isinstance(fn_type, BottomType):
            return BOTTOM
        if isinstance(fn_type, DynType):
            if fn_type.from_error:
                return ERROR
            # a `?` called is checked to be a function of this many parameters (it may be a
            # tensor, or a closure of another arity: the runtime's call would fail unblamed)
            wanted = FuncType(tuple(DYN for _ in arg_types), DYN)
            self.flow(
                fn_type,
                wanted,
                e.callee,
                env,
                (),
                Callee("flow", "the function called here", expected=wanted),
                insert=True,
                blame=e.callee.span,
            )
            return DYN
        if isinstance(fn_type, TypeVar):
            ret = TypeVar("ret")
            self.current.solver.bind_type(fn_type, FuncType(tuple(arg_types), ret))  # type: ignore[union-attr]
            return ret
        self.report(messages.not_callable(e.callee.span, fn_type))
        return ERROR

    def arguments(self, args: tuple[ast.Expr, ...], env: Env) -> tuple[list[Any], list[Type]]:
        """A call's arguments: each one's binder (None unless a variable) and type. The
        types are `expr`'s, variables' read here directly (most arguments are variables)."""
        uses, types = self.res.uses, env.types
        binders, arg_types = [], []
        for a in args:
            if a.__class__ is ast.Var:
                binder = uses.get(id(a))
                t = types.get(id(binder)) if binder is not None else None
                if t is None:
                    t = ERROR
                elif t.__class__ is TypeVar:
                    t = self.current.solver.resolve_type(t)  # type: ignore[union-attr]
                if self.record_uses:
                    self.current.frame.types[id(a)] = t  # type: ignore[union-attr]
            else:
                binder = None
                t = self.expr(a, env)
            binders.append(binder)
            arg_types.append(t)
        self.reread_variables(args, arg_types, env)
        return binders, arg_types

    def reread_variables(self, args: tuple[ast.Expr, ...], arg_types: list[Type], env: Env) -> None:
        """A variable argument before a compound one is read again once that one is typed: a
        check in it (`f(%v, g(%v))`, `g` checking `%v` is a tensor) refined the variable, and
        every argument is evaluated before the call runs, so the call needs no check of that
        fact again (spec §3.8: once per value and fact). What a branch or a closure body inside
        the argument refined stays there (their levels are undone). The variable's own
        occurrence keeps the type it had where it is read (before that check runs)."""
        last = max((i for i, a in enumerate(args) if a.__class__ is not ast.Var), default=-1)
        for i in range(last):
            arg = args[i]
            if type(arg) is ast.Var:
                arg_types[i] = self.var_type(arg, env)

    def call_operator(self, e: ast.Call, op: Operator, arg_types: list[Type], binders: list[Any], env: Env) -> Type:
        if len(arg_types) != len(op.signature.params):
            self.report(messages.wrong_arity(e.span, op.name, op.arity, len(arg_types), op.signature_text))
            return ERROR
        attrs = check_attributes(op, e, self.report)
        if attrs is None:
            return ERROR
        key = _call_key(op, attrs, arg_types, binders, env)
        if key is not None:
            try:
                cached = self.known_calls.get(key)
            except TypeError:  # an attribute value that cannot be hashed: no reuse
                key = cached = None
            if cached is not None:
                if cached.shared:
                    if cached.instantiation:
                        self.current.frame.instantiations[id(e)] = cached.instantiation  # type: ignore[union-attr]
                    if cached.learned:
                        self.learn(cached.learned, env)
                    return cached.result
                return self.commit(_reuse(cached, op, e.args, binders), env, e)
        desc = Callee("op", op.name, op.param_names, op.signature_text, op.span)
        site = self.site(desc, e.args, arg_types, attrs, e.span, env)
        site.attr_spans = {a.name: a.span for a in e.attrs}
        outcome = site.run(lambda ctx: apply_operator(ctx, op))
        if key is not None and not outcome.failed:
            self.known_calls[key] = outcome
        return self.commit(outcome, env, e)

    def call_function(
        self, e: ast.Call, fn: FuncType, desc: Callee, arg_types: list[Type], env: Env, recursive: bool = False
    ) -> Type:
        if len(arg_types) != len(fn.params):
            self.report(messages.wrong_arity(e.span, desc.display, len(fn.params), len(arg_types), desc.signature))
            return ERROR
        state = self.current
        assert state is not None, "a call is checked inside a pass"
        if fn.type_params:  # a polymorphic function: its type parameters from these arguments
            fn = adt.instantiate_call(fn, arg_types, state.solver)
        if (fn.dtype_params or fn.dim_params) and self.res.adts:  # what only the elements of an ADT give
            fn = adt.specialize_inside(fn, arg_types, state.solver)
        resolved = deep_resolve(fn, state.solver)
        assert isinstance(resolved, FuncType)
        site = self.site(desc, e.args, arg_types, {}, e.span, env)
        site.recursive_call = recursive
        result = self.commit(site.run(lambda ctx: apply_signature(ctx, resolved)), env, e)
        agreement = site.unchecked_dtype_agreement() if desc.kind == "global" else None
        if agreement is not None:
            # no cast names a dtype shared by `?`s: the callee's parameters check it at this call
            self.record_check(
                e,
                DYN,
                e.span,
                messages.dtype_agreement_reason(desc.display, agreement[1], e.span),
                verifies=True,
                inserted=False,
            )
        if holds_function(resolved.ret) and loses_function_dims(
            resolved.ret, state.solver.resolve_type(result), self.param_var_set
        ):
            # the function this call returns was made for sizes (dtypes) the caller sees as `?`:
            # its contract, made here, is the check site a call of it with other sizes stops at
            state.frame.checks.append(
                CheckRecord(
                    e, unquantified(result), e.span, messages.returned_function_reason(desc.display, e.span), True
                )
            )
        return result

    def site(
        self,
        callee: Callee,
        nodes: tuple[ast.Node, ...],
        types: list[Type],
        attrs: dict[str, Any],
        span: Span,
        env: Env,
    ) -> CallSite:
        """A CallSite for a call's arguments (variables keep their binder for deduplication)."""
        state = self.current
        assert state is not None
        infos = []
        for n, t in zip(nodes, types):
            value = n.expr if isinstance(n, ast.Cast) else n  # a cast passes its variable's own value
            binder = self.res.uses.get(id(value)) if isinstance(value, ast.Var) else None
            facts = env.facts_of(binder) if binder is not None else frozenset()
            infos.append(ArgInfo(t, n, n.span, binder, facts))
        site = CallSite(state.solver, callee, infos, attrs, span, self.report, self.new_param_dim, self.new_param_dtype)
        site.loose = env.loose
        return site

    def new_param_dim(self, owner: TypeVar, axis: int) -> Optional[DimVar]:
        """A dimension for an unannotated parameter: inferred in definitions, `?` in closures."""
        if self.current is not None and self.current.kind == "closure":
            return None
        key = ("dim", owner.uid, axis)
        if key in self.widened_dims:
            return None
        var = self._param_var(key, lambda: DimVar(f"d{axis}"))
        self.dim_keys[var] = key
        return var

    def new_param_dtype(self, owner: TypeVar) -> DTypeVar:
        return self._param_var(("dtype", owner.uid), lambda: DTypeVar("T", meta=True))

    def commit(self, outcome: SiteOutcome, env: Env, call: Optional[ast.Call] = None) -> Type:
        """Record a site's casts and apply its refinements to the variables it checked."""
        state = self.current
        assert state is not None
        if call is not None and outcome.instantiation:
            state.frame.instantiations[id(call)] = outcome.instantiation
        for cast in outcome.casts:
            assert cast.node is not None, "a call's cast is of one of its argument nodes"
            state.frame.checks.append(CheckRecord(cast.node, cast.type, cast.node.span, cast.reason, cast.verifies))
        for _, binder, refined in outcome.refinements:
            env.set(binder, refined)
        for _, binder, fact in outcome.facts:
            env.add_fact(binder, fact)
        self.learn(outcome.learned, env)
        return outcome.result

    def learn(self, learned: list[Any], env: Env) -> None:
        """Bounds a call stops at runtime on the definition's signature symbols, kept where
        every run of the body passes that call before returning: its outermost level, not a
        branch or a closure (a caller's result may then assume them: FuncType.requires)."""
        state = self.current
        if not learned or state is None or env.log.open > state.level:
            return
        if state.level:  # a closure's body: the dtype classes it needs (closure_dtype_requires)
            for sym, lo, _ in learned:
                if isinstance(sym, DTypeVar):
                    state.dtype_requires.setdefault(sym, set()).add(lo)
            return
        if state.signature_symbols is None:
            state.signature_symbols = frozenset(state.info.dim_params) - frozenset(self.return_dims(state.info))
        for sym, lo, hi in learned:
            if isinstance(sym, DTypeVar):  # a dtype class (lo) its operators need of it
                state.dtype_requires.setdefault(sym, set()).add(lo)
            elif sym in state.signature_symbols:
                old_lo, old_hi = state.requires.get(sym, (0, None))
                top = hi if old_hi is None else (old_hi if hi is None else min(old_hi, hi))
                state.requires[sym] = (max(old_lo, lo), top)

    def flow(
        self,
        actual: Type,
        target: Type,
        node: ast.Node,
        env: Env,
        introduced: tuple[Any, ...],
        callee: Callee,
        insert: bool,
        blame: Span,
    ) -> Type:
        """A value flowing into an annotated position (cast, let annotation, return, condition).

        Inserted flows (returns, conditions) record casts; written ones (user casts and
        annotations) stay in the program as they are and only report what can never hold."""
        target = env.aliased(self.current.solver.resolve_type(target))  # type: ignore[union-attr]
        sig = FuncType((target,), target, introduced)
        site = self.site(callee, (node,), [actual], {}, blame, env)
        outcome = site.run(lambda ctx: apply_signature(ctx, sig))
        self.learn(outcome.learned, env)
        if introduced and not outcome.failed:
            target = self.bind_existentials(introduced, site, target, env)
        checks = self.current.frame.checks  # type: ignore[union-attr]
        if insert:
            for cast in outcome.casts:
                assert cast.node is not None, "a flow's cast is of the node flowing"
                checks.append(CheckRecord(cast.node, cast.type, blame, cast.reason, cast.verifies))
        elif any(cast.verifies for cast in outcome.casts):  # the written annotation is the check
            checks.append(CheckRecord(node, target, blame, callee.name, True, inserted=False))
        if outcome.failed:
            return ERROR if not isinstance(target, TensorType) else target
        for _, binder, fact in outcome.facts:  # what the cast checked holds of the variable from here on
            env.add_fact(binder, fact)
        dynamic = isinstance(actual, DynType)
        if not (isinstance(actual, DynType) and actual.from_error):
            # what a variable passed it is from here on: a `?` a tensor, a tensor the dims it was
            # checked to have (the elaborated program writes an inserted check so, and a later
            # annotation relies on what the check refined); a reference keeps its own type
            for _, binder, refined in outcome.refinements:
                if dynamic or isinstance(refined, TensorType):
                    env.set(binder, refined)
        return meet(target, self.final_type(actual, self.current.solver))  # type: ignore[union-attr]

    def bind_existentials(self, introduced: tuple[Any, ...], site: CallSite, target: Type, env: Env) -> Type:
        """An existential that a flow binds to a dim the checker knows exactly (a static one,
        one over the definition's own symbols, or an unannotated parameter's inferred dim) is
        that dim from here on: the annotation
        names it, it does not hide it (`let %y: (b, 4) = ...` of a (2, 4) value: `b` is 2, so
        a later `(b, 4)` of a (2, 4) value is no mismatch, and the body's result is (2, 4))."""
        for sym in introduced:
            dim = site.bound_dim(sym)
            if dim is not None and dim.is_exact:
                env.alias(sym, dim)
            elif dim is None or not dim.is_exact:  # bound to nothing known (a `Tensor[*]` cast) or to `?`
                env.loosen(sym, dim is None or dim.contains_value(1))
        return env.aliased(target)
