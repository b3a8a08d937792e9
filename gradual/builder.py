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
from dataclasses import replace
from typing import Iterable, Optional, Sequence, Union

from gradual.syntax import ast
from gradual.syntax.source import NOWHERE, Source, Span

ShapeItem = Union[int, str, None, "Dim"]


class Loc:
    """A frontend location: a path (the model file) and a one-line description of the node."""

    __slots__ = ("span",)

    def __init__(self, path: str, text: str) -> None:
        source = Source(text, path)
        self.span = Span(source, 0, len(text))


class SpanLoc(Loc):
    """A location that is a span of a frontend's own text (a model's listing, a Python line)."""

    __slots__ = ()

    def __init__(self, span: Span) -> None:  # noqa: D107 - a Loc made from a span
        self.span = span


def _span(loc: Optional[Loc]) -> Span:
    return loc.span if loc is not None else NOWHERE


# dimensions and types -------------------------------------------------------------------------
class Dim:
    """A dimension for a type: `Dim("n")`, `Dim.interval(1, 8)`, `Dim.unknown()`, `Dim("n") + 1`."""

    __slots__ = ("expr",)

    def __init__(self, name_or_expr: Union[str, ast.DimExpr]) -> None:
        self.expr = ast.DimName(name_or_expr) if isinstance(name_or_expr, str) else name_or_expr

    @staticmethod
    def interval(lo: Optional[int], hi: Optional[int]) -> "Dim":
        """A bounded unknown `lo..hi` (either bound may be None)."""
        return Dim(ast.DimInterval(lo, hi))

    @staticmethod
    def unknown() -> "Dim":
        """`?`."""
        return Dim(ast.DimUnknown())

    def _bin(self, op: str, other: Union["Dim", int], reverse: bool = False) -> "Dim":
        other_expr = _dim_expr(other)
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


def _dim_expr(d: ShapeItem) -> ast.DimExpr:
    if isinstance(d, Dim):
        return d.expr
    if d is None:
        return ast.DimUnknown()
    if isinstance(d, bool):
        raise TypeError(f"not a dimension: {d!r}")
    if isinstance(d, int):
        if d < 0:
            return ast.DimUnknown()
        return ast.DimInt(d)
    if isinstance(d, str):
        return ast.DimName(d)
    raise TypeError(f"not a dimension: {d!r}")


def Tensor(shape: Optional[Sequence[ShapeItem]], dtype: str = "float32") -> ast.TensorTypeExpr:
    """A tensor type; shape items are ints, None (`?`), names, or Dims; shape None is dynamic rank."""
    dims = None if shape is None else tuple(_dim_expr(d) for d in shape)
    return ast.TensorTypeExpr(dims, dtype or "?")


def Scalar(dtype: str) -> ast.TensorTypeExpr:
    """A rank-0 tensor type."""
    return ast.TensorTypeExpr((), dtype)


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
    """A variable: a parameter or a let binding. Each use makes a fresh syntax node."""

    __slots__ = ("name", "loc")

    def __init__(self, name: str, loc: Optional[Loc] = None) -> None:
        self.name = name
        self.loc = loc

    def node(self) -> ast.Var:
        """A new use of this variable."""
        return ast.Var(self.name, span=_span(self.loc))


class DataflowVar(Var):
    """The variable a Dataflow statement binds; its location is found when asked (most are
    never asked)."""

    __slots__ = ("flow", "index")

    def __init__(self, name: str, flow: ast.Dataflow, index: int) -> None:  # noqa: D107
        self.name = name
        self.flow = flow
        self.index = index

    @property  # type: ignore[override]
    def loc(self) -> Loc:  # noqa: D102 - Var.loc
        return SpanLoc(self.flow.line(self.index))


Expr = Union[ast.Node, Var, int, float, bool]


def _expr(e: Expr) -> ast.Node:
    if e.__class__ is Var:
        return ast.Var(e.name, span=e.loc.span if e.loc is not None else NOWHERE)
    if isinstance(e, ast.Node):
        return e
    if isinstance(e, Var):
        return e.node()
    if isinstance(e, bool):
        return ast.Literal(e, "bool")
    if isinstance(e, int):
        return ast.Literal(e, "int32")
    if isinstance(e, float):
        return ast.Literal(e, "float32")
    raise TypeError(f"not an expression: {e!r}")


def _attr_value(value: object) -> ast.AttrValue:
    if value.__class__ in _SCALAR_CLASSES:
        return value  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        items = tuple(value)
        for item in items:
            if item.__class__ not in _SCALAR_CLASSES:  # nested, or a subclass: item by item
                items = tuple(_attr_value(v) for v in value)
                break
        return ast.AttrSeq(items, isinstance(value, list))
    if value is None or isinstance(value, (bool, int, float, str)):
        return value  # type: ignore[return-value]
    raise TypeError(f"not an attribute value: {value!r}")


attr_value = _attr_value  # for a frontend that makes a Dataflow statement's Attr nodes itself

#: the classes an attribute value may have as it is (a subclass of one, such as an IntEnum, is
#: checked by isinstance and kept as it is too)
_SCALAR_CLASSES = frozenset({bool, int, float, str, type(None)})


def const(value: Union[int, float, bool], dtype: Optional[str] = None, loc: Optional[Loc] = None) -> ast.Literal:
    """A scalar literal (dtype defaults as in the text: int32, float32, bool)."""
    if dtype is None:
        dtype = "bool" if isinstance(value, bool) else "int32" if isinstance(value, int) else "float32"
    return ast.Literal(value, dtype, span=_span(loc))


def call(op: str, *args: Expr, loc: Optional[Loc] = None, **attrs: object) -> ast.Call:
    """A call of an operator by name, with attributes as keyword arguments."""
    span = _span(loc)
    attr_nodes = tuple([ast.Attr(k, _attr_value(v), span=span) for k, v in attrs.items()]) if attrs else ()
    return ast.Call(ast.OpRef(op, span=span), tuple([_expr(a) for a in args]), attr_nodes, span=span)


def call_global(name: str, *args: Expr, loc: Optional[Loc] = None) -> ast.Call:
    """A call of a definition `@name`."""
    span = _span(loc)
    return ast.Call(ast.GlobalVar(name, span=span), tuple(_expr(a) for a in args), (), span=span)


def call_value(fn: Expr, *args: Expr, loc: Optional[Loc] = None) -> ast.Call:
    """A call of a function-valued expression (a closure variable)."""
    return ast.Call(_expr(fn), tuple(_expr(a) for a in args), (), span=_span(loc))


def tuple_(*fields: Expr, loc: Optional[Loc] = None) -> ast.TupleExpr:
    """A tuple."""
    return ast.TupleExpr(tuple(_expr(f) for f in fields), span=_span(loc))


def proj(value: Expr, index: int, loc: Optional[Loc] = None) -> ast.Proj:
    """Field `index` of a tuple."""
    return ast.Proj(_expr(value), index, span=_span(loc))


def cast(value: Expr, type: ast.TypeExpr, loc: Optional[Loc] = None, what: Optional[str] = None) -> ast.Cast:
    """`value as type` (`what`: how diagnostics name the value, if not "the value cast here")."""
    return ast.Cast(_expr(value), type, span=_span(loc), what=what)


def if_(cond: Expr, then: Union[Expr, ast.Body], otherwise: Union[Expr, ast.Body], loc: Optional[Loc] = None) -> ast.If:
    """`if (cond) { then } else { otherwise }`."""
    return ast.If(_expr(cond), _body(then), _body(otherwise), span=_span(loc))


def _body(b: Union[Expr, ast.Body]) -> ast.Body:
    if isinstance(b, ast.Body):
        return b
    node = _expr(b)
    return ast.Body((), node, span=node.span)


# functions and modules ------------------------------------------------------------------------
class Block:
    """A sequence of bindings ending in a result: a function body or a branch."""

    def __init__(self) -> None:
        self.stmts: list = []
        self._fresh = itertools.count()

    def let(
        self, name: Optional[str], value: Expr, type: Optional[ast.TypeExpr] = None, loc: Optional[Loc] = None
    ) -> Var:
        """Bind a value (annotated if `type` is given); returns the variable. An unannotated
        operator call on variables joins the block's run of such bindings (an ast.Dataflow
        holding this Let), which the checker reads from arrays: a graph frontend's commonest
        statement, checked at a fraction of a general let's cost."""
        name = name or f"{next(self._fresh)}"
        node = _expr(value)
        span = loc.span if loc is not None else node.span
        let = ast.Let(ast.Var(name, span=span), type, node, graph=type is None, span=span)
        if type is None and ast.is_graph_call(node):
            ast.add_made_let(self.dataflow(ast.MADE_LETS), let)
        else:
            self.stmts.append(let)
        return Var(name, loc)

    def bind_op(self, name: str, op: str, args: list, locator: object, tag: object) -> Var:
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

    def dataflow(self, locator: object) -> ast.Dataflow:
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
        self.stmts.append(ast.Hint(var.node(), tuple(_dim_expr(d) for d in shape)))

    def body(self, result: Expr) -> ast.Body:
        """The block with its result."""
        node = _expr(result)
        return ast.Body(tuple(self.stmts), node, span=node.span)


class Function(Block):
    """A definition `def @name[dtype_params](params) -> ret { ... }` under construction."""

    def __init__(
        self, name: str, dtype_params: Iterable[str] = (), ret: Optional[ast.TypeExpr] = None, loc: Optional[Loc] = None
    ) -> None:
        super().__init__()
        self.name = name
        self.dtype_params = tuple(dtype_params)
        self.ret = ret
        self.loc = loc
        self.params: list = []
        self.claimed: set = set()
        self.bounds: dict = {}
        self.facts: list = []

    def claim_dims(self, names: Iterable[str]) -> None:
        """Mark dim names of the signature as an exporter's claim rather than a promise (SPEC 6):
        where the body constrains one (`height` must be 32), checking warns and inserts a
        runtime check instead of reporting an error."""
        self.claimed.update(names)

    def bound_dim(self, name: str, lo: int, hi: Optional[int]) -> None:
        """Declare that the signature's dim `name` lies in `lo..hi` (hi None: no upper bound), as
        an exporter's range constraint: checking relies on it, running checks it on entry."""
        self.bounds[name] = (lo, hi)

    def dim_fact(self, dim: Union["Dim", int]) -> None:
        """Declare that a dim expression over the signature's dims is >= 0, as an exporter's
        inequality guard (`s12 <= s3`: `Dim("s3") - Dim("s12")`): checking relies on it,
        running checks it on entry."""
        self.facts.append(dim)

    def param(self, name: str, type: Optional[ast.TypeExpr] = None, loc: Optional[Loc] = None) -> Var:
        """Add a parameter (no type: inferred)."""
        var = Var(name, loc)
        self.params.append(ast.Param(ast.Var(name, span=_span(loc)), type, span=_span(loc)))
        return var

    def returns(self, result: Expr) -> ast.Def:
        """Finish the definition with its result expression."""
        span = _span(self.loc)
        return ast.Def(
            self.name,
            self.dtype_params,
            tuple(self.params),
            self.ret,
            self.body(result),
            span=span,
            name_span=span,
            claimed_dims=frozenset(self.claimed),
            dim_bounds=dict(self.bounds),
            dim_facts=tuple(_dim_expr(d) for d in self.facts),
        )


def closure(
    params: Sequence[tuple],
    result: Union[Expr, ast.Body],
    ret: Optional[ast.TypeExpr] = None,
    loc: Optional[Loc] = None,
) -> ast.Fn:
    """`fn (params) -> ret { result }`; params are (name, type-or-None) pairs."""
    nodes = tuple(ast.Param(ast.Var(n, span=_span(loc)), t, span=_span(loc)) for n, t in params)
    return ast.Fn(nodes, ret, _body(result), span=_span(loc))


def module(*defs: ast.Def) -> ast.Module:
    """A module of definitions."""
    return ast.Module(tuple(defs), span=defs[0].span if defs else NOWHERE)
