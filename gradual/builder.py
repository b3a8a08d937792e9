"""Building programs from Python, for frontends (model importers), in the style of Relay's API.

    from gradual import builder as gb

    main = gb.Function("main")
    x = main.param("x", gb.Tensor((None, 784), "float32"))
    w = main.param("w", gb.Tensor((128, 784), "float32"))
    h = main.let("h", gb.call("nn.dense", x, w, loc=gb.Loc("model.onnx", "node Gemm_0 (Gemm)")))
    module = gb.module(main.returns(gb.call("nn.relu", h)))
    result = gradual.check(module)

The builder makes the same syntax tree the parser makes (it never formats text), so checking a
built module gives the same typed result as checking its text. A `Loc` names where a node came
from; diagnostics point there, showing the location's text as the "source line".
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
import re
import sys
from dataclasses import replace
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from gradual.syntax import ast
from gradual.syntax.source import GENERATED, LINE_BREAK, NOWHERE, PlacedSource, Source, Span

ShapeItem = Union[int, str, None, "Dim"]


class Loc:
    """Where a node came from. `Loc(path, text)`: a one-line description of a node of a model
    file (`node Gemm_0 (Gemm)`), shown as the diagnostic's source line; `Loc.at(path, line,
    column)`: a place in the frontend's own source (a Python line), with its line and column.
    Either may carry `data`, any object (the frontend's own node): a diagnostic located here
    gives it back as `Diagnostic.data`."""

    __slots__ = ("span",)

    def __init__(self, path: str, text: str, data: object = None) -> None:
        _require(path, str, "Loc", "path", "a str (the model file's path)")
        _require(text, str, "Loc", "text", "a str (a one-line description of the node)")
        source = Source(text, path, data=data)
        self.span = Span(source, 0, len(text))

    @staticmethod
    def at(
        path: str,
        line: int,
        column: int,
        end_line: Optional[int] = None,
        end_column: Optional[int] = None,
        data: object = None,
        *,
        text: Optional[str] = None,
    ) -> "Loc":
        """A place in the frontend's own source: 1-based `line` and `column` (a column counts
        characters), to `end_line`/`end_column` (just past the last character; defaults: the
        same line, one character). The line shown is the file's own, read when a diagnostic is
        drawn; `text` gives the lines instead (the code a trace recorded, where the file may
        have changed since). Where the file cannot be read, diagnostics name the position and
        show no line."""
        _require(path, str, "Loc.at", "path", "a str (the source file's path)")
        line = _positive(line, "line")
        column = _positive(column, "column")
        end_line = line if end_line is None else _positive(end_line, "end_line")
        if end_line < line:
            raise ValueError(f"gradual.builder.Loc.at: end_line must be >= line ({line}), not {end_line}")
        if end_column is None:
            end_column = column + 1 if end_line == line else 1
        end_column = _positive(end_column, "end_column")
        if end_line == line and end_column < column:
            raise ValueError(
                f"gradual.builder.Loc.at: end_column must be >= column ({column}) on one line, not {end_column}"
            )
        if text is not None:
            _require(text, str, "Loc.at", "text", "a str (the source lines shown)")
        loc = object.__new__(Loc)
        if end_line == line:  # offsets need no text: the source starts at the line
            reader: str | Callable[[], str] = text if text is not None else _FileLines(path, line, line)
            loc.span = Span(PlacedSource(path, line - 1, reader, data), column - 1, end_column - 1)
            return loc
        lines = (text.split("\n") if text is not None else _read_lines(path, line, end_line)) or []
        if len(lines) < end_line - line + 1:  # a file that cannot be read: blank lines keep the positions
            lines = [" " * (column - 1)] + [""] * (end_line - line - 1) + [" " * (end_column - 1)]
        body = "\n".join(lines[: end_line - line + 1])
        source = PlacedSource(path, line - 1, body, data)
        end = sum(len(t) + 1 for t in lines[: end_line - line]) + end_column - 1
        loc.span = Span(source, min(column - 1, len(lines[0])), min(end, len(body)))
        return loc

    @property
    def data(self) -> object:
        """The payload given with the location (None if none)."""
        return self.span.source.data

    def __repr__(self) -> str:
        return f"Loc({self.span.describe()})"


def _positive(value: object, name: str) -> int:
    """An int >= 1 (NumPy integers too), else a TypeError or ValueError naming the argument."""
    if value.__class__ is int and value >= 1:
        return value
    number = _int_like(value)
    if number is None:
        raise TypeError(f"gradual.builder.Loc.at: {name} must be an int (1-based), not {type(value).__name__}")
    if number < 1:
        raise ValueError(f"gradual.builder.Loc.at: {name} must be >= 1 (1-based), not {number}")
    return number


def _require(value: object, kinds: object, function: str, name: str, what: str) -> None:
    """A TypeError naming the builder function, the argument and what it takes."""
    if not isinstance(value, kinds):  # type: ignore[arg-type]
        raise TypeError(f"gradual.builder.{function}: {name} must be {what}, not {type(value).__name__}")


class _FileLines:
    """Lines `first`..`last` of a file, read when a diagnostic first shows them ("" where the
    file cannot be read)."""

    __slots__ = ("path", "first", "last")

    def __init__(self, path: str, first: int, last: int) -> None:
        self.path, self.first, self.last = path, first, last

    def __call__(self) -> str:
        lines = _read_lines(self.path, self.first, self.last)
        return "\n".join(lines) if lines is not None else ""


def _read_lines(path: str, first: int, last: int) -> Optional[list]:
    """Lines `first`..`last` (1-based) of a text file as Python numbers them (at `\n`, `\r\n`,
    `\r`), None when it is not a readable UTF-8 file of at most 50 MB or is shorter."""
    lines = _file_lines(path)
    if lines is None or last > len(lines):
        return None
    return list(lines[first - 1 : last])


_FILES: dict = {}


def _file_lines(path: str) -> Optional[tuple]:
    """A file's lines, read once per version of it (its modification time and size)."""
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    key = (stat.st_mtime_ns, stat.st_size)
    found = _FILES.get(path)
    if found is not None and found[0] == key:
        return found[1]
    lines = None
    if os.path.isfile(path) and stat.st_size <= 50_000_000:
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                lines = tuple(LINE_BREAK.split(handle.read()))
        except OSError:
            lines = None
    if len(_FILES) >= 64:
        _FILES.clear()
    _FILES[path] = (key, lines)
    return lines


class SpanLoc(Loc):
    """A location that is a span of a frontend's own text (a model's listing, a Python line)."""

    __slots__ = ()

    def __init__(self, span: Span) -> None:  # a Loc made from a span
        self.span = span


def _span(loc: Optional[Loc]) -> Span:
    return loc.span if loc is not None else NOWHERE


# dimensions and types -------------------------------------------------------------------------
class Dim:
    """A dimension for a type: `Dim("n")`, `Dim.interval(1, 8)`, `Dim.unknown()`, `Dim("n") + 1`,
    `Dim("n") % 4`, `Dim.max("n", 1)`, `Dim("n").ceildiv(2)`."""

    __slots__ = ("expr",)

    def __init__(self, name_or_expr: Union[str, ast.DimExpr]) -> None:
        if isinstance(name_or_expr, str):
            self.expr: ast.DimExpr = ast.DimName(_dim_name(name_or_expr, "Dim"))
        elif isinstance(name_or_expr, _DIM_NODES):
            self.expr = name_or_expr
        else:
            raise TypeError(
                f"gradual.builder.Dim: takes a dim name (a str) or a dimension expression, not {type(name_or_expr).__name__}"
            )

    @staticmethod
    def interval(lo: Optional[int], hi: Optional[int]) -> "Dim":
        """A bounded unknown `lo..hi` (either bound may be None: no bound)."""
        low = None if lo is None else _natural(lo, "Dim.interval", "lo")
        high = None if hi is None else _natural(hi, "Dim.interval", "hi")
        if low is not None and high is not None and high < low:
            raise ValueError(f"gradual.builder.Dim.interval: the interval {low}..{high} is empty (hi < lo)")
        return Dim(ast.DimInterval(low, high))

    @staticmethod
    def unknown() -> "Dim":
        """`?`."""
        return Dim(ast.DimUnknown())

    @staticmethod
    def max(*dims: ShapeItem) -> "Dim":
        """`max(a, b, ...)` of two or more dims."""
        return _fold("max", dims)

    @staticmethod
    def min(*dims: ShapeItem) -> "Dim":
        """`min(a, b, ...)` of two or more dims."""
        return _fold("min", dims)

    def ceildiv(self, other: Union["Dim", int]) -> "Dim":
        """The quotient rounded up, `(self + other - 1) // other`, by a positive constant."""
        den = _int_like(other)
        if den is None or den <= 0:
            raise ValueError(f"gradual.builder.Dim.ceildiv: the divisor must be a positive int, not {other!r}")
        return (self + (den - 1)) // den if den > 1 else self

    def _bin(self, op: str, other: Union["Dim", int], reverse: bool = False) -> "Dim":
        other_expr = _dim_expr(other, f"Dim {op}", "the other operand")
        left, right = (other_expr, self.expr) if reverse else (self.expr, other_expr)
        return Dim(ast.DimBinary(op, left, right))

    def __add__(self, other: Union["Dim", int]) -> "Dim":
        return self._bin("+", other)

    def __radd__(self, other: int) -> "Dim":
        return self._bin("+", other, reverse=True)

    def __sub__(self, other: Union["Dim", int]) -> "Dim":
        return self._bin("-", other)

    def __rsub__(self, other: int) -> "Dim":
        return self._bin("-", other, reverse=True)

    def __mul__(self, other: Union["Dim", int]) -> "Dim":
        return self._bin("*", other)

    def __rmul__(self, other: int) -> "Dim":
        return self._bin("*", other, reverse=True)

    def __floordiv__(self, other: int) -> "Dim":
        return self._bin("//", other)

    def __mod__(self, other: int) -> "Dim":
        return self._bin("%", other)

    def __repr__(self) -> str:
        from gradual.syntax.printer import format_dim

        return f"Dim({format_dim(self.expr)})"


_DIM_NODES = (ast.DimInt, ast.DimUnknown, ast.DimName, ast.DimBinary, ast.DimInterval)


def _fold(op: str, dims: Sequence[ShapeItem]) -> Dim:
    if len(dims) < 2:
        raise TypeError(f"gradual.builder.Dim.{op} takes two or more dims, not {len(dims)}")
    exprs = [_dim_expr(d, f"Dim.{op}", f"dim {i}") for i, d in enumerate(dims)]
    result = exprs[0]
    for expr in exprs[1:]:
        result = ast.DimBinary(op, result, expr)
    return Dim(result)


#: a name the language can write: a dim or global name, a local variable, an attribute, an operator
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LOCAL_NAME = re.compile(r"[A-Za-z0-9_]+")
_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _dim_name(name: str, where: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(
            f"gradual.builder.{where}: a dim name is an identifier (letters, digits, `_`; not first a digit), not {name!r}"
        )
    return name


def _name(name: object, pattern: re.Pattern, where: str, what: str) -> str:
    """`name` if it is a str the pattern matches whole, else a TypeError/ValueError saying so."""
    if not isinstance(name, str):
        raise TypeError(f"gradual.builder.{where}: {what} must be a str, not {type(name).__name__}")
    if not pattern.fullmatch(name):
        kinds = "letters, digits and `_`" if pattern is _LOCAL_NAME else "an identifier (letters, digits, `_`)"
        if pattern is _OP_NAME:
            kinds = "identifiers joined by `.` (`nn.dense`)"
        raise ValueError(f"gradual.builder.{where}: {what} must be {kinds}, not {name!r}")
    return name


def _int_like(value: object) -> Optional[int]:
    """An int (a NumPy integer too; not a bool), else None."""
    if value.__class__ is int:
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


def _natural(value: object, where: str, what: str) -> int:
    number = _int_like(value)
    if number is None:
        raise TypeError(f"gradual.builder.{where}: {what} must be an int, not {type(value).__name__}")
    if number < 0:
        raise ValueError(f"gradual.builder.{where}: {what} must be >= 0, not {number}")
    return number


def _dim_expr(d: ShapeItem, where: str = "Tensor", what: str = "a shape item") -> ast.DimExpr:
    """A shape item as a dimension: an int >= 0 (-1: unknown, as ONNX and OpenVINO write it),
    None (`?`), a dim name, or a Dim."""
    if isinstance(d, Dim):
        return d.expr
    if d is None:
        return ast.DimUnknown()
    if isinstance(d, str):
        return ast.DimName(_dim_name(d, where))
    number = _int_like(d)
    if number is not None:
        if number == -1:
            return ast.DimUnknown()
        if number < 0:
            raise ValueError(
                f"gradual.builder.{where}: {what} is {number}; a dimension is an int >= 0 (or -1 or None: unknown)"
            )
        return ast.DimInt(number)
    raise TypeError(
        f"gradual.builder.{where}: {what} must be an int >= 0, None (unknown), a dim name or a Dim, "
        f"not {type(d).__name__} {d!r}"
    )


def dtype_name(dtype: object, where: str = "Tensor") -> str:
    """A dtype as the language writes it: a name (`float32`, a dtype variable `T`), `?`, or a
    NumPy dtype (`np.float32`, `np.dtype("int64")`); a TypeError/ValueError otherwise."""
    if isinstance(dtype, str):
        if dtype == "?" or _IDENTIFIER.fullmatch(dtype):
            return dtype
        raise ValueError(
            f"gradual.builder.{where}: dtype must be a dtype name (`float32`), a dtype variable or `?`, not {dtype!r}"
        )
    numpy = sys.modules.get("numpy")
    if numpy is not None and dtype is not None and not isinstance(dtype, (int, float)):
        try:
            found = numpy.dtype(dtype)
        except TypeError:
            found = None
        if found is not None and found.kind in "biuf":
            return str(found.name)
    raise TypeError(
        f'gradual.builder.{where}: dtype must be a str (a dtype name such as "float32", a dtype variable, '
        f'or "?" for unknown), not {type(dtype).__name__} {dtype!r}'
    )


def Tensor(shape: Optional[Sequence[ShapeItem]], dtype: str = "float32") -> ast.TensorTypeExpr:
    """A tensor type. `shape`: a tuple or list of dims, each an int >= 0, None or -1 (`?`), a dim
    name or a `Dim`; None for a tensor of unknown rank. `dtype`: a dtype name, a dtype variable,
    `?` (unknown), or a NumPy dtype."""
    if shape is None:
        dims = None
    elif isinstance(shape, (tuple, list)):
        dims = tuple([_dim_expr(d, "Tensor", f"shape item {i}") for i, d in enumerate(shape)])
    else:
        raise TypeError(
            f"gradual.builder.Tensor: shape must be a tuple or list of dims (or None: unknown rank), "
            f"not {type(shape).__name__} {shape!r}"
        )
    return ast.TensorTypeExpr(dims, dtype_name(dtype))


def Scalar(dtype: str) -> ast.TensorTypeExpr:
    """A rank-0 tensor type."""
    return ast.TensorTypeExpr((), dtype_name(dtype, "Scalar"))


def TupleOf(*fields: ast.TypeExpr) -> ast.TupleTypeExpr:
    """A tuple type."""
    return ast.TupleTypeExpr(tuple(fields))


def FnType(params: Sequence[ast.TypeExpr], ret: ast.TypeExpr) -> ast.FnTypeExpr:
    """A function type."""
    return ast.FnTypeExpr(tuple(params), ret)


def Dynamic() -> ast.DynTypeExpr:
    """The dynamic type `?`."""
    return ast.DynTypeExpr()


def located(t: ast.TypeExpr, span: Span) -> ast.TypeExpr:
    """A type annotation (and its fields) at a span: a frontend's declared result type, located
    at its outputs so a check of it names that line."""
    if isinstance(t, ast.TupleTypeExpr):
        return replace(t, fields=tuple(located(f, span) for f in t.fields), span=span)
    return replace(t, span=span)


# expressions ----------------------------------------------------------------------------------
class Var:
    """A variable: `gb.Var(name, loc)` names one where it is used (at `loc`); `param` and `let`
    return the variable they bind. Each use makes a fresh syntax node, located (see
    docs/frontends.md) at its own `loc` if it was made with one, else at the construct it is an
    argument of (a binding's variable is never located at its binding: a diagnostic about an
    argument names the equation, not the line that declared the parameter)."""

    __slots__ = ("name", "loc", "bound")

    def __init__(self, name: str, loc: Optional[Loc] = None) -> None:
        self.name = _name(name, _LOCAL_NAME, "Var", "name")
        if loc is not None and not isinstance(loc, Loc):
            raise TypeError(f"gradual.builder.Var: loc must be a gradual.builder.Loc, not {type(loc).__name__}")
        self.loc = loc
        #: made by `param` or `let`: `loc` is where it is bound, not where it is used
        self.bound = False

    def node(self) -> ast.Var:
        """A new use of this variable (at its location; an unplaced one where the program shows it)."""
        return ast.Var(self.name, span=self.loc.span if self.loc is not None and not self.bound else unplaced())

    def __repr__(self) -> str:
        return f"Var(%{self.name})"


def _bound(name: str, loc: Optional[Loc]) -> Var:
    var = object.__new__(Var)
    var.name, var.loc, var.bound = name, loc, True
    return var


class DataflowVar(Var):
    """The variable a Dataflow statement binds; its location is found when asked (most are
    never asked)."""

    __slots__ = ("flow", "index")

    def __init__(self, name: str, flow: ast.Dataflow, index: int) -> None:
        self.name = name
        self.flow = flow
        self.index = index
        self.bound = False

    @property
    def loc(self) -> Loc:  # type: ignore[override]  # Var.loc, read-only here: found from the flow when asked
        return SpanLoc(self.flow.line(self.index))


Expr = Union[ast.Expr, Var, int, float, bool]


def unplaced() -> Span:
    """A span of its own for a node built without a location (see GENERATED)."""
    return Span(GENERATED, 0, 0)


def _here(loc: Optional[Loc], where: str) -> Span:
    """The span of a construct built at `loc` (its own unplaced span without one)."""
    if loc is None:
        return Span(GENERATED, 0, 0)
    if loc.__class__ is Loc or isinstance(loc, Loc):
        return loc.span
    raise TypeError(f"gradual.builder.{where}: loc must be a gradual.builder.Loc (or None), not {type(loc).__name__}")


def _expr(e: Expr, at: Optional[Span] = None, where: str = "call", what: str = "an argument") -> ast.Expr:
    """An argument as a node: a variable's use is located at its own `loc`, else at `at` (the
    span of the located construct it is an argument of), else unplaced; a number is a literal."""
    if e.__class__ is Var:
        if e.loc is not None and not e.bound:
            return ast.Var(e.name, span=e.loc.span)
        return ast.Var(e.name, span=at if at is not None else Span(GENERATED, 0, 0))
    if isinstance(e, ast.Node):
        return e
    if isinstance(e, Var):
        return e.node()
    literal = _literal(e, None, at if at is not None else None, where)
    if literal is not None:
        return literal
    raise TypeError(
        f"gradual.builder.{where}: {what} must be an expression (a Var, a node the builder made, or a number), "
        f"not {type(e).__name__} {e!r}"
    )


def _literal(value: object, dtype: Optional[str], span: Optional[Span], where: str = "const") -> Optional[ast.Literal]:
    """A number (a NumPy scalar too) as a literal, its dtype as the text defaults it (int32,
    float32, bool; a NumPy scalar's own); None for anything else. A float the language cannot
    write (inf, nan) is a ValueError."""
    placed = span if span is not None else Span(GENERATED, 0, 0)
    if isinstance(value, bool):
        return ast.Literal(value, dtype or "bool", span=placed)
    if value.__class__ is int:
        return ast.Literal(value, dtype or "int32", span=placed)
    if value.__class__ is float:
        _finite(value, where)
        return ast.Literal(value, dtype or "float32", span=placed)
    if isinstance(value, (numbers.Number, int, float)) and not isinstance(value, complex):
        own = _numpy_scalar_dtype(value)
        if isinstance(value, numbers.Integral):
            return ast.Literal(int(value), dtype or own or "int32", span=placed)
        if isinstance(value, numbers.Real):
            number = float(value)
            _finite(number, where)
            return ast.Literal(number, dtype or own or "float32", span=placed)
    if _numpy_scalar_dtype(value) == "bool":
        return ast.Literal(bool(value), dtype or "bool", span=placed)
    return None


def _finite(value: float, where: str) -> None:
    if value != value or value in (math.inf, -math.inf):
        raise ValueError(
            f"gradual.builder.{where}: the language writes finite numbers only, not {value!r}; "
            "pass such a constant as a parameter (its value given to run)"
        )


def _numpy_scalar_dtype(value: object) -> Optional[str]:
    """A NumPy scalar's dtype name (None for anything else)."""
    dtype = getattr(value, "dtype", None)
    if dtype is None or type(value).__module__ != "numpy" or getattr(value, "ndim", 0) != 0:
        return None
    name = str(getattr(dtype, "name", ""))
    return name if name in _LITERAL_DTYPES else None


_LITERAL_DTYPES = frozenset(
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"}
)


def _attr_value(value: object, name: str = "") -> ast.AttrValue:
    if value.__class__ in _SCALAR_CLASSES:
        return value  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        items = tuple(value)
        for item in items:
            if item.__class__ not in _SCALAR_CLASSES:  # nested, or a subclass: item by item
                items = tuple(_attr_value(v, name) for v in value)
                break
        return ast.AttrSeq(items, isinstance(value, list))
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if _numpy_scalar_dtype(value) is not None:  # a NumPy scalar: the Python number it is
        return value.item()  # type: ignore[attr-defined]  # _numpy_scalar_dtype found a NumPy scalar
    raise TypeError(
        f"gradual.builder.call: attribute {name!r} must be a bool, int, float, str, None, a NumPy scalar, "
        f"or a list or tuple of them, not {type(value).__name__} {value!r}"
    )


attr_value = _attr_value  # for a frontend that makes a Dataflow statement's Attr nodes itself

#: the classes an attribute value may have as it is (a subclass of one, such as an IntEnum, is
#: checked by isinstance and kept as it is too)
_SCALAR_CLASSES = frozenset({bool, int, float, str, type(None)})


def const(value: Union[int, float, bool], dtype: Optional[str] = None, loc: Optional[Loc] = None) -> ast.Literal:
    """A scalar literal: a bool, int or float (or a NumPy scalar). The dtype defaults as in the
    text (int32, float32, bool), a NumPy scalar's to its own. A float must be finite."""
    span = _here(loc, "const")
    found = _literal(value, None if dtype is None else dtype_name(dtype, "const"), span)
    if found is None:
        raise TypeError(
            f"gradual.builder.const: value must be a bool, int or float (or a NumPy scalar), not {type(value).__name__} {value!r}"
        )
    return found


def call(op: str, *args: Expr, loc: Optional[Loc] = None, **attrs: object) -> ast.Call:
    """A call of an operator by name, with attributes as keyword arguments."""
    if op.__class__ is not str or not _OP_NAME.fullmatch(op):
        _name(op, _OP_NAME, "call", "op")
    span = _here(loc, "call")
    at = span if loc is not None else None
    attr_nodes = tuple([ast.Attr(k, _attr_value(v, k), span=span) for k, v in attrs.items()]) if attrs else ()
    return ast.Call(ast.OpRef(op, span=span), tuple([_expr(a, at) for a in args]), attr_nodes, span=span)


def call_global(name: str, *args: Expr, loc: Optional[Loc] = None) -> ast.Call:
    """A call of a definition `@name`."""
    _name(name, _IDENTIFIER, "call_global", "name")
    span = _here(loc, "call_global")
    at = span if loc is not None else None
    return ast.Call(ast.GlobalVar(name, span=span), tuple(_expr(a, at, "call_global") for a in args), (), span=span)


def call_value(fn: Expr, *args: Expr, loc: Optional[Loc] = None) -> ast.Call:
    """A call of a function-valued expression (a closure variable)."""
    span = _here(loc, "call_value")
    at = span if loc is not None else None
    callee = _expr(fn, at, "call_value", "fn")
    return ast.Call(callee, tuple(_expr(a, at, "call_value") for a in args), (), span=span)


def tuple_(*fields: Expr, loc: Optional[Loc] = None) -> ast.TupleExpr:
    """A tuple."""
    span = _here(loc, "tuple_")
    at = span if loc is not None else None
    return ast.TupleExpr(tuple(_expr(f, at, "tuple_", "a field") for f in fields), span=span)


def proj(value: Expr, index: int, loc: Optional[Loc] = None) -> ast.Proj:
    """Field `index` of a tuple."""
    span = _here(loc, "proj")
    return ast.Proj(
        _expr(value, span if loc is not None else None, "proj", "value"), _natural(index, "proj", "index"), span=span
    )


def cast(value: Expr, type: ast.TypeExpr, loc: Optional[Loc] = None, what: Optional[str] = None) -> ast.Cast:
    """`value as type` (`what`: how diagnostics name the value, if not "the value cast here")."""
    span = _here(loc, "cast")
    node = _expr(value, span if loc is not None else None, "cast", "value")
    return ast.Cast(node, _type(type, span, "cast"), span=span, what=what)


def if_(cond: Expr, then: Union[Expr, ast.Body], otherwise: Union[Expr, ast.Body], loc: Optional[Loc] = None) -> ast.If:
    """`if (cond) { then } else { otherwise }`."""
    span = _here(loc, "if_")
    at = span if loc is not None else None
    return ast.If(_expr(cond, at, "if_", "cond"), _body(then, at), _body(otherwise, at), span=span)


def _body(b: Union[Expr, ast.Body], at: Optional[Span] = None) -> ast.Body:
    if isinstance(b, ast.Body):
        return b
    node = _expr(b, at, "if_", "a branch")
    return ast.Body((), node, span=node.span)


def _type(t: object, span: Span, where: str, what: str = "type") -> Any:
    """A type annotation, located at its construct where it has no span of its own (a type
    the builder made: `Tensor(...)`), so a diagnostic about it names the construct."""
    if not isinstance(t, ast.TypeExpr.__args__):  # type: ignore[attr-defined]
        raise TypeError(
            f"gradual.builder.{where}: {what} must be a type (gb.Tensor, gb.Scalar, gb.TupleOf, gb.FnType, gb.Dynamic), "
            f"not {type(t).__name__} {t!r}"
        )
    return located(t, span) if t.span is NOWHERE else t


# functions and modules ------------------------------------------------------------------------
class Block:
    """A sequence of bindings ending in a result: a function body or a branch."""

    def __init__(self) -> None:
        self.stmts: list[ast.Stmt] = []
        self._fresh = itertools.count()
        self._finished: Optional[str] = None

    def _open(self, where: str) -> None:
        if self._finished is not None:
            raise ValueError(
                f"gradual.builder.{where}: {self._finished} is finished (its result was given); "
                "add statements before `returns`/`body`"
            )

    def let(
        self, name: Optional[str], value: Expr, type: Optional[ast.TypeExpr] = None, loc: Optional[Loc] = None
    ) -> Var:
        """Bind a value (annotated if `type` is given); returns the variable. An unannotated
        operator call on variables joins the block's run of such bindings (an ast.Dataflow
        holding this Let), which the checker reads from arrays: a graph frontend's commonest
        statement, checked at a fraction of a general let's cost."""
        if self._finished is not None:
            self._open("let")
        if name is None:
            name = f"{next(self._fresh)}"
        elif name.__class__ is not str or not _LOCAL_NAME.fullmatch(name):
            _name(name, _LOCAL_NAME, "let", "name")
        span = _here(loc, "let")
        node = _expr(value, span if loc is not None else None, "let", "value")
        if type is not None:
            type = _type(type, span, "let")
        let = ast.Let(ast.Var(name, span=span), type, node, graph=type is None, span=span)
        if type is None and ast.is_graph_call(node):
            ast.add_made_let(self.dataflow(ast.MADE_LETS), let)
        else:
            self.stmts.append(let)
        return _bound(name, loc)

    def bind_op(self, name: str, op: str, args: list[str], locator: ast.Locator, tag: object) -> Var:
        """`%name = op(%args...)` with no attributes, `args` the variables' names, placed by
        `locator` and `tag` (see ast.Dataflow): the compact form of
        `let(name, call(op, *args))` for a graph frontend's straight runs of operator nodes,
        whose syntax is made only when asked for. Consecutive ones with the same locator share
        one Dataflow statement (`dataflow`)."""
        flow = self.dataflow(locator)
        index = len(flow.names)
        flow.names.append(name)
        flow.ops.append(op)
        flow.args.append(args)
        flow.tags.append(tag)
        return DataflowVar(name, flow, index)

    def dataflow(self, locator: ast.Locator) -> ast.Dataflow:
        """The Dataflow statement that ends the block if it has this locator, else a new one
        added: a frontend binding a long run of nodes appends to its arrays itself, as
        `bind_op` does (and makes each statement's variable, `DataflowVar`)."""
        stmts = self.stmts
        flow = stmts[-1] if stmts else None
        if flow is None or flow.__class__ is not ast.Dataflow or flow.locator is not locator:
            flow = ast.Dataflow([], [], [], [], locator)
            stmts.append(flow)
        return flow

    def hint(self, var: Var, shape: Sequence[ShapeItem]) -> None:
        """`can_unify(%var, shape=(...))`."""
        self._open("hint")
        if not isinstance(var, Var):
            raise TypeError(f"gradual.builder.hint: var must be a gradual.builder.Var, not {type(var).__name__}")
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"gradual.builder.hint: shape must be a tuple or list of dims, not {type(shape).__name__}")
        dims = tuple(_dim_expr(d, "hint", f"shape item {i}") for i, d in enumerate(shape))
        node = var.node()
        self.stmts.append(ast.Hint(node, dims, span=node.span))

    def body(self, result: Expr) -> ast.Body:
        """The block with its result (the block is finished: nothing more may be added). A
        variable as the result is located where it was bound (it is that value)."""
        self._open("body")
        bound_at = result.loc.span if isinstance(result, Var) and result.bound and result.loc is not None else None
        node = _expr(result, bound_at, "body", "result")
        self._finished = "this block"
        return ast.Body(tuple(self.stmts), node, span=node.span)


class Function(Block):
    """A definition `def @name[dtype_params](params) -> ret { ... }` under construction."""

    def __init__(
        self, name: str, dtype_params: Iterable[str] = (), ret: Optional[ast.TypeExpr] = None, loc: Optional[Loc] = None
    ) -> None:
        super().__init__()
        self.name = _name(name, _IDENTIFIER, "Function", "name")
        self.dtype_params = tuple(_name(t, _IDENTIFIER, "Function", "a dtype parameter") for t in dtype_params)
        self.loc = loc  # may be set until `returns` (a frontend locates it at its outputs last)
        self.ret = ret
        self.params: list = []
        self.claimed: set = set()
        self.bounds: dict = {}
        self.facts: list = []

    def claim_dims(self, names: Iterable[str]) -> None:
        """Mark dim names of the signature as an exporter's claim rather than a promise (spec §6):
        where the body constrains one (`height` must be 32), checking warns and inserts a
        runtime check instead of reporting an error."""
        if isinstance(names, str):
            raise TypeError("gradual.builder.claim_dims: names must be an iterable of dim names, not a str")
        self.claimed.update(_dim_name(n, "claim_dims") for n in names)

    def bound_dim(self, name: str, lo: int, hi: Optional[int]) -> None:
        """Declare that the signature's dim `name` lies in `lo..hi` (hi None: no upper bound), as
        an exporter's range constraint: checking relies on it, running checks it on entry."""
        low = _natural(lo, "bound_dim", "lo")
        high = None if hi is None else _natural(hi, "bound_dim", "hi")
        if high is not None and high < low:
            raise ValueError(f"gradual.builder.bound_dim: the range {low}..{high} of `{name}` is empty")
        self.bounds[_dim_name(name, "bound_dim")] = (low, high)

    def dim_fact(self, dim: Union["Dim", int]) -> None:
        """Declare that a dim expression over the signature's dims is >= 0, as an exporter's
        inequality guard (`s12 <= s3`: `Dim("s3") - Dim("s12")`): checking relies on it,
        running checks it on entry."""
        _dim_expr(dim, "dim_fact", "dim")
        self.facts.append(dim)

    def param(self, name: str, type: Optional[ast.TypeExpr] = None, loc: Optional[Loc] = None) -> Var:
        """Add a parameter (no type: inferred); returns its variable (whose uses are located
        where they are used, not here)."""
        self._open("param")
        _name(name, _LOCAL_NAME, "param", "name")
        span = _here(loc, "param")
        self.params.append(
            ast.Param(ast.Var(name, span=span), None if type is None else _type(type, span, "param"), span=span)
        )
        return _bound(name, loc)

    def returns(self, result: Expr) -> ast.Def:
        """Finish the definition with its result expression (nothing may be added after)."""
        self._open("returns")
        span = _here(self.loc, "Function")
        ret = None if self.ret is None else _type(self.ret, span, "Function", "ret")
        body = self.body(result)
        self._finished = f"the function `@{self.name}`"
        return ast.Def(
            self.name,
            self.dtype_params,
            tuple(self.params),
            ret,
            body,
            span=span,
            name_span=span,
            claimed_dims=frozenset(self.claimed),
            dim_bounds=dict(self.bounds),
            dim_facts=tuple(_dim_expr(d) for d in self.facts),
        )

    def _open(self, where: str) -> None:
        if self._finished is not None:
            raise ValueError(
                f"gradual.builder.{where}: the function `@{self.name}` is finished (`returns` was called); "
                "add parameters and statements before `returns`"
            )


def closure(
    params: Sequence[tuple],
    result: Union[Expr, ast.Body],
    ret: Optional[ast.TypeExpr] = None,
    loc: Optional[Loc] = None,
) -> ast.Fn:
    """`fn (params) -> ret { result }`; params are (name, type-or-None) pairs."""
    span = _here(loc, "closure")
    nodes = []
    for item in params:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"gradual.builder.closure: each parameter is a (name, type or None) pair, not {item!r}")
        n, t = item
        _name(n, _LOCAL_NAME, "closure", "a parameter name")
        nodes.append(ast.Param(ast.Var(n, span=span), None if t is None else _type(t, span, "closure"), span=span))
    at = span if loc is not None else None
    return ast.Fn(
        tuple(nodes), None if ret is None else _type(ret, span, "closure", "ret"), _body(result, at), span=span
    )


def module(*defs: ast.Def) -> ast.Module:
    """A module of definitions."""
    for d in defs:
        if not isinstance(d, ast.Def):
            raise TypeError(
                f"gradual.builder.module takes definitions (what Function.returns gives), not {type(d).__name__}"
            )
    return ast.Module(tuple(defs), span=defs[0].span if defs else NOWHERE)
