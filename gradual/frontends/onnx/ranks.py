"""The element type and rank of a node's outputs from its inputs', by the operator's rule: what
a converter asks of an inner tensor (a Range's scalar bounds, GlobalAveragePool's rank, Pow's
exponent dtype) is found from the few nodes it depends on, instead of running ONNX's shape
inference over the whole model and reading all of its output (a quarter of a 100,000-node
import, and 168 MB, for one Range node).

`rule(op_type, inputs, attributes, values, opset, outputs)` gives one `TensorInfo` (or None:
not known) per output; `inputs` are the inputs' TensorInfos (None where not known), `values`
their import-time constant values (None where not constants). Dims are not computed: the
rank and dtype are what converters choose lowerings by, and what the importer asserts in
the program (a cast the checker proves or checks), so a rule that were wrong could not make
a wrong program pass. Operators without a rule here give None, as a failed inference did.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from gradual.frontends.onnx.types import TensorInfo, gradual_dtype

_INT64, _BOOL, _FLOAT = 7, 9, 1

#: output 0 is input 0's shape and element type (elementwise: its dims too)
SAME = frozenset(
    "Abs Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh Elu Erf Exp Floor HardSigmoid HardSwish Identity "
    "LeakyRelu Log LogSoftmax Softmax Hardmax Mish Neg Reciprocal Relu Round Selu Sigmoid Sign Sin Sinh "
    "Softplus Softsign Sqrt Tan Tanh ThresholdedRelu Celu Gelu Clip Dropout LayerNormalization "
    "BatchNormalization InstanceNormalization GroupNormalization RMSNormalization LpNormalization "
    "MeanVarianceNormalization LRN CumSum Trilu Shrink Swish BitwiseNot".split()
)
#: output 0 has input 0's element type and rank, other dims
SAME_RANK = frozenset(
    "Transpose Slice Conv ConvTranspose MaxPool AveragePool LpPool GlobalAveragePool GlobalMaxPool GlobalLpPool "
    "Tile ReverseSequence Pad Resize Upsample DepthToSpace SpaceToDepth".split()
)
#: output 0 broadcasts the inputs: input 0's element type, the largest rank
BROADCAST = frozenset("Add Sub Mul Div Pow Mod Max Min Sum Mean PRelu BitShift BitwiseAnd BitwiseOr BitwiseXor".split())
#: output 0 broadcasts the inputs and is bool
COMPARE = frozenset("Equal Less Greater LessOrEqual GreaterOrEqual And Or Xor".split())
#: reductions over `axes` (keepdims: the rank stays)
REDUCE = frozenset(
    "ReduceMean ReduceSum ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp "
    "ReduceSumSquare".split()
)


def _info(elem_type: Optional[int], rank: Optional[int], dims: Optional[tuple] = None) -> Optional[TensorInfo]:
    """An output's info: its rank, and its dims where the rule knows them (None each else)."""
    if elem_type is None or rank is None or rank < 0:
        return None
    return TensorInfo(gradual_dtype(elem_type), dims if dims is not None else (None,) * rank, elem_type)


def _broadcast_dims(inputs: list) -> Optional[tuple]:
    """The dims of the inputs broadcast (None for a dim not known here; None when a rank is not)."""
    dims = [i.dims if i is not None else None for i in inputs]
    if not dims or any(d is None for d in dims):
        return None
    rank = max(len(d) for d in dims)  # type: ignore[arg-type]
    out = []
    for k in range(rank):
        column = {d[k - rank + len(d)] for d in dims if k - rank + len(d) >= 0}  # type: ignore[arg-type,index]
        column.discard(1)
        out.append(column.pop() if len(column) == 1 and None not in column else 1 if not column else None)
    return tuple(out)


def _elem(info: Optional[TensorInfo]) -> Optional[int]:
    return info.elem_type if info is not None and info.elem_type else None


def _rank(info: Optional[TensorInfo]) -> Optional[int]:
    return None if info is None else info.rank


def _attr_int(attributes: dict, name: str, default: int) -> int:
    a = attributes.get(name)
    return int(a.i) if a is not None and a.type == 2 else default


def _attr_ints(attributes: dict, name: str) -> Optional[list]:
    a = attributes.get(name)
    return [int(v) for v in a.ints] if a is not None and a.type == 7 else None


def _length(info: Optional[TensorInfo], value: Optional[np.ndarray]) -> Optional[int]:
    """How many entries a 1-D shape input has: its constant's size, or its static dim."""
    if value is not None:
        return int(np.asarray(value).size)
    if info is not None and info.dims is not None and len(info.dims) == 1 and isinstance(info.dims[0], int):
        return info.dims[0]
    return None


def _axes(attributes: dict, values: list, opset: int, since: int) -> Optional[list]:
    """A node's axes: the attribute before opset `since`, input 1 from it on."""
    if opset < since:
        return _attr_ints(attributes, "axes")
    if len(values) > 1 and values[1] is not None:
        return [int(v) for v in np.asarray(values[1]).reshape(-1)]
    return None


def _broadcast_rank(inputs: list) -> Optional[int]:
    ranks = [_rank(i) for i in inputs]
    return None if not ranks or any(r is None for r in ranks) else max(ranks)  # type: ignore[type-var]


def _matmul(inputs: list) -> Optional[int]:
    a, b = (_rank(i) for i in inputs[:2])
    if a is None or b is None or a == 0 or b == 0:
        return None
    if a == 1 and b == 1:
        return 0
    if a == 1:
        return b - 1
    if b == 1:
        return a - 1
    return max(a, b)


def _gather(inputs: list, attributes: dict) -> Optional[TensorInfo]:
    data, indices = inputs[0], inputs[1]
    ranks = [_rank(data), _rank(indices)]
    if None in ranks or ranks[0] == 0:
        return None
    axis = _attr_int(attributes, "axis", 0)
    axis += ranks[0] if axis < 0 else 0  # type: ignore[operator]
    if not 0 <= axis < ranks[0]:  # type: ignore[operator]
        return None
    dims = data.dims[:axis] + indices.dims + data.dims[axis + 1 :]
    return _info(_elem(data), len(dims), dims)


def _unsqueeze(first: Optional[TensorInfo], axes: Optional[list]) -> Optional[TensorInfo]:
    rank = _rank(first)
    if axes is None or rank is None:
        return None
    size = rank + len(axes)
    axes = sorted(a + size if a < 0 else a for a in axes)
    if len(set(axes)) != len(axes) or any(not 0 <= a < size for a in axes):
        return None
    dims = list(first.dims)  # type: ignore[union-attr,arg-type]
    for a in axes:
        dims.insert(a, 1)
    return _info(_elem(first), size, tuple(dims))


def _concat(inputs: list, attributes: dict) -> Optional[TensorInfo]:
    known = [i for i in inputs if i is not None and i.dims is not None]
    if not known:
        return None
    rank = len(known[0].dims)
    axis = _attr_int(attributes, "axis", 0)
    axis += rank if axis < 0 else 0
    dims = None
    if len(known) == len(inputs) and rank > 0 and 0 <= axis < rank and all(len(i.dims) == rank for i in known):
        sizes = [i.dims[axis] for i in known]
        merged = list(known[0].dims)
        merged[axis] = sum(sizes) if all(isinstance(d, int) for d in sizes) else None
        for k in range(rank):
            if k != axis and len({i.dims[k] for i in known}) != 1:
                merged[k] = None
        dims = tuple(merged)
    return _info(_elem(inputs[0]), rank, dims)


def rule(op_type: str, inputs: list, attributes: dict, values: list, opset: int, outputs: int) -> list:
    """The TensorInfo (or None) of each of a node's `outputs` outputs (see the module docstring)."""
    first = inputs[0] if inputs else None
    out: list = [None] * outputs
    dims = first.dims if first is not None else None
    if op_type in SAME:
        out[0] = _info(_elem(first), _rank(first), dims)
    elif op_type in SAME_RANK:
        out[0] = _info(_elem(first), _rank(first))
    elif op_type in BROADCAST:
        out[0] = _info(_elem(first), _broadcast_rank(inputs), _broadcast_dims(inputs))
    elif op_type in COMPARE:
        out[0] = _info(_BOOL, _broadcast_rank(inputs), _broadcast_dims(inputs))
    elif op_type in ("Not", "IsNaN", "IsInf"):
        out[0] = _info(_BOOL, _rank(first), dims)
    elif op_type == "Where" and len(inputs) == 3:
        out[0] = _info(_elem(inputs[1]), _broadcast_rank(inputs), _broadcast_dims(inputs))
    elif op_type == "Shape":
        rank = _rank(first)
        plain = rank is not None and "start" not in attributes and "end" not in attributes
        out[0] = _info(_INT64, 1, (rank,) if plain else None)
    elif op_type == "Size":
        out[0] = _info(_INT64, 0)
    elif op_type == "Cast":
        to = attributes.get("to")
        out[0] = _info(int(to.i) if to is not None and to.type == 2 else None, _rank(first), dims)
    elif op_type == "CastLike" and len(inputs) == 2:
        out[0] = _info(_elem(inputs[1]), _rank(first), dims)
    elif op_type == "Gather" and len(inputs) == 2:
        out[0] = _gather(inputs, attributes)
    elif op_type == "GatherElements" and len(inputs) == 2:
        out[0] = _info(_elem(first), _rank(inputs[1]))
    elif op_type == "Unsqueeze":
        out[0] = _unsqueeze(first, _axes(attributes, values, opset, 13))
    elif op_type == "Squeeze":
        axes, rank = _axes(attributes, values, opset, 13), _rank(first)
        out[0] = None if axes is None or rank is None else _info(_elem(first), rank - len(set(axes)))
    elif op_type == "Concat":
        out[0] = _concat(inputs, attributes)
    elif op_type == "MatMul" and len(inputs) == 2:
        out[0] = _info(_elem(first), _matmul(inputs))
    elif op_type == "Gemm":
        out[0] = _info(_elem(first), 2)
    elif op_type == "Flatten":
        out[0] = _info(_elem(first), 2)
    elif op_type == "Reshape" and len(inputs) == 2:
        out[0] = _info(_elem(first), _length(inputs[1], values[1]))
    elif op_type == "Expand" and len(inputs) == 2:
        length, rank = _length(inputs[1], values[1]), _rank(first)
        out[0] = None if length is None or rank is None else _info(_elem(first), max(length, rank))
    elif op_type == "ConstantOfShape" and inputs:
        value = attributes.get("value")
        elem = int(value.t.data_type) if value is not None and value.type == 4 else _FLOAT
        out[0] = _info(elem, _length(first, values[0]))
    elif op_type == "Range":
        out[0] = _info(_elem(first), 1)
    elif op_type in REDUCE:
        rank = _rank(first)
        if _attr_int(attributes, "keepdims", 1):
            out[0] = _info(_elem(first), rank)
        else:
            axes = _axes(attributes, values, opset, 13 if op_type == "ReduceSum" else 18)
            out[0] = None if not axes or rank is None else _info(_elem(first), rank - len(set(axes)))
    elif op_type in ("ArgMax", "ArgMin"):
        rank = _rank(first)
        keep = _attr_int(attributes, "keepdims", 1)
        out[0] = None if rank is None else _info(_INT64, rank if keep else rank - 1)
    elif op_type == "Split":
        out = [first] * outputs
    elif op_type == "TopK" and outputs == 2:
        out = [first, _info(_INT64, _rank(first))]
    elif op_type == "NonZero":
        out[0] = _info(_INT64, 2)
    return out
