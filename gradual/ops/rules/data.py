"""Shape values, creation and data-dependent shapes (spec §3.6, 3.7).

shape_of and ndarray_size produce *shape values*: small integer tensors whose elements are
known dims. Creation operators read their shape from an attribute (zeros, ones, full) or from
a shape value (dyn.zeros, dyn.ones, dyn.full). Data-dependent operators (argwhere, unique,
arange of unknown values) give sizes that are only bounded: `ctx.bounded(lo, hi)`.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import RuleFailure, ShapeContext, TensorArg, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    axis_index,
    keeps_values,
    value_add,
    value_element,
    value_subtract,
)
from gradual.ops.tables import shape_rule

SMALL_VALUE_LIMIT = 64

register_rule_message(
    "topk-too-few",
    codes.SHAPE_MISMATCH,
    "{op} takes the top {k} along dim {axis} of {arg}, which holds only {dim}",
    "choose k of at most {dim}, or k=0 to sort the whole axis",
)  # arange results up to this length carry their values


# shape values -----------------------------------------------------------------------------------
@shape_rule("shape_of")
def shape_of(ctx: ShapeContext) -> Any:
    """`shape_of(x)`: a vector of x's dims, whose value is known to be those dims."""
    (data,) = ctx.operands()
    dtype = ctx.attr("dtype")
    if data.dims is None:
        return ctx.tensor([ctx.unknown()], dtype)
    return ctx.tensor([ctx.const(len(data.dims))], dtype, value=list(data.dims))


@shape_rule("ndarray_size")
def ndarray_size(ctx: ShapeContext) -> Any:
    """`ndarray_size(x)`: a scalar holding x's element count (known when x's dims are)."""
    (data,) = ctx.operands()
    value = None if data.dims is None else [product(ctx, data.dims)]
    return ctx.tensor([], ctx.attr("dtype"), value=value)


# arange -----------------------------------------------------------------------------------------
register_rule_message(
    "arange-zero-step",
    codes.OP_CONSTRAINT,
    "{op} got a step of 0, which never reaches the stop",
    "use a non-zero step",
)


@shape_rule("arange")
def arange(ctx: ShapeContext) -> Any:
    """`arange(start, stop, step)`: ceil((stop - start) / step) elements when the values are
    known (`arange(0, n, 1)` has n), else a data-dependent `?`."""
    start, stop, step = ctx.operands()  # the contract: three number scalars
    dtype = ctx.attr("dtype") or ctx.same_dtype(ctx.same_dtype(start.dtype, stop.dtype), step.dtype)
    lo, hi, st = (a.value[0] if a.value else None for a in (start, stop, step))
    length = _arange_length(ctx, lo, hi, st)
    return ctx.tensor([length], dtype, value=_arange_values(ctx, lo, st, length, dtype))


def _arange_length(ctx: ShapeContext, lo: Any, hi: Any, st: Any) -> Any:
    if lo is None or hi is None or st is None:
        return ctx.unknown()
    step = ctx.static(st)
    if step == 0:
        ctx.fail("arange-zero-step")
    first, last = ctx.static(lo), ctx.static(hi)
    if step is not None and first is not None and last is not None:
        return ctx.const(len(range(first, last, step)))
    if step is None or step < 0:
        return ctx.unknown()
    try:
        span = value_subtract(ctx, hi, lo)  # shape values of either sign
    except (ValueError, RuleFailure):
        return ctx.unknown()
    # ceil(span / step) = (span + step - 1) // step, which is >= 0 (so the length, not
    # max(0, ...)) wherever span > -step: arange(0, h - 3, 4) (the dynamo exporter's unfold by
    # 4) has h // 4 elements for every h
    rounded = span if step == 1 else value_add(ctx, span, ctx.const(step - 1))
    nonnegative = ctx.at_least(rounded, 0)
    if nonnegative is None:
        return ctx.unknown()  # stop may lie before start: the length is max(0, ...), not a polynomial
    if not nonnegative:
        return ctx.const(0)
    return span if step == 1 else rounded // step


def _arange_values(ctx: ShapeContext, lo: Any, st: Any, length: Any, dtype: Any) -> Optional[list]:
    count = ctx.static(length)
    if count is None or count > SMALL_VALUE_LIMIT or lo is None or st is None or not keeps_values(dtype):
        return None
    first, step = ctx.static(lo), ctx.static(st)
    if first is not None and step is not None:  # plain integers: they may be negative
        return [value_element(ctx, first + step * i) for i in range(count)]
    if step is None or step < 0:
        return None
    return [lo + st * i for i in range(count)]


# data-dependent -----------------------------------------------------------------------------------
@shape_rule("argwhere")
def argwhere(ctx: ShapeContext) -> Any:
    """`argwhere(x)`: one row of `rank` indices per non-zero element: between 0 and numel rows."""
    (data,) = ctx.operands()
    if data.dims is None:
        return ctx.tensor([ctx.unknown(), ctx.unknown()])
    return ctx.tensor([ctx.bounded(0, product(ctx, data.dims)), ctx.const(len(data.dims))])


@shape_rule("unique")
def unique(ctx: ShapeContext) -> Any:
    """`unique(x)` of a vector of n: (unique values, first indices, inverse indices,
    num_unique[, counts]), each of n entries as Relay pads them (num_unique says how many
    count)."""
    (data,) = ctx.operands()  # a vector, as declared
    n = data.dim(0)
    fields = [
        ctx.tensor([n], data.dtype),
        ctx.tensor([n], "int32"),
        ctx.tensor([n], "int32"),
        ctx.tensor([ctx.const(1)], "int32"),
    ]
    if ctx.attr("return_counts"):
        fields.append(ctx.tensor([n], "int32"))
    return ctx.tuple(fields)


@shape_rule("topk")
def topk(ctx: ShapeContext) -> Any:
    """`topk(x, k, axis, ret_type, dtype)`: dim `axis` becomes k (all of it when k < 1); the
    dim must hold at least k elements. ret_type "both" gives (values, indices)."""
    (data,) = ctx.operands()
    return _topk(ctx, data, ctx.attr("k"))


@shape_rule("dyn_topk")
def dyn_topk(ctx: ShapeContext) -> Any:
    """`dyn.topk(x, k)`: topk whose k is a one-element tensor; without its value dim `axis`
    is `?`."""
    data, k = ctx.operands()  # the contract: one integer, a scalar or a vector of one
    known = None if k.value is None else ctx.static(k.value[0])
    return _topk(ctx, data, known)


def _topk(ctx: ShapeContext, data: TensorArg, k: Optional[int]) -> Any:
    """The contract holds ret_type to its choices and axis to a dim (so the rank to at least 1)."""
    ret_type = ctx.attr("ret_type")
    dims = None
    if data.dims is not None:
        axis = axis_index(ctx.attr("axis"), len(data.dims))
        dims = list(data.dims)
        if k is None:
            dims[axis] = ctx.unknown()
        elif k >= 1:
            size = ctx.static(dims[axis])
            if size is not None and size < k:
                ctx.fail("topk-too-few", arg=data, axis=axis, dim=dims[axis], k=k)
            ctx.within(dims[axis], k, None)
            dims[axis] = ctx.const(k)
    values = ctx.tensor(dims, data.dtype)
    indices = ctx.tensor(dims, ctx.attr("dtype"))
    return {"both": ctx.tuple([values, indices]), "values": values, "indices": indices}[ret_type]


@shape_rule("argsort")
def argsort(ctx: ShapeContext) -> Any:
    """`argsort(x, axis, is_ascend, dtype)`: indices shaped like x, in dtype (the contract
    holds axis to a dim)."""
    (data,) = ctx.operands()
    return ctx.tensor(data.dims, ctx.attr("dtype"))


# creation ---------------------------------------------------------------------------------------
def _attribute_shape(ctx: ShapeContext) -> list:
    return [ctx.const(s) for s in ctx.attr("shape")]  # the contract: each at least 0


@shape_rule("static_shape")
def static_shape(ctx: ShapeContext) -> Any:
    """`zeros(shape=[...], dtype)` and `ones`: the shape attribute is the shape."""
    return ctx.tensor(_attribute_shape(ctx), ctx.attr("dtype"))


@shape_rule("full")
def full(ctx: ShapeContext) -> Any:
    """`full(fill_value, shape=[...], dtype)`: the fill value is a scalar; dtype defaults to its."""
    (fill,) = ctx.operands()  # the contract makes it a scalar
    return ctx.tensor(_attribute_shape(ctx), ctx.attr("dtype") or fill.dtype)


def shape_from_value(ctx: ShapeContext, shape: TensorArg) -> Optional[list]:
    """The dims a 1-D shape tensor describes: its known values, or as many unknown dims as its
    static length, or None (unknown rank)."""
    ctx.require_rank(shape, 1)
    if shape.value is not None:
        return list(shape.value)
    length = ctx.static(shape.dim(0))
    return None if length is None else [ctx.unknown() for _ in range(length)]


@shape_rule("dyn_static_shape")
def dyn_static_shape(ctx: ShapeContext) -> Any:
    """`dyn.zeros(shape)` and `dyn.ones(shape)`: the shape is a tensor value."""
    (shape,) = ctx.operands()
    return ctx.tensor(shape_from_value(ctx, shape), ctx.attr("dtype"))


@shape_rule("dyn_full")
def dyn_full(ctx: ShapeContext) -> Any:
    """`dyn.full(fill_value, shape, dtype)`."""
    fill, shape = ctx.operands()  # the contract makes the fill a scalar, the shape a vector
    return ctx.tensor(shape_from_value(ctx, shape), ctx.attr("dtype") or fill.dtype)
