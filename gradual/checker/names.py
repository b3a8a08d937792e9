"""Name resolution: which binder each `%x` means, which definition each `@f`, which symbol each
dimension name; type annotations converted to types; definitions ordered callees-first.

Scoping of dimension names (spec §2): names in a definition's signature are universally
quantified over it (likewise a closure's parameter types, over the closure); a name first seen
in a body annotation or a cast is existential, bound at runtime there and in scope for the rest
of that body. `let %f = fn ...` may call `%f` inside the closure (recursion, as in Relay).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Collection, Container, Optional, Union

from gradual.checker import adt_messages, messages
from gradual.checker.adt_names import declare_types, dtype_names, pattern_ctors, pattern_vars
from gradual.diagnostics import Diagnostic
from gradual.infra.scopes import UndoLog
from gradual.ops import messages as ops_messages
from gradual.shapes import Dimension, Symbol
from gradual.syntax import ast
from gradual.syntax.printer import format_attr_value
from gradual.syntax.source import Span
from gradual.types import DTypeVar, Type, TypeParam
from gradual.types.annotations import Converter, DimScope, TypeScope, quantify_result_functions, suggest


@dataclass(eq=False, slots=True)
class Binder:
    """A place that introduces a local variable: a parameter or a let."""

    name: str
    span: Span
    kind: str
    node: object
    level: int = 0  # how many closures enclose it (a use from deeper in captures it)

    def __repr__(self) -> str:
        return f"%{self.name}"


class DataflowBinder(Binder):
    """The binder of a Dataflow statement: its span and its Let are found when asked."""

    __slots__ = ("flow", "index")
    kind = "let"  # every one's (a class attribute: one store fewer per statement)

    def __init__(self, name: str, level: int, flow: ast.Dataflow, index: int) -> None:
        self.name = name
        self.level = level
        self.flow = flow
        self.index = index

    @property
    def span(self) -> Span:  # type: ignore[override]  # Binder.span
        return self.flow.line(self.index)

    @property
    def node(self) -> ast.Let:  # type: ignore[override]  # Binder.node
        return self.flow.let(self.index)


@dataclass(eq=False)
class FunctionInfo:
    """What names resolution knows about a definition or closure."""

    node: Union[ast.Def, ast.Fn]
    params: list[Binder]
    param_types: list[Optional[Type]]
    ret: Optional[Type]
    dim_params: tuple[Symbol, ...]
    dtype_params: tuple[DTypeVar, ...]
    #: a hinted parameter's binder (by id) -> (the binder, the hint's dims, the hint)
    hints: dict[int, tuple[Binder, tuple[Dimension, ...], ast.Hint]] = field(default_factory=dict)
    name: str = ""
    written: list[Symbol] = field(default_factory=list)  # (definitions) every symbol written inside
    closed: bool = False  # (closures) it uses no variable bound outside it
    type_params: tuple[TypeParam, ...] = ()  # TypeParams it is polymorphic in (`def @map[A, B]`, `fn [A]`)


@dataclass
class Resolution:
    """The result of name resolution, keyed by AST node identity."""

    module: ast.Module[ast.Def]
    defs: dict[str, ast.Def] = field(default_factory=dict)
    uses: dict[int, Binder] = field(default_factory=dict)
    binders: dict[int, Binder] = field(default_factory=dict)
    annotations: dict[int, Type] = field(default_factory=dict)
    introduced: dict[int, tuple[Symbol, ...]] = field(default_factory=dict)
    functions: dict[int, FunctionInfo] = field(default_factory=dict)
    body_scopes: dict[int, tuple[Symbol, ...]] = field(default_factory=dict)
    recursive: set[int] = field(default_factory=set)
    calls: dict[str, set[str]] = field(default_factory=dict)
    order: list[list[str]] = field(default_factory=list)  # callee_first: components, callees first
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: per Dataflow (by id): each statement's binder, and the binders of all its statements'
    #: arguments in one list, statement after statement (None where a name is unknown), for
    #: its statements whose nodes are not made (`publish`)
    dataflow: dict[int, tuple[list[Binder], list[Optional[Binder]]]] = field(default_factory=dict)
    #: per Dataflow (by id): where each statement's arguments begin in its flat list (`dataflow_starts`)
    dataflow_offsets: dict[int, tuple[ast.Dataflow, list[int]]] = field(default_factory=dict)
    #: the module's algebraic data types and constructors by name (adt_names.AdtDef, CtorInfo)
    adts: dict[str, Any] = field(default_factory=dict)
    ctors: dict[str, Any] = field(default_factory=dict)

    def binder_of(self, node: object) -> Optional[Binder]:
        """The binder a Var use refers to (or that a Param/Let introduces)."""
        return self.uses.get(id(node)) or self.binders.get(id(node))

    def function(self, node: object) -> FunctionInfo:
        """The FunctionInfo of a Def or Fn."""
        return self.functions[id(node)]

    def publish(self, flow: ast.Dataflow, index: int) -> ast.Let:
        """Statement `index` of a Dataflow as syntax, its binder and its variables' binders
        recorded under its nodes as for any let."""
        let = flow.let(index)
        binders, uses = self.dataflow[id(flow)]
        self.binders[id(let)] = binders[index]
        call = let.value
        assert isinstance(call, ast.Call), "a Dataflow statement is an operator call"
        start = self.dataflow_starts(flow)[index]
        for var, binder in zip(call.args, uses[start : start + len(flow.args[index])]):
            if binder is not None:
                self.uses[id(var)] = binder
        return let

    def dataflow_starts(self, flow: ast.Dataflow) -> list[int]:
        """Where each statement's arguments begin in the Dataflow's flat list of argument
        binders (`dataflow`), worked out once per Dataflow when first asked."""
        found = self.dataflow_offsets.get(id(flow))
        if found is None or found[0] is not flow:  # (the flow is held: its id is not another's)
            found = self.dataflow_offsets[id(flow)] = (flow, list(accumulate(map(len, flow.args), initial=0)))
        return found[1]

    _TABLES = ("uses", "binders", "annotations", "introduced", "functions", "body_scopes", "calls", "dataflow")

    def absorb(self, part: "Resolution") -> None:
        """Add what `resolve_definition` found for one definition (order is not recomputed)."""
        for table in self._TABLES:
            getattr(self, table).update(getattr(part, table))
        self.recursive |= part.recursive
        self.diagnostics.extend(part.diagnostics)

    def forget(self, part: "Resolution") -> None:
        """Remove what `absorb` added for a definition that changed (its diagnostics are the
        caller's to drop: they are kept per definition)."""
        for table in self._TABLES:
            mine = getattr(self, table)
            for key in getattr(part, table):
                mine.pop(key, None)
        self.recursive -= part.recursive


class _Resolver:
    def __init__(
        self, module: ast.Module[ast.Def], operators: Container[str], operator_names: Optional[list[str]]
    ) -> None:
        self.res = Resolution(module)
        # a registry's own table: asked at every call, a dict answers without a Python call
        self.operators = getattr(operators, "ops", operators)
        self.operator_names = operator_names
        self.current_def: Optional[str] = None
        self.def_info: Optional[FunctionInfo] = None
        self.watched: dict[int, bool] = {}  # closures bound by `let`: do they call themselves?
        self.vars: dict[str, Binder] = {}  # the variables in scope where the walk is
        # how to forget a nested level's variables when it ends; a definition's own two levels
        # (parameters, body) end with it, and `definition` drops the variables whole
        self.log = UndoLog(unlogged=2)
        # per closure being walked, the lowest level of a variable used inside it (Binder.level)
        self.captured: list[int] = []

    @property
    def adt_arities(self) -> dict[str, int]:
        """The module's type names and their numbers of type parameters (annotations read them)."""
        found = self.__dict__.get("_arities")
        if found is None or found[0] is not self.res.adts:
            found = self.__dict__["_arities"] = (self.res.adts, {n: len(a.params) for n, a in self.res.adts.items()})
        return found[1]

    # reporting ----------------------------------------------------------------------------
    def report(self, diag: Diagnostic) -> None:
        self.res.diagnostics.append(diag)

    def _check_claimed(self, node: ast.Def, introduced: list[Symbol]) -> None:
        """A `claimed=[...]` function attribute lists dim names of the signature, as strings."""
        names = {sym.name for sym in introduced}
        for attr in node.attrs:
            if attr.name != ast.CLAIMED:
                continue
            items = attr.value.items if isinstance(attr.value, ast.AttrSeq) else None
            if items is None or not all(isinstance(v, str) for v in items):
                self.report(
                    ops_messages.bad_attribute(
                        attr.span,
                        f"@{node.name}",
                        ast.CLAIMED,
                        "a list of the signature's dim names as strings",
                        format_attr_value(attr.value),
                    )
                )
                continue
            for name in items:
                if isinstance(name, str) and name not in names:  # a signature edited since it was printed: harmless
                    self.report(messages.claim_unused(attr.span, f"@{node.name}", name))

    def report_annotation(self, code: str, span: Span, facts: dict[str, Any]) -> None:
        if code == "unknown-dtype":
            self.report(ops_messages.unknown_dtype(span, facts["name"], facts.get("suggestion")))
        elif code == "unknown-dim":
            self.report(messages.unknown_dim(span, facts["name"], facts.get("suggestion")))
        elif code == "dim-untracked":
            self.report(messages.dim_untracked(span, "", "annotation"))
        elif code == "unknown-type":
            self.report(adt_messages.unknown_type(span, facts["name"], facts.get("suggestion")))
        elif code == "type-arity":
            self.report(adt_messages.type_arity(span, facts["name"], facts["expected"], facts["actual"]))
        else:
            self.report(messages.bad_signature(span, facts.get("what", ""), facts))

    # module -------------------------------------------------------------------------------
    def module(self) -> Resolution:
        self.res.defs, self.res.diagnostics = declare(self.res.module)
        if self.res.module.types:
            self.res.adts, self.res.ctors = declare_types(self.res.module.types, self.report, self.report_annotation)
        for d in self.res.module.defs:
            if self.res.defs.get(d.name) is d:
                self.definition(d)
        self.res.order = callee_first(self.res)
        return self.res

    def definition(self, d: ast.Def) -> None:
        self.current_def = d.name
        self.res.calls[d.name] = set()
        self.vars = {}
        self.function(d, None, TypeScope())
        self.vars = {}

    # functions ------------------------------------------------------------------------------
    def function(
        self, node: Union[ast.Def, ast.Fn], outer_dims: Optional[DimScope], outer_types: TypeScope
    ) -> FunctionInfo:
        """A definition or closure: its parameters and their types, then its body."""
        mark = self.log.mark()
        dims = DimScope(parent=outer_dims, mode="quantify")
        try:
            return self._function(node, dims, outer_types)
        finally:
            dims.close()
            self.log.undo(mark)

    def _function(self, node: Union[ast.Def, ast.Fn], dims: DimScope, outer_types: TypeScope) -> FunctionInfo:
        names = getattr(node, "dtype_params", ()) + getattr(node, "type_params", ())
        for name in sorted(n for n, count in collections.Counter(names).items() if count > 1):
            self.report(messages.duplicate_dtype_parameter(getattr(node, "name_span", node.span), name))
        for name, cls in getattr(node, "dtype_classes", ()):
            where = getattr(node, "name_span", node.span)
            self.report(messages.bad_signature(where, "dtype-class", {"text": f"{name}: {cls}"}))
        # Only the bracketed names need sorting into dtypes and type parameters: without any,
        # the walk over the body's annotations is skipped (it is as long as the body).
        as_dtypes = dtype_names(node) if names and isinstance(node, ast.Def) else set()
        dtype_params = tuple(DTypeVar(n) for n in dict.fromkeys(names) if n in as_dtypes)
        type_params = tuple(TypeParam(n) for n in dict.fromkeys(names) if n not in as_dtypes)
        types = TypeScope(dict(outer_types.dtype_vars), {}, dict(outer_types.type_params), self.adt_arities)
        types.dtype_vars.update({v.name: v for v in dtype_params})
        types.type_params.update({p.name: p for p in type_params})
        conv = Converter(dims, types, self.report_annotation)
        params, param_types = [], []
        seen: dict[str, Binder] = {}
        for p in node.params:
            binder = Binder(
                p.var.name, p.var.span, "param" if isinstance(node, ast.Def) else "fn-param", p, len(self.captured)
            )
            previous = seen.get(p.var.name)
            if previous is not None:
                self.report(messages.duplicate_parameter(p.var.span, p.var.name, previous.span))
            seen[p.var.name] = binder
            self.log.set(self.vars, p.var.name, binder)
            self.res.binders[id(p)] = binder
            params.append(binder)
            ptype = conv.convert(p.type) if p.type is not None else None
            if p.type is not None and ptype is not None:
                self.res.annotations[id(p.type)] = ptype
            param_types.append(ptype)
        before_ret = len(dims.introduced)
        ret = conv.convert(node.ret) if node.ret is not None else None
        if ret is not None:
            ret, quantified = quantify_result_functions(ret, dims.introduced[before_ret:])
            if quantified:
                dims.introduced[:] = [sym for sym in dims.introduced if sym not in quantified]
                dims.forget(quantified)
        if node.ret is not None and ret is not None:
            self.res.annotations[id(node.ret)] = ret
        if isinstance(node, ast.Def):
            self._check_claimed(node, dims.introduced)
        if isinstance(node, ast.Def) and node.claimed_dims:
            for sym in dims.introduced:
                sym.claimed = sym.name in node.claimed_dims
        if isinstance(node, ast.Def) and node.dim_bounds:
            _bound_symbols(dims.introduced, node.dim_bounds)
        if isinstance(node, ast.Def) and node.dim_facts:
            _fact_symbols(dims.introduced, node.dim_facts)
        info = FunctionInfo(
            node,
            params,
            param_types,
            ret,
            tuple(dims.introduced),
            dtype_params,
            name=getattr(node, "name", ""),
            type_params=type_params,
        )
        self.res.functions[id(node)] = info
        if isinstance(node, ast.Def):
            self.def_info = info
        elif self.def_info is not None:
            self.def_info.written.extend(dims.introduced)
        self.body(node.body, DimScope(parent=dims, mode="bind"), types, info)
        return info

    def body(self, body: ast.Body, dims: DimScope, types: TypeScope, info: FunctionInfo) -> None:
        """A body in a level of its own: its lets and existentials end with it."""
        mark = self.log.mark()
        local_dims = DimScope(parent=dims, mode="bind")
        try:
            for stmt in body.stmts:
                if type(stmt) is ast.Let:
                    self.let(stmt, local_dims, types, info)
                elif type(stmt) is ast.Dataflow:
                    self.dataflow(stmt)
                elif type(stmt) is ast.Hint:
                    self.hint(stmt, local_dims, info)
            self.expr(body.result, local_dims, types, info)
            self.res.body_scopes[id(body)] = tuple(local_dims.introduced)
        finally:
            local_dims.close()
            self.log.undo(mark)

    def let(self, stmt: ast.Let, dims: DimScope, types: TypeScope, info: FunctionInfo) -> None:
        var = stmt.var
        binder = Binder(var.name, var.span, "let", stmt, len(self.captured))
        self.res.binders[id(stmt)] = binder
        if stmt.value.__class__ is ast.Call:
            self.call(stmt.value, dims, types, info)
        elif isinstance(stmt.value, ast.Fn):
            mark = self.log.mark()
            self.log.set(self.vars, stmt.var.name, binder)  # the closure may call itself
            self.watched[id(binder)] = False
            self.expr(stmt.value, dims, types, info)
            if self.watched.pop(id(binder)):
                self.res.recursive.add(id(stmt))
            self.log.undo(mark)
        else:
            self.expr(stmt.value, dims, types, info)
        if stmt.type is not None:
            self.annotation(stmt.type, stmt, dims, types)
        log = self.log
        if log.open > log.unlogged:
            log.set(self.vars, var.name, binder)
        else:  # the body's outermost level: nothing to undo
            self.vars[var.name] = binder

    def dataflow(self, flow: ast.Dataflow) -> None:
        """A Dataflow's statements: what `let` does for each, in arrays (no syntax is made).
        The arguments' binders go in one flat list for the whole Dataflow (statement after
        statement, `flow.args[i]` says how many each has): a list per statement was an object
        per statement for the collector to walk."""
        variables, operators, log = self.vars, self.operators, self.log
        get = variables.get
        level = len(self.captured)
        binders: list[Binder] = []
        uses: list[Optional[Binder]] = []
        append, extend, add = uses.append, uses.extend, binders.append
        # no statement opens a level or a closure: whether uses must be noted, and whether the
        # bindings are logged, hold for the whole run
        noted = bool(self.captured or self.watched)
        logged = log.open > log.unlogged
        ctors = self.res.ctors
        i = 0
        for name, op, args in zip(flow.names, flow.ops, flow.args):
            if op not in operators and op not in ast.REF_FORMS and op not in ctors:
                made_call = _made_call(flow, i)
                callee = made_call.callee if made_call is not None else None
                self.opref(callee if isinstance(callee, ast.OpRef) else ast.OpRef(op, span=flow.line(i)))
            if len(args) == 1:  # the commonest arities without a list of their own
                b0 = get(args[0])
                append(b0)
                missing = b0 is None
            elif len(args) == 2:
                b0 = get(args[0])
                b1 = get(args[1])
                append(b0)
                append(b1)
                missing = b0 is None or b1 is None
            else:
                found = [get(a) for a in args]
                extend(found)
                missing = None in found
            if noted or missing:
                for j, binder in enumerate(uses[len(uses) - len(args) :]):
                    if binder is None:
                        made_call = _made_call(flow, i)
                        arg = made_call.args[j] if made_call is not None else None
                        # the made statement's variable reports it, else one made where it is
                        self.var(arg if isinstance(arg, ast.Var) else ast.Var(args[j], span=flow.argument(i, j)))
                    else:
                        self.used(binder)
            binder = DataflowBinder(name, level, flow, i)
            add(binder)
            if logged:
                log.set(variables, name, binder)
            else:
                variables[name] = binder
            i += 1
        self.res.dataflow[id(flow)] = (binders, uses)

    def annotation(self, t: ast.TypeExpr, node: object, dims: DimScope, types: TypeScope) -> Type:
        before = len(dims.introduced)
        converted = Converter(dims, types, self.report_annotation, allow_patterns=True).convert(t)
        # a cast's names stay its existentials: elaboration's contracts write the names a
        # callee chooses once there (`%g as fn (Tensor[(w,)]) -> Tensor[(w,)]`), see design.md
        quantified: tuple[Symbol, ...] = ()
        if not isinstance(node, ast.Cast):
            converted, quantified = quantify_result_functions(converted, dims.introduced[before:])
        if quantified:
            dims.introduced[before:] = [sym for sym in dims.introduced[before:] if sym not in quantified]
            dims.forget(quantified)
        self.res.annotations[id(t)] = converted
        self.res.introduced[id(node)] = tuple(dims.introduced[before:])
        if self.def_info is not None:
            self.def_info.written.extend(dims.introduced[before:])
        return converted

    def hint(self, stmt: ast.Hint, dims: DimScope, info: FunctionInfo) -> None:
        binder = self.vars.get(stmt.var.name)
        if binder is None:
            self.report(messages.bad_hint(stmt.var.span, stmt.var.name))
            return
        self.res.uses[id(stmt.var)] = binder
        if self.captured and binder.level < self.captured[-1]:
            self.captured[-1] = binder.level
        closed = DimScope(parent=dims, mode="closed")
        conv = Converter(closed, TypeScope(), self.report_annotation)
        info.hints[id(binder)] = (binder, tuple(conv.dim(d) for d in stmt.dims), stmt)
        closed.close()

    # expressions ----------------------------------------------------------------------------
    def expr(self, e: ast.Expr, dims: DimScope, types: TypeScope, info: FunctionInfo) -> None:
        if e.__class__ is ast.Var:
            self.var(e)
        elif e.__class__ is ast.Call:
            self.call(e, dims, types, info)
        elif isinstance(e, ast.GlobalVar):
            if e.name not in self.res.defs:
                self.report(messages.unknown_global(e.span, e.name, suggest(e.name, scoped=self.res.defs)))
            elif self.current_def is not None:
                self.res.calls[self.current_def].add(e.name)
        elif isinstance(e, ast.OpRef):
            self.opref(e)
        elif isinstance(e, ast.TupleExpr):
            for f in e.fields:
                self.expr(f, dims, types, info)
        elif isinstance(e, ast.Proj):
            self.expr(e.tuple, dims, types, info)
        elif isinstance(e, ast.If):
            self.expr(e.cond, dims, types, info)
            self.body(e.then, dims, types, info)
            self.body(e.otherwise, dims, types, info)
        elif isinstance(e, ast.Fn):
            self.closure(e, dims, types)
        elif isinstance(e, ast.Block):
            self.body(e.body, dims, types, info)
        elif isinstance(e, ast.Cast):
            self.expr(e.expr, dims, types, info)
            self.annotation(e.type, e, dims, types)
        elif isinstance(e, ast.Match):
            self.match(e, dims, types, info)

    def match(self, e: ast.Match, dims: DimScope, types: TypeScope, info: FunctionInfo) -> None:
        """A match: its scrutinee, then each clause with its pattern's variables in scope."""
        self.expr(e.scrutinee, dims, types, info)
        for clause in e.clauses:
            mark = self.log.mark()
            try:
                for ctor in pattern_ctors(clause.pattern):
                    if ctor.name not in self.res.ctors:
                        hint = suggest(ctor.name, scoped=self.res.ctors)
                        self.report(adt_messages.unknown_constructor(ctor.name_span, ctor.name, hint))
                seen: dict[str, Span] = {}
                for pvar in pattern_vars(clause.pattern):
                    binder = Binder(pvar.var.name, pvar.var.span, "pattern", pvar, len(self.captured))
                    if pvar.var.name in seen:
                        self.report(messages.duplicate_parameter(pvar.var.span, pvar.var.name, seen[pvar.var.name]))
                    seen[pvar.var.name] = pvar.var.span
                    self.res.binders[id(pvar)] = binder
                    if pvar.type is not None:
                        self.annotation(pvar.type, pvar, dims, types)
                    self.log.set(self.vars, pvar.var.name, binder)
                self.body(clause.body, dims, types, info)
            finally:
                self.log.undo(mark)

    def closure(self, e: ast.Fn, dims: DimScope, types: TypeScope) -> None:
        """A closure, noting whether it is closed (uses no variable bound outside it)."""
        captured = self.captured
        level = len(captured) + 1
        captured.append(level)
        try:
            info = self.function(e, dims, types)
        finally:
            lowest = captured.pop()
        info.closed = lowest >= level
        if captured and lowest < captured[-1]:
            captured[-1] = lowest

    def var(self, e: ast.Var) -> None:
        binder = self.vars.get(e.name)
        if binder is None:
            self.report(messages.unknown_variable(e.span, e.name, suggest(e.name, scoped=self.vars)))
            return
        self.res.uses[id(e)] = binder
        if self.watched and id(binder) in self.watched:  # what `used` does, inline: every use comes here
            self.watched[id(binder)] = True
        captured = self.captured
        if captured and binder.level < captured[-1]:
            captured[-1] = binder.level

    def used(self, binder: Binder) -> None:
        """Note a use of a variable: by a closure that calls itself, or captured by one."""
        if self.watched and id(binder) in self.watched:
            self.watched[id(binder)] = True
        captured = self.captured
        if captured and binder.level < captured[-1]:
            captured[-1] = binder.level

    def opref(self, e: ast.OpRef) -> None:
        if e.name in self.res.ctors:
            return
        if e.name not in self.operators and e.name not in ast.REF_FORMS:
            known = self.operator_names if self.operator_names is not None else self.operators
            # a table that cannot list its names (no len): its names sorted, as suggest needs
            # a table without len (a registry) iterates its names: sorted, as suggest takes them
            names = known if isinstance(known, Collection) else sorted(known)  # type: ignore[arg-type]
            self.report(messages.unknown_operator(e.span, e.name, suggest(e.name, names)))

    def call(self, e: ast.Call, dims: DimScope, types: TypeScope, info: FunctionInfo) -> None:
        callee = e.callee
        if callee.__class__ is ast.OpRef:
            self.opref(callee)
        else:
            self.expr(callee, dims, types, info)
        var = self.var
        for a in e.args:
            if a.__class__ is ast.Var:
                var(a)
            elif a.__class__ is ast.TupleExpr:  # (`concatenate((%a, %b))`: its fields, mostly variables)
                for f in a.fields:
                    if f.__class__ is ast.Var:
                        var(f)
                    else:
                        self.expr(f, dims, types, info)
            else:
                self.expr(a, dims, types, info)


def _callee_first_components(names: list[str], calls: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of the call graph, callees before callers (Tarjan,
    iterative so long call chains cannot overflow the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in names:
        if root in index:
            continue
        work = [(root, iter(sorted(calls.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(calls.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    item = stack.pop()
                    on_stack.discard(item)
                    component.append(item)
                    if item == node:
                        break
                out.append(component)
    return out


def resolve(
    module: ast.Module[ast.Def], operators: Container[str], operator_names: Optional[list[str]] = None
) -> Resolution:
    """Resolve every name in a module against itself and an operator table."""
    return _Resolver(module, operators, operator_names).module()


def declare(module: ast.Module[ast.Def]) -> tuple[dict[str, ast.Def], list[Diagnostic]]:
    """The definitions by name (the first of each name) and a diagnostic for each repeat."""
    defs: dict[str, ast.Def] = {}
    diagnostics: list[Diagnostic] = []
    for d in module.defs:
        first = defs.get(d.name)
        if first is not None:
            diagnostics.append(messages.duplicate_definition(d.name_span, d.name, first.name_span))
        else:
            defs[d.name] = d
    return defs, diagnostics


def resolve_definition(
    module: ast.Module[ast.Def],
    d: ast.Def,
    defs: dict[str, ast.Def],
    operators: Container[str],
    operator_names: Optional[list[str]] = None,
    adts: Optional[dict[str, Any]] = None,
    ctors: Optional[dict[str, Any]] = None,
) -> Resolution:
    """One definition resolved on its own, against the module's definitions (`declare`):
    its part of a Resolution, which `Resolution.absorb` adds to the whole. A definition's
    part depends only on its own text and the names of the definitions."""
    resolver = _Resolver(module, operators, operator_names)
    resolver.res.defs = defs
    resolver.res.adts, resolver.res.ctors = adts or {}, ctors or {}
    resolver.definition(d)
    return resolver.res


def callee_first(res: Resolution) -> list[list[str]]:
    """The definitions' strongly connected components, callees first."""
    return _callee_first_components(list(res.defs), res.calls)


def _fact_symbols(symbols: Any, facts: tuple[ast.DimExpr, ...]) -> None:
    """Attach the facts a frontend declared (dim expressions >= 0 over the signature's names)
    to the symbols they mention, as polynomials; one that mentions another name or is no
    polynomial says nothing."""
    by_name = {sym.name: sym for sym in symbols}
    for fact in facts:
        poly = _fact_poly(fact, by_name)
        if poly is None or poly.is_const():
            continue
        for sym in poly.symbols():
            sym.facts = sym.facts + (poly,)


def _fact_poly(d: ast.DimExpr, by_name: dict[str, Symbol]) -> Any:
    """A fact's polynomial (ints, names of `by_name`, + - * and // by a positive constant);
    None for anything else. Iterative over the expression's nodes: a fact deep enough to
    overflow the stack says nothing instead."""
    from gradual.shapes import Poly, extremum

    results: dict[int, Any] = {}
    work = [(d, False)]
    while work:
        node, ready = work.pop()
        if isinstance(node, ast.DimInt):
            results[id(node)] = Poly.const(node.value)
        elif isinstance(node, ast.DimName):
            sym = by_name.get(node.name)
            results[id(node)] = None if sym is None else Poly.atom(sym)
        elif not isinstance(node, ast.DimBinary) or node.op not in ("+", "-", "*", "//", "%", "max", "min"):
            return None
        elif not ready:
            work += [(node, True), (node.left, False), (node.right, False)]
        else:
            left, right = results.get(id(node.left)), results.get(id(node.right))
            if left is None or right is None:
                return None
            if node.op in ("//", "%"):
                if not right.is_const() or right.const_value() <= 0:
                    return None
                den = right.const_value()
                results[id(node)] = left.floordiv(den) if node.op == "//" else left.mod(den)
            elif node.op in ("max", "min"):
                results[id(node)] = extremum(node.op, (left, right))
            else:
                results[id(node)] = left + right if node.op == "+" else left - right if node.op == "-" else left * right
            if not results[id(node)].within_limits():
                return None
    return results.get(id(d))


def _bound_symbols(symbols: Any, bounds: dict[str, tuple[int, Optional[int]]]) -> None:
    """Give a definition's signature symbols the bounds its frontend declared (range constraints)."""
    for sym in symbols:
        if sym.name in bounds:
            sym.lo, sym.hi = bounds[sym.name]


def _made_call(flow: ast.Dataflow, i: int) -> Optional[ast.Call]:
    """Statement i's call, where its syntax was made already (a made Let holds a call)."""
    made = flow.made.get(i)
    return made.value if made is not None and isinstance(made.value, ast.Call) else None
