"""Inference: a type for every expression, a static error for every provable mismatch, and a
recorded runtime check wherever consistency could not be proven.

Definitions are checked callees first (by strongly connected component). Each call becomes a
`CallSite` (site.py) that runs the operator's rule or the callee's signature symbolically.
Recursion is solved to a fixpoint: a recursive function without a return annotation starts
from "no information", `can_unify` hints seed unannotated parameters, and between iterations
anything that changed is widened to `?` (SPEC 3.5). Unannotated parameters of a definition
are inferred from their uses and generalized at the end (unsolved dims become the
definition's own symbols), so inferred signatures stay sound for every caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Callable, Optional, Union

from gradual.checker import messages
from gradual.checker.names import Binder, FunctionInfo, Resolution
from gradual.checker.references import check_reference
from gradual.checker.site import CallSite
from gradual.checker.site.values import ArgInfo, Callee, CastPattern, SiteOutcome
from gradual.diagnostics import Diagnostic
from gradual.infra.scopes import UndoLog
from gradual.ops.attr_domains import domain_problem, kind_problem
from gradual.ops.registry import Operator, Registry
from gradual.ops.signature import apply_operator, apply_signature
from gradual.shapes import Dimension, Poly, Symbol
from gradual.syntax import ast
from gradual.syntax.source import NOWHERE, Span
from gradual.types import (
    BOTTOM,
    DTYPES,
    DYN,
    DYN_DTYPE,
    ERROR,
    INT_DTYPES,
    BottomType,
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
    erase_symbols,
    format_type,
    is_ground,
    map_dims,
    map_dtypes,
    scalar,
    type_symbols,
)
from gradual.types.annotations import suggest
from gradual.types.join import join, widen
from gradual.types.unify import HintVar, Solver

MAX_ITERATIONS = 12
#: whole-module rounds a widened hint may cause before every hint is widened (`Checker.run`)
HINT_ROUNDS = 3
_NICE_NAMES = "nmkpqrstuvwxyzabcdefghij"


@dataclass
class CheckRecord:
    """A check site that can fail at runtime: a cast of `node` to `type` that elaboration
    inserts, or (`inserted` False) a written one, an annotated let or a cast, over an
    imprecise value (SPEC 5.1: every such site counts)."""

    node: ast.Node
    type: Type
    blame: Span
    reason: str
    verifies: bool
    inserted: bool = True  # False: a check the runtime makes by itself (a write through a reference)


@dataclass
class FunctionResult:
    """What checking one definition produced."""

    name: str
    node: ast.Def
    type: FuncType
    checks: list = field(default_factory=list)

    @property
    def check_count(self) -> int:
        """Check sites that verify something (binding-only casts are free): inserted casts and
        contracts, and written casts and let annotations over imprecise values (SPEC 5.1)."""
        return sum(1 for c in self.checks if c.verifies)


@dataclass
class Frame:
    """What one inference pass over a function body records."""

    types: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    instantiations: dict = field(default_factory=dict)
    #: per Dataflow (by id): (the Dataflow, each statement's type, each one's instantiation),
    #: for the statements checked without their syntax (None where it was made: `types` has it)
    dataflow: dict = field(default_factory=dict)

    def absorb(self, other: "Frame") -> None:
        """Keep a nested pass's records (its final iteration)."""
        self.types.update(other.types)
        self.checks.extend(other.checks)
        self.diagnostics.extend(other.diagnostics)
        self.instantiations.update(other.instantiations)
        self.dataflow.update(other.dataflow)


@dataclass
class DefinitionRecord:
    """Everything checking one definition produced, kept apart so a tool can reuse it when
    neither the definition nor its callees' signatures change (the language server)."""

    result: FunctionResult
    types: dict
    diagnostics: list
    instantiations: dict
    #: the type calls are checked against, where it differs from the result's (hints kept)
    call_type: Optional[FuncType] = None
    #: Frame.dataflow, final
    dataflow: dict = field(default_factory=dict)


class Env:
    """Types of local variables, and the facts runtime checks have established about them
    (so one fact of one value is checked once). A nested level (a branch, a closure body)
    starts at `mark()` and ends at `undo(mark)`, forgetting what it bound or refined; one dict
    per table serves every depth (scopes.UndoLog)."""

    __slots__ = ("types", "facts", "aliases", "loose", "log")

    def __init__(self) -> None:
        self.types: dict[int, Type] = {}
        self.facts: dict[int, frozenset] = {}  # every fact checked about a variable, in this level or outside
        #: an existential bound where the value's dim was known (`let %y: (b, 4) = ...` of a
        #: (2, 4) value) is that dim from there on: b is 2
        self.aliases: dict[Symbol, Dimension] = {}
        #: an existential bound where the value's dim was not known (`?`, `0..3`, `2..3`): it
        #: stays a symbol, but one that may equal another (site.CallSite._loose_equal); True where
        #: it may also be 1, which broadcasting must not claim (site.CallSite.loose)
        self.loose: dict[Symbol, bool] = {}
        self.log = UndoLog()

    def alias(self, sym: Symbol, dim: Dimension) -> None:
        """From here on (in this level and the ones inside it) `sym` is `dim`."""
        self.log.set(self.aliases, sym, dim)

    def loosen(self, sym: Symbol, may_be_one: bool = True) -> None:
        """From here on `sym` names a dim that a more precise program knows (and that may be 1)."""
        self.log.set(self.loose, sym, may_be_one)

    def aliased(self, t: Type) -> Type:
        """A written type with the existentials known to be a dim replaced by it."""
        aliases = self.aliases
        if not aliases or not (type_symbols(t) & aliases.keys()):
            return t

        def replace(d: Dimension) -> Dimension:
            if not d.is_symbolic or not (d.expr.symbols() & aliases.keys()):
                return d
            try:
                return Dimension.of_expr(d.expr.substitute(lambda s: aliases[s].expr if s in aliases else None))
            except ValueError:  # `b - 1` with b aliased to 0: no size; the annotation stays, and its flow says so
                return d

        return map_dims(t, replace)

    def facts_of(self, binder: Binder) -> frozenset:
        """Every fact checked about a variable here or in an enclosing level."""
        return self.facts.get(id(binder), _NO_FACTS)

    def add_fact(self, binder: Binder, fact: tuple) -> None:
        self.log.set(self.facts, id(binder), self.facts.get(id(binder), _NO_FACTS) | {fact})

    def lookup(self, binder: Binder) -> Optional[Type]:
        return self.types.get(id(binder))

    def set(self, binder: Binder, t: Type) -> None:
        self.log.set(self.types, id(binder), t)

    def mark(self) -> int:
        """The start of a nested level."""
        return self.log.mark()

    def undo(self, mark: int) -> None:
        """The end of the nested level started at `mark`."""
        self.log.undo(mark)


@dataclass
class _Pass:
    """State of one inference pass over one function (or closure)."""

    solver: Solver
    frame: Frame
    kind: str
    info: FunctionInfo
    owner: str = ""  # the definition whose body this is
    #: signature symbol -> (lo, hi) that the body checks before it can return (FuncType.requires)
    requires: dict = field(default_factory=dict)
    #: dtype variable -> the dtype classes the body's operators need of it (FuncType.dtype_requires)
    dtype_requires: dict = field(default_factory=dict)
    signature_symbols: Optional[frozenset] = None
    #: the nesting level of the env at this function's body (0 for a definition; a closure's
    #: body is one level deeper than where it is written): what is learned is kept only there
    level: int = 0
    #: the finalized records of closed closures in this definition's pass (closed_closure),
    #: one list shared by every nested pass, so no record is finalized twice
    finished: list = field(default_factory=list)


class Checker:
    """Checks a resolved module (see the module docstring)."""

    def __init__(self, resolution: Resolution, registry: Registry, record_uses: bool = False) -> None:
        self.res = resolution
        #: also record the type of each variable use (tools ask "what is `%x` here?")
        self.record_uses = record_uses
        self.records: dict[str, DefinitionRecord] = {}
        #: per call: what its signature's symbols were bound to (`k := 784`), for tools
        self.instantiations: dict[int, tuple] = {}
        self.registry = registry
        self.globals: dict[str, FuncType] = {}
        self.assumed: dict[str, FuncType] = {}
        self.results: dict[str, FunctionResult] = {}
        self.diagnostics: list[Diagnostic] = list(resolution.diagnostics)
        self.types: dict[int, Type] = {}
        #: the Dataflow statements' records (Frame.dataflow), which `publish_dataflow` puts in
        #: `types` and `instantiations` under their nodes when a tool asks for those
        self.dataflow: dict = {}
        self.widened: set = set()
        #: unannotated parameters' dims widened to `?` (a recursive call passed another value)
        self.widened_dims: set = set()
        #: a callee being checked, or a closure a let binds: not used as a value (`expr`)
        self.calling: Optional[ast.Expr] = None
        self.dim_keys: dict = {}  # each unannotated parameter's dim variable -> its key
        self.current: Optional[_Pass] = None
        self.param_vars: dict = {}
        self.param_var_set: set = set()  # param_vars' values, for membership
        self.known_calls: dict = {}
        #: every existential a body annotation or cast of the module introduces
        self.existentials: set = {s for syms in resolution.introduced.values() for s in syms}
        #: the definition each hinted parameter dim belongs to (a widening key -> name)
        self.hint_owner: dict = {}
        self.stale = False

    # module -------------------------------------------------------------------------------
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
            self.types.clear()
            self.dataflow.clear()
            self.instantiations.clear()
            self.diagnostics = list(before)

    def next_widening(self, rounds: int) -> frozenset:
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
        passes: dict[str, _Pass] = {}
        for _ in range(MAX_ITERATIONS):
            solver = Solver()
            params = {d.name: self.parameters(self.res.function(d), solver, d.name) for d in defs}
            for d in defs:
                info = self.res.function(d)
                self.assumed[d.name] = FuncType(
                    tuple(params[d.name]), returns[d.name], info.dim_params, info.dtype_params
                )
            observed = {}
            for d in defs:
                passes[d.name] = self.current = _Pass(solver, Frame(), "def", self.res.function(d), d.name)
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

    def absorb_widening(self, solver: Solver, names: set) -> bool:
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

    # functions ------------------------------------------------------------------------------
    def parameters(self, info: FunctionInfo, solver: Solver, owner: str) -> list[Type]:
        """The parameter types a pass starts from: annotations, hints, or variables to infer
        (a `?T` parameter is one too: its hint gives `T` its first guess)."""
        out = []
        for binder, annotated in zip(info.params, info.param_types):
            hint = info.hints.get(id(binder))
            if hint is not None and (id(binder), "rank") in self.widened:
                hint = None  # a call passed another rank: the guess is dropped (SPEC 3.5)
            if hint is not None and (annotated is None or isinstance(annotated, TypeVar)):
                hinted = self.hinted_type(binder, hint[1], owner)
                if annotated is not None:
                    solver.bind_type(annotated, hinted)  # other `?T` parameters share it (rebound each pass)
                out.append(hinted)
            elif annotated is not None:
                out.append(annotated)
            else:
                out.append(self._param_var(("type", id(binder)), lambda: TypeVar(binder.name)))
        return out

    def _param_var(self, key: tuple, make: Callable[[], Any]) -> Any:
        """Inference variables of a parameter are made once and kept across fixpoint
        iterations (only the solver is fresh), so assumptions carry over between them."""
        found = self.param_vars.get(key)
        if found is None:
            found = self.param_vars[key] = make()
            self.param_var_set.add(found)
        return found

    def hinted_type(self, binder: Binder, dims: tuple, owner: str) -> TensorType:
        """A parameter seeded by `can_unify`: static guesses that widen to `?` on conflict."""
        items = []
        for axis, d in enumerate(dims):
            key = (id(binder), axis)
            self.hint_owner[key] = owner
            if d.is_static and key not in self.widened:
                hint = self._param_var(("hint",) + key, lambda: HintVar(f"{binder.name}{axis}", d.get_length(), key))
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
            return self.flow(
                result,
                info.ret,
                d.body.result,
                env,
                self.return_dims(info),
                Callee("flow", f"the body of `@{d.name}`", decl_span=d.ret.span, expected=info.ret),
                insert=not _quantifies_functions(info.ret),
                blame=d.ret.span if d.ret is not None else d.span,
            )
        return result

    def return_dims(self, info: FunctionInfo) -> tuple:
        """Symbols that appear only in a return annotation: bound by the result, not the inputs."""
        from gradual.types import type_symbols

        in_params: set = set()
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

    def finish_definition(self, d: ast.Def, state: _Pass, params: list[Type], result: Type) -> None:
        """Generalize, resolve every recorded type, and publish the definition's type."""
        info = self.res.function(d)
        solver = state.solver
        finalize = _Finalizer(solver, info)
        # an unannotated parameter unified with an existential of the body must not take it
        # with it: callers cannot know it (it is bound inside, from the parameter itself)
        param_types = [erase_symbols(finalize.generalize(t), self.existentials) for t in params]
        ret_type = finalize.type(info.ret if info.ret is not None else erase_symbols(result, set()))
        requires = tuple((sym, lo, hi) for sym, (lo, hi) in state.requires.items())
        dtype_params = info.dtype_params + finalize.new_dtypes()
        dtype_requires = _dtype_requires(state.dtype_requires, finalize, dtype_params)
        fn_type = FuncType(
            tuple(param_types), ret_type, info.dim_params + finalize.new_dims(), dtype_params, requires, dtype_requires
        )
        frame = state.frame
        types = _finalized_by_identity(frame.types, finalize.type)
        checks = [
            CheckRecord(c.node, finalize.type(c.type), c.blame, c.reason, c.verifies, c.inserted) for c in frame.checks
        ]
        instantiations = _finalized_by_identity(
            frame.instantiations, lambda found: _finalize_instantiation(found, finalize)
        )
        dataflow = _finalized_dataflow(frame.dataflow, finalize)
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

    def call_type(self, fn_type: FuncType, finalize: "_Finalizer", params: list[Type]) -> FuncType:
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
        return _final_type(t, solver, keep_hints)

    # bodies and statements --------------------------------------------------------------------
    def report(self, diag: Diagnostic) -> None:
        assert self.current is not None
        self.current.frame.diagnostics.append(diag)

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
        recorded by position; any other is made into syntax and checked as the let it is."""
        binders, uses = self.res.dataflow[id(flow)]
        types, log = env.types, env.log
        recorded: list = [None] * len(flow)
        instantiations: list = [None] * len(flow)
        self.current.frame.dataflow[id(flow)] = (flow, recorded, instantiations)  # type: ignore[union-attr]
        quick = self.quick_outcome if not self.record_uses else None
        attributed = flow.attrs
        for i, op in enumerate(flow.ops):
            if quick is None:
                outcome = None
            else:
                outcome = quick(op, uses[i], env, attributed.get(i, ()) if attributed else ())
            if outcome is None:
                self.let(self.res.publish(flow, i), env)
                continue
            recorded[i] = t = outcome.result
            if outcome.instantiation:
                instantiations[i] = outcome.instantiation
            log.set(types, id(binders[i]), t)  # logged only inside a nested level

    def quick_outcome(self, name: str, binders: list, env: Env, attr_nodes: tuple) -> Optional[SiteOutcome]:
        """The outcome of `name(binders..., attr_nodes...)`, its bounds learned, when an
        earlier call's outcome holds for it and has nothing of its own (no cast, refinement or
        fact: `call_operator`'s memo); else None (the call must be checked as syntax)."""
        op = self.registry.ops.get(name)
        if op is None or len(binders) != len(op.signature.params) or name in ast.REF_FORMS:
            return None
        attrs = attribute_values(op, attr_nodes, NOWHERE, _unreported) if attr_nodes else op.defaults()
        if attrs is None:
            return None
        types = env.types
        arg_types = []
        for binder in binders:
            t = types.get(id(binder)) if binder is not None else None
            if t is None:
                return None
            if t.__class__ is TypeVar:
                t = self.current.solver.resolve_type(t)  # type: ignore[union-attr]
            arg_types.append(t)
        key = _call_key(op, attrs, arg_types, binders, env)
        if key is None:
            return None
        try:
            cached = self.known_calls.get(key)
        except TypeError:
            return None
        if cached is None or not cached.shared:
            return None
        if cached.learned:
            self.learn(cached.learned, env)
        return cached

    def quick_call(self, e: ast.Call, env: Env) -> Optional[Type]:
        """A call of an operator with no attributes on variables, checked by `quick_outcome`
        and recorded as `call` records it; None where `call` must check it."""
        uses = self.res.uses
        binders = []
        for a in e.args:
            if a.__class__ is not ast.Var:
                return None
            binders.append(uses.get(id(a)))
        outcome = self.quick_outcome(e.callee.name, binders, env, e.attrs)  # type: ignore[attr-defined]
        if outcome is None:
            return None
        frame = self.current.frame  # type: ignore[union-attr]
        frame.types[id(e.callee)] = DYN
        if outcome.instantiation:
            frame.instantiations[id(e)] = outcome.instantiation
        return outcome.result

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

    # expressions ----------------------------------------------------------------------------
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
            for d in _tensor_dims(p)
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
        if isinstance(e, ast.OpRef):
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

    # calls ----------------------------------------------------------------------------------
    def call(self, e: ast.Call, env: Env) -> Type:
        callee = e.callee
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
            self.report(messages.unknown_attribute(e.attrs[0].span, _callee_text(callee), e.attrs[0].name, [], None))
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

    def call_value(self, e: ast.Call, fn_type: Type, name: str, arg_types: list, env: Env) -> Type:
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

    def arguments(self, args: tuple, env: Env) -> tuple:
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

    def reread_variables(self, args: tuple, arg_types: list, env: Env) -> None:
        """A variable argument before a compound one is read again once that one is typed: a
        check in it (`f(%v, g(%v))`, `g` checking `%v` is a tensor) refined the variable, and
        every argument is evaluated before the call runs, so the call needs no check of that
        fact again (SPEC 3.8: once per value and fact). What a branch or a closure body inside
        the argument refined stays there (their levels are undone). The variable's own
        occurrence keeps the type it had where it is read (before that check runs)."""
        last = max((i for i, a in enumerate(args) if a.__class__ is not ast.Var), default=-1)
        for i in range(last):
            if args[i].__class__ is ast.Var:
                arg_types[i] = self.var_type(args[i], env)

    def call_operator(self, e: ast.Call, op: Operator, arg_types: list, binders: list, env: Env) -> Type:
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
        outcome = site.run(lambda ctx: apply_operator(ctx, op))
        if key is not None and not outcome.failed:
            self.known_calls[key] = outcome
        return self.commit(outcome, env, e)

    def call_function(
        self, e: ast.Call, fn: FuncType, desc: Callee, arg_types: list, env: Env, recursive: bool = False
    ) -> Type:
        if len(arg_types) != len(fn.params):
            self.report(messages.wrong_arity(e.span, desc.display, len(fn.params), len(arg_types), desc.signature))
            return ERROR
        resolved = _deep_resolve(fn, self.current.solver)  # type: ignore[union-attr]
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
        if _holds_function(resolved.ret) and _loses_function_dims(
            resolved.ret, self.current.solver.resolve_type(result), self.param_var_set
        ):  # type: ignore[union-attr]
            # the function this call returns was made for sizes (dtypes) the caller sees as `?`:
            # its contract, made here, is the check site a call of it with other sizes stops at
            self.current.frame.checks.append(
                CheckRecord(  # type: ignore[union-attr]
                    e, _unquantified(result), e.span, messages.returned_function_reason(desc.display, e.span), True
                )
            )
        return result

    def site(self, callee: Callee, nodes: tuple, types: list, attrs: dict, span: Span, env: Env) -> CallSite:
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
            state.frame.checks.append(CheckRecord(cast.node, cast.type, cast.node.span, cast.reason, cast.verifies))
        for _, binder, refined in outcome.refinements:
            env.set(binder, refined)
        for _, binder, fact in outcome.facts:
            env.add_fact(binder, fact)
        self.learn(outcome.learned, env)
        return outcome.result

    def learn(self, learned: list, env: Env) -> None:
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
        introduced: tuple,
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
                checks.append(CheckRecord(cast.node, cast.type, blame, cast.reason, cast.verifies))
        elif any(cast.verifies for cast in outcome.casts):  # the written annotation is the check
            checks.append(CheckRecord(node, target, blame, callee.name, True, inserted=False))
        if outcome.failed:
            return ERROR if not isinstance(target, TensorType) else target
        for _, binder, fact in outcome.facts:  # what the cast checked holds of the variable from here on
            env.add_fact(binder, fact)
        dynamic = isinstance(actual, DynType)
        if not (dynamic and actual.from_error):  # type: ignore[union-attr]
            # what a variable passed it is from here on: a `?` a tensor, a tensor the dims it was
            # checked to have (the elaborated program writes an inserted check so, and a later
            # annotation relies on what the check refined); a reference keeps its own type
            for _, binder, refined in outcome.refinements:
                if dynamic or isinstance(refined, TensorType):
                    env.set(binder, refined)
        return meet(target, self.final_type(actual, self.current.solver))  # type: ignore[union-attr]

    def bind_existentials(self, introduced: tuple, site: CallSite, target: Type, env: Env) -> Type:
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

    # closures ---------------------------------------------------------------------------------
    def closure(self, fn: ast.Fn, env: Env) -> Type:
        info = self.res.function(fn)
        outer = self.current
        assert outer is not None
        if info.closed and any(t is None for t in info.param_types):
            return self.closed_closure(fn, info, env)
        # one pass over the body: it records straight into the definer's frame (absorbing a
        # frame per closure would copy every nested closure's records once per level)
        state = self.current = _Pass(outer.solver, outer.frame, "closure", info, outer.owner, finished=outer.finished)
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
        params: list,
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
                self.flow(
                    result,
                    info.ret,
                    fn.body.result,
                    env,
                    self.return_dims(info),
                    Callee("flow", "the body of this closure", decl_span=fn.ret.span, expected=info.ret),
                    insert=not _quantifies_functions(info.ret),
                    blame=fn.ret.span,
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
        state = self.current = _Pass(solver, Frame(), "def", info, outer.owner, finished=outer.finished)
        try:
            params = [env.aliased(t) for t in self.parameters(info, solver, outer.owner)]
            result = self.closure_body(fn, info, params, env)
        finally:
            self.current = outer
        # hints to widen that its calls found belong to the definer's fixpoint (absorb_widening)
        outer.solver.widen |= solver.widen
        outer.solver.widen_params |= solver.widen_params
        outer.solver.widen_ranks |= solver.widen_ranks
        finalize = _Finalizer(solver, info)
        # a hinted parameter dim stays its guess for the calls (as a definition's `call_type`):
        # a call passing another size widens the hint instead of failing against it (SPEC 3.5)
        finalize.keep_hints = True
        try:
            param_types = [erase_symbols(finalize.generalize(t), self.existentials) for t in params]
        finally:
            finalize.keep_hints = False
        ret_type = finalize.type(result)
        dtype_params = info.dtype_params + finalize.new_dtypes()
        dtype_requires = _dtype_requires(state.dtype_requires, finalize, dtype_params)
        frame = state.frame
        outer.finished.append(
            Frame(
                _finalized_by_identity(frame.types, finalize.type),
                [
                    CheckRecord(c.node, finalize.type(c.type), c.blame, c.reason, c.verifies, c.inserted)
                    for c in frame.checks
                ],
                frame.diagnostics,
                _finalized_by_identity(frame.instantiations, lambda found: _finalize_instantiation(found, finalize)),
                _finalized_dataflow(frame.dataflow, finalize),
            )
        )
        return FuncType(
            tuple(param_types), ret_type, info.dim_params + finalize.new_dims(), dtype_params, (), dtype_requires
        )

    def closure_type(self, info: FunctionInfo, params: list, result: Type, state: _Pass) -> FuncType:
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
        return FuncType(ps, solver.resolve_type(result), info.dim_params, (), (), needs)

    def recursive_closure(self, fn: ast.Fn, binder: Binder, env: Env) -> Type:
        """A `let %f = fn ...` that calls `%f`: solved to a fixpoint like a recursive definition."""
        info = self.res.function(fn)
        outer = self.current
        assert outer is not None
        ret: Type = env.aliased(info.ret) if info.ret is not None else BOTTOM
        final: Optional[_Pass] = None
        result_type: Type = DYN
        finished_mark = len(outer.finished)
        for _ in range(MAX_ITERATIONS):
            del outer.finished[finished_mark:]  # closed closures of an earlier iteration
            state = self.current = _Pass(outer.solver, Frame(), "closure", info, outer.owner, finished=outer.finished)
            params = [env.aliased(t) for t in self.parameters(info, outer.solver, outer.owner)]
            self_type = FuncType(tuple(params), ret, info.dim_params, ())
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


_NO_FACTS: frozenset = frozenset()
_UNRECORDED = (ast.Var, ast.Literal, ast.OpRef, ast.GlobalVar)


def _as_value(fn: Optional[FuncType]) -> Optional[FuncType]:
    """A definition's type where it is a value (`%f = @h`, `(@h, %x)`, `ref(@h)`, an argument):
    the type itself, with what its body was learned to check (`FuncType.requires`, the bounds
    on its signature symbols, and `dtype_requires`, the dtype classes its operators need):
    whatever holds the value holds that definition, so a call through it fails where a call of
    `@h` would. Where another function of the type may take its place, a join or a cell forgets
    them (join.py, references.py). Outside pass 9 found `%f = @h; %f(%x)` clean where `@h(%x)`
    was a static error (an integer-only `@h` given a float32, a bound `m >= 1` given a 0)."""
    return fn


def _call_key(op: Operator, attrs: dict, arg_types: list, binders: list, env: Env) -> Optional[tuple]:
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
            closed = _is_closed(t)
        if not closed:
            return None
    # each argument: -1, or the first argument that is the same variable (binders compare by identity)
    sharing = tuple([-1 if b is None else binders.index(b) for b in binders])
    if env.loose and any(type_symbols(t) & env.loose.keys() for t in arg_types):
        return None  # how it broadcasts depends on more than the types
    known = env.facts
    if known:
        facts = tuple([_NO_FACTS if b is None else known.get(id(b), _NO_FACTS) for b in binders])
    else:  # no check has established anything yet (most programs, most of the time)
        facts = (_NO_FACTS,) * len(binders)
    # attributes in the order check_attributes gives them (a different order only misses the memo)
    attr_key = tuple([(k, _freeze(v)) for k, v in attrs.items()]) if attrs else ()
    return (op.name, attr_key, tuple(arg_types), sharing, facts)


def _reuse(cached: SiteOutcome, op: Operator, nodes: tuple, binders: list) -> SiteOutcome:
    """A cached outcome for this call's own argument nodes and variables, with fresh names for
    the symbols its casts bind (two calls must never share a runtime binding)."""
    if cached.shared:
        return cached
    fresh = {old: Symbol(old.name, old.lo, old.hi) for old in cached.binders}
    casts = []
    for cast in cached.casts:
        node = nodes[cast.arg]
        pattern = _rename_symbols(cast.type, fresh) if fresh else cast.type
        pattern = _rename_runs(pattern, fresh) if fresh else pattern
        reason = messages.operator_cast_reason(op.name, cast.arg, node.span)
        casts.append(CastPattern(cast.arg, node, pattern, cast.verifies, cast.binds, reason))
    refinements = [(i, binders[i], t) for i, _, t in cached.refinements]
    facts = [(i, binders[i], _refer_to(fact, cached.facts, binders)) for i, _, fact in cached.facts]
    return SiteOutcome(
        cached.result, casts, refinements, facts, False, list(fresh.values()), cached.instantiation, cached.learned
    )


def _finalized_by_identity(table: dict, finalize: Callable[[Any], Any]) -> dict:
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


def _finalized_distinct(values: Any, finalize: Callable[[Any], Any]) -> Optional[dict]:
    """Each distinct value object (None apart) finalized once, by identity; None when that
    changes none of them."""
    distinct = dict(zip(map(id, values), values))
    distinct.pop(id(None), None)
    done = {ident: finalize(value) for ident, value in distinct.items()}
    if all(done[ident] is value for ident, value in distinct.items()):
        return None
    done[id(None)] = None
    return done


def _finalized_dataflow(table: dict, finalize: "_Finalizer") -> dict:
    """Frame.dataflow with its types and instantiations resolved, each distinct one once over
    all the Dataflows (as _finalized_by_identity does): a body may hold many short ones."""
    records = table.values()
    types_done = _finalized_distinct(list(chain.from_iterable(r[1] for r in records)), finalize.type)
    found_done = _finalized_distinct(
        list(chain.from_iterable(r[2] for r in records)), lambda inst: _finalize_instantiation(inst, finalize)
    )
    return {
        key: (flow, _mapped_list(types, types_done), _mapped_list(found, found_done))
        for key, (flow, types, found) in table.items()
    }


def _mapped_list(values: list, done: Optional[dict]) -> list:
    """`values` with each replaced by its finalized value in `done` (by identity; the list
    itself when `done` is None: nothing changed)."""
    return values if done is None else list(map(done.__getitem__, map(id, values)))


def publish_dataflow(resolution: Resolution, types: dict, instantiations: dict, dataflow: dict) -> None:
    """Record every Dataflow statement checked without its syntax as a let checked with it
    would be: its nodes made, their binders in `resolution`, their types and instantiation
    in `types` and `instantiations`. Then tools may walk the module's plain lets."""
    for flow, recorded, found in dataflow.values():
        for i, t in enumerate(recorded):
            let = resolution.publish(flow, i)
            if t is None:
                continue  # made and recorded while checking
            call = let.value
            types[id(let)] = types[id(call)] = t
            types[id(call.callee)] = DYN  # type: ignore[attr-defined]
            inst = found[i]
            if inst:
                instantiations[id(call)] = inst


def _finalize_instantiation(found: tuple, finalize: "_Finalizer") -> tuple:
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


def _refer_to(fact: tuple, cached_facts: list, binders: list) -> tuple:
    """A cached equality fact naming this call's variable where the cached call had its own."""
    if fact[0] != "equal":
        return fact
    partner = next((i for i, b, _ in cached_facts if id(b) == fact[3]), None)
    return fact if partner is None else fact[:3] + (id(binders[partner]),) + fact[4:]


def _rename_symbols(t: Type, mapping: dict) -> Type:
    polys = {old: Poly.atom(new) for old, new in mapping.items()}

    def rename(d: Dimension) -> Dimension:
        if d.is_symbolic and d.symbols() & mapping.keys():
            return Dimension.of_expr(d.expr.substitute(lambda s: polys.get(s)))
        return d

    return map_dims(t, rename)


def _rename_runs(t: Type, mapping: dict) -> Type:
    """The type with each `*r` run of dims whose symbol the mapping names renamed (a rank
    pattern's run binds at runtime, like a dim's binder)."""
    if isinstance(t, TupleType):
        return TupleType(tuple(_rename_runs(f, mapping) for f in t.fields))
    if not isinstance(t, TensorType) or t.dims is None:
        return t
    if not any(isinstance(d, Variadic) and d.symbol in mapping for d in t.dims):
        return t
    dims = tuple(Variadic(mapping[d.symbol]) if isinstance(d, Variadic) and d.symbol in mapping else d for d in t.dims)
    return TensorType(dims, t.dtype, t.value)


def _freeze(value: Any) -> Any:
    return tuple(value) if value.__class__ is list else value


def _is_closed(t: Type) -> bool:
    """No inference variable in a tensor or a tuple of tensors (`?` dims, intervals, rigid
    symbols and dtypes are fine); remembered by each type, which are shared and asked about at
    every call."""
    if isinstance(t, TensorType):
        return is_ground(t)
    if isinstance(t, TupleType):
        return all(_is_closed(f) for f in t.fields)
    return False


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


def _callee_text(callee: ast.Expr) -> str:
    if isinstance(callee, ast.GlobalVar):
        return f"@{callee.name}"
    if isinstance(callee, ast.Var):
        return f"%{callee.name}"
    return "this function"


def _deep_resolve(t: Type, solver: Solver) -> Type:
    """Replace bound type variables everywhere inside a type."""
    t = solver.resolve_type(t)
    if isinstance(t, TupleType):
        return TupleType(tuple(_deep_resolve(f, solver) for f in t.fields))
    if isinstance(t, FuncType):
        return t.with_parts(tuple(_deep_resolve(p, solver) for p in t.params), _deep_resolve(t.ret, solver))
    if isinstance(t, TensorType):
        dtype = solver.resolve_dtype(t.dtype)
        return t if dtype is t.dtype else TensorType(t.dims, dtype, t.value)
    if isinstance(t, RefType):
        return RefType(_deep_resolve(t.content, solver))
    return t


def _final_type(t: Type, solver: Solver, keep_hints: bool = False) -> Type:
    t = solver.resolve_type(t)
    if is_ground(t):
        return t
    if isinstance(t, TupleType):
        fields = tuple(_final_type(f, solver, keep_hints) for f in t.fields)
        return t if _same_items(fields, t.fields) else TupleType(fields)
    if isinstance(t, FuncType):
        params = tuple(_final_type(p, solver, keep_hints) for p in t.params)
        ret = _final_type(t.ret, solver, keep_hints)
        return t if ret is t.ret and _same_items(params, t.params) else t.with_parts(params, ret)
    if isinstance(t, TensorType):
        dtype = solver.resolve_dtype(t.dtype)
        t = t if dtype is t.dtype else TensorType(t.dims, dtype, t.value)
        return map_dims(t, lambda d: solver.resolve(d, final=True, keep_hints=keep_hints))
    if isinstance(t, RefType):
        content = _final_type(t.content, solver, keep_hints)
        return t if content is t.content else RefType(content)
    return t


def _same_items(new: tuple, old: tuple) -> bool:
    return all(a is b for a, b in zip(new, old))


class _Finalizer:
    """Resolves recorded types at the end of a definition and generalizes its free variables."""

    def __init__(self, solver: Solver, info: FunctionInfo) -> None:
        self.solver = solver
        self.taken = {s.name for s in info.dim_params}
        self.dtype_taken = {v.name for v in info.dtype_params}
        self.dims: dict[DimVar, Symbol] = {}
        self.dtypes: dict[DTypeVar, DTypeVar] = {}
        self.generalizing = False
        self.keep_hints = False
        self.done: dict = {}  # recorded types repeat a lot: finalize each distinct one once

    def generalize(self, t: Type) -> Type:
        """A parameter type with free inference variables turned into the definition's own."""
        self.generalizing = True
        try:
            return self.type(t)
        finally:
            self.generalizing = False

    def new_dims(self) -> tuple:
        return tuple(self.dims.values())

    def new_dtypes(self) -> tuple:
        return tuple(self.dtypes.values())

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
            return DYN
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
        t = _deep_resolve(t, self.solver)
        t = map_dims(t, self.dim)
        return map_dtypes(t, self.dtype)

    def _part(self, t: Type) -> Type:
        """A field, parameter or result inside a type: finalized once per distinct type (a
        type n deep is made of n parts); a type variable still unknown stays one."""
        t = self.solver.resolve_type(t)
        return t if isinstance(t, TypeVar) else self.type(t)

    def dim(self, d: Dimension) -> Dimension:
        d = self.solver.resolve(d, final=True, keep_hints=self.keep_hints)
        free = [s for s in d.symbols() if isinstance(s, DimVar) and not isinstance(s, HintVar)]
        if not free:
            return d
        mapping = {}
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


def _fresh(preferred: str, prefix: str, taken: set) -> str:
    """The first preferred one-letter name not taken, else prefix + a number; marks it taken."""
    name = next((c for c in preferred if c not in taken), None)
    if name is None:
        name = f"{prefix}{len(taken)}"
        while name in taken:
            name += "_"
    taken.add(name)
    return name


# attributes ---------------------------------------------------------------------------------
def check_attributes(op: Operator, call: ast.Call, report: Callable[[Diagnostic], None]) -> Optional[dict]:
    """Validate a call's attributes against the declaration; returns name -> value with
    defaults filled in, or None after reporting a problem."""
    return attribute_values(op, call.attrs, call.span, report)


def _unreported(diag: Diagnostic) -> None:
    """A `report` for attributes checked ahead (`quick_outcome`): a problem makes the call
    checked as syntax, which reports it."""


def attribute_values(op: Operator, attrs: tuple, span: Span, report: Callable[[Diagnostic], None]) -> Optional[dict]:
    """`check_attributes` of the Attr nodes `attrs` of a call at `span`."""
    if not attrs:
        defaults = op.defaults()
        if defaults is not None:
            return defaults  # shared: nothing downstream changes a call's attributes
    values: dict[str, Any] = {}
    ok = True
    for attr in attrs:
        spec = op.attrs.get(attr.name)
        if spec is None:
            report(
                messages.unknown_attribute(attr.span, op.name, attr.name, list(op.attrs), suggest(attr.name, op.attrs))
            )
            ok = False
            continue
        value = _attr_python(attr.value)
        problem = kind_problem(spec, value)
        if problem is not None:
            if spec.kind == "dtype" and isinstance(value, str) and value and value not in DTYPES:
                report(messages.unknown_dtype(attr.span, value, suggest(value, DTYPES)))
            else:
                expected = (
                    spec.describe()
                    if problem != "int64"
                    else ("a list of ints from -2^63 to 2^63 - 1" if spec.is_list else "an int from -2^63 to 2^63 - 1")
                )
                report(messages.bad_attribute(attr.span, op.name, attr.name, expected, _describe_value(value)))
            ok = False
            continue
        needed = domain_problem(op.name, attr.name, value)
        if needed is not None:
            report(messages.bad_attribute(attr.span, op.name, attr.name, needed, _describe_value(value)))
            ok = False
            continue
        if spec.is_list and value is not None and not isinstance(value, tuple):
            value = (value,)
        values[attr.name] = value
    for name, spec in op.attrs.items():
        if name not in values:
            if spec.has_default:
                values[name] = spec.default
            elif ok:
                report(messages.missing_attribute(span, op.name, name, spec.describe()))
                ok = False
    return values if ok else None


def _attr_python(value: Any) -> Any:
    cls = value.__class__
    if cls is ast.AttrSeq:
        return tuple([_attr_python(v) if v.__class__ in _ATTR_NODES else v for v in value.items])
    if cls is ast.Ident:
        return value.name
    return value


_ATTR_NODES = frozenset({ast.Ident, ast.AttrSeq})


def _describe_value(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_describe_value(v) for v in value) + "]"
    return str(value)


def check_module(resolution: Resolution, registry: Registry) -> Checker:
    """Run inference over a resolved module."""
    checker = Checker(resolution, registry)
    checker.run()
    return checker


def _holds_function(t: Type) -> bool:
    """Whether a type is a function type or a tuple holding one."""
    pending = [t]
    while pending:
        t = pending.pop()
        if isinstance(t, FuncType):
            return True
        if isinstance(t, TupleType):
            pending.extend(t.fields)
    return False


def _loses_function_dims(declared: Type, result: Type, inferred: Union[set, frozenset]) -> bool:
    """Whether a call's result holds a function whose declared type states a dim (a dtype)
    that the caller's type of it leaves imprecise (`?`, an interval): a callee's symbol bound
    from a `?` argument. The function itself keeps the size it was made with and rejects other
    arguments, which the caller's type lets through. A dim made only of the function type's
    own symbols is bound afresh at each of its calls and loses nothing, and so does a dtype
    that is the caller's own parameter's, still being inferred (`inferred`)."""
    if isinstance(declared, TupleType) and isinstance(result, TupleType):
        return any(_loses_function_dims(d, r, inferred) for d, r in zip(declared.fields, result.fields))
    if isinstance(declared, FuncType) and isinstance(result, FuncType):
        own = frozenset(declared.dim_params)
        pairs = list(zip(declared.params, result.params)) + [(declared.ret, result.ret)]
        return any(_imprecise_part(d, r, own, inferred) for d, r in pairs)
    return False


def _imprecise_part(declared: Type, result: Type, own: frozenset, inferred: Union[set, frozenset]) -> bool:
    """`_loses_function_dims` inside a function type: a tensor dim or dtype that is stated in
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


def _unquantified(t: Type) -> Type:
    """A type to cast to, with each function type's own symbols (bound afresh at each call)
    written `?`: a cast's names are existentials, bound once (design.md)."""
    if isinstance(t, TupleType):
        return TupleType(tuple(_unquantified(f) for f in t.fields))
    if isinstance(t, FuncType):
        inner = FuncType(tuple(_unquantified(p) for p in t.params), _unquantified(t.ret))
        return erase_symbols(inner, set(t.dim_params)) if t.dim_params else inner
    return t


def _dtype_requires(found: dict, finalize: "_Finalizer", dtype_params: tuple) -> tuple:
    """The dtype classes a definition's body needs of its own dtype variables, `(T, class)`,
    in a stable order: a written `T` stays itself, an inferred one becomes the generalized
    variable it was finalized to; other variables (a `?` argument's) are not the caller's to
    bind."""
    out = set()
    for var, classes in found.items():
        final = finalize.dtype(var)
        if isinstance(final, DTypeVar) and final in dtype_params:
            out |= {(final, cls) for cls in classes}
    return tuple(sorted(out, key=lambda pair: (pair[0].name, pair[1])))


def _quantifies_functions(t: Type) -> bool:
    """Whether a return type holds a function type with names of its own (bound at each call
    of that function, `fn (Tensor[(n,)]) -> Tensor[(n,)]`): no cast can restate it (a cast's
    names are its existentials, bound once), so the written annotation is the check, as a
    let's is (the runtime checks the return against it)."""
    if isinstance(t, FuncType):
        return (
            bool(t.dim_params or t.dtype_params)
            or any(_quantifies_functions(p) for p in t.params)
            or _quantifies_functions(t.ret)
        )
    if isinstance(t, TupleType):
        return any(_quantifies_functions(f) for f in t.fields)
    return False


def _tensor_dims(t: Type) -> tuple:
    """The dims of a tensor type, or of the tensors in a tuple type (for hints)."""
    if isinstance(t, TensorType):
        return t.dims or ()
    if isinstance(t, TupleType):
        return tuple(d for f in t.fields for d in _tensor_dims(f))
    return ()


def known_condition(t: Type) -> Optional[bool]:
    """The value of an `if` condition whose one element the checker knows (TorchScript's
    `If(Size(Shape(x)) == 0)`, the rank of a tensor of known rank), else None."""
    if not isinstance(t, TensorType) or t.value is None or len(t.value) != 1:
        return None
    element = t.value[0]
    if isinstance(element, Dimension):
        element = element.get_length() if element.is_static else None
    return bool(element) if isinstance(element, int) else None
