"""Reductions: sum, mean, max, min, prod, argmax, argmin with axis / keepdims / exclude."""

from __future__ import annotations

from typing import Any

from ..context import ShapeContext, normalize_axis
from ..registry import shape_rule


@shape_rule("reduce")
def reduce(ctx: ShapeContext) -> Any:
    """Reduce over `axis` (all axes when absent); `exclude` reduces over the others."""
    (data,) = ctx.args
    keepdims = bool(ctx.attr("keepdims"))
    axes = ctx.attr("axis")
    if data.dims is None:
        return ctx.tensor(None)
    rank = data.rank
    if axes is None:
        chosen = set(range(rank))
    else:
        chosen = {normalize_axis(ctx, a, rank) for a in axes}
    if ctx.attr("exclude"):
        chosen = set(range(rank)) - chosen
    dims = []
    for i, d in enumerate(data.dims):
        if i in chosen:
            if keepdims:
                dims.append(ctx.const(1))
        else:
            dims.append(d)
    return ctx.tensor(dims)
