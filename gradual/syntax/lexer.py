"""A fast lexer for the grammar, for the parser's own driver and (through an adapter the
parser makes) lark's LALR parser.

One master regular expression reads each lexeme; the few choices that depend on where the
parser is (a keyword or a name, `//` as floor division or a comment, `?T` as a type hole or
`?` then a name, `-1` as a literal or a minus sign, `1.5` or `1`, `.`, `5`) are made by asking
the parser which terminals its current state accepts, as lark's contextual lexer does, but
without running one regular expression per state. Tokens carry offsets (`start_pos`,
`end_pos`): spans are built from them. Comments and the `#[version]` header are skipped;
when `trivia` is a list, the (start, end) of each is appended to it (the formatter keeps them).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from gradual.syntax.source import BOM, count_breaks, line_start

_LEXEME = re.compile(  # each match reads the whitespace before a lexeme, then the lexeme
    r"""
    [ \t\r\n\f]*
    (?:
      (?P<block>/\*)
    | (?P<slashes>//)
    | (?P<header>\#\[[^\]\r\n]*\])
    | (?P<local>%[A-Za-z0-9_]+)
    | (?P<global>@[A-Za-z_][A-Za-z0-9_]*)
    | (?P<hole>\?[A-Za-z_][A-Za-z0-9_]*)
    | (?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?:f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64)?)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
    | (?P<string>"[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*")
    | (?P<dotdot>\.\.)
    | (?P<arrow>->|=>)
    | (?P<cmp>==|!=|<=|>=|<|>)
    | (?P<punct>[%()\[\]{};:,=.?*|+-])
    | (?P<end>\Z)
    )
    """,
    re.VERBOSE,
)
# The commonest statement, read in one match where a statement may start: `%v = op(%a, %b);`
# (or `@f(...)`, a call of a global function) or `let %v = ...;`, the call's arguments variables, then attributes whose values are
# integers, lists of integers, strings or names (a block comment may stand before the `;`,
# where Relay prints types). Names that are keywords are left to the grammar. No two `_WS`
# stand side by side: a failed match would try every split of a run of blanks (quadratic).
# A string or comment is read as runs of one character class (`[^"\\\n]*(?:\\.[^"\\\n]*)*`),
# never as a repeated alternation (`(?:\\.|[^"\\\n])*`): Python's regular expressions keep a
# backtracking point for each repetition of a group, about 400 bytes a character (a string
# attribute of 8 million characters took 3 GB and 4 s to read; now 24 MB and 0.03 s).
_WS = r"[ \t\r\n\f]*"
_LOCAL = r"%[A-Za-z0-9_]+"
_NAME = (
    r"(?!(?:def|let|if|else|fn|as|Tensor|can_unify|None|True|False)(?![A-Za-z0-9_]))"
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
)
_INT = r"-?[0-9]+(?![0-9A-Za-z_.])"
_WORD = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?![A-Za-z0-9_.])"
_VALUE = rf"""(?:{_INT}|\[{_WS}(?:{_INT}{_WS}(?:,{_WS}{_INT}{_WS})*(?:,{_WS})?)?\]|"[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*"|{_WORD})"""
_ATTR = rf"{_NAME}{_WS}={_WS}{_VALUE}"
#: the grammar's keywords and `True`/`False` (a test holds this to the grammar): never a name
#: in a TENSOR_TYPE
KEYWORDS = (
    "def", "let", "if", "else", "fn", "as", "type", "match", "Tensor", "can_unify", "where", "in", "None",
    "shape", "True", "False", "or", "and", "not", "for", "present", "all", "any",
)  # fmt: skip


def _tensor_type_text(prefix: str = "") -> str:
    """The commonest type, read in one match where a type may start: `Tensor[(d, ...), dtype]`
    whose dims (group `{prefix}dims`) are integers, `?` or names, and whose dtype (group
    `{prefix}dtype`) is a name or `?`. A keyword, a dotted name, an integer with a suffix or
    followed by `..`, a dim expression, `*`, a comment: left to the grammar. As in STATEMENT,
    no two `_WS` stand side by side."""
    words = "|".join(sorted(KEYWORDS, key=len, reverse=True))
    name = rf"(?!(?:{words})(?![A-Za-z0-9_]))[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_.])"
    dim = rf"(?:[0-9]+(?![0-9A-Za-z_.])|\?(?![A-Za-z_])|{name})"
    return (
        rf"Tensor{_WS}\[{_WS}\({_WS}(?:(?P<{prefix}dims>{dim}(?:{_WS},{_WS}{dim})*){_WS}(?:,{_WS})?)?\)"
        rf"{_WS},{_WS}(?P<{prefix}dtype>{name}|\?(?![A-Za-z_])){_WS}\]"
    )


TENSOR_TYPE = re.compile(_tensor_type_text())
# The commonest parameter, read in one match where a parameter may start: `%x: Tensor[...]`
# followed (past blanks) by the `,` or `)` that ends it (not a declaration's `%x: T?`).
PARAM = re.compile(rf"(?P<var>{_LOCAL}){_WS}:{_WS}(?P<type>{_tensor_type_text('type_')})(?={_WS}[,)])")
# A `let` may annotate its variable with such a type: `let %v: Tensor[(n, 4), float32] = ...`.
STATEMENT = re.compile(
    rf"""{_WS}(?:(?P<let>let){_WS})?(?P<var>{_LOCAL}){_WS}
    (?(let)(?::{_WS}(?P<type>{_tensor_type_text("type_")}){_WS})?)={_WS}(?P<op>{_NAME}|@[A-Za-z_][A-Za-z0-9_]*){_WS}\(
    (?:{_WS}(?P<args>{_LOCAL}(?:{_WS},{_WS}{_LOCAL})*))?
    (?:(?(args){_WS},){_WS}(?P<attrs>{_ATTR}(?:{_WS},{_WS}{_ATTR})*))?
    (?:(?(args),|(?(attrs),|(?!))))?{_WS}(?P<close>\))
    (?:{_WS}/\*[^*]*(?:\*(?!/)[^*]*)*\*/)*{_WS};""",
    re.VERBOSE,
)
#: pieces of a STATEMENT match, for the parser that builds its nodes
LOCALS = re.compile(_LOCAL)
ATTRS = re.compile(rf"(?P<name>[^ \t\r\n\f=,]+){_WS}={_WS}(?P<value>{_VALUE})")
INTS = re.compile(r"-?[0-9]+")
#: the dims of a TENSOR_TYPE match, each an integer, `?` or a name (the match has checked them)
DIMS = re.compile(r"[0-9]+|\?|[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = re.compile(r"[0-9]+")
_INT_SUFFIX = re.compile(r"(?:i8|i16|i32|i64|u8|u16|u32|u64)(?![A-Za-z0-9_])")
_FLOORDIV_NEXT = re.compile(r"[ \t]*[-0-9(A-Za-z_]")
_BLOCK_END = "*/"
_LINE_END = re.compile(r"[^\r\n]*")  # a `//` comment ends at any line break (source.LINE_BREAK)
_BOOLS = ("True", "False")


class FastLexer:
    """The lexer: `literals` maps each string terminal's text to its name (`(` -> LPAR)."""

    #: read the commonest statement as one STATEMENT token, and the commonest tensor type as
    #: one TENSOR_TYPE token, and the commonest parameter as one PARAM token (off: token by token,
    #: as a test compares; all give the same tree)
    read_statements = True
    read_types = True

    def __init__(self, literals: dict[str, str]) -> None:
        self.literals = literals
        #: the spans of the comments read, when a caller collects them (None: not kept)
        self.trivia: list[tuple[int, int]] | None = None

    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Tok]:
        """The tokens of a text for lark's own driver."""
        text = lexer_state.text.text if hasattr(lexer_state.text, "text") else lexer_state.text
        for token in self.tokens(text, parser_state.parse_conf.parse_table.states, parser_state.state_stack):
            lexer_state.last_token = token
            yield token

    def tokens(self, text: str, rows: Any, stack: list[int]) -> Iterator[Tok]:
        """The tokens of a text, each read for what the parser accepts next: `rows[stack[-1]]`
        holds the terminals of the state on top of the parser's (live) state stack. Where a
        statement may start (after `{` or `;`, and comments), the commonest statement is one
        STATEMENT token."""
        pos = 1 if text.startswith(BOM) else 0
        match = _LEXEME.match
        literals = self.literals
        statement_next = False
        while True:
            if statement_next and "STATEMENT" in rows[stack[-1]]:
                s = STATEMENT.match(text, pos)
                # a comment it holds (before the `;`) is read token by token when comments are kept
                if s is not None and (self.trivia is None or text.find("/*", pos, s.end()) < 0):
                    yield StatementTok(s)
                    pos = s.end()
                    continue
            m = match(text, pos)
            if m is None:
                raise self._unexpected(text, _skip_space(text, pos), rows[stack[-1]])
            kind = m.lastgroup
            if kind == "local":  # the commonest lexemes barely depend on the parser's state
                statement_next = False
                accepts = rows[stack[-1]]
                if "PERCENT" in accepts:  # `n %4` in a dim: a remainder, not a variable
                    yield Tok(literals.get("%", "PERCENT"), "%", m.start(kind))
                    pos = m.start(kind) + 1
                    continue
                if self.read_types and "PARAM" in accepts:
                    p = PARAM.match(text, m.start(kind))
                    if p is not None:
                        yield ParamTok(p)
                        pos = p.end()
                        continue
                yield Tok("LOCAL", m.group(kind), m.start(kind))
                pos = m.end()
            elif kind == "punct":
                value = m.group(kind)
                statement_next = (value == ";" or value == "{") and self.read_statements
                yield Tok(literals.get(value, value), value, m.start(kind))
                pos = m.end()
            elif kind == "end":
                return
            elif kind == "header":
                pos = m.end()
                if self.trivia is not None:
                    self.trivia.append((m.start(kind), pos))
            else:
                assert kind is not None, "every alternative of _LEXEME is a named group"
                if (
                    kind == "name"
                    and self.read_types
                    and m.group(kind) == "Tensor"
                    and "TENSOR_TYPE" in rows[stack[-1]]
                ):
                    t = TENSOR_TYPE.match(text, m.start(kind))
                    if t is not None:
                        statement_next = False
                        yield TensorTypeTok(t)
                        pos = t.end()
                        continue
                token, pos = self._token(kind, m, text, rows[stack[-1]])
                if token is not None:
                    statement_next = False
                    yield token

    # one lexeme ---------------------------------------------------------------------------
    def _token(self, kind: str, m: re.Match[str], text: str, accepts: Any) -> tuple[Tok | None, int]:
        start = m.start(kind)
        value = m.group(kind)
        if kind == "name":
            return self._word(value, start, accepts), m.end()
        if kind == "local":
            return Tok("LOCAL", value, start), m.end()
        if kind == "punct":
            return Tok(self.literals.get(value, value), value, start), m.end()
        if kind == "number":
            return self._number(value, start, text, accepts)
        if kind == "global":
            return Tok("GLOBAL", value, start), m.end()
        if kind == "slashes":
            return self._slashes(start, text, accepts)
        if kind == "block":
            close = text.find(_BLOCK_END, start + 2)
            if close < 0:
                from lark.exceptions import UnexpectedCharacters

                raise UnexpectedCharacters(text, start, *_line_col(text, start), allowed=None)
            return self._skipped(start, close + 2)
        if kind == "hole":
            if "HOLE" in accepts:
                return Tok("HOLE", value, start), m.end()
            return Tok(self.literals.get("?", "QMARK"), "?", start), start + 1
        if kind == "string":
            return Tok("STRING", value, start), m.end()
        if kind == "dotdot":
            return Tok("DOTDOT", value, start), m.end()
        if kind == "cmp":
            return Tok("CMP", value, start), m.end()
        return Tok(self.literals.get(value, value), value, start), m.end()  # arrow

    def _word(self, value: str, start: int, accepts: Any) -> Tok:
        literal = self.literals.get(value)
        if literal is not None and literal in accepts:
            return Tok(literal, value, start)
        if value in _BOOLS and "BOOL" in accepts:
            return Tok("BOOL", value, start)
        if "NAME" not in accepts and literal is not None:
            return Tok(literal, value, start)
        return Tok("NAME", value, start)

    def _number(self, value: str, start: int, text: str, accepts: Any) -> tuple[Tok, int]:
        if "NUMBER" in accepts:
            return Tok("NUMBER", value, start), start + len(value)
        if value[0] == "-":  # a sign is never dropped: where it does not fit, the parser says so
            return Tok(self.literals.get("-", "MINUS"), "-", start), start + 1
        digits = _DIGITS.match(text, start)
        if digits is not None and "INT" in accepts:  # a dim; Relay prints int64 dims as `1i64`
            suffix = _INT_SUFFIX.match(text, digits.end())
            return Tok("INT", digits.group(), digits.start()), suffix.end() if suffix else digits.end()
        return Tok("NUMBER", value, start), start + len(value)

    def _slashes(self, start: int, text: str, accepts: Any) -> tuple[Tok | None, int]:
        if "FLOORDIV" in accepts and _FLOORDIV_NEXT.match(text, start + 2):
            return Tok("FLOORDIV", "//", start), start + 2
        comment = _LINE_END.match(text, start)
        assert comment is not None, "_LINE_END matches the empty string"
        return self._skipped(start, comment.end())

    def _skipped(self, start: int, end: int) -> tuple[None, int]:
        """A comment: no token; noted when trivia are being kept."""
        if self.trivia is not None:
            self.trivia.append((start, end))
        return None, end

    def _unexpected(self, text: str, pos: int, accepts: Any) -> Exception:
        from lark.exceptions import UnexpectedCharacters

        line, column = _line_col(text, pos)
        return UnexpectedCharacters(text, pos, line, column, allowed=set(accepts))


class Tok:
    """A token: what lark's parser needs of one (its type) and what spans need (offsets).

    Lighter than `lark.Token` (a str subclass with a dict of eight attributes), which made
    up a quarter of parsing time. The line and column attributes exist for lark's error path."""

    __slots__ = ("type", "value", "start_pos", "end_pos")
    line = column = end_line = end_column = None

    def __init__(self, kind: str, value: str, start: int) -> None:
        self.type = kind
        self.value = value
        self.start_pos = start
        self.end_pos = start + len(value)

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r})"

    def __len__(self) -> int:
        return len(self.value)


class StatementTok(Tok):
    """A STATEMENT token: the match of a whole statement (the parser builds its nodes)."""

    __slots__ = ("match",)

    def __init__(self, match: re.Match[str]) -> None:  # a token made from its match
        start = match.start("let")
        if start < 0:
            start = match.start("var")
        self.type = "STATEMENT"
        self.value = match.string[start : match.end()]
        self.start_pos = start
        self.end_pos = match.end()
        self.match = match


class _MatchTok(Tok):
    """A token read whole by one pattern: its kind, the matched text, and the match itself
    (the parser builds the nodes from its groups)."""

    __slots__ = ("match",)
    KIND = ""

    def __init__(self, match: re.Match[str]) -> None:  # a token made from its match
        self.type = self.KIND
        self.value = match.group()
        self.start_pos = match.start()
        self.end_pos = match.end()
        self.match = match


class TensorTypeTok(_MatchTok):
    """A TENSOR_TYPE token: the match of a whole tensor type."""

    __slots__ = ()
    KIND = "TENSOR_TYPE"


class ParamTok(_MatchTok):
    """A PARAM token: the match of a whole typed parameter."""

    __slots__ = ()
    KIND = "PARAM"


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\f":
        pos += 1
    return pos


def _line_col(text: str, pos: int) -> tuple[int, int]:
    return count_breaks(text[:pos]) + 1, pos - line_start(text, pos) + 1
