"""Indexing operators: take (Gather), gather, gather_nd, strided_slice (Slice) and one_hot.

take and strided_slice keep the known values of a shape vector (Shape -> Gather / Slice).
strided_slice is exact on static dims (NumPy's slice semantics, so an empty slice has length
0). On other dims it is optimistic like the rest of the checker: it assumes the dim is long
enough for the slice (a runtime check when the dim is `?` or an interval) and computes the
length symbolically, so `x[:, 1:]` of `(b, s)` is `(b, s - 1)` and `x[:, -1:]` is `(b, 1)`.
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    axis_index,
    distinct_axes,
    index_out_of_range,
    is_huge,
    is_huge_negative,
    known_ints,
    rearranged_value,
    require_at_most,
    show_ints,
)
from gradual.ops.tables import shape_rule

register_rule_message(
    "slice-length",
    codes.BAD_ATTRIBUTE,
    "{op} got {name}={values}, but the input has only {rank} dims",
    "give at most one `{name}` entry per dim",
)
register_rule_message(
    "slice-axes-length",
    codes.BAD_ATTRIBUTE,
    "{op} got axes={axes}, but `{name}` has {actual} entries instead of one per axis",
    "give `begin`, `end` and `strides` one entry for each of the axes",
)
register_rule_message(
    "take-empty",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is empty, so {op} has nothing to pick its indices from",
    "an index needs an element to pick: `take` from an empty axis only with no indices",
)
register_rule_message(
    "take-out-of-range",
    codes.SHAPE_MISMATCH,
    '{op} with mode="fast" picks index {index} from dim {axis} of {arg}, which has {length} elements',
    "indices must lie in -{length}..{last} (ONNX's Gather makes any other an error)",
)
register_rule_message(
    "take-batch-dims",
    codes.BAD_ATTRIBUTE,
    "{op} got batch_dims={batch_dims}, which must lie between 0 and both the axis ({axis}) and the indices' rank ({rank})",
    "use fewer batch dims",
)


# take -------------------------------------------------------------------------------------------
@shape_rule("take")
def take(ctx: ShapeContext) -> Any:
    """`take(x, indices, axis, batch_dims, mode)`: with no axis, indices pick from the flattened
    x and the result has the indices' shape; otherwise the indices' dims (after the batch dims)
    replace dim `axis`. Known values are picked from a known vector. The contract holds the
    mode, the axis and batch_dims to their domains."""
    data, indices = ctx.operands()
    mode, axis = ctx.attr("mode"), ctx.attr("axis")
    if axis is None:
        if data.dims is not None:
            _require_source(ctx, data, None, indices, 0)
            if mode == "fast":
                _require_in_range(ctx, data, None, indices)
        return ctx.tensor(indices.dims, value=_taken_values(ctx, data, indices, mode))
    if data.dims is None or indices.dims is None:
        return ctx.tensor(None)
    axis = axis_index(axis, len(data.dims))
    batch = ctx.attr("batch_dims")
    if batch > axis:
        ctx.fail("take-batch-dims", batch_dims=batch, axis=axis, rank=len(indices.dims))
    _require_source(ctx, data, axis, indices, batch)
    if mode == "fast":
        _require_in_range(ctx, data, axis, indices)
    for i in range(batch):
        ctx.equal(data.dim(i), indices.dim(i))
    dims = list(data.dims[:axis]) + list(indices.dims[batch:]) + list(data.dims[axis + 1 :])
    value = _taken_values(ctx, data, indices, mode) if len(data.dims) == 1 else None
    return ctx.tensor(dims, value=value)


def _require_source(ctx: ShapeContext, data: TensorArg, axis: int | None, indices: TensorArg, batch: int) -> None:
    """Indices pick from something: a non-empty set of indices needs a non-empty axis (no
    mode maps an index into an empty one). Decided where both sizes are known: statically
    for static sizes, else by the rule's evaluation before the kernel runs."""
    if indices.dims is None or data.dims is None:
        return
    length = product(ctx, data.dims) if axis is None else data.dim(axis)
    if ctx.at_least(product(ctx, indices.dims[batch:]), 1) and ctx.at_least(length, 1) is False:
        ctx.fail("take-empty", arg=data, axis="every" if axis is None else axis)


def _require_in_range(ctx: ShapeContext, data: TensorArg, axis: int | None, indices: TensorArg) -> None:
    """The indices of mode "fast" point into the axis (negative ones from its end), or into
    the flattened data when there is no axis: decided where the indices are known (at the
    latest when the program runs)."""
    assert data.dims is not None
    length = ctx.static(product(ctx, data.dims) if axis is None else data.dim(axis))
    index = index_out_of_range(ctx, indices, length)
    if index is not None:
        assert length is not None
        ctx.fail(
            "take-out-of-range",
            arg=data,
            axis="every" if axis is None else axis,
            index=index,
            length=length,
            last=length - 1,
        )


def _taken_values(ctx: ShapeContext, data: TensorArg, indices: TensorArg, mode: str) -> list | None:
    if data.value is None or indices.value is None or not data.value:
        return None
    picked = []
    for i in indices.value:
        index = ctx.static(i)
        if index is None:
            return None
        resolved = _resolve_index(index, len(data.value), mode)
        if resolved is None:
            return None
        picked.append(data.value[resolved])
    return picked


def _resolve_index(index: int, length: int, mode: str) -> int | None:
    """Where an index points under take's mode (None: undefined)."""
    if mode == "wrap":
        return index % length
    if mode == "clip":
        return min(max(index, 0), length - 1)
    return index % length if -length <= index < length else None  # "fast": from the end where negative, as its kernel


# gather, gather_nd ------------------------------------------------------------------------------
register_rule_message(
    "gather-nd-row",
    codes.OP_CONSTRAINT,
    "{op} reads position {index} of dim {axis} of {arg}, which has {length} (row {row} of the indices addresses that dim)",
    "each row of the indices holds positions along its own dim: keep row i below dim batch_dims + i of the data",
)


@shape_rule("gather")
def gather(ctx: ShapeContext) -> Any:
    """`gather(x, axis, indices)`: the indices' shape (the contract gives both one rank and
    holds the indices' values to dim `axis`); along every other dim the indices read their own
    position of x, so that dim is at most x's."""
    data, indices = ctx.operands()
    if data.dims is not None and indices.dims is not None:
        axis = axis_index(ctx.attr("axis"), len(data.dims))
        for i, size in enumerate(data.dims):
            if i != axis:
                require_at_most(ctx, indices, i, size, "the indices read their own position along it")
    return ctx.tensor(indices.dims)


@shape_rule("gather_nd")
def gather_nd(ctx: ShapeContext) -> Any:
    """`gather_nd(x, indices, batch_dims, index_rank)`: indices (m, y...) pick from dims
    [batch_dims, batch_dims + m) of x; the result is (y..., x's remaining dims). m is the
    indices' first dim (it must be static) or `index_rank`; the contract relates it to the
    ranks, and each row of the indices is held to its own dim here."""
    data, indices = ctx.operands()
    batch = ctx.attr("batch_dims")
    if indices.dims is None:
        return ctx.tensor(None)
    depth = ctx.attr("index_rank")
    if depth is None:
        depth = ctx.static(indices.dim(0))
    if depth is None or data.dims is None:
        return ctx.tensor(None)
    for i in range(batch):
        ctx.equal(data.dim(i), indices.dim(i + 1))
    for row, bounds in enumerate(ctx.row_bounds(indices) or ()):
        length = ctx.static(data.dim(batch + row))
        if bounds is not None and length is not None and bounds[1] >= length:
            ctx.fail("gather-nd-row", arg=data, index=bounds[1], axis=batch + row, length=length, row=row)
    return ctx.tensor(list(indices.dims[1:]) + list(data.dims[batch + depth :]))


# strided_slice --------------------------------------------------------------------------------
class _End:
    """A slice endpoint: `offset` from the start (absolute) or from the end (relative)."""

    __slots__ = ("relative", "offset")

    def __init__(self, relative: bool, offset: int) -> None:
        self.relative = relative
        self.offset = offset


def _begin_end(begin: int | None, end: int | None, step: int) -> tuple:
    """Python's slice endpoints as _End values (None: the default for this direction)."""
    if step > 0:
        first = _End(False, 0) if begin is None or is_huge_negative(begin) else _endpoint(begin)
        last = _End(True, 0) if end is None or is_huge(end) else _endpoint(end)
    else:
        first = _End(True, -1) if begin is None or is_huge(begin) else _endpoint(begin)
        last = _End(False, -1) if end is None or is_huge_negative(end) else _endpoint(end)
    return first, last


def _endpoint(value: int) -> _End:
    return _End(True, value) if value < 0 else _End(False, value)


def _offset(d: Any, k: int) -> Any:
    return d + k if k >= 0 else d - (-k)


def slice_length(ctx: ShapeContext, d: Any, begin: int | None, end: int | None, step: int) -> Any:
    """The length of `x[begin:end:step]` along a dim of size d (None: omitted)."""
    size = ctx.static(d)
    if size is not None:
        return ctx.const(_length(size, begin, end, step))
    first, last = _begin_end(begin, end, step)
    upper, lower = (last, first) if step > 0 else (first, last)
    stride = abs(step)
    needs = [_need(e, step) for e in (first, last)]
    if not upper.relative and lower.relative:
        return ctx.unknown()  # the slice shrinks as the dim grows: nothing useful to say
    same_side = upper.relative == lower.relative
    if not ctx.exact(d):
        return _clamped_length(ctx, d, begin, end, step, same_side)
    if same_side:
        span = upper.offset - lower.offset
        if span <= 0:
            return ctx.const(0)
        if not _long_enough(ctx, d, max(needs)):
            return _clamped_length(ctx, d, begin, end, step, same_side)
        return ctx.const(-(-span // stride))
    k = upper.offset - lower.offset
    if not _long_enough(ctx, d, max(needs + [-k])):
        return _clamped_length(ctx, d, begin, end, step, same_side)
    return _offset(d, k + stride - 1) // stride if stride > 1 else _offset(d, k)


def _length(size: int, begin: int | None, end: int | None, step: int) -> int:
    return len(range(*slice(begin, end, step).indices(size)))


def _clamped_length(ctx: ShapeContext, d: Any, begin: int | None, end: int | None, step: int, bounded: bool) -> Any:
    """The length of a slice of a `?` or interval dim: NumPy clamps the slice to the dim, so it
    lies between the lengths at the dim's least and greatest size (the length never shrinks as
    the dim grows, where both ends count from the same side or the upper one from the end).
    Nothing is assumed of the dim, so nothing is checked: a short dim gives a short slice, as
    the same program with a static dim would."""
    lo, hi = ctx.bounds(d)
    least = _length(lo, begin, end, step)
    if hi is not None:
        most: int | None = _length(hi, begin, end, step)
    elif bounded:
        most = _length(_LONG_ENOUGH, begin, end, step)
    else:
        most = None
    return ctx.const(least) if least == most else ctx.bounded(least, most)


# a size past every endpoint a slice names literally (beyond it, a slice's length no longer
# grows) and short of the INT_MAX-like ends that mean "to the end" (at a larger size NumPy reads
# those literally: slice(-1, 2**31 - 1) of 2**62 elements is empty)
_LONG_ENOUGH = 2**31 - 2


def _need(end: _End, step: int) -> int:
    """How long the dim must be for this endpoint not to be clamped."""
    if end.relative:
        return -end.offset - (0 if step > 0 else 1)
    return end.offset + (0 if step > 0 else 1)


def _long_enough(ctx: ShapeContext, d: Any, need: int) -> bool:
    """Whether the exact length may be used: the dim is provably long enough, or it is a symbol
    of the program's own, which the length assumes is long enough (a short one would be clamped,
    which no polynomial says): an assumption checked where the dim came in. A claimed symbol (an
    exporter's dynamic dim, spec §6) is not constrained by a slice, which clamps: ONNX and torch
    run `x[:, :3]` on a sequence of 2, so its length is the clamped one's interval instead."""
    if need <= 0 or ctx.at_least(d, need):
        return True
    if ctx.claimed(d):
        return False
    ctx.assume_within(d, need, None, needed=False)
    return True


def _slice_plan(ctx: ShapeContext, rank: int, given: tuple | None = None) -> list:
    """(axis, begin, end, step) for every sliced axis, from begin/end/strides/axes/slice_mode
    (or, `given`, from the begin, end and strides of a dyn.strided_slice)."""
    if given is None:
        begin, end = list(ctx.attr("begin")), list(ctx.attr("end"))
        strides = list(ctx.attr("strides") or [1])
    else:
        begin, end, strides = given
    size_mode = ctx.attr("slice_mode") == "size"
    axes = ctx.attr("axes") if given is None else None  # dyn.strided_slice slices the leading dims
    if axes is None:
        chosen = list(range(max(len(begin), len(end), len(strides) if not size_mode else 0)))
    else:  # the contract gives begin and end one entry per axis, each axis in range
        chosen = distinct_axes(ctx, axes, rank, "axes")
        if len(strides) not in (1, len(chosen)):
            ctx.fail("slice-axes-length", axes=show_ints(axes), name="strides", actual=len(strides))
    plan = []
    for i, axis in enumerate(chosen):
        b = begin[i] if i < len(begin) else None
        e = end[i] if i < len(end) else None
        step = 1 if size_mode else (strides[i] if i < len(strides) else strides[-1] if axes is not None else 1)
        if step == 0:  # a dyn.strided_slice's strides are values (an attribute's: its contract)
            ctx.fail("attribute-range", name="strides", value=show_ints(strides), needed="non-zero")
        if size_mode and e is not None:
            e = _size_to_end(b or 0, e)
        plan.append((axis, b, e, step))
    return plan


def _size_to_end(begin: int, size: int) -> int | None:
    """slice_mode="size": the end of `size` elements from `begin` (None: to the end, for a
    size of -1 or a negative begin whose size reaches the end)."""
    if size < 0 or (begin < 0 and begin + size >= 0):
        return None
    return begin + size


@shape_rule("strided_slice")
def strided_slice(ctx: ShapeContext) -> Any:
    """`strided_slice(x, begin, end, strides, axes, slice_mode)` with Relay's conventions:
    without `axes` the lists apply to the leading dims; `slice_mode="size"` reads `end` as
    sizes (-1: to the end); INT_MAX-like values mean "to the end"."""
    (data,) = ctx.operands()
    if data.dims is None:  # the contract asks the rank its lists and axes need
        return ctx.tensor(None)
    rank = len(data.dims)
    dims = list(data.dims)
    value = list(data.value) if data.value is not None and rank == 1 else None
    picks = [list(range(ctx.static(d) or 0)) for d in data.dims]
    for axis, b, e, step in _slice_plan(ctx, rank):
        dims[axis] = slice_length(ctx, data.dim(axis), b, e, step)
        picks[axis] = picks[axis][slice(b, e, step)]
        if value is not None:
            value = value[slice(b, e, step)]
    if rank > 1:
        value = rearranged_value(ctx, data, picks, range(rank))
    return ctx.tensor(dims, value=value)


@shape_rule("dyn_strided_slice")
def dyn_strided_slice(ctx: ShapeContext) -> Any:
    """`dyn.strided_slice(x, begin, end, strides)`: strided_slice whose lists are 1-D tensors
    (the contract holds their lengths to the rank); while their values are unknown each sliced
    dim is only known to be at most its input's."""
    data, begin, end, strides = ctx.operands()
    if data.dims is None:
        return ctx.tensor(None)
    rank = len(data.dims)
    known = [known_ints(ctx, v) for v in (begin, end, strides)]
    dims = list(data.dims)
    if known[0] is not None and known[1] is not None and known[2] is not None:
        for axis, b, e, step in _slice_plan(ctx, rank, (known[0], known[1], known[2])):
            dims[axis] = slice_length(ctx, data.dim(axis), b, e, step)
        return ctx.tensor(dims)
    count = ctx.static(begin.dim(0))
    for axis in range(rank if count is None else min(count, rank)):
        dims[axis] = ctx.bounded(0, data.dim(axis))
    return ctx.tensor(dims)


# one_hot ----------------------------------------------------------------------------------------
@shape_rule("one_hot")
def one_hot(ctx: ShapeContext) -> Any:
    """`one_hot(indices, on_value, off_value, depth, axis, dtype)`: a new dim of size `depth`
    at `axis` (-1: last); the contract holds depth and axis to their domains."""
    indices = ctx.operand(0)
    return _one_hot(ctx, indices, ctx.const(ctx.attr("depth")))


@shape_rule("dyn_one_hot")
def dyn_one_hot(ctx: ShapeContext) -> Any:
    """`dyn.one_hot(indices, on_value, off_value, depth)`: one_hot whose depth is a scalar
    tensor (its value, when known, is the new dim)."""
    return _one_hot(ctx, ctx.operand(0), _depth_dim(ctx, ctx.operand(3)))


def _depth_dim(ctx: ShapeContext, depth: TensorArg) -> Any:
    """The new dim of dyn.one_hot: the depth tensor's value (a size or a symbolic dim; the
    contract holds a known one to at least 0), else `?`."""
    if not depth.value:
        return ctx.unknown()
    value = depth.value[0]
    known = ctx.static(value)
    return value if known is None else ctx.const(known)


def _one_hot(ctx: ShapeContext, indices: TensorArg, depth: Any) -> Any:
    dtype = ctx.attr("dtype")
    if indices.dims is None:
        return ctx.tensor(None, dtype)
    axis = axis_index(ctx.attr("axis"), len(indices.dims) + 1)
    dims = list(indices.dims)
    dims.insert(axis, depth)
    return ctx.tensor(dims, dtype)
