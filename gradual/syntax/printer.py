"""AST to text. The output parses back to the same tree (`same_tree`).

`format_module` optionally takes `annotate`, a function giving a comment for a binding
(the elaborator uses it to print every binding's type, Relay style: `/* ty=... */`), and
`comments`, the comments of the text the module was parsed from (`parse_with_comments`),
which it puts back in order, each before the first construct that followed it in the text
(a definition, statement, parameter, argument, attribute or expression; or a block's `}`):

* a comment that had its line to itself gets a line of its own, indented as what follows it,
  keeping one empty line before or after it where the text had one;
* a comment that followed code on its line (`%0 = f(%x); // why`) goes at the end of the line
  printed last, if that is where a new line would start, else where the printer stands;
* a block comment that led into code on its line (`/* a */ %x`) stays in front of it;
* a line comment met in the middle of a line ends it: what follows continues on the next.

A comment inside a type or a dimension (there is no construct to attach it to there) moves
past the type. `gradual.syntax.formatting` checks the outcome: the text must parse to the same
tree with the same comments.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from gradual.shapes.poly import int_text
from gradual.syntax import ast
from gradual.syntax.adt_printing import format_type_def, write_match
from gradual.syntax.comments import Comment

Annotator = Callable[[object], Optional[str]]

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


def format_dim_list(texts: Optional[list]) -> str:
    """Printed dims as a shape: `(1, ?, n)`, `(3,)` for rank 1, `()`, or `*` for None."""
    if texts is None:
        return "*"
    if len(texts) == 1:
        return f"({texts[0]},)"
    return "(" + ", ".join(texts) + ")"


def format_shape_expr(dims: Optional[tuple]) -> str:
    """`(1, ?, n)`, `(3,)`, `()` or `*`."""
    return format_dim_list(None if dims is None else [format_dim(d) for d in dims])


def format_type(t: ast.TypeExpr) -> str:
    """A type as written in source."""
    out: list[str] = []
    _write_type(t, out)
    return "".join(out)


def _write_type(t: ast.TypeExpr, out: list) -> None:
    """Append a type's text to `out` in pieces (joined once: a type n deep prints in linear time)."""
    if isinstance(t, ast.TensorTypeExpr):
        out.append(t.dtype if t.dims == () and t.dtype != "?" else f"Tensor[{format_shape_expr(t.dims)}, {t.dtype}]")
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


def _write_types(types: tuple, out: list) -> None:
    write_separated(types, out, _write_type)


def write_separated(items: Sequence, out: list, write: Callable[[Any, list], None]) -> None:
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


#: Indentation grows with nesting up to this depth and stays there: text 10,000 levels deep
#: would otherwise be mostly spaces (its size quadratic in the depth).
MAX_INDENT = 32


class _Printer:
    """Pretty-prints a module with two-space indentation, writing pieces into one list (text
    is joined once at the end, so a deeply nested program prints in linear time)."""

    def __init__(self, annotate: Optional[Annotator], comments: Sequence[Comment] = ()) -> None:
        self.annotate = annotate
        self.out: list[str] = []
        self.comments = list(comments)
        self.next_comment = 0
        self.comment_line = -1  # the piece that ends a line a comment began or ended

    def text(self) -> str:
        return "".join(self.out)

    def module(self, module: ast.Module) -> None:
        for i, t in enumerate(module.types):  # type definitions first, as Relay prints them
            if i:
                self.out.append("\n\n")
            self.line_start(t.span.start, 0)
            self.out.append(format_type_def(t, format_type))
        for i, d in enumerate(module.defs):
            if i or module.types:
                self.out.append("\n\n")
            self.line_start(d.span.start, 0)
            self.definition(d)
        if module.defs or module.types:
            self.out.append("\n")
        self.rest()

    def definition(self, d: ast.Def) -> None:
        tparams = f"[{', '.join(d.dtype_params)}]" if d.dtype_params else ""
        self.out.append(f"def @{d.name}{tparams}(")
        self.params(d.params, 0, d.attrs)
        if d.claimed_dims and not any(a.name == ast.CLAIMED for a in d.attrs):  # a frontend's claim
            names = ", ".join(format_attr_value(n) for n in sorted(d.claimed_dims))
            self.out.append(f"{', ' if d.params or d.attrs else ''}{ast.CLAIMED}=[{names}]")
        ret = f" -> {format_type(d.ret)}" if d.ret is not None else ""
        self.out.append(f"){ret} {{\n")
        self.block_end(d.body, 0, "")

    def params(self, params: tuple, depth: int, attrs: tuple = ()) -> None:
        """Parameters, then the function attributes Relay prints after them."""
        for i, p in enumerate(params):
            if i:
                self.out.append(", ")
            self.inline(p.span.start, depth)
            self.out.append(self.param(p))
        self.attrs(attrs, depth, bool(params))

    def attrs(self, attrs: tuple, depth: int, after: bool) -> None:
        """`name=value` attributes (after other items when `after`)."""
        for i, a in enumerate(attrs):
            if i or after:
                self.out.append(", ")
            self.inline(a.span.start, depth)
            self.out.append(f"{a.name}={format_attr_value(a.value)}")

    @staticmethod
    def param(p: ast.Param) -> str:
        return f"%{p.var.name}" if p.type is None else f"%{p.var.name}: {format_type(p.type)}"

    def body(self, body: ast.Body, depth: int) -> None:
        out = self.out
        stmts = body.stmts
        if any(s.__class__ is ast.Dataflow for s in stmts):  # a frontend's module, not yet checked
            stmts = ast.plain_statements(stmts)
        for s in stmts:
            self.line_start(s.span.start, depth)
            self.stmt(s, depth)
            out.append("\n")
        self.line_start(body.result.span.start, depth)
        self.expr(body.result, depth)
        out.append(self._note(body.result))

    def _note(self, node: object) -> str:
        if self.annotate is None:
            return ""
        text = self.annotate(node)
        return f" /* {text} */" if text else ""

    def stmt(self, s: object, depth: int) -> None:
        out = self.out
        if isinstance(s, ast.Let):
            if s.graph and s.type is None:
                out.append(f"%{s.var.name} = ")
            else:
                annot = f": {format_type(s.type)}" if s.type is not None else ""
                out.append(f"let %{s.var.name}{annot} = ")
            self.expr(s.value, depth)
            out.append(self._note(s) + ";")
        elif isinstance(s, ast.Hint):
            out.append(f"can_unify(%{s.var.name}, shape={format_shape_expr(s.dims)});")
        else:
            raise TypeError(f"not a statement: {s!r}")

    def expr(self, e: ast.Expr, depth: int) -> None:
        out = self.out
        if self.comments:
            self.inline(e.span.start, depth)
        if isinstance(e, ast.Var):
            out.append(f"%{e.name}")
        elif isinstance(e, ast.GlobalVar):
            out.append(f"@{e.name}")
        elif isinstance(e, ast.OpRef):
            out.append(e.name)
        elif isinstance(e, ast.Literal):
            out.append(format_literal(e))
        elif isinstance(e, ast.TupleExpr):
            out.append("(")
            self.items(e.fields, depth)
            out.append(",)" if len(e.fields) == 1 else ")")
        elif isinstance(e, ast.Proj):
            self.operand(e.tuple, depth)
            out.append(f".{e.index}")
        elif isinstance(e, ast.Call):
            self.call(e, depth)
        elif isinstance(e, ast.If):
            out.append("if (")
            self.expr(e.cond, depth)
            out.append(") {\n")
            self.block_end(e.then, depth, " else {\n")
            self.block_end(e.otherwise, depth, "")
        elif isinstance(e, ast.Match):
            write_match(out, e, depth, self.expr, self.block_end, self.line_start, format_type)
        elif isinstance(e, ast.Fn):
            out.append(f"fn [{', '.join(e.type_params)}](" if e.type_params else "fn (")
            self.params(e.params, depth, e.attrs)
            ret = f" -> {format_type(e.ret)}" if e.ret is not None else ""
            out.append(f"){ret} {{\n")
            self.block_end(e.body, depth, "")
        elif isinstance(e, ast.Cast):
            self.cast_operand(e.expr, depth)
            out.append(f" as {format_type(e.type)}")
        elif isinstance(e, ast.Block):
            out.append("(\n")
            self.body(e.body, depth + 1)
            out.append("\n")
            self.line_start(e.span.end - 1, depth, depth + 1)  # comments before `)` are inside
            out.append(")")
        else:
            raise TypeError(f"not an expression: {e!r}")

    def block_end(self, body: ast.Body, depth: int, after: str) -> None:
        """A block's body one level deeper, then its closing brace and `after`."""
        self.body(body, depth + 1)
        self.out.append("\n")
        self.line_start(body.span.end - 1, depth, depth + 1)  # comments before `}` are inside
        self.out.append(f"}}{after}")

    def items(self, exprs: tuple, depth: int) -> None:
        for i, e in enumerate(exprs):
            if i:
                self.out.append(", ")
            self.expr(e, depth)

    def operand(self, e: ast.Expr, depth: int) -> None:
        """An expression in callee or projection position: casts need parentheses, and so
        do literals (`(1).0`, since `1.0` would read as a float)."""
        wrap = isinstance(e, (ast.Cast, ast.Literal))
        if wrap:
            self.out.append("(")
        self.expr(e, depth)
        if wrap:
            self.out.append(")")

    def cast_operand(self, e: ast.Expr, depth: int) -> None:
        self.expr(e, depth)

    def call(self, e: ast.Call, depth: int) -> None:
        self.operand(e.callee, depth)
        self.out.append("(")
        self.items(e.args, depth)
        self.attrs(e.attrs, depth, bool(e.args))
        self.out.append(")")

    # comments -----------------------------------------------------------------------------
    def line_start(self, offset: int, depth: int, comment_depth: Optional[int] = None) -> None:
        """Begin a line for the construct at `offset` (the printer stands at a line start):
        the comments before it first (indented by `comment_depth`, else as the construct),
        then the indentation."""
        if self.comments:
            self.put_comments(offset, depth if comment_depth is None else comment_depth)
            if not self.at_line_start():
                return  # a comment that leads into the construct holds the line
        self.out.append(_pad(depth))

    def inline(self, offset: int, depth: int) -> None:
        """The comments before the construct at `offset`, printed where the line stands; a
        line that one of them ends continues one level deeper."""
        if self.comments:
            self.put_comments(offset, depth + 1)
            if self.at_line_start():
                self.out.append(_pad(depth + 1))

    def rest(self) -> None:
        """The comments after the last definition; the text ends with a line break."""
        if self.comments:
            self.put_comments(1 << 62, 0)
            if not self.at_line_start():
                self._end_line("\n")

    def put_comments(self, offset: int, depth: int) -> None:
        """Print every comment not yet printed that starts before `offset`; `depth` is the
        indentation of a line begun for one."""
        comments = self.comments
        while self.next_comment < len(comments) and comments[self.next_comment].start < offset:
            self._comment(comments[self.next_comment], depth)
            self.next_comment += 1

    def _comment(self, c: Comment, depth: int) -> None:
        if not self.at_line_start():
            self._comment_in_line(c, depth)
        elif c.after_code and self._line_above_ends_in_code():
            self._comment_after_line_above(c)
            if not c.is_line:
                return  # the line still ends in code (and a comment that followed it)
        elif c.before_code and not c.is_line:
            self.out.append(_pad(depth) + c.text + " ")  # leads into what follows
        else:
            self._comment_line(c, depth)
        if self.at_line_start():
            self.comment_line = len(self.out) - 1

    def _comment_in_line(self, c: Comment, depth: int) -> None:
        """A comment where the printer stands in a line: one that had its line to itself
        gets one again; a line comment ends the line."""
        if c.own_line:
            self._end_line("\n" + _pad(depth) + c.text + "\n")
            return
        last = self.out[-1]
        space = "" if last[-1:] in ("", " ", "(", "[") else " "
        self.out.append(space + c.text + ("\n" if c.is_line else " "))

    def _comment_after_line_above(self, c: Comment) -> None:
        """A comment at the end of the line above (the printer stands at a line start)."""
        last = self.out[-1]
        code = last.rstrip("\n")
        self.out[-1] = code + " " + c.text + "\n" * (len(last) - len(code))

    def _comment_line(self, c: Comment, depth: int) -> None:
        """A comment on a line of its own, with the empty lines around it it had."""
        if c.blank_before and self._line_above_has_text():
            self.out.append("\n")
        self.out.append(_pad(depth) + c.text + "\n")
        if c.blank_after:
            self.out.append("\n")

    def at_line_start(self) -> bool:
        """Whether the printer stands at the start of a line."""
        return not self.out or self.out[-1].endswith("\n")

    def _line_above_ends_in_code(self) -> bool:
        """Whether the line above ends in code, that a trailing comment may follow (not in a
        line comment, and not a line of comments: a comment after one of those would make
        it lead into code the next time)."""
        out = self.out
        if not out or len(out) - 1 == self.comment_line:
            return False
        if out[-1].rstrip("\n"):
            return True
        return len(out) > 1 and not out[-2].endswith("\n")

    def _line_above_has_text(self) -> bool:
        """Whether the line above is neither empty nor the top of the text or of a block."""
        tail = "".join(self.out[-2:])
        return bool(tail) and not tail.endswith(("\n\n", "{\n", "(\n"))

    def _end_line(self, then: str) -> None:
        """End the current line (without trailing spaces), then print `then`."""
        self.out[-1] = self.out[-1].rstrip(" ")
        self.out.append(then)


def _pad(depth: int) -> str:
    return "  " * min(depth, MAX_INDENT)


def format_module(module: ast.Module, annotate: Optional[Annotator] = None, comments: Sequence[Comment] = ()) -> str:
    """The program as text; `annotate(node)` may add a comment after a binding's value;
    `comments` (from the text the module was parsed from) are put back (module docstring)."""
    printer = _Printer(annotate, comments)
    printer.module(module)
    return printer.text()


def format_expr(e: ast.Expr) -> str:
    """One expression as text (for messages)."""
    printer = _Printer(None)
    printer.expr(e, 0)
    return printer.text()
