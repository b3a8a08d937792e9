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


def fold(proto: Any, inputs: list, opset_import: Any, attributes: Optional[dict] = None) -> Optional[list]:
    """The node's outputs evaluated on constant inputs, or None when it cannot (or should not)
    be folded. The commonest folds of exporters' shape arithmetic are NumPy here (`_LOCAL`:
    the same values and dtypes as ONNX's reference evaluator, which tests/test_onnx_fold.py
    compares), so a model that needs no other fold never imports the reference evaluator (nor
    `onnx`); anything else goes to it. `attributes`: the node's AttributeProtos by name."""
    local = _LOCAL.get(proto.op_type)
    if local is not None and all(v is not None for v in inputs[: _ARITY.get(proto.op_type, len(inputs))]):
        try:
            arrays = [None if v is None else np.asarray(v) for v in inputs]
            found = local(arrays, attributes or {}, _opset(opset_import))
        except (ValueError, IndexError, TypeError, OverflowError):
            found = None  # not a case folded here: the reference evaluator decides
        if found is not None:
            return found if all(inlinable(a) for a in found) else None
    return _reference(proto, inputs, opset_import)


def _reference(proto: Any, inputs: list, opset_import: Any) -> Optional[list]:
    """The node evaluated by ONNX's reference evaluator (None where it fails)."""
    from onnx import helper, numpy_helper
    from onnx.reference import ReferenceEvaluator

    from gradual.frontends.onnx.proto import to_onnx

    proto = to_onnx(proto)  # make_graph takes onnx's own messages
    given = list(proto.input)
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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(e.domain, e.version) for e in opset_import])
    try:
        results = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - not foldable: the checker sees the node instead
        return None
    arrays = [np.asarray(r) for r in results]
    return arrays if all(inlinable(a) for a in arrays) else None


def _opset(opset_import: Any) -> int:
    for entry in opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    return 1


def _int(attributes: dict, name: str, default: int) -> int:
    a = attributes.get(name)
    if a is None:
        return default
    if a.type != 2 or a.ref_attr_name:
        raise ValueError(name)  # not an INT: the reference evaluator says what it makes of it
    return int(a.i)


def _ints(attributes: dict, name: str) -> Optional[list]:
    a = attributes.get(name)
    if a is None:
        return None
    if a.type != 7 or a.ref_attr_name:
        raise ValueError(name)
    return [int(v) for v in a.ints]


def _same_kind(inputs: list, kinds: str = "iu") -> list:
    """Inputs of one dtype of these kinds (integers by default: the folds below are the
    reference evaluator's own NumPy calls, which agree exactly; mixed dtypes go to it)."""
    dtype = inputs[0].dtype
    if dtype.kind not in kinds or any(v is None or v.dtype != dtype for v in inputs):
        raise ValueError("not one dtype")
    return inputs


def _binary(op: Any) -> Any:
    """A broadcasting operator the reference evaluator runs as this NumPy function."""

    def run(inputs: list, attributes: dict, opset: int) -> list:
        a, b = _same_kind(inputs[:2], "iuf")
        with np.errstate(all="ignore"):
            return [np.asarray(op(a, b))]

    return run


def _mod(inputs: list, attributes: dict, opset: int) -> list:
    a, b = _same_kind(inputs[:2], "iuf")
    with np.errstate(all="ignore"):
        return [np.asarray(np.fmod(a, b) if _int(attributes, "fmod", 0) == 1 else np.mod(a, b))]


def _cast(inputs: list, attributes: dict, opset: int) -> list:
    """Cast to a plain element type: NumPy's astype, as the reference evaluator casts them."""
    from gradual.frontends.onnx.constants import PLAIN

    to = PLAIN.get(_int(attributes, "to", 0))
    if to is None or inputs[0].dtype.kind not in "iufb":
        raise ValueError("not a plain cast")
    with np.errstate(all="ignore"):
        return [inputs[0].astype(to)]


def _constant_of_shape(inputs: list, attributes: dict, opset: int) -> list:
    """np.full of the `value` attribute's one element (float32 0 without it)."""
    from gradual.frontends.onnx.constants import read

    a = attributes.get("value")
    if a is None:
        value = np.array(0, dtype=np.float32)
    else:
        if a.type != 4 or a.ref_attr_name:
            raise ValueError("value")
        array = read(a.t)
        if isinstance(array, str) or array.size != 1 or array.dtype.kind not in "iufb":
            raise ValueError("value")
        value = array.reshape(-1)[0]
    shape = inputs[0]
    if shape.dtype.kind not in "iu" or shape.ndim != 1 or (shape < 0).any():
        raise ValueError("shape")
    return [np.full(tuple(int(d) for d in shape), value)]


def _neg(inputs: list, attributes: dict, opset: int) -> list:
    (a,) = _same_kind(inputs[:1], "if")
    with np.errstate(all="ignore"):
        return [np.asarray(np.negative(a))]


def _unsqueeze(inputs: list, attributes: dict, opset: int) -> list:
    if opset >= 13:
        axes = [int(v) for v in inputs[1].reshape(-1)] if len(inputs) > 1 and inputs[1] is not None else None
    else:
        axes = _ints(attributes, "axes")
    if axes is None:
        raise ValueError("no axes")
    data = inputs[0]
    rank = data.ndim + len(axes)
    axes = sorted(a + rank if a < 0 else a for a in axes)
    if len(set(axes)) != len(axes) or any(not 0 <= a < rank for a in axes):
        raise ValueError("bad axes")
    shape = list(data.shape)
    for a in axes:
        shape.insert(a, 1)
    return [data.reshape(shape)]


def _squeeze(inputs: list, attributes: dict, opset: int) -> list:
    data = inputs[0]
    if opset >= 13:
        axes = [int(v) for v in inputs[1].reshape(-1)] if len(inputs) > 1 and inputs[1] is not None else None
    else:
        axes = _ints(attributes, "axes")
    if axes is None:
        return [data.reshape([d for d in data.shape if d != 1])]
    axes = [a + data.ndim if a < 0 else a for a in axes]
    if any(not 0 <= a < data.ndim or data.shape[a] != 1 for a in axes):
        raise ValueError("bad axes")
    return [data.reshape([d for i, d in enumerate(data.shape) if i not in axes])]


def _concat(inputs: list, attributes: dict, opset: int) -> list:
    if "axis" not in attributes:
        raise ValueError("no axis")
    _same_kind(inputs, "iufb")
    return [np.concatenate(inputs, axis=_int(attributes, "axis", 0))]


def _gather(inputs: list, attributes: dict, opset: int) -> list:
    data, indices = inputs[0], inputs[1]
    if indices.dtype.kind not in "iu" or data.ndim == 0:
        raise ValueError("not a gather folded here")
    axis = _int(attributes, "axis", 0)
    axis = axis + data.ndim if axis < 0 else axis
    if not 0 <= axis < data.ndim:
        raise ValueError("bad axis")
    size = data.shape[axis]
    if indices.size and (indices.min() < -size or indices.max() >= size):
        raise ValueError("out of range")
    return [np.take(data, np.where(indices < 0, indices + size, indices).astype(np.int64), axis=axis)]


def _reshape(inputs: list, attributes: dict, opset: int) -> list:
    data, shape = inputs[0], [int(v) for v in inputs[1].reshape(-1)]
    allowzero = _int(attributes, "allowzero", 0) if opset >= 14 else 0
    if allowzero or shape.count(-1) > 1:
        raise ValueError("not a reshape folded here")
    target = [data.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return [data.reshape(target)]


#: ONNX op_type -> its NumPy fold (raises ValueError, ... for a case left to the reference evaluator)
_LOCAL = {
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Neg": _neg,
    "Mod": _mod,
    "Cast": _cast,
    "ConstantOfShape": _constant_of_shape,
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Concat": _concat,
    "Gather": _gather,
    "Reshape": _reshape,
}
#: how many leading inputs a local fold needs given (the others are optional)
_ARITY = {"Squeeze": 1, "Unsqueeze": 1}
