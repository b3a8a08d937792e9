"""Where the diagnostics of a built program point when the frontend gave no location.

The builder gives every node made without a `Loc` a span of its own over `GENERATED` (no
text). Once a built module is checked, each diagnostic (and label) whose span is such a node's
is moved to the node's nearest enclosing construct that has a location (a call's `let`, a
definition), or, where none has, to the node's own text in the program as printed
(`format_module`): `<generated>:3:14` is line 3, column 14 of that text, and the diagnostic
shows the line. The program is printed only when some diagnostic needs it.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import Diagnostic, Label
from gradual.syntax import ast
from gradual.syntax.source import GENERATED, Source, Span, is_unplaced


def place(module: ast.Module, diagnostics: list) -> None:
    """Move the diagnostics' unplaced spans (see the module docstring), in place."""
    wanted = {id(s) for d in diagnostics for s in _spans(d) if s.source is GENERATED}
    if not wanted:
        return
    found = _enclosing(module, wanted)
    if any(enclosing is None for enclosing, _ in found.values()):
        _printed(module, found)
    placed = {key: enclosing or printed for key, (enclosing, printed) in found.items() if enclosing or printed}
    for d in diagnostics:
        d.span = placed.get(id(d.span), d.span)
        if d.labels:
            d.labels = tuple(
                Label(placed[id(lab.span)], lab.message) if id(lab.span) in placed else lab for lab in d.labels
            )


def _spans(d: Diagnostic) -> list:
    return [d.span, *(label.span for label in d.labels)]


def _children(node: Any) -> list:
    """A node's child nodes, in the order the printer writes them (statements of a Dataflow
    as its lets)."""
    if node.__class__ is ast.Body:
        return [*ast.plain_statements(node.stmts), node.result]
    out: list = []
    for name in ast.compared_fields(node.__class__):
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend(v for v in value if isinstance(v, ast.Node))
    return out


def _enclosing(module: ast.Module, wanted: set) -> dict:
    """For each wanted span, the span of the nearest enclosing construct that has a location
    (None where none has), found at the outermost node holding the span."""
    found: dict = {}
    stack: list = [(module, None)]
    while stack:
        node, enclosing = stack.pop()
        key = id(node.span)
        if key in wanted and key not in found and node.__class__ is not ast.Body:  # a body is its result
            found[key] = [enclosing, None]
        inner = enclosing if is_unplaced(node.span) else node.span
        stack.extend((child, inner) for child in reversed(_children(node)))
    return found


def _printed(module: ast.Module, found: dict) -> None:
    """Give the wanted spans no construct locates their place in the program as printed: the
    printed text parsed again gives the same tree, walked beside the built one. A definition
    is shown by its first line."""
    from gradual.syntax.parser import ParseError, parse_source
    from gradual.syntax.printer import format_module

    text = format_module(module)
    source = Source(text, GENERATED.path)
    try:
        reread = parse_source(source)
    except ParseError:
        return
    stack: list = [(module, reread)]
    while stack:
        built, printed = stack.pop()
        if type(built) is not type(printed):
            return  # not the same tree: what is found so far stays
        entry = found.get(id(built.span)) if built.__class__ is not ast.Body else None
        if entry is not None and entry[0] is None and entry[1] is None:
            entry[1] = _first_line(printed.span) if isinstance(built, ast.Def) else printed.span
        a, b = _children(built), _children(printed)
        if len(a) != len(b):
            return
        stack.extend(zip(reversed(a), reversed(b)))


def _first_line(span: Span) -> Span:
    text = span.source.text
    end = text.find("\n", span.start, span.end)
    return Span(span.source, span.start, span.end if end < 0 else end)
