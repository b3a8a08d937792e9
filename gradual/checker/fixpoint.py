"""The fixpoint driver: definitions checked callees first by strongly connected component,
recursion iterated with widening until nothing changes, hints widened where they turn out
wrong, each definition's parameters, body and result type settled and installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional
from typing import TypeVar as _TypeVar

from gradual.checker import messages
from gradual.checker.finalize import (
    Finalizer,
    finalize_instantiation,
    finalized_by_identity,
    finalized_dataflow,
    finalized_type,
    learned_dtype_requires,
    quantifies_functions,
)
from gradual.checker.names import Binder, FunctionInfo
from gradual.checker.records import (
    HINT_ROUNDS,
    MAX_ITERATIONS,
    CheckerState,
    CheckRecord,
    DefinitionRecord,
    Env,
    Frame,
    FunctionResult,
    Pass,
)
from gradual.checker.site.values import Callee
from gradual.diagnostics import Diagnostic
from gradual.shapes import Dimension, Poly, Symbol
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import (
    BOTTOM,
    DYN,
    DTypeVar,
    FuncType,
    TensorType,
    Type,
    TypeVar,
    erase_symbols,
)
from gradual.types.join import widen
from gradual.types.unify import HintVar, Solver

V = _TypeVar("V")  # an inference variable of a parameter


class Definitions(CheckerState):
    """Checking definitions to a fixpoint (see the module docstring)."""

    if TYPE_CHECKING:  # what the mixins above this one give infer.Checker

        def body(self, body: ast.Body, env: Env) -> Type: ...

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
        ) -> Type: ...

    def run(self) -> None:
        """Check every definition, callees first. A call that widened a hint of a definition
        checked earlier (its argument is not the guess) makes the whole module be checked
        again with that hint widened: hints never fail, at the definition or at its calls."""
        before = list(self.diagnostics)
        rounds = 0
        while True:
            self.stale = False
            for component in self.res.order:
                self.component([self.res.defs[name] for name in component])
            if not self.stale:
                return
            rounds += 1
            self.widened |= self.next_widening(rounds)
            self.globals, self.results, self.records, self.known_calls = {}, {}, {}, {}
            self.quick_calls = {}
            self.types.clear()
            self.dataflow.clear()
            self.instantiations.clear()
            self.diagnostics = list(before)

    def next_widening(self, rounds: int) -> frozenset[tuple[object, ...]]:
        """The hints the next whole-module round starts widened, after `rounds` rounds that
        went stale: those calls widened, and after HINT_ROUNDS rounds every hint of the module
        (a round is a whole check, and a chain of hinted loops, each seeded by the one before
        it once that one is widened, would take a round per loop)."""
        if rounds < HINT_ROUNDS:
            return frozenset(self.widened)
        return frozenset(
            (id(binder), axis)
            for info in self.res.functions.values()
            for binder, dims, _ in info.hints.values()
            for axis in list(range(len(dims))) + ["rank"]
        )

    def component(self, defs: list[ast.Def]) -> None:
        """Check one strongly connected group of definitions to a fixpoint."""
        names = {d.name for d in defs}
        recursive = len(defs) > 1 or any(d.name in self.res.calls.get(d.name, ()) for d in defs)
        returns: dict[str, Type] = {}
        for d in defs:
            info = self.res.function(d)
            returns[d.name] = info.ret if info.ret is not None else (BOTTOM if recursive else DYN)
        passes: dict[str, Pass] = {}
        for _ in range(MAX_ITERATIONS):
            solver = Solver()
            params = {d.name: self.parameters(self.res.function(d), solver, d.name) for d in defs}
            for d in defs:
                info = self.res.function(d)
                self.assumed[d.name] = FuncType(
                    tuple(params[d.name]),
                    returns[d.name],
                    info.dim_params,
                    info.dtype_params,
                    type_params=info.type_params,
                )
            observed = {}
            for d in defs:
                passes[d.name] = self.current = Pass(solver, Frame(), "def", self.res.function(d), d.name)
                observed[d.name] = self.function_body(d, params[d.name], solver)
            changed = self.absorb_widening(solver, names)
            if recursive:
                for d in defs:
                    if self.res.function(d).ret is None:
                        new = widen(returns[d.name], self.final_type(observed[d.name], solver))
                        if new != returns[d.name]:
                            returns[d.name], changed = new, True
            if not changed:
                break
        for d in defs:
            self.finish_definition(d, passes[d.name], params[d.name], observed[d.name])
            self.assumed.pop(d.name, None)

    def absorb_widening(self, solver: Solver, names: set[str]) -> bool:
        """Record hints that conflicted, so the next iteration starts from `?` there; whether
        one of this component's did (another's makes the module stale: checked again)."""
        fresh = {h.origin for h in solver.widen} - self.widened
        self.widened |= fresh
        foreign = {key for key in fresh if self.hint_owner.get(key) not in names}
        self.stale |= bool(foreign)
        dims = {self.dim_keys[v] for v in solver.widen_params if v in self.dim_keys} - self.widened_dims
        self.widened_dims |= dims
        ranks = {(b, "rank") for b in solver.widen_ranks} - self.widened
        self.widened |= ranks
        foreign_ranks = {key for key in ranks if self.hint_owner.get((key[0], 0)) not in names}
        self.stale |= bool(foreign_ranks)
        return bool(fresh - foreign) or bool(dims) or bool(ranks - foreign_ranks)

    def parameters(self, info: FunctionInfo, solver: Solver, owner: str) -> list[Type]:
        """The parameter types a pass starts from: annotations, hints, or variables to infer
        (a `?T` parameter is one too: its hint gives `T` its first guess)."""
        out: list[Type] = []
        for binder, annotated in zip(info.params, info.param_types):
            hint = info.hints.get(id(binder))
            if hint is not None and (id(binder), "rank") in self.widened:
                hint = None  # a call passed another rank: the guess is dropped (spec §3.5)
            if hint is not None and (annotated is None or isinstance(annotated, TypeVar)):
                hinted = self.hinted_type(binder, hint[1], owner)
                if annotated is not None:
                    solver.bind_type(annotated, hinted)  # other `?T` parameters share it (rebound each pass)
                out.append(hinted)
            elif annotated is not None:
                out.append(annotated)
            else:
                make = lambda: TypeVar(binder.name)  # noqa: B023, E731 - made at once by _param_var, if at all
                out.append(self._param_var(("type", id(binder)), make))
        return out

    def _param_var(self, key: tuple[object, ...], make: Callable[[], V]) -> V:
        """Inference variables of a parameter are made once and kept across fixpoint
        iterations (only the solver is fresh), so assumptions carry over between them."""
        found: Optional[V] = self.param_vars.get(key)
        if found is None:
            found = make()
            self.param_vars[key] = found
            self.param_var_set.add(found)
        return found

    def hinted_type(self, binder: Binder, dims: tuple[Dimension, ...], owner: str) -> TensorType:
        """A parameter seeded by `can_unify`: static guesses that widen to `?` on conflict."""
        items: list[Dimension] = []
        for axis, d in enumerate(dims):
            key = (id(binder), axis)
            self.hint_owner[key] = owner
            if d.is_static and key not in self.widened:
                made = lambda: HintVar(f"{binder.name}{axis}", d.get_length(), key)  # noqa: B023, E731 - as above
                hint = self._param_var(("hint",) + key, made)
                items.append(Dimension.of_expr(Poly.atom(hint)))
            elif d.is_static:
                items.append(Dimension.dynamic())
            else:
                items.append(d)
        dtype = self._param_var(("dtype", id(binder)), lambda: DTypeVar("T", meta=True))
        return TensorType(tuple(items), dtype)

    def function_body(self, d: ast.Def, params: list[Type], solver: Solver) -> Type:
        """Infer a definition's body; returns its result type (before generalization)."""
        info = self.res.function(d)
        env = Env()
        for binder, t in zip(info.params, params):
            env.set(binder, t)
        self.warn_unused_hints(info)
        result = self.body(d.body, env)
        if info.ret is not None:
            ret_span = d.ret.span if d.ret is not None else d.span  # the written type info.ret is made from
            return self.flow(
                result,
                info.ret,
                d.body.result,
                env,
                self.return_dims(info),
                Callee("flow", f"the body of `@{d.name}`", decl_span=ret_span, expected=info.ret),
                insert=not quantifies_functions(info.ret),
                blame=ret_span,
            )
        return result

    def return_dims(self, info: FunctionInfo) -> tuple[Symbol, ...]:
        """Symbols that appear only in a return annotation: bound by the result, not the inputs."""
        from gradual.types import type_symbols

        in_params: set[Symbol] = set()
        for t in info.param_types:
            if t is not None:
                in_params |= type_symbols(t)
        return tuple(s for s in info.dim_params if s not in in_params)

    def warn_unused_hints(self, info: FunctionInfo) -> None:
        """Hints that seed nothing (a variable that is not a parameter, or one with a type; a
        `?T` parameter is one to infer), reported in the pass's frame: once, from the last pass."""
        if not info.hints:
            return
        position = {id(b): i for i, b in enumerate(info.params)}  # `list.index` per hint was quadratic
        for binder, _, stmt in info.hints.values():
            i = position.get(id(binder))
            if i is None:
                why = "only parameters are inferred from hints"
            else:
                annotated = info.param_types[i]
                if annotated is None or isinstance(annotated, TypeVar):
                    continue
                why = "it already has a type"
            self.report(messages.hint_unused(stmt.span, binder.name, why))

    def finish_definition(self, d: ast.Def, state: Pass, params: list[Type], result: Type) -> None:
        """Generalize, resolve every recorded type, and publish the definition's type."""
        info = self.res.function(d)
        solver = state.solver
        finalize = Finalizer(solver, info)
        # an unannotated parameter unified with an existential of the body must not take it
        # with it: callers cannot know it (it is bound inside, from the parameter itself)
        param_types = [erase_symbols(finalize.generalize(t), self.existentials) for t in params]
        ret_type = finalize.type(info.ret if info.ret is not None else erase_symbols(result, set()))
        requires = tuple((sym, lo, hi) for sym, (lo, hi) in state.requires.items())
        dtype_params = info.dtype_params + finalize.new_dtypes()
        dtype_requires = learned_dtype_requires(state.dtype_requires, finalize, dtype_params)
        fn_type = FuncType(
            tuple(param_types),
            ret_type,
            info.dim_params + finalize.new_dims(),
            dtype_params,
            requires,
            dtype_requires,
            info.type_params,
        )
        frame = state.frame
        types = finalized_by_identity(frame.types, finalize.type)
        checks = [
            CheckRecord(c.node, finalize.type(c.type), c.blame, c.reason, c.verifies, c.inserted) for c in frame.checks
        ]
        instantiations = finalized_by_identity(
            frame.instantiations, lambda found: finalize_instantiation(found, finalize)
        )
        dataflow = finalized_dataflow(frame.dataflow, finalize)
        diagnostics = frame.diagnostics
        if state.finished:  # closed closures' records, final already
            types, instantiations, diagnostics = dict(types), dict(instantiations), list(diagnostics)
            for done in state.finished:
                types.update(done.types)
                checks.extend(done.checks)
                diagnostics.extend(done.diagnostics)
                instantiations.update(done.instantiations)
                dataflow.update(done.dataflow)
        call = self.call_type(fn_type, finalize, params) if info.hints else None
        self.install(
            DefinitionRecord(
                FunctionResult(d.name, d, fn_type, checks), types, diagnostics, instantiations, call, dataflow
            )
        )

    def install(self, record: DefinitionRecord, tables: bool = True) -> None:
        """Publish one checked definition (just checked, or reused by a tool, which may keep
        its types and instantiations in `self.types` from before: tables=False)."""
        name = record.result.name
        self.records[name] = record
        self.globals[name] = record.call_type or record.result.type
        self.results[name] = record.result
        if tables:
            self.types.update(record.types)
            self.instantiations.update(record.instantiations)
            self.dataflow.update(record.dataflow)
        self.diagnostics.extend(record.diagnostics)

    def call_type(self, fn_type: FuncType, finalize: "Finalizer", params: list[Type]) -> FuncType:
        """The type calls are checked against: a hinted parameter dim stays its guess (printed
        as the guessed size), so a call passing another size widens the hint instead of
        failing against it."""
        finalize.keep_hints = True
        try:
            kept = tuple(erase_symbols(finalize.generalize(t), self.existentials) for t in params)
        finally:
            finalize.keep_hints = False
        return fn_type.with_parts(kept, fn_type.ret)

    def final_type(self, t: Type, solver: Solver, keep_hints: bool = False) -> Type:
        """A type with variables resolved as far as they are known (for fixpoint comparison).
        Parts without inference variables are kept as they are, unvisited: a closure nested n
        deep returns a type n deep, built from its inner closure's type."""
        return finalized_type(t, solver, keep_hints)

    def report(self, diag: Diagnostic) -> None:
        assert self.current is not None
        self.current.frame.diagnostics.append(diag)
