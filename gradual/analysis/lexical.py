"""The program text read lexically, without the parser: tokens, and where the cursor stands
(inside which call, which type, which definition). Editor features that must work on text
that does not parse yet (completion and signature help while typing, highlighting, folding)
read it here; everything that needs meaning asks the analysis.

The tokens are context-free, as close to the lexer's as text without a parser state allows:
`//` is floor division inside a type's dims (`(n - 1) // 2`) and a comment elsewhere; an
unterminated block comment or string runs to the end of its text (a string: its line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterator, NamedTuple, Optional

from gradual.types import DTYPES

KEYWORDS = frozenset({"def", "let", "if", "else", "fn", "as", "can_unify", "ref", "ref_read", "ref_write"})
CONSTANTS = frozenset({"True", "False", "None"})
TYPE_NAMES = frozenset({"Tensor"})
DTYPE_NAMES = frozenset(DTYPES)

_TOKEN = re.compile(
    r"""
      (?P<space>[ \t\r\n\f]+)
    | (?P<block>/\*)
    | (?P<slashes>//)
    | (?P<header>\#\[[^\]\r\n]*\]?)
    | (?P<local>%[A-Za-z0-9_]*)
    | (?P<global>@[A-Za-z_0-9]*)
    | (?P<hole>\?[A-Za-z_][A-Za-z0-9_]*)
    | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?:f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64)?)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.?)
    | (?P<string>"[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*"?)
    | (?P<punct>->|\.\.|.)
    """,
    re.VERBOSE | re.DOTALL,
)
_LINE_REST = re.compile(r"[^\r\n]*")


class Token(NamedTuple):
    """One lexeme: `kind` is comment, header, local, global, hole, number, name, string or
    punct; [start, end) in the text. (A tuple: a 10,000-line document has 100,000 of them, and
    a frozen dataclass took a microsecond each to make.)"""

    kind: str
    start: int
    end: int


def tokens(text: str, start: int = 0, end: Optional[int] = None) -> Iterator[Token]:
    """The tokens of text[start:end] (whitespace skipped). `//` is a comment unless it stands
    inside a type's dims (see the module docstring)."""
    stop = len(text) if end is None else end
    at = start
    depth = 0  # brackets open inside a `Tensor[`
    tensor_next = False
    match = _TOKEN.match
    while at < stop:
        m = match(text, at, stop)
        if m is None:  # unreachable: the last alternative takes any character
            return
        kind = m.lastgroup or "punct"
        token_end = m.end()
        if kind == "space":
            at = token_end
            continue
        if kind == "block":
            close = text.find("*/", token_end, stop)
            token_end = stop if close == -1 else close + 2
            kind = "comment"
        elif kind == "slashes":
            if depth:
                kind = "punct"
            else:
                token_end = _LINE_REST.match(text, token_end, stop).end()  # type: ignore[union-attr]
                kind = "comment"
        elif kind == "name" and text[m.start() : token_end] == "Tensor":
            tensor_next = True
        elif kind == "punct":
            char = text[m.start()]
            if char in "[(" and (depth or tensor_next):
                depth += 1
            elif char in "])" and depth:
                depth -= 1
            tensor_next = False
        yield Token(kind, m.start(), token_end)
        at = token_end


# where the cursor stands -----------------------------------------------------------------
@dataclass
class Frame:
    """An open bracket before the cursor. `kind`: "call" (its callee's name in `callee`),
    "tensor" (`Tensor[`), "dims" (a tensor type's dims), "params" (a definition's or closure's
    parameter list), "typeparams" (`def @f[`), "block" (`{`) or "group" (any other).
    `argument` counts the commas at this level; `attribute` names the `name=` the current
    argument starts with, if any; `argument_start` is where the current argument starts."""

    kind: str
    start: int
    callee: str = ""
    argument: int = 0
    argument_start: int = 0
    attribute: str = ""
    given: list = field(default_factory=list)  # the attribute names given so far (calls)


@dataclass
class Context:
    """What is around an offset of a definition: the open brackets (innermost last), the
    last token before the word being typed, and the names the definition writes."""

    frames: list
    previous: Optional[Token]
    in_comment: bool = False
    locals_before: list = field(default_factory=list)  # `%x` written before the cursor, in order
    dim_names: list = field(default_factory=list)  # names written in the definition's dims
    dtype_params: list = field(default_factory=list)  # `def @f[T, U]`'s names
    in_definition: bool = False

    def innermost(self, *kinds: str) -> Optional[Frame]:
        """The innermost open frame, if it is of one of these kinds."""
        return self.frames[-1] if self.frames and self.frames[-1].kind in kinds else None

    def call(self) -> Optional[Frame]:
        """The innermost call whose argument list holds the cursor (not inside a type)."""
        for frame in reversed(self.frames):
            if frame.kind == "call":
                return frame
            if frame.kind in ("tensor", "dims", "block", "params"):
                return None
        return None


def definition_bounds(text: str, offset: int) -> tuple[int, int]:
    """The text of the definition around `offset`: from the `def` that starts the line at or
    before it to the next such line (block comments are not looked into here)."""
    start = 0
    at = min(len(text), offset + 4)
    while at > 0:
        found = max(text.rfind("\ndef", 0, at), text.rfind("\rdef", 0, at))
        if found == -1:
            break
        if found + 1 <= offset and _word_end(text, found + 4):
            start = found + 1
            break
        at = found + 3
    end = len(text)
    for newline in ("\ndef", "\rdef"):
        found = text.find(newline, offset)
        while found != -1 and not _word_end(text, found + 4):
            found = text.find(newline, found + 1)
        if found != -1:
            end = min(end, found + 1)
    return start, end


def _word_end(text: str, at: int) -> bool:
    return at >= len(text) or not (text[at].isalnum() or text[at] == "_")


def context_at(text: str, offset: int) -> Context:
    """The context of `offset` in its definition (see `Context`)."""
    start, end = definition_bounds(text, offset)
    word_start = word_range(text, offset)[0]
    frames: list[Frame] = []
    found = Context([], None, in_definition=text.startswith("def", start) and _word_end(text, start + 3))
    snapshot: Optional[list] = None
    previous: Optional[Token] = None
    after_def = False
    for token in tokens(text, start, end):
        if token.kind in ("comment", "string") and token.start < offset and _holds(text, token, offset):
            found.in_comment = True
        if token.kind == "comment":
            continue
        if snapshot is None and token.start >= word_start:
            snapshot = [replace(f) for f in frames]  # each shares its `given` list with the live frame
            found.previous = previous
        value = text[token.start : token.end]
        if token.kind == "name" and frames:
            _collect(found, frames[-1].kind, value)
        if token.kind == "local" and snapshot is None:
            found.locals_before.append(value)
        if token.kind == "global" and previous is not None and text[previous.start : previous.end] == "def":
            after_def = True
        if token.kind == "punct":
            if value in "([{":
                frames.append(_opened(frames, value, token, previous, text, after_def))
                after_def = after_def and value == "["
            elif value in ")]}":
                if frames:
                    frames.pop()
            elif value == "," and frames:
                frames[-1].argument += 1
                frames[-1].argument_start = token.end
                frames[-1].attribute = ""
            elif value == "=" and frames and frames[-1].kind == "call" and previous is not None:
                if previous.kind == "name" and previous.start >= frames[-1].argument_start:
                    frames[-1].attribute = text[previous.start : previous.end]
                    frames[-1].given.append(frames[-1].attribute)
        previous = token
    if snapshot is None:
        snapshot = [replace(f) for f in frames]
        found.previous = previous
    found.frames = snapshot
    return found


def _holds(text: str, token: Token, offset: int) -> bool:
    """Whether a comment or string token holds `offset` (its end too, when it is open there:
    a `//` comment, an unterminated block comment or string)."""
    if offset < token.end:
        return True
    if offset > token.end:
        return False
    if token.kind == "comment":
        return text.startswith("//", token.start) or not text.endswith("*/", token.start + 2, token.end)
    return token.end - token.start < 2 or text[token.end - 1] != '"'


def _collect(found: Context, kind: str, name: str) -> None:
    """Note a name written in a tensor type's dims (a dim symbol), or in `def @f[...]`."""
    if kind == "dims" and name not in found.dim_names and name not in TYPE_NAMES:
        found.dim_names.append(name)
    elif kind == "typeparams" and name not in found.dtype_params:
        found.dtype_params.append(name)


def _opened(frames: list, char: str, token: Token, previous: Optional[Token], text: str, after_def: bool) -> Frame:
    """The frame a bracket opens."""
    prev = text[previous.start : previous.end] if previous is not None else ""
    inside = frames[-1].kind if frames else ""
    kind, callee = "group", ""
    if char == "[" and prev == "Tensor":
        kind = "tensor"
    elif inside in ("tensor", "dims") and char in "([":
        kind = "dims"
    elif char == "[" and after_def and previous is not None and previous.kind == "global":
        kind = "typeparams"
    elif char == "(" and (after_def or prev == "fn"):
        kind = "params"
    elif char == "(" and previous is not None and previous.kind in ("name", "global", "local"):
        if prev not in KEYWORDS or prev in ("ref", "ref_read", "ref_write"):
            kind, callee = "call", prev
    elif char == "{":
        kind = "block"
    return Frame(kind, token.start, callee, 0, token.end)


def word_range(text: str, offset: int) -> tuple[int, int]:
    """The name being typed at `offset`: from its sigil (`%`, `@`, `?`) or first character to
    `offset` (a dotted operator name counts as one word)."""
    start = offset
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
        start -= 1
    if start > 0 and text[start - 1] in "%@?":
        start -= 1
    return start, offset
