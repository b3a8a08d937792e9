"""AST to text. The output parses back to the same tree (`same_tree`).

`format_module` optionally takes `annotate`, a function giving a comment for a binding
(the elaborator uses it to print every binding's type, Relay style: `/* ty=... */`).
"""

from __future__ import annotations

from typing import Callable, Optional

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
    if isinstance(t, ast.TensorTypeExpr):
        if t.dims == () and t.dtype != "?":
            return t.dtype
        return f"Tensor[{format_shape_expr(t.dims)}, {t.dtype}]"
    if isinstance(t, ast.TupleTypeExpr):
        if len(t.fields) == 1:
            return f"({format_type(t.fields[0])},)"
        return "(" + ", ".join(format_type(f) for f in t.fields) + ")"
    if isinstance(t, ast.FnTypeExpr):
        return "fn (" + ", ".join(format_type(p) for p in t.params) + f") -> {format_type(t.ret)}"
    if isinstance(t, ast.DynTypeExpr):
        return "?"
    if isinstance(t, ast.HoleTypeExpr):
        return f"?{t.name}"
    raise TypeError(f"not a type: {t!r}")


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


class _Printer:
    """Pretty-prints a module with two-space indentation."""

    def __init__(self, annotate: Optional[Annotator]) -> None:
        self.annotate = annotate
        self.lines: list[str] = []

    def module(self, module: ast.Module) -> str:
        chunks = [self.definition(d) for d in module.defs]
        return "\n\n".join(chunks) + ("\n" if chunks else "")

    def definition(self, d: ast.Def) -> str:
        tparams = f"[{', '.join(d.dtype_params)}]" if d.dtype_params else ""
        ret = f" -> {format_type(d.ret)}" if d.ret is not None else ""
        head = f"def @{d.name}{tparams}({self.params(d.params)}){ret} {{"
        return head + "\n" + self.body(d.body, 1) + "\n}"

    def params(self, params: tuple) -> str:
        return ", ".join(self.param(p) for p in params)

    @staticmethod
    def param(p: ast.Param) -> str:
        return f"%{p.var.name}" if p.type is None else f"%{p.var.name}: {format_type(p.type)}"

    def body(self, body: ast.Body, depth: int) -> str:
        pad = "  " * depth
        lines = [pad + self.stmt(s, depth) for s in body.stmts]
        result = self.expr(body.result, depth)
        note = self._note(body.result)
        lines.append(pad + result + note)
        return "\n".join(lines)

    def _note(self, node: object) -> str:
        if self.annotate is None:
            return ""
        text = self.annotate(node)
        return f" /* {text} */" if text else ""

    def stmt(self, s: object, depth: int) -> str:
        if isinstance(s, ast.Let):
            value = self.expr(s.value, depth)
            note = self._note(s)
            if s.graph and s.type is None:
                return f"%{s.var.name} = {value}{note};"
            annot = f": {format_type(s.type)}" if s.type is not None else ""
            return f"let %{s.var.name}{annot} = {value}{note};"
        if isinstance(s, ast.Hint):
            return f"can_unify(%{s.var.name}, shape={format_shape_expr(s.dims)});"
        raise TypeError(f"not a statement: {s!r}")

    def expr(self, e: ast.Expr, depth: int) -> str:
        if isinstance(e, ast.Var):
            return f"%{e.name}"
        if isinstance(e, ast.GlobalVar):
            return f"@{e.name}"
        if isinstance(e, ast.OpRef):
            return e.name
        if isinstance(e, ast.Literal):
            return format_literal(e)
        if isinstance(e, ast.TupleExpr):
            inner = ", ".join(self.expr(f, depth) for f in e.fields)
            return f"({inner},)" if len(e.fields) == 1 else f"({inner})"
        if isinstance(e, ast.Proj):
            return f"{self.operand(e.tuple, depth)}.{e.index}"
        if isinstance(e, ast.Call):
            return self.call(e, depth)
        if isinstance(e, ast.If):
            pad = "  " * depth
            return (f"if ({self.expr(e.cond, depth)}) {{\n{self.body(e.then, depth + 1)}\n{pad}}} "
                    f"else {{\n{self.body(e.otherwise, depth + 1)}\n{pad}}}")
        if isinstance(e, ast.Fn):
            pad = "  " * depth
            ret = f" -> {format_type(e.ret)}" if e.ret is not None else ""
            return f"fn ({self.params(e.params)}){ret} {{\n{self.body(e.body, depth + 1)}\n{pad}}}"
        if isinstance(e, ast.Cast):
            return f"{self.cast_operand(e.expr, depth)} as {format_type(e.type)}"
        raise TypeError(f"not an expression: {e!r}")

    def operand(self, e: ast.Expr, depth: int) -> str:
        """An expression in callee or projection position: casts need parentheses, and so
        do literals (`(1).0`, since `1.0` would read as a float)."""
        text = self.expr(e, depth)
        return f"({text})" if isinstance(e, (ast.Cast, ast.Literal)) else text

    def cast_operand(self, e: ast.Expr, depth: int) -> str:
        return self.expr(e, depth)

    def call(self, e: ast.Call, depth: int) -> str:
        parts = [self.expr(a, depth) for a in e.args]
        parts += [f"{a.name}={format_attr_value(a.value)}" for a in e.attrs]
        return f"{self.operand(e.callee, depth)}({', '.join(parts)})"


def format_module(module: ast.Module, annotate: Optional[Annotator] = None) -> str:
    """The program as text; `annotate(node)` may add a comment after a binding's value."""
    return _Printer(annotate).module(module)


def format_expr(e: ast.Expr) -> str:
    """One expression as text (for messages)."""
    return _Printer(None).expr(e, 0)
