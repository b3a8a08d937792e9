"""Questions about an analyzed document, answered as data: what is at this offset, its type,
where it is defined and used, the definitions of the document, where the runtime checks go.

Offsets are the document's (code points from its start); answers carry `Span`s, which know
their position in the document (or in a stdlib file, for operators). Nothing here formats
for a particular editor: the language server converts.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, fields
from typing import Any, Iterator, Optional, Union

from gradual.analysis.document import Analysis
from gradual.checker.expressions import literal_type
from gradual.checker.names import Binder
from gradual.ops.registry import Operator
from gradual.shapes import Dimension
from gradual.syntax import ast
from gradual.syntax.source import Span
from gradual.types import DynType, FuncType, Type, format_dims, format_dtype, format_type


# walking the tree ----------------------------------------------------------------------------
def children(node: object) -> Iterator[ast.Node]:
    """The syntax nodes directly inside a node, in source order."""
    for name in _child_fields(node.__class__):
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ast.Node):
                    yield item


_FIELDS: dict = {}


def _child_fields(cls: type) -> tuple:
    """The fields of a node class but its span, found once a class (`dataclasses.fields` each
    time was most of a walk: renaming a variable used 1,000 times took 0.27 s)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "span")
    return found


def walk(node: ast.Node) -> Iterator[ast.Node]:
    """Every node under `node` (itself first), depth first in source order."""
    stack = [node]
    Node = ast.Node
    while stack:
        current = stack.pop()
        yield current
        inner: list = []
        for name in _FIELDS.get(current.__class__) or _child_fields(current.__class__):
            value = getattr(current, name)
            if isinstance(value, Node):
                inner.append(value)
            elif value.__class__ is tuple:
                inner.extend([item for item in value if isinstance(item, Node)])
        inner.reverse()
        stack.extend(inner)


def start_of(span: Span) -> int:
    """Where a span starts in the document."""
    return span.source.base + span.start


def end_of(span: Span) -> int:
    """Where a span ends in the document."""
    return span.source.base + span.end


def definition_at(analysis: Analysis, offset: int) -> Optional[ast.Def]:
    """The definition whose text holds `offset` (the prelude holds none)."""
    pieces = analysis.pieces
    i = bisect.bisect_right(analysis.piece_starts, offset) - 1
    if i < 0:
        return None
    for d in pieces[i].defs:
        if start_of(d.span) <= offset <= end_of(d.span):
            return d
    return None


def path_at(analysis: Analysis, offset: int) -> list:
    """The nodes that hold `offset`, outermost (the definition) first."""
    d = definition_at(analysis, offset)
    if d is None:
        return []
    path: list[ast.Node] = [d]
    node: ast.Node = d
    while True:
        inner = next((c for c in children(node) if _holds(c, offset)), None)
        if inner is None:
            return path
        path.append(inner)
        node = inner


def _holds(node: ast.Node, offset: int) -> bool:
    return node.span.source.text != "" and start_of(node.span) <= offset <= end_of(node.span)


def definitions(analysis: Analysis) -> list:
    """The document's definitions in source order (not the prelude's it uses: they are in
    stdlib/prelude.rly)."""
    if analysis.result.module is None:
        return []
    return [d for d in analysis.result.module.defs if d.span.source.path == analysis.path]


# types of things ----------------------------------------------------------------------------
def binder_of(analysis: Analysis, var: ast.Var) -> Optional[Binder]:
    """The parameter or `let` a `%x` (a use, or the name in a binder) refers to."""
    res = analysis.result.resolution
    if res is None:
        return None
    found = res.uses.get(id(var))
    if found is not None:
        return found
    for holder in _binder_holders(analysis, var):
        binder = res.binders.get(id(holder))
        if binder is not None:
            return binder
    return None


def _binder_holders(analysis: Analysis, var: ast.Var) -> list:
    path = path_at(analysis, start_of(var.span))
    return [n for n in path if isinstance(n, (ast.Param, ast.Let, ast.PVar)) and n.var is var]


def binder_type(analysis: Analysis, binder: Binder) -> Optional[Type]:
    """The type a parameter or `let` binds (parameters: as inferred for their function)."""
    result = analysis.result
    node = binder.node
    if isinstance(node, (ast.Let, ast.PVar)):  # a pattern variable's type is recorded on it
        return result.types.get(id(node))
    d = definition_at(analysis, start_of(binder.span))
    if d is None or not isinstance(node, ast.Param):
        return None
    owner = _owner_of(analysis, d, node)
    if owner is None:
        return None
    return param_type(analysis, d, owner, next(i for i, p in enumerate(owner.params) if p is node))


def _owner_of(analysis: Analysis, d: ast.Def, param: ast.Node) -> Optional[Union[ast.Def, ast.Fn]]:
    """The definition or closure whose parameter `param` is: found along the path to it (every
    closure of the definition was walked for each parameter asked, so the hints of n nested
    closures' parameters cost n times the definition: 61x for 8x)."""
    if any(p is param for p in d.params):
        return d
    for node in reversed(path_at(analysis, start_of(param.span))):
        if isinstance(node, ast.Fn) and any(p is param for p in node.params):
            return node
    return None


def param_type(analysis: Analysis, d: ast.Def, owner: ast.Node, index: int) -> Optional[Type]:
    """The type of parameter `index` of `owner`, the definition `d` or a closure in it, as
    inferred for its function."""
    result = analysis.result
    fn_type: Optional[Type]
    if owner is d:
        fn = result.functions.get(d.name)
        fn_type = fn.type if fn is not None and fn.node is d else None
    else:
        fn_type = result.types.get(id(owner))
    if isinstance(fn_type, FuncType) and index < len(fn_type.params):
        return fn_type.params[index]
    return None


def type_at(analysis: Analysis, node: ast.Node) -> Optional[Type]:
    """The inferred type of an expression, variable or binder."""
    result = analysis.result
    if isinstance(node, ast.Var):
        found = result.types.get(id(node))
        if found is not None:
            return found
        binder = binder_of(analysis, node)
        return binder_type(analysis, binder) if binder is not None else None
    if isinstance(node, ast.Def):
        fn = result.functions.get(node.name)
        return fn.type if fn is not None else None
    if isinstance(node, ast.Literal):  # the checker records no literal: hover said `?`
        return result.types.get(id(node)) or literal_type(node)
    return result.types.get(id(node))


def format_instantiation(inst: tuple) -> str:
    """`T := float32, *b := (?), k := 784, u := 128`."""
    parts = []
    for name, value in inst:
        if isinstance(value, tuple):
            parts.append(f"{name} := {format_dims(value)}")
        elif isinstance(value, Dimension):
            parts.append(f"{name} := {value}")
        else:
            parts.append(f"{name} := {format_dtype(value)}")
    return ", ".join(parts)


# runtime checks -------------------------------------------------------------------------------
@dataclass
class CheckSite:
    """A runtime check the elaborated program performs: the checked expression's span, the
    type it is checked against, and why the check is there."""

    span: Span
    type: Type
    reason: str
    function: str


def check_sites(analysis: Analysis, d: Optional[ast.Def] = None) -> list[CheckSite]:
    """The verifying check sites of one definition (or of all). One definition's function is
    found by its name (going through all of them for each definition made the editor's hints
    quadratic in the definitions)."""
    out = []
    functions = analysis.result.functions
    if d is not None:
        fn = functions.get(d.name)
        chosen = [(d.name, fn)] if fn is not None and fn.node is d else []
    else:
        chosen = list(functions.items())
    for name, fn in chosen:
        for check in fn.checks:
            if check.verifies and check.node.span.source.text:
                out.append(CheckSite(check.node.span, check.type, check.reason, name))
    return out


def elaborated_casts(analysis: Analysis, d: ast.Def) -> dict:
    """The inserted casts of one definition as `gradual elaborate` writes them:
    (start, end) of the checked expression -> the cast's type as text."""
    from gradual.checker.elaboration import Elaborator
    from gradual.infra.deep import run_deep
    from gradual.syntax.printer import format_type as format_type_expr

    fn = analysis.result.functions.get(d.name)
    if fn is None or fn.node is not d:
        return {}
    # the elaborator recurses as deep as the program nests: on the large-stack thread (a code
    # action in a call nested a thousand deep was a RecursionError)
    elaborated = run_deep(Elaborator(analysis.result).definition, d, fn)
    out: dict = {}
    for node in walk(elaborated):
        if isinstance(node, ast.Cast) and node.check is not None and node.check.verifies:
            out.setdefault((start_of(node.span), end_of(node.span)), format_type_expr(node.type))
    return out


# hover ----------------------------------------------------------------------------------
@dataclass
class Hover:
    """What to show for the thing under the cursor: its span and lines of markdown."""

    span: Span
    lines: list = field(default_factory=list)


def hover(analysis: Analysis, offset: int) -> Optional[Hover]:
    """The inferred type of the variable, parameter or expression at `offset`; for a callee,
    the signature and its instantiation at this call; for a dim symbol, where it is bound;
    plus the runtime check the expression gets, if any."""
    path = path_at(analysis, offset)
    if not path:
        return None
    node = path[-1]
    d = path[0]
    if node is d:
        return _hover_definition(analysis, d) if start_of(d.name_span) <= offset <= end_of(d.name_span) else None
    if isinstance(node, ast.DimName):
        return _hover_dim(analysis, d, node)
    if (
        isinstance(node, (ast.OpRef, ast.GlobalVar))
        and len(path) > 1
        and isinstance(path[-2], ast.Call)
        and path[-2].callee is node
    ):
        return _hover_callee(analysis, path[-2], node)
    if isinstance(node, (ast.OpRef, ast.PCtor)):
        found = _hover_constructor(analysis, node)
        if found is not None:
            return found
    expr = next((n for n in reversed(path) if isinstance(n, _EXPRESSIONS)), None)
    if expr is None:
        return None
    return _hover_expression(analysis, expr, path)


_EXPRESSIONS = (
    ast.Var,
    ast.GlobalVar,
    ast.Literal,
    ast.TupleExpr,
    ast.Proj,
    ast.Call,
    ast.If,
    ast.Fn,
    ast.Cast,
    ast.Match,
)


def _constructor(analysis: Analysis, name: str) -> Any:
    """The constructor of this name (adt_names.CtorInfo), if the program has one."""
    res = analysis.result.resolution
    return res.ctors.get(name) if res is not None else None


def _hover_constructor(analysis: Analysis, node: Any) -> Optional[Hover]:
    """A constructor (a value, or in a pattern): its type, and the type it makes."""
    info = _constructor(analysis, node.name)
    if info is None:
        return None
    span = node.name_span if isinstance(node, ast.PCtor) else node.span
    lines = _code_block(f"{info.name}: {format_type(info.type)}")
    lines.append(f"a constructor of `{info.adt.name}`")
    return Hover(span, lines)


def _code_block(text: str) -> list:
    return ["```gradual", text, "```"]


def _hover_definition(analysis: Analysis, d: ast.Def) -> Hover:
    fn = analysis.result.functions.get(d.name)
    lines = _code_block(f"def @{d.name}: {format_type(fn.type) if fn is not None else '?'}")
    if fn is not None:
        count = fn.check_count
        lines.append(f"{count} runtime check{'' if count == 1 else 's'} inserted")
    return Hover(d.name_span, lines)


def _hover_expression(analysis: Analysis, node: ast.Node, path: list) -> Hover:
    t = type_at(analysis, node)
    if isinstance(node, ast.Var):
        lines = _code_block(f"%{node.name}: {format_type(t) if t is not None else '?'}")
        binder = binder_of(analysis, node)
        if binder is not None:
            lines.append(_binder_role(binder, path[0]))
    else:
        lines = _code_block(format_type(t) if t is not None else "?")
    for site in check_sites(analysis, path[0]):
        if site.span == node.span:
            lines.append(f"**runtime check**: checked against `{format_type(site.type)}` ({site.reason})")
    return Hover(node.span, lines)


def _binder_role(binder: Binder, d: ast.Def) -> str:
    if binder.kind == "pattern":
        return "bound by a pattern of a `match`"
    if binder.kind == "param":
        return f"parameter of `@{d.name}`"
    if binder.kind == "fn-param":
        return "parameter of a closure"
    return "bound by `let`"


def _hover_callee(analysis: Analysis, call: ast.Call, callee: Union[ast.OpRef, ast.GlobalVar]) -> Hover:
    result = analysis.result
    lines: list = []
    info = _constructor(analysis, callee.name) if isinstance(callee, ast.OpRef) else None
    if info is not None:
        lines += _code_block(f"{info.name}: {format_type(info.type)}")
        lines.append(f"a constructor of `{info.adt.name}`")
    elif isinstance(callee, ast.OpRef):
        op = result.registry.get(callee.name) if result.registry is not None else None
        if op is None:
            return Hover(callee.span, [f"unknown operator `{callee.name}`"])
        lines += _code_block(op.signature_text)
        if op.doc:
            lines.append(op.doc)
    else:
        fn = result.functions.get(callee.name)
        lines += _code_block(f"@{callee.name}: {format_type(fn.type) if fn is not None else '?'}")
    inst = result.instantiations.get(id(call))
    if inst:
        lines.append(f"at this call: `{format_instantiation(inst)}`")
    t = result.types.get(id(call))
    if t is not None:
        lines.append(f"result: `{format_type(t)}`")
    return Hover(callee.span, lines)


def _hover_dim(analysis: Analysis, d: ast.Def, dim: ast.DimName) -> Hover:
    binding, in_signature = dim_binding(d, dim)
    line, col = binding.span.start_position
    if in_signature:
        scope = f"in the signature of `@{d.name}`: the same size throughout, instantiated afresh at each call"
    else:
        scope = "by a body annotation: bound at runtime there, rigid after"
    where = "here" if binding is dim else f"at line {line}, column {col}"
    return Hover(dim.span, _code_block(f"dimension {dim.name}") + [f"bound {where}, {scope}"])


# dimension symbols ---------------------------------------------------------------------------
def _signature_nodes(d: ast.Def) -> list:
    nodes = [p.type for p in d.params if p.type is not None]
    return nodes + ([d.ret] if d.ret is not None else [])


def dim_names(d: ast.Def) -> list:
    """The dimension names written in a definition, signature first, then the body in order."""
    out = [n for t in _signature_nodes(d) for n in walk(t) if isinstance(n, ast.DimName)]
    return out + [n for n in walk(d.body) if isinstance(n, ast.DimName)]


def dim_binding(d: ast.Def, dim: ast.DimName) -> tuple:
    """(the occurrence that binds a dim name, whether it is in the signature): its first
    occurrence, signature first (a name first seen in the body is bound where it is seen)."""
    signature = {id(n) for t in _signature_nodes(d) for n in walk(t)}
    first = next(n for n in dim_names(d) if n.name == dim.name)
    return first, id(first) in signature


# navigation ----------------------------------------------------------------------------------
def definition(analysis: Analysis, offset: int) -> list[Span]:
    """Where the thing at `offset` is defined: a variable's binder, a function's name, a dim
    symbol's binding occurrence, an operator's declaration in stdlib/."""
    target = _target(analysis, offset)
    if target is None:
        return []
    kind, key, d = target
    if kind == "var":
        return [key.span]
    if kind == "global":
        found = analysis.result.resolution.defs.get(key) if analysis.result.resolution else None
        return [found.name_span] if found is not None else []
    if kind == "dim":
        return [dim_binding(d, key)[0].span]
    op = _operator(analysis, key)
    return [op.span] if op is not None and op.span is not None and op.span.source.text else []


def references(analysis: Analysis, offset: int, include_declaration: bool = True) -> list[Span]:
    """Every occurrence of the thing at `offset` in the document (and its declaration)."""
    target = _target(analysis, offset)
    if target is None:
        return []
    kind, key, d = target
    res = analysis.result.resolution
    spans: list = []
    if kind == "var":
        spans = [n.span for n in walk(d) if isinstance(n, ast.Var) and res is not None and res.uses.get(id(n)) is key]
        if include_declaration:
            spans.insert(0, key.span)
    elif kind == "global":
        spans = [
            n.span for dd in definitions(analysis) for n in walk(dd) if isinstance(n, ast.GlobalVar) and n.name == key
        ]
        found = res.defs.get(key) if res is not None else None
        if include_declaration and found is not None:
            spans.insert(0, found.name_span)
    elif kind == "dim":
        spans = [n.span for n in dim_names(d) if n.name == key.name]
        if not include_declaration:
            binding = dim_binding(d, key)[0]
            spans = [s for s in spans if s is not binding.span]
    else:
        spans = [n.span for dd in definitions(analysis) for n in walk(dd) if isinstance(n, ast.OpRef) and n.name == key]
        op = _operator(analysis, key)
        if include_declaration and op is not None and op.span is not None and op.span.source.text:
            spans.insert(0, op.span)
    return spans


def target_at(analysis: Analysis, offset: int) -> Optional[tuple]:
    """(kind, key, definition) of the named thing at `offset`: ("var", its Binder, d),
    ("global", a function's name, d), ("dim", the DimName, d) or ("op", an operator's name, d)."""
    return _target(analysis, offset)


def _target(analysis: Analysis, offset: int) -> Optional[tuple]:
    """(kind, key, definition) of the named thing at `offset`."""
    path = path_at(analysis, offset)
    if not path:
        return None
    node, d = path[-1], path[0]
    if node is d:
        return ("global", d.name, d) if start_of(d.name_span) <= offset <= end_of(d.name_span) else None
    if isinstance(node, ast.Var):
        binder = binder_of(analysis, node)
        return ("var", binder, d) if binder is not None else None
    if isinstance(node, ast.GlobalVar):
        return "global", node.name, d
    if isinstance(node, ast.DimName):
        return "dim", node, d
    if isinstance(node, ast.OpRef):
        return "op", node.name, d
    return None


def _operator(analysis: Analysis, name: str) -> Optional[Operator]:
    registry = analysis.result.registry
    return registry.get(name) if registry is not None else None


# symbols and inlay hints ----------------------------------------------------------------------
@dataclass
class Symbol:
    """A definition (or one of its parameters and bindings) with its type."""

    name: str
    kind: str
    detail: str
    span: Span
    name_span: Span
    children: list = field(default_factory=list)


def symbols(analysis: Analysis) -> list[Symbol]:
    """Each definition with its type; its parameters and `let`s inside it."""
    out = []
    res = analysis.result.resolution
    for d in definitions(analysis):
        t = type_at(analysis, d)
        top = Symbol(f"@{d.name}", "function", format_type(t) if t is not None else "", d.span, d.name_span)
        checked = res is not None and res.defs.get(d.name) is d  # (a name's first definition)
        if res is not None and checked:
            for index, p in enumerate(d.params):
                pt = param_type(analysis, d, d, index) if res.binders.get(id(p)) is not None else None
                top.children.append(Symbol(f"%{p.var.name}", "parameter", _shown(pt), p.span, p.var.span))
            for stmt in d.body.stmts:
                if isinstance(stmt, ast.Let):
                    lt = analysis.result.types.get(id(stmt))
                    top.children.append(Symbol(f"%{stmt.var.name}", "variable", _shown(lt), stmt.span, stmt.var.span))
        out.append(top)
    return out


def _shown(t: Optional[Type]) -> str:
    return format_type(t) if t is not None else ""


@dataclass
class InlayHint:
    """A label to show at an offset: `kind` is "binding", "parameter" or "check"."""

    offset: int
    label: str
    kind: str
    tooltip: str = ""


HINT_KINDS = ("binding", "parameter", "check")


def inlay_hints(analysis: Analysis, start: int, end: int, kinds: tuple = HINT_KINDS) -> list[InlayHint]:
    """Inferred types after unannotated `let`/`%0 =` bindings and parameters, and a marker
    after each expression that gets a runtime check, for the definitions in [start, end]."""
    out: list = []
    res = analysis.result.resolution
    if res is None:
        return out
    for d in definitions(analysis):
        first = res.defs.get(d.name) is d  # (a name's first definition: the one checked)
        if end_of(d.span) < start or start_of(d.span) > end or not first:
            continue
        if "parameter" in kinds:
            out += _parameter_hints(analysis, d)
        if "binding" in kinds:
            out += _binding_hints(analysis, d)
        if "check" in kinds:
            out += [
                InlayHint(end_of(s.span), f"as {format_type(s.type)}", "check", f"runtime check: {s.reason}")
                for s in check_sites(analysis, d)
                if not isinstance(s.type, DynType)
            ]  # `as ?` states nothing
    return sorted((h for h in out if start <= h.offset <= end), key=lambda h: h.offset)


def _parameter_hints(analysis: Analysis, d: ast.Def) -> list:
    res = analysis.result.resolution
    out: list[InlayHint] = []
    if res is None:
        return out
    owners = [d] + [n for n in walk(d.body) if isinstance(n, ast.Fn)]
    for owner in owners:
        for index, p in enumerate(owner.params):
            if p.type is None:
                t = param_type(analysis, d, owner, index) if res.binders.get(id(p)) is not None else None
                if t is not None:
                    out.append(InlayHint(end_of(p.var.span), f": {format_type(t)}", "parameter"))
    return out


def _binding_hints(analysis: Analysis, d: ast.Def) -> list:
    out = []
    for node in walk(d.body):
        if isinstance(node, ast.Let) and node.type is None:
            t = analysis.result.types.get(id(node))
            if t is not None:
                out.append(InlayHint(end_of(node.var.span), f": {format_type(t)}", "binding"))
    return out
