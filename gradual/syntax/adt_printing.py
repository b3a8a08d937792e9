"""Printing of the algebraic data type syntax: type definitions, patterns and `match`.

Kept apart from printer.py, which calls in here: a type definition prints as Relay prints one
(`type List[A] {` then one constructor a line, each followed by a comma, then `}`), a match as
`match (e) {` (`match?` when partial) with one clause a line, each `pattern => body,`; a body
with bindings is a braced block, a body that is one expression is written after the `=>`.
"""

from __future__ import annotations

from typing import Any, Callable

from gradual.syntax import ast
from gradual.syntax.layout import HARD, Doc, Nest, bracket, flat_text

#: how deep a pattern is laid out as groups that may break; deeper, as one text (a pattern
#: nests as deep as the values it takes apart, and documents are measured recursively)
_PATTERN_GROUPS = 64


def format_pattern(p: ast.Pattern, format_type: Callable[[ast.TypeExpr], str]) -> str:
    """A pattern as written in source (a tuple of one field as `(p,)`); `format_type` writes
    a variable's annotation (the printer's own)."""
    out: list[str] = []
    stack: list[ast.Pattern | str] = [p]
    while stack:  # iterative: patterns nest as deep as the values they take apart
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, ast.PWild):
            out.append("_")
        elif isinstance(item, ast.PVar):
            out.append(f"%{item.var.name}")
            if item.type is not None:
                out.append(f": {format_type(item.type)}")
        elif isinstance(item, ast.PCtor):
            out.append(item.name)
            if item.args:
                stack.append(")")
                _push_items(stack, item.args)
                stack.append("(")
        elif isinstance(item, ast.PTuple):
            stack.append(",)" if len(item.fields) == 1 else ")")
            _push_items(stack, item.fields)
            stack.append("(")
        else:
            raise TypeError(f"not a pattern: {item!r}")
    return "".join(out)


def _push_items(stack: list[ast.Pattern | str], items: tuple[ast.Pattern, ...]) -> None:
    """Push `items` separated by commas so that they pop in order."""
    for i in range(len(items) - 1, -1, -1):
        stack.append(items[i])
        if i:
            stack.append(", ")


def pattern_doc(p: ast.Pattern, type_doc: Callable[[ast.TypeExpr], Doc], depth: int = 0) -> Doc:
    """A pattern as a document: `format_pattern`'s text when flat; a constructor's arguments
    and a tuple's fields break one a line (with a trailing comma) when they do not fit."""
    if depth >= _PATTERN_GROUPS:
        return format_pattern(p, lambda t: flat_text(type_doc(t)))
    if isinstance(p, ast.PVar) and p.type is not None:
        typ = type_doc(p.type)
        return f"%{p.var.name}: {typ}" if typ.__class__ is str else [f"%{p.var.name}: ", typ]
    if isinstance(p, ast.PCtor) and p.args:
        return bracket(f"{p.name}(", [pattern_doc(a, type_doc, depth + 1) for a in p.args], ")")
    if isinstance(p, ast.PTuple) and p.fields:
        return bracket("(", [pattern_doc(f, type_doc, depth + 1) for f in p.fields], ")", ",1")
    return format_pattern(p, lambda t: flat_text(type_doc(t)))


def type_def_doc(t: ast.TypeDef, type_doc: Callable[[ast.TypeExpr], Doc]) -> Doc:
    """A type definition as Relay prints it, one constructor a line (`type_doc`: the
    printer's own); a constructor's fields break one a line when they do not fit."""
    params = f"[{', '.join(t.params)}]" if t.params else ""
    lines: list[Doc] = []
    for c in t.ctors:
        lines.append(HARD)
        lines.append([bracket(f"{c.name}(", [type_doc(f) for f in c.fields], ")"), ","] if c.fields else f"{c.name},")
    return [f"type {t.name}{params} {{", Nest(lines), HARD, "}"]


def match_doc(
    e: ast.Match,
    expr: Callable[[Any], Doc],
    block: Callable[[ast.Body], Doc],
    line_before: Callable[[list[Doc], int], None],
    notes: Callable[[int], list[Doc]],
    type_doc: Callable[[ast.TypeExpr], Doc],
) -> Doc:
    """A match expression through the printer's own `expr`, `block` (a body one level deeper,
    then `}`), `line_before(parts, start)` (a line break and the comments before `start`) and
    `notes(offset)` (the comments not yet placed before `offset`) and `type_doc` (a type as
    a document)."""
    scrutinee = e.scrutinee
    if isinstance(scrutinee, ast.TupleExpr) and len(scrutinee.fields) > 1:
        head: Doc = [expr(scrutinee)]  # `match (%xs, %ys)`: the tuple's own parentheses
    else:
        head = ["(", expr(scrutinee), ")"]
    clauses: list[Doc] = []
    for clause in e.clauses:
        line_before(clauses, clause.span.start)
        clauses += [pattern_doc(clause.pattern, type_doc), " => "]
        if clause.body.stmts:
            clauses += ["{", block(clause.body), ","]
        else:
            clauses += [expr(clause.body.result), ","]
    clauses += notes(e.span.end - 1)  # comments before `}` are inside
    return ["match? " if not e.complete else "match ", head, " {", Nest(clauses), HARD, "}"]
