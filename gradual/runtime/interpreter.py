"""The interpreter of elaborated programs (spec §5 `gradual run`).

It runs a module re-resolved with `names.resolve`, so an elaborated module and elaborated text
printed and parsed again run alike. Every cast runs (`match.py`); every operator call runs its
shape rule before its kernel (`operators.py`). Definitions bind their signature's symbols and
dtype variables at entry by matching the arguments against the parameter annotations, and check
their result against the return annotation.

Calls in tail position (the result of a body, of an `if` branch in tail position) are
trampolined: a loop written as tail recursion runs in constant Python stack, however many
iterations it makes, and in constant memory: the result check a tail call leaves behind is
kept once when the one before it is the same check (same return type, same bindings).
Other calls recurse, on the large-stack worker thread of `run_deep`. A run makes at most
GRADUAL_MAX_STEPS calls (functions and operators; a million unless the environment says
otherwise), so a loop that never ends stops with a diagnostic.
"""

from __future__ import annotations

import gc
import os
import threading
from typing import Any, Callable, Optional

import numpy as np

from gradual.checker import messages as checker_messages
from gradual.checker.names import Binder, FunctionInfo, Resolution, resolve
from gradual.infra.deep import gc_paused, run_deep
from gradual.ops.attributes import check_attributes
from gradual.ops.registry import Registry, default_registry
from gradual.runtime import messages
from gradual.runtime.adt import construct, match_pattern, no_clause
from gradual.runtime.errors import Blame, CallFailure, CheckFailure, InputError, Mismatch, label_at
from gradual.runtime.liveness import drop_plans
from gradual.runtime.match import match_value, settle_deferred, unbind
from gradual.runtime.operators import run_operator
from gradual.runtime.values import (
    NUMPY_DTYPES,
    Closure,
    ConstructorFunction,
    Frame,
    GlobalFunction,
    RefCell,
    Wrapped,
    describe_value,
    value_kind,
)
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import DynType, FuncType, Type


class TailCall:
    """A call left for the trampoline in `Interpreter.apply` to make; `contract` is the wrapper
    (if any) whose function type promised that the callee accepts these arguments."""

    __slots__ = ("fn", "args", "span", "contract")

    def __init__(self, fn: Any, args: tuple, span: Optional[Span], contract: Optional[Wrapped] = None) -> None:
        self.fn = fn
        self.args = args
        self.span = span
        self.contract = contract


PendingCheck = tuple  # (what it checks, as a hashable key; the check: value -> value)

STEP_VARIABLE = "GRADUAL_MAX_STEPS"
DEFAULT_STEPS = 1_000_000


#: steps between two collections of the young objects during a run (see Interpreter._collect)
COLLECT_STEPS = 10_000


def step_limit() -> int:
    """How many calls (of functions and operators) a run may make: a million unless the
    environment variable GRADUAL_MAX_STEPS says otherwise (about ten seconds of a runaway loop)."""
    text = os.environ.get(STEP_VARIABLE, "").strip()
    return int(text) if text.isdigit() else DEFAULT_STEPS


def push_check(pending: list, key: tuple, check: Callable[[Any], Any]) -> None:
    """Queue a result check, unless the last one queued is the same check: a tail-recursive
    loop then runs in constant memory (the innermost result meets both alike)."""
    if not pending or pending[-1][0] != key:
        pending.append((key, check))


class Interpreter:
    """Runs the definitions of one (elaborated) module."""

    def __init__(self, module: ast.Module, registry: Optional[Registry] = None) -> None:
        from gradual.runtime import kernels  # noqa: F401  (registers the NumPy kernels)

        self.registry = registry or default_registry()
        # resolution recurses over the syntax tree: on the large-stack thread, like checking, and
        # without the collector's full passes over a tree that stays alive (superlinear)
        with gc_paused():
            self.res: Resolution = run_deep(resolve, module, self.registry, self.registry.names())
            self.drops = drop_plans(module, self.res.uses, self.res.binders)
        errors = [d for d in self.res.diagnostics if d.is_error]
        if errors:
            from gradual.runtime.errors import ProgramRejected

            raise ProgramRejected(errors)
        self.attrs: dict[int, dict] = {}
        self.blames: dict[int, Blame] = {}
        self.steps_left = self.steps_at_start = step_limit()
        self.next_collection = self.steps_left - COLLECT_STEPS
        self.next_full = 8 * COLLECT_STEPS
        self.set_aside = _SetAside()  # the current run's (see Interpreter.run)
        #: each expression class's evaluator (called with a node of that class)
        self._eval: dict[type, Callable[[Any, Frame], Any]] = {
            ast.Var: self._eval_var,
            ast.GlobalVar: self._eval_global,
            ast.Literal: self._eval_literal,
            ast.TupleExpr: self._eval_tuple,
            ast.Proj: self._eval_proj,
            ast.Call: self._eval_call,
            ast.If: self._eval_if,
            ast.Fn: self._eval_fn,
            ast.Cast: self._eval_cast,
            ast.OpRef: self._eval_opref,
            ast.Block: self._eval_block,
            ast.Match: self._eval_match,
        }

    # entry ---------------------------------------------------------------------------------
    def parameters(self, entry: str) -> list[tuple[str, Optional[Type]]]:
        """The entry point's parameters: names and declared types."""
        info = self.res.function(self._definition(entry))
        return [(b.name, t) for b, t in zip(info.params, info.param_types)]

    def run(self, entry: str, inputs: dict) -> Any:
        """Call `@entry` with inputs by parameter name; returns its result value."""
        d = self._definition(entry)
        info = self.res.function(d)
        missing = [b.name for b in info.params if b.name not in inputs]
        unknown = sorted(set(inputs) - {b.name for b in info.params})
        if missing or unknown:
            raise InputError(messages.runtime_input_names(entry, missing, unknown))
        args = tuple(inputs[b.name] for b in info.params)
        outer, self.set_aside = self.set_aside, _SetAside()
        try:
            with gc_paused():
                return run_deep(self.apply, GlobalFunction(d), args, None)
        except RecursionError:
            raise CallFailure(
                d.name_span, messages.runtime_exhausted(RecursionError()), help=messages.runtime_exhausted_help()
            ) from None
        finally:
            self.set_aside.end()
            self.set_aside = outer

    def _definition(self, entry: str) -> ast.Def:
        d = self.res.defs.get(entry)
        if d is None:
            raise InputError(messages.runtime_no_entry(entry, sorted(self.res.defs)))
        return d

    # calls ---------------------------------------------------------------------------------
    def apply(self, fn: Any, args: tuple, span: Optional[Span]) -> Any:
        """Call a function value; tail calls inside it are made here, in a loop."""
        pending: list[PendingCheck] = []
        if fn.__class__ is GlobalFunction:  # the commonest callee, entered here: one frame less a level
            self.step(span)
            outcome = self.enter_function(fn.node, None, args, span, pending)
        else:
            outcome = self.enter(fn, args, span, pending)
        while isinstance(outcome, TailCall):
            outcome = self.enter(outcome.fn, outcome.args, outcome.span, pending, outcome.contract)
        value = outcome
        while pending:
            value = pending.pop()[1](value)
        return value

    def step(self, span: Optional[Span]) -> None:
        """Count one call against the run's bound (GRADUAL_MAX_STEPS)."""
        self.steps_left -= 1
        if self.steps_left <= self.next_collection:
            self._collect()
        if self.steps_left < 0:
            limit = step_limit()
            raise CallFailure(
                span or _nowhere(),
                messages.runtime_step_limit(limit),
                help=messages.runtime_step_limit_help(STEP_VARIABLE),
            )

    def _collect(self) -> None:
        """The run pauses the cyclic collector (its full passes over the frames and checks a long
        run keeps alive grew faster than the run) and collects here instead: the young objects
        every COLLECT_STEPS steps, everything at steps that double (a loop's cycles are freed,
        and all the full passes together cost a few times one)."""
        done = self.steps_at_start - self.steps_left
        if done >= self.next_full:
            self.set_aside.before_full_collection()
            gc.collect()
            self.next_full *= 2
        else:
            gc.collect(1)
        self.next_collection = self.steps_left - COLLECT_STEPS

    def enter(
        self, fn: Any, args: tuple, span: Optional[Span], pending: list, contract: Optional[Wrapped] = None
    ) -> Any:
        """Start one call: bind the parameters, queue the result check, run the body in tail
        position (which may hand back a TailCall)."""
        self.step(span)
        if isinstance(fn, GlobalFunction):
            return self.enter_function(fn.node, None, args, span, pending, contract)
        if isinstance(fn, Closure):
            return self.enter_function(fn.node, fn.frame, args, span, pending, contract)
        if isinstance(fn, Wrapped):
            return self.enter_wrapped(fn, args, span, pending, contract)
        if isinstance(fn, ConstructorFunction):
            if len(args) != len(fn.ctor.fields):
                raise CallFailure(span or _nowhere(), messages.runtime_arity(len(fn.ctor.fields), len(args)))
            return construct(fn.ctor, args)
        raise CallFailure(span or _nowhere(), messages.runtime_not_callable(fn))

    def enter_function(
        self,
        node: Any,
        parent: Optional[Frame],
        args: tuple,
        span: Optional[Span],
        pending: list,
        contract: Optional[Wrapped] = None,
    ) -> Any:
        """Enter a definition or closure: a fresh frame (a closure's has its defining frame as
        parent), parameters matched against their annotations (binding the signature's
        symbols), the return annotation queued as a pending check."""
        info = self.res.function(node)
        if len(args) != len(info.params):
            raise CallFailure(span or node.span, messages.runtime_arity(len(info.params), len(args)))
        frame = Frame(parent)
        for index, (binder, ptype, arg) in enumerate(zip(info.params, info.param_types, args)):
            if ptype is not None and not isinstance(ptype, DynType):
                arg = match_value(arg, ptype, frame, self._deferred_parameter_blame(info, index, span, contract))
            frame.values[binder] = arg
        if frame.deferred:
            settle_deferred(frame)
        if info.ret is not None and not isinstance(info.ret, DynType):
            ret = info.ret
            push_check(
                pending,
                _check_key(ret, frame),
                lambda value: match_value(value, ret, frame, lambda: self.return_blame(info)),
            )
        return self.body(node.body, frame, tail=True)

    def enter_wrapped(
        self, fn: Wrapped, args: tuple, span: Optional[Span], pending: list, contract: Optional[Wrapped] = None
    ) -> Any:
        """Call a function through the type it was given: the arguments are checked (the
        caller's responsibility), the result is queued (the function's), then the wrapped
        function is entered with this wrapper as its contract. Entered through an outer
        wrapper (`contract`), an argument this type rejects is one the outer type accepted:
        the place that gave the outer type is blamed, as a closure's own parameter would be."""
        ftype: FuncType = fn.type
        if len(args) != len(ftype.params):
            raise CallFailure(span or fn.blame.span, messages.runtime_arity(len(ftype.params), len(args)))
        frame = Frame(fn.frame) if ftype.dim_params else fn.frame
        checked = tuple(
            match_value(
                a,
                p,
                frame,
                self._deferred_argument_blame(fn, i, span)
                if contract is None
                else self._deferred_wrapped_contract_blame(contract, i, span),
            )
            for i, (a, p) in enumerate(zip(args, ftype.params))
        )
        if ftype.dim_params and frame.deferred:
            settle_deferred(frame)
        push_check(
            pending,
            _check_key(ftype, frame, fn),
            lambda value: match_value(value, ftype.ret, frame, lambda: self.result_blame(fn)),
        )
        return TailCall(fn.inner, checked, span or fn.blame.span, fn)

    # bodies and expressions -----------------------------------------------------------------
    def body(self, body: ast.Body, frame: Frame, tail: bool = False) -> Any:
        """Run a body's bindings, then its result (in tail position if the body is); a value
        is let go after its last use (runtime.liveness)."""
        self.statements(body, frame)
        if tail:
            return self.tail(body.result, frame)
        return self.eval(body.result, frame)

    def statements(self, body: ast.Body, frame: Frame) -> None:
        """A body's bindings, each value let go after its last use (runtime.liveness)."""
        drops = self.drops.get(id(body))
        for index, stmt in enumerate(body.stmts):
            if isinstance(stmt, ast.Let):
                self.let(stmt, frame)
            if drops is not None and drops[index]:
                values = frame.values
                for binder in drops[index]:
                    values.pop(binder, None)

    def let(self, stmt: ast.Let, frame: Frame) -> None:
        """Bind a let; an annotated let is checked like a cast and binds its new dims."""
        binder = self.res.binders[id(stmt)]
        value = self.eval(stmt.value, frame)
        if stmt.type is not None:
            unbind(frame, self.res.introduced.get(id(stmt), ()))
            value = match_value(value, self.res.annotations[id(stmt.type)], frame, self.let_blame(stmt, binder))
        frame.values[binder] = value

    def tail(self, e: ast.Expr, frame: Frame) -> Any:
        """An expression in tail position: a call of a function becomes a TailCall. The branch
        an `if` or a `match` takes is run in this loop, not by recursion: a recursion over a
        list (a match, then a call in an argument) costs as few Python frames a level as
        can be (a 100,000-long list stays within the recursion limit)."""
        while True:
            if isinstance(e, ast.Call) and not isinstance(e.callee, ast.OpRef):
                fn = self.eval(e.callee, frame)
                return TailCall(fn, self.eval_all(e.args, frame), e.span)
            if isinstance(e, ast.If):
                branch = e.then if self.condition(e.cond, frame) else e.otherwise
            elif isinstance(e, ast.Match):
                branch = self.clause(e, frame)
            else:
                return self._eval[type(e)](e, frame)
            self.statements(branch, frame)
            e = branch.result

    def eval(self, e: ast.Expr, frame: Frame) -> Any:
        """The value of an expression."""
        return self._eval[type(e)](e, frame)

    def eval_all(self, exprs: tuple, frame: Frame) -> tuple:
        """The values of several expressions, left to right (a loop, not a comprehension: one
        Python frame less per level of recursion in the program)."""
        values = []
        for e in exprs:
            values.append(self._eval[type(e)](e, frame))
        return tuple(values)

    def _eval_var(self, e: ast.Var, frame: Frame) -> Any:
        return frame.value(self.res.uses[id(e)])

    def _eval_global(self, e: ast.GlobalVar, frame: Frame) -> Any:
        return GlobalFunction(self.res.defs[e.name])

    def _eval_literal(self, e: ast.Literal, frame: Frame) -> Any:
        dtype = numpy_dtype(e.dtype, e.span)
        try:
            return np.asarray(e.value, dtype=dtype)
        except OverflowError:  # only in a module that was not checked (the checker rejects it)
            info = np.iinfo(dtype)
            raise CallFailure(
                e.span,
                checker_messages.literal_out_of_range(
                    e.span, e.text or str(e.value), e.dtype, int(info.min), int(info.max)
                ).message,
            ) from None

    def _eval_tuple(self, e: ast.TupleExpr, frame: Frame) -> Any:
        return self.eval_all(e.fields, frame)

    def _eval_proj(self, e: ast.Proj, frame: Frame) -> Any:
        value = self.eval(e.tuple, frame)
        if not isinstance(value, tuple) or not 0 <= e.index < len(value):
            # only a `?` value can get here in a checked program: the checker counted the
            # projection as a check site, and this is its check
            kind = value_kind(value)
            raise CheckFailure(
                Blame(e.span, "projection"),
                f"a tuple with field {e.index}",
                describe_value(value),
                Mismatch("no-field", {"actual": kind, "index": e.index}),
            )
        return value[e.index]

    def _eval_if(self, e: ast.If, frame: Frame) -> Any:
        branch = e.then if self.condition(e.cond, frame) else e.otherwise
        return self.body(branch, frame)

    def condition(self, cond: ast.Expr, frame: Frame) -> bool:
        """The truth of an `if` condition (a one-element tensor)."""
        value = self.eval(cond, frame)
        if not isinstance(value, np.ndarray) or value.size != 1:
            raise CallFailure(cond.span, messages.runtime_bad_condition(value))
        return bool(value.reshape(-1)[0])

    def _eval_block(self, e: ast.Block, frame: Frame) -> Any:
        return self.body(e.body, frame)

    def _eval_fn(self, e: ast.Fn, frame: Frame) -> Any:
        return Closure(e, frame)

    def _eval_opref(self, e: ast.OpRef, frame: Frame) -> Any:
        ctor = self.res.ctors.get(e.name)
        if ctor is not None:  # a nullary constructor is its value; another a function
            return construct(ctor, ()) if not ctor.fields else ConstructorFunction(ctor)
        raise CallFailure(e.span, messages.runtime_operator_value(e.name))

    def _eval_match(self, e: ast.Match, frame: Frame) -> Any:
        return self.body(self.clause(e, frame), frame)

    def clause(self, e: ast.Match, frame: Frame) -> ast.Body:
        """The body of the first clause whose pattern takes the scrutinee (its variables bound
        in `frame`); no clause: a check failure blamed on the match (only `match?` can get
        here in a checked program)."""
        value = self.eval(e.scrutinee, frame)
        values = frame.values
        binders = self.res.binders

        def bind(p: ast.PVar, v: Any) -> None:
            if p.type is not None:
                v = match_value(v, self.res.annotations[id(p.type)], frame, lambda: self.pattern_blame(p))
            values[binders[id(p)]] = v

        for clause in e.clauses:
            if match_pattern(clause.pattern, value, bind):
                return clause.body
        raise no_clause(e, value, messages.runtime_match_reason())

    def _eval_cast(self, e: ast.Cast, frame: Frame) -> Any:
        value = self.eval(e.expr, frame)
        unbind(frame, self.res.introduced.get(id(e), ()))
        return match_value(value, self.res.annotations[id(e.type)], frame, self.cast_blame(e))

    def _eval_call(self, e: ast.Call, frame: Frame) -> Any:
        if isinstance(e.callee, ast.OpRef):
            ctor = self.res.ctors.get(e.callee.name) if self.res.ctors else None
            if ctor is not None:
                args = self.eval_all(e.args, frame)
                if len(args) != len(ctor.fields):
                    raise CallFailure(e.span, messages.runtime_arity(len(ctor.fields), len(args)))
                return construct(ctor, args)
            return self.call_operator(e, frame)
        fn = self.eval(e.callee, frame)
        return self.apply(fn, self.eval_all(e.args, frame), e.span)

    def call_operator(self, e: ast.Call, frame: Frame) -> Any:
        """An operator call: arguments, then rule, kernel and agreement (operators.py)."""
        if e.callee.name in ast.REF_FORMS:  # type: ignore[union-attr]
            return self.reference(e, frame)
        op = self.registry.get(e.callee.name)  # type: ignore[union-attr]
        if op is None:
            raise CallFailure(e.callee.span, messages.runtime_unknown_operator(e.callee.name))  # type: ignore[union-attr]
        args = self.eval_all(e.args, frame)
        self.step(e.span)
        if len(args) != op.arity:
            raise CallFailure(e.span, messages.runtime_arity(op.arity, len(args)))
        return run_operator(op, args, self.call_attrs(e, op), e.span, frame)

    def call_attrs(self, e: ast.Call, op: Any) -> dict:
        """A call's attributes with the declared defaults filled in (validated once per call)."""
        found = self.attrs.get(id(e))
        if found is None:
            problems: list = []
            found = check_attributes(op, e, problems.append)
            if found is None:
                raise CallFailure(problems[0].span if problems else e.span, problems[0].message if problems else "")
            self.attrs[id(e)] = found
        return found

    def reference(self, e: ast.Call, frame: Frame) -> Any:
        """`ref(v)` makes a cell (its type comes from the cast elaboration puts around it),
        `ref_read(r)` reads one, `ref_write(r, v)` checks v against the cell's type, stores it
        and gives `()`."""
        form = e.callee.name  # type: ignore[union-attr]
        args = self.eval_all(e.args, frame)
        if len(args) != ast.REF_FORMS[form]:
            raise CallFailure(e.span, messages.runtime_arity(ast.REF_FORMS[form], len(args)))
        if form == "ref":
            return RefCell(args[0])
        cell = args[0]
        if not isinstance(cell, RefCell):
            raise CallFailure(e.args[0].span, messages.runtime_not_a_reference(form))
        if form == "ref_read":
            return cell.value
        cell.value = match_value(args[1], cell.type, Frame(), lambda: self.write_blame(e))
        return ()

    # blame ---------------------------------------------------------------------------------
    def pattern_blame(self, p: ast.PVar) -> Blame:
        """A matched value that its pattern variable's annotation rejects blames the variable."""
        return Blame(p.span, "pattern", messages.runtime_pattern_reason(p.var.name))

    def write_blame(self, e: ast.Call) -> Blame:
        """A value written through a reference that its cell's type rejects blames the write."""
        return Blame(e.span, "write", messages.runtime_write_reason())

    def cast_blame(self, e: ast.Cast) -> Blame:
        """Inserted casts blame what the checker recorded; user casts blame themselves."""
        found = self.blames.get(id(e))
        if found is None:
            if e.check is not None:
                found = Blame(e.check.blame, "inserted", e.check.reason)
            else:
                found = Blame(e.span, "cast", labels=(label_at(e.type.span, messages.runtime_cast_label()),))
            self.blames[id(e)] = found
        return found

    def let_blame(self, stmt: ast.Let, binder: Binder) -> Blame:
        """An annotated let blames its value, pointing at the annotation."""
        found = self.blames.get(id(stmt))
        if found is None:
            found = self.blames[id(stmt)] = Blame(
                stmt.value.span,
                "let",
                messages.runtime_let_reason(binder.name),
                (label_at(stmt.type.span, messages.runtime_annotation_label()),) if stmt.type is not None else (),
            )
        return found

    def parameter_blame(self, info: FunctionInfo, index: int, call: Optional[Span]) -> Blame:
        """An input that does not fit its parameter: the parameter's type for the entry point's
        inputs, the call otherwise."""
        param = info.node.params[index]
        where = _real_span(param.type.span if param.type is not None else None) or param.span
        reason = messages.runtime_parameter_reason(info.name, param.var.name, index)
        if call is None:
            return Blame(where, "parameter", reason)
        return Blame(
            call,
            "argument",
            reason,
            (label_at(where, messages.runtime_parameter_label()),) if _real_span(where) else (),
        )

    def return_blame(self, info: FunctionInfo) -> Blame:
        """A result that does not fit the return annotation blames the annotation."""
        node = info.node
        written = _real_span(node.ret.span if node.ret is not None else None)
        reason = messages.runtime_return_reason(info.name, inferred=written is None)
        return Blame(written or node.body.result.span, "return", reason)

    def argument_blame(self, fn: Wrapped, index: int, call: Optional[Span]) -> Blame:
        """A bad argument to a function called through its type blames the call."""
        origin = fn.blame.span
        return Blame(
            call or origin,
            "argument",
            messages.runtime_wrapped_argument_reason(index, origin.describe()),
            (label_at(origin, messages.runtime_wrapped_label()),),
        )

    def _deferred_argument_blame(self, fn: Wrapped, index: int, call: Optional[Span]) -> Callable[[], Blame]:
        return lambda: self.argument_blame(fn, index, call)

    def _deferred_parameter_blame(
        self, info: FunctionInfo, index: int, call: Optional[Span], contract: Optional[Wrapped]
    ) -> Callable[[], Blame]:
        if contract is None:
            return lambda: self.parameter_blame(info, index, call)
        return lambda: self.contract_blame(contract, info, index, call)

    def _deferred_wrapped_contract_blame(
        self, contract: Wrapped, index: int, call: Optional[Span]
    ) -> Callable[[], Blame]:
        def blame() -> Blame:
            labels = (label_at(call, messages.runtime_called_label()),) if call is not None else ()
            return Blame(
                contract.blame.span,
                "contract",
                messages.runtime_wrapped_contract_reason(index, contract.blame.reason),
                labels,
            )

        return blame

    def contract_blame(self, fn: Wrapped, info: FunctionInfo, index: int, call: Optional[Span]) -> Blame:
        """A function that got a type it does not honour: it rejects an argument its type
        accepts. The place that gave it the type is blamed, not the caller."""
        param = info.node.params[index]
        labels = (label_at(call, messages.runtime_called_label()),) if call is not None else ()
        return Blame(
            fn.blame.span, "contract", messages.runtime_contract_reason(index, param.var.name, fn.blame.reason), labels
        )

    def result_blame(self, fn: Wrapped) -> Blame:
        """A bad result of a function called through its type blames where it got the type."""
        return Blame(fn.blame.span, "result", messages.runtime_wrapped_result_reason(fn.blame.reason))


def numpy_dtype(name: str, span: Optional[Span] = None) -> np.dtype:
    """The NumPy dtype of a language dtype (bfloat16 has none: a runtime error)."""
    if name not in NUMPY_DTYPES:
        raise CallFailure(span or _nowhere(), messages.runtime_unsupported_dtype(name))
    return np.dtype(name)


def _check_key(t: Any, frame: Frame, wrapper: Any = None) -> tuple:
    """What a result check depends on: the type (and the wrapper whose blame it carries), the
    dims and dtypes the frame bound on entry, and the enclosing frame they may come from."""
    return (id(t), id(wrapper), id(frame.parent), tuple(frame.dims.items()), tuple(frame.dtypes.items()))


class _SetAside:
    """What lives when a run's first full collection comes (the checked program, the caller's
    data, what the run holds) is left out of that run's full collections (`gc.freeze`): they
    are there to free the run's cycles, and each one rescanned every object the checker made,
    which cost as much as the program is long (a 20,000-operator chain: 4 us an operator).

    Nothing is done before the first full collection (COLLECT_STEPS * 8 steps): a short run
    pays nothing, and asking the collector whether anything is frozen already (O(frozen
    objects): it walks the list) is done once, by a run that is long by then. A run whose
    caller froze objects (a server freezing a finished analysis) leaves the freeze alone; a
    run nested in another that set the objects aside does nothing; the run that froze
    unfreezes when it ends."""

    lock = threading.Lock()
    holders = 0  # runs in progress that froze the objects

    def __init__(self) -> None:
        self.decided = False
        self.froze = False

    def before_full_collection(self) -> None:
        if self.decided:
            return
        self.decided = True
        with _SetAside.lock:
            if _SetAside.holders == 0 and gc.get_freeze_count() == 0:
                gc.freeze()
                self.froze = True
                _SetAside.holders += 1

    def end(self) -> None:
        if self.froze:
            with _SetAside.lock:
                _SetAside.holders -= 1
                gc.unfreeze()
            self.froze = False


def _real_span(span: Optional[Span]) -> Optional[Span]:
    if span is None or span.source.path == "<generated>":
        return None
    return span


def _nowhere() -> Span:
    from gradual.syntax.source import NOWHERE

    return NOWHERE
