"""Indexing operators: take (Gather), gather, gather_nd, strided_slice (Slice) and one_hot.

take and strided_slice keep the known values of a shape vector (Shape -> Gather / Slice).
strided_slice is exact on static dims (NumPy's slice semantics, so an empty slice has length
0). On other dims it is optimistic like the rest of the checker: it assumes the dim is long
enough for the slice (a runtime check when the dim is `?` or an interval) and computes the
length symbolically, so `x[:, 1:]` of `(b, s)` is `(b, s - 1)` and `x[:, -1:]` is `(b, 1)`.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, axes_rank, axis_rank, new_axis_rank, normalize_axis, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    distinct_axes,
    is_huge,
    is_huge_negative,
    known_ints,
    new_axis,
    rearranged_value,
    require_choice,
    require_positive,
    require_scalar,
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
    replace dim `axis`. Known values are picked from a known vector."""
    data, indices = ctx.operands()
    mode = require_choice(ctx, "mode", ctx.attr("mode"), ("clip", "wrap", "fast"))
    axis = ctx.attr("axis")
    if axis is None:
        if data.dims is not None:
            _require_source(ctx, data, None, indices, 0)
        return ctx.tensor(indices.dims, value=_taken_values(ctx, data, indices, mode))
    if data.dims is None:
        ctx.require_rank_at_least(data, max(axis_rank(axis), ctx.attr("batch_dims") + 1))
    if data.dims is None or indices.dims is None:
        return ctx.tensor(None)
    axis = normalize_axis(ctx, axis, data.rank)
    batch = _batch_dims(ctx, axis, indices.rank)
    _require_source(ctx, data, axis, indices, batch)
    if mode == "fast":
        _require_in_range(ctx, data, axis, indices)
    for i in range(batch):
        ctx.equal(data.dim(i), indices.dim(i))
    dims = list(data.dims[:axis]) + list(indices.dims[batch:]) + list(data.dims[axis + 1 :])
    value = _taken_values(ctx, data, indices, mode) if data.rank == 1 else None
    return ctx.tensor(dims, value=value)


def _require_source(ctx: ShapeContext, data: TensorArg, axis: Optional[int], indices: TensorArg, batch: int) -> None:
    """Indices pick from something: a non-empty set of indices needs a non-empty axis (no
    mode maps an index into an empty one). Decided where both sizes are known: statically
    for static sizes, else by the rule's evaluation before the kernel runs."""
    if indices.dims is None:
        return
    length = product(ctx, data.dims) if axis is None else data.dim(axis)
    if ctx.at_least(product(ctx, indices.dims[batch:]), 1) and ctx.at_least(length, 1) is False:
        ctx.fail("take-empty", arg=data, axis="every" if axis is None else axis)


def _require_in_range(ctx: ShapeContext, data: TensorArg, axis: int, indices: TensorArg) -> None:
    """Known indices of mode "fast" must point into the axis (negative ones from its end)."""
    length = ctx.static(data.dim(axis))
    if indices.value is None or length is None:
        return
    for item in indices.value:
        index = ctx.static(item)
        if index is not None and not -length <= index < length:
            ctx.fail("take-out-of-range", arg=data, axis=axis, index=index, length=length, last=length - 1)


def _batch_dims(ctx: ShapeContext, axis: int, rank: int) -> int:
    batch = ctx.attr("batch_dims")
    if batch < 0:
        batch += rank
    if not 0 <= batch <= min(axis, rank):
        ctx.fail("take-batch-dims", batch_dims=ctx.attr("batch_dims"), axis=axis, rank=rank)
    return batch


def _taken_values(ctx: ShapeContext, data: TensorArg, indices: TensorArg, mode: str) -> Optional[list]:
    if data.value is None or indices.value is None or not data.value:
        return None
    picked = []
    for i in indices.value:
        index = ctx.static(i)
        if index is None:
            return None
        index = _resolve_index(index, len(data.value), mode)
        if index is None:
            return None
        picked.append(data.value[index])
    return picked


def _resolve_index(index: int, length: int, mode: str) -> Optional[int]:
    """Where an index points under take's mode (None: undefined)."""
    if mode == "wrap":
        return index % length
    if mode == "clip":
        return min(max(index, 0), length - 1)
    return index % length if -length <= index < length else None  # "fast": from the end where negative, as its kernel


# gather, gather_nd ------------------------------------------------------------------------------
register_rule_message(
    "gather-nd-indices",
    codes.RANK_MISMATCH,
    "{arg} has rank {rank}, but {op} needs indices of rank at least {needed} (a dim of addresses, then the batch dims)",
    "give the indices a leading dim listing, for each result element, its position in the data",
)
register_rule_message(
    "gather-nd-depth",
    codes.OP_CONSTRAINT,
    "{op} addresses {depth} dims after {batch} batch dims, but {arg} has only {rank}",
    "give the indices' first dim at most as many entries as the data has dims after the batch dims",
)


@shape_rule("gather")
def gather(ctx: ShapeContext) -> Any:
    """`gather(x, axis, indices)`: the indices' shape; both have the same rank, and axis names
    a dim of x."""
    data, indices = ctx.operands()
    if data.dims is None and indices.dims is None:  # both must reach axis (checked while unknown)
        for arg in (data, indices):
            ctx.require_rank_at_least(arg, axis_rank(ctx.attr("axis")))
        return ctx.tensor(None)
    rank = data.rank if data.dims is not None else indices.rank
    for arg in (data, indices):
        ctx.require_rank(arg, rank)
    normalize_axis(ctx, ctx.attr("axis"), rank)
    return ctx.tensor(indices.dims)


@shape_rule("gather_nd")
def gather_nd(ctx: ShapeContext) -> Any:
    """`gather_nd(x, indices, batch_dims, index_rank)`: indices (m, y...) pick from dims
    [batch_dims, batch_dims + m) of x; the result is (y..., x's remaining dims). m is the
    indices' first dim (it must be static) or `index_rank`."""
    data, indices = ctx.operands()
    batch = require_positive(ctx, "batch_dims", ctx.attr("batch_dims"), allow_zero=True)
    if indices.dims is None:
        ctx.require_rank_at_least(indices, 1 + batch)
        ctx.require_rank_at_least(data, batch + (ctx.attr("index_rank") or 0))
        return ctx.tensor(None)
    if indices.rank < 1 + batch:
        ctx.fail("gather-nd-indices", arg=indices, rank=indices.rank, needed=1 + batch)
    depth = ctx.attr("index_rank")
    if depth is None:
        depth = ctx.static(indices.dim(0))
    else:
        ctx.equal(indices.dim(0), ctx.const(require_positive(ctx, "index_rank", depth)))
    if depth is None or data.dims is None:
        return ctx.tensor(None)
    if batch + depth > data.rank:
        ctx.fail("gather-nd-depth", arg=data, depth=depth, batch=batch, rank=data.rank)
    for i in range(batch):
        ctx.equal(data.dim(i), indices.dim(i + 1))
    return ctx.tensor(list(indices.dims[1:]) + list(data.dims[batch + depth :]))


# strided_slice --------------------------------------------------------------------------------
class _End:
    """A slice endpoint: `offset` from the start (absolute) or from the end (relative)."""

    __slots__ = ("relative", "offset")

    def __init__(self, relative: bool, offset: int) -> None:
        self.relative = relative
        self.offset = offset


def _begin_end(begin: Optional[int], end: Optional[int], step: int) -> tuple:
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


def slice_length(ctx: ShapeContext, d: Any, begin: Optional[int], end: Optional[int], step: int) -> Any:
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


def _length(size: int, begin: Optional[int], end: Optional[int], step: int) -> int:
    return len(range(*slice(begin, end, step).indices(size)))


def _clamped_length(
    ctx: ShapeContext, d: Any, begin: Optional[int], end: Optional[int], step: int, bounded: bool
) -> Any:
    """The length of a slice of a `?` or interval dim: NumPy clamps the slice to the dim, so it
    lies between the lengths at the dim's least and greatest size (the length never shrinks as
    the dim grows, where both ends count from the same side or the upper one from the end).
    Nothing is assumed of the dim, so nothing is checked: a short dim gives a short slice, as
    the same program with a static dim would."""
    lo, hi = ctx.bounds(d)
    least = _length(lo, begin, end, step)
    if hi is not None:
        most: Optional[int] = _length(hi, begin, end, step)
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
    exporter's dynamic dim, SPEC 6) is not constrained by a slice, which clamps: ONNX and torch
    run `x[:, :3]` on a sequence of 2, so its length is the clamped one's interval instead."""
    if need <= 0 or ctx.at_least(d, need):
        return True
    if ctx.claimed(d):
        return False
    ctx.assume_within(d, need, None, needed=False)
    return True


def _slice_plan(ctx: ShapeContext, rank: int, given: Optional[tuple] = None) -> list:
    """(axis, begin, end, step) for every sliced axis, from begin/end/strides/axes/slice_mode
    (or, `given`, from the begin, end and strides of a dyn.strided_slice)."""
    if given is None:
        begin, end = list(ctx.attr("begin")), list(ctx.attr("end"))
        strides = list(ctx.attr("strides") or [1])
    else:
        begin, end, strides = given
    size_mode = require_choice(ctx, "slice_mode", ctx.attr("slice_mode"), ("end", "size")) == "size"
    axes = ctx.attr("axes")
    if axes is None:
        for name, values in (("begin", begin), ("end", end), ("strides", strides)):
            if len(values) > rank:
                ctx.fail("slice-length", name=name, values=show_ints(values), rank=rank)
        chosen = list(range(max(len(begin), len(end), len(strides) if not size_mode else 0)))
    else:
        chosen = distinct_axes(ctx, axes, rank, "axes")
        for name, values in (("begin", begin), ("end", end), ("strides", strides)):
            if len(values) != len(chosen) and not (name == "strides" and len(values) == 1):
                ctx.fail("slice-axes-length", axes=show_ints(axes), name=name, actual=len(values))
    plan = []
    for i, axis in enumerate(chosen):
        b = begin[i] if i < len(begin) else None
        e = end[i] if i < len(end) else None
        step = 1 if size_mode else (strides[i] if i < len(strides) else strides[-1] if axes is not None else 1)
        if step == 0:
            ctx.fail("attribute-range", name="strides", value=show_ints(strides), needed="non-zero")
        if size_mode and e is not None:
            e = _size_to_end(b or 0, e)
        plan.append((axis, b, e, step))
    return plan


def _size_to_end(begin: int, size: int) -> Optional[int]:
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
    if data.dims is None:
        plan = _slice_plan(ctx, 1 << 30)
        ctx.require_rank_at_least(data, axes_rank([axis for axis, *_ in plan]))
        return ctx.tensor(None)
    dims = list(data.dims)
    value = list(data.value) if data.value is not None and data.rank == 1 else None
    picks = [list(range(ctx.static(d) or 0)) for d in data.dims]
    for axis, b, e, step in _slice_plan(ctx, data.rank):
        dims[axis] = slice_length(ctx, data.dim(axis), b, e, step)
        picks[axis] = picks[axis][slice(b, e, step)]
        if value is not None:
            value = value[slice(b, e, step)]
    if data.rank > 1:
        value = rearranged_value(ctx, data, picks, range(data.rank))
    return ctx.tensor(dims, value=value)


@shape_rule("dyn_strided_slice")
def dyn_strided_slice(ctx: ShapeContext) -> Any:
    """`dyn.strided_slice(x, begin, end, strides)`: strided_slice whose lists are 1-D tensors;
    while their values are unknown each sliced dim is only known to be at most its input's."""
    data, begin, end, strides = ctx.operands()
    for vector in (begin, end, strides):
        ctx.require_rank(vector, 1)
    lengths = [ctx.static(v.dim(0)) for v in (begin, end, strides)]
    longest = max((n for n in lengths if n is not None), default=0)  # each names its leading dims
    if data.dims is None:
        ctx.require_rank_at_least(data, longest)
        return ctx.tensor(None)
    if longest > data.rank:
        name, n = next((name, n) for name, n in zip(("begin", "end", "strides"), lengths) if n == longest)
        ctx.fail("slice-length", name=name, values=f"a vector of {n}", rank=data.rank)
    known = [known_ints(ctx, v) for v in (begin, end, strides)]
    dims = list(data.dims)
    if all(k is not None for k in known):
        for axis, b, e, step in _slice_plan(ctx, data.rank, tuple(known)):
            dims[axis] = slice_length(ctx, data.dim(axis), b, e, step)
        return ctx.tensor(dims)
    count = ctx.static(begin.dim(0))
    for axis in range(data.rank if count is None else min(count, data.rank)):
        dims[axis] = ctx.bounded(0, data.dim(axis))
    return ctx.tensor(dims)


# one_hot ----------------------------------------------------------------------------------------
@shape_rule("one_hot")
def one_hot(ctx: ShapeContext) -> Any:
    """`one_hot(indices, on_value, off_value, depth, axis, dtype)`: a new dim of size `depth`
    at `axis` (-1: last); on/off values are scalars."""
    indices, on_value, off_value = ctx.operands()
    depth = require_positive(ctx, "depth", ctx.attr("depth"), allow_zero=True)
    return _one_hot(ctx, indices, on_value, off_value, ctx.const(depth))


@shape_rule("dyn_one_hot")
def dyn_one_hot(ctx: ShapeContext) -> Any:
    """`dyn.one_hot(indices, on_value, off_value, depth)`: one_hot whose depth is a scalar
    tensor (its value, when known, is the new dim)."""
    indices, on_value, off_value, depth = ctx.operands()
    require_scalar(ctx, depth)
    return _one_hot(ctx, indices, on_value, off_value, _depth_dim(ctx, depth))


def _depth_dim(ctx: ShapeContext, depth: TensorArg) -> Any:
    """The new dim of dyn.one_hot: the depth tensor's value (a size or a symbolic dim), else `?`."""
    if not depth.value:
        return ctx.unknown()
    value = depth.value[0]
    known = ctx.static(value)
    if known is None:
        return value
    if known < 0:
        ctx.fail("attribute-range", name="depth", value=known, needed="at least 0")
    return ctx.const(known)


def _one_hot(ctx: ShapeContext, indices: TensorArg, on_value: TensorArg, off_value: TensorArg, depth: Any) -> Any:
    require_scalar(ctx, on_value)
    require_scalar(ctx, off_value)
    dtype = ctx.attr("dtype")
    if indices.dims is None:
        ctx.require_rank_at_least(indices, new_axis_rank(ctx.attr("axis")))
        return ctx.tensor(None, dtype)
    axis = new_axis(ctx, ctx.attr("axis"), indices.rank)
    dims = list(indices.dims)
    dims.insert(axis, depth)
    return ctx.tensor(dims, dtype)
