"""Text to AST: an LALR parser of the lark grammar whose callbacks build AST nodes while
parsing.

There is no intermediate parse tree and no recursion (the driver, driver.py, is iterative
over lark's tables, kept in the user cache so that a start needs no lark), so deeply nested
programs parse in constant stack. Syntax errors become `ParseError`s carrying a span and an
expected-token list (the terminals lark's interactive parser accepts at the failure: the text
is parsed again by lark's own driver), which the diagnostics layer renders.

Beyond the grammar, the parser rejects what the AST could not represent faithfully: a
positional argument after an attribute, an attribute given twice, a `can_unify` hint of
dynamic rank, an integer literal of more than `MAX_DIGITS` digits, a float literal that
overflows, an integer literal with a fraction or exponent, and a broadcast dim `e|f` where
neither side is 1.
"""

from __future__ import annotations

import marshal
import math
import re
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence, cast

from gradual.infra import usercache
from gradual.syntax import ast
from gradual.syntax.comments import Comment, comments_of
from gradual.syntax.driver import FORMAT, Tables, describe_tables, drive
from gradual.syntax.lexer import ATTRS, DIMS, INTS, LOCALS, FastLexer, Tok
from gradual.syntax.source import LINE_BREAK, Source, Span

if TYPE_CHECKING:
    from lark import Lark

#: Longest integer literal read (Python's own int/str conversion limit).
MAX_DIGITS = 4300

_NUMBER_SUFFIX = re.compile(r"(f16|f32|f64|f|i8|i16|i32|i64|u8|u16|u32|u64)$")
_SUFFIX_DTYPES = {
    "f": "float32",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
}


class ParseError(Exception):
    """A syntax error: where, what was found, and what the grammar expected."""

    def __init__(self, span: Span, found: str, expected: Sequence[str], detail: str = "") -> None:
        super().__init__(detail or f"unexpected {found}")
        self.span = span
        self.found = found
        self.expected = tuple(expected)
        self.detail = detail


def _first_span(item: "Tok | ast.Node | _Located", source: Source) -> Span:
    if isinstance(item, _TOKENS):
        return Span(source, item.start_pos, item.end_pos)
    return item.span


class _Located:
    """A scalar attribute value (int, float, str, bool, None) with the span it was read from.

    Scalar values are not nodes, so they travel with their span until the enclosing
    attribute, list or parameter takes them apart."""

    __slots__ = ("value", "span")

    def __init__(self, value: ast.AttrValue, span: Span) -> None:
        self.value = value
        self.span = span


def _value(item: "_Located | ast.AttrValue") -> ast.AttrValue:
    """An attribute value without its location."""
    return item.value if isinstance(item, _Located) else item


def show_token(text: str, limit: int = 40) -> str:
    """A token as shown in a message: in backticks, shortened when long, unprintable
    characters spelled as code points."""
    if len(text) == 1 and not text.isprintable():
        return f"character U+{ord(text):04X}"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"`{text}`"


_TOKENS = (Tok,)

#: a callback's children: the tokens and values of its rule's symbols, in order (the grammar
#: says what each is; a callback reads them by position)
Children = list[Any]


class _Builder:
    """The parser's callbacks: each grammar alternative becomes one AST node with its span."""

    def __init__(self) -> None:
        self.source = Source("")

    # helpers ------------------------------------------------------------------------------
    def _span(self, children: Sequence[Any]) -> Span:
        return _first_span(children[0], self.source).to(_first_span(children[-1], self.source))

    @staticmethod
    def _nodes(children: Sequence[object]) -> list[Any]:
        return [c for c in children if not isinstance(c, _TOKENS)]

    def _tok_span(self, tok: Tok) -> Span:
        return Span(self.source, tok.start_pos, tok.end_pos)

    # module and definitions ----------------------------------------------------------------
    def start(self, children: Children) -> ast.Module[ast.Def]:
        span = self._span(children) if children else Span(self.source, 0, len(self.source.text))
        defs = tuple(c for c in children if not isinstance(c, ast.TypeDef))
        types = tuple(c for c in children if isinstance(c, ast.TypeDef))
        return ast.Module(defs, types, span=span)

    # algebraic data types -------------------------------------------------------------------
    def type_def(self, children: Children) -> ast.TypeDef:
        name_tok = children[1]
        params: tuple[str, ...] = ()
        ctors: list[ast.CtorDecl] = []
        for c in children[2:]:
            if isinstance(c, tuple) and c and c[0] == "dtype_params":
                if c[2]:
                    raise ParseError(self._span(children[:3]), "`:`", (), "a type parameter takes no dtype class")
                params = c[1]
            elif isinstance(c, ast.CtorDecl):
                ctors.append(c)
        return ast.TypeDef(
            str(name_tok), params, tuple(ctors), span=self._span(children), name_span=self._tok_span(name_tok)
        )

    def ctor_decl(self, children: Children) -> ast.CtorDecl:
        return ast.CtorDecl(str(children[0]), tuple(self._nodes(children[1:])), span=self._span(children))

    def match_(self, children: Children) -> ast.Match:
        complete = not (len(children) > 1 and isinstance(children[1], _TOKENS) and children[1].type == "QMARK")
        nodes = self._nodes(children)
        return ast.Match(nodes[0], tuple(nodes[1:]), complete, span=self._span(children))

    def clause(self, children: Children) -> ast.Clause:
        rhs = children[-1]
        body = rhs if isinstance(rhs, ast.Body) else ast.Body((), rhs, span=rhs.span)
        return ast.Clause(children[0], body, span=self._span(children))

    def p_name(self, children: Children) -> ast.PWild | ast.PCtor:
        name = str(children[0])
        if name == "_":
            return ast.PWild(span=self._span(children))
        return ast.PCtor(name, (), span=self._span(children), name_span=self._tok_span(children[0]))

    def p_ctor(self, children: Children) -> ast.PCtor:
        return ast.PCtor(
            str(children[0]),
            tuple(self._nodes(children[1:])),
            span=self._span(children),
            name_span=self._tok_span(children[0]),
        )

    def p_var(self, children: Children) -> ast.PVar:
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        typ = children[1] if len(children) > 1 else None
        return ast.PVar(var, typ, span=self._span(children))

    def p_tuple(self, children: Children) -> ast.PTuple:
        return ast.PTuple(tuple(self._nodes(children)), span=self._span(children))

    def adt_type(self, children: Children) -> ast.AdtTypeExpr:
        return ast.AdtTypeExpr(str(children[0]), tuple(self._nodes(children[1:])), span=self._span(children))

    def stdlib(self, children: Children) -> ast.Module[ast.OpDecl]:
        span = self._span(children) if children else Span(self.source, 0, len(self.source.text))
        return ast.Module(tuple(children), span=span)

    def op_decl(self, children: Children) -> ast.OpDecl:
        name_tok = children[1]
        dtype_params: tuple[str, ...] = ()
        dtype_classes: tuple[tuple[str, str], ...] = ()
        params: list[ast.Param] = []
        attrs: list[ast.AttrParam] = []
        rule = None
        ret: Any = None  # the return type: the grammar requires one
        where: tuple[ast.Condition, ...] = ()
        for c in children[2:-1]:
            if isinstance(c, tuple) and c and c[0] == "dtype_params":
                dtype_params, dtype_classes = c[1], c[2]
            elif isinstance(c, tuple) and c and c[0] == "where":
                where = c[1]
            elif isinstance(c, tuple) and c and c[0] == "op_params":
                for item in c[1]:
                    (attrs if isinstance(item, ast.AttrParam) else params).append(item)
            elif isinstance(c, tuple) and c and c[0] == "rule":
                rule = c[1]
            elif isinstance(c, ast.Node) and not isinstance(c, _TOKENS):
                ret = c
        return ast.OpDecl(
            str(name_tok),
            dtype_params,
            tuple(params),
            tuple(attrs),
            ret,
            rule,
            doc=doc_comment(self.source.text, children[0].start_pos),
            dtype_classes=dtype_classes,
            where=where,
            span=self._span(children),
        )

    def op_params(self, children: Children) -> tuple[str, tuple[Any, ...]]:
        return ("op_params", tuple(children))

    def attr_param(self, children: Children) -> ast.AttrParam:
        name, (kind, is_list, optional, type_span) = str(children[0]), children[1]
        has_default = len(children) > 2
        default = _value(children[2]) if has_default else None
        last = children[2].span if has_default else type_span
        return ast.AttrParam(
            name, kind, is_list, optional, has_default, default, span=self._tok_span(children[0]).to(last)
        )

    def attr_scalar_type(self, children: Children) -> tuple[str, bool, bool, Span]:
        return (str(children[0]), False, len(children) > 1, self._span(children))

    def attr_list_type(self, children: Children) -> tuple[str, bool, bool, Span]:
        return (str(children[1]), True, children[-1].type == "QMARK", self._span(children))

    def rule_ref(self, children: Children) -> tuple[str, str]:
        return ("rule", str(children[0]))

    # contracts ----------------------------------------------------------------------------
    def where_clause(self, children: Children) -> tuple[str, tuple[ast.Condition, ...]]:
        return ("where", tuple(self._nodes(children)))

    def c_compare(self, children: Children) -> ast.Compare:
        ops = tuple(str(c) for c in children if isinstance(c, _TOKENS) and c.type == "CMP")
        return ast.Compare(ops, tuple(self._nodes(children)), span=self._span(children))

    def c_member(self, children: Children) -> ast.Member:
        nodes = self._nodes(children)
        return ast.Member(nodes[0], tuple(item for _, item in nodes[1:]), span=self._span(children))

    def c_range(self, children: Children) -> ast.InRange:
        operand, low, high = self._nodes(children)
        return ast.InRange(operand, low, high, span=self._span(children))

    def c_or(self, children: Children) -> ast.CBool:
        return self._junction("or", children)

    def c_and(self, children: Children) -> ast.CBool:
        return self._junction("and", children)

    def _junction(self, op: str, children: Children) -> ast.CBool:
        """`a or b or c` is one node of three parts (left-nested in the grammar; both
        connectives are associative, so parentheses around a part of the same one drop)."""
        left, right = self._nodes(children)
        parts = (*left.parts, right) if isinstance(left, ast.CBool) and left.op == op else (left, right)
        return ast.CBool(op, tuple(parts), span=self._span(children))

    def c_not(self, children: Children) -> ast.CNot:
        return ast.CNot(children[1], span=self._span(children))

    def c_present(self, children: Children) -> ast.CPresent:
        return ast.CPresent(str(children[2]), span=self._span(children))

    def quantifier(self, children: Children) -> Any:
        return children[0]  # the ALL or ANY token (its span starts the quantifier's)

    def c_quant(self, children: Children) -> ast.CQuant:
        quantifier, _, body, _, var, _, source, _ = children
        return ast.CQuant(str(quantifier), body, str(var), str(source), span=self._span(children))

    def c_quant_range(self, children: Children) -> ast.CQuant:
        quantifier, _, body, _, var, _, low, _, high, _ = children
        return ast.CQuant(str(quantifier), body, str(var), None, low, high, span=self._span(children))

    def c_group(self, children: Children) -> ast.Condition:
        inner: ast.Condition = children[1]
        return inner

    def c_binary(self, children: Children) -> ast.CBinary:
        left, op, right = children
        return ast.CBinary(str(op), left, right, span=self._span(children))

    def c_int(self, children: Children) -> ast.CInt:
        return ast.CInt(int(str(children[0])), span=self._span(children))

    def c_item_int(self, children: Children) -> tuple[str, int]:
        return ("item", int(str(children[0])))

    def c_negative_int(self, children: Children) -> tuple[str, int]:
        return ("item", -int(str(children[1])))

    def c_string(self, children: Children) -> tuple[str, str]:
        return ("item", decode_string(str(children[0])))

    def c_word(self, children: Children) -> tuple[str, str]:
        return ("item", str(children[0]))

    def c_bool(self, children: Children) -> tuple[str, bool]:
        return ("item", str(children[0]) == "True")

    def c_paren(self, children: Children) -> ast.CExpr:
        inner: ast.CExpr = children[1]
        return inner

    def c_neg(self, children: Children) -> ast.CNeg:
        return ast.CNeg(children[1], span=self._span(children))

    def c_name(self, children: Children) -> ast.CName:
        return ast.CName(str(children[0]), span=self._span(children))

    def c_call(self, children: Children) -> ast.CCall:
        operand = children[2]
        index = next((c for c in children[3:] if not isinstance(c, _TOKENS)), None)
        return ast.CCall(str(children[0]), str(operand), index, span=self._span(children))

    def c_call_entry(self, children: Children) -> ast.CCall:
        """`rank(%xs[0])`, `dim(%xs[i], 1)`: a call on one entry of a list operand."""
        nodes = self._nodes(children[3:])
        index = nodes[1] if len(nodes) > 1 else None
        return ast.CCall(str(children[0]), str(children[2]), index, nodes[0], span=self._span(children))

    def definition(self, children: Children) -> ast.Def:
        name_tok = children[1]
        dtype_params: tuple[str, ...] = ()
        params: tuple[ast.Param, ...] = ()
        attrs: tuple[ast.Attr, ...] = ()
        ret = None
        dtype_classes: tuple[tuple[str, str], ...] = ()
        for c in children[2:-1]:
            if isinstance(c, tuple) and c and c[0] == "dtype_params":
                dtype_params, dtype_classes = c[1], c[2]
            elif isinstance(c, tuple) and c and c[0] == "params":
                params, attrs = c[1], c[2]
            elif isinstance(c, tuple) and c and c[0] == "ret":
                ret = c[1]
        body = children[-1]
        return ast.Def(
            str(name_tok)[1:],
            dtype_params,
            params,
            ret,
            body,
            attrs,
            span=self._span(children),
            name_span=self._tok_span(name_tok),
            claimed_dims=ast.claimed_attr(attrs),
            dtype_classes=dtype_classes,
        )

    def dtype_params(self, children: Children) -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]:
        params = [c for c in children if isinstance(c, tuple)]
        return ("dtype_params", tuple(name for name, _ in params), tuple((n, c) for n, c in params if c is not None))

    def dtype_param(self, children: Children) -> tuple[str, str | None]:
        names = [str(t) for t in children if isinstance(t, _TOKENS) and t.type == "NAME"]
        return (names[0], names[1] if len(names) > 1 else None)

    def params(self, children: Children) -> tuple[str, tuple[ast.Param, ...], tuple[ast.Attr, ...]]:
        params, attrs = self._attributes_last(children, "a parameter", "a function attribute")
        return ("params", tuple(params), tuple(attrs))

    def fn_attr(self, children: Children) -> ast.Attr:
        return self.attr(children)

    def param(self, children: Children) -> ast.Param:
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        typ = children[1] if len(children) > 1 else None
        return ast.Param(var, typ, span=self._span(children))

    def param_token(self, children: Children) -> ast.Param:
        """`%x: Tensor[(b, 64), float32]` read in one match (lexer.PARAM): what param and
        tensor_type make of it."""
        m = children[0].match
        start, end = m.span("var")
        var = ast.Var(m.string[start + 1 : end], span=Span(self.source, start, end))
        typ = self._tensor_type(m, "type_", *m.span("type"))
        return ast.Param(var, typ, span=Span(self.source, start, m.end()))

    def optional_param(self, children: Children) -> ast.Param:
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        return ast.Param(var, children[1], span=self._span(children), form="optional")

    def list_param(self, children: Children) -> ast.Param:
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        typ = cast(
            ast.TypeExpr, next(c for c in children[1:] if isinstance(c, ast.Node) and not isinstance(c, _TOKENS))
        )
        return ast.Param(var, typ, span=self._span(children), form="list")

    def ret_type(self, children: Children) -> tuple[str, ast.TypeExpr]:
        return ("ret", children[0])

    def block(self, children: Children) -> ast.Body:
        body = children[1]
        return ast.Body(body.stmts, body.result, span=self._span(children))

    def body(self, children: Children) -> ast.Body:
        return ast.Body(tuple(children[:-1]), children[-1], span=self._span(children))

    # statements -----------------------------------------------------------------------------
    def graph_binding(self, children: Children) -> ast.Let:
        var = ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))
        return ast.Let(var, None, children[1], graph=True, span=self._span(children))

    def let_binding(self, children: Children) -> ast.Let:
        var = ast.Var(str(children[1])[1:], span=self._tok_span(children[1]))
        typ = children[2] if len(children) == 5 else None
        return ast.Let(var, typ, children[-2], span=self._span(children))

    def let_chain(self, children: Children) -> ast.Let:
        """`let %v = let %a = e; ...; result;`: Relay's printing of a let whose value is a let
        (the inner bindings are local to the value)."""
        var = ast.Var(str(children[1])[1:], span=self._tok_span(children[1]))
        rest = list(children[2:-1])
        typ = rest.pop(0) if not isinstance(rest[0], (ast.Let, ast.Hint)) else None
        inner = self._span(rest)
        value = ast.Block(ast.Body(tuple(rest[:-1]), rest[-1], span=inner), span=inner)
        return ast.Let(var, typ, value, span=self._span(children))

    def statement(self, children: Children) -> ast.Let:
        """`%v = op(%a, %b, k=v);` read in one match (lexer.STATEMENT): what graph_binding
        (or let_binding, with its tensor type), call, opref, local and the attribute rules
        make of it."""
        m = children[0].match
        source = self.source
        text = m.string
        var_start, var_end = m.span("var")
        var = ast.Var(text[var_start + 1 : var_end], span=Span(source, var_start, var_end))
        op_start, op_end = m.span("op")
        callee: ast.Expr
        if text[op_start] == "@":
            callee = ast.GlobalVar(text[op_start + 1 : op_end], span=Span(source, op_start, op_end))
        else:
            callee = ast.OpRef(text[op_start:op_end], span=Span(source, op_start, op_end))
        args: tuple[ast.Expr, ...] = ()
        args_start, args_end = m.span("args")
        if args_start >= 0:
            args = tuple(
                [
                    ast.Var(text[start + 1 : end], span=Span(source, start, end))
                    for start, end in map(_span_of, LOCALS.finditer(text, args_start, args_end))
                ]
            )
        attrs: list[ast.Attr] = []
        if m.group("attrs") is not None:
            for a in ATTRS.finditer(text, *m.span("attrs")):
                attr = self._statement_attr(a)
                self._check_new_attr(attr, attrs)
                attrs.append(attr)
        call = ast.Call(callee, args, tuple(attrs), span=Span(source, op_start, m.end("close")))
        is_let = m.group("let") is not None
        start = m.start("let") if is_let else var_start
        typ = None if m.start("type") < 0 else self._tensor_type(m, "type_", *m.span("type"))
        return ast.Let(var, typ, call, graph=not is_let, span=Span(source, start, m.end()))

    def _statement_attr(self, a: "re.Match[str]") -> ast.Attr:
        """One `name=value` of a STATEMENT, as attr and the attr_value rules make it."""
        source = self.source
        text = a.string
        start, end = a.span("value")
        value = a.group("value")
        if value[0] == "[":
            items = tuple(
                [self._number(Tok("NUMBER", i.group(), i.start()))[0] for i in INTS.finditer(text, start, end)]
            )
            made: ast.AttrValue = ast.AttrSeq(items, True, span=Span(source, start, end))
        elif value[0] == '"':
            made = decode_string(value)
        elif value[0] == "-" or value[0].isdigit():
            made = self._number(Tok("NUMBER", value, start))[0]
        elif value in ("True", "False"):
            made = value == "True"
        elif value == "None":
            made = None
        else:
            made = ast.Ident(value, span=Span(source, start, end))
        return ast.Attr(a.group("name"), made, span=Span(source, a.start(), end))

    def hint(self, children: Children) -> ast.Hint:
        local = children[2]
        var = ast.Var(str(local)[1:], span=self._tok_span(local))
        dims = children[3]
        if dims.dims is None:
            raise ParseError(dims.span, "`*`", (), "a `can_unify` hint gives a shape of known rank, such as `(1, ?)`")
        return ast.Hint(var, dims.dims, span=self._span(children))

    # expressions ----------------------------------------------------------------------------
    def cast(self, children: Children) -> ast.Cast:
        return ast.Cast(children[0], children[2], span=self._span(children))

    def proj(self, children: Children) -> ast.Proj:
        return ast.Proj(children[0], self._int(children[1]), span=self._span(children))

    def call(self, children: Children) -> ast.Call:
        items = [item for c in children[2:-1] for item in c]
        args, attrs = self._attributes_last(items, "a positional argument", "an attribute")
        return ast.Call(children[0], tuple(args), tuple(attrs), span=self._span(children))

    def _attributes_last(self, items: Sequence[Any], what: str, attribute: str) -> tuple[list[Any], list[ast.Attr]]:
        """Split items into (positional ones, `name=value` attributes): attributes come last
        and each once."""
        positional: list[Any] = []
        attrs: list[ast.Attr] = []
        for item in items:
            if isinstance(item, ast.Attr):
                self._check_new_attr(item, attrs)
                attrs.append(item)
            elif attrs:
                raise ParseError(
                    item.span, what, (), f"{what} cannot follow {attribute} (`name=value`); put the attributes last"
                )
            else:
                positional.append(item)
        return positional, attrs

    @staticmethod
    def _check_new_attr(attr: ast.Attr, seen: list[ast.Attr]) -> None:
        """Reject an attribute given twice in one call."""
        if any(a.name == attr.name for a in seen):
            raise ParseError(attr.span, f"`{attr.name}`", (), f"the attribute `{attr.name}` is given twice")

    def args(self, children: Children) -> list[Any]:
        return list(children)

    def attr(self, children: Children) -> ast.Attr:
        value = children[1]
        return ast.Attr(str(children[0]), _value(value), span=self._tok_span(children[0]).to(value.span))

    def local(self, children: Children) -> ast.Var:
        return ast.Var(str(children[0])[1:], span=self._tok_span(children[0]))

    def global_(self, children: Children) -> ast.GlobalVar:
        return ast.GlobalVar(str(children[0])[1:], span=self._tok_span(children[0]))

    def opref(self, children: Children) -> ast.OpRef:
        return ast.OpRef(str(children[0]), span=self._tok_span(children[0]))

    def number(self, children: Children) -> ast.Literal:
        tok = children[0]
        value, dtype = self._number(tok)
        return ast.Literal(value, dtype, str(tok), span=self._tok_span(tok))

    def _number(self, tok: Tok) -> tuple[int | float, str]:
        try:
            return parse_number(str(tok))
        except ValueError as exc:
            raise ParseError(self._tok_span(tok), show_token(str(tok)), (), str(exc)) from None

    def _int(self, tok: Tok) -> int:
        """The value of an INT token (dimensions, projections)."""
        try:
            return parse_int(str(tok))
        except ValueError as exc:
            raise ParseError(self._tok_span(tok), show_token(str(tok)), (), str(exc)) from None

    def boolean(self, children: Children) -> ast.Literal:
        tok = children[0]
        return ast.Literal(str(tok) == "True", "bool", str(tok), span=self._tok_span(tok))

    def unit(self, children: Children) -> ast.TupleExpr:
        return ast.TupleExpr((), span=self._span(children))

    def paren(self, children: Children) -> ast.Expr:
        inner: ast.Expr = children[1]
        return inner

    def tuple1(self, children: Children) -> ast.TupleExpr:
        return ast.TupleExpr((children[1],), span=self._span(children))

    def tuple(self, children: Children) -> ast.TupleExpr:
        return ast.TupleExpr(tuple(self._nodes(children)), span=self._span(children))

    def block_expr(self, children: Children) -> ast.Block:
        body = ast.Body(tuple(children[1:-2]), children[-2], span=self._span(children[1:-1]))
        return ast.Block(body, span=self._span(children))

    def if_(self, children: Children) -> ast.If:
        nodes = self._nodes(children)
        return ast.If(nodes[0], nodes[1], nodes[2], span=self._span(children))

    def fn(self, children: Children) -> ast.Fn:
        params: tuple[ast.Param, ...] = ()
        attrs: tuple[ast.Attr, ...] = ()
        type_params: tuple[str, ...] = ()
        ret = None
        for c in children[1:-1]:
            if isinstance(c, tuple) and c and c[0] == "params":
                params, attrs = c[1], c[2]
            elif isinstance(c, tuple) and c and c[0] == "ret":
                ret = c[1]
            elif isinstance(c, tuple) and c and c[0] == "dtype_params":
                type_params = c[1]
        return ast.Fn(params, ret, children[-1], attrs, type_params, span=self._span(children))

    # attribute values -----------------------------------------------------------------------
    def attr_number(self, children: Children) -> _Located:
        return _Located(self._number(children[0])[0], self._tok_span(children[0]))

    def attr_bool(self, children: Children) -> _Located:
        return _Located(str(children[0]) == "True", self._tok_span(children[0]))

    def attr_none(self, children: Children) -> _Located:
        return _Located(None, self._tok_span(children[0]))

    def attr_string(self, children: Children) -> _Located:
        return _Located(decode_string(str(children[0])), self._tok_span(children[0]))

    def attr_ident(self, children: Children) -> ast.Ident:
        return ast.Ident(str(children[0]), span=self._tok_span(children[0]))

    def attr_list(self, children: Children) -> ast.AttrSeq:
        items = tuple(_value(c) for c in children if not isinstance(c, _TOKENS))
        return ast.AttrSeq(items, True, span=self._span(children))

    def attr_tuple(self, children: Children) -> ast.AttrSeq:
        items = tuple(_value(c) for c in children if not isinstance(c, _TOKENS))
        return ast.AttrSeq(items, False, span=self._span(children))

    def attr_object(self, children: Children) -> ast.AttrObject:
        fields = tuple(c for c in children if isinstance(c, ast.Attr))
        seen: set[str] = set()
        for field in fields:
            if field.name in seen:
                raise ParseError(field.span, f"`{field.name}`", (), f"the field `{field.name}` is given twice")
            seen.add(field.name)
        return ast.AttrObject(str(children[0]), fields, span=self._span(children))

    def attr_field(self, children: Children) -> ast.Attr:
        return self.attr(children)

    # types ----------------------------------------------------------------------------------
    def tensor_type(self, children: Children) -> ast.TensorTypeExpr:
        shape, dtype = children[2], children[3]
        return ast.TensorTypeExpr(shape.dims, str(dtype), bare=False, span=self._span(children))

    def tensor_type_token(self, children: Children) -> ast.TensorTypeExpr:
        """`Tensor[(b, 64), float32]` read in one match (lexer.TENSOR_TYPE): what tensor_type,
        dims and the dim rules make of it."""
        m = children[0].match
        return self._tensor_type(m, "", m.start(), m.end())

    def _tensor_type(self, m: "re.Match[str]", prefix: str, start: int, end: int) -> ast.TensorTypeExpr:
        """The tensor type a match read at [start, end): its groups `{prefix}dims` and
        `{prefix}dtype`."""
        source = self.source
        dims: list[ast.DimExpr] = []
        dims_start, dims_end = m.span(prefix + "dims")
        if dims_start >= 0:
            for d in DIMS.finditer(m.string, dims_start, dims_end):
                value, at = d.group(), d.start()
                span = Span(source, at, d.end())
                if value == "?":
                    dims.append(ast.DimUnknown(span=span))
                elif value[0].isdigit():
                    dims.append(ast.DimInt(self._int(Tok("INT", value, at)), span=span))
                else:
                    dims.append(ast.DimName(value, span=span))
        return ast.TensorTypeExpr(tuple(dims), m.group(prefix + "dtype"), bare=False, span=Span(source, start, end))

    def scalar_type(self, children: Children) -> ast.TensorTypeExpr:
        return ast.TensorTypeExpr((), str(children[0]), bare=True, span=self._span(children))

    def unit_type(self, children: Children) -> ast.TupleTypeExpr:
        return ast.TupleTypeExpr((), span=self._span(children))

    def paren_type(self, children: Children) -> ast.TypeExpr:
        inner: ast.TypeExpr = children[1]
        return inner

    def tuple1_type(self, children: Children) -> ast.TupleTypeExpr:
        return ast.TupleTypeExpr((children[1],), span=self._span(children))

    def tuple_type(self, children: Children) -> ast.TupleTypeExpr:
        return ast.TupleTypeExpr(tuple(self._nodes(children)), span=self._span(children))

    def fn_type(self, children: Children) -> ast.FnTypeExpr:
        nodes = self._nodes(children)
        type_params = next((c[1] for c in children if isinstance(c, tuple) and c and c[0] == "dtype_params"), ())
        nodes = [n for n in nodes if not isinstance(n, tuple)]
        return ast.FnTypeExpr(tuple(nodes[:-1]), nodes[-1], type_params, span=self._span(children))

    def ref_type(self, children: Children) -> ast.RefTypeExpr:
        name = children[0]
        if str(name) != "ref":
            raise ParseError(
                self._tok_span(name),
                show_token(str(name)),
                ("`ref`",),
                f"`{name}(...)` is not a type; a reference type is written `ref(T)`",
            )
        return ast.RefTypeExpr(children[2], span=self._span(children))

    def dyn_type(self, children: Children) -> ast.DynTypeExpr:
        return ast.DynTypeExpr(span=self._span(children))

    def hole_type(self, children: Children) -> ast.HoleTypeExpr:
        return ast.HoleTypeExpr(str(children[0])[1:], span=self._span(children))

    def any_rank(self, children: Children) -> ast.TensorTypeExpr:
        return ast.TensorTypeExpr(None, "", span=self._span(children))

    def dims(self, children: Children) -> ast.TensorTypeExpr:
        return ast.TensorTypeExpr(tuple(self._nodes(children)), "", span=self._span(children))

    # dimensions ---------------------------------------------------------------------------
    def dim_unknown(self, children: Children) -> ast.DimUnknown:
        return ast.DimUnknown(span=self._span(children))

    def dim_interval(self, children: Children) -> ast.DimInterval:
        return ast.DimInterval(self._int(children[0]), self._int(children[2]), span=self._span(children))

    def dim_lower(self, children: Children) -> ast.DimInterval:
        return ast.DimInterval(self._int(children[0]), None, span=self._span(children))

    def dim_upper(self, children: Children) -> ast.DimInterval:
        return ast.DimInterval(None, self._int(children[1]), span=self._span(children))

    def dim_variadic(self, children: Children) -> ast.DimVariadic:
        return ast.DimVariadic(str(children[1]), span=self._span(children))

    def dim_broadcast(self, children: Children) -> ast.DimBroadcast:
        left, right = children[0], children[2]
        if isinstance(right, ast.DimInt) and right.value == 1:
            target = left
        elif isinstance(left, ast.DimInt) and left.value == 1:
            target = right
        else:
            raise ParseError(
                self._span(children), "`|`", (), "a broadcast dimension is written `e|1`: one side must be 1"
            )
        return ast.DimBroadcast(target, span=self._span(children))

    def dim_binary(self, children: Children) -> ast.DimBinary:
        return ast.DimBinary(str(children[1]), children[0], children[2], span=self._span(children))

    def dim_call(self, children: Children) -> ast.DimBinary:
        name = children[0]
        if str(name) not in ("max", "min"):
            raise ParseError(
                self._tok_span(name),
                f"`{name}`",
                (),
                "a dimension may call `max(a, b)` and `min(a, b)` only",
            )
        left, right = (c for c in children[1:] if not isinstance(c, _TOKENS))
        return ast.DimBinary(str(name), left, right, span=self._span(children))

    def dim_int(self, children: Children) -> ast.DimInt:
        return ast.DimInt(self._int(children[0]), span=self._tok_span(children[0]))

    def dim_negative(self, children: Children) -> ast.DimInt:
        return ast.DimInt(-self._int(children[1]), span=self._span(children))

    def dim_name(self, children: Children) -> ast.DimName:
        return ast.DimName(str(children[0]), span=self._tok_span(children[0]))

    def dim_paren(self, children: Children) -> ast.DimExpr:
        inner: ast.DimExpr = children[1]
        inner.span = self._span(children)
        return inner


_span_of = re.Match.span


def doc_comment(text: str, pos: int) -> str:
    """The `///` comment lines right above a declaration."""
    lines = LINE_BREAK.split(text[:pos].rstrip(" \t"))[:-1]
    doc: list[str] = []
    for line in reversed(lines):
        stripped = line.strip()
        if not stripped.startswith("///"):
            break
        doc.append(stripped[3:].strip())
    return " ".join(reversed(doc))


def parse_int(text: str) -> int:
    """The value of a run of decimal digits (ValueError beyond MAX_DIGITS digits)."""
    digits = len(text.lstrip("-+"))
    if digits > MAX_DIGITS:
        raise ValueError(f"this integer has {digits} digits; gradual reads integers of at most {MAX_DIGITS} digits")
    return int(text)


def parse_number(text: str) -> tuple[int | float, str]:
    """The value and dtype of a numeric literal (`1` int32, `2.0` float32, `1i64`, `1.5f`).

    ValueError for an integer with a fraction or exponent, or one too long to read."""
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
        value = float(body)
        if value in (math.inf, -math.inf):
            raise ValueError(f"the number `{show_token(text)[1:-1]}` is too large for a floating-point literal")
        return value, dtype
    if "." in body or "e" in body or "E" in body:
        raise ValueError(f"the integer literal `{text}` has a fractional part or an exponent")
    return parse_int(body), dtype


def decode_string(text: str) -> str:
    """The value of a double-quoted string literal."""
    inner = text[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r", "t": "\t"}.get(m.group(1), m.group(1)), inner)


@lru_cache(maxsize=1)
def _grammar_text() -> str:
    beside = Path(__file__).with_name("grammar.lark")
    if beside.is_file():  # importlib.resources costs 30 ms to import; it is needed for a zipped install
        return beside.read_text(encoding="utf-8")
    from importlib import resources

    return resources.files("gradual.syntax").joinpath("grammar.lark").read_text(encoding="utf-8")


def _table_cache() -> "str | bool":
    """Where lark keeps the LALR tables it builds (0.25 s a start otherwise), in the user cache.
    The file is named after the grammar, so versions of gradual with different grammars do not
    overwrite each other's tables."""
    digest = usercache.sha256(_grammar_text().encode("utf-8")).hexdigest()[:16]
    return usercache.path(f"grammar-{digest}.lark.cache") or False


def _tables_name() -> str:
    return "grammar.tables"


def _tables_key() -> bytes:
    return usercache.key(FORMAT, _grammar_text())


def _cached_tables() -> "dict[str, Any] | None":
    """The driver's tables as `describe_tables` wrote them for this grammar, if cached (the key
    holds the whole grammar they were made from)."""
    payload = usercache.load(_tables_name(), _tables_key())
    if payload is None:
        return None
    try:
        found = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return found if isinstance(found, dict) else None


def _store_tables(description: dict[str, Any]) -> None:
    usercache.store(_tables_name(), _tables_key(), marshal.dumps(description))


class _Parser:
    """The grammar's parser (built once): the driver's tables (from the user cache, else from
    lark, then cached), and lark's own parser only for reporting a syntax error."""

    def __init__(self) -> None:
        self.builder = _Builder()
        self._lark: Lark | None = None
        description = _cached_tables()
        if description is None:
            description = describe_tables(self.lark)
            _store_tables(description)
        self.tables = Tables(description, self.builder)
        self.lexer = FastLexer(dict(description["literals"]))

    @property
    def lark(self) -> Lark:  # lark's module loads only here
        """lark's parser of the grammar, with the same builder (made on first use)."""
        if self._lark is None:
            from lark import Lark

            from gradual.syntax.lark_lexer import LarkLexer

            self._lark = Lark(
                _grammar_text(),
                parser="lalr",
                lexer=LarkLexer,
                transformer=self.builder,
                start=["start", "stdlib"],
                maybe_placeholders=False,
                cache=_table_cache(),
            )
        return self._lark

    def parse(self, source: Source, start: str = "start") -> Any:
        """The start rule's value: a Module of definitions (start) or declarations (stdlib)."""
        self.builder.source = source
        text = source.text
        try:
            return drive(self.tables, lambda rows, stack: self.lexer.tokens(text, rows, stack), start)
        except ParseError:
            raise
        except Exception:  # noqa: BLE001 - any other failure: lark's driver reports it exactly (see driver.py)
            pass
        return self._parse_with_lark(source, start)

    def _parse_with_lark(self, source: Source, start: str) -> Any:
        from lark.exceptions import UnexpectedInput, VisitError

        try:
            return self.lark.parse(source.text, start=start)
        except ParseError:
            raise
        except UnexpectedInput as exc:
            raise _to_parse_error(exc, source) from None
        except VisitError as exc:  # a callback rejected a token (e.g. an unreadable number)
            raise ParseError(Span(source, 0, 0), "input", (), str(exc.orig_exc)) from None


# A parser holds the source it is parsing (its builder's, its lexer's trivia): each parse
# borrows one of its own, so threads may parse at once (the language server analyzes
# documents on threads of their own). One is made the first time, another only when two
# parses overlap.
_FREE: list[_Parser] = []
_FREE_LOCK = threading.Lock()


@contextmanager
def _parser() -> Iterator[_Parser]:
    with _FREE_LOCK:
        parser = _FREE.pop() if _FREE else None
    if parser is None:
        parser = _Parser()
    try:
        yield parser
    finally:
        with _FREE_LOCK:
            _FREE.append(parser)


def parse_source(source: Source) -> ast.Module[ast.Def]:
    """Parse a whole program; raises ParseError on the first syntax error."""
    with _parser() as parser:
        module: ast.Module[ast.Def] = parser.parse(source)
        return module


def parse_with_comments(source: Source, start: str = "start") -> tuple[ast.AnyModule, list[Comment]]:
    """Parse a whole program (or, with `start="stdlib"`, a file of operator declarations), and
    the comments (and `#[version]` header) it holds, in order."""
    with _parser() as parser:
        lexer = parser.lexer
        lexer.trivia = []
        try:
            module: ast.AnyModule = parser.parse(source, start)
            return module, comments_of(source.text, lexer.trivia)
        finally:
            lexer.trivia = None


def parse_stdlib_with_comments(source: Source) -> tuple[ast.AnyModule, list[Comment]]:
    """Parse a file of operator declarations and its comments (see `parse_with_comments`)."""
    return parse_with_comments(source, "stdlib")


def parse_stdlib_source(source: Source) -> ast.Module[ast.OpDecl]:
    """Parse a file of operator declarations (stdlib/*.rly) into a Module of OpDecls."""
    with _parser() as parser:
        module: ast.Module[ast.OpDecl] = parser.parse(source, start="stdlib")
        return module


def parse(text: str, path: str = "<input>") -> ast.Module[ast.Def]:
    """Parse program text (see `parse_source`)."""
    return parse_source(Source(text, path))


_TOKEN_NAMES = {
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "SEMI": "`;`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "EQUAL": "`=`",
    "QMARK": "`?`",
    "STAR": "`*`",
    "BAR": "`|`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "DOTDOT": "`..`",
    "FLOORDIV": "`//`",
    "PERCENT": "`%`",
    "DOT": "`.`",
    "LOCAL": "a local variable (`%x`)",
    "GLOBAL": "a global (`@f`)",
    "NAME": "a name",
    "INT": "an integer",
    "NUMBER": "a number",
    "STRING": "a string",
    "BOOL": "`True` or `False`",
    "HOLE": "a type hole (`?T`)",
    "DEF": "`def`",
    "LET": "`let`",
    "IF": "`if`",
    "ELSE": "`else`",
    "FN": "`fn`",
    "AS": "`as`",
    "TENSOR": "`Tensor`",
    "TYPE": "`type`",
    "MATCH": "`match`",
    "FATARROW": "`=>`",
    "HINT": "`can_unify`",
    "NONE": "`None`",
    "RARROW": "`->`",
    "__ANON_0": "`->`",
    "$END": "end of input",
}


#: terminals the lexer reads as a whole construct, never named as what was expected
_WHOLE_READS = ("STATEMENT", "TENSOR_TYPE", "PARAM")


def describe_token_type(name: str) -> str:
    """A readable name for a grammar terminal."""
    if name in _TOKEN_NAMES:
        return _TOKEN_NAMES[name]
    return f"`{name.lower()}`"


def _to_parse_error(exc: Exception, source: Source) -> ParseError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    text = source.text
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            span = Span(source, len(text), len(text))
            found = "end of input"
        else:
            start = tok.start_pos if tok.start_pos is not None else len(text)
            span = Span(source, start, max(start + 1, tok.end_pos or start + 1))
            found = show_token(str(tok))
        return ParseError(span, found, _expected_names(_acceptable(exc, exc.expected)))
    if isinstance(exc, UnexpectedCharacters):
        # lark's class default is None; an UnexpectedCharacters holds the offset
        pos: int = exc.pos_in_stream  # type: ignore[assignment]
        if text.startswith("/*", pos):
            return ParseError(Span(source, pos, pos + 2), "`/*`", (), "unterminated block comment")
        if text.startswith('"', pos):  # a string the lexer could not read: no closing quote on its line
            return ParseError(
                Span(source, pos, pos + 1),
                '`"`',
                (),
                'unterminated string: a string ends with `"` on the line it starts',
            )
        char = text[pos] if pos < len(text) else ""
        return ParseError(Span(source, pos, pos + 1), show_token(char), _expected_names(_acceptable(exc, exc.allowed)))
    if isinstance(exc, UnexpectedEOF):
        return ParseError(Span(source, len(text), len(text)), "end of input", _expected_names(exc.expected))
    return ParseError(Span(source, 0, 0), "input", ())


def _acceptable(exc: Exception, fallback: Iterable[str] | None) -> set[str]:
    """The terminals the parser could take where it failed.

    Asks lark's interactive parser (no callbacks run), which is exact; the parse table's
    own list (`fallback`) can both miss keywords and include lookaheads of merged states."""
    parser = getattr(exc, "interactive_parser", None)
    if parser is not None:
        try:
            accepted = parser.accepts()
        except Exception:  # noqa: BLE001 - a failing probe only costs the better list
            accepted = None
        if accepted:
            return set(accepted)
    return set(fallback or ())


def _expected_names(terminals: Iterable[str]) -> list[str]:
    """Readable, sorted, de-duplicated names of terminals (anonymous `->` kept)."""
    return sorted(
        {
            describe_token_type(t)
            for t in terminals
            if (not t.startswith("__ANON") or t == "__ANON_0") and t not in _WHOLE_READS
        }
    )
