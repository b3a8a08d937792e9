"""ONNX operators of whole model parts: recurrent layers (RNN, GRU, LSTM), attention,
quantization, signal processing. An optional input the node leaves out is passed as an empty
vector (the operators in stdlib/onnx_models.rly expect one)."""

from __future__ import annotations

from typing import Any

from ..node import Node, Tuple
from . import converts


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
    attrs = {"kind": kind, "direction": node.attr("direction", "forward"), "layout": int(node.attr("layout", 0)),
             "input_forget": bool(node.attr("input_forget", 0)),
             "linear_before_reset": bool(node.attr("linear_before_reset", 0))}
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
    attrs: dict = {"is_causal": bool(node.attr("is_causal", 0)),
                   "qk_matmul_output_mode": int(node.attr("qk_matmul_output_mode", 0)),
                   "softcap": float(node.attr("softcap", 0.0)),
                   "left_window_size": int(node.attr("left_window_size", -1)),
                   "right_window_size": int(node.attr("right_window_size", -1))}
    for name in ("q_num_heads", "kv_num_heads"):
        if node.attr(name) is not None:
            attrs[name] = int(node.attr(name))
    if node.attr("scale") is not None:
        attrs["scale"] = float(node.attr("scale"))
    if node.attr("softmax_precision") is not None:
        attrs["softmax_precision"] = node.onnx_dtype(int(node.attr("softmax_precision")), node.outputs[0])
    call = node.call("onnx.attention", node.x(0), node.x(1), node.x(2), *optional_inputs(node, range(3, 7)), **attrs)
    return Tuple(call, 4)
