"""Shape rules of ATen's indexing operators (stdlib/aten.rly): advanced indexing (`x[i, :, j]`,
`x[mask]`) and writes through it, gather and scatter along a dim, and searching sorted values.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.aten import diagonal_dims, torch_axis
from gradual.ops.rules.common import dtype_name, require_at_most, require_nonempty
from gradual.ops.rules.elementwise import broadcast_dims
from gradual.ops.rules.shape import broadcast_into
from gradual.ops.tables import shape_rule

register_rule_message(
    "index-dims",
    codes.BAD_ATTRIBUTE,
    "{op} indexes dims {dims} of {arg}, which has rank {rank}: each index takes its own dims",
    "index each dim of the tensor at most once",
)


def _indexed(ctx: ShapeContext, data: TensorArg, fields: list[TensorArg]) -> Optional[list]:
    """The dims x[indices] has (NumPy's rule), or None where it cannot be known. The indices
    stand in NumPy's index tuple in order of their dims, with full slices for the dims between;
    a 0-d mask takes no dim (it adds one of 0 or 1, before the dim it names)."""
    where = list(ctx.attr("dims"))
    if data.dims is None or len(where) != len(fields):
        return None
    rank = len(data.dims)
    pairs = []
    for start, index in sorted(zip(where, fields), key=lambda pair: pair[0]):
        if index.dims is None:
            return None
        pairs.append((start, index, index.dims))
    taken: list[int] = []
    shapes = []
    positions: list[int] = []  # each index's place in NumPy's index tuple
    axis, overlap = 0, False
    for start, index, index_dims in pairs:
        overlap = overlap or not axis <= start <= rank
        positions.append(len(positions) + start - len(taken))
        if dtype_name(index.dtype) == "bool":
            span = list(range(start, start + len(index_dims)))
            for a, d in zip(span, index_dims):
                if 0 <= a < rank:
                    ctx.equal(d, data.dim(a))
            shapes.append([ctx.bounded(0, product(ctx, index_dims))])
        else:
            span = [start]
            shapes.append(list(index_dims))
        taken.extend(span)
        axis = max(axis, start + len(span))
    if overlap or len(set(taken)) != len(taken) or any(not 0 <= a < rank for a in taken):
        ctx.fail("index-dims", arg=data, dims=sorted(taken), rank=rank)
    batch = broadcast_dims(ctx, shapes)
    if batch is None:
        return None
    if not pairs:
        return list(data.dims)
    if positions == list(range(positions[0], positions[-1] + 1)):  # adjacent: in place
        return list(data.dims[: pairs[0][0]]) + list(batch) + list(data.dims[axis:])
    return list(batch) + [d for a, d in enumerate(data.dims) if a not in taken]


@shape_rule("aten_index")
def index(ctx: ShapeContext) -> Any:
    """`aten.index(x, indices, dims)`: see stdlib/aten.rly."""
    data, fields = ctx.operand(0), ctx.list_operand(1)
    return ctx.tensor(None if fields is None else _indexed(ctx, data, fields))


@shape_rule("aten_index_put")
def index_put(ctx: ShapeContext) -> Any:
    """`aten.index_put(x, indices, values, dims)`: values broadcast to x[indices]; x's shape."""
    data, fields, values = ctx.operand(0), ctx.list_operand(1), ctx.operand(2)
    selected = None if fields is None else _indexed(ctx, data, fields)
    if selected is not None:
        broadcast_into(ctx, values, selected)
    return ctx.tensor(data.dims)


@shape_rule("aten_gather")
def gather(ctx: ShapeContext) -> Any:
    """`aten.gather(x, index, dim)`: index's shape (of x's rank, as declared); off dim, index's
    dims are at most x's (torch reads index's positions in x)."""
    data, index_arg = ctx.operands()
    if data.dims is not None and index_arg.dims is not None:
        axis = torch_axis(ctx, ctx.attr("dim"), len(data.dims))
        _within_off_dim(ctx, index_arg, [data], axis)
    return ctx.tensor(index_arg.dims, data.dtype)


@shape_rule("aten_scatter")
def scatter(ctx: ShapeContext) -> Any:
    """`aten.scatter(x, index, src, dim)`: x's shape; index has x's rank, src too unless it is a
    scalar (declared); index's dims are at most src's, and off dim at most x's."""
    data, index_arg, src = ctx.operands()
    if data.dims is not None:
        axis = torch_axis(ctx, ctx.attr("dim"), len(data.dims))
        if index_arg.dims is not None:
            _within_off_dim(ctx, index_arg, [data], axis)
            if src.dims:
                _within_off_dim(ctx, index_arg, [src], None)
    return ctx.tensor(data.dims)


def _within_off_dim(ctx: ShapeContext, index_arg: TensorArg, bounds: list[TensorArg], axis: Optional[int]) -> None:
    """Each dim of index (but `axis`) is at most that dim of each tensor in `bounds`."""
    for bound in bounds:
        for i in range(min(index_arg.rank or 0, bound.rank or 0)):
            if i != axis:
                require_at_most(ctx, index_arg, i, bound.dim(i), "torch reads the index's positions there")


@shape_rule("aten_index_add")
def index_add(ctx: ShapeContext) -> Any:
    """`aten.index_add(x, index, source, dim)`: source is x with dim as long as the index
    vector; x's shape."""
    data, index_arg, source = ctx.operands()
    if data.dims is not None:
        axis = torch_axis(ctx, ctx.attr("dim"), len(data.dims))
        for i in range(len(data.dims)):
            ctx.equal(source.dim(i), index_arg.dim(0) if i == axis else data.dim(i))
    return ctx.tensor(data.dims)


@shape_rule("aten_index_fill")
def index_fill(ctx: ShapeContext) -> Any:
    """`aten.index_fill(x, index, value, dim)`: x's shape (dim a dim of x, as torch names it)."""
    data, _index, _value = ctx.operands()
    if data.dims is not None:
        torch_axis(ctx, ctx.attr("dim"), len(data.dims))
    return ctx.tensor(data.dims)


@shape_rule("aten_take")
def take(ctx: ShapeContext) -> Any:
    """`aten.take(x, index)`: index's shape, x's dtype (the bounds are declared)."""
    data, index_arg = ctx.operands()
    return ctx.tensor(index_arg.dims, data.dtype)


@shape_rule("aten_take_along_dim")
def take_along_dim(ctx: ShapeContext) -> Any:
    """`aten.take_along_dim(x, indices, dim)`: x and indices broadcast off dim, dim as long as
    indices' (ranks and the index bound are declared)."""
    data, index_arg = ctx.operands()
    if data.dims is None or index_arg.dims is None:
        return ctx.tensor(None)
    axis = torch_axis(ctx, ctx.attr("dim"), len(data.dims))
    off = [[d for i, d in enumerate(dims) if i != axis] for dims in (data.dims, index_arg.dims)]
    batch = broadcast_dims(ctx, off)
    if batch is None:
        return ctx.tensor(None)
    if ctx.static(index_arg.dim(axis)) != 0 and ctx.static(product(ctx, batch)) != 0:
        require_nonempty(ctx, data, axis, "an index reads one of its elements")
    return ctx.tensor(list(batch[:axis]) + [index_arg.dim(axis)] + list(batch[axis:]))


@shape_rule("aten_put")
def put(ctx: ShapeContext) -> Any:
    """`aten.put(x, index, source)`: x's shape (the counts and bounds are declared)."""
    data, _index, _source = ctx.operands()
    return ctx.tensor(data.dims)


@shape_rule("aten_diagonal_scatter")
def diagonal_scatter(ctx: ShapeContext) -> Any:
    """`aten.diagonal_scatter(x, src, offset, dim1, dim2)`: src has the shape of x's diagonal;
    x's shape."""
    data, src = ctx.operands()
    wanted = diagonal_dims(ctx, data)
    if wanted is not None and src.dims is not None:
        for i, d in enumerate(wanted):
            ctx.equal(src.dim(i), d)
    return ctx.tensor(data.dims)


@shape_rule("aten_bucketize")
def bucketize(ctx: ShapeContext) -> Any:
    """`aten.bucketize(x, boundaries)`: x's shape, int64 (int32 with out_int32); boundaries a
    vector (declared)."""
    data, _boundaries = ctx.operands()
    return ctx.tensor(data.dims, "int32" if ctx.attr("out_int32") else "int64")


@shape_rule("aten_searchsorted")
def searchsorted(ctx: ShapeContext) -> Any:
    """`aten.searchsorted(sorted, x)`: x's shape; a sorted sequence of more than one dim has
    x's leading dims (the ranks declared)."""
    sequence, data = ctx.operands()
    if sequence.dims is not None and data.dims is not None and len(sequence.dims) == len(data.dims):
        for i in range(len(sequence.dims) - 1):
            ctx.equal(sequence.dim(i), data.dim(i))
    return ctx.tensor(data.dims, "int32" if ctx.attr("out_int32") else "int64")
