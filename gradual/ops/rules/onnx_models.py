"""Shape rules of the ONNX operators in stdlib/onnx_models.rly: recurrent layers, attention,
quantization and signal processing. An optional input the node leaves out arrives as an empty
vector (`given` tells)."""

from __future__ import annotations

from typing import Any, Optional

from ... import diagnostics as codes
from ...messages import register_rule_message
from ..context import ShapeContext, TensorArg, normalize_axis
from ..registry import shape_rule
from .common import require_choice

register_rule_message(
    "heads-attribute", codes.MISSING_ATTRIBUTE,
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
    return [ctx.equal(have, want, symbol=name) for have, want, name in zip(arg.dims, dims, names)]  # type: ignore[union-attr]


# recurrent layers -----------------------------------------------------------------------------------
@shape_rule("onnx_rnn")
def rnn(ctx: ShapeContext) -> Any:
    """`onnx.rnn`: the weights' shapes against x and hidden_size; (y, y_h, y_c)."""
    x, w, r, b, lens, h0, c0, p = ctx.args
    kind = require_choice(ctx, "kind", ctx.attr("kind"), tuple(GATES))
    direction = require_choice(ctx, "direction", ctx.attr("direction"), ("forward", "reverse", "bidirectional"))
    layout = require_choice(ctx, "layout", ctx.attr("layout"), (0, 1))
    gates, dirs = GATES[kind], ctx.const(2 if direction == "bidirectional" else 1)
    ctx.require_rank(x, 3)
    ctx.require_rank(r, 3)
    seq, batch, size = (x.dims if layout == 0 else [x.dim(1), x.dim(0), x.dim(2)])  # type: ignore[misc]
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


# attention ----------------------------------------------------------------------------------------------
@shape_rule("onnx_attention")
def attention(ctx: ShapeContext) -> Any:
    """`onnx.attention`: q, k and v agree on batch, heads and head sizes; (y, present_key,
    present_value, qk_matmul_output)."""
    q, k, v, mask, past_key, past_value, _ = ctx.args
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
        batch, q_heads, q_seq, head = q.dims  # type: ignore[misc]
        _, kv_heads, kv_seq, k_head = k.dims  # type: ignore[misc]
        _, v_heads, v_seq, v_head = v.dims  # type: ignore[misc]
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
    y = [batch, q_seq, q_heads * v_head] if three_d else [batch, q_heads, q_seq, v_head]
    return ctx.tuple([ctx.tensor(y), ctx.tensor([batch, kv_heads, total, head]),
                      ctx.tensor([batch, kv_heads, total, v_head]), ctx.tensor([batch, q_heads, q_seq, total])])


def _split_heads(ctx: ShapeContext, arg: TensorArg, heads_attr: str) -> tuple:
    """(batch, seq, heads, head size) of a 3-D (batch, seq, heads * head size) input."""
    ctx.require_rank(arg, 3)
    heads = ctx.attr(heads_attr)
    if heads is None:
        ctx.fail("heads-attribute", name=heads_attr)
    batch, seq, hidden = arg.dims  # type: ignore[misc]
    size = ctx.static(hidden)
    if size is not None and size % heads:
        ctx.fail("not-divisible", arg=arg, axis=2, dim=size, factor=heads)
    return batch, seq, ctx.const(heads), hidden // heads


# quantization ------------------------------------------------------------------------------------------
@shape_rule("onnx_quantize")
def quantize(ctx: ShapeContext) -> Any:
    """`onnx.quantize` / `onnx.dequantize`: x's dims in `dtype`; a vector scale runs along `axis`,
    a blocked one has x's rank with ceil(dim / block_size) at `axis`."""
    x, scale, zero_point = ctx.args
    if x.dims is not None and scale.dims is not None and scale.rank == 1 and x.rank > 0 and ctx.attr("block_size") == 0:
        axis = normalize_axis(ctx, ctx.attr("axis"), x.rank)
        one = ctx.static(scale.dim(0)) == 1
        if not one:
            ctx.equal(scale.dim(0), x.dim(axis), symbol="axis dim")
    if given(ctx, zero_point) and scale.dims is not None and zero_point.dims is not None and zero_point.rank == scale.rank:
        require_dims(ctx, zero_point, list(scale.dims))  # (a one-element zero point of a scalar scale is fine)
    return ctx.tensor(x.dims, ctx.attr("dtype"))


@shape_rule("onnx_dynamic_quantize")
def dynamic_quantize(ctx: ShapeContext) -> Any:
    """`onnx.dynamic_quantize(x)`: (y shaped like x, scalar scale, scalar zero point)."""
    (x,) = ctx.args
    return ctx.tuple([ctx.tensor(x.dims), ctx.tensor([]), ctx.tensor([])])
