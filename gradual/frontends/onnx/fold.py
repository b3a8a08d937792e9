"""Constant folding at import: a node of shape arithmetic whose inputs are all small constants
is evaluated by ONNX's reference evaluator, and its outputs become constants too.

This is what makes `Neg(Constant)` -> `ConstantOfShape` -> `Concat` -> `Reshape` chains (the
expanded functions of LayerNormalization, RotaryEmbedding, ...) give Reshape a known target. Only
operators of integer and shape arithmetic are folded, only into values small enough to be
written into the program (`inlinable`: 64 integers, 8 finite floats), and a node the reference evaluator rejects is left to the checker,
which then reports it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from gradual.frontends.onnx.node import INT_INLINE, inlinable

FOLDABLE = frozenset(
    {
        "Neg",
        "Abs",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Mod",
        "Min",
        "Max",
        "Sum",
        "Cast",
        "CastLike",
        "Concat",
        "Unsqueeze",
        "Squeeze",
        "Reshape",
        "Flatten",
        "Gather",
        "Slice",
        "Equal",
        "Less",
        "Greater",
        "LessOrEqual",
        "GreaterOrEqual",
        "Where",
        "Not",
        "And",
        "Or",
        "Xor",
        "ConstantOfShape",
        "Range",
        "ReduceProd",
        "ReduceSum",
        "ReduceMin",
        "ReduceMax",
        "Shape",
        "Size",
        "Floor",
        "Ceil",
        "Sign",
        "Expand",
        "Tile",
        "Transpose",
        "Split",
    }
)


def foldable(op_type: str, inputs: list) -> bool:
    """Whether a node with these (known) input values is worth folding."""
    if op_type not in FOLDABLE or any(v is None for v in inputs):
        return False
    if any(np.asarray(v).size > INT_INLINE for v in inputs):
        return False
    if op_type in ("ConstantOfShape", "Expand", "Tile", "Range"):
        return _small_result(op_type, inputs)
    return True


def _small_result(op_type: str, inputs: list) -> bool:
    values = [np.asarray(v).reshape(-1) for v in inputs]
    try:
        if op_type == "ConstantOfShape":
            return int(np.prod(values[0])) <= INT_INLINE
        if op_type == "Range":
            start, limit, delta = (float(v[0]) for v in values)
            return delta != 0 and (limit - start) / delta <= INT_INLINE
        if op_type == "Expand":
            return (
                int(np.prod(np.broadcast_shapes(np.asarray(inputs[0]).shape, tuple(int(d) for d in values[1]))))
                <= INT_INLINE
            )
        return np.asarray(inputs[0]).size * int(np.prod(values[1])) <= INT_INLINE
    except (ValueError, OverflowError, IndexError):
        return False


def fold(proto: Any, inputs: list, opset_import: Any) -> Optional[list]:
    """The node's outputs evaluated on constant inputs, or None when it cannot (or should not)
    be folded."""
    from onnx import helper, numpy_helper
    from onnx.reference import ReferenceEvaluator

    given = [name for name in proto.input]
    graph_inputs, feeds = [], {}
    for name, value in zip(given, inputs):
        if not name or name in feeds:
            continue
        array = np.asarray(value)
        tensor = numpy_helper.from_array(array, name)
        graph_inputs.append(helper.make_tensor_value_info(name, tensor.data_type, list(array.shape)))
        feeds[name] = array
    outputs = [helper.make_empty_tensor_value_info(name) for name in proto.output if name]
    graph = helper.make_graph([proto], "fold", graph_inputs, outputs)
    model = helper.make_model(graph, opset_imports=list(opset_import))
    try:
        results = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - not foldable: the checker sees the node instead
        return None
    arrays = [np.asarray(r) for r in results]
    return arrays if all(inlinable(a) for a in arrays) else None
