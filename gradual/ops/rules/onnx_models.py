"""Shape rules of the ONNX operators in stdlib/onnx_models.rly: recurrent layers, attention,
quantization and signal processing. An optional input the node leaves out arrives as an empty
vector (`given` tells)."""

from __future__ import annotations

from typing import Any, Optional

from ..context import ShapeContext, TensorArg
from ..registry import shape_rule
from .common import require_choice

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
