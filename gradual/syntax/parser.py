"""Text to AST: a lark LALR parser whose callbacks build AST nodes while parsing.

There is no intermediate parse tree and no recursion (lark's LALR driver is iterative), so
deeply nested programs parse in constant stack. Syntax errors become `ParseError`s carrying
a span and an expected-token list, which the diagnostics layer renders.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Sequence

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast
from .source import Source, Span

_NUMBER_SUFFIX = re.compile(r"(f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64)$")
_SUFFIX_DTYPES = {
    "f": "float32", "f16": "float16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
}


class ParseError(Exception):
    """A syntax error: where, what was found, and what the grammar expected."""

    def __init__(self, span: Span, found: str, expected: Sequence[str], detail: str = "") -> None:
        super().__init__(detail or f"unexpected {found}")
        self.span = span
        self.found = found
        self.expected = tuple(expected)
        self.detail = detail


def _first_span(item: object, source: Source) -> Span:
    if isinstance(item, Token):
        return Span(source, item.start_pos, item.end_pos)
    return item.span  # type: ignore[attr-defined]


class _Builder(Transformer):
    """Lark callbacks: each grammar alternative becomes one AST node with its span."""

    def __init__(self) -> None:
        super().__init__(visit_tokens=False)
        self.source = Source("")

    # helpers ------------------------------------------------------------------------------
    def _span(self, children: Sequence[object]) -> Span:
        return _first_span(children[0], self.source).to(_first_span(children[-1], self.source))

    @staticmethod
    def _nodes(children: Sequence[object]) -> list:
        return [c for c in children if not isinstance(c, Token)]

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.source, tok.start_pos, tok.end_pos)

    # module and definitions ----------------------------------------------------------------
    def start(self, children):
        span = self._span(children) if children else Span(self.source, 0, len(self.source.text))
        return ast.Module(tuple(children), span=span)

    def stdlib(self, children):
        span = self._span(children) if children else Span(self.source, 0, len(self.source.text))
        return ast.Module(tuple(children), span=span)

    def op_decl(self, children):
        name_tok = children[1]
        dtype_params: tuple = ()
        params: list = []
        attrs: list = []
        rule = None
        ret = None
        for c in children[2:-1]:
            if isinstance(c, tuple) and c and c[0] == "dtype_params":
                dtype_params = c[1]
            elif isinstance(c, tuple) and c and c[0] == "op_params":
                for item in c[1]:
                    (attrs if isinstance(item, ast.AttrParam) else params).append(item)
            elif isinstance(c, tuple) and c and c[0] == "rule":
                rule = c[1]
            elif isinstance(c, ast.Node) and not isinstance(c, Token):
                ret = c
        return ast.OpDecl(str(name_tok), dtype_params, tuple(params), tuple(attrs), ret, rule,
                          doc=_doc_comment(self.source.text, children[0].start_pos), span=self._span(children))

    def op_params(self, children):
        return ("op_params", tuple(children))

    def attr_param(self, children):
        name, (kind, is_list, optional) = str(children[0]), children[1]
        has_default = len(children) > 2
        default = children[2] if has_default else None
        return ast.AttrParam(name, kind, is_list, optional, has_default, default, span=self._span(children[:1]))

    def attr_scalar_type(self, children):
        return (str(children[0]), False, len(children) > 1)

    def attr_list_type(self, children):
        return (str(children[1]), True, children[-1].type == "QMARK")

    def rule_ref(self, children):
        return ("rule", str(children[0]))

    def definition(self, children):
        name_tok = children[1]
        dtype_params: tuple = ()
        params: tuple = ()
        ret = None
        for c in children[2:-1]:
            if isinstance(c, tuple) and c and c[0] == "dtype_params":
                dtype_params = c[1]
            elif isinstance(c, tuple) and c and c[0] == "params":
                params = c[1]
            elif isinstance(c, tuple) and c and c[0] == "ret":
                ret = c[1]
        body = children[-1]
        return ast.Def(
            str(name_tok)[1:], dtype_params, params, ret, body,
            span=self._span(children), name_span=self._tok_span(name_tok),
        )

    def dtype_params(self, children):
        return ("dtype_params", tuple(str(t) for t in children if isinstance(t, Token) and t.type == "NAME"))

    def params(self, children):
        return ("params", tuple(children))

    def param(self, children):
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        typ = children[1] if len(children) > 1 else None
        return ast.Param(var, typ, span=self._span(children))

    def ret_type(self, children):
        return ("ret", children[0])

    def block(self, children):
        body = children[1]
        return ast.Body(body.stmts, body.result, span=self._span(children))

    def body(self, children):
        return ast.Body(tuple(children[:-1]), children[-1], span=self._span(children))

    # statements -----------------------------------------------------------------------------
    def graph_binding(self, children):
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        return ast.Let(var, None, children[1], graph=True, span=self._span(children))

    def let_binding(self, children):
        var = ast.Var(str(children[1])[1:], span=self._tok_span(children[1]))
        typ = children[2] if len(children) == 5 else None
        return ast.Let(var, typ, children[-2], span=self._span(children))

    def hint(self, children):
        local = children[2]
        var = ast.Var(str(local)[1:], span=self._tok_span(local))
        dims = children[3]
        return ast.Hint(var, dims.dims if dims.dims is not None else (), span=self._span(children))

    # expressions ----------------------------------------------------------------------------
    def cast(self, children):
        return ast.Cast(children[0], children[2], span=self._span(children))

    def proj(self, children):
        return ast.Proj(children[0], int(children[1]), span=self._span(children))

    def call(self, children):
        callee = children[0]
        args: list = []
        attrs: list = []
        for c in children[2:-1]:
            for item in c:
                (attrs if isinstance(item, ast.Attr) else args).append(item)
        return ast.Call(callee, tuple(args), tuple(attrs), span=self._span(children))

    def args(self, children):
        return list(children)

    def attr(self, children):
        return ast.Attr(str(children[0]), children[1], span=_first_span(children[0], self.source).to(self._value_span(children)))

    def _value_span(self, children):
        value = children[1]
        if isinstance(value, ast.Node):
            return value.span
        return _first_span(children[0], self.source)

    def local(self, children):
        return ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))

    def global_(self, children):
        return ast.GlobalVar(str(children[0])[1:], span=self._tok_span(children[0]))

    def opref(self, children):
        return ast.OpRef(str(children[0]), span=self._tok_span(children[0]))

    def number(self, children):
        tok = children[0]
        value, dtype = self._number(tok)
        return ast.Literal(value, dtype, str(tok), span=self._tok_span(tok))

    def _number(self, tok: Token) -> tuple[int | float, str]:
        try:
            return parse_number(str(tok))
        except ValueError as exc:
            raise ParseError(self._tok_span(tok), f"`{tok}`", (), str(exc)) from None

    def boolean(self, children):
        tok = children[0]
        return ast.Literal(str(tok) == "True", "bool", str(tok), span=self._tok_span(tok))

    def unit(self, children):
        return ast.TupleExpr((), span=self._span(children))

    def paren(self, children):
        return children[1]

    def tuple1(self, children):
        return ast.TupleExpr((children[1],), span=self._span(children))

    def tuple(self, children):
        return ast.TupleExpr(tuple(self._nodes(children)), span=self._span(children))

    def if_(self, children):
        nodes = self._nodes(children)
        return ast.If(nodes[0], nodes[1], nodes[2], span=self._span(children))

    def fn(self, children):
        params: tuple = ()
        ret = None
        for c in children[2:-1]:
            if isinstance(c, tuple) and c and c[0] == "params":
                params = c[1]
            elif isinstance(c, tuple) and c and c[0] == "ret":
                ret = c[1]
        return ast.Fn(params, ret, children[-1], span=self._span(children))

    # attribute values -----------------------------------------------------------------------
    def attr_number(self, children):
        return self._number(children[0])[0]

    def attr_bool(self, children):
        return str(children[0]) == "True"

    def attr_none(self, children):
        return None

    def attr_string(self, children):
        return decode_string(str(children[0]))

    def attr_ident(self, children):
        return ast.Ident(str(children[0]), span=self._tok_span(children[0]))

    def attr_list(self, children):
        items = tuple(c for c in children if not (isinstance(c, Token) and c.type in ("LSQB", "RSQB")))
        return ast.AttrSeq(items, True, span=self._span(children))

    def attr_tuple(self, children):
        items = tuple(c for c in children if not (isinstance(c, Token) and c.type in ("LPAR", "RPAR")))
        return ast.AttrSeq(items, False, span=self._span(children))

    # types ----------------------------------------------------------------------------------
    def tensor_type(self, children):
        shape, dtype = children[2], children[3]
        return ast.TensorTypeExpr(shape.dims, str(dtype), span=self._span(children))

    def scalar_type(self, children):
        return ast.TensorTypeExpr((), str(children[0]), span=self._span(children))

    def unit_type(self, children):
        return ast.TupleTypeExpr((), span=self._span(children))

    def paren_type(self, children):
        return children[1]

    def tuple1_type(self, children):
        return ast.TupleTypeExpr((children[1],), span=self._span(children))

    def tuple_type(self, children):
        return ast.TupleTypeExpr(tuple(self._nodes(children)), span=self._span(children))

    def fn_type(self, children):
        nodes = self._nodes(children)
        return ast.FnTypeExpr(tuple(nodes[:-1]), nodes[-1], span=self._span(children))

    def dyn_type(self, children):
        return ast.DynTypeExpr(span=self._span(children))

    def hole_type(self, children):
        return ast.HoleTypeExpr(str(children[0])[1:], span=self._span(children))

    def any_rank(self, children):
        return ast.TensorTypeExpr(None, "", span=self._span(children))

    def dims(self, children):
        return ast.TensorTypeExpr(tuple(self._nodes(children)), "", span=self._span(children))

    # dimensions ---------------------------------------------------------------------------
    def dim_unknown(self, children):
        return ast.DimUnknown(span=self._span(children))

    def dim_interval(self, children):
        return ast.DimInterval(int(children[0]), int(children[2]), span=self._span(children))

    def dim_lower(self, children):
        return ast.DimInterval(int(children[0]), None, span=self._span(children))

    def dim_upper(self, children):
        return ast.DimInterval(None, int(children[1]), span=self._span(children))

    def dim_variadic(self, children):
        return ast.DimVariadic(str(children[1]), span=self._span(children))

    def dim_broadcast(self, children):
        left, right = children[0], children[2]
        if isinstance(right, ast.DimInt) and right.value == 1:
            target = left
        elif isinstance(left, ast.DimInt) and left.value == 1:
            target = right
        else:
            raise ParseError(self._span(children), "`|`", (), "a broadcast dimension is written `e|1`: one side must be 1")
        return ast.DimBroadcast(target, span=self._span(children))

    def dim_binary(self, children):
        return ast.DimBinary(str(children[1]), children[0], children[2], span=self._span(children))

    def dim_int(self, children):
        return ast.DimInt(int(children[0]), span=self._tok_span(children[0]))

    def dim_name(self, children):
        return ast.DimName(str(children[0]), span=self._tok_span(children[0]))

    def dim_paren(self, children):
        inner = children[1]
        inner.span = self._span(children)
        return inner


def _doc_comment(text: str, pos: int) -> str:
    """The `///` comment lines right above a declaration."""
    lines = text[:pos].rstrip(" \t").split("\n")[:-1]
    doc: list[str] = []
    for line in reversed(lines):
        stripped = line.strip()
        if not stripped.startswith("///"):
            break
        doc.append(stripped[3:].strip())
    return " ".join(reversed(doc))


def parse_number(text: str) -> tuple[int | float, str]:
    """The value and dtype of a numeric literal (`1` int32, `2.0` float32, `1i64`, `1.5f`)."""
    match = _NUMBER_SUFFIX.search(text)
    suffix = match.group(1) if match else ""
    body = text[: len(text) - len(suffix)]
    if suffix:
        dtype = _SUFFIX_DTYPES[suffix]
    elif "." in body or "e" in body or "E" in body:
        dtype = "float32"
    else:
        dtype = "int32"
    if dtype.startswith("float"):
        return float(body), dtype
    if "." in body or "e" in body or "E" in body:
        raise ValueError(f"the integer literal `{text}` has a fractional part or an exponent")
    return int(body), dtype


def decode_string(text: str) -> str:
    """The value of a double-quoted string literal."""
    inner = text[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), inner)


@lru_cache(maxsize=1)
def _grammar_text() -> str:
    return resources.files("gradual.syntax").joinpath("grammar.lark").read_text(encoding="utf-8")


class _Parser:
    """One lark parser (built once) with its transformer."""

    def __init__(self) -> None:
        self.builder = _Builder()
        self.lark = Lark(
            _grammar_text(), parser="lalr", lexer="contextual", transformer=self.builder,
            start=["start", "stdlib"],
            maybe_placeholders=False, cache=False,
        )

    def parse(self, source: Source, start: str = "start"):
        self.builder.source = source
        try:
            return self.lark.parse(source.text, start=start)
        except ParseError:
            raise
        except UnexpectedInput as exc:
            raise _to_parse_error(exc, source) from None
        except VisitError as exc:  # a callback rejected a token (e.g. an unreadable number)
            raise ParseError(Span(source, 0, 0), "input", (), str(exc.orig_exc)) from None


_PARSER: _Parser | None = None


def _parser() -> _Parser:
    global _PARSER
    if _PARSER is None:
        _PARSER = _Parser()
    return _PARSER


def parse_source(source: Source) -> ast.Module:
    """Parse a whole program; raises ParseError on the first syntax error."""
    return _parser().parse(source)


def parse_stdlib_source(source: Source) -> ast.Module:
    """Parse a file of operator declarations (stdlib/*.rly) into a Module of OpDecls."""
    return _parser().parse(source, start="stdlib")


def parse(text: str, path: str = "<input>") -> ast.Module:
    """Parse program text (see `parse_source`)."""
    return parse_source(Source(text, path))


_TOKEN_NAMES = {
    "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`", "RSQB": "`]`", "LBRACE": "`{`", "RBRACE": "`}`",
    "SEMI": "`;`", "COMMA": "`,`", "COLON": "`:`", "EQUAL": "`=`", "QMARK": "`?`", "STAR": "`*`",
    "BAR": "`|`", "PLUS": "`+`", "MINUS": "`-`", "DOTDOT": "`..`", "FLOORDIV": "`//`", "DOT": "`.`",
    "LOCAL": "a local variable (`%x`)", "GLOBAL": "a global (`@f`)", "NAME": "a name",
    "INT": "an integer", "NUMBER": "a number", "STRING": "a string", "BOOL": "`True` or `False`",
    "HOLE": "a type hole (`?T`)", "DEF": "`def`", "LET": "`let`", "IF": "`if`", "ELSE": "`else`",
    "FN": "`fn`", "AS": "`as`", "TENSOR": "`Tensor`", "HINT": "`can_unify`", "NONE": "`None`",
    "RARROW": "`->`", "__ANON_0": "`->`", "$END": "end of input",
}


def describe_token_type(name: str) -> str:
    """A readable name for a grammar terminal."""
    if name in _TOKEN_NAMES:
        return _TOKEN_NAMES[name]
    return f"`{name.lower()}`"


def _to_parse_error(exc: UnexpectedInput, source: Source) -> ParseError:
    text = source.text
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            span = Span(source, len(text), len(text))
            found = "end of input"
        else:
            start = tok.start_pos if tok.start_pos is not None else len(text)
            span = Span(source, start, max(start + 1, tok.end_pos or start + 1))
            found = f"`{tok}`"
        expected = sorted({describe_token_type(t) for t in exc.expected if not t.startswith("__ANON") or t == "__ANON_0"})
        return ParseError(span, found, expected)
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        if text.startswith("/*", pos):
            return ParseError(Span(source, pos, pos + 2), "`/*`", (), "unterminated block comment")
        char = text[pos] if pos < len(text) else ""
        expected = sorted({describe_token_type(t) for t in (exc.allowed or ())})
        return ParseError(Span(source, pos, pos + 1), f"`{char}`", expected)
    if isinstance(exc, UnexpectedEOF):
        return ParseError(Span(source, len(text), len(text)), "end of input", sorted(describe_token_type(t) for t in exc.expected))
    return ParseError(Span(source, 0, 0), "input", ())
