"""Elementwise ONNX operators: unary maps, broadcasting binary operators, variadic Sum/Max/Min/
Mean, Where, Clip, Cast and CastLike, Pow and Mod."""

from __future__ import annotations

from typing import Any

from gradual.frontends.onnx.convert.registration import FixedForm, converts
from gradual.frontends.onnx.node import Node

UNARY = {
    "Relu": "nn.relu",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Sqrt": "sqrt",
    "Exp": "exp",
    "Log": "log",
    "Neg": "negative",
    "Abs": "abs",
    "Erf": "erf",
    "Floor": "floor",
    "Ceil": "ceil",
    "Round": "round",
    "Sign": "sign",
    "Not": "logical_not",
    "Reciprocal": "onnx.reciprocal",
    "Sin": "onnx.sin",
    "Cos": "onnx.cos",
    "Tan": "onnx.tan",
    "Asin": "onnx.asin",
    "Acos": "onnx.acos",
    "Atan": "onnx.atan",
    "Sinh": "onnx.sinh",
    "Cosh": "onnx.cosh",
    "Asinh": "onnx.asinh",
    "Acosh": "onnx.acosh",
    "Atanh": "onnx.atanh",
    "Softplus": "onnx.softplus",
    "Softsign": "onnx.softsign",
    "Mish": "onnx.mish",
    "HardSwish": "onnx.hard_swish",
    "BitwiseNot": "onnx.bitwise_not",
    "IsNaN": "onnx.isnan",
}

#: ONNX op -> (gradual op, {attribute: (gradual name, default)})
#: ONNX op_type -> (operator, {ONNX attribute: (operator attribute, default)})
UNARY_WITH_ATTRS: dict[str, tuple[str, dict[str, tuple[str, object]]]] = {
    "LeakyRelu": ("nn.leaky_relu", {"alpha": ("alpha", 0.01)}),
    "Elu": ("onnx.elu", {"alpha": ("alpha", 1.0)}),
    "Celu": ("onnx.celu", {"alpha": ("alpha", 1.0)}),
    "Selu": (
        "onnx.selu",
        {"alpha": ("alpha", 1.67326319217681884765625), "gamma": ("gamma", 1.05070102214813232421875)},
    ),
    "ThresholdedRelu": ("onnx.thresholded_relu", {"alpha": ("alpha", 1.0)}),
    "HardSigmoid": ("onnx.hard_sigmoid", {"alpha": ("alpha", 0.2), "beta": ("beta", 0.5)}),
    "Shrink": ("onnx.shrink", {"bias": ("bias", 0.0), "lambd": ("lambd", 0.5)}),
    "Gelu": ("onnx.gelu", {"approximate": ("approximate", "none")}),
    "Swish": ("onnx.swish", {"alpha": ("alpha", 1.0)}),
}

BINARY = {
    "Add": "add",
    "Sub": "subtract",
    "Mul": "multiply",
    "Div": "divide",
    "Equal": "equal",
    "Less": "less",
    "Greater": "greater",
    "LessOrEqual": "less_equal",
    "GreaterOrEqual": "greater_equal",
    "And": "logical_and",
    "Or": "logical_or",
    "Xor": "not_equal",
    "BitwiseAnd": "onnx.bitwise_and",
    "BitwiseOr": "onnx.bitwise_or",
    "BitwiseXor": "onnx.bitwise_xor",
    "PRelu": "onnx.prelu",
}


@converts(*UNARY, direct=FixedForm(UNARY, 1))
def unary(node: Node) -> Any:
    """A unary map."""
    return node.call(UNARY[node.op_type], node.x(0))


@converts(*UNARY_WITH_ATTRS)
def unary_with_attrs(node: Node) -> Any:
    """A unary map with float (or string) attributes."""
    op, attrs = UNARY_WITH_ATTRS[node.op_type]
    values = {name: _plain(node.attr(onnx_name, default)) for onnx_name, (name, default) in attrs.items()}
    return node.call(op, node.x(0), **values)


def _plain(value: Any) -> Any:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


@converts("IsInf")
def isinf(node: Node) -> Any:
    """IsInf with its two detection flags."""
    return node.call(
        "onnx.isinf",
        node.x(0),
        detect_negative=bool(node.attr("detect_negative", 1)),
        detect_positive=bool(node.attr("detect_positive", 1)),
    )


@converts(*BINARY, direct=FixedForm(BINARY, 2))  # no attributes: no legacy broadcast to refuse
def binary(node: Node) -> Any:
    """A broadcasting binary operator (opset 1-6's `broadcast`/`axis` attributes are not)."""
    _no_legacy_broadcast(node)
    return node.call(BINARY[node.op_type], node.x(0), node.x(1))


def _no_legacy_broadcast(node: Node) -> None:
    if node.opset < 7 and node.attr("axis") is not None:
        node.fail_attribute("axis", node.attr("axis"), "NumPy broadcasting (opset 7 and later)")


@converts("Pow")
def power(node: Node) -> Any:
    """Pow: the exponent is converted to the base's dtype when they differ."""
    base, exponent = node.x(0), node.x(1)
    if node.dtype(0) is None or node.dtype(0) != node.dtype(1):
        exponent = node.call("onnx.cast_like", exponent, base)
    return node.call("power", base, exponent)


@converts("Mod")
def mod(node: Node) -> Any:
    """Mod: C fmod (fmod=1) or the divisor's sign (fmod=0)."""
    return node.call("onnx.mod", node.x(0), node.x(1), fmod=bool(node.attr("fmod", 0)))


@converts("BitShift")
def bitshift(node: Node) -> Any:
    """BitShift LEFT or RIGHT."""
    return node.call("onnx.bitshift", node.x(0), node.x(1), direction=node.attr("direction", "LEFT"))


@converts("Sum", "Max", "Min", "Mean")
def variadic(node: Node) -> Any:
    """Sum, Max, Min, Mean of any number of broadcasting inputs: a chain of binary calls."""
    op = {"Sum": "add", "Mean": "add", "Max": "maximum", "Min": "minimum"}[node.op_type]
    args = node.args()
    if not args:
        node.fail_attribute("inputs", "none", "at least one input")
    total = args[0]
    for arg in args[1:]:
        total = node.call(op, total, arg)
    if len(args) == 1:
        return node.call("copy", total)
    if node.op_type == "Mean":
        return node.call("divide", total, node.scalar(len(args), 0))
    return total


@converts("Where", direct=FixedForm({"Where": "where"}, 3))
def where(node: Node) -> Any:
    """Where(condition, x, y)."""
    return node.call("where", node.x(0), node.x(1), node.x(2))


@converts("Clip")
def clip(node: Node) -> Any:
    """Clip: maximum with min, then minimum with max (attributes before opset 11, inputs after);
    an absent bound does not clip."""
    if node.opset < 11:
        low, high = node.attr("min"), node.attr("max")
        low_expr = None if low is None else node.scalar(low, 0)
        high_expr = None if high is None else node.scalar(high, 0)
    else:
        low_expr = node.x(1) if node.has(1) else None
        high_expr = node.x(2) if node.has(2) else None
    out = node.x(0)
    if low_expr is None and high_expr is None:
        return node.call("copy", out)
    if low_expr is not None:
        out = node.call("maximum", out, low_expr)
    if high_expr is not None:
        out = node.call("minimum", out, high_expr)
    return out


@converts("Cast")
def cast(node: Node) -> Any:
    """Cast to the `to` element type: Relay's `cast`, or `onnx.cast` for ONNX's own conversions
    to the narrow float types."""
    to = node.attr("to")
    if isinstance(to, str):
        node.fail_attribute("to", to, "a numeric `to` (opset 6 and later)")
    dtype = node.onnx_dtype(int(to), node.outputs[0])
    if dtype.startswith(("float8", "float4")):
        return node.call("onnx.cast", node.x(0), dtype=dtype, **_cast_attrs(node))
    node.importer.cast_sources[node.outputs[0]] = node.inputs[0]
    return node.call("cast", node.x(0), dtype=dtype)


def _cast_attrs(node: Node) -> dict:
    return {"saturate": bool(node.attr("saturate", 1)), "round_mode": node.attr("round_mode", "up")}


@converts("CastLike")
def cast_like(node: Node) -> Any:
    """CastLike(x, like)."""
    if node.dtype(1) is None and node.info(1).elem_type:
        node.onnx_dtype(node.info(1).elem_type, node.inputs[1])
    return node.call("onnx.cast_like", node.x(0), node.x(1), **_cast_attrs(node))
