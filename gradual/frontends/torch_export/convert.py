"""ATen nodes as calls of stdlib/aten.rly's operators.

Most nodes convert generically (`generic`): the node's target names an operator of aten.rly
(`aten.add.Tensor` and `aten.add.Scalar` are both `aten.add`, `OPERATORS` maps the others),
each `%` parameter of its declaration takes the node argument of that name, each attribute the
argument of that name. Arguments become expressions by kind: a tensor its variable, a SymInt
list a tuple of int64 scalars, None `()`, a Python number a literal of the computation's dtype.
Arguments a CPU-only, inference-only reading ignores (device, layout, memory_format, ...) are
dropped; any other argument the declaration does not take is reported. `SPECIAL` holds the
nodes that need more: alpha of add, masked_fill, chunk and split (their output counts), SymInt
arithmetic, and the assertions torch.export inserts (skipped: gradual inserts its own checks).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from gradual import builder as gb
from gradual.frontends.torch_export import messages
from gradual.frontends.torch_export.archive import dtype_of, scalar_type_name
from gradual.frontends.torch_export.graph import GraphNode, Opaque, Ref, ScalarType

if TYPE_CHECKING:
    from gradual.frontends.torch_export.importer import Importer

#: node arguments that do not change the values a CPU inference computes
IGNORED = frozenset(
    {
        "device",
        "layout",
        "pin_memory",
        "memory_format",
        "non_blocking",
        "copy",
        "requires_grad",
        "cudnn_enable",
        "cudnn_enabled",
        "names",
        "output_size_hint",
    }
)

#: ATen operator (no overload) -> aten.rly operator, where they differ
OPERATORS = {
    "aten.conv1d": "aten.convolution",
    "aten.conv2d": "aten.convolution",
    "aten.conv3d": "aten.convolution",
    "aten._convolution": "aten.convolution",
    "aten.conv_transpose1d": "aten.convolution",
    "aten.conv_transpose2d": "aten.convolution",
    "aten.conv_transpose3d": "aten.convolution",
    "aten.reshape": "aten.view",
    "aten._unsafe_view": "aten.view",
    "aten.contiguous": "aten.clone",
    "aten.alias": "aten.clone",
    "aten.detach": "aten.clone",
    "aten.lift_fresh_copy": "aten.clone",
    "aten.to": "aten._to_copy",
    "aten.type_as": "aten._to_copy",
    "aten._softmax": "aten.softmax",
    "aten._log_softmax": "aten.log_softmax",
    "aten.true_divide": "aten.div",
    "aten.multiply": "aten.mul",
    "aten.subtract": "aten.sub",
    "aten.greater": "aten.gt",
    "aten.less": "aten.lt",
    "aten.clip": "aten.clamp",
    "aten.max_pool1d": "aten.max_pool2d",
    "aten.max_pool3d": "aten.max_pool2d",
    "aten.avg_pool1d": "aten.avg_pool2d",
    "aten.avg_pool3d": "aten.avg_pool2d",
    "aten.new_zeros": "aten.zeros",
    "aten.new_ones": "aten.ones",
    "aten.new_empty": "aten.empty",
    "aten.new_full": "aten.full",
    "aten.empty_like": "aten.zeros_like",
    "aten.scalar_tensor": "aten.full",
    "aten.square": "aten.mul",
    "aten.unsafe_split": "aten.split",
    "aten.argwhere": "aten.nonzero",
    "aten.broadcast_to": "aten.expand",
}

#: arguments whose ATen name differs from the declaration's, per ATen operator
RENAMES = {"aten.reshape": {"size": "shape"}}
#: tensor parameters that may be absent (None): written `()`
OPTIONAL_TENSORS = frozenset(
    {
        "bias",
        "weight",
        "attn_mask",
        "running_mean",
        "running_var",
        "prepend",
        "append",
        "m",
        "b_ih",
        "b_hh",
        "per_sample_weights",
        "weights",
    }
)

#: operators whose scalar operands follow the result's dtype (torch's type promotion)
PROMOTING = {
    "aten.add",
    "aten.sub",
    "aten.mul",
    "aten.div",
    "aten.floor_divide",
    "aten.remainder",
    "aten.fmod",
    "aten.pow",
    "aten.maximum",
    "aten.minimum",
    "aten.where",
    "aten.bitwise_and",
    "aten.bitwise_or",
    "aten.bitwise_xor",
}
COMPARING = frozenset({"aten.eq", "aten.ne", "aten.lt", "aten.le", "aten.gt", "aten.ge"})
#: targets torch.export inserts to assert what it assumed; gradual checks what it needs itself
SKIPPED = frozenset(
    {
        "aten._assert_scalar",
        "aten._assert_tensor_metadata",
        "aten.sym_constrain_range_for_size",
        "aten.sym_constrain_range",
        "aten._assert_async",
        "aten._assert_tensor_metadata.default",
        "aten.empty_strided_check",
    }
)
#: Python operators on symbolic ints -> gradual operators on int64 scalars
SYM_ARITHMETIC = {
    "_operator.add": "add",
    "_operator.sub": "subtract",
    "_operator.mul": "multiply",
    "_operator.floordiv": "floor_divide",
    "_operator.mod": "aten.remainder",
    "_operator.neg": "negative",
    "_operator.truediv": "divide",
    "_operator.pow": "power",
    "torch.sym_min": "minimum",
    "torch.sym_max": "maximum",
}
#: conversions of symbolic numbers -> the dtype they give (truncating toward 0 for ints)
SYM_CONVERSIONS = {"torch.sym_float": "float64", "torch.sym_int": "int64", "math.trunc": "int64"}
SYM_COMPARISONS = {
    "_operator.eq": "equal",
    "_operator.ne": "not_equal",
    "_operator.lt": "less",
    "_operator.le": "less_equal",
    "_operator.gt": "greater",
    "_operator.ge": "greater_equal",
    "_operator.and_": "logical_and",
    "_operator.or_": "logical_or",
    "_operator.not_": "logical_not",
}
FLOAT_ORDER = ("float16", "bfloat16", "float32", "float64")


class Unsupported(Exception):
    """A node (or an argument of one) the frontend cannot import; `make(span)` is its diagnostic."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        super().__init__("unsupported")
        self.make = make


SKIP = object()  # a converter result: the node defines nothing gradual needs


def packet(op: str) -> str:
    """`aten.add.Tensor` -> `aten.add` (an operator without its overload)."""
    parts = op.split(".")
    return ".".join(parts[:2]) if len(parts) >= 3 and parts[0] == "aten" else op


def is_in_place(op: str) -> bool:
    """Whether an ATen target writes into its `self` (`aten.add_.Tensor`, `aten.relu_.default`)."""
    name = packet(op)
    return name.startswith("aten.") and name.endswith("_") and not name.endswith("__")


def writes_out(node: GraphNode) -> bool:
    """Whether a node is an `out=` variant (it writes its result into `out`)."""
    return isinstance(node.args.get("out"), Ref)


def written(node: GraphNode) -> Optional[Ref]:
    """The tensor an in-place or `out=` node writes into (None for other nodes)."""
    if is_in_place(node.op):
        value = node.args.get("self", node.args.get("input"))
        return value if isinstance(value, Ref) else None
    return node.args["out"] if writes_out(node) else None


class NodeConverter:
    """One node being converted: its arguments as expressions, located at the node."""

    def __init__(self, importer: "Importer", node: GraphNode, loc: gb.Loc) -> None:
        self.importer = importer
        self.node = node
        self.loc = loc
        self.used: set = set()

    # failures ---------------------------------------------------------------------------------------
    def unsupported(self, why: str) -> Unsupported:
        """An Unsupported naming this node's target and why."""
        target = self.node.op
        return Unsupported(lambda span: messages.torch_unsupported_node(span, target, why))

    # arguments ----------------------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        """Whether the node gives the argument."""
        return name in self.node.args

    def raw(self, name: str, default: Any = None) -> Any:
        """An argument's decoded value (marked as used)."""
        self.used.add(name)
        return self.node.args.get(name, default)

    def constant(self, kind: type, name: str, default: Any = None) -> Any:
        """An argument that must be a constant of a kind (int, float or bool): Unsupported when
        the graph gives something else (a symbolic value, or a damaged archive's string)."""
        value = self.raw(name, default)
        ok = (
            isinstance(value, bool)
            if kind is bool
            else isinstance(value, (int, float) if kind is float else int) and not isinstance(value, bool)
        )
        if not ok:
            raise self.unsupported(f"`{name}` is {_shown_value(value)} where gradual needs a constant {kind.__name__}")
        return kind(value)

    def dtype_of(self, value: Any) -> Optional[str]:
        """The gradual dtype of an operand as the graph records it."""
        if isinstance(value, Ref):
            if value.kind == "sym_int":
                return "int64"
            if value.kind == "sym_float":
                return "float64"
            return self.importer.recorded_dtype(value.name)
        return None

    def out_dtype(self) -> Optional[str]:
        """The recorded dtype of the node's first output."""
        names = self.node.output_names()
        return self.importer.recorded_dtype(names[0]) if names and names[0] else None

    def operand(self, value: Any, dtype: Optional[str] = None) -> Any:
        """An argument as an expression (see the module docstring); `dtype` types a number."""
        if isinstance(value, Ref):
            return self.importer.value(value, self)
        if value is None:
            return gb.tuple_(loc=self.loc)
        if isinstance(value, bool):
            return gb.const(value, "bool", loc=self.loc)
        if isinstance(value, (int, float)):
            return self.number(value, dtype)
        if isinstance(value, list):
            return gb.tuple_(*[self.operand(v, "int64" if isinstance(v, int) else dtype) for v in value], loc=self.loc)
        raise self.unsupported(f"an argument of kind {getattr(value, 'kind', type(value).__name__)}")

    def number(self, value: Any, dtype: Optional[str]) -> Any:
        """A Python number as a scalar literal of dtype (int64 / float32 by its kind if None)."""
        dtype = dtype or ("float32" if isinstance(value, float) else "int64")
        if dtype == "bool":
            return gb.const(bool(value), "bool", loc=self.loc)
        if dtype.startswith(("int", "uint")):
            if isinstance(value, float) and not value.is_integer():
                raise self.unsupported(f"the number {value} where the computation is {dtype}")
            return gb.const(int(value), dtype, loc=self.loc)
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            # the language has no literal for infinities and NaN: -inf is -1 / 0, NaN 0 / 0
            top = 0.0 if value != value else (1.0 if value > 0 else -1.0)
            return self.call("aten.div", gb.const(top, dtype, loc=self.loc), gb.const(0.0, dtype, loc=self.loc))
        return gb.const(float(value), dtype, loc=self.loc)

    def attribute(self, value: Any) -> Any:
        """An argument as an attribute value (dtypes by name; lists of ints as they are)."""
        if isinstance(value, ScalarType):
            dtype = dtype_of(value.number)
            if dtype is None:
                shown = scalar_type_name(value.number)
                raise Unsupported(lambda span: messages.torch_unsupported_dtype(span, self.node.name, shown))
            return dtype
        if isinstance(value, (Ref, Opaque)) or (
            isinstance(value, list) and any(isinstance(v, (Ref, Opaque)) for v in value)
        ):
            raise self.unsupported("a symbolic or unsupported value where gradual needs a constant")
        return value

    def call(self, op: str, *args: Any, **attrs: Any) -> Any:
        """An operator call located at this node."""
        return gb.call(op, *args, loc=self.loc, **attrs)

    def cast(self, expr: Any, have: Optional[str], want: Optional[str]) -> Any:
        """expr converted to dtype `want` when it is known to be another."""
        if want is None or have is None or have == want:
            return expr
        return self.call("aten._to_copy", expr, dtype=want)

    def check_unused(self) -> None:
        """Report an argument that changes the result but that gradual does not take."""
        for name, value in self.node.args.items():
            if name in self.used or name in IGNORED:
                continue
            if value is None or value is False:
                continue
            raise self.unsupported(f"the argument `{name}`")


# the generic path -------------------------------------------------------------------------------------
def generic(c: NodeConverter, op: str, renames: Optional[dict] = None) -> Any:
    """A node as a call of aten.rly's `op`, argument by argument (see the module docstring)."""
    decl = c.importer.registry.get(op)
    if decl is None:
        raise c.unsupported("no such operator in stdlib/aten.rly")
    renames = renames or {}
    target = _promoted_dtype(c, op, decl)
    args = []
    for pname in decl.param_names:
        aten_name = renames.get(pname, pname)
        value = c.raw(aten_name)
        if value is None and not c.has(aten_name) and pname not in OPTIONAL_TENSORS:
            raise c.unsupported(f"its argument `{aten_name}` is missing")
        expr = c.operand(value, target)
        if target is not None and op in PROMOTING | COMPARING and isinstance(value, Ref) and pname != "condition":
            expr = c.cast(expr, c.dtype_of(value), target)
        args.append(expr)
    attrs = {}
    for aname in decl.attrs:
        aten_name = renames.get(aname, aname)
        if c.has(aten_name) and c.raw(aten_name) is not None:
            value = c.attribute(c.raw(aten_name))
            attrs[aname] = float(value) if decl.attrs[aname].kind == "float" and isinstance(value, int) else value
    return c.call(op, *args, **attrs)


def _promoted_dtype(c: NodeConverter, op: str, decl: Any) -> Optional[str]:
    """The dtype an elementwise operator computes in (torch promotes its operands to it)."""
    if op in PROMOTING:
        return c.out_dtype()
    if op not in COMPARING:
        return None
    values = [c.node.args.get(p) for p in decl.param_names]
    dtypes = [c.dtype_of(v) for v in values if isinstance(v, Ref)]
    floats = [d for d in dtypes if d in FLOAT_ORDER]
    if floats:
        return max(floats, key=FLOAT_ORDER.index)
    if any(isinstance(v, float) for v in values):
        return "float32"
    return dtypes[0] if dtypes else None


# special nodes --------------------------------------------------------------------------------------------
SPECIAL: dict = {}


def special(*ops: str) -> Callable[[Callable[[NodeConverter], Any]], Callable[[NodeConverter], Any]]:
    """Decorator: a converter for these operators (without overload); one per operator (a
    second would silently replace the first)."""

    def register(fn: Callable[[NodeConverter], Any]) -> Callable[[NodeConverter], Any]:
        for op in ops:
            if op in SPECIAL:
                raise ValueError(f"{op} has two converters: {SPECIAL[op].__name__} and {fn.__name__}")
            SPECIAL[op] = fn
        return fn

    return register


@special("aten.add", "aten.sub")
def add(c: NodeConverter) -> Any:
    """add / sub with alpha: other scaled first."""
    alpha = c.raw("alpha", 1)
    op = packet(c.node.op)
    if alpha in (1, 1.0, None):
        return generic(c, op)
    target = c.out_dtype()
    other = c.cast(c.operand(c.raw("other"), target), c.dtype_of(c.raw("other")), target)
    scaled = c.call("aten.mul", other, c.number(alpha, target))
    self_ = c.cast(c.operand(c.raw("self"), target), c.dtype_of(c.raw("self")), target)
    return c.call(op, self_, scaled)


@special("aten.rsub")
def rsub(c: NodeConverter) -> Any:
    """rsub(self, other, alpha) = other - alpha * self."""
    target = c.out_dtype()
    self_ = c.cast(c.operand(c.raw("self"), target), c.dtype_of(c.raw("self")), target)
    other = c.cast(c.operand(c.raw("other"), target), c.dtype_of(c.raw("other")), target)
    alpha = c.raw("alpha", 1)
    if alpha not in (1, 1.0, None):
        self_ = c.call("aten.mul", self_, c.number(alpha, target))
    return c.call("aten.sub", other, self_)


@special("aten.square")
def square(c: NodeConverter) -> Any:
    """x * x."""
    x = c.operand(c.raw("self"))
    return c.call("aten.mul", x, c.operand(c.raw("self")))


@special("aten.masked_fill")
def masked_fill(c: NodeConverter) -> Any:
    """masked_fill(x, mask, v) = where(mask, v, x)."""
    target = c.dtype_of(c.raw("self"))
    value = c.raw("value")
    fill = c.cast(c.operand(value, target), c.dtype_of(value), target)
    return c.call("aten.where", c.operand(c.raw("mask")), fill, c.operand(c.raw("self")))


@special(
    "aten.conv1d",
    "aten.conv2d",
    "aten.conv3d",
    "aten._convolution",
    "aten.convolution",
    "aten.conv_transpose1d",
    "aten.conv_transpose2d",
    "aten.conv_transpose3d",
)
def convolution(c: NodeConverter) -> Any:
    """Every convolution as aten.convolution (padding "valid" is 0; "same" needs odd kernels)."""
    op = packet(c.node.op)
    transposed = c.constant(bool, "transposed", op.startswith("aten.conv_transpose"))
    padding = c.raw("padding", [0])
    if isinstance(padding, str):
        padding = _same_padding(c) if padding == "same" else [0]
    for name in ("benchmark", "deterministic", "cudnn_enabled", "allow_tf32"):
        c.raw(name)
    attrs = {
        "stride": c.attribute(c.raw("stride", [1])),
        "padding": c.attribute(padding),
        "dilation": c.attribute(c.raw("dilation", [1])),
        "transposed": transposed,
        "output_padding": c.attribute(c.raw("output_padding", [0])),
        "groups": c.constant(int, "groups", 1),
    }
    return c.call(
        "aten.convolution", c.operand(c.raw("input")), c.operand(c.raw("weight")), c.operand(c.raw("bias")), **attrs
    )


def _same_padding(c: NodeConverter) -> list:
    weight = c.node.args.get("weight")
    dims = c.importer.recorded_dims(weight.name) if isinstance(weight, Ref) else None
    dilation = list(c.node.args.get("dilation") or [1])
    if not dims or any(not isinstance(d, int) for d in dims[2:]):
        raise c.unsupported('padding="same" with a kernel of unknown size')
    pads = []
    for i, k in enumerate(dims[2:]):
        total = (dilation[i] if i < len(dilation) else dilation[0]) * (k - 1)
        if total % 2:
            raise c.unsupported('padding="same" with an even kernel (uneven padding)')
        pads.append(total // 2)
    return pads


@special(
    "aten.max_pool2d",
    "aten.max_pool1d",
    "aten.max_pool3d",
    "aten.max_pool2d_with_indices",
    "aten.max_pool1d_with_indices",
    "aten.max_pool3d_with_indices",
    "aten.avg_pool2d",
    "aten.avg_pool1d",
    "aten.avg_pool3d",
)
def pool(c: NodeConverter) -> Any:
    """Pooling; max_pool*_with_indices keeps both outputs."""
    op = packet(c.node.op)
    name = (
        "aten.max_pool2d_with_indices"
        if op.endswith("with_indices")
        else "aten.max_pool2d"
        if op.startswith("aten.max_pool")
        else "aten.avg_pool2d"
    )
    return generic(c, name)


@special("aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax")
def softmax(c: NodeConverter) -> Any:
    """softmax(x, dim, dtype): a dtype converts the input first."""
    op = OPERATORS.get(packet(c.node.op), packet(c.node.op))
    dtype = c.raw("dtype")
    x = c.operand(c.raw("self"))
    if isinstance(dtype, ScalarType):
        x = c.call("aten._to_copy", x, dtype=c.attribute(dtype))
    return c.call(op, x, dim=c.constant(int, "dim"), half_to_float=c.constant(bool, "half_to_float", False))


@special("aten.to", "aten._to_copy", "aten.type_as")
def to(c: NodeConverter) -> Any:
    """A dtype conversion (to another device is the same values here)."""
    dtype = c.out_dtype() or (c.attribute(c.raw("dtype")) if isinstance(c.raw("dtype"), ScalarType) else "")
    for name in ("other", "dtype"):
        c.raw(name)
    return c.call("aten._to_copy", c.operand(c.raw("self")), dtype=dtype or "")


def reduction_attributes(c: NodeConverter, spread: bool = False) -> dict:
    """A reduction's `dim` (as a list) and `keepdim`; with `spread` (var, std and their
    `_mean` forms), the `correction` torch gives as it or as `unbiased`."""
    dim = c.raw("dim")
    attrs: dict = {"keepdim": c.constant(bool, "keepdim", False)}
    if dim is not None:
        attrs["dim"] = [dim] if isinstance(dim, int) else c.attribute(dim)
    if spread:
        correction, unbiased = c.raw("correction"), c.raw("unbiased")
        attrs["correction"] = float(correction if correction is not None else (0 if unbiased is False else 1))
    return attrs


@special("aten.sum", "aten.mean", "aten.prod", "aten.amax", "aten.amin", "aten.var", "aten.std")
def reduction(c: NodeConverter) -> Any:
    """Reductions: dim as a list; sum and prod take torch's result dtype."""
    op = packet(c.node.op)
    attrs = reduction_attributes(c, spread=op in ("aten.var", "aten.std"))
    c.raw("dtype")
    if op in ("aten.sum", "aten.prod", "aten.mean") and c.out_dtype():
        attrs["dtype"] = c.out_dtype()
    return c.call(op, c.operand(c.raw("self")), **attrs)


@special("aten.max", "aten.min")
def extreme(c: NodeConverter) -> Any:
    """max(x) (every element), max(x, dim) (values, indices), max(x, y) (elementwise)."""
    op = packet(c.node.op)
    if c.has("other"):
        return generic(c, "aten.maximum" if op == "aten.max" else "aten.minimum")
    if c.has("dim"):
        return generic(c, op + "_dim")
    return c.call("aten.amax" if op == "aten.max" else "aten.amin", c.operand(c.raw("self")))


@special("aten.split", "aten.chunk", "aten.unsafe_split", "aten.unbind")
def split(c: NodeConverter) -> Any:
    """split(x, split_size, dim), chunk(x, chunks, dim), unbind(x, dim): as many parts as the
    node's outputs."""
    op = packet(c.node.op)
    count = len(c.node.output_names())
    dim = c.constant(int, "dim", 0)
    x = c.operand(c.raw("self"))
    if op == "aten.unbind":
        return c.call("aten.unbind", x, dim=dim, count=count)
    if op == "aten.chunk":
        return c.call("aten.split", x, chunks=c.constant(int, "chunks"), dim=dim, count=count)
    size = c.raw("split_size")
    if isinstance(size, list):
        return c.call("aten.split_with_sizes", x, c.operand(size, "int64"), dim=dim)
    if not isinstance(size, int):
        raise c.unsupported("a symbolic split_size")
    return c.call("aten.split", x, split_size=size, dim=dim, count=count)


@special("aten.split_with_sizes")
def split_with_sizes(c: NodeConverter) -> Any:
    """Parts of given sizes."""
    return generic(c, "aten.split_with_sizes")


@special("aten.squeeze")
def squeeze(c: NodeConverter) -> Any:
    """squeeze(), squeeze(dim), squeeze(dims)."""
    dim = c.raw("dim")
    attrs = {} if dim is None else {"dim": [dim] if isinstance(dim, int) else c.attribute(dim)}
    return c.call("aten.squeeze", c.operand(c.raw("self")), **attrs)


@special("aten.slice")
def slice_(c: NodeConverter) -> Any:
    """x[start:end:step] along dim (start and end may be symbolic ints or None)."""
    return c.call(
        "aten.slice",
        c.operand(c.raw("self")),
        c.operand(c.raw("start"), "int64"),
        c.operand(c.raw("end"), "int64"),
        dim=c.constant(int, "dim", 0),
        step=c.constant(int, "step", 1),
    )


@special("aten.select")
def select(c: NodeConverter) -> Any:
    """x[..., index, ...] along dim."""
    return c.call(
        "aten.select", c.operand(c.raw("self")), c.operand(c.raw("index"), "int64"), dim=c.constant(int, "dim")
    )


@special("aten.arange")
def arange(c: NodeConverter) -> Any:
    """arange(end), arange(start, end), arange(start, end, step) in torch's result dtype. An
    integer bound of a float range stays an int64 scalar: `arange(x.shape[1], dtype=float32)`
    (RoPE positions, anchor grids) has the size as its length, which a float scalar (that
    carries no shape value) would lose."""
    dtype = c.out_dtype() or "int64"
    c.raw("dtype")
    start, end, step = c.raw("start", 0), c.raw("end"), c.raw("step", 1)
    return c.call("aten.arange", *(_arange_bound(c, v, dtype) for v in (start, end, step)), dtype=dtype)


def _arange_bound(c: NodeConverter, value: Any, dtype: str) -> Any:
    """One of arange's scalars: in the result dtype, but an integer one of a float range as
    int64 (its length is the same; the values are made in the result dtype)."""
    have = "int64" if isinstance(value, int) and not isinstance(value, bool) else c.dtype_of(value)
    if have == "int64" and not dtype.startswith(("int", "uint")):
        return c.operand(value, "int64")
    return c.cast(c.operand(value, dtype), c.dtype_of(value), dtype)


@special(
    "aten.zeros",
    "aten.ones",
    "aten.empty",
    "aten.full",
    "aten.new_zeros",
    "aten.new_ones",
    "aten.new_empty",
    "aten.new_full",
    "aten.scalar_tensor",
)
def creation(c: NodeConverter) -> Any:
    """Tensors of a SymInt-list size filled with a constant, in torch's result dtype."""
    op = OPERATORS.get(packet(c.node.op), packet(c.node.op))
    c.raw("dtype")
    c.raw("self")
    dtype = c.out_dtype() or "float32"
    attrs: dict = {"dtype": dtype}
    if op == "aten.full":
        fill = c.raw("fill_value", c.raw("s"))
        if isinstance(fill, Ref) and packet(c.node.op) == "aten.scalar_tensor":  # torch.tensor(x.shape[1])
            return c.call("aten._to_copy", c.operand(fill, "int64"), dtype=dtype)
        if not isinstance(fill, (int, float)):
            raise c.unsupported("a fill value that is not a number")
        attrs["fill_value"] = float(fill)
    size = [] if packet(c.node.op) == "aten.scalar_tensor" else c.raw("size")
    fill_value = attrs.get("fill_value", 0.0)
    if fill_value != fill_value or abs(fill_value) == float("inf"):  # not an attribute the text can hold
        zeros = c.call("aten.zeros", c.operand(size, "int64"), dtype=dtype)
        return c.call("aten.add", zeros, c.number(fill_value, dtype))
    return c.call(op, c.operand(size, "int64"), **attrs)


@special("aten.zeros_like", "aten.ones_like", "aten.empty_like", "aten.full_like")
def like(c: NodeConverter) -> Any:
    """x's shape filled, in torch's result dtype."""
    op = OPERATORS.get(packet(c.node.op), packet(c.node.op))
    c.raw("dtype")
    attrs: dict = {"dtype": c.out_dtype() or ""}
    if op == "aten.full_like":
        attrs["fill_value"] = c.constant(float, "fill_value")
    return c.call(op, c.operand(c.raw("self")), **attrs)


@special("aten.dropout", "aten.feature_dropout", "aten.alpha_dropout")
def dropout(c: NodeConverter) -> Any:
    """Dropout is imported for inference only."""
    if c.raw("train") and c.raw("p") not in (0, 0.0):
        raise c.unsupported("dropout in training mode (train=True)")
    data = c.raw("input") if c.has("input") else c.raw("self")
    return c.call("aten.dropout", c.operand(data), p=c.constant(float, "p", 0.5), train=False)


@special("aten.batch_norm", "aten._native_batch_norm_legit_no_training")
def batch_norm(c: NodeConverter) -> Any:
    """Batch norm in inference mode."""
    if c.raw("training"):
        raise c.unsupported("batch norm in training mode (training=True)")
    return generic(c, packet(c.node.op))


@special("aten.sym_size", "aten.sym_numel", "aten.item", "aten.nonzero")
def sizes(c: NodeConverter) -> Any:
    """Sizes as symbolic ints, `.item()`, nonzero."""
    return generic(c, packet(c.node.op))


@special(*SYM_ARITHMETIC)
def sym_arithmetic(c: NodeConverter) -> Any:
    """Arithmetic on symbolic ints (`2 * s0`) as int64 scalars whose values are dims; on
    symbolic floats (`s0 / 2`, `sym_float(s0) * 0.5`) as float64 scalars."""
    outputs = [o for o in c.node.outputs if isinstance(o, Ref)]
    dtype = "float64" if c.node.op == "_operator.truediv" or (outputs and outputs[0].kind == "sym_float") else "int64"
    args = [
        c.cast(c.operand(c.raw(name), dtype), c.dtype_of(c.raw(name)) or dtype, dtype)
        for name in ("a", "b")
        if c.has(name)
    ]
    return c.call(SYM_ARITHMETIC[c.node.op], *args)


@special(*SYM_CONVERSIONS)
def sym_conversion(c: NodeConverter) -> Any:
    """sym_float(s0), sym_int(x), math.trunc(x): a scalar converted (ints truncate)."""
    value = c.raw("a") if c.has("a") else c.raw("x")
    dtype = SYM_CONVERSIONS[c.node.op]
    have = c.dtype_of(value) or ("float64" if isinstance(value, float) else "int64")
    return c.cast(c.operand(value, have), have, dtype) if have != dtype else c.call("copy", c.operand(value, have))


@special(*SYM_COMPARISONS)
def sym_comparison(c: NodeConverter) -> Any:
    """A comparison of symbolic ints (torch.cond's predicate `x.shape[0] > 4`) as a bool
    scalar, and `and` / `or` / `not` of them. One that only torch.export's own assertions use
    never gets here: the importer skips those (Graph.only_asserting)."""
    op = SYM_COMPARISONS[c.node.op]
    values = [c.raw(name) for name in ("a", "b") if c.has(name)]
    if op.startswith("logical_"):
        return c.call(op, *[c.operand(v, "bool") for v in values])
    dtypes = [c.dtype_of(v) or ("float64" if isinstance(v, float) else "int64") for v in values]
    dtype = "float64" if any(d.startswith("float") for d in dtypes) else "int64"
    return c.call(op, *[c.cast(c.operand(v, have), have, dtype) for v, have in zip(values, dtypes)])


@special(*SKIPPED)
def assertion(c: NodeConverter) -> Any:
    """torch.export's runtime assertions: gradual inserts the checks it needs."""
    return SKIP


def in_place(c: NodeConverter) -> Any:
    """`aten.X_(self, ...)` (and `aten.X.out(..., out)`): the functional `aten.X`, written into
    `self` as `aten.copy` writes when another tensor takes part (a result that would change self's
    shape is an error, as in torch). The importer rebinds the written name (aliases.py)."""
    op = packet(c.node.op)
    if writes_out(c.node):
        args = {name: value for name, value in c.node.args.items() if name != "out"}
        c.raw("out")
        return convert_as(c, replace(c.node, args=args))
    target = op[:-1] + c.node.op[len(op) :]
    value = convert_as(c, replace(c.node, target=target))
    others = [v for name, v in c.node.args.items() if name != "self" and isinstance(v, Ref) and v.kind == "tensor"]
    if others and op != "aten.copy_":
        value = c.call("aten.copy", c.operand(c.raw("self")), value)
    return value


def convert_as(c: NodeConverter, node: GraphNode) -> Any:
    """Node `c` converted as another node (its functional form), its arguments marked used."""
    inner = NodeConverter(c.importer, node, c.loc)
    value = convert(inner)
    c.used |= inner.used | (set(c.node.args) - set(node.args))
    return value


# resampling --------------------------------------------------------------------------------------
UPSAMPLE = {
    "nearest": "nearest",
    "nearest_exact": "nearest-exact",
    "linear": "linear",
    "bilinear": "linear",
    "trilinear": "linear",
    "bicubic": "cubic",
}
UPSAMPLE_OPS = [
    f"aten.{prefix}upsample_{kind}{k}d{aa}"
    for prefix, kind, k, aa in [("", "nearest", k, "") for k in (1, 2, 3)]
    + [("_", "nearest_exact", k, "") for k in (1, 2, 3)]
    + [
        ("", "linear", 1, ""),
        ("", "bilinear", 2, ""),
        ("", "trilinear", 3, ""),
        ("", "bicubic", 2, ""),
        ("_", "bilinear", 2, "_aa"),
        ("_", "bicubic", 2, "_aa"),
    ]
]


def _upsample_mode(op: str) -> tuple:
    """(mode, antialias) of `aten.upsample_bilinear2d`, `aten._upsample_nearest_exact1d`, ..."""
    name = op[len("aten.") :].lstrip("_")[len("upsample_") :]
    antialias = name.endswith("_aa")
    kind = (name[: -len("_aa")] if antialias else name)[:-2]  # without "2d"
    return UPSAMPLE.get(kind), antialias


@special(*UPSAMPLE_OPS)
def upsample(c: NodeConverter) -> Any:
    """torch's upsample_* (vec and default overloads) as aten.upsample: an output size, or
    scale factors (`scale_factors`, or `scales_h`, `scales_w`, ...)."""
    mode, antialias = _upsample_mode(packet(c.node.op))
    scales = c.raw("scale_factors")
    if scales is None:
        given = [c.raw(name) for name in ("scales", "scales_d", "scales_h", "scales_w") if c.has(name)]
        scales = given if given and all(s is not None for s in given) else None
    size = c.raw("output_size")
    data = c.operand(c.raw("input") if c.has("input") else c.raw("self"))
    attrs: dict = {"mode": mode, "align_corners": c.constant(bool, "align_corners", False), "antialias": antialias}
    if scales is not None:
        attrs["scales"] = [float(s) for s in c.attribute(scales)]
    return c.call("aten.upsample", data, c.operand(size, "int64"), **attrs)


def convert(c: NodeConverter) -> Any:
    """A node as an expression (or SKIP); raises Unsupported, also for an argument that
    changes the result but that the conversion did not read."""
    op = packet(c.node.op)
    if written(c.node) is not None:
        return in_place(c)
    if c.node.op in SPECIAL or op in SPECIAL:
        result = (SPECIAL.get(c.node.op) or SPECIAL[op])(c)
    elif not c.node.op.startswith("aten."):
        raise c.unsupported("not an ATen operator")
    else:
        result = generic(c, OPERATORS.get(op, op), RENAMES.get(op))
    if result is not SKIP:
        c.check_unused()
    return result


def _shown_value(value: Any) -> str:
    """An argument as a diagnostic names it: a graph value by its name and kind (a SymInt such
    as `groups=b` of a hypernetwork's grouped conv is `the symbolic int sym_size_int_6, known
    only when the model runs`; it showed Python's `Ref(name=..., kind=...)`), else its repr."""
    if isinstance(value, Ref):
        if value.kind.startswith("sym_"):
            return f"the symbolic {value.kind[4:]} `{value.name}`, known only when the model runs,"
        return f"the {value.kind} `{value.name}`"
    return repr(value)
