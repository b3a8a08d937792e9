"""AST to text. The output parses back to the same tree (`same_tree`).

The printer builds a document (`layout`: groups, indentation, line breaks) and renders it to a
width. With a width (the formatter's, `DEFAULT_WIDTH` columns), a group of items that does not
fit on its line (parameters, arguments and attributes, tuples, attribute lists, the items of
a type) is broken one item per line, one level deeper, with a trailing comma where the grammar
takes one (not in a function type's parameters, which take none); groups inside it are decided
anew. Without one (elaboration, the frontends, messages), every group stays on its line.

`format_module` optionally takes `annotate`, a function giving a comment for a binding
(the elaborator uses it to print every binding's type, Relay style: `/* ty=... */`), and
`comments`, the comments of the text the module was parsed from (`parse_with_comments`),
which it puts back in order, each before the first construct that followed it in the text
(a definition, statement, parameter, argument, attribute or expression; or a closing bracket
or brace); `layout.Renderer.note` says where on the line each goes:

* a comment that had its line to itself gets a line of its own, indented as what follows it,
  keeping one empty line before or after it where the text had one (and so breaks the group
  it is in);
* a comment that followed code on its line (`%0 = f(%x); // why`) goes at the end of the line
  printed last, if that is where a new line would start, else where the printer stands;
* a block comment that led into code on its line (`/* a */ %x`) stays in front of it;
* a line comment ends its line (and breaks the group it is in): what follows continues on
  the next.

A comment inside a type, a dimension or an attribute value (there is no construct to attach
it to there) moves past it. `gradual.syntax.formatting` checks the outcome: the text must
parse to the same tree with the same comments.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from gradual.infra.numbers import int_text
from gradual.syntax import ast, layout
from gradual.syntax.adt_printing import match_doc, type_def_doc
from gradual.syntax.comments import Comment
from gradual.syntax.layout import BLANK, HARD, Doc, Nest

Annotator = Callable[[object], str | None]

_Item = TypeVar("_Item")

_DIM_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2, "max": 3, "min": 3}


def format_dim(dim: ast.DimExpr) -> str:
    """A dimension as written in source."""
    if isinstance(dim, ast.DimInt):
        return int_text(dim.value)
    if isinstance(dim, ast.DimUnknown):
        return "?"
    if isinstance(dim, ast.DimName):
        return dim.name
    if isinstance(dim, ast.DimInterval):
        if dim.lo is None and dim.hi is None:
            return "0.."  # `..` alone is not syntax (trees built through the API can hold it)
        lo = "" if dim.lo is None else int_text(dim.lo)
        hi = "" if dim.hi is None else int_text(dim.hi)
        return f"{lo}..{hi}"
    if isinstance(dim, ast.DimBroadcast):
        return f"{format_dim(dim.target)}|1"
    if isinstance(dim, ast.DimVariadic):
        return f"*{dim.name}"
    if isinstance(dim, ast.DimBinary):
        return _format_binary(dim)
    raise TypeError(f"not a dimension: {dim!r}")


def _format_binary(dim: ast.DimBinary) -> str:
    left = format_dim(dim.left)
    right = format_dim(dim.right)
    if dim.op in ("max", "min"):
        return f"{dim.op}({left}, {right})"
    prec = _DIM_PRECEDENCE[dim.op]
    if isinstance(dim.left, ast.DimBinary) and _DIM_PRECEDENCE[dim.left.op] < prec:
        left = f"({left})"
    if isinstance(dim.right, ast.DimBinary) and _DIM_PRECEDENCE[dim.right.op] <= prec:
        right = f"({right})"
    return f"{left} {dim.op} {right}"


def format_dim_list(texts: list[str] | None) -> str:
    """Printed dims as a shape: `(1, ?, n)`, `(3,)` for rank 1, `()`, or `*` for None."""
    if texts is None:
        return "*"
    if len(texts) == 1:
        return f"({texts[0]},)"
    return "(" + ", ".join(texts) + ")"


def format_shape_expr(dims: tuple[ast.DimExpr, ...] | None) -> str:
    """`(1, ?, n)`, `(3,)`, `()` or `*`."""
    return format_dim_list(None if dims is None else [format_dim(d) for d in dims])


def format_type(t: ast.TypeExpr) -> str:
    """A type as written in source."""
    out: list[str] = []
    _write_type(t, out)
    return "".join(out)


def _write_type(t: ast.TypeExpr, out: list[str]) -> None:
    """Append a type's text to `out` in pieces (joined once: a type n deep prints in linear time)."""
    if isinstance(t, ast.TensorTypeExpr):
        out.append(t.dtype if t.spelled_bare else f"Tensor[{format_shape_expr(t.dims)}, {t.dtype}]")
    elif isinstance(t, ast.TupleTypeExpr):
        out.append("(")
        _write_types(t.fields, out)
        out.append(",)" if len(t.fields) == 1 else ")")
    elif isinstance(t, ast.FnTypeExpr):
        out.append(f"fn [{', '.join(t.type_params)}](" if t.type_params else "fn (")
        _write_types(t.params, out)
        out.append(") -> ")
        _write_type(t.ret, out)
    elif isinstance(t, ast.DynTypeExpr):
        out.append("?")
    elif isinstance(t, ast.HoleTypeExpr):
        out.append(f"?{t.name}")
    elif isinstance(t, ast.RefTypeExpr):
        out.append("ref(")
        _write_type(t.content, out)
        out.append(")")
    elif isinstance(t, ast.AdtTypeExpr):
        out.append(f"{t.name}[")
        _write_types(t.args, out)
        out.append("]")
    else:
        raise TypeError(f"not a type: {t!r}")


def _write_types(types: tuple[ast.TypeExpr, ...], out: list[str]) -> None:
    write_separated(types, out, _write_type)


def write_separated(items: Sequence[_Item], out: list[str], write: Callable[[_Item, list[str]], None]) -> None:
    """Append each item's text (`write(item, out)`) to `out`, separated by commas."""
    for i, item in enumerate(items):
        if i:
            out.append(", ")
        write(item, out)


def format_attr_value(value: ast.AttrValue) -> str:
    """An attribute value as written in source."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "None"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        escaped = (
            value.replace("\\", "\\\\")
            .replace('"', '\\"')
            .replace("\n", "\\n")
            .replace("\r", "\\r")
            .replace("\t", "\\t")
        )  # a line break (`\r` too: source.LINE_BREAK) never stays raw
        return f'"{escaped}"'
    if isinstance(value, ast.Ident):
        return value.name
    if isinstance(value, ast.AttrSeq):
        inner = ", ".join(format_attr_value(v) for v in value.items)
        if value.square:
            return f"[{inner}]"
        return f"({inner},)" if len(value.items) == 1 else f"({inner})"
    if isinstance(value, ast.AttrObject):
        fields = ", ".join(f"{f.name}={format_attr_value(f.value)}" for f in value.fields)
        return f"{value.name}({fields})"
    raise TypeError(f"not an attribute value: {value!r}")


def format_literal(lit: ast.Literal) -> str:
    """A literal, keeping its source spelling when it has one."""
    if lit.text:
        return lit.text
    if lit.dtype == "bool":
        return "True" if lit.value else "False"
    if lit.dtype == "int32":
        return str(int(lit.value))
    if lit.dtype == "float32":
        return f"{float(lit.value)!r}f"
    suffix = {
        "int64": "i64",
        "int8": "i8",
        "int16": "i16",
        "uint8": "u8",
        "uint16": "u16",
        "uint32": "u32",
        "uint64": "u64",
        "float64": "f64",
        "float16": "f16",
    }.get(lit.dtype, "")
    if lit.dtype.startswith("float"):
        return f"{float(lit.value)!r}{suffix}"
    return f"{int(lit.value)}{suffix}"


# documents ------------------------------------------------------------------------------------
_END = 1 << 62  # an offset past any text
_BREAK = r"(?:\r\n|\r(?!\n)|\n)"  # one line break (source.LINE_BREAK), `\r\n` never read as two
_EMPTY_LINE = re.compile(_BREAK + r"[ \t\f]*" + _BREAK)
_FLOAT = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?:f16|f32|f64|f)?")


class _Printer:
    """Builds a module's document (`layout`): two-space indentation, every group of items
    (parameters, arguments, tuples, attribute lists, types) one item per line with a trailing
    comma where the grammar takes one when it does not fit the width. Comments, when given,
    are put back in order, each before the first construct that followed it in the text."""

    def __init__(self, annotate: Annotator | None, comments: Sequence[Comment] = (), source: str | None = None) -> None:
        self.annotate = annotate
        self.comments = list(comments)
        self.next_comment = 0
        self.next_start = self.comments[0].start if self.comments else _END
        self.source = source
        self.comment_ends = [c.end for c in self.comments]

    def line_before(self, parts: list[Doc], end: int, start: int, blank: bool = False) -> None:
        """Begin a line for the construct at `start` (the one before ends at `end`): a line
        break (`blank`: and an empty line), its comments, then the empty line the source has
        after them, if any."""
        parts.append(BLANK if blank else HARD)
        if self.next_start < start:
            parts += self.notes(start)
        if not blank and self.blank_before(end, start):
            parts.append(BLANK)

    def blank_before(self, end: int, start: int) -> bool:
        """Whether the source holds an empty line between offsets `end` and `start` after the
        last comment there (the empty lines around a comment are the comment's to keep)."""
        if self.source is None or end < 0:
            return False
        at = bisect.bisect_right(self.comment_ends, start) - 1
        if at >= 0 and self.comment_ends[at] > end:
            end = self.comment_ends[at]
        return _EMPTY_LINE.search(self.source, end, start) is not None

    # comments -----------------------------------------------------------------------------
    def notes(self, offset: int) -> list[Doc]:
        """The comments not yet placed that start before `offset` (usually none)."""
        if self.next_start >= offset:
            return []
        comments = self.comments
        found: list[Doc] = []
        at = self.next_comment
        while at < len(comments) and comments[at].start < offset:
            found.append(layout.Note(comments[at]))
            at += 1
        self.next_comment = at
        self.next_start = comments[at].start if at < len(comments) else _END
        return found

    def lead(self, offset: int, build: Callable[[_Item], Doc], node: _Item) -> Doc:
        """The comments before `offset`, then `build(node)` (built after them: it may hold
        comments of its own)."""
        if self.next_start >= offset:
            return build(node)
        notes = self.notes(offset)
        return [*notes, build(node)]

    # a group of items -----------------------------------------------------------------------
    def items(self, opening: str, docs: Sequence[Doc], closing: str, close_at: int, comma: str = ",") -> Doc:
        """`opening item, item closing` (`layout.bracket`: `comma` is the trailing comma); the
        comments before `close_at` (the closing bracket) go after the items."""
        notes = self.notes(close_at) if self.next_start < close_at else None
        return layout.bracket(opening, docs, closing, comma, notes)

    # module and definitions ----------------------------------------------------------------
    def module(self, module: ast.AnyModule) -> Doc:
        parts: list[Doc] = []
        defs: tuple[ast.Def | ast.OpDecl, ...] = module.defs
        types: tuple[ast.TypeDef, ...] = module.types
        declarations = bool(defs) and isinstance(defs[0], ast.OpDecl)
        for i, t in enumerate(types):  # type definitions first, as Relay prints them
            if i:
                self.line_before(parts, types[i - 1].span.end, t.span.start, blank=True)
            else:
                parts += self.notes(t.span.start)
            parts.append(type_def_doc(t, type_doc))
        for i, d in enumerate(defs):
            if i or types:  # an empty line between definitions (operator declarations: where it was)
                before = defs[i - 1].span.end if i else types[-1].span.end
                self.line_before(parts, before, d.span.start, blank=not declarations)
            else:
                parts += self.notes(d.span.start)
            parts.append(self.op_decl(d) if isinstance(d, ast.OpDecl) else self.definition(d))
        if module.defs or module.types:
            parts.append(HARD)
        parts += self.notes(_END)
        return parts

    def definition(self, d: ast.Def) -> Doc:
        tparams = f"[{', '.join(d.dtype_params)}]" if d.dtype_params else ""
        items = self.params(d.params, d.attrs)
        if d.claimed_dims and not any(a.name == ast.CLAIMED for a in d.attrs):  # a frontend's claim
            names = ", ".join(format_attr_value(n) for n in sorted(d.claimed_dims))
            items.append(f"{ast.CLAIMED}=[{names}]")
        close_at = d.ret.span.start if d.ret is not None else d.body.span.start
        head = self.items(f"def @{d.name}{tparams}(", items, ")", close_at)
        return [head, self.returns(d.ret), " {", self.block(d.body)]

    def op_decl(self, d: ast.OpDecl) -> Doc:
        """`def nn.dense[T](%x: T, units: int? = None) -> T where ... = rule;` (stdlib/): a
        `where` clause that does not fit puts each condition on a line of its own."""
        classes = dict(d.dtype_classes)
        names = [f"{n}: {classes[n]}" if n in classes else n for n in d.dtype_params]
        tparams = f"[{', '.join(names)}]" if names else ""
        items = [self.lead(p.span.start, self.param, p) for p in d.params]
        items += [self.lead(a.span.start, self.attr_param, a) for a in d.attrs]
        head = self.items(f"def {d.name}{tparams}(", items, ")", d.ret.span.start)
        rule = f"= {d.rule};" if d.rule else ";"
        if not d.where:
            return [head, " -> ", type_doc(d.ret), f" {rule}" if d.rule else ";"]
        conditions: list[Doc] = []
        for i, c in enumerate(d.where):
            if i:
                conditions.append(layout.COMMA)
            conditions.append(condition_doc(c))
        clause: list[Doc] = [layout.SPACE, "where", layout.Nest([layout.SPACE, *conditions])]
        tail: list[Doc] = [layout.SPACE, rule] if d.rule else [";"]
        return [head, " -> ", type_doc(d.ret), layout.Group([layout.Nest([*clause, *tail])])]

    def attr_param(self, a: ast.AttrParam) -> Doc:
        kind = f"[{a.kind}]" if a.is_list else a.kind
        text = f"{a.name}: {kind}{'?' if a.optional else ''}"
        return [text, " = ", attr_value_doc(a.default)] if a.has_default else text

    def params(self, params: tuple[ast.Param, ...], attrs: tuple[ast.Attr, ...]) -> list[Doc]:
        """Parameters, then the function attributes Relay prints after them."""
        return [self.lead(p.span.start, self.param, p) for p in params] + self.attrs(attrs)

    def attrs(self, attrs: tuple[ast.Attr, ...]) -> list[Doc]:
        return [self.lead(a.span.start, self.attr, a) for a in attrs]

    def attr(self, a: ast.Attr) -> Doc:
        """`name=value`; a float keeps the spelling the source gave it (`1e-5`, not `1e-05`)."""
        value = a.value
        if value.__class__ is float and self.source is not None:
            written = self.source[a.span.start : a.span.end].partition("=")[2].strip()
            found = _FLOAT.fullmatch(written)
            if found is not None and float(found.group(1)) == value:
                return f"{a.name}={written}"
        return _field_doc(a.name, attr_value_doc(value))

    @staticmethod
    def param(p: ast.Param) -> Doc:
        if p.type is None:
            return f"%{p.var.name}"
        typ = type_doc(p.type)
        if p.form == "list":
            typ = ["[", typ, "]"]
        elif p.form == "optional":
            typ = [typ, "?"]
        return f"%{p.var.name}: {typ}" if typ.__class__ is str else [f"%{p.var.name}: ", typ]

    @staticmethod
    def returns(ret: ast.TypeExpr | None) -> Doc:
        return [" -> ", type_doc(ret)] if ret is not None else ""

    def block(self, body: ast.Body) -> Doc:
        """A body one level deeper, then its closing brace (the comments before it are inside)."""
        inner = self.body(body)
        inner += self.notes(body.span.end - 1)
        return [Nest(inner), HARD, "}"]

    def body(self, body: ast.Body) -> list[Doc]:
        """The statements and the result, each on a line of its own (after a line break)."""
        stmts = body.stmts
        if any(s.__class__ is ast.Dataflow for s in stmts):  # a frontend's module, not yet checked
            stmts = ast.plain_statements(stmts)
        parts: list[Doc] = []
        end = -1  # where the statement before ends (none before the first)
        for s in stmts:
            self.line_before(parts, end, s.span.start)
            parts.append(self.stmt(s))
            end = s.span.end
        self.line_before(parts, end, body.result.span.start)
        parts.append(self.expr(body.result))
        note = self._note(body.result)
        if note:
            parts.append(note)
        return parts

    def _note(self, node: object) -> str:
        if self.annotate is None:
            return ""
        text = self.annotate(node)
        return f" /* {text} */" if text else ""

    def stmt(self, s: object) -> Doc:
        if isinstance(s, ast.Let):
            if s.graph and s.type is None:
                head: Doc = f"%{s.var.name} = "
            elif s.type is not None:
                head = [f"let %{s.var.name}: ", type_doc(s.type), " = "]
            else:
                head = f"let %{s.var.name} = "
            return [head, self.value(s.value), self._note(s) + ";"]
        if isinstance(s, ast.Hint):
            return [f"can_unify(%{s.var.name}, shape=", shape_doc(s.dims), ");"]
        raise TypeError(f"not a statement: {s!r}")

    def value(self, e: ast.Expr) -> Doc:
        """A binding's value: a line its comments begin continues one level deeper."""
        if self.next_start >= e.span.start:
            return self.expr(e)
        return [Nest(self.notes(e.span.start)), self.expr(e)]

    # expressions ----------------------------------------------------------------------------
    def expr(self, e: ast.Expr) -> Doc:
        if self.next_start < e.span.start:
            return [self.notes(e.span.start), self.expr(e)]
        if type(e) is ast.Var:
            return f"%{e.name}"
        if type(e) is ast.Call:
            return self.call(e)
        if type(e) is ast.GlobalVar:
            return f"@{e.name}"
        if type(e) is ast.OpRef:
            return e.name
        if type(e) is ast.Literal:
            return format_literal(e)
        if type(e) is ast.TupleExpr:
            fields = [self.expr(f) for f in e.fields]
            return self.items("(", fields, ")", e.span.end - 1, ",1")
        if type(e) is ast.Proj:
            return [self.operand(e.tuple), f".{e.index}"]
        if type(e) is ast.If:
            cond = self.expr(e.cond)
            then = self.block(e.then)
            return ["if (", cond, ") {", then, " else {", self.block(e.otherwise)]
        if type(e) is ast.Match:
            return match_doc(
                e,
                self.expr,
                self.block,
                lambda parts, start: self.line_before(parts, -1, start),
                self.notes,
                type_doc,
            )
        if type(e) is ast.Fn:
            params = self.params(e.params, e.attrs)
            close_at = e.ret.span.start if e.ret is not None else e.body.span.start
            tparams = e.type_params
            head = self.items(f"fn [{', '.join(tparams)}](" if tparams else "fn (", params, ")", close_at)
            return [head, self.returns(e.ret), " {", self.block(e.body)]
        if type(e) is ast.Cast:
            return [self.expr(e.expr), " as ", type_doc(e.type)]
        if type(e) is ast.Block:
            inner = self.body(e.body)
            inner += self.notes(e.span.end - 1)  # comments before `)` are inside
            return ["(", Nest(inner), HARD, ")"]
        raise TypeError(f"not an expression: {e!r}")

    def operand(self, e: ast.Expr) -> Doc:
        """An expression in callee or projection position: casts need parentheses, and so
        do literals (`(1).0`, since `1.0` would read as a float)."""
        if isinstance(e, (ast.Cast, ast.Literal)):
            return ["(", self.expr(e), ")"]
        return self.expr(e)

    def call(self, e: ast.Call) -> Doc:
        """`callee(args, attrs)`; a call of one tuple (`concatenate((%a, %b))`) hugs it: the
        tuple's items break, not the call's."""
        callee = self.operand(e.callee)
        args = e.args
        first = args[0] if len(args) == 1 and not e.attrs else None
        if type(first) is ast.TupleExpr and first.fields:
            return [callee, "(", self.expr(first), *self.notes(e.span.end - 1), ")"]
        items = [self.expr(a) for a in args] + self.attrs(e.attrs)
        return [callee, self.items("(", items, ")", e.span.end - 1)]


# types and attribute values as documents ---------------------------------------------------
def _group(opening: str, docs: Sequence[Doc], closing: str, comma: str = ",") -> Doc:
    """Items that break one per line when they do not fit (no comments inside: the comments
    of a type move past it)."""
    if not docs:
        return opening + closing
    return layout.bracket(opening, docs, closing, comma)


def shape_doc(dims: tuple[ast.DimExpr, ...] | None) -> Doc:
    """`(1, ?, n)`, `(3,)`, `()` or `*`."""
    if dims is None:
        return "*"
    return _group("(", [format_dim(d) for d in dims], ")", ",1")


def type_doc(t: ast.TypeExpr) -> Doc:
    """A type as a document: `format_type`'s text when flat."""
    if type(t) is ast.TensorTypeExpr:
        if t.spelled_bare:
            return t.dtype
        shape = shape_doc(t.dims)
        if shape.__class__ is str:
            return f"Tensor[{shape}, {t.dtype}]"
        return ["Tensor[", shape, f", {t.dtype}]"]  # the shape's dims break
    if type(t) is ast.TupleTypeExpr:
        return _group("(", [type_doc(f) for f in t.fields], ")", ",1")
    if type(t) is ast.FnTypeExpr:
        opening = f"fn [{', '.join(t.type_params)}](" if t.type_params else "fn ("
        params = _group(opening, [type_doc(p) for p in t.params], ")", "")
        return [params, " -> ", type_doc(t.ret)]
    if type(t) is ast.DynTypeExpr:
        return "?"
    if type(t) is ast.HoleTypeExpr:
        return f"?{t.name}"
    if type(t) is ast.RefTypeExpr:
        return _group("ref(", [type_doc(t.content)], ")", "")
    if type(t) is ast.AdtTypeExpr:
        return _group(f"{t.name}[", [type_doc(a) for a in t.args], "]", "")
    raise TypeError(f"not a type: {t!r}")


def condition_doc(node: ast.Condition) -> Doc:
    """A `where` condition as a document: an enumeration that does not fit breaks one item a
    line (`format_condition`'s text when flat)."""
    if isinstance(node, ast.Member):
        items = [_condition_item(i) for i in node.items]
        return [f"{format_condition(node.operand)} in ", _group("{", items, "}", "")]
    if isinstance(node, ast.CBool):  # one part a line, the connective leading it
        parts = [_logic_doc(part, node.op) for part in node.parts]
        rest: list[Doc] = [[layout.SPACE, f"{node.op} ", part] for part in parts[1:]]
        return layout.Group([parts[0], layout.Nest(rest)], format_condition(node))
    if isinstance(node, ast.CQuant):  # the body on a line of its own, then its range
        tail = format_condition(node)[len(f"{node.quantifier}({format_condition(node.body)} ") : -1]
        inner: list[Doc] = [layout.SOFT, condition_doc(node.body), layout.SPACE, tail]
        return layout.Group([f"{node.quantifier}(", layout.Nest(inner), layout.SOFT, ")"], format_condition(node))
    return format_condition(node)


def _logic_doc(node: ast.Condition, op: str) -> Doc:
    """A part of `or`/`and` as a document, parenthesized as `format_condition` does."""
    text = format_condition(node)
    if _logic_operand(node, op) != text:
        return layout.Group(["(", condition_doc(node), ")"], f"({text})")
    return condition_doc(node)


def attr_value_doc(value: ast.AttrValue) -> Doc:
    """An attribute value as a document: `format_attr_value`'s text when flat. Every value
    with brackets is a group (a sequence, an object such as `VirtualDevice(device_type=1,
    virtual_device_id=0)`), so that no bracketed value is longer than the width unbroken."""
    if isinstance(value, ast.AttrSeq):
        items = [attr_value_doc(v) for v in value.items]
        if value.square:
            return _group("[", items, "]")
        return _group("(", items, ")", ",1")
    if isinstance(value, ast.AttrObject):
        fields = [_field_doc(f.name, attr_value_doc(f.value)) for f in value.fields]
        return _group(f"{value.name}(", fields, ")")
    return format_attr_value(value)


def _field_doc(name: str, value: Doc) -> Doc:
    """`name=value`, one string when the value is one."""
    return f"{name}={value}" if value.__class__ is str else [f"{name}=", value]


DEFAULT_WIDTH = 100


def module_doc(
    module: ast.AnyModule,
    annotate: Annotator | None = None,
    comments: Sequence[Comment] = (),
    source: str | None = None,
) -> Doc:
    """The document of a module (see `format_module`)."""
    return _Printer(annotate, comments, source).module(module)


def format_module(
    module: ast.AnyModule,
    annotate: Annotator | None = None,
    comments: Sequence[Comment] = (),
    width: int | None = None,
    source: str | None = None,
) -> str:
    """The program as text; `annotate(node)` may add a comment after a binding's value;
    `comments` (from the text the module was parsed from) are put back (module docstring).
    `width`: the columns to fit lines to (the formatter's `DEFAULT_WIDTH`); None, as
    elaboration and the frontends print, keeps each construct's head on one line. `source`:
    the text the module was parsed from, whose empty lines between statements are kept (one
    where there were several)."""
    text = layout.render(module_doc(module, annotate, comments, source), width)
    return text.rstrip("\n") + "\n" if text.strip() else ""


def format_expr(e: ast.Expr) -> str:
    """One expression as text (for messages)."""
    return layout.render(_Printer(None).expr(e))


# contracts (a declaration's `where` clause) ---------------------------------------------------
def format_condition(node: ast.Condition | ast.CExpr) -> str:
    """A condition or term as written (normalized spacing)."""
    if isinstance(node, ast.Compare):
        parts = [format_condition(node.operands[0])]
        for op, operand in zip(node.ops, node.operands[1:]):
            parts += [op, format_condition(operand)]
        return " ".join(parts)
    if isinstance(node, ast.Member):
        items = ", ".join(_condition_item(i) for i in node.items)
        return f"{format_condition(node.operand)} in {{{items}}}"
    if isinstance(node, ast.InRange):
        return f"{format_condition(node.operand)} in {format_condition(node.low)} .. {format_condition(node.high)}"
    if isinstance(node, ast.CBool):
        return f" {node.op} ".join(_logic_operand(part, node.op) for part in node.parts)
    if isinstance(node, ast.CNot):
        return f"not {_logic_operand(node.operand, 'not')}"
    if isinstance(node, ast.CPresent):
        return f"present({node.name})"
    if isinstance(node, ast.CQuant):
        if node.source is not None:
            source = node.source
        else:
            assert node.low is not None and node.high is not None, "a quantifier ranges over a source or a range"
            source = f"{format_condition(node.low)} .. {format_condition(node.high)}"
        return f"{node.quantifier}({format_condition(node.body)} for {node.var} in {source})"
    if isinstance(node, ast.CInt):
        return str(node.value)
    if isinstance(node, ast.CName):
        return node.name
    if isinstance(node, ast.CCall):
        index = "" if node.index is None else f", {format_condition(node.index)}"
        entry = "" if node.entry is None else f"[{format_condition(node.entry)}]"
        return f"{node.function}({node.operand}{entry}{index})"
    if isinstance(node, ast.CNeg):
        inner = format_condition(node.operand)
        return f"-{inner}" if isinstance(node.operand, (ast.CInt, ast.CName, ast.CCall)) else f"-({inner})"
    if isinstance(node, ast.CBinary):
        return (
            f"{_condition_operand(node.left, node.op, False)} {node.op} {_condition_operand(node.right, node.op, True)}"
        )
    raise TypeError(f"not a contract node: {node!r}")


_CONDITION_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2}
_LOGIC_PRECEDENCE = {"or": 1, "and": 2, "not": 3}


def _logic_operand(node: ast.Condition, op: str) -> str:
    """A part of `or`/`and`/`not`, parenthesized where it binds looser than the connective."""
    text = format_condition(node)
    if isinstance(node, ast.CBool) and _LOGIC_PRECEDENCE[node.op] <= _LOGIC_PRECEDENCE[op] and node.op != op:
        return f"({text})"
    return text


def _condition_operand(node: ast.CExpr, op: str, right: bool) -> str:
    text = format_condition(node)
    if isinstance(node, ast.CBinary):
        inner, outer = _CONDITION_PRECEDENCE[node.op], _CONDITION_PRECEDENCE[op]
        if inner < outer or (right and inner == outer):
            return f"({text})"
    return text


def _condition_item(item: object) -> str:
    if isinstance(item, str):
        return f'"{item}"'
    return str(item)
