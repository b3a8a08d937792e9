"""Shape rules of the ONNX operators in stdlib/onnx_models.rly: recurrent layers, attention,
quantization and signal processing. An optional input the node leaves out arrives as an empty
vector (`given` tells)."""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, axes_rank, axis_rank, normalize_axis
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import (
    dtype_name,
    known_dims,
    known_ints,
    require_at_most,
    require_choice,
    require_length,
    require_one_value,
)
from gradual.ops.rules.onnx import divided, vector_length
from gradual.ops.rules.shape import broadcast_into
from gradual.ops.tables import shape_rule

register_rule_message(
    "heads-attribute",
    codes.MISSING_ATTRIBUTE,
    "{op} with 3-D inputs needs the `{name}` attribute",
    "give `{name}`: the hidden size is split into that many heads",
)

GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def given(ctx: ShapeContext, arg: TensorArg) -> bool:
    """Whether an optional input was given (an absent one is an empty vector)."""
    return not (arg.rank == 1 and ctx.static(arg.dim(0)) == 0)


def require_dims(ctx: ShapeContext, arg: TensorArg, dims: list, symbols: Optional[list] = None) -> list:
    """The argument has exactly these dims (rank and each dim); the agreed dims."""
    ctx.require_rank(arg, len(dims))
    names = symbols or [None] * len(dims)
    return [ctx.equal(have, want, symbol=name) for have, want, name in zip(known_dims(arg), dims, names)]


# recurrent layers -----------------------------------------------------------------------------------
@shape_rule("onnx_rnn")
def rnn(ctx: ShapeContext) -> Any:
    """`onnx.rnn`: the weights' shapes against x and hidden_size; (y, y_h, y_c)."""
    x, w, r, b, lens, h0, c0, p = ctx.operands()
    kind = ctx.attr("kind")
    direction = ctx.attr("direction")
    layout = ctx.attr("layout")
    gates, dirs = GATES[kind], ctx.const(2 if direction == "bidirectional" else 1)
    _activations(ctx, kind, 2 if direction == "bidirectional" else 1)
    seq, batch, size = known_dims(x) if layout == 0 else [x.dim(1), x.dim(0), x.dim(2)]
    hidden = ctx.attr("hidden_size")
    hidden = ctx.const(hidden) if hidden is not None else r.dim(2)
    require_dims(ctx, w, [dirs, hidden * gates, size], ["directions", "gates * hidden", "input"])
    require_dims(ctx, r, [dirs, hidden * gates, hidden], ["directions", "gates * hidden", "hidden"])
    if given(ctx, b):
        require_dims(ctx, b, [dirs, hidden * (2 * gates)], ["directions", "2 * gates * hidden"])
    if given(ctx, lens):
        require_dims(ctx, lens, [batch], ["batch"])
    state = [dirs, batch, hidden] if layout == 0 else [batch, dirs, hidden]
    for initial in (h0, c0):
        if given(ctx, initial):
            require_dims(ctx, initial, state, ["directions", "batch", "hidden"] if layout == 0 else None)
    if given(ctx, p):
        require_dims(ctx, p, [dirs, hidden * 3], ["directions", "3 * hidden"])
    y = [seq, dirs, batch, hidden] if layout == 0 else [batch, seq, dirs, hidden]
    return ctx.tuple([ctx.tensor(y), ctx.tensor(state), ctx.tensor(list(state))])


#: ONNX's recurrent activation functions (lowercase: ONNX Runtime reads them in any case)
ACTIVATIONS = (
    "relu",
    "tanh",
    "sigmoid",
    "affine",
    "leakyrelu",
    "thresholdedrelu",
    "scaledtanh",
    "hardsigmoid",
    "elu",
    "softsign",
    "softplus",
)
#: how many activations one direction of each kind of layer takes
ACTIVATIONS_PER_DIRECTION = {"rnn": 1, "gru": 2, "lstm": 3}


def _activations(ctx: ShapeContext, kind: str, directions: int) -> None:
    """`activations`, when given: known functions, one set for every direction or one per direction."""
    names = ctx.attr("activations")
    if not names:
        return
    per = ACTIVATIONS_PER_DIRECTION[kind]
    require_length(ctx, "activations", list(names), sorted({per, per * directions}))
    for name in names:
        if str(name).lower() not in ACTIVATIONS:
            require_choice(ctx, "activations", name, ACTIVATIONS)


# attention ----------------------------------------------------------------------------------------------
@shape_rule("onnx_attention")
def attention(ctx: ShapeContext) -> Any:
    """`onnx.attention`: q, k and v agree on batch, heads and head sizes; a mask broadcasts
    into (batch, q heads, q sequence, total sequence) (a vector: the keys alone) and the non-padding lengths are one per
    batch entry; (y, present_key, present_value, qk_matmul_output)."""
    q, k, v, mask, past_key, past_value, nonpad = ctx.operands()
    if given(ctx, mask):
        ctx.require_rank_at_least(mask, 1)  # a vector masks every query alike (ONNX's own test)
        if dtype_name(mask.dtype) not in (None, "bool"):  # a bool mask, or a bias of q's type
            ctx.same_dtype(mask.dtype, q.dtype)
    if given(ctx, nonpad):
        ctx.require_rank(nonpad, 1)
    known = next((arg.rank for arg in (q, k, v) if arg.dims is not None), None)
    for arg in (q, k, v):
        if arg.dims is None and known is not None:
            ctx.require_rank(arg, known)  # q, k and v are all 3-D or all 4-D
    if q.dims is None or k.dims is None or v.dims is None:
        return ctx.tuple([ctx.tensor(None) for _ in range(4)])
    three_d = q.rank == 3
    if three_d:
        batch, q_seq, q_heads, head = _split_heads(ctx, q, "q_num_heads")
        _, kv_seq, kv_heads, k_head = _split_heads(ctx, k, "kv_num_heads")
        _, v_seq, v_heads, v_head = _split_heads(ctx, v, "kv_num_heads")
    else:
        for arg in (q, k, v):
            ctx.require_rank(arg, 4)
        batch, q_heads, q_seq, head = q.dims
        _, kv_heads, kv_seq, k_head = k.dims
        _, v_heads, v_seq, v_head = v.dims
    batch = ctx.equal(batch, k.dim(0), symbol="batch")
    batch = ctx.equal(batch, v.dim(0), symbol="batch")
    ctx.equal(head, k_head, symbol="head_size")
    kv_seq = ctx.equal(kv_seq, v_seq, symbol="kv_sequence_length")
    kv_heads = ctx.equal(kv_heads, v_heads, symbol="kv_num_heads")
    total = kv_seq
    if given(ctx, past_key):
        require_dims(ctx, past_key, [batch, kv_heads, past_key.dim(2) if past_key.rank == 4 else ctx.unknown(), head])
        if given(ctx, past_value):
            require_dims(ctx, past_value, [batch, kv_heads, past_key.dim(2), v_head])
        total = past_key.dim(2) + kv_seq
    if given(ctx, mask) and mask.dims is not None:
        _attention_mask(ctx, mask, [batch, q_heads, q_seq], total)
    if given(ctx, nonpad):
        ctx.equal(nonpad.dim(0), batch, symbol="batch")
    y = [batch, q_seq, q_heads * v_head] if three_d else [batch, q_heads, q_seq, v_head]
    return ctx.tuple(
        [
            ctx.tensor(y),
            ctx.tensor([batch, kv_heads, total, head]),
            ctx.tensor([batch, kv_heads, total, v_head]),
            ctx.tensor([batch, q_heads, q_seq, total]),
        ]
    )


def _attention_mask(ctx: ShapeContext, mask: TensorArg, leading: list, total: Any) -> None:
    """A mask's last dim is at most the total sequence (a shorter one is padded, ONNX's rule);
    the dims before it are 1 or (batch, q heads, q sequence), right-aligned."""
    dims = known_dims(mask)
    require_at_most(ctx, mask, len(dims) - 1, total, "a shorter mask is padded; a longer one has no keys to mask")
    if len(dims) - 1 > len(leading):
        ctx.require_rank(mask, len(leading) + 1)
    offset = len(leading) - (len(dims) - 1)
    for axis, d in enumerate(dims[:-1]):
        target = leading[offset + axis]
        one = ctx.is_one(d)
        if one is False:
            ctx.equal(d, target)
        elif one is None:
            ctx.broadcast(d, target)


def _split_heads(ctx: ShapeContext, arg: TensorArg, heads_attr: str) -> tuple:
    """(batch, seq, heads, head size) of a 3-D (batch, seq, heads * head size) input."""
    ctx.require_rank(arg, 3)
    heads = ctx.attr(heads_attr)
    if heads is None:
        ctx.fail("heads-attribute", name=heads_attr)
    batch, seq, hidden = known_dims(arg)
    size = ctx.static(hidden)
    if size is not None and size % heads:
        ctx.fail("not-divisible", arg=arg, axis=2, dim=size, factor=heads)
    return batch, seq, ctx.const(heads), hidden // heads


# quantization ------------------------------------------------------------------------------------------
@shape_rule("onnx_quantize")
def quantize(ctx: ShapeContext) -> Any:
    """`onnx.quantize` / `onnx.dequantize`: x's dims in `dtype`. The scale is per tensor (a scalar
    or one element), a vector along `axis`, blocks along `axis` (x's rank, ceil(dim / block_size)
    there), or a tensor of x's rank that broadcasts to it; the zero point is shaped like it."""
    x, scale, zero_point = ctx.operands()
    block = ctx.attr("block_size") or 0
    for factor in (scale, zero_point) if given(ctx, zero_point) else (scale,):
        per_tensor = (
            not block
            and factor.dims is not None
            and (factor.rank == 0 or factor.rank == 1 and ctx.static(factor.dim(0)) == 1)
        )  # axis is not read
        if not per_tensor:
            _granularity(ctx, x, factor, block)
    if (
        given(ctx, zero_point)
        and scale.dims is not None
        and zero_point.dims is not None
        and zero_point.rank == scale.rank
    ):
        require_dims(ctx, zero_point, list(scale.dims))  # (a one-element zero point of a scalar scale is fine)
    return ctx.tensor(x.dims, ctx.attr("dtype"))


def _granularity(ctx: ShapeContext, x: TensorArg, scale: TensorArg, block: int) -> None:
    """A scale that is not per tensor against x: along `axis` (which x must have), in blocks,
    or broadcasting. Blocks have x's rank, whichever of the two is known."""
    if scale.dims is None:
        if block and x.dims is not None:
            ctx.require_rank(scale, len(x.dims))
        return
    if x.dims is None:
        if block:
            ctx.require_rank(x, len(scale.dims))
        else:
            ctx.require_rank_at_least(x, axis_rank(ctx.attr("axis")) if len(scale.dims) == 1 else len(scale.dims))
        return
    if not block and len(scale.dims) > 1:
        broadcast_into(ctx, scale, list(x.dims))
        return
    if not block and ctx.is_one(scale.dim(0)) is None:  # one element (per tensor, axis unread) or one per axis
        axis = ctx.attr("axis")
        if not -len(x.dims) <= axis < len(x.dims):
            ctx.equal(scale.dim(0), ctx.const(1), symbol="per-tensor scale")
        else:
            ctx.broadcast(scale.dim(0), x.dim(axis))
        return
    axis = normalize_axis(ctx, ctx.attr("axis"), len(x.dims))
    if not block:
        ctx.equal(scale.dim(0), x.dim(axis), symbol="axis dim")
        return
    ctx.require_rank(scale, len(x.dims))
    for i, d in enumerate(x.dims):
        ctx.equal(scale.dim(i), (d + (block - 1)) // block if i == axis else d, symbol="blocks" if i == axis else None)


@shape_rule("onnx_dynamic_quantize")
def dynamic_quantize(ctx: ShapeContext) -> Any:
    """`onnx.dynamic_quantize(x)`: (y shaped like x, scalar scale, scalar zero point)."""
    (x,) = ctx.operands()
    return ctx.tuple([ctx.tensor(x.dims), ctx.tensor([]), ctx.tensor([])])


# more of ONNX's operators ---------------------------------------------------------------------------------
BITS = {
    "bool": 8,
    "int8": 8,
    "uint8": 8,
    "int16": 16,
    "uint16": 16,
    "float16": 16,
    "bfloat16": 16,
    "int32": 32,
    "uint32": 32,
    "float32": 32,
    "int64": 64,
    "uint64": 64,
    "float64": 64,
    "float8_e4m3fn": 8,
    "float8_e4m3fnuz": 8,
    "float8_e5m2": 8,
    "float8_e5m2fnuz": 8,
    "float8_e8m0fnu": 8,
    "int4": 4,
    "uint4": 4,
    "float4_e2m1fn": 4,
    "int2": 2,
    "uint2": 2,
}

register_rule_message(
    "bitcast-width",
    codes.DTYPE_MISMATCH,
    "{op} cannot reinterpret {source} ({source_bits} bits) as {target} ({target_bits} bits)",
    "BitCast needs a target type of the same width",
)


@shape_rule("onnx_bitcast")
def bitcast(ctx: ShapeContext) -> Any:
    """`onnx.bitcast(x, dtype)`: x's dims; the two types must be equally wide."""
    (data,) = ctx.operands()
    source, target = getattr(data.dtype, "dtype", data.dtype), ctx.attr("dtype")
    if isinstance(source, str) and source in BITS and BITS[source] != BITS.get(target, BITS[source]):
        ctx.fail("bitcast-width", source=source, target=target, source_bits=BITS[source], target_bits=BITS[target])
    return ctx.tensor(data.dims, target)


def _axis_rank(ctx: ShapeContext, data: TensorArg) -> None:
    """An input of unknown rank has the dim an optional `axis` names."""
    if ctx.attr("axis") is not None:
        ctx.require_rank_at_least(data, axis_rank(ctx.attr("axis")))


@shape_rule("onnx_compress")
def compress(ctx: ShapeContext) -> Any:
    """`onnx.compress(x, condition, axis)`: as many slices as the condition has true elements
    (known only at runtime: at most the dim, or every element without an axis). The condition
    is a vector no longer than what it selects from (ONNX allows a shorter one)."""
    data, condition = ctx.operands()
    if data.dims is None:
        _axis_rank(ctx, data)
        return ctx.tensor(None)
    axis = ctx.attr("axis")
    if axis is None:
        total: Any = ctx.const(1)
        for d in data.dims:
            total = total * d
        require_at_most(ctx, condition, 0, total, "one entry per element of the flattened input at most")
        return ctx.tensor([ctx.bounded(0, total)])
    axis = normalize_axis(ctx, axis, len(data.dims))
    dims = list(data.dims)
    require_at_most(ctx, condition, 0, dims[axis], "one entry per slice along the axis at most")
    dims[axis] = ctx.bounded(0, dims[axis])
    return ctx.tensor(dims)


@shape_rule("onnx_reverse_sequence")
def reverse_sequence(ctx: ShapeContext) -> Any:
    """`onnx.reverse_sequence(x, sequence_lens, batch_axis, time_axis)`: x's shape (rank at
    least 2); sequence_lens holds one length per batch entry (the lengths' values, at most the
    time dim, are the data's)."""
    data, lens = ctx.operands()
    ctx.require_rank_at_least(data, 2)
    if data.dims is not None:
        batch = normalize_axis(ctx, ctx.attr("batch_axis"), len(data.dims), "batch_axis")
        normalize_axis(ctx, ctx.attr("time_axis"), len(data.dims), "time_axis")
        ctx.equal(lens.dim(0), data.dim(batch))
    return ctx.tensor(data.dims)


@shape_rule("onnx_window")
def window(ctx: ShapeContext) -> Any:
    """`onnx.window(size)`: a vector of `size` elements."""
    (size,) = ctx.operands()
    require_one_value(ctx, size)
    length = size.value[0] if size.value is not None and len(size.value) == 1 else ctx.unknown()
    return ctx.tensor([length], ctx.attr("dtype"))


@shape_rule("onnx_center_crop_pad")
def center_crop_pad(ctx: ShapeContext) -> Any:
    """`onnx.center_crop_pad(x, shape, axes)`: the dims at axes become the shape's values."""
    data, shape = ctx.operands()
    if data.dims is None and ctx.attr("axes") is not None:
        ctx.require_rank_at_least(data, axes_rank(list(ctx.attr("axes"))))
    elif data.dims is None and shape.value is not None:
        ctx.require_rank(data, len(shape.value))  # one size per dim
    if data.dims is None:
        return ctx.tensor(None)
    axes = ctx.attr("axes")
    axes = list(range(len(data.dims))) if axes is None else [normalize_axis(ctx, a, len(data.dims)) for a in axes]
    dims = list(data.dims)
    values = shape.value if shape.value is not None else []
    for i, axis in enumerate(axes):
        known = i < len(values) and not isinstance(values[i], int)
        dims[axis] = values[i] if known else ctx.unknown()
    return ctx.tensor(dims)


@shape_rule("onnx_tensor_scatter")
def tensor_scatter(ctx: ShapeContext) -> Any:
    """`onnx.tensor_scatter(past, update, write_indices)`: past's dims; update differs from
    past only along axis, where it is no longer; write_indices, when given, holds one start per
    batch entry (dim 0)."""
    past, update, starts = ctx.operands()
    if given(ctx, starts):
        if past.dims is not None and len(past.dims) >= 1:
            ctx.equal(starts.dim(0), past.dim(0), symbol="batch")
    if past.dims is None and update.dims is not None:
        ctx.require_rank(past, len(update.dims))
    elif past.dims is None:
        ctx.require_rank_at_least(past, axis_rank(ctx.attr("axis")))
    if past.dims is not None and update.dims is not None:
        ctx.require_rank(update, len(past.dims))
        axis = normalize_axis(ctx, ctx.attr("axis"), len(past.dims))
        for i, (a, b) in enumerate(zip(past.dims, update.dims)):
            if i != axis:
                ctx.equal(a, b)
    return ctx.tensor(past.dims)


@shape_rule("onnx_unique")
def unique(ctx: ShapeContext) -> Any:
    """`onnx.unique(x, axis)`: k unique elements (or slices), 1 <= k <= n, known at runtime."""
    (data,) = ctx.operands()
    if data.dims is None:
        _axis_rank(ctx, data)
        return ctx.tuple(
            [ctx.tensor(None), ctx.tensor([ctx.unknown()]), ctx.tensor([ctx.unknown()]), ctx.tensor([ctx.unknown()])]
        )
    axis = ctx.attr("axis")
    if axis is None:
        total: Any = ctx.const(1)
        for d in data.dims:
            total = total * d
        values, n = [ctx.bounded(0, total)], total
    else:
        axis = normalize_axis(ctx, axis, len(data.dims))
        n = data.dim(axis)
        values = list(data.dims)
        values[axis] = ctx.bounded(0, n)
    k = ctx.bounded(0, n)
    return ctx.tuple([ctx.tensor(values), ctx.tensor([k]), ctx.tensor([n]), ctx.tensor([k])])


# sampling and signals -------------------------------------------------------------------------------------
def _value_dims(ctx: ShapeContext, arg: TensorArg, count: int) -> list:
    """The elements of a shape vector as dims (`?` where not known)."""
    if arg.value is not None and len(arg.value) == count:
        return [v if not isinstance(v, int) else ctx.unknown() for v in arg.value]
    return [ctx.unknown() for _ in range(count)]


@shape_rule("onnx_grid_sample")
def grid_sample(ctx: ShapeContext) -> Any:
    """`onnx.grid_sample(x, grid)`: (n, c, *grid's middle dims); grid's last dim is x's spatial rank."""
    x, grid = ctx.operands()  # ranks, batch and the grid's last dim: the declaration's
    if x.dims is None or grid.dims is None:
        return ctx.tensor(None)
    for d in x.dims[2:]:
        ctx.within(d, 1, None)  # a sample reads around a point of each spatial dim: none is empty
    return ctx.tensor([x.dim(0), x.dim(1)] + list(grid.dims[1:-1]))


@shape_rule("onnx_affine_grid")
def affine_grid(ctx: ShapeContext) -> Any:
    """`onnx.affine_grid(theta, size)`: (n, *spatial, r) with theta (n, r, r + 1)."""
    theta, size = ctx.operands()  # ranks and r: the declaration's
    count = vector_length(ctx, size)
    if count is None or count < 3:
        return ctx.tensor(None)
    dims, r = _value_dims(ctx, size, count), count - 2
    batch = ctx.equal(theta.dim(0), dims[0], symbol="n") if ctx.exact(dims[0]) else theta.dim(0)
    ctx.equal(theta.dim(1), ctx.const(r), symbol="r")
    ctx.equal(theta.dim(2), ctx.const(r + 1), symbol="r + 1")
    return ctx.tensor([batch] + dims[2:] + [ctx.const(r)])


@shape_rule("onnx_dft")
def dft(ctx: ShapeContext) -> Any:
    """`onnx.dft(x, dft_length)`: x's dims with the axis dim the transform's length (or its
    unique half) and the last dim 2 (1 for an inverse one-sided transform)."""
    data, length = ctx.operands()
    if given(ctx, length):
        require_one_value(ctx, length)
    if data.dims is None:
        ctx.require_rank_at_least(data, max(axis_rank(ctx.attr("axis")), 2))
        return ctx.tensor(None)
    ctx.require_rank_at_least(data, 2)
    axis = normalize_axis(ctx, ctx.attr("axis"), len(data.dims))
    if axis == len(data.dims) - 1:  # the last dim holds the real and imaginary parts
        ctx.fail(
            "attribute-range",
            name="axis",
            value=ctx.attr("axis"),
            needed=f"a signal dim, not the last one (-{len(data.dims)}..-2 or 0..{len(data.dims) - 2})",
        )
    inverse, onesided = ctx.attr("inverse"), ctx.attr("onesided")
    dims = list(data.dims)
    ctx.within(dims[-1], 1, 2)
    if given(ctx, length):
        n = length.value[0] if length.value is not None and len(length.value) == 1 else ctx.unknown()
    elif inverse and onesided:
        n = (dims[axis] - 1) * 2
    else:
        n = dims[axis]
    ctx.within(n, 1, None)  # a transform of no points
    dims[axis] = n // 2 + 1 if onesided and not inverse else n
    dims[-1] = ctx.const(1 if inverse and onesided else 2)
    return ctx.tensor(dims)


@shape_rule("onnx_stft")
def stft(ctx: ShapeContext) -> Any:
    """`onnx.stft(signal, frame_step, window, frame_length)`: (batch, frames, bins, 2). The
    signal is (batch, length, 1) real or (batch, length, 2) complex; a (batch, length) signal
    is real, as onnxruntime reads it (the TorchScript exporter writes torch.stft so)."""
    signal, step, window_arg, length = ctx.operands()
    if signal.dims is None or signal.rank != 2:
        ctx.require_rank(signal, 3)
        ctx.within(signal.dim(2), 1, 2)
    if given(ctx, length):
        ctx.require_rank(length, 0)
    if given(ctx, window_arg):
        ctx.require_rank(window_arg, 1)
    if given(ctx, length) and length.value is not None:
        frame = length.value[0]
        if given(ctx, window_arg) and window_arg.dims is not None:
            ctx.equal(window_arg.dim(0), frame, symbol="frame length")
    elif given(ctx, window_arg) and window_arg.dims is not None:
        frame = window_arg.dim(0)
    else:
        frame = signal.dim(1)
    ctx.within(frame, 1, None)
    ctx.within(signal.dim(1) - frame, 0, None)  # at least one frame
    stride = step.value[0] if step.value is not None else None
    frames = (signal.dim(1) - frame) // stride + 1 if stride is not None and ctx.static(stride) else ctx.unknown()
    bins = frame // 2 + 1 if ctx.attr("onesided") else frame
    return ctx.tensor([signal.dim(0), frames, bins, ctx.const(2)])


@shape_rule("onnx_rotary_embedding")
def rotary_embedding(ctx: ShapeContext) -> Any:
    """`onnx.rotary_embedding(x, cos_cache, sin_cache, position_ids)`: x's shape. x is
    (batch, heads, seq, head) or (batch, seq, heads * head) with `num_heads`; the rotated part
    (`rotary_embedding_dim`, else the whole head) is even and inside the head; the caches are
    (positions, rotated / 2) indexed by position_ids (batch, seq), or (batch, seq, rotated / 2)
    without them."""
    x, cos, sin, positions = ctx.operands()
    ctx.require_rank_at_least(x, 3)
    if x.dims is None:
        return ctx.tensor(None)
    if len(x.dims) > 4:  # an upper bound no check of a `Tensor[*]` states: the rule stops it, as broadcast_to's
        ctx.fail("rank-too-large", arg=x, allowed=4, rank=x.rank)
    if x.rank == 4:
        batch, seq, head = x.dim(0), x.dim(2), x.dim(3)
    else:
        heads = ctx.attr("num_heads")
        if not heads or heads < 1:
            ctx.fail("heads-attribute", name="num_heads")
        batch, seq, head = x.dim(0), x.dim(1), divided(ctx, x, 2, heads)
    rotated = ctx.const(ctx.attr("rotary_embedding_dim")) if ctx.attr("rotary_embedding_dim") else head
    half = rotated // 2
    if (ctx.static(rotated) or 0) % 2:
        ctx.fail(
            "attribute-range",
            name="rotary_embedding_dim",
            value=ctx.static(rotated),
            needed="an even number of dims to rotate (pairs)",
        )
    if ctx.attr("rotary_embedding_dim"):
        ctx.within(head, ctx.attr("rotary_embedding_dim"), None)
    for cache in (cos, sin):
        if given(ctx, positions):
            ctx.require_rank(cache, 2)
            ctx.equal(cache.dim(1), half, symbol="rotated dims / 2")
        else:
            ctx.require_rank(cache, 3)
            for have, want in zip(known_dims(cache), (batch, seq, half)):
                ctx.equal(have, want)
    if given(ctx, positions):
        ctx.require_rank(positions, 2)
        ctx.equal(positions.dim(0), batch)
        ctx.equal(positions.dim(1), seq)
    return ctx.tensor(x.dims)


@shape_rule("onnx_max_unpool")
def max_unpool(ctx: ShapeContext) -> Any:
    """`onnx.max_unpool(x, indices, output_shape)`: (n, c, (d - 1) * stride + kernel - pads), or
    the output shape given (a vector of one size per dim). x is (n, c, *spatial) with one
    spatial dim per kernel dim, and the indices have x's shape."""
    x, indices, output_shape = ctx.operands()
    kernel = list(ctx.attr("kernel_shape"))
    k = len(kernel)
    ctx.require_rank(x, k + 2)
    ctx.require_rank(indices, k + 2)
    x_dims = known_dims(x)
    for a, b in zip(x_dims, known_dims(indices)):
        ctx.equal(b, a)
    if given(ctx, output_shape):
        ctx.equal(output_shape.dim(0), ctx.const(k + 2), symbol="output rank")
        return ctx.tensor(_value_dims(ctx, output_shape, len(x_dims)))
    strides = list(ctx.attr("strides") or [1] * k)
    pads = list(ctx.attr("pads") or [0] * (2 * k))
    spatial = [
        (d - 1) * s + kk - pads[i] - pads[i + k] for i, (d, s, kk) in enumerate(zip(x_dims[2:], strides, kernel))
    ]
    return ctx.tensor(list(x_dims[:2]) + spatial)


@shape_rule("onnx_col2im")
def col2im(ctx: ShapeContext) -> Any:
    """`onnx.col2im(x, image_shape, block_shape)`: (n, c, *image_shape), c * prod(block) = x's dim 1."""
    data, image, block = ctx.operands()  # ranks, and lengths of the attributes: the declaration's
    ctx.equal(image.dim(0), block.dim(0), symbol="spatial dims")
    if image.value is None:
        return ctx.tensor(None)
    count = len(image.value)
    sizes = known_ints(ctx, block)
    channels = ctx.unknown()
    if sizes is not None:
        product = 1
        for s in sizes:
            product *= s
        channels = divided(ctx, data, 1, product)
        images = known_ints(ctx, image)
        if images is not None:
            ctx.equal(data.dim(2), ctx.const(_block_count(ctx, images, sizes)), symbol="blocks")
    return ctx.tensor([data.dim(0), channels] + _value_dims(ctx, image, count))


def _block_count(ctx: ShapeContext, image: list, block: list) -> int:
    """How many blocks Col2Im's attributes fit into an image (each dim must fit one)."""
    k = len(image)
    strides = list(ctx.attr("strides") or [1] * k)
    dilations = list(ctx.attr("dilations") or [1] * k)
    pads = list(ctx.attr("pads") or [0] * (2 * k))
    total = 1
    for i in range(k):
        reach = dilations[i] * (block[i] - 1) + 1
        padded = image[i] + pads[i] + pads[i + k]
        if padded < reach or strides[i] < 1:
            ctx.fail(
                "attribute-range",
                name="block_shape",
                value=block,
                needed=f"blocks that fit the padded image (dim {i}: {padded})",
            )
        total *= (padded - reach) // strides[i] + 1
    return total
