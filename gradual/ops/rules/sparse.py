"""Sparse tensors as Relay writes them (indices, values, a dense shape) and index arithmetic:
sparse_to_dense (static and dyn.), sparse_reshape, sparse_fill_empty_rows, unravel_index.

The number of entries a sparse tensor gains (rows sparse_fill_empty_rows fills) depends on the
data: it is bounded by what is known (at least the entries there were, at most one more per row).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import known_ints, show_ints
from gradual.ops.rules.data import shape_from_value
from gradual.ops.rules.shape import reshape_dims
from gradual.ops.tables import shape_rule

register_rule_message(
    "sparse-index-range",
    codes.OP_CONSTRAINT,
    "{arg} holds the index {index} for dim {axis} of the dense tensor, which has {size}",
    "keep each index inside its dim of the dense shape",
)
register_rule_message(
    "unravel-index-range",
    codes.OP_CONSTRAINT,
    "{arg} holds the flat index {index}, but a tensor of shape {shape} has only {count} elements",
    "keep every flat index below the shape's element count",
)


def _entries(ctx: ShapeContext, indices: TensorArg, values: TensorArg, dense: Optional[list]) -> None:
    """sparse_to_dense's operands agree: the indices are a scalar, a vector (positions in a
    1-D tensor) or an (entries, rank) matrix with a column per dim of the dense tensor, and
    values that are not one scalar have an entry per index."""
    if indices.dims is None:
        return
    rank = len(indices.dims)
    if rank > 2:
        ctx.fail("rank", arg=indices, expected="at most 2", actual=rank)
    if dense is not None and rank == 2:
        ctx.equal(indices.dim(1), ctx.const(len(dense)), symbol="rank")
    elif dense is not None and len(dense) != 1:
        ctx.fail("rank", arg=indices, expected=2, actual=rank)
    if values.dims is not None and len(values.dims) > 1:
        ctx.fail("rank", arg=values, expected="at most 1", actual=len(values.dims))
    if values.dims is not None and len(values.dims) == 1 and rank >= 1:
        ctx.equal(values.dim(0), indices.dim(0), symbol="entries")
    if dense is not None:
        _positions(ctx, indices, dense)


def _positions(ctx: ShapeContext, indices: TensorArg, dense: list) -> None:
    """Each index lies in its dim of the dense shape (negative ones from its end), where the
    indices are known (at the latest when the program runs): a vector's entries address dim 0,
    a matrix's column j dim j."""
    assert indices.dims is not None
    if len(indices.dims) == 2:
        columns = ctx.row_bounds(indices, 1) or []
    else:
        bounds = ctx.element_bounds(indices)
        columns = [bounds[:2] if bounds else None] if bounds is not None else []
    for axis, (bound, dim) in enumerate(zip(columns, dense)):
        size = ctx.static(dim)
        if bound is not None and size is not None and not -size <= bound[0] <= bound[1] < size:
            index = bound[1] if bound[1] >= size else bound[0]
            ctx.fail("sparse-index-range", arg=indices, index=index, axis=axis, size=size)


@shape_rule("sparse_to_dense")
def sparse_to_dense(ctx: ShapeContext) -> Any:
    """`sparse_to_dense(indices, values, default_value, output_shape=[...])`: the dense tensor
    of the attribute's shape, in the values' dtype; the default value is a scalar."""
    indices, values = ctx.operand(0), ctx.operand(1)  # the contract: sizes, a scalar default, integer indices
    shape = list(ctx.attr("output_shape"))
    _entries(ctx, indices, values, shape)
    return ctx.tensor([ctx.const(s) for s in shape], values.dtype)


@shape_rule("dyn_sparse_to_dense")
def dyn_sparse_to_dense(ctx: ShapeContext) -> Any:
    """`dyn.sparse_to_dense(indices, values, default_value, output_shape)`: the shape is a
    1-D tensor value."""
    indices, values, shape = ctx.operand(0), ctx.operand(1), ctx.operand(3)  # the contract: a scalar default
    dims = shape_from_value(ctx, shape)
    _entries(ctx, indices, values, dims)
    return ctx.tensor(dims, values.dtype)


@shape_rule("sparse_reshape")
def sparse_reshape(ctx: ShapeContext) -> Any:
    """`sparse_reshape(indices (n, r), prev_shape (r,), new_shape (m,))`: (new indices (n, m),
    the new shape (m,) with its -1 inferred); known shape values reshape as TensorFlow's
    sparse_reshape, which TVM follows: -1 is inferred and 0 is a size (not `reshape`'s copy)."""
    indices, prev_shape, new_shape = ctx.operands()  # (n, r), (r,) and (m,), as declared
    value = None
    prev, new = known_ints(ctx, prev_shape), new_shape.value
    if prev is not None and new is not None:
        dense = TensorArg(prev_shape.index, prev_shape.path, [ctx.const(v) for v in prev], prev_shape.dtype, None)
        value = reshape_dims(ctx, dense, list(new), allowzero=True)  # a 0 is a size, as in TensorFlow
    return ctx.tuple(
        [
            ctx.tensor([indices.dim(0), new_shape.dim(0)], indices.dtype),
            ctx.tensor([new_shape.dim(0)], new_shape.dtype, value=value),
        ]
    )


@shape_rule("sparse_fill_empty_rows")
def sparse_fill_empty_rows(ctx: ShapeContext) -> Any:
    """`sparse_fill_empty_rows(indices (n, r), values (n,), dense_shape (r,), default_value)`:
    (indices, values) with an entry added to every empty row (n to n + rows of them), and
    one indicator per row (in dense_shape's dtype, as Relay)."""
    indices, values, dense_shape = ctx.operand(0), ctx.operand(1), ctx.operand(2)  # (n, r), (n,), (r,): declared
    entries = indices.dim(0)
    rows = dense_shape.value[0] if dense_shape.value else ctx.unknown()
    # every entry stays and every row ends with one: at least max(entries, rows) of them
    least = max(ctx.bounds(entries)[0] or 0, ctx.bounds(rows)[0] or 0)
    grown = ctx.bounded(least, entries + rows)
    return ctx.tuple(
        [
            ctx.tensor([grown, indices.dim(1)], indices.dtype),
            ctx.tensor([grown], values.dtype),
            ctx.tensor([rows], dense_shape.dtype),
        ]
    )


@shape_rule("unravel_index")
def unravel_index(ctx: ShapeContext) -> Any:
    """`unravel_index(indices, shape)`: one row of coordinates per dim of `shape` (a vector):
    (len(shape),) + indices' shape, in the indices' dtype. The indices lie in [0, the shape's
    element count): the contract holds the lower end, the rule the upper where the values are
    known (at the latest when the program runs)."""
    indices, shape = ctx.operands()
    bounds, sizes = ctx.element_bounds(indices), known_ints(ctx, shape)
    if bounds and sizes is not None and bounds[1] >= math.prod(sizes):
        ctx.fail("unravel-index-range", arg=indices, index=bounds[1], shape=show_ints(sizes), count=math.prod(sizes))
    if indices.dims is None:
        return ctx.tensor(None, indices.dtype)
    return ctx.tensor([shape.dim(0)] + list(indices.dims), indices.dtype)
