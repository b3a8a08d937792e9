"""Relay's scatters and indexed writes: scatter_elements, scatter_nd, strided_set, adv_index.

Relay's own relations check little (the indices are integers; scatter_nd's updates against its
indices); these rules also check what the kernels index with (the ranks and shapes of indices
and updates), so a call that checks clean never stops inside the kernel for its shapes. Index
values are data: one out of range stops the kernel at run.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import axis_index, index_out_of_range, known_ints, require_at_most, require_rank_of
from gradual.ops.rules.operands import require_indices
from gradual.ops.tables import shape_rule

register_rule_message(
    "scatter-nd-row",
    codes.OP_CONSTRAINT,
    "{op} writes position {index} of dim {axis} of {arg}, which has {length} (row {row} of the indices addresses that dim)",
    "each row of the indices holds positions along its own dim: keep row i within dim i of the data (negative from its end)",
)
register_rule_message(
    "slice-zero-step",
    codes.OP_CONSTRAINT,
    "{op} got a stride of 0 at dim {axis}",
    "use a positive or negative stride",
)
register_rule_message(
    "set-value-shape",
    codes.SHAPE_MISMATCH,
    "{arg} has dim {have} where the slice it is written to has {want} (dim {axis} of the slice)",
    "give the value the slice's shape (or 1 there, to repeat it)",
)


@shape_rule("scatter_elements")
def scatter_elements(ctx: ShapeContext) -> Any:
    """`scatter_elements(data, indices, updates, axis, reduction)`: data's shape. Indices and
    updates have one shape, of the data's rank, each dim but `axis` at most the data's (the
    kernel walks the indices and writes at their positions)."""
    data, indices, updates = ctx.operands()  # the contract: ranks, axis, reduction, index values
    if data.dims is not None and indices.dims is not None and updates.dims is not None:
        rank = len(data.dims)
        axis = axis_index(ctx.attr("axis"), rank)
        for i in range(rank):
            ctx.equal(updates.dim(i), indices.dim(i), symbol="the indices' shape")
            if i != axis:
                require_at_most(ctx, indices, i, data.dim(i), "the indices' positions lie inside the data")
    return ctx.tensor(data.dims)


@shape_rule("scatter_nd")
def scatter_nd(ctx: ShapeContext) -> Any:
    """`scatter_nd(data, indices, updates, mode)`: data's shape (n dims). Indices are (m, *y)
    with m <= n; updates are (*y, data's dims from m on)."""
    data, indices, updates = ctx.operands()  # the contract: the mode, indices of depth <= rank
    if data.dims is None or indices.dims is None:
        return ctx.tensor(data.dims)
    depth = ctx.static(indices.dim(0))
    if depth is None:
        return ctx.tensor(data.dims)
    for row, bounds in enumerate(ctx.row_bounds(indices) or ()):
        length = ctx.static(data.dim(row))
        if bounds is not None and length is not None and not -length <= bounds[0] <= bounds[1] < length:
            index = bounds[1] if bounds[1] >= length else bounds[0]
            ctx.fail("scatter-nd-row", arg=data, index=index, axis=row, length=length, row=row)
    wanted = list(indices.dims[1:]) + list(data.dims[depth:])
    require_rank_of(ctx, updates, len(wanted), "indices.shape[1:] + data.shape[m:]")
    for i, want in enumerate(wanted):
        ctx.equal(updates.dim(i), want)
    return ctx.tensor(data.dims)


def slice_length(size: int, begin: int | None, end: int | None, stride: int) -> int:
    """How many elements `x[begin:end:stride]` (NumPy's slice, clamped) takes of `size`."""
    return len(range(*slice(begin, end, stride).indices(size)))


@shape_rule("strided_set")
def strided_set(ctx: ShapeContext) -> Any:
    """`strided_set(data, v, begin, end, strides)`: data's shape. begin, end and strides are
    integer vectors of at most rank(data) entries (absent ones take the whole dim, stride 1);
    v broadcasts to the slice's shape (NumPy's `x[slices] = v`)."""
    data, value, begin, end, strides = ctx.operands()  # the contract: vectors of at most rank entries
    if data.dims is None:
        return ctx.tensor(None)
    rank = len(data.dims)
    starts, stops, steps = known_ints(ctx, begin), known_ints(ctx, end), known_ints(ctx, strides)
    if steps is not None:
        for axis, step in enumerate(steps):
            if step == 0:
                ctx.fail("slice-zero-step", axis=axis)
    sizes = [ctx.static(d) for d in data.dims]
    value_dims = value.dims
    if starts is None or stops is None or steps is None or value_dims is None:
        return ctx.tensor(data.dims)
    lengths = []
    for i, size in enumerate(sizes):
        if size is None:
            return ctx.tensor(data.dims)
        begin_i = starts[i] if i < len(starts) else None
        end_i = stops[i] if i < len(stops) else None
        lengths.append(slice_length(size, begin_i, end_i, steps[i] if i < len(steps) else 1))
    offset = rank - len(value_dims)
    for i, have in enumerate(value_dims):
        want = lengths[offset + i]
        if ctx.is_one(have) is True:
            continue
        known = ctx.static(have)
        if known is not None and known != want:
            ctx.fail("set-value-shape", arg=value, have=known, want=want, axis=offset + i)
        ctx.equal(have, ctx.const(want))
    return ctx.tensor(data.dims)


register_rule_message(
    "adv-index-out-of-range",
    codes.SHAPE_MISMATCH,
    "{op} picks index {index} from dim {axis} of the data, which has {length} elements",
    "indices into a dim must lie in -{length}..{last}",
)
register_rule_message(
    "adv-index-empty-dim",
    codes.SHAPE_MISMATCH,
    "{op} picks index {index} from dim {axis} of the data, which is empty",
    "an index needs an element to pick: index an empty dim only with an empty index tensor",
)


@shape_rule("adv_index")
def adv_index(ctx: ShapeContext) -> Any:
    """`adv_index((data, i0, ..., ik-1))`: NumPy's `data[i0, ..., ik-1]`: the integer indices'
    broadcast shape, then data's dims from k on (k at most rank(data))."""
    fields = ctx.list_operand(0)  # the contract: the data, then at most rank(data) index tensors
    if fields is None:
        return ctx.tensor(None)
    data, indices = fields[0], fields[1:]
    for index in indices:
        require_indices(ctx, index)
    for axis, index in enumerate(indices):
        _require_index_in_dim(ctx, data, axis, index)
    index_dims = [index.dims for index in indices]
    rank = max((len(dims) for dims in index_dims if dims is not None), default=0)
    shape: list = [ctx.const(1)] * rank
    for dims in index_dims:
        if dims is None:
            return ctx.tensor(None, data.dtype)
        padded = [ctx.const(1)] * (rank - len(dims)) + list(dims)
        shape = [ctx.broadcast(a, b) for a, b in zip(shape, padded)]
    if data.dims is None:
        return ctx.tensor(None, data.dtype)
    return ctx.tensor(shape + list(data.dims[len(indices) :]), data.dtype)


def _require_index_in_dim(ctx: ShapeContext, data: Any, axis: int, index: Any) -> None:
    """Index tensor `axis` points into dim `axis` of the data (negative entries from its end):
    decided where its elements are known, at the latest when the program runs."""
    if data.dims is None or axis >= len(data.dims):
        return
    length = ctx.static(data.dim(axis))
    value = index_out_of_range(ctx, index, length)
    if value is None:
        return
    assert length is not None  # an index is out of range only of a known length
    if length == 0:
        ctx.fail("adv-index-empty-dim", arg=index, axis=axis, index=value)
    ctx.fail("adv-index-out-of-range", arg=index, axis=axis, index=value, length=length, last=length - 1)
