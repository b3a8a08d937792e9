"""Where the diagnostics of a built program point when the frontend gave no location.

The builder gives every node made without a `Loc` a span of its own over `GENERATED` (no
text). Once a built module is checked, each diagnostic (and label) whose span is such a node's
is moved to the node's nearest enclosing construct that has a location (a call's `let`, a
definition), or, where none has, to the node's own text in the program as printed
(`format_module`): `<generated>:3:14` is line 3, column 14 of that text, and the diagnostic
shows the line. The program is printed only when some diagnostic needs it.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import Diagnostic, Label
from gradual.syntax import ast
from gradual.syntax.printer import _Printer
from gradual.syntax.source import GENERATED, Source, Span, is_unplaced


def place(module: ast.Module, diagnostics: list) -> None:
    """Move the diagnostics' unplaced spans (see the module docstring), in place."""
    wanted = {id(s) for d in diagnostics for s in _spans(d) if s.source is GENERATED}
    if not wanted:
        return
    printer = _PlacingPrinter(wanted)
    printer.module(module)
    text = printer.text()
    source = Source(text, GENERATED.path)
    placed: dict = {}
    for key, (enclosing, start, end) in printer.found.items():
        if enclosing is not None:
            placed[key] = enclosing
        else:
            if end is None:  # a definition: its first line
                found = text.find("\n", start)
                end = len(text) if found < 0 else found
            placed[key] = Span(source, start, max(start, end))
    for d in diagnostics:
        d.span = placed.get(id(d.span), d.span)
        if d.labels:
            d.labels = tuple(Label(placed[id(l.span)], l.message) if id(l.span) in placed else l for l in d.labels)


def _spans(d: Diagnostic) -> list:
    return [d.span, *(label.span for label in d.labels)]


class _Counted(list):
    """The printer's pieces, counting the characters appended (the printer only appends
    where it prints no comments)."""

    def __init__(self) -> None:
        super().__init__()
        self.length = 0

    def append(self, piece: str) -> None:  # noqa: D102 - list.append, counted
        self.length += len(piece)
        list.append(self, piece)


class _PlacingPrinter(_Printer):
    """The printer, noting for each wanted span the node it is of: its nearest enclosing
    located construct's span, or its (start, end) in the text."""

    def __init__(self, wanted: set) -> None:
        super().__init__(None)
        self.counted = _Counted()
        self.out = self.counted
        self.wanted = wanted
        self.found: dict = {}
        self.enclosing: list = []  # the located spans of the constructs being printed

    def _enter(self, node: Any) -> tuple:
        """Note where `node` starts if it is wanted (the outermost node of a span that several
        share: a call's operator and attributes share the call's), push its span if it is
        located; (the entry to complete on leaving, or None; whether pushed)."""
        span = node.span
        key = id(span)
        entry = None
        if key in self.wanted and key not in self.found:
            entry = self.found[key] = [self.enclosing[-1] if self.enclosing else None, self.counted.length, None]
        pushed = not is_unplaced(span)
        if pushed:
            self.enclosing.append(span)
        return entry, pushed

    def _leave(self, entry: Optional[list], pushed: bool, end: Optional[int]) -> None:
        if entry is not None:
            entry[2] = end
        if pushed:
            self.enclosing.pop()

    def definition(self, d: ast.Def) -> None:  # noqa: D102 - _Printer.definition, noted
        entry, pushed = self._enter(d)
        super().definition(d)
        self._leave(entry, pushed, None)  # its first line (see `place`)

    def params(self, params: tuple, depth: int, attrs: tuple = ()) -> None:  # noqa: D102
        for i, p in enumerate(params):
            if i:
                self.out.append(", ")
            entry, pushed = self._enter(p)
            inner = [self._enter(p.var)] + ([self._enter(p.type)] if p.type is not None else [])
            self.out.append(self.param(p))
            end = self.counted.length
            for e, pushed_inner in reversed(inner):
                self._leave(e, pushed_inner, end)
            self._leave(entry, pushed, end)
        self.attrs(attrs, depth, bool(params))

    def stmt(self, s: Any, depth: int) -> None:  # noqa: D102 - _Printer.stmt, noted
        entry, pushed = self._enter(s)
        inner = []
        if isinstance(s, (ast.Let, ast.Hint)):
            inner.append(self._enter(s.var))
        if isinstance(s, ast.Let) and s.type is not None:
            inner.append(self._enter(s.type))
        super().stmt(s, depth)
        end = self.counted.length - 1  # without its `;`
        for e, pushed_inner in reversed(inner):
            self._leave(e, pushed_inner, end)
        self._leave(entry, pushed, end)

    def expr(self, e: Any, depth: int) -> None:  # noqa: D102 - _Printer.expr, noted
        entry, pushed = self._enter(e)
        inner = []
        if isinstance(e, ast.Cast):
            inner.append(self._enter(e.type))
        elif isinstance(e, ast.Call):
            inner.extend(self._enter(attr) for attr in e.attrs)
        super().expr(e, depth)
        end = self.counted.length
        for i, pushed_inner in reversed(inner):
            self._leave(i, pushed_inner, end)
        self._leave(entry, pushed, end)
