"""Formatting a program text: the printer's layout fitted to a width (`DEFAULT_WIDTH` columns)
with the text's comments put back, given only when it provably keeps both the program and its
comments.

`format_source` parses the text with its comments (a program, or a file of operator
declarations as in stdlib/), prints it (`printer.format_module` with a width), then parses
the result again (unless it is the text itself): the two trees must be the same (`same_tree`:
spans aside), the declarations' documentation the same, and the comments the same, in the
same order. A text that does not parse raises its `ParseError`; a result that would not keep
the text as it is raises `Refused` (a bug of the printer: the text is left as it is).

`format_definitions` formats only the definitions that overlap a range of the text (an
editor's range formatting): edits that replace each such definition by its formatted text,
checked the same way on the whole text they make.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gradual.infra.deep import gc_paused
from gradual.syntax import ast
from gradual.syntax.ast import same_tree
from gradual.syntax.comments import Comment
from gradual.syntax.parser import ParseError, doc_comment, parse_stdlib_with_comments, parse_with_comments
from gradual.syntax.printer import DEFAULT_WIDTH, format_module
from gradual.syntax.source import BOM, LINE_BREAK, Source, Span

__all__ = ["DEFAULT_WIDTH", "Refused", "TextEdit", "format_definitions", "format_source", "format_text"]


class Refused(Exception):
    """Formatting would not keep the program or its comments as they are (a printer bug)."""


@dataclass(frozen=True)
class TextEdit:
    """Replace [start, end) of the text by `text`."""

    start: int
    end: int
    text: str


def _parse(text: str, path: str) -> tuple[ast.AnyModule, list[Comment]]:
    """The module and comments of a program, or of a file of operator declarations (a text
    that is neither raises the program's ParseError)."""
    try:
        return parse_with_comments(Source(text, path))
    except ParseError as error:
        if not _declares_operators(text):
            raise
        try:
            return parse_stdlib_with_comments(Source(text, path))
        except ParseError:
            raise error from None


def _declares_operators(text: str) -> bool:
    """Whether the first definition of a text is an operator's (`def nn.dense`, not `def @f`)."""
    at = text.find("def ")
    while at > 0 and text[at - 1] not in " \t\r\n\f;}":  # `def` inside a word or comment
        at = text.find("def ", at + 1)
    return at >= 0 and text[at + 4 :].lstrip()[:1] not in ("@", "")


def format_source(text: str, path: str = "<input>", width: int | None = DEFAULT_WIDTH) -> str:
    """The text formatted (its lines ending in the line break it uses). Raises ParseError when it
    does not parse,
    Refused when the result would not keep the program and every comment, RecursionError when
    it nests deeper than the stack allows (run it on `gradual.api.run_deep`'s thread)."""
    with gc_paused():  # many objects made while a large tree is alive: see `gc_paused`
        module, comments = _parse(text, path)
        formatted = _as_in(text, format_module(module, comments=comments, width=width, source=text))
        if formatted != text:  # a text formatted already is its own proof
            _check(module, comments, formatted, path, text)
        return formatted


def _as_in(original: str, text: str) -> str:
    """`text` with the line breaks `original` uses (its first one, `\r\n`, `\r` or `\n`, as
    ruff and black keep a file's; a block comment's own become that one too), and its byte
    order mark if it has one."""
    found = LINE_BREAK.search(original)
    newline = found.group() if found is not None else "\n"
    if newline != "\n" or "\r" in text:
        text = LINE_BREAK.sub(newline, text)
    return BOM + text if original.startswith(BOM) else text


def format_text(text: str, path: str = "<input>", width: int | None = DEFAULT_WIDTH) -> str | None:
    """The text formatted, or None when it does not parse or formatting would not keep its
    meaning and every comment."""
    try:
        return format_source(text, path, width)
    except (ParseError, Refused, RecursionError):
        return None


def _check(module: ast.AnyModule, comments: list[Comment], formatted: str, path: str, text: str | None = None) -> None:
    """Raise Refused unless `formatted` parses to `module` with `comments` (`text`: the text
    `module` was parsed from, whose definitions the formatted text may hold unchanged)."""
    if text is not None and _same_by_pieces(module, comments, text, formatted, path):
        return
    try:
        again, kept = _parse(formatted, path)
    except (ParseError, RecursionError):
        raise Refused("the formatted text does not parse") from None
    if not same_tree(module, again):
        raise Refused("the formatted text is another program")
    if [_plain(c.text) for c in kept] != [_plain(c.text) for c in comments]:
        raise Refused("the formatted text does not keep every comment in its place")
    docs = [getattr(d, "doc", None) for d in module.defs]
    if docs != [getattr(d, "doc", None) for d in again.defs]:
        raise Refused("the formatted text does not keep each declaration's documentation")


def _same_by_pieces(module: ast.AnyModule, comments: list[Comment], text: str, formatted: str, path: str) -> bool:
    """Whether `formatted` provably parses to `module` with `comments`, parsing only what
    formatting changed. False proves nothing (the caller parses the whole text).

    Each top-level item (definition, declaration, type) whose text `formatted` holds unchanged,
    from the start of a line, is that item: `formatted` is then pieces, unchanged items and
    the gaps between them, each a whole sequence of items and comments. The parser reads
    such a concatenation as the items and comments of its pieces in turn: the grammar's top
    level is a plain sequence (the state after an item accepts what the start state does),
    no token or comment runs across a boundary (an item ends with `}` or `;` and the gap
    before one ends with a line break), and a piece that does not parse alone proves nothing.
    So only the gaps are parsed; a declaration's documentation (the `///` lines above it) is
    read from `formatted` itself."""
    items = sorted((*module.defs, *module.types), key=lambda item: item.span.start)
    kept: list[tuple[int, int, ast.Node | None, list[ast.Node]]] = []  # (gap, item after it, changed items in it)
    at, changed = 0, []
    for item in items:
        body = text[item.span.start : item.span.end]
        found = formatted.find(body, at)
        if found < 0 or (found > 0 and formatted[found - 1] not in "\r\n"):
            changed.append(item)
            continue
        kept.append((at, found, item, changed))
        at, changed = found + len(body), []
    kept.append((at, len(formatted), None, changed))
    defs: list[ast.Node] = []
    types: list[ast.Node] = []
    texts: list[str] = []
    docs: list[object] = []
    starts = [c.start for c in comments]

    def comments_in(span: Span) -> list[str]:
        return [c.text for c in comments[bisect_left(starts, span.start) : bisect_left(starts, span.end)]]

    for gap_start, gap_end, item, changed in kept:
        gap = formatted[gap_start:gap_end]
        if gap.strip(" \t\r\n\f"):
            read = _read_gap(gap, changed, text, path, comments_in)
            if read is None:
                return False
            gap_defs, gap_types, gap_texts = read
            types += gap_types
            defs += gap_defs
            docs += [_doc_in(formatted, gap_start + d.span.start, d) for d in gap_defs]
            texts += gap_texts
        if item is not None:
            if isinstance(item, ast.TypeDef):
                types.append(item)
            else:
                defs.append(item)
                docs.append(_doc_in(formatted, gap_end, item))
            texts += comments_in(item.span)
    return (
        same_tree(tuple(module.types), tuple(types))
        and same_tree(tuple(module.defs), tuple(defs))
        and [_plain(t) for t in texts] == [_plain(c.text) for c in comments]
        and docs == [getattr(d, "doc", None) for d in module.defs]
    )


#: what stands in for a definition's unchanged body while its changed signature is read
_PLACEHOLDER = "{0}"


def _read_gap(
    gap: str, changed: list[ast.Node], text: str, path: str, comments_in: Callable[[Span], list[str]]
) -> tuple[list[Any], tuple[ast.TypeDef, ...], list[str]] | None:
    """The definitions (or declarations), types, and texts of comments of a gap, in order;
    None when that is not proven.

    A changed definition whose body (its block, `{` to `}`) the gap holds unchanged keeps
    that body: the gap is read with `{0}` in its place, and a definition whose block is
    exactly that placeholder is the original definition when the rest of it (name,
    parameters, return type) is the same. A block is a nonterminal the parser reads alike
    after any signature (the state after its `{` is the same), no token or comment runs
    across its braces, and what follows it is what follows the placeholder.

    A gap of definitions (not declarations, whose documentation is read from the text's
    lines) is read with each run of blanks (spaces and tabs) outside strings, comments and
    the header as one space (`_blanks_as_one`), and a body is unchanged when it is so: such
    a run only separates lexemes, each lexeme reads the same whatever the run's length, and
    the lexer's only look past blanks (`//` then blanks then an operand) skips any number."""
    if all(isinstance(item, (ast.Def, ast.TypeDef)) for item in changed):
        gap, plain = _blanks_as_one(gap), _blanks_as_one
    else:
        plain = _as_is
    pieces: list[str] = []
    holes: dict[int, ast.Def] = {}  # where a placeholder starts in the text read -> its definition
    at = 0
    size = 0
    for item in changed:
        if not isinstance(item, ast.Def):
            continue
        body = plain(text[item.body.span.start : item.body.span.end])
        found = gap.find(body, at)
        if found < 0:
            continue
        pieces.append(gap[at:found])
        size += found - at
        holes[size] = item
        pieces.append(_PLACEHOLDER)
        size += len(_PLACEHOLDER)
        at = found + len(body)
    pieces.append(gap[at:])
    try:
        again, found_comments = _parse("".join(pieces), path)
    except (ParseError, RecursionError):
        return None
    if not holes:
        return list(again.defs), again.types, [c.text for c in found_comments]
    made: list[Any] = []
    ordered = [(c.start, 0, c.text) for c in found_comments]  # (where, order there, text)
    for d in again.defs:
        original = holes.pop(d.body.span.start, None) if isinstance(d, ast.Def) else None
        if original is None:
            made.append(d)
            continue
        assert isinstance(d, ast.Def) and isinstance(original, ast.Def), "holes hold definitions"
        if d.body.span.end - d.body.span.start != len(_PLACEHOLDER) or not _same_signature(d, original):
            return None
        made.append(original)
        # the kept body's comments stand where its placeholder does
        ordered += [(d.body.span.start, 1 + i, t) for i, t in enumerate(comments_in(original.body.span))]
    if holes:  # a placeholder that is no definition's whole block
        return None
    return made, again.types, [t for _, _, t in sorted(ordered)]


#: what a run of blanks may stand inside: a string, a comment, the `#[version]` header (kept
#: as they are), else blanks (made one space); anything else is passed over a character at a
#: time (no lexeme but those holds a blank or starts with `"`, `/` or `#`)
_KEPT = r'("[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*"|//[^\r\n]*|/\*[^*]*(?:\*(?!/)[^*]*)*\*/|#\[[^\]\r\n]*\])'
_KEPT_OR_BLANKS = re.compile(_KEPT + r"|[ \t]+")
#: without tabs: what is kept, or a run of two spaces or more (its first space in group 2), so
#: that a template (`\1\2`) rewrites it without a Python call for each match
_KEPT_OR_SPACES = re.compile(_KEPT + r"|( ) +")


def _blanks_as_one(text: str) -> str:
    """`text` with each run of spaces and tabs outside strings, comments and the header as one
    space."""
    if "\t" in text:
        return _KEPT_OR_BLANKS.sub(_kept_or_space, text)
    return _KEPT_OR_SPACES.sub(r"\1\2", text)


def _kept_or_space(m: re.Match[str]) -> str:
    return m.group(1) or " "


def _as_is(text: str) -> str:
    return text


def _same_signature(made: ast.Def, original: ast.Def) -> bool:
    """Whether two definitions are the same but for their bodies."""
    return all(
        same_tree(getattr(made, name), getattr(original, name))
        for name in ast.compared_fields(ast.Def)
        if name != "body"
    )


def _doc_in(text: str, start: int, item: ast.Node) -> object:
    """The documentation the parser gives a declaration at `start` of `text` (None for a
    definition, which has none)."""
    return doc_comment(text, start) if isinstance(item, ast.OpDecl) else None


def _plain(text: str) -> str:
    """A comment's text with its line breaks as `\\n` (a block comment's may be `\\r\\n`)."""
    return LINE_BREAK.sub("\n", text)


def format_definitions(
    text: str, start: int, end: int, path: str = "<input>", width: int | None = DEFAULT_WIDTH
) -> list[TextEdit]:
    """Edits that format each definition overlapping [start, end] of the text (from the start
    of its line when only blanks precede it there, to its closing brace), leaving the rest of
    the text as it is; none when they are all formatted. Raises as `format_source` does (the
    whole text must parse; the text the edits make is checked as `format_source` checks).

    Only the definitions touched are printed, each alone with the comments inside it: a
    definition's layout depends on nothing before or after it (it begins a line at the top
    level, and the comments before it, which are not replaced, are placed before it)."""
    with gc_paused():
        module, comments = _parse(text, path)
        starts = [c.start for c in comments]
        edits = []
        for d in module.defs:
            if d.span.end < start or d.span.start > end:
                continue
            inside = comments[bisect_left(starts, d.span.start) : bisect_left(starts, d.span.end)]
            alone: ast.AnyModule = ast.Module((d,)) if isinstance(d, ast.Def) else ast.Module((d,))
            printed = format_module(alone, comments=inside, width=width, source=text)
            replacement = _as_in(text, printed.rstrip("\n")).removeprefix(BOM)
            begin = _line_start_if_blank(text, d.span.start)
            if text[begin : d.span.end] != replacement:
                edits.append(TextEdit(begin, d.span.end, replacement))
        if edits:
            _check(module, comments, applied(text, edits), path, text)
        return edits


def _line_start_if_blank(text: str, offset: int) -> int:
    at = offset
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    return at if at == 0 or text[at - 1] in "\r\n" else offset


def applied(text: str, edits: list[TextEdit]) -> str:
    """The text with non-overlapping edits made (in one pass: many edits of a long text cost
    no more than the text)."""
    pieces, at = [], 0
    for edit in sorted(edits, key=lambda e: e.start):
        pieces += [text[at : edit.start], edit.text]
        at = edit.end
    pieces.append(text[at:])
    return "".join(pieces)
