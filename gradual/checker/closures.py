"""Closures: a `fn` checked where it is written (its own parameters inferred and generalized),
closed over its definer's dims, and recursive closures bound by `let` solved to a fixpoint.
"""

from __future__ import annotations

from typing import Optional

from gradual.checker.adt import element_variables
from gradual.checker.calls import Calls
from gradual.checker.finalize import (
    Finalizer,
    finalize_instantiation,
    finalized_by_identity,
    finalized_dataflow,
    learned_dtype_requires,
    quantifies_functions,
)
from gradual.checker.names import Binder, FunctionInfo
from gradual.checker.records import MAX_ITERATIONS, CheckRecord, Env, Frame, Pass
from gradual.checker.site.values import Callee
from gradual.syntax import ast
from gradual.types import (
    BOTTOM,
    DYN,
    DTypeVar,
    FuncType,
    TensorType,
    Type,
    erase_symbols,
)
from gradual.types.join import widen
from gradual.types.unify import Solver


class Closures(Calls):
    """Typing closures (see the module docstring)."""

    def closure(self, fn: ast.Fn, env: Env) -> Type:
        info = self.res.function(fn)
        outer = self.current
        assert outer is not None
        if info.closed and any(t is None for t in info.param_types):
            return self.closed_closure(fn, info, env)
        # one pass over the body: it records straight into the definer's frame (absorbing a
        # frame per closure would copy every nested closure's records once per level)
        state = self.current = Pass(outer.solver, outer.frame, "closure", info, outer.owner, finished=outer.finished)
        try:
            params = [env.aliased(t) for t in self.parameters(info, outer.solver, outer.owner)]
            result = self.closure_body(fn, info, params, env)
            return self.closure_type(info, params, result, state)
        finally:
            self.current = outer

    def closure_body(
        self,
        fn: ast.Fn,
        info: FunctionInfo,
        params: list[Type],
        env: Env,
        self_binder: Optional[Binder] = None,
        self_type: Optional[Type] = None,
    ) -> Type:
        mark = env.mark()
        self.current.level = env.log.open  # type: ignore[union-attr]
        try:
            if self_binder is not None and self_type is not None:
                env.set(self_binder, self_type)
            for binder, t in zip(info.params, params):
                env.set(binder, t)
            self.warn_unused_hints(info)
            result = self.body(fn.body, env)
            if info.ret is not None:
                # the written return type (info.ret is made from it); the closure, were it absent
                ret_span = fn.ret.span if fn.ret is not None else fn.span
                self.flow(
                    result,
                    info.ret,
                    fn.body.result,
                    env,
                    self.return_dims(info),
                    Callee("flow", "the body of this closure", decl_span=ret_span, expected=info.ret),
                    insert=not quantifies_functions(info.ret),
                    blame=ret_span,
                )
                return env.aliased(info.ret)
            return result
        finally:
            env.undo(mark)

    def closed_closure(self, fn: ast.Fn, info: FunctionInfo, env: Env) -> FuncType:
        """A closure that uses no variable of its surroundings, with unannotated parameters: they
        are inferred and generalized as a definition's are (Relay's composite functions get
        their parameters' shapes at each call), in a solver of its own, so nothing it generalizes
        can be one of the surroundings' variables. A parameter nothing constrains stays `?`."""
        outer = self.current
        assert outer is not None
        solver = Solver()
        state = self.current = Pass(solver, Frame(), "def", info, outer.owner, finished=outer.finished)
        try:
            params = [env.aliased(t) for t in self.parameters(info, solver, outer.owner)]
            result = self.closure_body(fn, info, params, env)
        finally:
            self.current = outer
        # hints to widen that its calls found belong to the definer's fixpoint (absorb_widening)
        outer.solver.widen |= solver.widen
        outer.solver.widen_params |= solver.widen_params
        outer.solver.widen_ranks |= solver.widen_ranks
        finalize = Finalizer(solver, info)
        # an element type its body never constrains (`fn (%y, %x) { Cons(%x, %y) }`): it is
        # polymorphic in it, each call instantiates it (other unconstrained types stay `?`)
        # (a module without data types has none; the types of the closed closures nested in it
        # are not entered: they hold no variable, and entering them made nesting quadratic)
        if self.res.adts:
            finalize.type_params = element_variables(params + [result], solver, self.closed_types)
        # a hinted parameter dim stays its guess for the calls (as a definition's `call_type`):
        # a call passing another size widens the hint instead of failing against it (spec §3.5)
        finalize.keep_hints = True
        try:
            param_types = [erase_symbols(finalize.generalize(t), self.existentials) for t in params]
        finally:
            finalize.keep_hints = False
        ret_type = finalize.type(result)
        dtype_params = info.dtype_params + finalize.new_dtypes()
        dtype_requires = learned_dtype_requires(state.dtype_requires, finalize, dtype_params)
        frame = state.frame
        outer.finished.append(
            Frame(
                finalized_by_identity(frame.types, finalize.type),
                [
                    CheckRecord(c.node, finalize.type(c.type), c.blame, c.reason, c.verifies, c.inserted)
                    for c in frame.checks
                ],
                frame.diagnostics,
                finalized_by_identity(frame.instantiations, lambda found: finalize_instantiation(found, finalize)),
                finalized_dataflow(frame.dataflow, finalize),
            )
        )
        closed = FuncType(
            tuple(param_types),
            ret_type,
            info.dim_params + finalize.new_dims(),
            dtype_params,
            (),
            dtype_requires,
            info.type_params + finalize.new_type_params(),
        )
        self.closed_types[id(closed)] = closed
        return closed

    def closure_type(self, info: FunctionInfo, params: list[Type], result: Type, state: Pass) -> FuncType:
        """The closure's type; its result is resolved only at the top: a closure nested n deep
        returns a type n deep, whose inner parts the definer's finalizer resolves once (resolving
        it here at every level was quadratic in the nesting depth). The dtype classes its body
        needs of its definer's dtype variables (its unannotated parameters') go with it: a call
        checks the dtypes it passes for them (`apply_signature`)."""
        solver = self.current.solver  # type: ignore[union-attr]
        ps = tuple(self.final_type(p, solver, keep_hints=True) for p in params)  # see call_type
        own = {solver.resolve_dtype(p.dtype) for p in ps if isinstance(p, TensorType)}  # its parameters' dtypes only
        needs = tuple(
            sorted(
                (
                    (var, cls)
                    for var, classes in state.dtype_requires.items()
                    for cls in classes
                    if isinstance(var, DTypeVar)
                    and solver.resolve_dtype(var) in own
                    and isinstance(solver.resolve_dtype(var), DTypeVar)
                ),
                key=lambda pair: (pair[0].uid, pair[1]),
            )
        )
        return FuncType(ps, solver.resolve_type(result), info.dim_params, (), (), needs, info.type_params)

    def recursive_closure(self, fn: ast.Fn, binder: Binder, env: Env) -> Type:
        """A `let %f = fn ...` that calls `%f`: solved to a fixpoint like a recursive definition."""
        info = self.res.function(fn)
        outer = self.current
        assert outer is not None
        ret: Type = env.aliased(info.ret) if info.ret is not None else BOTTOM
        final: Optional[Pass] = None
        result_type: Type = DYN
        finished_mark = len(outer.finished)
        for _ in range(MAX_ITERATIONS):
            del outer.finished[finished_mark:]  # closed closures of an earlier iteration
            state = self.current = Pass(outer.solver, Frame(), "closure", info, outer.owner, finished=outer.finished)
            params = [env.aliased(t) for t in self.parameters(info, outer.solver, outer.owner)]
            self_type = FuncType(tuple(params), ret, info.dim_params, (), type_params=info.type_params)
            observed = self.closure_body(fn, info, params, env, binder, self_type)
            result_type = self.closure_type(info, params, observed, state)
            final = state
            changed = self.absorb_widening(outer.solver, {outer.owner})
            if info.ret is None:
                new = widen(ret, self.final_type(observed, outer.solver))
                if new != ret:
                    ret, changed = new, True
            self.current = outer
            if not changed:
                break
        assert final is not None
        outer.frame.absorb(final.frame)
        return result_type
