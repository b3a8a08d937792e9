"""Edits that fix or refine a program, as data: each `Fix` is a title and text edits in
document offsets.

From diagnostics' structured facts (`Diagnostic.facts`): the did-you-mean of an unknown name,
dtype, operator or attribute; removing an unused hint; relaxing a static dim that conflicts
to `?`, so that a runtime check is inserted instead of the error. From the program itself,
at a position: annotating a parameter or `let` with its inferred type, and turning an
inserted runtime check into the explicit cast `gradual elaborate` would write.

`formatted` is the document formatted (`gradual.syntax.formatting`: fitted to a width, its
comments put back), offered only when that provably keeps every comment and the program's
meaning; `formatted_definitions` formats only the definitions a range touches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from gradual.analysis.document import Analysis
from gradual.analysis.queries import (
    binder_of,
    binder_type,
    definition_at,
    elaborated_casts,
    end_of,
    path_at,
    start_of,
    type_at,
)
from gradual.diagnostics import Diagnostic
from gradual.diagnostics.codes import BROADCAST_MISMATCH, UNKNOWN_ATTRIBUTE
from gradual.syntax import ast
from gradual.syntax.printer import DEFAULT_WIDTH
from gradual.syntax.source import LINE_BREAK, Span, line_end, line_start
from gradual.types import DType, DynType, TensorType, TupleType, Type, TypeVar, format_type, map_dtypes


@dataclass
class Edit:
    """Replace document offsets [start, end) by `text`."""

    start: int
    end: int
    text: str


@dataclass
class Fix:
    """One code action: a title, its edits, the diagnostic it fixes (if any), and whether it
    is a fix ("quickfix") or a rewrite that keeps the meaning ("refactor")."""

    title: str
    edits: list
    diagnostic: Optional[Diagnostic] = None
    kind: str = "quickfix"
    preferred: bool = False


def fixes(analysis: Analysis, start: int, end: int) -> list[Fix]:
    """Every fix for the diagnostics overlapping [start, end] and every rewrite at it."""
    out: list = []
    for diag in analysis.diagnostics:
        if start_of(diag.span) <= end and start <= end_of(diag.span):
            out += diagnostic_fixes(analysis, diag)
    out += annotation_fixes(analysis, start, end)
    out += cast_fixes(analysis, start, end)
    return out


def applied(text: str, edits: list) -> str:
    """The text with a fix's edits made."""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.text + text[edit.end :]
    return text


def keeps_its_promise(analysis: Analysis, fix: Fix, recheck: Callable[[str], Any]) -> bool:
    """Whether a fix does what its title says, on the text it makes (`recheck(text)` checks a
    text: a `CheckResult`): a quick fix's diagnostic is gone (others may show up, as when a
    misspelt operator is corrected and its call is checked at last); a rewrite keeps every
    definition's type and number of runtime checks, and every diagnostic. Edits are made
    from what a fix's source knows, and some wrote what does not read back as it was meant:
    an inferred closure type whose symbols become existentials in a `let`, a dtype variable
    only a signature can declare, a cast that elaboration checks a second time, a relaxed
    dim whose conflict another argument keeps."""
    after = recheck(applied(analysis.text, fix.edits))
    if fix.kind == "quickfix":
        if fix.diagnostic is None:
            return True
        gone = (fix.diagnostic.code, fix.diagnostic.message)
        return all((d.code, d.message) != gone for d in after.diagnostics)
    return _meaning(analysis.result) == _meaning(after) and sorted(_said(analysis.result)) == sorted(_said(after))


def _meaning(result: Any) -> dict:
    return {name: (str(fn.type), fn.check_count) for name, fn in (result.functions or {}).items()}


def _said(result: Any) -> list:
    return [(d.severity.value, d.code, d.message) for d in result.diagnostics]


# from diagnostics ----------------------------------------------------------------------------
def diagnostic_fixes(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    """The fixes a diagnostic's facts offer."""
    data = diag.facts or {}
    out = []
    if data.get("suggestion"):
        edit = _rename_edit(diag, data["name"], data["suggestion"])
        if edit is not None:
            out.append(Fix(f"replace `{data['name']}` with `{data['suggestion']}`", [edit], diag, preferred=True))
    if data.get("unused"):
        out.append(Fix("remove the unused hint", [_remove_statement(analysis.text, diag.span)], diag, preferred=True))
    for span, path, axis in data.get("dims", ()):
        fix = _relax_fix(analysis, diag, span, path, axis)
        if fix is not None:
            out.append(fix)
    if diag.code == BROADCAST_MISMATCH:
        out += _expand_fixes(analysis, diag, data.get("dims", ()))
    return out


def _expand_fixes(analysis: Analysis, diag: Diagnostic, sides: tuple) -> list[Fix]:
    """`expand_dims` around the operand of lower rank, so that its dims meet the other's
    leading dims instead of its trailing ones (broadcasting aligns the last dims): a bias of
    (3,) meant per row of a (3, 4) gets axis 1 added, (3, 1). Each alignment whose pairs of
    dims could broadcast is offered, nearest the end first."""
    if len(sides) != 2:
        return []
    operands = []
    for span, path, _ in sides:
        node = _node_with_span(analysis, span)
        t = type_at(analysis, node) if node is not None else None
        for index in path if not isinstance(t, TensorType) else ():
            t = t.fields[index] if isinstance(t, TupleType) and index < len(t.fields) else None
        if node is None or not isinstance(t, TensorType) or t.dims is None:
            return []
        operands.append((node, t.dims))
    (small, small_dims), (_, big_dims) = sorted(operands, key=lambda o: len(o[1]))
    rank, extra = len(small_dims), len(big_dims) - len(small_dims)
    if extra == 0 or rank == 0:
        return []
    out: list[Fix] = []
    text = analysis.text[start_of(small.span) : end_of(small.span)]
    for at in range(extra - 1, -1, -1):  # dims [at, at + rank) of the larger operand
        if not all(_could_broadcast(a, b) for a, b in zip(small_dims, big_dims[at : at + rank])):
            continue
        added = extra - at
        more = f", num_newaxis={added}" if added > 1 else ""
        call = f"expand_dims({text}, axis={rank}{more})"
        dims = f"dim {at}" if rank == 1 else f"dims {at} to {at + rank - 1}"
        title = f"align `{text}` with {dims} of the other operand: `{call}`"
        out.append(Fix(title, [Edit(start_of(small.span), end_of(small.span), call)], diag, preferred=not out))
    return out


def _could_broadcast(a: Any, b: Any) -> bool:
    """Whether two dims may broadcast: equal, or either is 1, or either is not a number."""
    if not (a.is_static and b.is_static):
        return True
    return a == b or str(a) == "1" or str(b) == "1"


def _rename_edit(diag: Diagnostic, name: str, suggestion: str) -> Optional[Edit]:
    """Replace the misspelt name inside the diagnostic's span (an attribute's name is at
    the start of `name=value`; a dtype is the last name of its type)."""
    text = diag.span.text
    matches = [m.start() for m in re.finditer(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_])", text)]
    if not matches:
        return None
    at = matches[0] if diag.code == UNKNOWN_ATTRIBUTE else matches[-1]
    start = start_of(diag.span) + at
    return Edit(start, start + len(name), suggestion)


def _remove_statement(text: str, span: Span) -> Edit:
    """Delete a statement, and its line when nothing else is on it."""
    start, end = start_of(span), end_of(span)
    first, last = line_start(text, start), line_end(text, end)
    if not text[first:start].strip() and not text[end:last].strip():
        following = LINE_BREAK.match(text, last)  # with its line break (`\r\n` is one)
        return Edit(first, following.end() if following else len(text), "")
    return Edit(start, end, "")


def _relax_fix(analysis: Analysis, diag: Diagnostic, span: Span, path: tuple, axis: int) -> Optional[Fix]:
    """`10` -> `?` in the annotation that gave an argument its conflicting static dim."""
    node = _node_with_span(analysis, span)
    annotation, owner = None, ""
    if isinstance(node, ast.Cast):
        annotation, owner = node.type, "this cast"
    elif isinstance(node, ast.Var):
        binder = binder_of(analysis, node)
        holder = binder.node if binder is not None else None
        if isinstance(holder, (ast.Param, ast.Let)) and holder.type is not None:
            annotation, owner = holder.type, f"`%{holder.var.name}`"
    for index in path:
        annotation = (
            annotation.fields[index]
            if isinstance(annotation, ast.TupleTypeExpr) and index < len(annotation.fields)
            else None
        )
    if not isinstance(annotation, ast.TensorTypeExpr) or annotation.dims is None or axis >= len(annotation.dims):
        return None
    dim = annotation.dims[axis]
    if not isinstance(dim, ast.DimInt):
        return None
    title = f"relax dim {axis} of {owner} from `{dim.value}` to `?` (checked at runtime instead)"
    return Fix(title, [Edit(start_of(dim.span), end_of(dim.span), "?")], diag)


def _node_with_span(analysis: Analysis, span: Span) -> Optional[ast.Node]:
    path = path_at(analysis, start_of(span))
    return next((n for n in reversed(path) if n.span == span), None)


# rewrites at a position ----------------------------------------------------------------------
def annotation_fixes(analysis: Analysis, start: int, end: int) -> list[Fix]:
    """Annotate an unannotated parameter or `let` under the cursor with its inferred type."""
    out = []
    path = path_at(analysis, start)
    d = path[0] if path else None
    for node in path:
        if isinstance(node, (ast.Param, ast.Let)) and node.type is None and start_of(node.var.span) <= end:
            binder = binder_of(analysis, node.var)
            t = binder_type(analysis, binder) if binder is not None else None
            if t is None or isinstance(t, (DynType, TypeVar)):
                continue
            edits = [Edit(end_of(node.var.span), end_of(node.var.span), f": {format_type(t)}")]
            if isinstance(node, ast.Let) and node.graph:  # `%0 = e;` takes no annotation: `let %0: T = e;`
                edits.insert(0, Edit(start_of(node.var.span), start_of(node.var.span), "let "))
            if isinstance(d, ast.Def) and node in d.params:
                edits += _declare_dtype_vars(analysis.text, d, t)
            out.append(Fix(f"annotate `%{node.var.name}` with its inferred type", edits, kind="refactor"))
    return out


def _declare_dtype_vars(text: str, d: ast.Def, t: Type) -> list:
    """The `[T]` a signature needs for the dtype variables an inferred type mentions."""
    used: list = []

    def note(dtype: DType) -> DType:
        name = getattr(dtype, "name", None)
        if name is not None and name not in d.dtype_params and name not in used:
            used.append(name)
        return dtype

    map_dtypes(t, note)
    if not used:
        return []
    after = end_of(d.name_span)
    if d.dtype_params:
        close = text.find("]", after)
        return [Edit(close, close, ", " + ", ".join(used))] if close != -1 else []
    return [Edit(after, after, "[" + ", ".join(used) + "]")]


def cast_fixes(analysis: Analysis, start: int, end: int) -> list[Fix]:
    """Write an inserted runtime check as the explicit cast `gradual elaborate` shows."""
    d = definition_at(analysis, start)
    if d is None:
        return []
    out = []
    for (cast_start, cast_end), type_text in sorted(elaborated_casts(analysis, d).items()):
        if cast_start <= end and start <= cast_end:
            edit = Edit(cast_end, cast_end, f" as {type_text}")
            out.append(Fix(f"make the runtime check explicit: `as {type_text}`", [edit], kind="refactor"))
    return out


# formatting ----------------------------------------------------------------------------------
def formatted(analysis: Analysis, width: int = DEFAULT_WIDTH) -> str | None:
    """The document formatted to `width` columns with its comments kept (and its line
    breaks), or None when formatting would not keep the program and every comment (or the
    document does not parse). Parses: run it where the document's analyses run (the parser is
    not shared between threads)."""
    from gradual.infra.deep import run_deep
    from gradual.syntax.formatting import format_text

    if any(d.code == "parse-error" for d in analysis.diagnostics):
        return None
    return run_deep(format_text, analysis.text, analysis.path, width)


def formatted_definitions(analysis: Analysis, start: int, end: int, width: int = DEFAULT_WIDTH) -> list | None:
    """Edits that format the definitions overlapping document offsets [start, end] (an
    editor's range formatting: `formatting.format_definitions`), or None when formatting would
    not keep the program and every comment (or the document does not parse)."""
    from gradual.infra.deep import run_deep
    from gradual.syntax.formatting import Refused, format_definitions
    from gradual.syntax.parser import ParseError

    if any(d.code == "parse-error" for d in analysis.diagnostics):
        return None
    try:
        found = run_deep(format_definitions, analysis.text, start, end, analysis.path, width)
    except (ParseError, Refused, RecursionError):
        return None
    return [Edit(e.start, e.end, e.text) for e in found]
