"""Shape rules of the ONNX operators declared in stdlib/onnx.rly (the ONNX frontend's gaps).

Like every rule they run in both domains: symbolic in the checker, on concrete sizes in the
runtime. Operators that take ONNX's tensor inputs where Relay takes attributes (Slice's
starts, Pad's pads, TopK's k, ...) read those tensors' known values (shape values, spec §3.7):
a value known in the checker gives exact dims, an unknown one gives `?` dims of the right rank,
and the runtime always knows it.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import (
    RuleFailure,
    ShapeContext,
    TensorArg,
    axes_rank,
    axis_rank,
    new_axis_rank,
    normalize_axis,
    product,
)
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    cast_values,
    distinct_axes,
    is_huge,
    keeps_values,
    known_dims,
    known_ints,
    require_at_most,
    require_entries,
    require_finite,
    require_length,
    require_outputs,
    require_positive,
    require_rank_of,
    scaled_size,
    value_element,
    value_subtract,
)
from gradual.ops.rules.conv import grouped, window_output
from gradual.ops.rules.data import shape_from_value
from gradual.ops.rules.elementwise import broadcast_dims
from gradual.ops.rules.index import slice_length
from gradual.ops.rules.shape import broadcast_into
from gradual.ops.tables import RULES, shape_rule

VALUE_LIMIT = 64

register_rule_message(
    "einsum-equation",
    codes.BAD_ATTRIBUTE,
    '{op} cannot read equation="{equation}": {problem}',
    'write one comma-separated term per operand, e.g. "ij,jk->ik"',
)
register_rule_message(
    "not-divisible",
    codes.SHAPE_MISMATCH,
    "dim {axis} of {arg} is {dim}, which {op} needs to be a multiple of {factor}",
    "make dim {axis} a multiple of {factor}",
)
register_rule_message(
    "class-out-of-range",
    codes.OP_CONSTRAINT,
    "{op} got a class index in {low} .. {high} in {arg}, but the input has {classes} classes",
    "give each target a class in 0 .. {classes} - 1, or the ignore_index",
)
register_rule_message(
    "tuple-index-out-of-range",
    codes.OP_CONSTRAINT,
    "{op} got entry {entry} of an index tuple in {low} .. {high} in {arg}, but dim {axis} of the data has {length}",
    "entry {entry} of each index tuple must lie in -{length} .. {length} - 1",
)
register_rule_message(
    "slice-steps",
    codes.OP_CONSTRAINT,
    "{op} got a step of 0 for axis {axis}",
    "use a non-zero step",
)


# helpers ------------------------------------------------------------------------------------------
def vector_length(ctx: ShapeContext, arg: TensorArg) -> Optional[int]:
    """The static length of a vector argument (a scalar counts as one element)."""
    if arg.value is not None:
        return len(arg.value)
    if arg.dims is None or len(arg.dims) > 1:
        return None
    return 1 if arg.rank == 0 else ctx.static(arg.dim(0))


def _attr_list(ctx: ShapeContext, name: str, count: int, default: int, minimum: int) -> list:
    values = ctx.attr(name)
    if values is None:
        return [default] * count
    values = list(values)
    require_length(ctx, name, values, (count,))
    require_entries(ctx, name, values, allow_zero=minimum == 0)
    return values


# constants and dtypes -----------------------------------------------------------------------------
@shape_rule("onnx_constant")
def constant(ctx: ShapeContext) -> Any:
    """`onnx.constant(values, shape, dtype)`: the shape is the attribute; small integer vectors
    (and scalars) carry their elements as shape values."""
    shape = require_entries(ctx, "shape", list(ctx.attr("shape")), allow_zero=True)
    values = ctx.attr("values")
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    count = 1
    for s in shape:
        count *= s
    if len(values) != count:
        ctx.fail("attribute-length", name="values", expected=count, actual=len(values))
    dtype = ctx.attr("dtype")
    value = None
    if len(shape) <= 1 and count <= VALUE_LIMIT and keeps_values(dtype):
        value = cast_values(ctx, [value_element(ctx, int(v)) for v in values], dtype)
    return ctx.tensor([ctx.const(s) for s in shape], dtype, value=value)


@shape_rule("onnx_eye_like")
def eye_like(ctx: ShapeContext) -> Any:
    """`onnx.eye_like(x, k, dtype)`: a matrix shaped like x (the declaration holds it to rank 2)."""
    (data,) = ctx.operands()
    return ctx.tensor(data.dims, ctx.attr("dtype") or data.dtype)


# linear algebra ------------------------------------------------------------------------------------
@shape_rule("onnx_matmul")
def matmul(ctx: ShapeContext) -> Any:
    """`onnx.matmul(a, b)` as NumPy: a 1-D a is (1, k) and a 1-D b is (k, 1), the added dim
    dropped from the result; batch dims broadcast."""
    a, b = ctx.operands()
    if a.dims is None or b.dims is None:
        return ctx.tensor(None)  # the declaration requires a rank of at least 1 of each
    k_a = a.dim(-1)
    k_b = b.dim(0) if b.rank == 1 else b.dim(-2)
    ctx.equal(k_a, k_b, symbol="k")
    batch = broadcast_dims(ctx, [list(a.dims[:-2]), list(b.dims[:-2])])
    rows = [a.dim(-2)] if len(a.dims) > 1 else []
    cols = [b.dim(-1)] if len(b.dims) > 1 else []
    return ctx.tensor(batch + rows + cols)


def _einsum_terms(ctx: ShapeContext, equation: str, count: int) -> tuple:
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != count:
        ctx.fail("einsum-equation", equation=equation, problem=f"it has {len(terms)} terms for {count} operands")
    for term in terms + ([rhs] if arrow else []):
        letters = term.replace("...", "")
        if not all(c.isalpha() for c in letters) or "." in letters:
            ctx.fail("einsum-equation", equation=equation, problem=f"`{term}` is not made of letters and `...`")
    if not arrow:
        seen = [c for t in terms for c in t.replace("...", "")]
        rhs = ("..." if any("..." in t for t in terms) else "") + "".join(
            sorted(c for c in set(seen) if seen.count(c) == 1)
        )
    return terms, rhs


@shape_rule("onnx_einsum")
def einsum(ctx: ShapeContext) -> Any:
    """`onnx.einsum((a, b, ...), equation)`: each letter names one size (equal wherever it
    appears); `...` dims broadcast; the output lists its letters (implicitly: the letters seen
    once, in alphabetical order, after the `...` dims)."""
    fields = ctx.list_operand(0)
    if fields is None:
        return ctx.tensor(None)
    dtype = fields[0].dtype
    for f in fields[1:]:
        dtype = ctx.same_dtype(dtype, f.dtype)
    terms, rhs = _einsum_terms(ctx, ctx.attr("equation"), len(fields))
    for term, f in zip(terms, fields):
        named = len(term.replace("...", ""))
        if f.dims is None and "..." in term:
            ctx.require_rank_at_least(f, named)
        elif f.dims is None:
            ctx.require_rank(f, named)  # its term gives its rank
    if any(f.dims is None for f in fields):
        return ctx.tensor(None, dtype)
    sizes: dict = {}
    ellipses = []
    for term, f in zip(terms, fields):
        ellipses.append(_einsum_operand(ctx, term, f, sizes))
    batch = broadcast_dims(ctx, ellipses)
    dims: list[Any] = []
    for c in rhs.replace("...", "\0"):
        if c == "\0":
            dims.extend(batch)
        elif c not in sizes:
            ctx.fail(
                "einsum-equation", equation=ctx.attr("equation"), problem=f"the output letter `{c}` names no input dim"
            )
        else:
            dims.append(sizes[c])
    return ctx.tensor(dims, dtype)


def _einsum_operand(ctx: ShapeContext, term: str, arg: TensorArg, sizes: dict) -> list:
    """Bind one operand's letters to its dims; returns the dims `...` stands for."""
    head, dots, tail = term.partition("...")
    named = len(head) + len(tail)
    dims = known_dims(arg)
    rank = len(dims)
    if rank < named or (not dots and rank != named):
        ctx.fail("rank", arg=arg, expected=named, actual=rank)
    pairs = list(zip(head, dims[: len(head)])) + list(zip(tail, dims[rank - len(tail) :]))
    for letter, d in pairs:
        sizes[letter] = ctx.equal(sizes[letter], d, symbol=letter) if letter in sizes else d
    return list(dims[len(head) : rank - len(tail)]) if dots else []


# shapes ----------------------------------------------------------------------------------------------
@shape_rule("onnx_flatten")
def flatten(ctx: ShapeContext) -> Any:
    """`onnx.flatten(x, axis)`: the dims before axis multiply into the first, the rest into the
    second (axis 0 gives (1, numel))."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, abs(ctx.attr("axis")))
        return ctx.tensor([ctx.unknown(), ctx.unknown()], value=data.value)
    axis = ctx.attr("axis")
    if not -len(data.dims) <= axis <= len(data.dims):
        ctx.fail("axis-out-of-range", axis=axis, rank=data.rank, name="axis")
    axis = axis + data.rank if axis < 0 else axis
    return ctx.tensor([product(ctx, data.dims[:axis]), product(ctx, data.dims[axis:])], value=data.value)


@shape_rule("onnx_unsqueeze")
def unsqueeze(ctx: ShapeContext) -> Any:
    """`onnx.unsqueeze(x, axes)`: dims of 1 at the output positions `axes` (all dims `?` while
    the axes are not known but their count is)."""
    data, axes_arg = ctx.operands()
    count = vector_length(ctx, axes_arg)
    if data.dims is None or count is None:
        axes = known_ints(ctx, axes_arg)
        if data.dims is None and count is not None and axes is not None:
            # every axis names a dim of the result, of rank + count dims
            ctx.require_rank_at_least(data, max((new_axis_rank(a) - count + 1 for a in axes), default=0))
        return ctx.tensor(None, value=data.value)
    rank = len(data.dims) + count
    axes = known_ints(ctx, axes_arg)
    if axes is None:
        return ctx.tensor([ctx.unknown() for _ in range(rank)])
    chosen = set(distinct_axes(ctx, axes, rank, "axes"))
    rest = iter(data.dims)
    dims = [ctx.const(1) if i in chosen else next(rest) for i in range(rank)]
    return ctx.tensor(dims, value=data.value)


@shape_rule("onnx_squeeze")
def squeeze(ctx: ShapeContext) -> Any:
    """`onnx.squeeze(x, axes)`: the listed dims, which must be 1, are removed; an empty axes
    vector removes every dim of 1 (as ONNX Runtime reads it: axes not given)."""
    data, axes_arg = ctx.operands()
    count = vector_length(ctx, axes_arg)
    if count == 0 and data.dims is not None:
        sizes = [ctx.static(d) for d in data.dims]
        if None in sizes:
            return ctx.tensor(None, value=data.value)  # which dims are 1 is known only at runtime
        return ctx.tensor([d for d, size in zip(data.dims, sizes) if size != 1], value=data.value)
    if data.dims is None or count is None:
        if data.dims is None:
            ctx.require_rank_at_least(data, axes_rank(known_ints(ctx, axes_arg)))
        return ctx.tensor(None, value=data.value)
    axes = known_ints(ctx, axes_arg)
    if axes is None:
        return ctx.tensor([ctx.unknown() for _ in range(len(data.dims) - count)])
    chosen = set(distinct_axes(ctx, axes, len(data.dims), "axes"))
    for a in sorted(chosen):
        ctx.equal(data.dim(a), ctx.const(1))
    return ctx.tensor([d for i, d in enumerate(data.dims) if i not in chosen], value=data.value)


@shape_rule("onnx_expand")
def expand(ctx: ShapeContext) -> Any:
    """`onnx.expand(x, shape)`: x and the shape broadcast both ways (the shape may hold 1s
    where x is larger, and fewer dims)."""
    data, shape = ctx.operands()
    target = shape_from_value(ctx, shape)
    if target is None or data.dims is None:
        return ctx.tensor(None)
    return ctx.tensor(broadcast_dims(ctx, [list(data.dims), list(target)]), value=_expanded_value(ctx, data, target))


def _expanded_value(ctx: ShapeContext, data: TensorArg, target: list) -> Optional[list]:
    if data.value is None or len(data.value) != 1 or len(target) != 1:
        return None
    length = ctx.static(target[0])
    return None if length is None or length > VALUE_LIMIT else [data.value[0]] * length


def _slice_axes(ctx: ShapeContext, rank: int, axes: TensorArg, count: Optional[int]) -> Optional[list]:
    """The sliced axes: the vector's values, or the leading `count` axes when it is empty."""
    length = vector_length(ctx, axes)
    if length == 0:
        return None if count is None else list(range(count))
    values = known_ints(ctx, axes)
    return None if values is None else distinct_axes(ctx, values, rank, "axes")


@shape_rule("onnx_slice")
def onnx_slice(ctx: ShapeContext) -> Any:
    """`onnx.slice(x, starts, ends, axes, steps)`: ONNX Slice-10+ (ends clamp; INT_MAX means
    the end); an axis whose bounds are not known gets a `?` length."""
    data, starts, ends, axes, steps = ctx.operands()
    if data.dims is None:
        given_axes = known_ints(ctx, axes)
        ctx.require_rank_at_least(
            data, (vector_length(ctx, starts) or 0) if vector_length(ctx, axes) == 0 else axes_rank(given_axes)
        )
        return ctx.tensor(None)
    begin, end = known_ints(ctx, starts), known_ints(ctx, ends)
    count = vector_length(ctx, starts)
    if vector_length(ctx, axes) == 0 and count is not None and count > len(data.dims):  # the leading dims
        ctx.fail("rank-too-small", arg=data, needed=count, rank=data.rank)
    chosen = _slice_axes(ctx, len(data.dims), axes, count)
    dims = list(data.dims)
    if chosen is None:
        return ctx.tensor([ctx.unknown() for _ in dims])
    stride = [1] * len(chosen) if vector_length(ctx, steps) == 0 else known_ints(ctx, steps)
    value = list(data.value) if data.value is not None and data.rank == 1 else None
    for i, axis in enumerate(chosen):
        if begin is None or end is None or stride is None or i >= min(len(begin), len(end), len(stride)):
            dims[axis] = _symbolic_slice(ctx, data.dim(axis), starts, ends, stride, i)
            value = None
            continue
        if stride[i] == 0:
            ctx.fail("slice-steps", axis=axis)
        dims[axis] = slice_length(ctx, data.dim(axis), begin[i], end[i], stride[i])
        if value is not None:
            value = value[slice(begin[i], end[i], stride[i])]
    return ctx.tensor(dims, value=value)


def _symbolic_slice(
    ctx: ShapeContext, d: Any, starts: TensorArg, ends: TensorArg, stride: Optional[list], i: int
) -> Any:
    """`x[b:e]` along a dim of static size d where e is a shape value (`seq`) and b a constant:
    ONNX clamps e to d, so the length is e - b where b <= e <= d is provable and at most d - b
    otherwise (position buffers are sliced so, `positions[:, :seq]`: a `seq` past the buffer
    gets the whole buffer, which is what the runtime computes; what needs it to be `seq` long
    checks that where it does)."""
    size = ctx.static(d)
    if (
        stride is None
        or i >= len(stride)
        or stride[i] != 1
        or starts.value is None
        or ends.value is None
        or i >= min(len(starts.value), len(ends.value))
    ):
        return ctx.unknown()
    begin, end = ctx.static(starts.value[i]), ends.value[i]
    if size is None:
        return _slice_within(ctx, d, starts.value[i], end)
    if begin is None or not 0 <= begin <= size or isinstance(end, int) or not ctx.exact(end):
        return ctx.unknown()
    most = ctx.bounds(end)[1]  # (an end past a 0-long buffer is no negative length to compute)
    if ctx.at_least(end, begin) and most is not None and most <= size:
        return end - begin
    return ctx.bounded(0, size - begin)


def _slice_within(ctx: ShapeContext, d: Any, begin: Any, end: Any) -> Any:
    """`x[b:e]` along a symbolic dim d where b and e are shape values or constants (an INT_MAX
    end is d): e - b where 0 <= b <= e <= d is provable, so nothing clamps (a causal conv's
    `[..., :seq]` of its `seq + 3` outputs is `seq`; `x.narrow(1, t // 4, t // 2)` is
    `x[:, t // 4:t // 4 + t // 2]`, `t // 2` long); else `?`."""
    if isinstance(begin, int) or isinstance(end, int) or not (ctx.exact(begin) and ctx.exact(end) and ctx.exact(d)):
        return ctx.unknown()
    last = ctx.static(end)
    if last is not None and is_huge(last):
        end = d
    try:
        room = value_subtract(ctx, d, end)
        span = value_subtract(ctx, end, begin)
    except (ValueError, RuleFailure):
        return ctx.unknown()
    if ctx.at_least(begin, 0) and ctx.at_least(span, 0) and ctx.at_least(room, 0):
        return span
    return ctx.unknown()


@shape_rule("onnx_mod")
def onnx_mod(ctx: ShapeContext) -> Any:
    """`onnx.mod(a, b, fmod)`: a and b broadcast; shape values keep their remainder (the
    divisor's sign without fmod, as Python's %; the dividend's with it), as in the exporters'
    padding to a multiple, `(4 - seq % 4) % 4`."""
    return RULES["broadcast_mod" if ctx.attr("fmod") else "broadcast_floor_mod"](ctx)


@shape_rule("onnx_tile")
def tile(ctx: ShapeContext) -> Any:
    """`onnx.tile(x, repeats)`: dim i is multiplied by repeats[i] (one entry per dim)."""
    data, repeats = ctx.operands()
    reps = known_ints(ctx, repeats)
    if data.dims is None and reps is not None:
        ctx.require_rank(data, len(reps))  # one entry per dim
    if data.dims is None:
        return ctx.tensor(None)
    if reps is None:
        return ctx.tensor(_tiled_dims(ctx, data, repeats))
    require_length(ctx, "repeats", reps, (len(data.dims),))
    require_entries(ctx, "repeats", reps, allow_zero=True)
    value = list(data.value) * reps[0] if data.value is not None and data.rank == 1 else None
    return ctx.tensor([d * r for d, r in zip(data.dims, reps)], value=value)


def _tiled_dims(ctx: ShapeContext, data: TensorArg, repeats: TensorArg) -> list:
    """The dims of `onnx.tile(x, repeats)` where repeats are shape values (`x.repeat(1, t, 1)`
    as the exporters write it: a Concat of 1s and a Shape's element): d * r for a repeat known
    to be >= 0, `?` for one that is not known or may be negative (Tile refuses it)."""
    values = repeats.value
    dims = known_dims(data)
    if values is None:
        return [ctx.unknown() for _ in dims]
    require_length(ctx, "repeats", values, (len(dims),))
    return [d * r if not isinstance(r, int) and ctx.at_least(r, 0) else ctx.unknown() for d, r in zip(dims, values)]


@shape_rule("onnx_pad")
def pad(ctx: ShapeContext) -> Any:
    """`onnx.pad(x, pads, value, axes, mode)`: dim i grows by pads[i] + pads[i + n]."""
    data, pads, _value, axes = ctx.operands()
    if data.dims is None:
        _pad_rank(ctx, data, known_ints(ctx, pads), axes)
    if data.dims is None:
        return ctx.tensor(None)
    chosen = list(range(len(data.dims))) if vector_length(ctx, axes) == 0 else known_ints(ctx, axes)
    widths = known_ints(ctx, pads)
    dims = list(data.dims)
    if chosen is None:
        return ctx.tensor([ctx.unknown() for _ in dims])
    chosen = distinct_axes(ctx, chosen, len(data.dims), "axes")
    if widths is None:
        return ctx.tensor(_padded_by_values(ctx, dims, chosen, pads))
    require_length(ctx, "pads", widths, (2 * len(chosen),))
    copies = ctx.attr("mode") != "constant"
    for i, axis in enumerate(chosen):
        grow = widths[i] + widths[i + len(chosen)]
        if copies and max(widths[i], widths[i + len(chosen)]) > 0:
            ctx.within(dims[axis], 1, None)  # edge, reflect and wrap copy from the axis: it holds some
        dims[axis] = dims[axis] + grow if grow >= 0 else dims[axis] - (-grow)
    return ctx.tensor(dims)


def _padded_by_values(ctx: ShapeContext, dims: list, chosen: list, pads: TensorArg) -> list:
    """The dims padded by widths that are shape values, not all constants (padding to a
    multiple: `(4 - seq % 4) % 4`): d + before + after on an axis whose two widths are exact
    and provably >= 0 (a crop by a negative width needs the dim to hold it), `?` elsewhere."""
    widths = pads.value
    if widths is None or len(widths) != 2 * len(chosen):
        return [ctx.unknown() if i in chosen else d for i, d in enumerate(dims)]
    for i, axis in enumerate(chosen):
        before, after = widths[i], widths[i + len(chosen)]
        if all(ctx.exact(w) and ctx.at_least(w, 0) is True for w in (before, after)):
            dims[axis] = dims[axis] + before + after
        else:
            dims[axis] = ctx.unknown()
    return dims


def _pad_rank(ctx: ShapeContext, data: TensorArg, widths: Optional[list], axes: TensorArg) -> None:
    """The rank pads give an input of unknown rank: two entries per dim without axes, at
    least every listed axis with them."""
    if vector_length(ctx, axes) != 0:
        ctx.require_rank_at_least(data, axes_rank(known_ints(ctx, axes)))
    elif widths is not None and len(widths) % 2 == 0:
        ctx.require_rank(data, len(widths) // 2)


@shape_rule("onnx_split")
def split(ctx: ShapeContext) -> Any:
    """`onnx.split(x, num_outputs, axis)`: parts of ceil(d / n); the last takes what is left."""
    (data,) = ctx.operands()
    parts = require_outputs(ctx, "num_outputs", int(ctx.attr("num_outputs")))  # at least 1: the declaration
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
        return ctx.tuple([ctx.tensor(None, data.dtype) for _ in range(parts)])
    axis = normalize_axis(ctx, ctx.attr("axis"), len(data.dims))
    whole = data.dim(axis)
    chunk = (whole + (parts - 1)) // parts
    last = whole - chunk * (parts - 1) if parts > 1 else whole
    size = ctx.static(last)
    if size is not None and size < 0:
        ctx.fail("negative-dim", detail=f"the last of {parts} parts of {ctx.static(whole)}")
    fields = []
    for i in range(parts):
        dims = list(data.dims)
        dims[axis] = last if i == parts - 1 else chunk
        fields.append(ctx.tensor(dims, data.dtype))
    return ctx.tuple(fields)


@shape_rule("onnx_split_sizes")
def split_sizes(ctx: ShapeContext) -> Any:
    """`onnx.split_sizes(x, split, num_outputs, axis)`: part i has split[i] elements along axis
    (`?` while the sizes are not known); the sizes must add up to the dim."""
    data, sizes_arg = ctx.operands()
    parts = require_outputs(ctx, "num_outputs", int(ctx.attr("num_outputs")))  # at least 1: the declaration
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
        return ctx.tuple([ctx.tensor(None, data.dtype) for _ in range(parts)])
    axis = normalize_axis(ctx, ctx.attr("axis"), len(data.dims))
    sizes = known_ints(ctx, sizes_arg)
    if sizes is not None:  # as many as the parts, none negative: the declaration
        ctx.equal(ctx.const(sum(sizes)), data.dim(axis))
        lengths = [ctx.const(size) for size in sizes]
    else:
        lengths = _split_values(ctx, sizes_arg, parts, data.dim(axis))
    fields = []
    for length in lengths:
        dims = list(data.dims)
        dims[axis] = length
        fields.append(ctx.tensor(dims, data.dtype))
    return ctx.tuple(fields)


def _split_values(ctx: ShapeContext, sizes_arg: TensorArg, parts: int, whole: Any) -> list:
    """The parts' lengths where the split sizes are shape values (`x.split([t // 2, t - t //
    2], 1)` as the exporters write it): each size known to be >= 0 (`?` for another), which
    must add up to the dim where every one is known (that sum is then usually the dim itself);
    all `?` while the sizes are not known."""
    values = sizes_arg.value
    if values is None:
        return [ctx.unknown() for _ in range(parts)]
    require_length(ctx, "split", values, (parts,))
    lengths = [v if not isinstance(v, int) and ctx.exact(v) and ctx.at_least(v, 0) else None for v in values]
    known = [length for length in lengths if length is not None]
    if len(known) == len(lengths):
        total = known[0]
        for length in known[1:]:
            total = total + length
        ctx.equal(total, whole)
    return [ctx.unknown() if length is None else length for length in lengths]


def divided(ctx: ShapeContext, data: TensorArg, axis: int, factor: int) -> Any:
    """dim `axis` // factor, requiring an exact division."""
    d = data.dim(axis)
    size = ctx.static(d)
    if size is not None and size % factor:
        ctx.fail("not-divisible", arg=data, axis=axis, dim=d, factor=factor)
    return ctx.quotient(d, factor)


@shape_rule("onnx_depth_to_space")
def depth_to_space(ctx: ShapeContext) -> Any:
    """`onnx.depth_to_space(x, blocksize)`: (n, c, h, w) -> (n, c / b^2, h * b, w * b)."""
    (data,) = ctx.operands()
    block = int(ctx.attr("blocksize"))  # at least 1, and data of rank 4: the declaration
    n, _, h, w = known_dims(data)
    return ctx.tensor([n, divided(ctx, data, 1, block * block), h * block, w * block])


@shape_rule("onnx_space_to_depth")
def space_to_depth(ctx: ShapeContext) -> Any:
    """`onnx.space_to_depth(x, blocksize)`: (n, c, h, w) -> (n, c * b^2, h / b, w / b)."""
    (data,) = ctx.operands()
    block = int(ctx.attr("blocksize"))  # at least 1, and data of rank 4: the declaration
    n, c, _, _ = known_dims(data)
    return ctx.tensor([n, c * (block * block), divided(ctx, data, 2, block), divided(ctx, data, 3, block)])


@shape_rule("onnx_same_shape")
def same_shape(ctx: ShapeContext) -> Any:
    """The first argument's shape (Trilu, CumSum, CumProd): the declarations state the ranks
    they need and the range of CumSum's axis."""
    return ctx.tensor(ctx.operand(0).dims)


@shape_rule("onnx_along_axes")
def along_axes(ctx: ShapeContext) -> Any:
    """LpNormalization and MeanVarianceNormalization: the input's shape, where `axis` or
    `axes` name its dims."""
    (data,) = ctx.operands()
    name = "axis" if ctx.op_name == "onnx.lp_norm" else "axes"
    axes = [ctx.attr(name)] if name == "axis" else list(ctx.attr(name))
    if data.dims is None:
        ctx.require_rank_at_least(data, axes_rank(axes))
    else:
        distinct_axes(ctx, axes, len(data.dims), name)
    return ctx.tensor(data.dims)


@shape_rule("onnx_reduce")
def reduce(ctx: ShapeContext) -> Any:
    """`onnx.reduce(x, axes, kind, keepdims, noop_with_empty_axes)`: the listed axes are removed
    (kept as 1s); while the axes are not known, the rank is (keepdims) or nothing is."""
    data, axes_arg = ctx.operands()
    keep = bool(ctx.attr("keepdims"))
    length = vector_length(ctx, axes_arg)
    if data.dims is None:
        ctx.require_rank_at_least(data, axes_rank(known_ints(ctx, axes_arg)))
        return ctx.tensor(None)
    if length == 0:
        if ctx.attr("noop_with_empty_axes"):
            return ctx.tensor(data.dims)
        chosen = set(range(len(data.dims)))
    else:
        axes = known_ints(ctx, axes_arg)
        if axes is None:
            return ctx.tensor([ctx.unknown() for _ in data.dims] if keep else None)
        chosen = set(distinct_axes(ctx, axes, len(data.dims), "axes"))
    dims = [ctx.const(1) if i in chosen else d for i, d in enumerate(data.dims) if keep or i not in chosen]
    return ctx.tensor(dims)


RESIZE_MODES = ("nearest", "linear", "cubic")
RESIZE_COORDINATES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


register_rule_message(
    "resize-scales",
    codes.OP_CONSTRAINT,
    "{op} has no sizes and {count} scales, but it needs a size or a scale for each of the {needed} resized axes",
    "give `scales` (or `sizes`) one entry per resized axis",
)


@shape_rule("onnx_resize")
def resize(ctx: ShapeContext) -> Any:
    """`onnx.resize(x, roi, scales, sizes, static_scales, axes, ...)`: the resized dims are
    `sizes` (stretched, or scaled by one factor with keep_aspect_ratio_policy), or
    floor(d * scale); `?` where they are not known (scales known only at runtime)."""
    data, _roi, _scales, sizes_arg = ctx.operands()
    policy = ctx.attr("keep_aspect_ratio_policy")
    if data.dims is None:
        _resize_rank(ctx, data, sizes_arg)
    if data.dims is None:
        return ctx.tensor(None)
    axes = distinct_axes(ctx, list(ctx.attr("axes") or range(len(data.dims))), len(data.dims), "axes")
    dims = list(data.dims)
    if vector_length(ctx, sizes_arg):
        sizes = known_ints(ctx, sizes_arg)
        for axis in axes:
            dims[axis] = ctx.unknown()
        if sizes is not None:
            require_length(ctx, "sizes", sizes, (len(axes),))
            _sized(ctx, dims, data, axes, sizes, policy)
        elif policy == "stretch" and (values := _size_values(sizes_arg, len(axes))) is not None:
            for axis, size in zip(axes, values):
                dims[axis] = size  # shape values: F.interpolate(x, size=skip.shape[-2:])
        return ctx.tensor(dims)
    scales = ctx.attr("static_scales")
    if scales is not None:
        require_length(ctx, "static_scales", list(scales), (len(axes),))
        require_finite(ctx, "static_scales", scales)
    elif vector_length(ctx, _scales) not in (None, len(axes)):
        # neither sizes nor scales (ONNX needs one of them), or scales of another length: the
        # kernel indexed past them (a runtime IndexError)
        ctx.fail("resize-scales", count=vector_length(ctx, _scales), needed=len(axes))
    for i, axis in enumerate(axes):
        dims[axis] = ctx.unknown() if scales is None else _scaled(ctx, data.dim(axis), float(scales[i]))
    return ctx.tensor(dims)


def _size_values(sizes: TensorArg, count: int) -> Optional[list]:
    """The sizes where they are `count` known non-negative shape values (symbolic ones too)."""
    values = sizes.value
    if values is not None and len(values) == count and not any(isinstance(v, int) for v in values):
        return values
    return None


def _resize_rank(ctx: ShapeContext, data: TensorArg, sizes_arg: TensorArg) -> None:
    """The rank an input of unknown rank needs: at least its axes; without axes, one size or
    static scale per dim."""
    if ctx.attr("axes"):
        ctx.require_rank_at_least(data, axes_rank(list(ctx.attr("axes"))))
        return
    sizes = known_ints(ctx, sizes_arg) if vector_length(ctx, sizes_arg) else None
    entries = sizes if sizes is not None else ctx.attr("static_scales")
    if entries is not None:
        ctx.require_rank(data, len(list(entries)))


def _sized(ctx: ShapeContext, dims: list, data: TensorArg, axes: list, sizes: list, policy: str) -> None:
    """Resized dims from sizes: as given (stretch), or one scale for all (needs static dims)."""
    for axis, size in zip(axes, sizes):
        if size != 0:  # as ONNX Runtime: no factor scales an empty dim to another size
            ctx.within(data.dim(axis), 1, None)
    if policy == "stretch":
        for axis, size in zip(axes, sizes):
            dims[axis] = ctx.const(size)
        return
    have = [ctx.static(data.dim(a)) for a in axes]
    if any(h is None or h == 0 for h in have):
        return
    ratios = [s / h for s, h in zip(sizes, have)]
    scale = min(ratios) if policy == "not_larger" else max(ratios)
    for axis, h in zip(axes, have):
        dims[axis] = ctx.const(int(scale * h + 0.5))


def _scaled(ctx: ShapeContext, d: Any, scale: float) -> Any:
    """floor(d * scale), symbolically where the scale is an integer or its inverse is."""
    size = ctx.static(d)
    if size is not None:
        return ctx.const(scaled_size(size, scale))
    if scale > 0 and float(scale).is_integer():
        return d * int(scale)
    if scale > 0 and (1 / scale).is_integer():
        return d // int(1 / scale)
    return ctx.unknown()


REDUCTIONS = ("sum", "mean", "max", "min", "prod", "l1", "l2", "sum_square", "log_sum", "log_sum_exp")


# indexing -----------------------------------------------------------------------------------------
@shape_rule("onnx_gather_elements")
def gather_elements(ctx: ShapeContext) -> Any:
    """`onnx.gather_elements(x, indices, axis)`: the result is shaped like indices (same rank
    as x)."""
    data, indices = ctx.operands()
    if data.dims is None and indices.dims is not None:
        ctx.require_rank(data, len(indices.dims))
    if data.dims is not None:
        ctx.require_rank(indices, len(data.dims))
        axis = normalize_axis(ctx, ctx.attr("axis"), len(data.dims))
        if indices.dims is not None:
            for i in range(len(data.dims)):  # per dim but the axis: a "for all" a contract cannot state
                if i != axis:
                    require_at_most(ctx, indices, i, data.dim(i), "indices pick from data's other dims")
    elif indices.dims is None:
        ctx.require_rank_at_least(indices, axis_rank(ctx.attr("axis")))
    return ctx.tensor(indices.dims)


@shape_rule("onnx_gather_nd")
def gather_nd(ctx: ShapeContext) -> Any:
    """`onnx.gather_nd(x, indices, batch_dims)`: indices (*b, *q, m) pick slices of x after
    its first batch_dims + m dims: (*b, *q, *rest)."""
    data, indices = ctx.operands()
    batch = ctx.attr("batch_dims")
    ctx.require_rank_at_least(indices, batch + 1)
    tuple_length = ctx.static(indices.dim(-1)) if indices.dims is not None and len(indices.dims) >= 1 else None
    if data.dims is None and tuple_length is not None:
        ctx.require_rank_at_least(data, batch + tuple_length)
    if data.dims is None or indices.dims is None or len(indices.dims) < 1:
        return ctx.tensor(None)
    m = ctx.static(indices.dim(-1))
    if m is None:
        return ctx.tensor(None)
    if batch + m > data.rank:
        ctx.fail("rank-too-small", arg=data, needed=batch + m, rank=data.rank)
    for i in range(batch):
        ctx.equal(data.dim(i), indices.dim(i))
    index_tuples_within(ctx, data, indices, batch, m)
    return ctx.tensor(list(indices.dims[:-1]) + list(data.dims[batch + m :]))


def index_tuples_within(ctx: ShapeContext, data: TensorArg, indices: TensorArg, batch: int, m: int) -> None:
    """Entry j of each index tuple lies in -d .. d - 1 of data's dim batch + j: per entry, a
    "for all" a contract cannot state (decided where the indices' elements are known)."""
    for j in range(m):
        bounds = ctx.element_bounds(indices, column=j)
        length = ctx.static(data.dim(batch + j))
        if bounds and length is not None and not -length <= bounds[0] <= bounds[1] < length:
            low, high = bounds[0], bounds[1]
            ctx.fail(
                "tuple-index-out-of-range", arg=indices, entry=j, low=low, high=high, axis=batch + j, length=length
            )


@shape_rule("onnx_scatter")
def scatter(ctx: ShapeContext) -> Any:
    """ScatterElements / ScatterND: the result is shaped like the data (see each)."""
    data, indices, updates = ctx.operands()
    if ctx.op_name == "onnx.scatter_elements":
        _scatter_elements(ctx, data, indices, updates)
    else:
        _scatter_nd(ctx, data, indices, updates)
    return ctx.tensor(data.dims)


def _scatter_elements(ctx: ShapeContext, data: TensorArg, indices: TensorArg, updates: TensorArg) -> None:
    """Data, indices and updates have one rank (at least 1); updates has the indices' shape,
    which fits inside the data's along every dim but `axis` (the index values pick along it)."""
    ctx.require_rank_at_least(data, max(1, axis_rank(ctx.attr("axis"))))
    if data.dims is None:
        return
    axis = normalize_axis(ctx, ctx.attr("axis"), len(data.dims))
    require_rank_of(ctx, indices, len(data.dims), "the data's")
    require_rank_of(ctx, updates, len(data.dims), "the data's")
    for i, (index_dim, update_dim) in enumerate(zip(known_dims(indices), known_dims(updates))):
        ctx.equal(update_dim, index_dim)
        if i != axis:
            require_at_most(ctx, indices, i, data.dim(i), "the indices' positions lie inside the data")


def _scatter_nd(ctx: ShapeContext, data: TensorArg, indices: TensorArg, updates: TensorArg) -> None:
    """Indices (q >= 1 dims) end in k <= rank(data) coordinates; updates is
    `indices.shape[:-1] + data.shape[k:]`."""
    if data.dims is None or indices.dims is None:  # ranks and k <= rank(data): the declaration's
        return
    k = ctx.static(indices.dim(-1))
    if k is None:
        return
    index_tuples_within(ctx, data, indices, 0, k)
    wanted = list(indices.dims[:-1]) + list(data.dims[k:])
    require_rank_of(ctx, updates, len(wanted), "indices.shape[:-1] + data.shape[k:]")
    for have, want in zip(known_dims(updates), wanted):
        ctx.equal(have, want)


@shape_rule("onnx_topk")
def topk(ctx: ShapeContext) -> Any:
    """`onnx.topk(x, k, axis)`: dim `axis` becomes k (it must hold at least k)."""
    data, k_arg = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
        return ctx.tuple([ctx.tensor(None), ctx.tensor(None, "int64")])
    axis = normalize_axis(ctx, ctx.attr("axis"), len(data.dims))
    dims = list(data.dims)
    k = known_ints(ctx, k_arg)
    if k is None or len(k) != 1:
        # a k computed from sizes (torch's `x.topk(x.shape[1] // 2)`) is that dim; whether the
        # axis holds k is decided where the rule runs on the sizes
        symbolic = k_arg.value[0] if k_arg.value is not None and len(k_arg.value) == 1 else None
        dims[axis] = symbolic if symbolic is not None and ctx.bounds(symbolic)[0] >= 0 else ctx.unknown()
    else:
        ctx.within(dims[axis], k[0], None)
        dims[axis] = ctx.const(k[0])
    return ctx.tuple([ctx.tensor(dims), ctx.tensor(list(dims), "int64")])


@shape_rule("onnx_one_hot")
def one_hot(ctx: ShapeContext) -> Any:
    """`onnx.one_hot(indices, depth, values, axis)`: a new dim of size depth at axis."""
    indices, depth_arg, values = ctx.operands()  # depth of one element, values (2,): the declaration
    if indices.dims is None:
        ctx.require_rank_at_least(indices, new_axis_rank(ctx.attr("axis")))
        return ctx.tensor(None, values.dtype)
    depth = known_ints(ctx, depth_arg)
    size = ctx.unknown() if depth is None or len(depth) != 1 else ctx.const(depth[0])
    if depth is None and depth_arg.value is not None and len(depth_arg.value) == 1:
        value = depth_arg.value[0]  # a shape value: `F.one_hot(a, c.shape[0])`
        if not isinstance(value, int) and ctx.exact(value) and ctx.at_least(value, 0):
            size = value
    rank = len(indices.dims) + 1
    axis = ctx.attr("axis")  # in -rank .. rank - 1: the declaration
    dims = list(indices.dims)
    dims.insert(axis + rank if axis < 0 else axis, size)
    return ctx.tensor(dims, values.dtype)


# convolution and pooling --------------------------------------------------------------------------
def _spatial_attrs(ctx: ShapeContext, k: int) -> tuple:
    """(pads as [(begin, end)], strides, dilations, auto_pad) for k spatial dims."""
    auto_pad = ctx.attr("auto_pad")  # one of NOTSET, VALID, SAME_UPPER, SAME_LOWER: the declarations
    pads = _attr_list(ctx, "pads", 2 * k, 0, 0)
    strides = _attr_list(ctx, "strides", k, 1, 1)
    dilations = _attr_list(ctx, "dilations", k, 1, 1)
    if auto_pad != "NOTSET":
        pads = [0] * (2 * k)
    return [(pads[i], pads[i + k]) for i in range(k)], strides, dilations, auto_pad


def window(
    ctx: ShapeContext,
    data: TensorArg,
    axis: int,
    kernel: Any,
    pad: tuple,
    stride: int,
    dilation: int,
    auto_pad: str,
    ceil: bool = False,
) -> Any:
    """The output length of one sliding-window dim under ONNX's rules."""
    size = data.dim(axis)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return (size + (stride - 1)) // stride
    if not ceil:
        return window_output(ctx, data, axis, size, kernel, pad[0] + pad[1], stride, dilation)
    span = (kernel - 1) * dilation + 1
    padded = size + (pad[0] + pad[1])
    counted = (padded - span + (stride - 1)) // stride + 1
    exact = ctx.static(counted)
    if exact is not None and ctx.static(size) is not None:
        starts_in_input = (exact - 1) * stride < ctx.static(size) + pad[0]
        return ctx.const(exact if starts_in_input else exact - 1)
    known_span = ctx.static(span)
    if known_span is not None and pad[1] + stride <= known_span:
        return counted  # the last window always starts inside the input or its begin padding
    return ctx.unknown()


def _conv_rank(ctx: ShapeContext, data: TensorArg, weight: TensorArg) -> Optional[int]:
    rank = data.rank if data.dims is not None else weight.rank
    if rank is None:
        return None
    if rank < 3:
        ctx.fail("rank-too-small", arg=data if data.dims is not None else weight, needed=3, rank=rank)
    ctx.require_rank(data, rank)
    ctx.require_rank(weight, rank)
    return rank


@shape_rule("onnx_conv")
def conv(ctx: ShapeContext) -> Any:
    """`onnx.conv(x, w)`: x (n, c, *s), w (m, c / group, *k) -> (n, m, *windows)."""
    data, weight = ctx.operands()
    rank = _conv_rank(ctx, data, weight)
    if rank is None:
        return ctx.tensor(None)
    group = int(ctx.attr("group"))  # at least 1: the declaration
    ctx.equal(data.dim(1), weight.dim(1) * group, symbol="in_channels")
    pads, strides, dilations, auto_pad = _spatial_attrs(ctx, rank - 2)
    spatial = [
        window(ctx, data, 2 + i, weight.dim(2 + i), pads[i], strides[i], dilations[i], auto_pad)
        for i in range(rank - 2)
    ]
    return ctx.tensor([data.dim(0), weight.dim(0)] + spatial)


@shape_rule("onnx_conv_transpose")
def conv_transpose(ctx: ShapeContext) -> Any:
    """`onnx.conv_transpose(x, w)`: w (c, m / group, *k); each spatial dim becomes
    stride * (in - 1) + output_padding + span - pads (or output_shape, or in * stride for SAME)."""
    data, weight = ctx.operands()
    rank = _conv_rank(ctx, data, weight)
    if rank is None:
        return ctx.tensor(None)
    k = rank - 2
    group = int(ctx.attr("group"))  # at least 1: the declaration
    ctx.equal(data.dim(1), weight.dim(0), symbol="in_channels")
    grouped(ctx, data.dim(1), group, "the input", "group")
    pads, strides, dilations, auto_pad = _spatial_attrs(ctx, k)
    extra = _attr_list(ctx, "output_padding", k, 0, 0)
    shape = ctx.attr("output_shape")
    if shape is not None:  # the spatial sizes, or the whole shape (ONNX Runtime reads the last k)
        require_length(ctx, "output_shape", list(shape), (k, k + 2))
    spatial = []
    for i in range(k):
        if shape is not None:
            spatial.append(ctx.const(list(shape)[-k + i]))
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            spatial.append(data.dim(2 + i) * strides[i])
        else:
            span = (weight.dim(2 + i) - 1) * dilations[i] + 1
            grown = (data.dim(2 + i) - 1) * strides[i] + span + extra[i]
            cut = pads[i][0] + pads[i][1]
            spatial.append(grown - cut if cut else grown)
    return ctx.tensor([data.dim(0), weight.dim(1) * group] + spatial)


@shape_rule("onnx_pool")
def pool(ctx: ShapeContext) -> Any:
    """`onnx.max_pool` / `avg_pool` / `lp_pool(x, kernel_shape, ...)`: (n, c, *windows)."""
    (data,) = ctx.operands()
    kernel = require_entries(ctx, "kernel_shape", list(ctx.attr("kernel_shape")))
    k = len(kernel)
    ctx.require_rank(data, k + 2)
    pads, strides, dilations, auto_pad = _spatial_attrs(ctx, k)
    ceil = bool(ctx.attr("ceil_mode"))
    spatial = [
        window(ctx, data, 2 + i, ctx.const(kernel[i]), pads[i], strides[i], dilations[i], auto_pad, ceil)
        for i in range(k)
    ]
    return ctx.tensor([data.dim(0), data.dim(1)] + spatial)


@shape_rule("onnx_pool_indices")
def pool_indices(ctx: ShapeContext) -> Any:
    """`onnx.max_pool_indices(x, ...)`: the pooled values and their int64 positions."""
    values = pool(ctx)
    return ctx.tuple([values, ctx.tensor(list(values.dims) if values.dims is not None else None, "int64")])


@shape_rule("onnx_global_pool")
def global_pool(ctx: ShapeContext) -> Any:
    """Global pooling: (n, c, *s) -> (n, c, 1, ...)."""
    (data,) = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, 2)
        return ctx.tensor(None)
    if len(data.dims) < 2:
        ctx.fail("rank-too-small", arg=data, needed=2, rank=data.rank)
    return ctx.tensor(list(data.dims[:2]) + [ctx.const(1)] * (len(data.dims) - 2))


# normalization --------------------------------------------------------------------------------------
def _normalized_axis(ctx: ShapeContext, data: TensorArg) -> int:
    return normalize_axis(ctx, ctx.attr("axis"), len(known_dims(data)))


@shape_rule("onnx_layer_norm")
def layer_norm(ctx: ShapeContext) -> Any:
    """`onnx.layer_norm(x, scale, bias, axis)`: scale and bias broadcast to x's dims from axis
    on; (y, mean, inverse std dev), the statistics with 1s for the normalized dims."""
    data, scale, bias = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
        return ctx.tuple([ctx.tensor(None), ctx.tensor(None), ctx.tensor(None)])
    axis = _normalized_axis(ctx, data)
    normalized = list(data.dims[axis:])
    broadcast_into(ctx, scale, normalized)
    broadcast_into(ctx, bias, normalized)
    stats = list(data.dims[:axis]) + [ctx.const(1)] * (len(data.dims) - axis)
    return ctx.tuple([ctx.tensor(data.dims), ctx.tensor(stats), ctx.tensor(list(stats))])


@shape_rule("onnx_batch_norm_train")
def batch_norm_train(ctx: ShapeContext) -> Any:
    """`onnx.batch_norm_train(x, scale, bias, mean, var)`: the four vectors are as long as the
    channels (dim 1); (y, running mean, running variance)."""
    data = ctx.operand(0)
    ctx.require_rank_at_least(data, 2)
    channels = None if data.dims is None else _channels(ctx, data)
    for p in ctx.operands()[1:]:
        ctx.require_rank(p, 1)
        channels = p.dim(0) if channels is None else ctx.equal(channels, p.dim(0), symbol="channels")
    return ctx.tuple([ctx.tensor(data.dims), ctx.tensor([channels]), ctx.tensor([channels])])


def _loss_dims(ctx: ShapeContext) -> Any:
    """The loss of (input (n, c, *d), target (n, *d), weight (c,) or empty): (n, *d) for
    reduction none, a scalar for mean and sum."""
    data, target, weight = ctx.operands()[:3]
    reduction = ctx.attr("reduction")
    ctx.require_rank(weight, 1)
    if data.dims is None:
        if target.dims is not None:
            ctx.require_rank(data, len(target.dims) + 1)  # (n, c, *d) for a target (n, *d)
        else:
            ctx.require_rank_at_least(data, 2)
            ctx.require_rank_at_least(target, 1)
    if data.dims is None:
        return None if reduction == "none" else []
    if len(data.dims) < 2:
        ctx.fail("rank-too-small", arg=data, needed=2, rank=data.rank)
    ctx.require_rank(target, len(data.dims) - 1)
    dims = [ctx.equal(data.dim(0), target.dim(0))]
    dims += [ctx.equal(a, b) for a, b in zip(data.dims[2:], known_dims(target)[1:])]
    if ctx.static(weight.dim(0)) != 0:
        ctx.equal(weight.dim(0), data.dim(1), symbol="classes")
    # a target is a class or the ignore_index: an "or" a contract cannot state
    bounds = ctx.element_bounds(target, excluding=ctx.attr("ignore_index"))
    classes = ctx.static(data.dim(1))
    if bounds and classes is not None and not 0 <= bounds[0] <= bounds[1] < classes:
        ctx.fail("class-out-of-range", arg=target, low=bounds[0], high=bounds[1], classes=classes)
    return dims if reduction == "none" else []


@shape_rule("onnx_nll_loss")
def nll_loss(ctx: ShapeContext) -> Any:
    """`onnx.nll_loss(input, target, weight, reduction)` (see _loss_dims)."""
    return ctx.tensor(_loss_dims(ctx))


@shape_rule("onnx_softmax_cross_entropy")
def softmax_cross_entropy(ctx: ShapeContext) -> Any:
    """`onnx.softmax_cross_entropy(scores, labels, weight, reduction)`: (loss, log_prob)."""
    return ctx.tuple([ctx.tensor(_loss_dims(ctx)), ctx.tensor(ctx.operand(0).dims)])


@shape_rule("onnx_rms_norm")
def rms_norm(ctx: ShapeContext) -> Any:
    """`onnx.rms_norm(x, scale, axis)`: scale broadcasts to x's dims from axis on."""
    data, scale = ctx.operands()
    if data.dims is None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))
    else:
        broadcast_into(ctx, scale, list(data.dims[_normalized_axis(ctx, data) :]))
    return ctx.tensor(data.dims)


def _channels(ctx: ShapeContext, data: TensorArg) -> Any:
    rank = len(known_dims(data))
    if rank < 2:
        ctx.fail("rank-too-small", arg=data, needed=2, rank=rank)
    return data.dim(1)


@shape_rule("onnx_channel_norm")
def channel_norm(ctx: ShapeContext) -> Any:
    """`onnx.instance_norm(x, scale, bias)`: scale and bias are as long as the channels."""
    data, scale, bias = ctx.operands()
    for p in (scale, bias):
        ctx.require_rank(p, 1)
    ctx.require_rank_at_least(data, 2)
    if data.dims is not None:
        channels = _channels(ctx, data)
        for p in (scale, bias):
            ctx.equal(channels, p.dim(0), symbol="channels")
    return ctx.tensor(data.dims)


@shape_rule("onnx_group_norm")
def group_norm(ctx: ShapeContext) -> Any:
    """`onnx.group_norm(x, scale, bias, num_groups)`: the channels divide into num_groups;
    scale and bias have one entry per channel."""
    data, scale, bias = ctx.operands()
    groups = require_positive(ctx, "num_groups", ctx.attr("num_groups"))
    for p in (scale, bias):
        ctx.require_rank(p, 1)
    ctx.require_rank_at_least(data, 2)
    if data.dims is not None:
        _channels(ctx, data)
        divided(ctx, data, 1, groups)
        for p in (scale, bias):
            ctx.equal(data.dim(1), p.dim(0), symbol="channels")
    return ctx.tensor(data.dims)


# control flow -----------------------------------------------------------------------------------
@shape_rule("onnx_scan_append")
def scan_append(ctx: ShapeContext) -> Any:
    """`onnx.scan_append(acc, item)`: `(k + 1, *item)` from `k` rows. Rows already there must
    be shaped as the item (rank and dims); an accumulator with no rows (the loop's start) takes
    any shape. While it is not known whether there are rows, nothing is required of them: the
    runtime, knowing, requires it before every append."""
    acc, item = ctx.operands()
    if item.dims is None:
        return ctx.tensor(None)
    rows = ctx.unknown()
    if acc.dims is not None and len(acc.dims) >= 1:
        rows = acc.dim(0)
    if acc.dims is None or ctx.static(rows) != 0:
        if ctx.at_least(rows, 1) is True:
            ctx.require_rank(acc, len(item.dims) + 1)
            for have, want in zip(known_dims(acc)[1:], item.dims):
                ctx.equal(have, want)
    size = ctx.static(rows)
    return ctx.tensor([ctx.const(size + 1) if size is not None else ctx.unknown(), *item.dims])
