"""Nodes the importer binds as one Dataflow statement with attributes, without a `Node`: the
commonest nodes of an exporter's graph besides the maps (`convert.DIRECT`), each form exactly
the call its converter makes, decided from the node's attributes and its constant inputs.

`form(importer, op_type, inputs, attributes)` gives `(op, arguments, attrs)` (the operator,
the input names it is called on, its attributes as a dict) or None (the converter imports the
node). The importer has checked the node against ONNX's schema (so an attribute has the kind
the schema gives), that its inputs are bound or constants and not all constants (a node of
constants may fold), and that it has one output. tests/test_onnx_forms.py imports every test
model with and without these forms and compares the programs' text.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np


def _attr(attributes: Any, name: str) -> Any:
    for a in attributes:
        if a.name == name:
            return a
    return None


def _int(attributes: Any, name: str, default: int) -> Optional[int]:
    """An INT attribute's value (the default when absent; None for a reference attribute)."""
    a = _attr(attributes, name)
    if a is None:
        return default
    return None if a.ref_attr_name or a.type != 2 else int(a.i)


def _constant_ints(importer: Any, name: str) -> Optional[list]:
    value = importer.values.get(name) if name else None
    return None if value is None else [int(e) for e in np.asarray(value).reshape(-1)]


def gather(importer: Any, op_type: str, inputs: list, attributes: Any) -> Optional[tuple]:
    """Gather: `take(x, indices, axis, mode="fast")` (convert/shape.py's gather)."""
    axis = _int(attributes, "axis", 0)
    if len(inputs) != 2 or axis is None or len(attributes) > (_attr(attributes, "axis") is not None):
        return None
    return "take", inputs, {"axis": axis, "mode": "fast"}


def transpose(importer: Any, op_type: str, inputs: list, attributes: Any) -> Optional[tuple]:
    """Transpose by perm (convert/shape.py's transpose)."""
    perm = _attr(attributes, "perm")
    if len(inputs) != 1 or len(attributes) > (perm is not None):
        return None
    if perm is None:
        return "transpose", inputs, {}
    if perm.ref_attr_name or perm.type != 7:
        return None
    return "transpose", inputs, {"axes": [int(p) for p in perm.ints]}


_SOFTMAX = {"Softmax": "nn.softmax", "LogSoftmax": "nn.log_softmax", "Hardmax": "onnx.hardmax"}


def softmax(importer: Any, op_type: str, inputs: list, attributes: Any) -> Optional[tuple]:
    """Softmax, LogSoftmax, Hardmax from opset 13 (convert/nn.py's softmax)."""
    axis = _int(attributes, "axis", -1)
    if (
        importer.opset < 13
        or len(inputs) != 1
        or axis is None
        or len(attributes) > (_attr(attributes, "axis") is not None)
    ):
        return None
    return _SOFTMAX[op_type], inputs, {"axis": axis}


def shape(importer: Any, op_type: str, inputs: list, attributes: Any) -> Optional[tuple]:
    """Shape without start or end: `shape_of(x, dtype="int64")` (convert/shape.py's shape)."""
    if len(inputs) != 1 or attributes:
        return None
    return "shape_of", inputs, {"dtype": "int64"}


def unsqueeze(importer: Any, op_type: str, inputs: list, attributes: Any) -> Optional[tuple]:
    """Unsqueeze at one non-negative constant axis: `expand_dims(x, axis)` (convert/shape.py's
    unsqueeze; several axes make nested calls, a negative one asks the rank: the converter's)."""
    if importer.opset >= 13:
        if len(inputs) != 2 or attributes:
            return None
        axes = _constant_ints(importer, inputs[1])
    else:
        a = _attr(attributes, "axes")
        if len(inputs) != 1 or len(attributes) != 1 or a is None or a.ref_attr_name or a.type != 7:
            return None
        axes = [int(v) for v in a.ints]
    if axes is None or len(axes) != 1 or axes[0] < 0:
        return None
    return "expand_dims", inputs[:1], {"axis": axes[0]}


def reshape(importer: Any, op_type: str, inputs: list, attributes: Any) -> Optional[tuple]:
    """Reshape from opset 5: `reshape(x, newshape)` for a constant target, `dyn.reshape(x, shape)`
    otherwise (convert/shape.py's reshape; the batch_reshapes option is the converter's)."""
    allowzero = _int(attributes, "allowzero", 0)
    if importer.opset < 5 or len(inputs) != 2 or allowzero is None or importer.options.batch_reshapes:
        return None
    if len(attributes) > (_attr(attributes, "allowzero") is not None):
        return None
    target = _constant_ints(importer, inputs[1])
    if target is None:
        return "dyn.reshape", inputs, {"allowzero": bool(allowzero)}
    return "reshape", inputs[:1], {"newshape": target, "allowzero": bool(allowzero) and 0 in target}


#: ONNX op_type -> its form
FORMS: dict[str, Callable[[Any, str, list, Any], Optional[tuple]]] = {
    "Gather": gather,
    "Transpose": transpose,
    "Softmax": softmax,
    "LogSoftmax": softmax,
    "Hardmax": softmax,
    "Shape": shape,
    "Unsqueeze": unsqueeze,
    "Reshape": reshape,
}
