"""ONNX reductions. ReduceSum/Mean/Prod with known axes map onto Relay's reductions, L1, L2,
SumSquare, LogSum and LogSumExp onto compositions of them; ReduceMax/ReduceMin (whose empty
reductions ONNX defines) and reductions over axes known only at runtime use `onnx.reduce`.
ArgMax/ArgMin are Relay's (int32) cast to int64. Axes are an attribute before opset 13
(ReduceSum) or 18 (the others), an input after."""

from __future__ import annotations

from typing import Any, Callable, Optional

from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import Node

SIMPLE = {"ReduceSum": "sum", "ReduceMean": "mean", "ReduceProd": "prod"}
ONNX_OPS = {
    "ReduceSum": "sum",
    "ReduceMean": "mean",
    "ReduceProd": "prod",
    "ReduceMax": "max",
    "ReduceMin": "min",
    "ReduceL1": "l1",
    "ReduceL2": "l2",
    "ReduceSumSquare": "sum_square",
    "ReduceLogSum": "log_sum",
    "ReduceLogSumExp": "log_sum_exp",
}


@converts(*ONNX_OPS)
def reduce(node: Node) -> Any:
    """A reduction with keepdims (default 1) and noop_with_empty_axes."""
    axes, known = node.axes(13 if node.op_type == "ReduceSum" else 18)
    keepdims = bool(node.attr("keepdims", 1))
    noop = bool(node.attr("noop_with_empty_axes", 0))
    if known and not axes and noop:
        return _no_reduction(node)
    if known and node.op_type not in ("ReduceMax", "ReduceMin"):
        return _relay_reduce(node, axes or None, keepdims)
    axes_expr = node.x(1) if not known else node.int64s(axes or [])
    return node.call(
        "onnx.reduce", node.x(0), axes_expr, kind=ONNX_OPS[node.op_type], keepdims=keepdims, noop_with_empty_axes=noop
    )


def _relay_reduce(node: Node, axes: Optional[list], keepdims: bool) -> Any:
    attrs = {"axis": axes, "keepdims": keepdims}
    x = node.x(0)
    if node.op_type in SIMPLE:
        return node.call(SIMPLE[node.op_type], x, **attrs)
    if node.op_type == "ReduceL1":
        return node.call("sum", node.call("abs", x), **attrs)
    if node.op_type == "ReduceLogSum":
        return _in_float(node, lambda f: node.call("log", node.call("sum", f, **attrs)))
    if node.op_type == "ReduceLogSumExp":
        return _in_float(node, lambda f: node.call("log", node.call("sum", node.call("exp", f), **attrs)))
    if node.op_type == "ReduceL2":
        return _in_float(node, lambda f: node.call("sqrt", node.call("sum", node.call("multiply", f, f), **attrs)))
    return node.call("sum", node.call("multiply", x, x), **attrs)


def _in_float(node: Node, steps: Callable[[Any], Any]) -> Any:
    """`steps` of input 0, which end in Relay's float-only sqrt, log or exp: an integer input
    (ONNX's reductions take them) is cast to float64 and the result back to its dtype, as
    ONNX defines them; an input of unknown dtype is left to the operators' dtype checks."""
    dtype = node.dtype(0)
    if dtype is None or dtype.startswith(("float", "bfloat")):
        return steps(node.x(0))
    return node.call("cast", steps(node.call("cast", node.x(0), dtype="float64")), dtype=dtype)


def _no_reduction(node: Node) -> Any:
    """An empty axes list with noop_with_empty_axes: composite reductions still take their
    steps that are not the sum (ONNX: ReduceLogSum is the log of the input, ReduceSumSquare its
    square, ReduceL1 and ReduceL2 its absolute value)."""
    x = node.x(0)
    if node.op_type in ("ReduceL1", "ReduceL2"):
        return node.call("abs", x)
    if node.op_type == "ReduceSumSquare":
        return node.call("multiply", x, x)
    if node.op_type == "ReduceLogSum":
        return _in_float(node, lambda f: node.call("log", f))
    if node.op_type == "ReduceLogSumExp":
        return _in_float(node, lambda f: node.call("log", node.call("exp", f)))
    return node.call("copy", x)


@converts("ArgMax", "ArgMin")
def arg_reduce(node: Node) -> Any:
    """ArgMax / ArgMin along axis as int64."""
    op = "argmax" if node.op_type == "ArgMax" else "argmin"
    call = node.call(
        op,
        node.x(0),
        axis=[int(node.attr("axis", 0))],
        keepdims=bool(node.attr("keepdims", 1)),
        select_last_index=bool(node.attr("select_last_index", 0)),
    )
    return node.call("cast", call, dtype="int64")
