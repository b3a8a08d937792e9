"""Convolution and pooling over 1, 2 or 3 spatial dims: output sizes computed from attributes
over the dimension domain.

Layouts are read letter by letter (`gradual/ops/layouts.py`), so any order of `NCHW` (data) and
`OIHW` (kernel) works, `NCW` and `NCDHW` for 1-D and 3-D, and packed layouts such as `NCHW4c`
(whose inner `4c` part multiplies into C). Padding takes Relay's 1, k or 2k values for k
spatial dims (all; each dim's both sides; the k befores then the k afters: top, left, bottom,
right in 2-D).
"""

from __future__ import annotations

from typing import Any, Sequence

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg
from gradual.ops.layouts import factors, parse_layout
from gradual.ops.messages import register_rule_message
from gradual.ops.rules.common import require_nonempty, show_ints
from gradual.ops.rules.nn import product_operands
from gradual.ops.tables import shape_rule

register_rule_message(
    "layout",
    codes.BAD_ATTRIBUTE,
    '{op} does not support {name}="{layout}"',
    "use a layout made of the letters {letters} (e.g. {example}), optionally packed (e.g. {example}4c)",
)
register_rule_message(
    "layout-split",
    codes.SHAPE_MISMATCH,
    '{op} packs {letter} by {factor} in {name}="{layout}", but {letter} is {dim}',
    "choose a factor that divides {letter}, or an unpacked layout",
)
register_rule_message(
    "window-too-large",
    codes.SHAPE_MISMATCH,
    "{op}'s window spans {window}, but dim {axis} of {arg} is {dim} (with {pad} padding)",
    "pad the input, or use a smaller kernel, pool size or dilation",
)
register_rule_message(
    "conv-kernel-size",
    codes.SHAPE_MISMATCH,
    "{op} got kernel_size={kernel_size}, but the kernel of {arg} is {kernel}",
    "drop `kernel_size` or make it match the weight",
)
register_rule_message(
    "groups-channels",
    codes.SHAPE_MISMATCH,
    "{op} got {name}={groups}, which does not divide the {channels} channels of {which}",
    "choose `{name}` dividing the channels",
)
register_rule_message(
    "conv-groups",
    codes.SHAPE_MISMATCH,
    "{op} got groups={groups}, which does not divide the {channels} output channels of the weight",
    "choose `groups` dividing both the input and the output channels",
)

register_rule_message(
    "nchwc-out-layout",
    codes.BAD_ATTRIBUTE,
    '{op} writes its output packed by the weight\'s last dim, but the output layout "{layout}" packs no channels',
    "give out_layout (or data_layout) a channel block, e.g. NCHW8c",
)

#: the spatial letters for 1, 2 and 3 spatial dims, in the order attributes list them
SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


# layouts ----------------------------------------------------------------------------------------
def check_layout(ctx: ShapeContext, layout: str, letters: str, name: str) -> list:
    """The axes of a layout made of `letters` (possibly packed), else a bad-attribute failure."""
    axes = parse_layout(layout, letters)
    if axes is None:
        ctx.fail("layout", name=name, layout=layout, letters=", ".join(letters), example=letters)
    return axes


def layout_dims(ctx: ShapeContext, arg: TensorArg, layout: str, letters: str, name: str) -> dict:
    """The dims of an argument by letter (`{"N": ..., "C": ...}`), a packed dim's two parts
    multiplied (its inner part must be the layout's factor)."""
    axes = check_layout(ctx, layout, letters, name)
    ctx.require_rank(arg, len(axes))
    by_letter = {a.letter: arg.dim(i) for i, a in enumerate(axes) if a.factor is None}
    for i, a in enumerate(axes):
        if a.factor is not None:
            ctx.equal(arg.dim(i), ctx.const(a.factor), symbol=f"{a.factor}{a.letter}")
            by_letter[a.primal] = by_letter[a.primal] * a.factor
    return by_letter


def assemble(ctx: ShapeContext, layout: str, letters: str, by_letter: dict, name: str = "out_layout") -> list:
    """The dims in the order a layout gives, packed dims split by their factor (which must
    divide them)."""
    axes = check_layout(ctx, layout, letters, name)
    split = factors(axes)
    out = []
    for a in axes:
        if a.factor is not None:
            out.append(ctx.const(a.factor))
        elif a.letter in split:
            out.append(_split(ctx, by_letter[a.letter], split[a.letter], a.letter, layout, name))
        else:
            out.append(by_letter[a.letter])
    return out


def _split(ctx: ShapeContext, whole: Any, factor: int, letter: str, layout: str, name: str) -> Any:
    """The outer part of a dim a layout packs by `factor`, which must divide it."""
    size = ctx.static(whole)
    if size is not None and size % factor:
        ctx.fail("layout-split", name=name, layout=layout, letter=letter, dim=size, factor=factor)
    return ctx.quotient(whole, factor, symbol=f"{letter} (split by {factor})")


# attributes -------------------------------------------------------------------------------------
def per_dim(ctx: ShapeContext, name: str, k: int) -> list:
    """A k-dim attribute's values per dim (see `spread`); its declaration holds its length
    and entries."""
    return spread(ctx.attr(name), k)


def spread(values: Sequence[int], k: int) -> list:
    """A k-dim attribute's values per dim, from 1 value for all or k (or more, where Relay
    prints more: the first k count), as its declaration holds it."""
    values = list(values)
    return values * k if len(values) == 1 else values[:k]


def padding(ctx: ShapeContext, k: int, name: str = "padding") -> list:
    """(before, after) per spatial dim of a padding attribute (see `pad_pairs`)."""
    return pad_pairs(ctx.attr(name), k)


def pad_pairs(values: Sequence[int], k: int) -> list:
    """(before, after) per spatial dim from 1, k or 2k padding values (as declared)."""
    values = list(values)
    if len(values) == 1:
        return [(values[0], values[0])] * k
    if len(values) == 2 * k:
        return list(zip(values[:k], values[k:]))
    return [(v, v) for v in values]


# windows ----------------------------------------------------------------------------------------
def window_output(
    ctx: ShapeContext,
    data: TensorArg,
    axis: int,
    size: Any,
    kernel: Any,
    pad: int,
    stride: int,
    dilation: int,
    ceil: bool = False,
) -> Any:
    """Sliding-window output length: (size + pad - span) // stride + 1, span the dilated kernel.
    The window must fit: a static misfit fails; where the length is not provably a size
    (`h - 2` of a 3x3 window without padding), the fit is checked at runtime, even of a
    rigid dim, as a slice's length is; otherwise the rule's evaluation before the kernel
    decides (an imprecise dim still gets its check)."""
    span = (kernel - 1) * dilation + 1
    need = ctx.static(span)
    if need is not None:
        have = ctx.static(size)
        if have is not None and have + pad < need:
            ctx.fail("window-too-large", arg=data, axis=axis, dim=size, pad=pad, window=need)
    padded = size + pad
    if ceil:
        length = (padded - span + (stride - 1)) // stride + 1
    else:
        length = (padded - span) // stride + 1
    if need is not None:
        if need - pad > 0 and ctx.at_least(length, 0) is not True:
            ctx.assume_within(size, need - pad, None)
        elif need - pad > 0:
            ctx.within(size, need - pad, None)
    return length


def _axis_of(layout: str, letter: str) -> int:
    """The position of a whole dim in a layout (its outer part, if packed)."""
    axes = parse_layout(layout, "".join(c for c in layout if c.isupper())) or []
    return next(i for i, a in enumerate(axes) if a.letter == letter)


# convolution ------------------------------------------------------------------------------------
def _check_channels(ctx: ShapeContext, out_channels: Any) -> None:
    channels = ctx.attr("channels")
    if channels is not None:
        ctx.equal(out_channels, ctx.const(channels), symbol="channels")


def _check_kernel_size(ctx: ShapeContext, weight: TensorArg, kernel: dict, spatial: str) -> None:
    """`kernel_size`, when given, must describe the weight's spatial dims."""
    size = ctx.attr("kernel_size")
    if size is None:
        return  # its length, 1 or one per spatial dim, is the declaration's
    wanted = list(size) * len(spatial) if len(size) == 1 else list(size)
    have = [ctx.static(kernel[s]) for s in spatial]
    if any(h is not None and h != w for h, w in zip(have, wanted)):
        ctx.fail("conv-kernel-size", arg=weight, kernel_size=show_ints(list(size)), kernel=[kernel[s] for s in spatial])
    for s, w in zip(spatial, wanted):
        ctx.equal(kernel[s], ctx.const(w), symbol="kernel_size")


def _out_dtype(ctx: ShapeContext) -> Any:
    return ctx.attr("out_dtype") or None


def _layouts(ctx: ShapeContext, spatial: str) -> tuple:
    data_layout = ctx.attr("data_layout")
    check_layout(ctx, data_layout, "NC" + spatial, "data_layout")
    out_layout = ctx.attr("out_layout") or data_layout
    check_layout(ctx, out_layout, "NC" + spatial, "out_layout")
    return data_layout, out_layout


def conv(ctx: ShapeContext, spatial: str) -> Any:
    """`nn.conv{1,2,3}d(data, weight, strides, padding, dilation, groups, channels, kernel_size,
    data_layout, kernel_layout, out_layout, out_dtype)`: weight is (O, I, *kernel) with
    C = I * groups; the output has O channels and windowed spatial dims."""
    data, weight = ctx.operand(0), ctx.operand(1)  # qnn convolutions add zero points and scales after them
    product_operands(ctx)
    layout, out_layout = _layouts(ctx, spatial)
    x = layout_dims(ctx, data, layout, "NC" + spatial, "data_layout")
    k = layout_dims(ctx, weight, ctx.attr("kernel_layout"), "OI" + spatial, "kernel_layout")
    groups = ctx.attr("groups")  # the declaration holds the attributes to their domains
    ctx.equal(x["C"], k["I"] * groups, symbol="in_channels")
    out_channels = ctx.static(k["O"])
    if out_channels is not None and out_channels % groups != 0:
        ctx.fail("conv-groups", groups=groups, channels=out_channels)
    _check_channels(ctx, k["O"])
    _check_kernel_size(ctx, weight, k, spatial)
    strides, dilation, pads = _windows(ctx, len(spatial))
    out = {"N": x["N"], "C": k["O"]}
    for i, s in enumerate(spatial):
        out[s] = window_output(ctx, data, _axis_of(layout, s), x[s], k[s], sum(pads[i]), strides[i], dilation[i])
    return ctx.tensor(assemble(ctx, out_layout, "NC" + spatial, out), _out_dtype(ctx))


@shape_rule("conv2d_nchwc")
def conv2d_nchwc(ctx: ShapeContext) -> Any:
    """`nn.contrib_conv2d_NCHWc(data (n, ic, h, w, ib), weight (oc, ic, kh, kw, ib, ob))`: the
    data's layout packs C by ib; oc * ob output channels in out_layout, windowed spatial dims
    (the contract relates the operands' blocks)."""
    data, weight = ctx.operands()
    product_operands(ctx)
    layout, out_layout = _layouts(ctx, "HW")
    x = layout_dims(ctx, data, layout, "NCHW", "data_layout")
    oc, _, kh, kw, _, ob = weight.dims  # type: ignore[misc]
    block = factors(check_layout(ctx, out_layout, "NCHW", "out_layout")).get("C")
    if block is None:
        ctx.fail("nchwc-out-layout", layout=out_layout)
    ctx.equal(ob, ctx.const(block), symbol=f"the {block}c of {out_layout}")  # topi packs the output by ob
    _check_kernel_size(ctx, weight, {"H": kh, "W": kw}, "HW")
    strides, dilation, pads = _windows(ctx, 2)
    out = {"N": x["N"], "C": oc * ob}
    for i, (s, k) in enumerate((("H", kh), ("W", kw))):
        out[s] = window_output(ctx, data, _axis_of(layout, s), x[s], k, sum(pads[i]), strides[i], dilation[i])
    return ctx.tensor(assemble(ctx, out_layout, "NCHW", out), _out_dtype(ctx))


def _windows(ctx: ShapeContext, k: int) -> tuple[list, list, list]:
    """strides, dilation and (before, after) padding per spatial dim, as declared."""
    return spread(ctx.attr("strides"), k), spread(ctx.attr("dilation"), k), pad_pairs(ctx.attr("padding"), k)


def conv_transpose(ctx: ShapeContext, spatial: str) -> Any:
    """`nn.conv{1,2,3}d_transpose(...)`: weight is (I, O, *kernel) in the default IO.. layout
    with I = C; the output has O * groups channels and spatial dims
    (size - 1) * stride - pads + dilation * (kernel - 1) + output_padding + 1."""
    data, weight = ctx.operand(0), ctx.operand(1)  # qnn convolutions add zero points and scales after them
    product_operands(ctx)
    layout, out_layout = _layouts(ctx, spatial)
    x = layout_dims(ctx, data, layout, "NC" + spatial, "data_layout")
    k = layout_dims(ctx, weight, ctx.attr("kernel_layout"), "OI" + spatial, "kernel_layout")
    groups = ctx.attr("groups")
    ctx.equal(x["C"], k["I"], symbol="in_channels")
    grouped(ctx, x["C"], groups, "the input")
    if data.dims is not None:  # (size - 1) * stride + ... would grow an empty image
        for s in spatial:
            require_nonempty(ctx, data, _axis_of(layout, s), "a transposed convolution spreads its input's elements")
    strides, dilation, pads = _windows(ctx, len(spatial))
    extra = spread(ctx.attr("output_padding"), len(spatial))
    out_channels = k["O"] * groups
    _check_channels(ctx, out_channels)
    _check_kernel_size(ctx, weight, k, spatial)
    out = {"N": x["N"], "C": out_channels}
    for i, s in enumerate(spatial):
        out[s] = _transposed(x[s], k[s], strides[i], dilation[i], extra[i], sum(pads[i]))
    return ctx.tensor(assemble(ctx, out_layout, "NC" + spatial, out), _out_dtype(ctx))


def _transposed(size: Any, kernel: Any, stride: int, dilation: int, extra: int, pad: int) -> Any:
    grown = (size - 1) * stride + (kernel - 1) * dilation + (1 + extra)
    return grown - pad if pad else grown


def _kernel_size(ctx: ShapeContext, spatial: str) -> list:
    """The `kernel_size` attribute, which an operator without a weight declares present."""
    return spread(ctx.attr("kernel_size"), len(spatial))


@shape_rule("conv2d_backward_weight")
def conv2d_backward_weight(ctx: ShapeContext) -> Any:
    """`nn.conv2d_backward_weight(grad, data, strides, padding, dilation, groups, channels,
    kernel_size, ...)`: the gradient of a conv2d's weight, (O, C / groups, kh, kw) for the
    output gradient's O channels; the gradient has the convolution's output shape."""
    grad, data = ctx.operands()
    spatial = "HW"
    g = layout_dims(ctx, grad, ctx.attr("data_layout"), "NC" + spatial, "data_layout")
    x = layout_dims(ctx, data, ctx.attr("kernel_layout"), "NC" + spatial, "kernel_layout")
    ctx.equal(g["N"], x["N"], symbol="batch")
    groups = ctx.attr("groups")
    _check_channels(ctx, g["C"])
    kernel = _kernel_size(ctx, spatial)
    strides, dilation, pads = _windows(ctx, 2)
    for i, s in enumerate(spatial):
        out = window_output(
            ctx,
            data,
            _axis_of(ctx.attr("kernel_layout"), s),
            x[s],
            ctx.const(kernel[i]),
            sum(pads[i]),
            strides[i],
            dilation[i],
        )
        ctx.equal(g[s], out, symbol=f"output {s}")
    grouped(ctx, g["C"], groups, "the output gradient")
    weight = {
        "O": g["C"],
        "I": grouped(ctx, x["C"], groups, "the data"),
        "H": ctx.const(kernel[0]),
        "W": ctx.const(kernel[1]),
    }
    return ctx.tensor(assemble(ctx, ctx.attr("out_layout") or "OIHW", "OI" + spatial, weight), _out_dtype(ctx))


def grouped(ctx: ShapeContext, channels: Any, groups: int, which: str, name: str = "groups") -> Any:
    """channels / groups, requiring groups to divide them (a grouped convolution splits its
    channels into groups; conv2d_backward_weight's kernel refused groups=2^62 at run, and
    ONNX ConvTranspose's looped over a million empty groups for group=10^6 and 1 channel)."""
    known = ctx.static(channels)
    if known is None:
        return ctx.quotient(channels, groups, symbol="channels")
    if known % groups:
        ctx.fail("groups-channels", name=name, groups=groups, channels=known, which=which)
    return ctx.const(known // groups)


@shape_rule("deformable_conv2d")
def deformable_conv2d(ctx: ShapeContext) -> Any:
    """`nn.deformable_conv2d(data, offset, weight, ..., deformable_groups, groups)`: conv2d whose
    kernel taps move by learned offsets: offset is (N, 2 * kh * kw * deformable_groups, oh, ow)."""
    data, offset, weight = ctx.operands()
    spatial = "HW"
    layout, out_layout = _layouts(ctx, spatial)
    x = layout_dims(ctx, data, layout, "NC" + spatial, "data_layout")
    k = layout_dims(ctx, weight, ctx.attr("kernel_layout"), "OI" + spatial, "kernel_layout")
    o = layout_dims(ctx, offset, layout, "NC" + spatial, "data_layout")
    groups, deformable = ctx.attr("groups"), ctx.attr("deformable_groups")
    ctx.equal(x["C"], k["I"] * groups, symbol="in_channels")
    _check_channels(ctx, k["O"])
    _check_kernel_size(ctx, weight, k, spatial)
    strides, dilation, pads = _windows(ctx, 2)
    out = {"N": x["N"], "C": k["O"]}
    for i, s in enumerate(spatial):
        out[s] = window_output(ctx, data, _axis_of(layout, s), x[s], k[s], sum(pads[i]), strides[i], dilation[i])
        ctx.equal(o[s], out[s], symbol=f"offset {s}")
    ctx.equal(o["N"], x["N"], symbol="batch")
    ctx.equal(o["C"], k["H"] * k["W"] * (2 * deformable), symbol="offsets")
    return ctx.tensor(assemble(ctx, out_layout, "NC" + spatial, out), _out_dtype(ctx))


# pooling ----------------------------------------------------------------------------------------
def pool(ctx: ShapeContext, spatial: str) -> Any:
    """`nn.max_pool{1,2,3}d` / `nn.avg_pool{1,2,3}d(pool_size, strides, dilation, padding,
    layout, ceil_mode)`: windowed spatial dims; ceil_mode rounds the window count up."""
    (data,) = ctx.operands()
    layout = ctx.attr("layout")
    out_layout = ctx.attr("out_layout") or layout
    x = layout_dims(ctx, data, layout, "NC" + spatial, "layout")
    sizes = spread(ctx.attr("pool_size"), len(spatial))  # the declaration holds them to their domains
    strides, dilation, pads = _windows(ctx, len(spatial))
    ceil = bool(ctx.attr("ceil_mode"))
    out = dict(x)
    for i, s in enumerate(spatial):
        out[s] = window_output(
            ctx, data, _axis_of(layout, s), x[s], ctx.const(sizes[i]), sum(pads[i]), strides[i], dilation[i], ceil
        )
    return ctx.tensor(assemble(ctx, out_layout, "NC" + spatial, out))


def _require_image(ctx: ShapeContext, data: TensorArg, layout: str, spatial: str, why: str) -> None:
    """The spatial dims of a known-rank image are not empty."""
    if data.dims is not None:
        for s in spatial:
            require_nonempty(ctx, data, _axis_of(layout, s), why)


@shape_rule("pool2d_grad")
def pool2d_grad(ctx: ShapeContext) -> Any:
    """`nn.max_pool2d_grad` / `nn.avg_pool2d_grad(out_grad, data, ...)`: the data's shape;
    out_grad has the shape pooling the data gives (the kernel reads one gradient per window)."""
    out_grad, data = ctx.operands()
    layout = ctx.attr("layout")
    x = layout_dims(ctx, data, layout, "NCHW", "layout")
    sizes, strides = list(ctx.attr("pool_size")), list(ctx.attr("strides"))
    pads = pad_pairs(ctx.attr("padding"), 2)
    pooled = dict(x)
    for i, s in enumerate("HW"):
        pooled[s] = window_output(
            ctx,
            data,
            _axis_of(layout, s),
            x[s],
            ctx.const(sizes[i]),
            sum(pads[i]),
            strides[i],
            1,
            ctx.attr("ceil_mode"),
        )
    want = assemble(ctx, layout, "NCHW", pooled, "layout")
    ctx.require_rank(out_grad, len(want))
    for i, dim in enumerate(want):
        ctx.equal(out_grad.dim(i), dim, symbol="the pooled shape")
    return ctx.tensor(data.dims)


@shape_rule("correlation")
def correlation(ctx: ShapeContext) -> Any:
    """`nn.correlation(data1, data2, kernel_size, max_displacement, stride1, stride2, padding)`:
    one channel per displacement, (2 * (max_displacement // stride2) + 1)^2, and output positions
    stride1 apart where a window of 2 * (max_displacement + kernel_size // 2) + 1 fits the padded
    image (Relay's ceiling division)."""
    data, _ = ctx.operands()
    displacement, stride2 = ctx.attr("max_displacement"), ctx.attr("stride2")
    side = 2 * (displacement // stride2) + 1
    span = ctx.const(2 * (displacement + ctx.attr("kernel_size") // 2) + 1)
    pads = pad_pairs(ctx.attr("padding"), 2)
    out = [data.dim(0), ctx.const(side * side)]
    for axis, (before, after) in zip((2, 3), pads):
        out.append(window_output(ctx, data, axis, data.dim(axis), span, before + after, ctx.attr("stride1"), 1))
    return ctx.tensor(out)


@shape_rule("global_pool2d")
def global_pool2d(ctx: ShapeContext) -> Any:
    """`nn.global_avg_pool2d(x, layout, out_layout)`: spatial dims become 1."""
    (data,) = ctx.operands()
    layout = ctx.attr("layout")
    out_layout = ctx.attr("out_layout") or layout
    out = layout_dims(ctx, data, layout, "NCHW", "layout")
    if "max" in ctx.op_name:
        _require_image(ctx, data, layout, "HW", "the maximum of no elements does not exist")
    out["H"] = out["W"] = ctx.const(1)
    return ctx.tensor(assemble(ctx, out_layout, "NCHW", out))


def adaptive_pool(ctx: ShapeContext, spatial: str) -> Any:
    """`nn.adaptive_avg_pool{1,2,3}d(x, output_size, layout)`: spatial dims become
    output_size (one value for all; none keeps them)."""
    (data,) = ctx.operands()
    layout = ctx.attr("layout")
    out_layout = ctx.attr("out_layout") or layout
    out = layout_dims(ctx, data, layout, "NC" + spatial, "layout")
    size: Sequence[int] = list(ctx.attr("output_size") or [])  # 0, 1 or k sizes, each at least 1
    if size:
        if "max" in ctx.op_name:
            _require_image(ctx, data, layout, spatial, "the maximum of an empty bin does not exist")
        sizes = list(size) * len(spatial) if len(size) == 1 else list(size)
        for s, v in zip(spatial, sizes):
            out[s] = ctx.const(v)
    return ctx.tensor(assemble(ctx, out_layout, "NC" + spatial, out))


def _register(name: str, family: Any, spatial: str) -> None:
    def rule(ctx: ShapeContext) -> Any:
        return family(ctx, spatial)

    rule.__name__ = name
    rule.__doc__ = family.__doc__
    shape_rule(name)(rule)


for _k, _spatial in SPATIAL.items():
    _register(f"conv{_k}d", conv, _spatial)
    _register(f"conv{_k}d_transpose", conv_transpose, _spatial)
    _register(f"pool{_k}d", pool, _spatial)
    _register(f"adaptive_pool{_k}d", adaptive_pool, _spatial)
