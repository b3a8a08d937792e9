"""Shape values and data-dependent shapes: shape_of, take, arange, argwhere, creation ops."""

from __future__ import annotations

from typing import Any, Optional

from ..context import ShapeContext, TensorArg, normalize_axis, product
from ..registry import shape_rule


@shape_rule("shape_of")
def shape_of(ctx: ShapeContext) -> Any:
    """`shape_of(x)`: a vector of x's dims, whose value is known to be those dims."""
    (data,) = ctx.args
    if data.dims is None:
        return ctx.tensor([ctx.unknown()], ctx.attr("dtype"))
    return ctx.tensor([ctx.const(data.rank)], ctx.attr("dtype"), value=list(data.dims))


@shape_rule("ndarray_size")
def ndarray_size(ctx: ShapeContext) -> Any:
    """`ndarray_size(x)`: a scalar holding x's element count."""
    (data,) = ctx.args
    value = None if data.dims is None else [product(ctx, data.dims)]
    return ctx.tensor([], ctx.attr("dtype"), value=value)


@shape_rule("take")
def take(ctx: ShapeContext) -> Any:
    """`take(x, indices, axis)`: indices' shape replaces dim `axis` (x flattened if no axis)."""
    data, indices = ctx.args
    axis = ctx.attr("axis")
    if axis is None:
        dims = indices.dims
        return ctx.tensor(dims, value=_taken_values(ctx, data, indices))
    if data.dims is None or indices.dims is None:
        return ctx.tensor(None)
    axis = normalize_axis(ctx, axis, data.rank)
    dims = list(data.dims[:axis]) + list(indices.dims) + list(data.dims[axis + 1:])
    value = _taken_values(ctx, data, indices) if data.rank == 1 else None
    return ctx.tensor(dims, value=value)


def _taken_values(ctx: ShapeContext, data: TensorArg, indices: TensorArg) -> Optional[list]:
    if data.value is None or indices.value is None:
        return None
    picked = []
    for i in indices.value:
        index = ctx.static(i)
        if index is None or not -len(data.value) <= index < len(data.value):
            return None
        picked.append(data.value[index])
    return picked


@shape_rule("arange")
def arange(ctx: ShapeContext) -> Any:
    """`arange(start, stop, step)`: length ceil((stop - start) / step) when the values are
    known (exactly `stop` for `arange(0, n, 1)`), else data-dependent `?`."""
    start, stop, step = ctx.args
    dtype = ctx.attr("dtype") or None
    if dtype is None:
        dtype = ctx.same_dtype(ctx.same_dtype(start.dtype, stop.dtype), step.dtype)
    values = [a.value[0] if a.value else None for a in (start, stop, step)]
    lo, hi, st = values
    if lo is None or hi is None or st is None:
        return ctx.tensor([ctx.unknown()], dtype)
    st_v, lo_v = ctx.static(st), ctx.static(lo)
    if st_v == 1 and lo_v == 0:
        return ctx.tensor([hi], dtype)
    hi_v = ctx.static(hi)
    if st_v is None or lo_v is None or hi_v is None or st_v == 0:
        return ctx.tensor([ctx.unknown()], dtype)
    length = max(0, -(-(hi_v - lo_v) // st_v))
    return ctx.tensor([ctx.const(length)], dtype)


@shape_rule("argwhere")
def argwhere(ctx: ShapeContext) -> Any:
    """`argwhere(x)`: one row per non-zero element, so between 0 and numel rows."""
    (data,) = ctx.args
    if data.dims is None:
        return ctx.tensor([ctx.unknown(), ctx.unknown()])
    return ctx.tensor([ctx.bounded(0, product(ctx, data.dims)), ctx.const(data.rank)])


@shape_rule("static_shape")
def static_shape(ctx: ShapeContext) -> Any:
    """`zeros(shape=[...])` and friends: the shape attribute is the shape."""
    return ctx.tensor([ctx.const(s) for s in ctx.attr("shape")], ctx.attr("dtype"))


@shape_rule("full")
def full(ctx: ShapeContext) -> Any:
    """`full(fill_value, shape=[...])`: the fill value must be a scalar."""
    (fill,) = ctx.args
    if fill.dims is not None:
        ctx.require_rank(fill, 0)
    return ctx.tensor([ctx.const(s) for s in ctx.attr("shape")], ctx.attr("dtype") or fill.dtype)


def _shape_from_value(ctx: ShapeContext, shape: TensorArg) -> Optional[list]:
    if shape.dims is not None:
        ctx.require_rank(shape, 1)
    if shape.value is not None:
        return list(shape.value)
    if shape.dims is not None and ctx.static(shape.dim(0)) is not None:
        return [ctx.unknown() for _ in range(ctx.static(shape.dim(0)))]
    return None


@shape_rule("dyn_static_shape")
def dyn_static_shape(ctx: ShapeContext) -> Any:
    """`dyn.zeros(shape)` and friends: the shape is a tensor value."""
    (shape,) = ctx.args
    return ctx.tensor(_shape_from_value(ctx, shape), ctx.attr("dtype"))


@shape_rule("dyn_full")
def dyn_full(ctx: ShapeContext) -> Any:
    """`dyn.full(fill_value, shape)`."""
    fill, shape = ctx.args
    if fill.dims is not None:
        ctx.require_rank(fill, 0)
    return ctx.tensor(_shape_from_value(ctx, shape), ctx.attr("dtype") or fill.dtype)


@shape_rule("cast")
def cast(ctx: ShapeContext) -> Any:
    """`cast(x, dtype)`: same shape, the new dtype, shape values kept."""
    (data,) = ctx.args
    return ctx.tensor(data.dims, ctx.attr("dtype"), value=data.value)
