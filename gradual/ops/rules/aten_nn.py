"""Shape rules of ATen's operators of model parts (stdlib/aten_nn.rly): resampling, recurrent
layers, group / batch-statistics / RMS norms, classification losses, distances, im2col.

Where ONNX has the operator (GridSample, Col2Im), its rule is used through `adapted`.
"""

from __future__ import annotations

from typing import Any, Optional

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, normalize_axis, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.aten import _affine, _dims, _normalized, adapted, present, sizes
from gradual.ops.rules.common import dtype_name, require_length, require_nonempty
from gradual.ops.rules.elementwise import broadcast_dims
from gradual.ops.rules.onnx import divided
from gradual.ops.tables import RULES, shape_rule

register_rule_message(
    "rnn-params",
    codes.TYPE_MISMATCH,
    "{op} got {count} weight tensors, but {layers} layer(s) x {directions} direction(s) need {wanted}",
    "pass w_ih, w_hh (and b_ih, b_hh with has_biases) for each layer and direction",
)
GRID_MODES = {0: "linear", 1: "nearest", 2: "cubic"}
GRID_PADDING = {0: "zeros", 1: "border", 2: "reflection"}
RULES["aten_grid_sampler"] = adapted(
    "onnx_grid_sample",
    mode=lambda c: GRID_MODES.get(c.attr("interpolation_mode"), "?"),
    padding_mode=lambda c: GRID_PADDING.get(c.attr("padding_mode"), "?"),
)


@shape_rule("aten_affine_grid_generator")
def affine_grid_generator(ctx: ShapeContext) -> Any:
    """`aten.affine_grid_generator(theta, size)`: (n, *size[2:], r) with theta (n, r, r + 1),
    ONNX's AffineGrid with the size a SymInt list."""
    theta, size = ctx.args
    ctx.require_rank(theta, 3)
    entries = sizes(ctx, size)
    if entries is None or len(entries) < 3:
        return ctx.tensor(None)
    dims, r = _dims(ctx, entries), len(entries) - 2
    batch = ctx.equal(theta.dim(0), dims[0], symbol="n") if ctx.exact(dims[0]) else theta.dim(0)
    ctx.equal(theta.dim(1), ctx.const(r), symbol="r")
    ctx.equal(theta.dim(2), ctx.const(r + 1), symbol="r + 1")
    return ctx.tensor([batch] + dims[2:] + [ctx.const(r)])


def _blocks(ctx: ShapeContext, d: Any, kernel: int, dilation: int, padding: int, stride: int) -> Any:
    """How many windows of a convolution fit along a dim (at least one must)."""
    reach = dilation * (kernel - 1) + 1 - 2 * padding
    ctx.within(d, max(reach, 0), None)
    return (d - reach) // stride + 1 if reach >= 0 else (d + -reach) // stride + 1


def _each(ctx: ShapeContext, name: str, k: int) -> list:
    """A list attribute of one entry for every kernel dim, or one entry per kernel dim."""
    values = list(ctx.attr(name))
    require_length(ctx, name, values, (1, k) if k != 1 else (1,))
    return values * k if len(values) == 1 else values


@shape_rule("aten_im2col")
def im2col(ctx: ShapeContext) -> Any:
    """`aten.im2col(x, kernel_size, dilation, padding, stride)`: (n, c, h, w) ->
    (n, c * kh * kw, blocks)."""
    (data,) = ctx.operands()
    kernel = list(ctx.attr("kernel_size"))
    k = len(kernel)  # 2, and rank 3 or 4: declared
    if data.dims is None:
        return ctx.tensor(None)
    for axis in range(data.rank - k - 1, data.rank):  # torch: only the batch may be empty
        require_nonempty(ctx, data, axis, "torch unfolds only non-empty images")
    dilation, padding, stride = (_each(ctx, name, k) for name in ("dilation", "padding", "stride"))
    spatial = data.dims[data.rank - k :]
    counts = [_blocks(ctx, d, kernel[i], dilation[i], padding[i], stride[i]) for i, d in enumerate(spatial)]
    channels = data.dim(data.rank - k - 1) * product(ctx, [ctx.const(v) for v in kernel])
    return ctx.tensor(list(data.dims[: data.rank - k - 1]) + [channels, product(ctx, counts)])


@shape_rule("aten_col2im")
def col2im(ctx: ShapeContext) -> Any:
    """`aten.col2im(x, output_size, kernel_size, dilation, padding, stride)`: (n, c * kh * kw,
    blocks) -> (n, c, *output_size); blocks is how many windows fit in output_size.
    `aten.col2im_sized` takes output_size as a SymInt list (F.fold to `x.shape[-2:]`)."""
    if ctx.op_name == "aten.col2im_sized":
        data, size_arg = ctx.args
        entries = sizes(ctx, size_arg)
        if entries is None:
            return ctx.tensor(None)
        image = [ctx.const(e) if isinstance(e, int) else e for e in entries]
    else:
        (data,) = ctx.args
        image = [ctx.const(v) for v in ctx.attr("output_size")]
    kernel = list(ctx.attr("kernel_size"))
    k = len(kernel)
    if len(image) != k:
        ctx.fail("attribute-range", name="output_size", value=len(image), needed=f"{k} entries, one per kernel dim")
    if data.dims is None:  # (c * kh * kw, blocks), or a batch of them: declared
        return ctx.tensor(None)
    for axis in (data.rank - 2, data.rank - 1):  # torch: only the batch may be empty
        require_nonempty(ctx, data, axis, "torch folds only non-empty columns")
    dilation, padding, stride = (_each(ctx, name, k) for name in ("dilation", "padding", "stride"))
    counts = [_blocks(ctx, image[i], kernel[i], dilation[i], padding[i], stride[i]) for i in range(k)]
    ctx.equal(data.dim(-1), product(ctx, counts), symbol="blocks")
    channels = divided(ctx, data, data.rank - 2, _product(kernel))
    return ctx.tensor(list(data.dims[:-2]) + [channels] + image)


def _product(values: list) -> int:
    out = 1
    for v in values:
        out *= v
    return out


# recurrent layers ------------------------------------------------------------------------------------
GATES = {"aten.lstm": 4, "aten.gru": 3, "aten.rnn_tanh": 1, "aten.rnn_relu": 1}


@shape_rule("aten_rnn")
def rnn(ctx: ShapeContext) -> Any:
    """`aten.lstm(input, hx, params, ...)` and GRU / RNN: see stdlib/aten_nn.rly."""
    data, hx_arg, params_arg = ctx.args
    gates = GATES[ctx.op_name]
    layers, bidirectional = ctx.attr("num_layers"), ctx.attr("bidirectional")
    directions = 2 if bidirectional else 1
    per = 4 if ctx.attr("has_biases") else 2
    params = ctx.tuple_fields(params_arg)
    states = ctx.tuple_fields(hx_arg) if hx_arg.is_tuple else [hx_arg]
    # an LSTM with proj_size has w_hr (proj, hidden) after each slot's weights
    projected = gates == 4 and params is not None and len(params) == layers * directions * (per + 1)
    if params is not None and len(params) != layers * directions * per and not projected:
        ctx.fail(
            "rnn-params", count=len(params), layers=layers, directions=directions, wanted=layers * directions * per
        )
    hidden = _hidden(ctx, params, states)
    cell = hidden
    if projected and params is not None and params[per].dims is not None:
        ctx.require_rank(params[per], 2)
        cell = params[per].dim(1)
        if hidden is not None and ctx.static(hidden) is not None and ctx.static(hidden) == ctx.static(cell):
            # torch tells a projection by h and c of different sizes: proj_size < hidden_size
            wanted = layers * directions * per
            ctx.fail("rnn-params", count=len(params), layers=layers, directions=directions, wanted=wanted)
    shapes = _sequence_dims(ctx, data, hidden * directions if hidden is not None else None)
    if shapes is None:
        out = [ctx.tensor(None)] + [ctx.tensor(None) for _ in range(2 if gates == 4 else 1)]
        return ctx.tuple(out)
    output, batch = shapes
    if params is not None and hidden is not None and cell is not None:
        stride = per + 1 if projected else per
        _check_weights(ctx, params, data.dim(-1), (hidden, cell), gates, (layers, directions), (per, stride))
    leading = [ctx.const(layers * directions)] + ([batch] if batch is not None else [])
    state_dims = [leading + [hidden], leading + [cell]]
    for state, dims in zip(states or [], state_dims):
        ctx.require_rank(state, len(dims))
        for have, want in zip(state.dims, dims):
            ctx.equal(have, want, symbol="state")
    fields = [ctx.tensor(output), ctx.tensor(state_dims[0])]
    if gates == 4:
        fields.append(ctx.tensor(state_dims[1]))
    return ctx.tuple(fields)


CELL_GATES = {"aten.lstm_cell": 4, "aten.gru_cell": 3, "aten.rnn_tanh_cell": 1, "aten.rnn_relu_cell": 1}


@shape_rule("aten_rnn_cell")
def rnn_cell(ctx: ShapeContext) -> Any:
    """`aten.lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh)` and GRU / RNN cells: see
    stdlib/aten_nn.rly."""
    data, hx_arg, w_ih, w_hh, b_ih, b_hh = ctx.args
    gates = CELL_GATES[ctx.op_name]
    states = ctx.tuple_fields(hx_arg) if hx_arg.is_tuple else [hx_arg]
    if gates == 4 and states is not None and len(states) != 2:
        ctx.fail("rnn-params", count=len(states), layers=1, directions=1, wanted=2)
    ctx.require_rank(w_hh, 2)
    ctx.require_rank(w_ih, 2)
    hidden = w_hh.dim(1) if w_hh.dims is not None else None
    if hidden is None and states and states[0].dims is not None and states[0].rank:
        hidden = states[0].dim(-1)
    rows = hidden * gates if hidden is not None else None
    if rows is not None:
        for weight in (w_ih, w_hh):
            if weight.dims is not None:
                ctx.equal(weight.dim(0), rows, symbol="gates * hidden")
        for bias in (b_ih, b_hh):
            vector = present(ctx, bias)
            if vector is not None:
                ctx.require_rank(vector, 1)
                ctx.equal(vector.dim(0), rows, symbol="gates * hidden")
    if data.dims is None:
        state = None
    else:
        if data.rank not in (1, 2):
            ctx.fail("rank", arg=data, actual=data.rank, expected=2)
        if w_ih.dims is not None:
            ctx.equal(data.dim(-1), w_ih.dim(1), symbol="input")
        state = None if hidden is None else list(data.dims[:-1]) + [hidden]
    for s in states or []:
        if state is not None:
            ctx.require_rank(s, len(state))
            for have, want in zip(s.dims, state):
                ctx.equal(have, want, symbol="state")
    if gates == 4:
        return ctx.tuple([ctx.tensor(state), ctx.tensor(None if state is None else list(state))])
    return ctx.tensor(state)


def _hidden(ctx: ShapeContext, params: Optional[list], states: Optional[list]) -> Any:
    """The hidden size: w_hh's second dim (or the initial state's last)."""
    if params and len(params) >= 2 and params[1].dims is not None:
        ctx.require_rank(params[1], 2)
        return params[1].dim(1)
    if states and states[0].dims is not None and states[0].rank:
        return states[0].dim(-1)
    return None


def _sequence_dims(ctx: ShapeContext, data: TensorArg, features: Any) -> Optional[tuple]:
    """(output dims, batch dim or None) of a recurrent layer over `data`."""
    if data.dims is None or features is None:
        return None
    if data.rank not in (2, 3):
        ctx.fail("rank", arg=data, actual=data.rank, expected=3)
    if data.rank == 2:
        ctx.within(data.dim(0), 1, None)  # torch rejects an empty sequence
        return [data.dim(0), features], None
    batch_first = ctx.attr("batch_first")
    batch, seq = (data.dim(0), data.dim(1)) if batch_first else (data.dim(1), data.dim(0))
    ctx.within(seq, 1, None)
    return ([batch, seq, features] if batch_first else [seq, batch, features]), batch


def _check_weights(
    ctx: ShapeContext, params: list, features: Any, sizes: tuple, gates: int, count: tuple, per: tuple
) -> None:
    """Each layer's w_ih (gates * cell, its input), w_hh (gates * cell, hidden), biases and, with
    a projection, w_hr (hidden, cell); `sizes` is (hidden, cell) (equal without a projection),
    `count` (layers, directions), `per` (weights and biases, their stride in params)."""
    (hidden, cell), (layers, directions), (weights, stride) = sizes, count, per
    rows = cell * gates
    for layer in range(layers):
        inputs = features if layer == 0 else hidden * directions
        for direction in range(directions):
            base = (layer * directions + direction) * stride
            w_ih, w_hh = params[base], params[base + 1]
            for weight, columns in ((w_ih, inputs), (w_hh, hidden)):
                ctx.require_rank(weight, 2)
                ctx.equal(weight.dim(0), rows, symbol="gates * hidden")
                ctx.equal(weight.dim(1), columns, symbol="input")
            for bias in params[base + 2 : base + weights]:
                ctx.require_rank(bias, 1)
                ctx.equal(bias.dim(0), rows, symbol="gates * hidden")
            if stride > weights:
                projection = params[base + weights]
                ctx.require_rank(projection, 2)
                ctx.equal(projection.dim(0), hidden, symbol="proj_size")
                ctx.equal(projection.dim(1), cell, symbol="hidden")


# normalization ---------------------------------------------------------------------------------------
def _channel_vectors(ctx: ShapeContext, data: TensorArg, vectors: list) -> Any:
    """Each vector given (not `()`) is as long as x's channels (dim 1); the channels."""
    ctx.require_rank_at_least(data, 2)
    channels = data.dim(1) if data.dims is not None else None
    for arg in vectors:
        vector = present(ctx, arg)
        if vector is not None:
            ctx.require_rank(vector, 1)
            channels = vector.dim(0) if channels is None else ctx.equal(channels, vector.dim(0), symbol="channels")
    return channels


@shape_rule("aten_group_norm")
def group_norm(ctx: ShapeContext) -> Any:
    """`aten.group_norm(x, weight, bias, num_groups)`: x (n, c, *) with c a multiple of the
    groups; native_group_norm also gives (n, group) statistics."""
    data, weight, bias = ctx.args
    native = ctx.op_name == "aten.native_group_norm"
    groups = ctx.attr("group" if native else "num_groups")
    if groups < 1:
        ctx.fail("attribute-range", name="num_groups", value=groups, needed="at least 1")
    _channel_vectors(ctx, data, [weight, bias])
    if data.dims is not None:
        divided(ctx, data, 1, groups)
    y = ctx.tensor(data.dims)
    if not native:
        return y
    stats = None if data.dims is None else [data.dim(0), ctx.const(groups)]
    return ctx.tuple([y, ctx.tensor(stats), ctx.tensor(None if stats is None else list(stats))])


@shape_rule("aten_instance_norm")
def instance_norm(ctx: ShapeContext) -> Any:
    """`aten.instance_norm(x, weight, bias)`: x (n, c, *); weight and bias (c,) or ()."""
    data, weight, bias = ctx.args
    _channel_vectors(ctx, data, [weight, bias])
    return ctx.tensor(data.dims)


@shape_rule("aten_batch_norm_batch_stats")
def batch_norm_batch_stats(ctx: ShapeContext) -> Any:
    """`aten.batch_norm_batch_stats(x, weight, bias)`: (y, mean, rstd), statistics (c,)."""
    data, weight, bias = ctx.args
    channels = _channel_vectors(ctx, data, [weight, bias])
    stats = None if channels is None else [channels]
    return ctx.tuple([ctx.tensor(data.dims), ctx.tensor(stats), ctx.tensor(None if stats is None else list(stats))])


@shape_rule("aten_rms_norm")
def rms_norm(ctx: ShapeContext) -> Any:
    """`aten.rms_norm(x, weight, normalized_shape)`: x's last dims are normalized_shape; the
    weight (or `()`) has that shape."""
    data, weight = ctx.args[:2]
    _affine(ctx, [weight], _normalized(ctx, data))
    return ctx.tensor(data.dims)


# losses --------------------------------------------------------------------------------------------
@shape_rule("aten_class_loss")
def class_loss(ctx: ShapeContext) -> Any:
    """`aten.nll_loss(x, target, weight, reduction)` and cross_entropy_loss: see
    stdlib/aten_nn.rly."""
    data, target = ctx.operand(0), ctx.operand(1)
    reduction = ctx.attr("reduction")
    out = _loss_dims(ctx, data, target)
    weight = ctx.optional_operand(2)
    if data.dims is not None and data.rank and ctx.op_name == "aten.cross_entropy_loss":
        require_nonempty(ctx, data, 0 if data.rank == 1 else 1, "a softmax over no classes has no value")
    if weight is not None and data.dims is not None and data.rank:
        ctx.equal(weight.dim(0), data.dim(0 if data.rank == 1 else 1), symbol="classes")
    loss = ctx.tensor(out if reduction == 0 else [])
    if ctx.op_name == "aten.nll_loss_forward":
        return ctx.tuple([loss, ctx.tensor([])])
    return loss


def _loss_dims(ctx: ShapeContext, data: TensorArg, target: TensorArg) -> Optional[list]:
    """The per-element loss dims: x's without the class dim, which target's must be (or, for
    probabilities in cross_entropy_loss, target has x's shape)."""
    ctx.require_rank_at_least(data, 1)
    if data.dims is None:
        return None
    wanted = [] if data.rank == 1 else [data.dim(0)] + list(data.dims[2:])
    probabilities = ctx.op_name == "aten.cross_entropy_loss" and dtype_name(target.dtype) in (
        "float16",
        "float32",
        "float64",
    )
    expected = list(data.dims) if probabilities else wanted
    ctx.require_rank(target, len(expected))
    for have, want in zip(target.dims, expected):
        ctx.equal(have, want, symbol="target")
    return wanted


@shape_rule("aten_margin_loss")
def margin_loss(ctx: ShapeContext) -> Any:
    """`aten.multi_margin_loss(x, target, weight)` and multilabel_margin_loss: x (n, c) or (c,)
    (declared, with target's rank and bounds); target (n,) (multi-label: x's shape, declared);
    (n,) (() for (c,)) with reduction 0, else ()."""
    data, target = ctx.operand(0), ctx.operand(1)
    if data.dims is None:
        return ctx.tensor(None if ctx.attr("reduction") == 0 else [])
    require_nonempty(ctx, data, data.rank - 1, "a margin over no classes has no value")
    if ctx.op_name == "aten.multi_margin_loss" and data.rank == 2 and target.dims is not None and target.rank == 1:
        ctx.equal(target.dim(0), data.dim(0), symbol="n")
    return ctx.tensor(list(data.dims[:-1]) if ctx.attr("reduction") == 0 else [])


# distances ----------------------------------------------------------------------------------------
@shape_rule("aten_cdist")
def cdist(ctx: ShapeContext) -> Any:
    """`aten.cdist(x1, x2)`: (*b, p, m) and (*b, r, m) -> (*b, p, r), batch dims broadcast."""
    a, b = ctx.operands()
    for arg in (a, b):
        ctx.require_rank_at_least(arg, 2)
    if a.dims is None or b.dims is None:
        return ctx.tensor(None)
    ctx.equal(a.dim(-1), b.dim(-1), symbol="m")
    batch = broadcast_dims(ctx, [list(a.dims[:-2]), list(b.dims[:-2])])
    return ctx.tensor(None if batch is None else list(batch) + [a.dim(-2), b.dim(-2)])


@shape_rule("aten_cosine_similarity")
def cosine_similarity(ctx: ShapeContext) -> Any:
    """`aten.cosine_similarity(x1, x2, dim)`: the broadcast shape without dim."""
    a, b = ctx.operands()
    dims = broadcast_dims(ctx, [a.dims, b.dims])
    if dims is None:
        return ctx.tensor(None)
    axis = normalize_axis(ctx, ctx.attr("dim"), max(len(dims), 1), "dim")
    return ctx.tensor(dims[:axis] + dims[axis + 1 :])


@shape_rule("aten_pairwise_distance")
def pairwise_distance(ctx: ShapeContext) -> Any:
    """`aten.pairwise_distance(x1, x2, keepdim)`: the broadcast shape, its last dim removed
    (kept as 1 with keepdim)."""
    a, b = ctx.operands()
    dims = broadcast_dims(ctx, [a.dims, b.dims])
    if dims is None:
        return ctx.tensor(None)
    if not dims:
        return ctx.tensor([])
    return ctx.tensor(dims[:-1] + ([ctx.const(1)] if ctx.attr("keepdim") else []))


@shape_rule("aten_pdist")
def pdist(ctx: ShapeContext) -> Any:
    """`aten.pdist(x, p)`: (n (n - 1) / 2,) for x (n, m) (declared, and p at least 0)."""
    (data,) = ctx.operands()
    n = data.dim(0)
    return ctx.tensor([(n * n - n) // 2])  # n (n - 1) would be a negative dim for n = 0


@shape_rule("aten_dist")
def dist(ctx: ShapeContext) -> Any:
    """`aten.dist(x, y, p)`: a scalar; x and y broadcast together."""
    a, b = ctx.operands()
    broadcast_dims(ctx, [a.dims, b.dims])
    return ctx.tensor([])
