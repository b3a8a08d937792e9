"""Reductions: sum, mean, max, min, prod, argmax, argmin with axis / keepdims / exclude.

Relay's rule (`GetReduceAxes`): an absent or empty `axis` reduces every axis, whatever
`exclude` says; otherwise `exclude` reduces every axis *not* listed. Negative axes count from
the end; an axis listed twice is reduced once.
"""

from __future__ import annotations

from typing import Any

from gradual.ops.context import ShapeContext, TensorArg
from gradual.ops.rules.common import axis_index, cast_values, require_nonempty, value_add, value_multiply
from gradual.ops.rules.shape import broadcast_into
from gradual.ops.tables import shape_rule


def reduced_axes(ctx: ShapeContext, rank: int) -> set:
    """The axes a reduction removes (or keeps as 1), for an input of known rank."""
    axes = ctx.attr("axis")
    if not axes:
        return set(range(rank))
    chosen = {axis_index(a, rank) for a in axes}  # the contract holds each axis in range
    if ctx.attr("exclude"):
        return set(range(rank)) - chosen
    return chosen


def reduce_dims(ctx: ShapeContext, data: TensorArg) -> list | None:
    """The result dims of a reduction; None when they depend on an unknown rank."""
    keepdims = bool(ctx.attr("keepdims"))
    if data.dims is None:  # the contract asks the rank the axes need
        return [] if not ctx.attr("axis") and not keepdims else None
    chosen = reduced_axes(ctx, len(data.dims))
    dims = []
    for i, d in enumerate(data.dims):
        if i not in chosen:
            dims.append(d)
        elif keepdims:
            dims.append(ctx.const(1))
    return dims


def require_elements(ctx: ShapeContext, data: TensorArg) -> None:
    """Every reduced axis holds at least one element (for reductions without an identity)."""
    if data.dims is None:
        return
    for axis in sorted(reduced_axes(ctx, len(data.dims))):
        require_nonempty(ctx, data, axis, f"{ctx.op_name} of no elements has no value")


@shape_rule("reduce")
def reduce(ctx: ShapeContext) -> Any:
    """`sum(x, axis, keepdims, exclude)` and the other reductions: the remaining dims (`max`,
    `min`, `argmax` and `argmin` declare that every reduced axis holds an element)."""
    (data,) = ctx.operands()
    return ctx.tensor(reduce_dims(ctx, data))


def _reduced_value(ctx: ShapeContext, data: TensorArg, combine: Any, identity: int) -> list | None:
    """The value of reducing a known shape vector completely (`prod(shape_of(x))` is numel)."""
    if data.value is None or data.rank is None or data.rank > 1:
        return None
    if data.rank == 1 and reduced_axes(ctx, 1) != {0}:
        return None
    total = ctx.const(identity)
    try:
        for v in data.value:
            total = combine(ctx, total, v)
    except Exception:  # noqa: BLE001 - an undefined element is simply not known
        return None
    return cast_values(ctx, [total], data.dtype)


@shape_rule("reduce_prod")
def reduce_prod(ctx: ShapeContext) -> Any:
    """`prod(x, ...)`: a reduction; the product of a known shape vector is known."""
    (data,) = ctx.operands()
    return ctx.tensor(reduce_dims(ctx, data), value=_reduced_value(ctx, data, value_multiply, 1))


@shape_rule("reduce_sum")
def reduce_sum(ctx: ShapeContext) -> Any:
    """`sum(x, ...)`: a reduction; the sum of a known shape vector is known."""
    (data,) = ctx.operands()
    return ctx.tensor(reduce_dims(ctx, data), value=_reduced_value(ctx, data, value_add, 0))


@shape_rule("variance")
def variance(ctx: ShapeContext) -> Any:
    """`variance(x, mean, axis, keepdims, exclude, unbiased)`: a reduction of x; the mean
    broadcasts into x's shape (a mean taken with keepdims has 1 on the reduced axes): a mean
    that would grow x (more dims, or 5 against x's 1) makes the kernel reduce another shape."""
    data, mean = ctx.operands()
    if data.dims is not None and mean.dims is not None:
        broadcast_into(ctx, mean, list(data.dims))
    return ctx.tensor(reduce_dims(ctx, data))
