"""ATen nodes that need more than the generic conversion (continuing convert.py's `SPECIAL`):
clamping with scalar or tensor bounds, reductions with their own arguments, sorting,
advanced indexing and scatter, norms that are other norms, and operators that are
compositions of declared ones (addcmul, lerp, baddbmm, outer, glu, movedim, narrow, rot90, ...).
Importing this module registers them.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Optional

from gradual import builder as gb
from gradual.frontends.torch_export.convert import (
    OPERATORS,
    PROMOTING,
    RENAMES,
    NodeConverter,
    convert_as,
    creation,
    generic,
    packet,
    reduction_attributes,
    special,
)
from gradual.frontends.torch_export.graph import Opaque, Ref
from gradual.syntax import ast

OPERATORS.update(
    {
        "aten.__and__": "aten.bitwise_and",
        "aten.__or__": "aten.bitwise_or",
        "aten.__xor__": "aten.bitwise_xor",
        "aten.__invert__": "aten.bitwise_not",
        "aten.__lshift__": "aten.bitwise_left_shift",
        "aten.__rshift__": "aten.bitwise_right_shift",
        "aten.sgn": "aten.sign",
        "aten.fix": "aten.trunc",
        "aten.arctan2": "aten.atan2",
        "aten.absolute": "aten.abs",
        "aten.negative": "aten.neg",
        "aten.swapaxes": "aten.transpose",
        "aten.swapdims": "aten.transpose",
        "aten._adaptive_avg_pool2d": "aten.adaptive_avg_pool2d",
        "aten._adaptive_avg_pool3d": "aten.adaptive_avg_pool2d",
        "aten.adaptive_avg_pool1d": "aten.adaptive_avg_pool2d",
        "aten.adaptive_avg_pool3d": "aten.adaptive_avg_pool2d",
        "aten.adaptive_max_pool1d": "aten.adaptive_max_pool2d",
        "aten.adaptive_max_pool3d": "aten.adaptive_max_pool2d",
        "aten.grid_sampler_2d": "aten.grid_sampler",
        "aten.grid_sampler_3d": "aten.grid_sampler",
        "aten.nll_loss_nd": "aten.nll_loss",
        "aten.nll_loss2d": "aten.nll_loss",
        "aten.nll_loss2d_forward": "aten.nll_loss_forward",
        "aten.special_erfinv": "aten.erfinv",
        "aten.special_expm1": "aten.expm1",
        "aten.special_logit": "aten.logit",
        "aten.arcsin": "aten.asin",
        "aten.arccos": "aten.acos",
        "aten.arctan": "aten.atan",
        "aten._pdist_forward": "aten.pdist",
        "aten.empty_permuted": "aten.empty",
    }
)
RENAMES.update({"aten.swapaxes": {"dim0": "axis0", "dim1": "axis1"}})
PROMOTING.update(
    {
        "aten.atan2",
        "aten.hypot",
        "aten.heaviside",
        "aten.copysign",
        "aten.logaddexp",
        "aten.xlogy",
        "aten.bitwise_left_shift",
        "aten.bitwise_right_shift",
    }
)
#: ATen's floating operators, declared `[T: float]`: torch computes an integer or bool input in
#: the default float dtype (the node's), so the input is cast to it first
PROMOTING.update(
    "aten." + name
    for name in (
        "exp log sqrt rsqrt tanh sigmoid erf sin cos reciprocal tan asin acos atan sinh cosh asinh acosh"
        " atanh log2 log10 log1p expm1 exp2 erfinv logit"
    ).split()
)


def _bound(c: NodeConverter, name: str, dtype: Optional[str]) -> Any:
    """A clamp bound: `()` when absent, a literal or a tensor of x's dtype."""
    value = c.raw(name)
    return c.cast(c.operand(value, dtype), c.dtype_of(value), dtype)


@special("aten.clamp", "aten.clip", "aten.clamp_min", "aten.clamp_max")
def clamp(c: NodeConverter) -> Any:
    """clamp(x, min, max), bounds numbers, symbolic ints or tensors (clamp_min/max: one bound)."""
    op = packet(c.node.op)
    dtype = c.out_dtype()
    x = c.cast(c.operand(c.raw("self")), c.dtype_of(c.raw("self")), dtype)
    none = gb.tuple_(loc=c.loc)
    if op == "aten.clamp_min":
        return c.call("aten.clamp", x, _bound(c, "min", dtype), none)
    if op == "aten.clamp_max":
        return c.call("aten.clamp", x, none, _bound(c, "max", dtype))
    return c.call("aten.clamp", x, _bound(c, "min", dtype), _bound(c, "max", dtype))


@special("aten.any", "aten.all", "aten.count_nonzero", "aten.logsumexp", "aten.linalg_vector_norm", "aten.norm")
def more_reductions(c: NodeConverter) -> Any:
    """Reductions with a dim (int or list) and, for norms, an order."""
    op = packet(c.node.op)
    dim = c.raw("dim")
    attrs: dict = {"keepdim": bool(c.raw("keepdim", False))}
    if dim is not None:
        attrs["dim"] = [dim] if isinstance(dim, int) else c.attribute(dim)
    if op in ("aten.linalg_vector_norm", "aten.norm"):
        order = c.raw("ord", c.raw("p", 2.0))
        attrs["ord"] = 2.0 if order is None else float(order)
        c.raw("dtype")
        attrs["dtype"] = c.out_dtype() or ""
        op = "aten.linalg_vector_norm"
    return c.call(op, c.operand(c.raw("self")), **attrs)


@special("aten.median", "aten.nanmedian")
def median(c: NodeConverter) -> Any:
    """median(x) of every element, or (values, indices) along dim."""
    if c.has("dim"):
        return generic(c, "aten.median_dim")
    return c.call("aten.median", c.operand(c.raw("self")))


@special("aten.sort", "aten.argsort", "aten.msort")
def sort(c: NodeConverter) -> Any:
    """sort / argsort (stable or not); msort is the sorted values along dim 0."""
    op = packet(c.node.op)
    x = c.operand(c.raw("self"))
    if op == "aten.msort":
        return gb.proj(c.call("aten.sort", x, dim=0), 0, loc=c.loc)
    attrs = {
        "dim": int(c.raw("dim", -1)),
        "descending": bool(c.raw("descending", False)),
        "stable": bool(c.raw("stable", False)),
    }
    return c.call(op, x, **attrs)


@special("aten.repeat_interleave")
def repeat_interleave(c: NodeConverter) -> Any:
    """repeat_interleave with an int count, or a tensor of counts (output_size only restates the
    result)."""
    c.raw("output_size")
    if isinstance(c.raw("repeats"), Ref) and c.has("self"):
        dim = c.raw("dim")
        attrs = {} if dim is None else {"dim": int(dim)}
        return c.call("aten.repeat_interleave_by", c.operand(c.raw("self")), c.operand(c.raw("repeats")), **attrs)
    if not isinstance(c.raw("repeats"), int):
        raise c.unsupported("repeats given as a tensor without the tensor to repeat")
    dim = c.raw("dim")
    attrs = {"repeats": c.raw("repeats")}
    if dim is not None:
        attrs["dim"] = int(dim)
    return c.call("aten.repeat_interleave", c.operand(c.raw("self")), **attrs)


@special("aten.pad", "aten.constant_pad_nd")
def pad(c: NodeConverter) -> Any:
    """pad(x, pad, mode, value): constant padding is constant_pad_nd; pads computed from sizes
    (SymInts) are pad_sized's operand."""
    mode = c.raw("mode", "constant")
    value = c.raw("value")
    x = c.operand(c.raw("self"))
    raw = c.raw("pad")
    if _symbolic_list(raw):
        return c.call("aten.pad_sized", x, c.operand(raw, "int64"), mode=mode, value=float(value or 0.0))
    pads = c.attribute(raw)
    if mode == "constant":
        return c.call("aten.constant_pad_nd", x, pad=pads, value=float(value or 0.0))
    return c.call("aten.pad", x, pad=pads, mode=mode)


@special("aten.repeat")
def repeat(c: NodeConverter) -> Any:
    """repeat(x, repeats): repeats computed from sizes (SymInts) are repeat_sized's operand."""
    raw = c.raw("repeats")
    x = c.operand(c.raw("self"))
    if _symbolic_list(raw):
        return c.call("aten.repeat_sized", x, c.operand(raw, "int64"))
    return c.call("aten.repeat", x, repeats=c.attribute(raw))


@special("aten.tile")
def tile(c: NodeConverter) -> Any:
    """torch.tile(x, dims): repeat, dims with fewer entries than x's rank taking leading 1s
    first (x.tile((2,)) of a 3-d x repeats its last dim)."""
    dims = c.raw("dims")
    if not isinstance(dims, list):
        raise c.unsupported("tile's dims that are not a list")
    padded = [1] * max(_rank(c) - len(dims), 0) + dims
    return convert_as(c, replace(c.node, target="aten.repeat.default", args={"self": c.raw("self"), "repeats": padded}))


def _symbolic_list(raw: Any) -> bool:
    """A SymInt list with an entry only the run knows (a size, or arithmetic on sizes)."""
    return isinstance(raw, list) and any(isinstance(entry, Ref) for entry in raw)


@special("aten.linspace")
def linspace(c: NodeConverter) -> Any:
    """linspace(start, end, steps) in torch's result dtype."""
    for name in ("dtype", "layout", "device", "pin_memory"):
        c.raw(name)
    start, end, steps = c.raw("start"), c.raw("end"), c.raw("steps")
    bounds = [c.cast(c.operand(v, "float64"), c.dtype_of(v), "float64") for v in (start, end)]
    return c.call("aten.linspace", *bounds, c.operand(steps, "int64"), dtype=c.out_dtype() or "float32")


@special("aten.eye")
def eye(c: NodeConverter) -> Any:
    """eye(n) or eye(n, m) in torch's result dtype."""
    c.raw("dtype")
    return c.call(
        "aten.eye", c.operand(c.raw("n"), "int64"), c.operand(c.raw("m"), "int64"), dtype=c.out_dtype() or "float32"
    )


# indexing ----------------------------------------------------------------------------------------
def _index_positions(c: NodeConverter, indices: list) -> tuple:
    """(the index tensors given, the first dim each indexes): None entries skip a dim, a bool
    mask takes as many dims as it has."""
    given, dims = [], []
    axis = 0
    for value in indices:
        if value is None:
            axis += 1
            continue
        given.append(value)
        dims.append(axis)
        if c.dtype_of(value) in ("bool", "uint8"):
            recorded = c.importer.recorded_dims(value.name)
            if recorded is None:
                raise c.unsupported("a boolean index of unknown rank")
            axis += len(recorded)
        else:
            axis += 1
    return given, dims


@special("aten.index")
def index(c: NodeConverter) -> Any:
    """x[indices]: NumPy's advanced indexing (aten.rly's aten.index)."""
    given, dims = _index_positions(c, list(c.raw("indices") or []))
    tensors = gb.tuple_(*[c.operand(v) for v in given], loc=c.loc)
    return c.call("aten.index", c.operand(c.raw("self")), tensors, dims=dims)


@special("aten.index_put", "aten._unsafe_index_put")
def index_put(c: NodeConverter) -> Any:
    """x[indices] = values (added with accumulate)."""
    given, dims = _index_positions(c, list(c.raw("indices") or []))
    tensors = gb.tuple_(*[c.operand(v) for v in given], loc=c.loc)
    dtype = c.dtype_of(c.raw("self"))
    values = c.cast(c.operand(c.raw("values"), dtype), c.dtype_of(c.raw("values")), dtype)
    return c.call(
        "aten.index_put",
        c.operand(c.raw("self")),
        tensors,
        values,
        dims=dims,
        accumulate=bool(c.raw("accumulate", False)),
    )


SCATTER_REDUCTIONS = {
    "add": "sum",
    "multiply": "prod",
    "sum": "sum",
    "prod": "prod",
    "mean": "mean",
    "amax": "amax",
    "amin": "amin",
}


@special("aten.scatter", "aten.scatter_add", "aten.scatter_reduce")
def scatter(c: NodeConverter) -> Any:
    """scatter (src tensor or value), scatter_add, scatter_reduce as aten.scatter."""
    op = packet(c.node.op)
    dtype = c.dtype_of(c.raw("self"))
    source = c.raw("src") if c.has("src") else c.raw("value")
    src = c.cast(c.operand(source, dtype), c.dtype_of(source), dtype)
    reduce = "sum" if op == "aten.scatter_add" else c.raw("reduce") or "none"
    if reduce != "none" and reduce not in SCATTER_REDUCTIONS:
        raise c.unsupported(f"the reduction {reduce!r}")
    attrs = {
        "dim": int(c.raw("dim")),
        "reduce": SCATTER_REDUCTIONS.get(reduce, reduce),
        "include_self": bool(c.raw("include_self", True)),
    }
    return c.call("aten.scatter", c.operand(c.raw("self")), c.operand(c.raw("index")), src, **attrs)


@special("aten.searchsorted")
def searchsorted(c: NodeConverter) -> Any:
    """searchsorted(sorted, x, right / side) without a sorter."""
    if c.raw("sorter") is not None:
        raise c.unsupported("a sorter")
    right = bool(c.raw("right", False)) or c.raw("side") == "right"
    return c.call(
        "aten.searchsorted",
        c.operand(c.raw("sorted_sequence")),
        c.operand(c.raw("self")),
        out_int32=bool(c.raw("out_int32", False)),
        right=right,
    )


# norms ----------------------------------------------------------------------------------------------
@special("aten.native_group_norm")
def native_group_norm(c: NodeConverter) -> Any:
    """native_group_norm: N, C and HxW restate the input's sizes."""
    for name in ("N", "C", "HxW"):
        c.raw(name)
    return generic(c, "aten.native_group_norm")


@special("aten.instance_norm")
def instance_norm(c: NodeConverter) -> Any:
    """Instance norm with the input's statistics; with running statistics it is batch norm."""
    for name in ("momentum", "cudnn_enabled"):
        c.raw(name)
    x = c.raw("input")
    if not c.raw("use_input_stats", True):
        return c.call(
            "aten.batch_norm",
            c.operand(x),
            c.operand(c.raw("weight")),
            c.operand(c.raw("bias")),
            c.operand(c.raw("running_mean")),
            c.operand(c.raw("running_var")),
            eps=float(c.raw("eps", 1e-5)),
        )
    c.raw("running_mean")
    c.raw("running_var")
    return c.call(
        "aten.instance_norm",
        c.operand(x),
        c.operand(c.raw("weight")),
        c.operand(c.raw("bias")),
        eps=float(c.raw("eps", 1e-5)),
    )


@special("aten.as_strided")
def as_strided(c: NodeConverter) -> Any:
    """as_strided of a tensor whose recorded strides are contiguous (then its storage is its
    elements in order, which the kernel reads)."""
    source = c.raw("self")
    if not isinstance(source, Ref) or not _contiguous(c, source.name):
        raise c.unsupported("as_strided of a tensor that is not contiguous")
    offset = c.raw("storage_offset") or 0
    if not isinstance(offset, int):
        raise c.unsupported("a symbolic storage_offset")
    return c.call(
        "aten.as_strided",
        c.operand(source),
        c.operand(c.raw("size"), "int64"),
        stride=c.attribute(c.raw("stride")),
        storage_offset=offset,
    )


@special("aten.as_strided_scatter")
def as_strided_scatter(c: NodeConverter) -> Any:
    """as_strided_scatter into a tensor whose recorded strides are contiguous (as as_strided)."""
    source = c.raw("self")
    if not isinstance(source, Ref) or not _contiguous(c, source.name):
        raise c.unsupported("as_strided_scatter into a tensor that is not contiguous")
    return strided_write(c, c.operand(source), c.operand(c.raw("src")))


def strided_write(c: NodeConverter, source: Any, value: Any) -> Any:
    """source with value written where the node's as_strided view (size, stride,
    storage_offset) reads."""
    offset = c.raw("storage_offset") or 0
    if not isinstance(offset, int):
        raise c.unsupported("a symbolic storage_offset")
    return c.call(
        "aten.as_strided_scatter",
        source,
        value,
        c.operand(c.raw("size"), "int64"),
        stride=c.attribute(c.raw("stride")),
        storage_offset=offset,
    )


#: values the symbols take when strides are compared (two assignments: agreeing polynomials)
PROBES = (lambda k: 1009 + 17 * k, lambda k: 2003 + 31 * k)


def _contiguous(c: NodeConverter, name: str) -> bool:
    """Whether a tensor's recorded strides are those of its sizes, in order (dims of 1 aside)."""
    meta = c.importer.program.tensor_meta(name) or {}
    sizes = [c.importer.dim(s) for s in meta.get("sizes") or []]
    strides = [c.importer.dim(s) for s in meta.get("strides") or []]
    if len(sizes) != len(strides):
        return False
    for probe in PROBES:
        names: dict = {}
        values = [v for v in (_evaluate(d, names, probe) for d in sizes) if v is not None]
        steps = [v for v in (_evaluate(d, names, probe) for d in strides) if v is not None]
        if len(values) != len(sizes) or len(steps) != len(strides):
            return False
        expected = 1
        for size, step in reversed(list(zip(values, steps))):
            if size != 1 and step != expected:
                return False
            expected *= size
    return True


def _evaluate(dim: Any, names: dict, probe: Any) -> Optional[int]:
    """A recorded size's value with each symbol at its probe value (None: not a polynomial)."""
    if isinstance(dim, int):
        return dim
    expr = getattr(dim, "expr", None)
    stack = [expr]
    order = []
    while stack:
        node = stack.pop()
        order.append(node)
        if isinstance(node, ast.DimBinary):
            stack.extend((node.left, node.right))
    value: dict = {}
    for node in reversed(order):
        if isinstance(node, ast.DimInt):
            value[id(node)] = node.value
        elif isinstance(node, ast.DimName):
            value[id(node)] = names.setdefault(node.name, probe(len(names)))
        elif isinstance(node, ast.DimBinary) and node.op in OPS:
            value[id(node)] = OPS[node.op](value[id(node.left)], value[id(node.right)])
        else:
            return None
    return value[id(expr)]


OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "//": lambda a, b: a // b if b else 0}


@special("aten._native_batch_norm_legit")
def batch_norm_legit(c: NodeConverter) -> Any:
    """Batch norm with the input's own statistics (no_stats, or training=True: the running
    statistics it would update are not read)."""
    for name in ("running_mean", "running_var", "momentum"):
        c.raw(name)
    if not c.raw("training", True):
        return c.call(
            "aten._native_batch_norm_legit_no_training",
            c.operand(c.raw("input")),
            c.operand(c.raw("weight")),
            c.operand(c.raw("bias")),
            c.operand(c.raw("running_mean")),
            c.operand(c.raw("running_var")),
            eps=float(c.raw("eps", 1e-5)),
        )
    return c.call(
        "aten.batch_norm_batch_stats",
        c.operand(c.raw("input")),
        c.operand(c.raw("weight")),
        c.operand(c.raw("bias")),
        eps=float(c.raw("eps", 1e-5)),
    )


@special("aten.cdist", "aten._cdist_forward")
def cdist(c: NodeConverter) -> Any:
    """cdist (compute_mode only chooses torch's algorithm)."""
    c.raw("compute_mode")
    return c.call("aten.cdist", c.operand(c.raw("x1")), c.operand(c.raw("x2")), p=float(c.raw("p", 2.0)))


# compositions -----------------------------------------------------------------------------------------
def _same(c: NodeConverter, name: str) -> Any:
    """A tensor argument in the node's result dtype."""
    value = c.raw(name)
    dtype = c.out_dtype()
    return c.cast(c.operand(value, dtype), c.dtype_of(value), dtype)


@special("aten.addcmul", "aten.addcdiv")
def addcmul(c: NodeConverter) -> Any:
    """self + value * t1 * t2 (addcdiv: t1 / t2)."""
    op = "aten.mul" if packet(c.node.op) == "aten.addcmul" else "aten.div"
    product = c.call(op, _same(c, "tensor1"), _same(c, "tensor2"))
    value = c.raw("value", 1)
    if value not in (1, 1.0):
        product = c.call("aten.mul", product, c.number(value, c.out_dtype()))
    return c.call("aten.add", _same(c, "self"), product)


@special("aten.lerp")
def lerp(c: NodeConverter) -> Any:
    """self + weight * (end - self)."""
    start = _same(c, "self")
    step = c.call("aten.sub", _same(c, "end"), _same(c, "self"))
    weight = c.raw("weight")
    scaled = c.call("aten.mul", c.cast(c.operand(weight, c.out_dtype()), c.dtype_of(weight), c.out_dtype()), step)
    return c.call("aten.add", start, scaled)


@special("aten.baddbmm")
def baddbmm(c: NodeConverter) -> Any:
    """beta * self + alpha * bmm(batch1, batch2)."""
    dtype = c.out_dtype()
    product = c.call("aten.bmm", c.operand(c.raw("batch1")), c.operand(c.raw("batch2")))
    alpha, beta = c.raw("alpha", 1), c.raw("beta", 1)
    if alpha not in (1, 1.0):
        product = c.call("aten.mul", product, c.number(alpha, dtype))
    if beta in (0, 0.0):
        return c.call("aten.add", c.call("aten.mul", _same(c, "self"), c.number(0, dtype)), product)
    base = _same(c, "self")
    if beta not in (1, 1.0):
        base = c.call("aten.mul", base, c.number(beta, dtype))
    return c.call("aten.add", base, product)


@special("aten.outer", "aten.ger")
def outer(c: NodeConverter) -> Any:
    """self[:, None] * vec2[None, :]."""
    other = "vec2" if c.has("vec2") else "other"
    return c.call(
        "aten.mul", c.call("aten.unsqueeze", _same(c, "self"), dim=1), c.call("aten.unsqueeze", _same(c, other), dim=0)
    )


@special("aten.glu")
def glu(c: NodeConverter) -> Any:
    """a * sigmoid(b) of the two halves of dim."""
    dim = int(c.raw("dim", -1))
    halves = c.call("aten.split", c.operand(c.raw("self")), chunks=2, dim=dim, count=2)
    return c.call("aten.mul", gb.proj(halves, 0, loc=c.loc), c.call("aten.sigmoid", gb.proj(halves, 1, loc=c.loc)))


def _rank(c: NodeConverter, name: str = "self") -> int:
    value = c.node.args.get(name)
    dims = c.importer.recorded_dims(value.name) if isinstance(value, Ref) else None
    if dims is None:
        raise c.unsupported("a tensor of unknown rank")
    return len(dims)


@special("aten.movedim", "aten.moveaxis")
def movedim(c: NodeConverter) -> Any:
    """movedim as the permutation it is."""
    rank = _rank(c)
    source, destination = c.raw("source"), c.raw("destination")
    source = [source] if isinstance(source, int) else list(c.attribute(source))
    destination = [destination] if isinstance(destination, int) else list(c.attribute(destination))
    order: list = [None] * rank
    for s, d in zip(source, destination):
        order[d % rank] = s % rank
    rest = iter(a for a in range(rank) if a not in {s % rank for s in source})
    dims = [a if a is not None else next(rest) for a in order]
    return c.call("aten.permute", c.operand(c.raw("self")), dims=dims)


@special("aten.mT", "aten.mH", "aten.adjoint")
def matrix_transpose(c: NodeConverter) -> Any:
    """The last two dims swapped."""
    return c.call("aten.transpose", c.operand(c.raw("self")), dim0=-2, dim1=-1)


@special("aten.narrow")
def narrow(c: NodeConverter) -> Any:
    """x.narrow(dim, start, length) = x[start:start + length] along dim."""
    start, length = c.raw("start"), c.raw("length")
    first = c.operand(start, "int64")
    if isinstance(start, int) and isinstance(length, int):
        end = c.number(start + length, "int64")
    else:
        end = c.call("add", c.operand(start, "int64"), c.operand(length, "int64"))
    return c.call("aten.slice", c.operand(c.raw("self")), first, end, dim=int(c.raw("dim")), step=1)


@special("aten.rot90")
def rot90(c: NodeConverter) -> Any:
    """k quarter turns in the plane of dims: flips and a transpose."""
    k = int(c.raw("k", 1)) % 4
    a, b = list(c.attribute(c.raw("dims", [0, 1])))
    x = c.operand(c.raw("self"))
    if k == 0:
        return c.call("aten.clone", x)
    if k == 2:
        return c.call("aten.flip", x, dims=[a, b])
    if k == 1:
        return c.call("aten.transpose", c.call("aten.flip", x, dims=[b]), dim0=a, dim1=b)
    return c.call("aten.flip", c.call("aten.transpose", x, dim0=a, dim1=b), dims=[b])


@special("aten.prelu", "aten._prelu_kernel")
def prelu(c: NodeConverter) -> Any:
    """where(x > 0, x, weight * x), one weight per channel (dim 1) or one for all."""
    x = c.raw("self")
    weight = c.raw("weight")
    sizes = c.importer.recorded_dims(weight.name) if isinstance(weight, Ref) else None
    rank = _rank(c)
    slope = c.operand(weight)
    if sizes and sizes != [1] and rank >= 2:
        if not all(isinstance(s, int) for s in sizes):
            raise c.unsupported("a per-channel weight of unknown size")
        shape = [c.number(s, "int64") for s in sizes] + [c.number(1, "int64")] * (rank - 2)
        slope = c.call("aten.view", slope, gb.tuple_(*shape, loc=c.loc))
    dtype = c.dtype_of(x)
    positive = c.call("aten.gt", c.operand(x), c.number(0, dtype))
    return c.call("aten.where", positive, c.operand(x), c.call("aten.mul", slope, c.operand(x)))


@special("aten.log_sigmoid_forward")
def log_sigmoid_forward(c: NodeConverter) -> Any:
    """(log_sigmoid(x), the empty buffer torch keeps for the gradient)."""
    x = c.operand(c.raw("self"))
    empty = c.call(
        "aten.zeros", gb.tuple_(c.number(0, "int64"), loc=c.loc), dtype=c.dtype_of(c.raw("self")) or "float32"
    )
    return gb.tuple_(c.call("aten.log_sigmoid", x), empty, loc=c.loc)


# losses of elementwise terms -----------------------------------------------------------------------
def _reduced(c: NodeConverter, loss: Any) -> Any:
    """A loss's elementwise terms reduced as `reduction` says (0 none, 1 mean, 2 sum)."""
    reduction = c.raw("reduction", 1)
    if reduction == 0:
        return loss
    if reduction not in (1, 2):
        raise c.unsupported(f"the reduction {reduction}")
    return c.call("aten.mean" if reduction == 1 else "aten.sum", loss)


@special("aten.mse_loss", "aten.l1_loss", "aten.smooth_l1_loss", "aten.huber_loss")
def regression_loss(c: NodeConverter) -> Any:
    """(x - y)^2, |x - y|, smooth L1 (beta) and Huber (delta) terms, reduced."""
    op = packet(c.node.op)
    dtype = c.out_dtype()
    difference = c.call("aten.sub", _same(c, "self"), _same(c, "target"))
    if op == "aten.mse_loss":
        return _reduced(c, c.call("aten.mul", difference, c.call("aten.sub", _same(c, "self"), _same(c, "target"))))
    distance = c.call("aten.abs", difference)
    if op == "aten.l1_loss":
        return _reduced(c, distance)
    width = float(c.raw("beta", 1.0) if op == "aten.smooth_l1_loss" else c.raw("delta", 1.0))
    if width == 0:
        return _reduced(c, distance)
    half = c.number(0.5, dtype)
    squared = c.call("aten.mul", c.call("aten.mul", half, distance), c.call("aten.abs", difference))
    if op == "aten.smooth_l1_loss":
        inner = c.call("aten.div", squared, c.number(width, dtype))
        outer = c.call("aten.sub", c.call("aten.abs", difference), c.number(0.5 * width, dtype))
    else:
        inner = squared
        outer = c.call(
            "aten.mul",
            c.number(width, dtype),
            c.call("aten.sub", c.call("aten.abs", difference), c.number(0.5 * width, dtype)),
        )
    near = c.call("aten.lt", c.call("aten.abs", difference), c.number(width, dtype))
    return _reduced(c, c.call("aten.where", near, inner, outer))


@special("aten.binary_cross_entropy_with_logits")
def bce_with_logits(c: NodeConverter) -> Any:
    """(1 - t) x + (1 + (pos_weight - 1) t) (log1p(exp(-|x|)) + max(-x, 0)), weighted, reduced."""
    dtype = c.out_dtype()
    x, t = _same(c, "self"), _same(c, "target")
    softplus = c.call(
        "aten.add",
        c.call("aten.log1p", c.call("aten.exp", c.call("aten.neg", c.call("aten.abs", x)))),
        c.call("aten.relu", c.call("aten.neg", _same(c, "self"))),
    )
    one = c.number(1.0, dtype)
    factor = one
    if c.raw("pos_weight") is not None:
        factor = c.call(
            "aten.add",
            one,
            c.call("aten.mul", c.call("aten.sub", _same(c, "pos_weight"), c.number(1.0, dtype)), _same(c, "target")),
        )
    loss = c.call(
        "aten.add",
        c.call("aten.mul", c.call("aten.sub", c.number(1.0, dtype), t), _same(c, "self")),
        c.call("aten.mul", factor, softplus),
    )
    if c.raw("weight") is not None:
        loss = c.call("aten.mul", loss, _same(c, "weight"))
    return _reduced(c, loss)


@special("aten.binary_cross_entropy")
def bce(c: NodeConverter) -> Any:
    """-(t log(p) + (1 - t) log(1 - p)), each log at least -100 as torch clamps it, weighted."""
    dtype = c.out_dtype()
    floor = c.number(-100.0, dtype)
    log_p = c.call("aten.clamp", c.call("aten.log", _same(c, "self")), floor, gb.tuple_(loc=c.loc))
    log_q = c.call(
        "aten.clamp", c.call("aten.log1p", c.call("aten.neg", _same(c, "self"))), floor, gb.tuple_(loc=c.loc)
    )
    t = _same(c, "target")
    terms = c.call(
        "aten.add",
        c.call("aten.mul", t, log_p),
        c.call("aten.mul", c.call("aten.sub", c.number(1.0, dtype), _same(c, "target")), log_q),
    )
    loss = c.call("aten.neg", terms)
    if c.raw("weight") is not None:
        loss = c.call("aten.mul", loss, _same(c, "weight"))
    return _reduced(c, loss)


@special("aten.kl_div")
def kl_div(c: NodeConverter) -> Any:
    """t (log t - x) (xlogy(t, t) - t x), or exp(t) (t - x) with log_target, reduced."""
    x, t = _same(c, "self"), _same(c, "target")
    if c.raw("log_target", False):
        loss = c.call("aten.mul", c.call("aten.exp", t), c.call("aten.sub", _same(c, "target"), x))
    else:
        loss = c.call(
            "aten.sub", c.call("aten.xlogy", t, _same(c, "target")), c.call("aten.mul", _same(c, "target"), x)
        )
    return _reduced(c, loss)


@special("aten.soft_margin_loss")
def soft_margin_loss(c: NodeConverter) -> Any:
    """log(1 + exp(-y x)), reduced."""
    margin = c.call("aten.neg", c.call("aten.mul", _same(c, "target"), _same(c, "self")))
    return _reduced(c, c.call("aten.log1p", c.call("aten.exp", margin)))


@special("aten.margin_ranking_loss")
def margin_ranking_loss(c: NodeConverter) -> Any:
    """max(0, -y (x1 - x2) + margin), reduced."""
    dtype = c.out_dtype()
    gap = c.call("aten.sub", _same(c, "input1"), _same(c, "input2"))
    terms = c.call("aten.add", c.call("aten.neg", c.call("aten.mul", _same(c, "target"), gap)), _margin(c, 0.0, dtype))
    return _reduced(c, c.call("aten.relu", terms))


def _margin(c: NodeConverter, default: float, dtype: Optional[str]) -> Any:
    value = c.raw("margin", default)
    if not isinstance(value, (int, float)):
        raise c.unsupported("a margin that is not a number")
    return c.number(float(value), dtype)


@special("aten.hinge_embedding_loss")
def hinge_embedding_loss(c: NodeConverter) -> Any:
    """x where y is not -1, plus max(0, margin - x) where y is not 1, reduced (torch's terms)."""
    dtype = c.out_dtype()
    zero = c.number(0.0, dtype)
    below = c.call("aten.relu", c.call("aten.sub", _margin(c, 1.0, dtype), _same(c, "self")))
    outside = c.call("aten.where", c.call("aten.ne", _same(c, "target"), c.number(1.0, dtype)), below, zero)
    inside = c.call("aten.where", c.call("aten.ne", _same(c, "target"), c.number(-1.0, dtype)), _same(c, "self"), zero)
    return _reduced(c, c.call("aten.add", outside, inside))


@special("aten.cosine_embedding_loss")
def cosine_embedding_loss(c: NodeConverter) -> Any:
    """1 - cos(x1, x2) where y is 1, max(0, cos - margin) where y is -1, reduced; the cosine over
    the last dim, each squared norm plus 1e-12 (torch's terms)."""
    dtype = c.out_dtype()
    last = [_rank(c, "input1") - 1]

    def summed(a: str, b: str) -> Any:
        return c.call("aten.sum", c.call("aten.mul", _same(c, a), _same(c, b)), dim=last)

    norms = [c.call("aten.add", summed(n, n), c.number(1e-12, dtype)) for n in ("input1", "input2")]
    cosine = c.call("aten.div", summed("input1", "input2"), c.call("aten.sqrt", c.call("aten.mul", *norms)))
    zero = c.number(0.0, dtype)
    near = c.call("aten.sub", c.number(1.0, dtype), cosine)
    far = c.call("aten.relu", c.call("aten.sub", cosine, _margin(c, 0.0, dtype)))
    loss = c.call(
        "aten.add",
        c.call("aten.where", c.call("aten.eq", _same(c, "target"), c.number(1.0, dtype)), near, zero),
        c.call("aten.where", c.call("aten.eq", _same(c, "target"), c.number(-1.0, dtype)), far, zero),
    )
    return _reduced(c, loss)


@special("aten.triplet_margin_loss")
def triplet_margin_loss(c: NodeConverter) -> Any:
    """max(0, margin + d(a, p) - d(a, n)) with d pairwise_distance (swap: d(a, n) at most
    d(p, n)), reduced."""
    dtype = c.out_dtype()
    norm, eps = float(c.raw("p", 2.0)), float(c.raw("eps", 1e-6))

    def distance(a: str, b: str) -> Any:
        return c.call("aten.pairwise_distance", _same(c, a), _same(c, b), p=norm, eps=eps)

    negative = distance("anchor", "negative")
    if c.raw("swap", False):
        negative = c.call("aten.minimum", negative, distance("positive", "negative"))
    terms = c.call("aten.sub", c.call("aten.add", _margin(c, 1.0, dtype), distance("anchor", "positive")), negative)
    return _reduced(c, c.call("aten.relu", terms))


@special("aten.poisson_nll_loss")
def poisson_nll_loss(c: NodeConverter) -> Any:
    """exp(x) - t x (log_input), else x - t log(x + eps); with full, Stirling's term
    t log t - t + log(2 pi t) / 2 where t > 1; reduced."""
    dtype = c.out_dtype()
    x, t = _same(c, "input"), _same(c, "target")
    eps = float(c.raw("eps", 1e-8))  # read either way: only log(x + eps) uses it
    if c.raw("log_input", True):
        loss = c.call("aten.sub", c.call("aten.exp", x), c.call("aten.mul", t, _same(c, "input")))
    else:
        shifted = c.call("aten.add", _same(c, "input"), c.number(eps, dtype))
        loss = c.call("aten.sub", x, c.call("aten.mul", t, c.call("aten.log", shifted)))
    if c.raw("full", False):
        target = _same(c, "target")
        stirling = c.call(
            "aten.add",
            c.call("aten.sub", c.call("aten.mul", target, c.call("aten.log", _same(c, "target"))), _same(c, "target")),
            c.call(
                "aten.mul",
                c.number(0.5, dtype),
                c.call("aten.log", c.call("aten.mul", c.number(2 * math.pi, dtype), _same(c, "target"))),
            ),
        )
        small = c.call("aten.le", _same(c, "target"), c.number(1.0, dtype))
        loss = c.call("aten.add", loss, c.call("aten.where", small, c.number(0.0, dtype), stirling))
    return _reduced(c, loss)


@special("aten.take_along_dim")
def take_along_dim(c: NodeConverter) -> Any:
    """take_along_dim along a dim; without one, the flattened x at the flattened indices."""
    dim = c.raw("dim")
    if dim is not None:
        return generic(c, "aten.take_along_dim")
    flat = c.call("aten.flatten", c.operand(c.raw("indices")))
    return c.call("aten.take", c.operand(c.raw("self")), flat)


@special("aten.empty_permuted")
def empty_permuted(c: NodeConverter) -> Any:
    """An uninitialized tensor whose memory is laid out in another order of its dims: a layout
    a NumPy reading does not see, so aten.empty of its size."""
    c.raw("physical_layout")
    return creation(c)


@special("aten.numpy_T")
def numpy_transpose(c: NodeConverter) -> Any:
    """x.T: every dim reversed (torch's numpy_T, of a tensor of any rank)."""
    return c.call("aten.permute", c.operand(c.raw("self")), dims=list(reversed(range(_rank(c)))))


@special("aten.where")
def where(c: NodeConverter) -> Any:
    """where(condition, self, other) picks elementwise; the one-argument where(condition) is
    nonzero's columns, one int64 vector per dim of condition (the node's outputs)."""
    if c.has("self") or c.has("other"):
        return generic(c, "aten.where")
    positions = c.call("aten.nonzero", c.operand(c.raw("condition")))
    return c.call("aten.unbind", positions, dim=1, count=len(c.node.output_names()))


@special("aten.tril", "aten.triu")
def triangle(c: NodeConverter) -> Any:
    """tril / triu; a diagonal computed from sizes (`ones(t, p + t).tril(p)`, a KV-cache's
    causal mask) is ONNX Trilu's k operand."""
    diagonal = c.raw("diagonal", 0)
    if not isinstance(diagonal, Ref):
        return generic(c, packet(c.node.op))
    x = c.operand(c.raw("self"))
    return c.call("onnx.trilu", x, c.operand(diagonal, "int64"), upper=packet(c.node.op) == "aten.triu")


@special("aten.embedding_bag", "aten._embedding_bag")
def embedding_bag(c: NodeConverter) -> Any:
    """embedding_bag (default and padding_idx overloads) and _embedding_bag, whose padding_idx
    -1 means none (F.embedding_bag has already counted a negative one from the end)."""
    padding = c.raw("padding_idx")
    if packet(c.node.op) == "aten._embedding_bag" and isinstance(padding, int) and padding < 0:
        args = {**c.node.args, "padding_idx": None}
        return convert_as(c, replace(c.node, target="aten.embedding_bag.padding_idx", args=args))
    return generic(c, "aten.embedding_bag")


@special("aten.col2im")
def col2im(c: NodeConverter) -> Any:
    """col2im (F.fold); an output_size computed from sizes (`x.shape[-2:]`) is col2im_sized's
    operand."""
    raw = c.raw("output_size")
    if not _symbolic_list(raw):
        return generic(c, "aten.col2im")
    attrs = {name: c.attribute(c.raw(name)) for name in ("kernel_size", "dilation", "padding", "stride")}
    return c.call("aten.col2im_sized", c.operand(c.raw("self")), c.operand(raw, "int64"), **attrs)


@special("aten.layer_norm", "aten.native_layer_norm", "aten.rms_norm")
def normalization(c: NodeConverter) -> Any:
    """layer_norm / native_layer_norm / rms_norm; a normalized_shape of sizes (`x.shape[-1:]`)
    is the `_sized` form's operand."""
    op = packet(c.node.op)
    return generic(c, op + "_sized" if _symbolic_list(c.raw("normalized_shape")) else op)


@special("aten.var_mean", "aten.std_mean")
def moments(c: NodeConverter) -> Any:
    """var_mean / std_mean: (var or std, mean) over the same dims."""
    op = packet(c.node.op)
    attrs = reduction_attributes(c, spread=True)
    correction = attrs.pop("correction")
    x = c.operand(c.raw("self"))
    first = c.call("aten.var" if op == "aten.var_mean" else "aten.std", x, correction=correction, **attrs)
    return gb.tuple_(first, c.call("aten.mean", x, **attrs), loc=c.loc)


@special("aten.nansum")
def nansum(c: NodeConverter) -> Any:
    """nansum: the sum with NaNs read as 0."""
    x = c.operand(c.raw("self"))
    dtype = c.dtype_of(c.raw("self")) or "float32"
    zero = c.number(0.0, dtype)
    cleaned = c.call("aten.where", c.call("aten.isnan", x), zero, x)
    dim = c.raw("dim")
    attrs: dict = {"keepdim": c.constant(bool, "keepdim", False)}
    if dim is not None:
        attrs["dim"] = [dim] if isinstance(dim, int) else c.attribute(dim)
    c.raw("dtype")
    if c.out_dtype():
        attrs["dtype"] = c.out_dtype()
    return c.call("aten.sum", cleaned, **attrs)


@special("aten.tensor_split")
def tensor_split(c: NodeConverter) -> Any:
    """tensor_split into `sections` parts (the first n % sections one longer: part i holds
    (n + sections - 1 - i) // sections) or at `indices`: one part per node output."""
    x = c.operand(c.raw("self"))
    dim = c.constant(int, "dim", 0)
    count = len(c.node.output_names())
    if c.has("sections"):
        sections = c.constant(int, "sections")
        if sections != count:
            raise c.unsupported(f"{sections} sections for {count} outputs")
        n = c.call("aten.sym_size", x, dim=dim)
        sizes = [
            c.call("floor_divide", c.call("add", n, c.number(sections - 1 - i, "int64")), c.number(sections, "int64"))
            for i in range(sections)
        ]
        return c.call("aten.split_with_sizes", x, gb.tuple_(*sizes, loc=c.loc), dim=dim)
    if not c.has("indices"):
        raise c.unsupported("tensor_split by a tensor of indices")
    cuts = list(c.raw("indices"))
    bounds = [None] + cuts + [None]
    parts = [
        c.call(
            "aten.slice",
            x,
            c.operand(start, "int64") if start is not None else c.number(0, "int64"),
            c.operand(end, "int64"),
            dim=dim,
            step=1,
        )
        for start, end in zip(bounds, bounds[1:])
    ]
    return gb.tuple_(*parts, loc=c.loc)


@special("aten.topk")
def topk(c: NodeConverter) -> Any:
    """topk; a k computed from sizes (`x.topk(x.shape[1] // 2)`) is ONNX TopK's k operand."""
    k = c.raw("k")
    if not isinstance(k, Ref):
        return generic(c, "aten.topk")
    c.raw("sorted")  # ONNX's TopK sorts; torch's sorted=False leaves the order open
    attrs = {"axis": int(c.raw("dim", -1)), "largest": bool(c.raw("largest", True))}
    return c.call("onnx.topk", c.operand(c.raw("self")), c.operand(k, "int64"), **attrs)


@special("higher_order.cond")
def cond(c: NodeConverter) -> Any:
    """torch.cond(pred, true_fn, false_fn, operands): gradual's `if` over the two branches
    (subgraphs imported as blocks whose inputs are the operands); the checker joins their
    types."""
    pred, branches, operands = c.raw("arg0"), (c.raw("arg1"), c.raw("arg2")), c.raw("arg3")
    found = [
        b.value.get("graph") if isinstance(b, Opaque) and b.kind == "graph" and isinstance(b.value, dict) else None
        for b in branches
    ]
    graphs = [g for g in found if isinstance(g, dict)]
    if len(graphs) != len(found) or not isinstance(operands, list):
        raise c.unsupported("a cond whose branches are not graphs")
    names = c.node.output_names()
    as_tuple = len(names) > 1 or bool(c.node.outputs) and isinstance(c.node.outputs[0], list)
    values = [c.operand(v) for v in operands]
    blocks = [c.importer.import_branch(g, values, c, as_tuple) for g in graphs]
    condition = c.operand(pred)
    return gb.if_(condition, blocks[0], blocks[1], loc=c.loc)
