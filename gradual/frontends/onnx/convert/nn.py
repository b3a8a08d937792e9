"""Neural-network ONNX operators: MatMul, Gemm, Einsum, convolutions and pools, the
normalizations, Softmax and its relatives, Dropout."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from gradual import builder as gb
from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import Node, Tuple


# linear algebra ----------------------------------------------------------------------------------
def _matmul_op(right_rank: Optional[int]) -> str:
    """MatMul's operator: `nn.matmul` when the right side is a matrix, NumPy's `onnx.matmul`
    otherwise."""
    return "nn.matmul" if right_rank == 2 else "onnx.matmul"


def _direct_matmul(importer: Any, op_type: str, inputs: list) -> Optional[str]:
    """The direct form of `matmul` (see convert.DIRECT)."""
    return _matmul_op(importer.known(inputs[1]).rank) if len(inputs) == 2 else None


@converts("MatMul", direct=_direct_matmul)
def matmul(node: Node) -> Any:
    """MatMul: `nn.matmul` when the right side is known to be a matrix, NumPy's `onnx.matmul`
    otherwise (the same for a matrix). Neither side's rank is worth ONNX's shape inference
    (ONNX requires at least 1, and `nn.matmul` checks it): an attention MatMul of two inner
    tensors is `onnx.matmul` without it."""
    return node.call(_matmul_op(node.importer.known(node.inputs[1]).rank), node.x(0), node.x(1))


@converts("Gemm")
def gemm(node: Node) -> Any:
    """Gemm: alpha * A' B' + beta * C with transposes, via nn.dense (B transposed) or nn.matmul."""
    a = node.x(0)
    if node.attr("transA", 0):
        a = node.call("transpose", a)
    if node.attr("transB", 0):
        out = node.call("nn.dense", a, node.x(1))
    else:
        out = node.call("nn.matmul", a, node.x(1))
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 1.0))
    if alpha != 1.0:
        out = node.call("multiply", out, node.scalar(alpha, 0))
    if node.has(2) and beta != 0.0:
        bias = node.x(2)
        if beta != 1.0:
            bias = node.call("multiply", bias, node.scalar(beta, 2))
        out = node.call("add", out, bias)
    return out


@converts("Einsum")
def einsum(node: Node) -> Any:
    """Einsum over the inputs."""
    return node.call("onnx.einsum", gb.tuple_(*node.args(), loc=node.loc), equation=node.attr("equation", ""))


# convolution and pooling --------------------------------------------------------------------------
def _spatial_rank(node: Node, kernel_input: Optional[int] = None) -> Optional[int]:
    """How many spatial dims: from kernel_shape, the weight's rank or the data's rank."""
    shape = node.attr("kernel_shape")
    if shape:
        return len(shape)
    if kernel_input is not None and node.rank(kernel_input) is not None:
        return node.rank(kernel_input) - 2  # type: ignore[operator]
    rank = node.rank(0)
    return None if rank is None else rank - 2


def _window_attrs(node: Node, k: int) -> dict:
    """pads / strides / dilations (None when absent) and auto_pad, as onnx.* attributes."""
    auto_pad = node.attr("auto_pad", "NOTSET") or "NOTSET"
    if auto_pad not in ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"):
        node.fail_attribute("auto_pad", auto_pad, "auto_pad NOTSET, VALID, SAME_UPPER or SAME_LOWER")
    attrs: dict = {"auto_pad": auto_pad}
    for name in ("pads", "strides", "dilations"):
        value = node.attr(name)
        if value:
            attrs[name] = [int(v) for v in value]
    return attrs


def _relay_2d(attrs: dict) -> Optional[dict]:
    """The attributes of a 2-D window in Relay's terms, when Relay's operator has ONNX's
    semantics (explicit or no padding)."""
    if attrs["auto_pad"] not in ("NOTSET", "VALID"):
        return None
    pads = attrs.get("pads", [0, 0, 0, 0]) if attrs["auto_pad"] == "NOTSET" else [0, 0, 0, 0]
    return {"strides": attrs.get("strides", [1, 1]), "padding": pads, "dilation": attrs.get("dilations", [1, 1])}


def _with_bias(node: Node, out: Any, index: int) -> Any:
    if node.has(index):
        return node.call("nn.bias_add", out, node.x(index), axis=1)
    return out


@converts("Conv")
def conv(node: Node) -> Any:
    """Conv: `nn.conv2d` for 2-D with explicit padding, `onnx.conv` otherwise; bias added."""
    k = _spatial_rank(node, 1)
    attrs = _window_attrs(node, k or 0)
    group = int(node.attr("group", 1))
    relay = _relay_2d(attrs) if k == 2 else None
    if relay is not None:
        shape = node.attr("kernel_shape")
        extra = {"kernel_size": [int(v) for v in shape]} if shape else {}
        out = node.call("nn.conv2d", node.x(0), node.x(1), groups=group, **relay, **extra)
    else:
        out = node.call("onnx.conv", node.x(0), node.x(1), group=group, **attrs)
    return _with_bias(node, out, 2)


@converts("ConvTranspose")
def conv_transpose(node: Node) -> Any:
    """ConvTranspose: `nn.conv2d_transpose` for 2-D with explicit padding and no output_shape,
    `onnx.conv_transpose` otherwise; bias added."""
    k = _spatial_rank(node, 1)
    attrs = _window_attrs(node, k or 0)
    group = int(node.attr("group", 1))
    extra, shape = node.attr("output_padding"), node.attr("output_shape")
    relay = _relay_2d(attrs) if k == 2 and not shape else None
    if relay is not None:
        out = node.call(
            "nn.conv2d_transpose",
            node.x(0),
            node.x(1),
            groups=group,
            output_padding=[int(v) for v in extra] if extra else [0, 0],
            **relay,
        )
    else:
        more = {"output_padding": [int(v) for v in extra]} if extra else {}
        if shape:
            more["output_shape"] = [int(v) for v in shape]
        out = node.call("onnx.conv_transpose", node.x(0), node.x(1), group=group, **attrs, **more)
    return _with_bias(node, out, 2)


@converts("MaxPool", "AveragePool", "LpPool")
def pool(node: Node) -> Any:
    """Pooling: `nn.max_pool2d` / `nn.avg_pool2d` for 2-D explicit padding without ceil_mode,
    `onnx.max_pool` / `avg_pool` / `lp_pool` otherwise."""
    kernel = [int(v) for v in node.attr("kernel_shape", [])]
    if not kernel:
        node.fail_attribute("kernel_shape", "absent", "a kernel_shape")
    attrs = _window_attrs(node, len(kernel))
    ceil = bool(node.attr("ceil_mode", 0))
    if node.op_type == "MaxPool" and node.wants(1):
        call = node.call(
            "onnx.max_pool_indices",
            node.x(0),
            kernel_shape=kernel,
            ceil_mode=ceil,
            storage_order=int(node.attr("storage_order", 0)),
            **attrs,
        )
        return Tuple(call, 2)
    kind = node.op_type
    relay = _relay_2d(attrs) if len(kernel) == 2 and not ceil and kind != "LpPool" else None
    if relay is not None and kind == "MaxPool":
        return node.call("nn.max_pool2d", node.x(0), pool_size=kernel, **relay)
    if relay is not None:
        return node.call(
            "nn.avg_pool2d",
            node.x(0),
            pool_size=kernel,
            count_include_pad=bool(node.attr("count_include_pad", 0)),
            **relay,
        )
    if kind == "MaxPool":
        return node.call("onnx.max_pool", node.x(0), kernel_shape=kernel, ceil_mode=ceil, **attrs)
    if kind == "LpPool":
        return node.call(
            "onnx.lp_pool", node.x(0), kernel_shape=kernel, ceil_mode=ceil, p=int(node.attr("p", 2)), **attrs
        )
    return node.call(
        "onnx.avg_pool",
        node.x(0),
        kernel_shape=kernel,
        ceil_mode=ceil,
        count_include_pad=bool(node.attr("count_include_pad", 0)),
        **attrs,
    )


@converts("GlobalAveragePool", "GlobalMaxPool")
def global_pool(node: Node) -> Any:
    """Global pooling: the 2-D Relay operator for rank 4, a reduction over every dim but the
    first two otherwise."""
    relay = {"GlobalAveragePool": "nn.global_avg_pool2d", "GlobalMaxPool": "nn.global_max_pool2d"}[node.op_type]
    if node.rank(0) == 4:
        return node.call(relay, node.x(0))
    reduce = "mean" if node.op_type == "GlobalAveragePool" else "max"
    return node.call(reduce, node.x(0), axis=[0, 1], exclude=True, keepdims=True)


@converts("GlobalLpPool")
def global_lp_pool(node: Node) -> Any:
    """GlobalLpPool."""
    return node.call("onnx.global_lp_pool", node.x(0), p=int(node.attr("p", 2)))


# normalization ---------------------------------------------------------------------------------
@converts("BatchNormalization")
def batch_norm(node: Node) -> Any:
    """BatchNormalization: `nn.batch_norm` along axis 1 at inference, `onnx.batch_norm_train`
    (batch statistics, updated running ones) with training_mode=1."""
    args = [node.x(i) for i in range(5)]
    if int(node.attr("training_mode", 0)):
        call = node.call(
            "onnx.batch_norm_train",
            *args,
            epsilon=float(node.attr("epsilon", 1e-5)),
            momentum=float(node.attr("momentum", 0.9)),
        )
        return Tuple(call, 3)
    if any(node.wants(j) for j in range(1, len(node.outputs))):
        node.fail_attribute("outputs", len(node.outputs), "only its first output (inference)")
    call = node.call("nn.batch_norm", *args, axis=1, epsilon=float(node.attr("epsilon", 1e-5)))
    return gb.proj(call, 0, loc=node.loc)


@converts("InstanceNormalization")
def instance_norm(node: Node) -> Any:
    """InstanceNormalization."""
    return node.call("onnx.instance_norm", node.x(0), node.x(1), node.x(2), epsilon=float(node.attr("epsilon", 1e-5)))


@converts("GroupNormalization")
def group_norm(node: Node) -> Any:
    """GroupNormalization: scale and bias per channel (opset 21); opset 18's per-group ones are
    repeated to every channel of their group."""
    groups = int(node.attr("num_groups"))
    scale, bias = node.x(1), node.x(2)
    if node.opset < 21:
        channels = (node.info(0).dims or (None, None))[1]
        if not isinstance(channels, int):
            node.fail_attribute("num_groups", groups, "a static channel count (opset 18 scales per group)")
        scale = node.call("repeat", scale, repeats=channels // groups, axis=0)
        bias = node.call("repeat", bias, repeats=channels // groups, axis=0)
    return node.call(
        "onnx.group_norm", node.x(0), scale, bias, num_groups=groups, epsilon=float(node.attr("epsilon", 1e-5))
    )


@converts("LayerNormalization")
def layer_norm(node: Node) -> Any:
    """LayerNormalization: (Y, Mean, InvStdDev) over dims [axis, rank)."""
    bias = node.x(2) if node.has(2) else node.call("zeros_like", node.x(1))
    call = node.call(
        "onnx.layer_norm",
        node.x(0),
        node.x(1),
        bias,
        axis=int(node.attr("axis", -1)),
        epsilon=float(node.attr("epsilon", 1e-5)),
    )
    return Tuple(call, 3)


@converts("RMSNormalization")
def rms_norm(node: Node) -> Any:
    """RMSNormalization."""
    return node.call(
        "onnx.rms_norm",
        node.x(0),
        node.x(1),
        axis=int(node.attr("axis", -1)),
        epsilon=float(node.attr("epsilon", 1e-5)),
    )


@converts("LRN")
def lrn(node: Node) -> Any:
    """LRN across channels."""
    return node.call(
        "onnx.lrn",
        node.x(0),
        size=int(node.attr("size")),
        alpha=float(node.attr("alpha", 0.0001)),
        beta=float(node.attr("beta", 0.75)),
        bias=float(node.attr("bias", 1.0)),
    )


@converts("MeanVarianceNormalization")
def mean_variance_norm(node: Node) -> Any:
    """MeanVarianceNormalization over axes."""
    return node.call("onnx.mean_variance_norm", node.x(0), axes=[int(a) for a in node.attr("axes", [0, 2, 3])])


@converts("LpNormalization")
def lp_norm(node: Node) -> Any:
    """LpNormalization along axis."""
    return node.call("onnx.lp_norm", node.x(0), axis=int(node.attr("axis", -1)), p=int(node.attr("p", 2)))


# losses ---------------------------------------------------------------------------------------------
@converts("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss")
def loss(node: Node) -> Any:
    """NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (with its optional log_prob); an
    absent weight is an empty vector."""
    weight = node.x(2) if node.has(2) else _empty_like(node, 0)
    attrs: dict = {"reduction": node.attr("reduction", "mean")}
    if node.attr("ignore_index") is not None:
        attrs["ignore_index"] = int(node.attr("ignore_index"))
    if node.op_type == "NegativeLogLikelihoodLoss":
        return node.call("onnx.nll_loss", node.x(0), node.x(1), weight, **attrs)
    return Tuple(node.call("onnx.softmax_cross_entropy", node.x(0), node.x(1), weight, **attrs), 2)


def _empty_like(node: Node, like: int) -> Any:
    """An empty vector of input `like`'s dtype."""
    dtype = node.dtype(like)
    if dtype is not None:
        return node.constant(np.zeros((0,), dtype), dtype)
    return node.call("onnx.cast_like", node.constant(np.zeros((0,), np.float32), "float32"), node.x(like))


# softmax ---------------------------------------------------------------------------------------
@converts("Softmax", "LogSoftmax", "Hardmax")
def softmax(node: Node) -> Any:
    """Softmax, LogSoftmax, Hardmax along axis; before opset 13 the input is read as 2-D
    (flattened at axis, default 1) and the result reshaped back."""
    op = {"Softmax": "nn.softmax", "LogSoftmax": "nn.log_softmax", "Hardmax": "onnx.hardmax"}[node.op_type]
    if node.opset >= 13:
        return node.call(op, node.x(0), axis=int(node.attr("axis", -1)))
    axis = int(node.attr("axis", 1))
    rank = node.rank(0)
    if rank is not None and (axis == rank - 1 or axis == -1):
        return node.call(op, node.x(0), axis=-1)
    flat = node.call("onnx.flatten", node.x(0), axis=axis)
    return node.call("reshape_like", node.call(op, flat, axis=-1), node.x(0))


@converts("Dropout")
def dropout(node: Node) -> Any:
    """Dropout at inference (or training with ratio 0): the input itself, an all-true mask."""
    training = node.has(2) and node.ints(2) != [0]
    ratio = node.value(1)
    if training and not (ratio is not None and float(ratio) == 0.0):
        node.fail_attribute("training_mode", node.inputs[2], "training_mode false, or ratio 0 (training is random)")
    outputs = [node.x(0)]
    if node.wants(1):
        outputs.append(node.call("dyn.full", gb.const(True), node.call("shape_of", node.x(0)), dtype="bool"))
    return outputs
