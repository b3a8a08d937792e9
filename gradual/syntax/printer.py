"""AST to text. The output parses back to the same tree (`same_tree`).

`format_module` optionally takes `annotate`, a function giving a comment for a binding
(the elaborator uses it to print every binding's type, Relay style: `/* ty=... */`).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..shapes.poly import int_text
from . import ast

Annotator = Callable[[object], Optional[str]]

_DIM_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2}


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
    prec = _DIM_PRECEDENCE[dim.op]
    left = format_dim(dim.left)
    right = format_dim(dim.right)
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
        out.append("fn (")
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
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
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
    suffix = {"int64": "i64", "int8": "i8", "int16": "i16", "uint8": "u8", "uint16": "u16",
              "uint32": "u32", "uint64": "u64", "float64": "f64", "float16": "f16"}.get(lit.dtype, "")
    if lit.dtype.startswith("float"):
        return f"{float(lit.value)!r}{suffix}"
    return f"{int(lit.value)}{suffix}"


#: Indentation grows with nesting up to this depth and stays there: text 10,000 levels deep
#: would otherwise be mostly spaces (its size quadratic in the depth).
MAX_INDENT = 32


class _Printer:
    """Pretty-prints a module with two-space indentation, writing pieces into one list (text
    is joined once at the end, so a deeply nested program prints in linear time)."""

    def __init__(self, annotate: Optional[Annotator]) -> None:
        self.annotate = annotate
        self.out: list[str] = []

    def text(self) -> str:
        return "".join(self.out)

    def module(self, module: ast.Module) -> None:
        for i, d in enumerate(module.defs):
            if i:
                self.out.append("\n\n")
            self.definition(d)
        if module.defs:
            self.out.append("\n")

    def definition(self, d: ast.Def) -> None:
        tparams = f"[{', '.join(d.dtype_params)}]" if d.dtype_params else ""
        ret = f" -> {format_type(d.ret)}" if d.ret is not None else ""
        self.out.append(f"def @{d.name}{tparams}({self.params(d.params, d.attrs)}){ret} {{\n")
        self.body(d.body, 1)
        self.out.append("\n}")

    def params(self, params: tuple, attrs: tuple = ()) -> str:
        return ", ".join([self.param(p) for p in params] + [f"{a.name}={format_attr_value(a.value)}" for a in attrs])

    @staticmethod
    def param(p: ast.Param) -> str:
        return f"%{p.var.name}" if p.type is None else f"%{p.var.name}: {format_type(p.type)}"

    def body(self, body: ast.Body, depth: int) -> None:
        pad = _pad(depth)
        out = self.out
        for s in body.stmts:
            out.append(pad)
            self.stmt(s, depth)
            out.append("\n")
        out.append(pad)
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
        elif isinstance(e, ast.Fn):
            ret = f" -> {format_type(e.ret)}" if e.ret is not None else ""
            out.append(f"fn ({self.params(e.params, e.attrs)}){ret} {{\n")
            self.block_end(e.body, depth, "")
        elif isinstance(e, ast.Cast):
            self.cast_operand(e.expr, depth)
            out.append(f" as {format_type(e.type)}")
        elif isinstance(e, ast.Block):
            out.append("(\n")
            self.body(e.body, depth + 1)
            out.append(f"\n{_pad(depth)})")
        else:
            raise TypeError(f"not an expression: {e!r}")

    def block_end(self, body: ast.Body, depth: int, after: str) -> None:
        """A block's body one level deeper, then its closing brace and `after`."""
        self.body(body, depth + 1)
        self.out.append(f"\n{_pad(depth)}}}{after}")

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
        attrs = [f"{a.name}={format_attr_value(a.value)}" for a in e.attrs]
        if attrs:
            self.out.append((", " if e.args else "") + ", ".join(attrs))
        self.out.append(")")


def _pad(depth: int) -> str:
    return "  " * min(depth, MAX_INDENT)


def format_module(module: ast.Module, annotate: Optional[Annotator] = None) -> str:
    """The program as text; `annotate(node)` may add a comment after a binding's value."""
    printer = _Printer(annotate)
    printer.module(module)
    return printer.text()


def format_expr(e: ast.Expr) -> str:
    """One expression as text (for messages)."""
    printer = _Printer(None)
    printer.expr(e, 0)
    return printer.text()
