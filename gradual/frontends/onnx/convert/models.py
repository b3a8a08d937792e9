"""ONNX operators of whole model parts: recurrent layers (RNN, GRU, LSTM), attention,
quantization, signal processing. An optional input the node leaves out is passed as an empty
vector (the operators in stdlib/onnx_models.rly expect one)."""

from __future__ import annotations

from typing import Any, Optional

from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import Node, Tuple


def optional_inputs(node: Node, positions: range) -> list:
    """Inputs at these positions, an empty int64 vector for each one left out."""
    return [node.x(i) if node.has(i) else node.int64s([]) for i in positions]


# recurrent layers ------------------------------------------------------------------------------------
@converts("RNN", "GRU", "LSTM")
def recurrent(node: Node) -> Any:
    """RNN, GRU and LSTM with every attribute (y, y_h and, for LSTM, y_c)."""
    kind = node.op_type.lower()
    inputs = optional_inputs(node, range(3, 8 if kind == "lstm" else 6))
    while len(inputs) < 5:
        inputs.append(node.int64s([]))  # no initial_c, no peepholes
    attrs = {
        "kind": kind,
        "direction": node.attr("direction", "forward"),
        "layout": int(node.attr("layout", 0)),
        "input_forget": bool(node.attr("input_forget", 0)),
        "linear_before_reset": bool(node.attr("linear_before_reset", 0)),
    }
    for name in ("hidden_size",):
        if node.attr(name) is not None:
            attrs[name] = int(node.attr(name))
    if node.attr("clip") is not None:
        attrs["clip"] = float(node.attr("clip"))
    for name in ("activations",):
        if node.attr(name) is not None:
            attrs[name] = list(node.attr(name))
    for name in ("activation_alpha", "activation_beta"):
        if node.attr(name) is not None:
            attrs[name] = [float(v) for v in node.attr(name)]
    call = node.call("onnx.rnn", node.x(0), node.x(1), node.x(2), *inputs, **attrs)
    return Tuple(call, 3 if kind == "lstm" else 2)


# attention --------------------------------------------------------------------------------------------
@converts("Attention")
def attention(node: Node) -> Any:
    """Attention (opset 23 and later) with every attribute; its four outputs."""
    attrs: dict = {
        "is_causal": bool(node.attr("is_causal", 0)),
        "qk_matmul_output_mode": int(node.attr("qk_matmul_output_mode", 0)),
        "softcap": float(node.attr("softcap", 0.0)),
        "left_window_size": int(node.attr("left_window_size", -1)),
        "right_window_size": int(node.attr("right_window_size", -1)),
    }
    for name in ("q_num_heads", "kv_num_heads"):
        if node.attr(name) is not None:
            attrs[name] = int(node.attr(name))
    if node.attr("scale") is not None:
        attrs["scale"] = float(node.attr("scale"))
    if node.attr("softmax_precision") is not None:
        attrs["softmax_precision"] = node.onnx_dtype(int(node.attr("softmax_precision")), node.outputs[0])
    call = node.call("onnx.attention", node.x(0), node.x(1), node.x(2), *optional_inputs(node, range(3, 7)), **attrs)
    return Tuple(call, 4)


# quantization ------------------------------------------------------------------------------------------
def _block_attrs(node: Node) -> dict:
    return {"axis": int(node.attr("axis", 1)), "block_size": int(node.attr("block_size", 0))}


def _typed(node: Node, elem_type: Any, tensor: str, fallback: Optional[str]) -> str:
    """The dtype an ONNX output_dtype attribute names, else the fallback (Unsupported if none)."""
    if elem_type:
        return node.onnx_dtype(int(elem_type), tensor)
    if fallback is None:
        node.fail_attribute("output_dtype", "absent", "an output type known from the attribute or an input")
    return fallback


def quantized(node: Node, x: Any, scale: Any, zero_point: Any, dtype: str, **attrs: Any) -> Any:
    """`onnx.quantize` of expressions."""
    return node.call("onnx.quantize", x, scale, zero_point, dtype=dtype, **attrs)


@converts("QuantizeLinear")
def quantize_linear(node: Node) -> Any:
    """QuantizeLinear: the output type from output_dtype, the zero point's type, or uint8."""
    fallback = node.dtype(2) if node.has(2) else "uint8"
    dtype = _typed(node, node.attr("output_dtype", 0), node.outputs[0], fallback)
    attrs = dict(_block_attrs(node), saturate=bool(node.attr("saturate", 1)))
    if node.attr("precision"):
        attrs["precision"] = node.onnx_dtype(int(node.attr("precision")), node.outputs[0])
    zero_point = node.x(2) if node.has(2) else node.int64s([])
    return quantized(node, node.x(0), node.x(1), zero_point, dtype, **attrs)


@converts("DequantizeLinear")
def dequantize_linear(node: Node) -> Any:
    """DequantizeLinear: the output type from output_dtype or the scale's type."""
    dtype = _typed(node, node.attr("output_dtype", 0), node.outputs[0], node.dtype(1))
    zero_point = node.x(2) if node.has(2) else node.int64s([])
    return node.call("onnx.dequantize", node.x(0), node.x(1), zero_point, dtype=dtype, **_block_attrs(node))


@converts("DynamicQuantizeLinear")
def dynamic_quantize_linear(node: Node) -> Any:
    """DynamicQuantizeLinear: (y, scale, zero point)."""
    return Tuple(node.call("onnx.dynamic_quantize", node.x(0)), 3)


def _dequantized(node: Node, i: int, per_row: bool) -> Any:
    """Input i (with its scale and zero point at i + 1, i + 2) dequantized to float32; a vector
    scale runs along the rows of a matrix (per_row) or its columns."""
    axis = 0 if per_row and node.rank(i) == 2 else -1
    return node.call("onnx.dequantize", node.x(i), node.x(i + 1), node.x(i + 2), dtype="float32", axis=axis)


@converts("QLinearMatMul")
def qlinear_matmul(node: Node) -> Any:
    """QLinearMatMul: the float product of the dequantized inputs, quantized."""
    product = node.call("onnx.matmul", _dequantized(node, 0, True), _dequantized(node, 3, False))
    return quantized(node, product, node.x(6), node.x(7), _typed(node, 0, node.outputs[0], node.dtype(7)), axis=-1)


@converts("MatMulInteger")
def matmul_integer(node: Node) -> Any:
    """MatMulInteger: (a - a_zero_point) @ (b - b_zero_point) in int32."""
    return node.call("onnx.matmul", _shifted(node, 0, 2, per_row=True), _shifted(node, 1, 3, per_row=False))


def _shifted(node: Node, i: int, zero: int, per_row: bool) -> Any:
    """Input i as int32 less its zero point (a vector one per row of a matrix, or per column)."""
    value = node.call("cast", node.x(i), dtype="int32")
    if not node.has(zero):
        return value
    point = node.call("cast", node.x(zero), dtype="int32")
    if per_row and node.rank(zero) == 1 and node.rank(i) == 2:
        point = node.call("expand_dims", point, axis=1)
    return node.call("subtract", value, point)


@converts("ConvInteger")
def conv_integer(node: Node) -> Any:
    """ConvInteger: the convolution of (x - x_zero_point) and (w - w_zero_point) in int32."""
    from gradual.frontends.onnx.convert.nn import _window_attrs

    x = _shifted(node, 0, 2, per_row=False)
    w = node.call("cast", node.x(1), dtype="int32")
    if node.has(3):
        point = node.call("cast", node.x(3), dtype="int32")
        if node.rank(3) == 1 and node.rank(1) is not None:
            for axis in range(1, node.rank(1)):  # type: ignore[arg-type]
                point = node.call("expand_dims", point, axis=axis)
        w = node.call("subtract", w, point)
    attrs = _window_attrs(node, 0)
    return node.call("onnx.conv", x, w, group=int(node.attr("group", 1)), **attrs)


@converts("QLinearConv")
def qlinear_conv(node: Node) -> Any:
    """QLinearConv: the float convolution of the dequantized inputs (a vector weight scale per
    output channel), plus the bias (int32, in units of x_scale * w_scale), quantized."""
    from gradual.frontends.onnx.convert.nn import _window_attrs

    x = node.call("onnx.dequantize", node.x(0), node.x(1), node.x(2), dtype="float32", axis=1)
    w = node.call("onnx.dequantize", node.x(3), node.x(4), node.x(5), dtype="float32", axis=0)
    out = node.call("onnx.conv", x, w, group=int(node.attr("group", 1)), **_window_attrs(node, 0))
    if node.has(8):
        scale = node.call("multiply", node.x(1), node.x(4))
        bias = node.call("multiply", node.call("cast", node.x(8), dtype="float32"), scale)
        out = node.call("nn.bias_add", out, bias, axis=1)
    return quantized(node, out, node.x(6), node.x(7), _typed(node, 0, node.outputs[0], node.dtype(7)), axis=1)


# more of ONNX's operators --------------------------------------------------------------------------------
@converts("BitCast")
def bit_cast(node: Node) -> Any:
    """BitCast to `to`."""
    return node.call("onnx.bitcast", node.x(0), dtype=node.onnx_dtype(int(node.attr("to")), node.outputs[0]))


@converts("SwiGLU")
def swiglu(node: Node) -> Any:
    """SwiGLU(a, b)."""
    return node.call("onnx.swiglu", node.x(0), node.x(1), alpha=float(node.attr("alpha", 1.0)))


@converts("Det")
def det(node: Node) -> Any:
    """Det."""
    return node.call("onnx.det", node.x(0))


@converts("Compress")
def compress(node: Node) -> Any:
    """Compress along axis (flattened without one)."""
    axis = node.attr("axis")
    return node.call("onnx.compress", node.x(0), node.x(1), **({} if axis is None else {"axis": int(axis)}))


@converts("ReverseSequence")
def reverse_sequence(node: Node) -> Any:
    """ReverseSequence."""
    return node.call(
        "onnx.reverse_sequence",
        node.x(0),
        node.x(1),
        batch_axis=int(node.attr("batch_axis", 1)),
        time_axis=int(node.attr("time_axis", 0)),
    )


@converts("HannWindow", "HammingWindow", "BlackmanWindow")
def window(node: Node) -> Any:
    """The three windows of ONNX's signal operators."""
    kind = node.op_type[: -len("Window")].lower()
    dtype = node.onnx_dtype(int(node.attr("output_datatype", 1)), node.outputs[0])
    return node.call("onnx.window", node.x(0), kind=kind, periodic=bool(node.attr("periodic", 1)), dtype=dtype)


@converts("CenterCropPad")
def center_crop_pad(node: Node) -> Any:
    """CenterCropPad to a shape vector."""
    axes = node.attr("axes")
    extra = {} if axes is None else {"axes": [int(a) for a in axes]}
    return node.call("onnx.center_crop_pad", node.x(0), node.x(1), **extra)


@converts("TensorScatter")
def tensor_scatter(node: Node) -> Any:
    """TensorScatter (a KV cache update)."""
    return node.call(
        "onnx.tensor_scatter",
        node.x(0),
        node.x(1),
        *optional_inputs(node, range(2, 3)),
        axis=int(node.attr("axis", -2)),
        mode=node.attr("mode", "linear"),
    )


@converts("Unique")
def unique(node: Node) -> Any:
    """Unique: (values, indices, inverse indices, counts)."""
    axis = node.attr("axis")
    extra = {} if axis is None else {"axis": int(axis)}
    return Tuple(node.call("onnx.unique", node.x(0), sorted=bool(node.attr("sorted", 1)), **extra), 4)


@converts("RotaryEmbedding")
def rotary_embedding(node: Node) -> Any:
    """RotaryEmbedding with optional position_ids."""
    return node.call(
        "onnx.rotary_embedding",
        node.x(0),
        node.x(1),
        node.x(2),
        *optional_inputs(node, range(3, 4)),
        interleaved=bool(node.attr("interleaved", 0)),
        rotary_embedding_dim=int(node.attr("rotary_embedding_dim", 0)),
        num_heads=int(node.attr("num_heads", 0)),
    )


# sampling and signals --------------------------------------------------------------------------------
GRID_MODES = {"bilinear": "linear", "bicubic": "cubic"}


@converts("GridSample")
def grid_sample(node: Node) -> Any:
    """GridSample (opset 16's bilinear/bicubic are linear/cubic)."""
    mode = node.attr("mode", "linear" if node.opset >= 20 else "bilinear")
    return node.call(
        "onnx.grid_sample",
        node.x(0),
        node.x(1),
        mode=GRID_MODES.get(mode, mode),
        padding_mode=node.attr("padding_mode", "zeros"),
        align_corners=bool(node.attr("align_corners", 0)),
    )


@converts("AffineGrid")
def affine_grid(node: Node) -> Any:
    """AffineGrid."""
    return node.call("onnx.affine_grid", node.x(0), node.x(1), align_corners=bool(node.attr("align_corners", 0)))


@converts("DFT")
def dft(node: Node) -> Any:
    """DFT: the axis is an attribute before opset 20 (default 1) and a constant input after (default -2)."""
    if node.opset < 20:
        axis = int(node.attr("axis", 1))
    else:
        axis = node.required_ints(2, "axis")[0] if node.has(2) else -2
    return node.call(
        "onnx.dft",
        node.x(0),
        *optional_inputs(node, range(1, 2)),
        axis=axis,
        inverse=bool(node.attr("inverse", 0)),
        onesided=bool(node.attr("onesided", 0)),
    )


@converts("STFT")
def stft(node: Node) -> Any:
    """STFT."""
    return node.call(
        "onnx.stft", node.x(0), node.x(1), *optional_inputs(node, range(2, 4)), onesided=bool(node.attr("onesided", 1))
    )


@converts("MaxUnpool")
def max_unpool(node: Node) -> Any:
    """MaxUnpool."""
    attrs: dict = {"kernel_shape": [int(v) for v in node.attr("kernel_shape", [])]}
    for name in ("strides", "pads"):
        if node.attr(name):
            attrs[name] = [int(v) for v in node.attr(name)]
    return node.call("onnx.max_unpool", node.x(0), node.x(1), *optional_inputs(node, range(2, 3)), **attrs)


@converts("Col2Im")
def col2im(node: Node) -> Any:
    """Col2Im."""
    attrs = {name: [int(v) for v in node.attr(name)] for name in ("strides", "pads", "dilations") if node.attr(name)}
    return node.call("onnx.col2im", node.x(0), node.x(1), node.x(2), **attrs)
