"""Printing of the algebraic data type syntax: type definitions, patterns and `match`.

Kept apart from printer.py, which calls in here: a type definition prints as Relay prints one
(`type List[A] {` then one constructor a line, each followed by a comma, then `}`), a match as
`match (e) {` (`match?` when partial) with one clause a line, each `pattern => body,`; a body
with bindings is a braced block, a body that is one expression is written after the `=>`.
"""

from __future__ import annotations

from typing import Any, Callable

from gradual.syntax import ast


def format_pattern(p: ast.Pattern, format_type: Callable[[ast.TypeExpr], str]) -> str:
    """A pattern as written in source (a tuple of one field as `(p,)`); `format_type` writes
    a variable's annotation (the printer's own)."""
    out: list[str] = []
    stack: list = [p]
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


def _push_items(stack: list, items: tuple) -> None:
    """Push `items` separated by commas so that they pop in order."""
    for i in range(len(items) - 1, -1, -1):
        stack.append(items[i])
        if i:
            stack.append(", ")


def format_type_def(t: ast.TypeDef, format_type: Callable[[ast.TypeExpr], str]) -> str:
    """A type definition as Relay prints it (`format_type`: the printer's own)."""
    params = f"[{', '.join(t.params)}]" if t.params else ""
    lines = [f"type {t.name}{params} {{"]
    for c in t.ctors:
        fields = f"({', '.join(format_type(f) for f in c.fields)})" if c.fields else ""
        lines.append(f"  {c.name}{fields},")
    lines.append("}")
    return "\n".join(lines)


def write_match(
    out: list,
    e: ast.Match,
    depth: int,
    expr: Callable[[Any, int], None],
    block_end: Callable[[ast.Body, int, str], None],
    line_start: Callable[[int, int], None],
    format_type: Callable[[ast.TypeExpr], str],
) -> None:
    """A match expression at `depth`, through the printer's own `expr`, `block_end` (a body
    one level deeper, then `}`) and `line_start` (a line's comments, then its indentation)."""
    out.append("match? " if not e.complete else "match ")
    scrutinee = e.scrutinee
    if isinstance(scrutinee, ast.TupleExpr) and len(scrutinee.fields) > 1:
        expr(scrutinee, depth)  # `match (%xs, %ys)`: the tuple's own parentheses
    else:
        out.append("(")
        expr(scrutinee, depth)
        out.append(")")
    out.append(" {\n")
    for clause in e.clauses:
        line_start(clause.span.start, depth + 1)
        out.append(format_pattern(clause.pattern, format_type) + " => ")
        if clause.body.stmts:
            out.append("{\n")
            block_end(clause.body, depth + 1, ",\n")
        else:
            expr(clause.body.result, depth + 1)
            out.append(",\n")
    line_start(e.span.end - 1, depth)
    out.append("}")
