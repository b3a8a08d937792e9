"""Shape rules of ATen's operators of model parts (stdlib/aten_nn.rly): resampling, recurrent
layers, group / RMS norms, classification losses, distances, im2col. What an operator accepts is
its declaration's; a rule here computes the result's dims and keeps only what the declaration
cannot say (a list attribute's entries against dims, a tuple of weights per layer).

Where ONNX has the operator (GridSample, Col2Im), its rule is used through `adapted`.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg, product
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.aten import adapted
from gradual.ops.rules.common import dtype_name, require_nonempty
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


def size_entries(ctx: ShapeContext, index: int) -> Optional[list]:
    """A SymInt list operand (a tuple of int64 scalars, declared) as dims: each known value, a
    fresh `?` where it is not; None when the list's length is unknown. Its entries are declared
    non-negative, so a known one is a dim."""
    fields = ctx.list_operand(index)
    if fields is None:
        return None
    out = []
    for field in fields:
        value = field.value[0] if field.value else None
        out.append(ctx.unknown() if value is None else ctx.const(value) if isinstance(value, int) else value)
    return out


@shape_rule("aten_affine_grid_generator")
def affine_grid_generator(ctx: ShapeContext) -> Any:
    """`aten.affine_grid_generator(theta, size)`: (n, *size[2:], r) with theta (n, r, r + 1)
    (declared, with size's length), ONNX's AffineGrid with the size a SymInt list."""
    theta = ctx.operand(0)
    dims = size_entries(ctx, 1)
    if dims is None:
        return ctx.tensor(None)
    batch = ctx.equal(theta.dim(0), dims[0], symbol="n") if ctx.exact(dims[0]) else theta.dim(0)
    return ctx.tensor([batch] + dims[2:] + [ctx.const(len(dims) - 2)])


def _blocks(ctx: ShapeContext, d: Any, kernel: int, dilation: int, padding: int, stride: int) -> Any:
    """How many windows of a convolution fit along a dim (at least one must)."""
    reach = dilation * (kernel - 1) + 1 - 2 * padding
    ctx.within(d, max(reach, 0), None)
    return (d - reach) // stride + 1 if reach >= 0 else (d + -reach) // stride + 1


@shape_rule("aten_im2col")
def im2col(ctx: ShapeContext) -> Any:
    """`aten.im2col(x, kernel_size, dilation, padding, stride)`: (n, c, h, w) ->
    (n, c * kh * kw, blocks); the image non-empty, every list of two entries (declared)."""
    data = ctx.operand(0)
    kernel = list(ctx.attr("kernel_size"))
    k = len(kernel)  # 2, and rank 3 or 4: declared
    if data.dims is None:
        return ctx.tensor(None)
    rank = len(data.dims)
    dilation, padding, stride = (list(ctx.attr(name)) for name in ("dilation", "padding", "stride"))
    spatial = data.dims[rank - k :]
    counts = [_blocks(ctx, d, kernel[i], dilation[i], padding[i], stride[i]) for i, d in enumerate(spatial)]
    channels = data.dim(rank - k - 1) * product(ctx, [ctx.const(v) for v in kernel])
    return ctx.tensor(list(data.dims[: rank - k - 1]) + [channels, product(ctx, counts)])


@shape_rule("aten_col2im")
def col2im(ctx: ShapeContext) -> Any:
    """`aten.col2im(x, output_size, kernel_size, dilation, padding, stride)`: (n, c * kh * kw,
    blocks) -> (n, c, *output_size); blocks is how many windows fit in output_size.
    `aten.col2im_sized` takes output_size as a SymInt list (F.fold to `x.shape[-2:]`); both
    have as many entries as kernel_size, and the columns are non-empty (declared)."""
    data = ctx.operand(0)
    if ctx.op_name == "aten.col2im_sized":
        image = size_entries(ctx, 1)
        if image is None:
            return ctx.tensor(None)
    else:
        image = [ctx.const(v) for v in ctx.attr("output_size")]
    kernel = list(ctx.attr("kernel_size"))
    k = len(kernel)
    if data.dims is None:  # (c * kh * kw, blocks), or a batch of them: declared
        return ctx.tensor(None)
    rank = len(data.dims)
    dilation, padding, stride = (list(ctx.attr(name)) for name in ("dilation", "padding", "stride"))
    counts = [_blocks(ctx, image[i], kernel[i], dilation[i], padding[i], stride[i]) for i in range(k)]
    ctx.equal(data.dim(-1), product(ctx, counts), symbol="blocks")
    channels = divided(ctx, data, rank - 2, _product(kernel))
    return ctx.tensor(list(data.dims[:-2]) + [channels] + image)


def _product(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


# recurrent layers ------------------------------------------------------------------------------------
GATES = {"aten.lstm": 4, "aten.gru": 3, "aten.rnn_tanh": 1, "aten.rnn_relu": 1}


def _states(ctx: ShapeContext, lstm: bool) -> Optional[list[TensorArg]]:
    """The initial states: lstm's (h, c) list, the one tensor of the others."""
    return ctx.list_operand(1) if lstm else [ctx.operand(1)]


@shape_rule("aten_rnn")
def rnn(ctx: ShapeContext) -> Any:
    """`aten.lstm(input, hx, params, ...)` and GRU / RNN: see stdlib/aten_nn.rly."""
    data = ctx.operand(0)
    gates = GATES[ctx.op_name]
    layers, bidirectional = ctx.attr("num_layers"), ctx.attr("bidirectional")
    directions = 2 if bidirectional else 1
    per = 4 if ctx.attr("has_biases") else 2
    params = ctx.list_operand(2)
    states = _states(ctx, gates == 4)
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
    if data.dims is None or hidden is None:
        out = [ctx.tensor(None)] + [ctx.tensor(None) for _ in range(2 if gates == 4 else 1)]
        return ctx.tuple(out)
    output, batch = _sequence_dims(ctx, data.dims, hidden * directions)
    if params is not None and cell is not None:
        stride = per + 1 if projected else per
        _check_weights(ctx, params, data.dim(-1), (hidden, cell), gates, (layers, directions), (per, stride))
    leading = [ctx.const(layers * directions), batch]
    state_dims = [leading + [hidden], leading + [cell]]
    for state, dims in zip(states or [], state_dims):
        _same_dims(ctx, state, dims)
    fields = [ctx.tensor(output), ctx.tensor(state_dims[0])]
    if gates == 4:
        fields.append(ctx.tensor(state_dims[1]))
    return ctx.tuple(fields)


def _same_dims(ctx: ShapeContext, arg: TensorArg, dims: list) -> None:
    """`arg` has exactly the dims `dims` (a state against the layer's)."""
    ctx.require_rank(arg, len(dims))
    if arg.dims is not None:
        for have, want in zip(arg.dims, dims):
            ctx.equal(have, want, symbol="state")


def _hidden(ctx: ShapeContext, params: Optional[list[TensorArg]], states: Optional[list[TensorArg]]) -> Any:
    """The hidden size: w_hh's second dim (or the initial state's last), None where unknown."""
    if params and len(params) >= 2 and params[1].dims is not None:
        ctx.require_rank(params[1], 2)
        return params[1].dim(1)
    if states and states[0].dims:
        return states[0].dim(-1)
    return None


def _sequence_dims(ctx: ShapeContext, dims: list, features: Any) -> tuple[list, Any]:
    """(output dims, batch dim) of a recurrent layer over an input of `dims` (rank 3, declared)."""
    batch, seq = (dims[0], dims[1]) if ctx.attr("batch_first") else (dims[1], dims[0])
    ctx.within(seq, 1, None)  # torch rejects an empty sequence
    return ([batch, seq, features] if ctx.attr("batch_first") else [seq, batch, features]), batch


def _check_weights(
    ctx: ShapeContext, params: list[TensorArg], features: Any, sizes: tuple, gates: int, count: tuple, per: tuple
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
                _same_dims(ctx, weight, [rows, columns])
            for bias in params[base + 2 : base + weights]:
                _same_dims(ctx, bias, [rows])
            if stride > weights:
                _same_dims(ctx, params[base + weights], [hidden, cell])


# normalization ---------------------------------------------------------------------------------------
@shape_rule("aten_native_group_norm")
def native_group_norm(ctx: ShapeContext) -> Any:
    """`aten.native_group_norm(x, weight, bias, group)`: (y, mean, rstd) with the statistics
    (n, group); x (n, c, *) with c a multiple of the groups, weight and bias (c,) (declared)."""
    data = ctx.operand(0)
    if data.dims is None:
        return ctx.tuple([ctx.tensor(None), ctx.tensor(None), ctx.tensor(None)])
    stats = [data.dim(0), ctx.const(ctx.attr("group"))]
    return ctx.tuple([ctx.tensor(data.dims), ctx.tensor(stats), ctx.tensor(list(stats))])


@shape_rule("aten_rms_norm")
def rms_norm(ctx: ShapeContext) -> Any:
    """`aten.rms_norm(x, weight, normalized_shape)`: x's last dims are normalized_shape (an
    attribute, or the SymInt list operand of `aten.rms_norm_sized`); its length, and the
    weight's shape, are declared."""
    data = ctx.operand(0)
    if ctx.op_name == "aten.rms_norm_sized":
        wanted = size_entries(ctx, 2)
    else:
        wanted = [ctx.const(v) for v in ctx.attr("normalized_shape")]
    if data.dims is not None and wanted is not None:
        for have, want in zip(data.dims[len(data.dims) - len(wanted) :], wanted):
            ctx.equal(have, want, symbol="normalized_shape")
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
    if data.dims and ctx.op_name == "aten.cross_entropy_loss":
        require_nonempty(ctx, data, 0 if len(data.dims) == 1 else 1, "a softmax over no classes has no value")
    if weight is not None and data.dims:
        ctx.equal(weight.dim(0), data.dim(0 if len(data.dims) == 1 else 1), symbol="classes")
    loss = ctx.tensor(out if reduction == 0 else [])
    if ctx.op_name == "aten.nll_loss_forward":
        return ctx.tuple([loss, ctx.tensor([])])
    return loss


def _loss_dims(ctx: ShapeContext, data: TensorArg, target: TensorArg) -> Optional[list]:
    """The per-element loss dims: x's without the class dim, which target's must be (or, for
    probabilities in cross_entropy_loss, target has x's shape); x has a dim (declared)."""
    if data.dims is None:
        return None
    wanted = [] if len(data.dims) == 1 else [data.dim(0)] + list(data.dims[2:])
    probabilities = ctx.op_name == "aten.cross_entropy_loss" and dtype_name(target.dtype) in (
        "float16",
        "float32",
        "float64",
    )
    _same_target(ctx, target, list(data.dims) if probabilities else wanted)
    return wanted


def _same_target(ctx: ShapeContext, target: TensorArg, dims: list) -> None:
    ctx.require_rank(target, len(dims))
    if target.dims is not None:
        for have, want in zip(target.dims, dims):
            ctx.equal(have, want, symbol="target")


@shape_rule("aten_margin_loss")
def margin_loss(ctx: ShapeContext) -> Any:
    """`aten.multi_margin_loss(x, target, weight)` and multilabel_margin_loss: x (n, c) or (c,)
    with classes (declared, with target's rank and bounds); target (n,) (multi-label: x's shape, declared);
    (n,) (() for (c,)) with reduction 0, else ()."""
    data, target = ctx.operand(0), ctx.operand(1)
    if data.dims is None:
        return ctx.tensor(None if ctx.attr("reduction") == 0 else [])
    if ctx.op_name == "aten.multi_margin_loss" and len(data.dims) == 2 and target.dims is not None:
        ctx.equal(target.dim(0), data.dim(0), symbol="n")
    return ctx.tensor(list(data.dims[:-1]) if ctx.attr("reduction") == 0 else [])


# distances ----------------------------------------------------------------------------------------
@shape_rule("aten_cdist")
def cdist(ctx: ShapeContext) -> Any:
    """`aten.cdist(x1, x2)`: (*b, p, m) and (*b, r, m) -> (*b, p, r), batch dims broadcast (the
    ranks and m declared)."""
    a, b = ctx.operands()
    if a.dims is None or b.dims is None:
        return ctx.tensor(None)
    batch = broadcast_dims(ctx, [list(a.dims[:-2]), list(b.dims[:-2])])
    return ctx.tensor(list(batch) + [a.dim(-2), b.dim(-2)])


@shape_rule("aten_cosine_similarity")
def cosine_similarity(ctx: ShapeContext) -> Any:
    """`aten.cosine_similarity(x1, x2, dim)`: the broadcast shape without dim (a dim of it, or
    0 or -1 of a scalar: declared)."""
    a, b = ctx.operands()
    dims = broadcast_dims(ctx, [a.dims, b.dims])
    if dims is None:
        return ctx.tensor(None)
    axis = ctx.attr("dim") % max(len(dims), 1)
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
