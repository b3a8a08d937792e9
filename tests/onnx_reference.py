"""Running a call of gradual's `onnx.*` operators as an ONNX node under ONNX Runtime
(tests/test_onnx_reference.py).

A call is an operator's operands (NumPy arrays; a tuple for einsum's list; an empty vector for
an optional input left out, as the frontend passes it) and attributes, as
tests/kernel_inputs_onnx*.py draw them. `node_for` says which ONNX node it is: the op type (for
the operators gradual merges, such as `onnx.reduce`, from its `kind`), the inputs in ONNX's
order, the attributes under ONNX's names, how many outputs to compare and the opset.
`ort_outputs` builds a one-node model and runs it. Element types NumPy has no dtype of (bfloat16,
float8, int4, ...) cross the boundary through a Cast: such an input is fed as float32 (int32)
and cast in the graph, such an output is cast to float32 (int32) before it leaves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

#: gradual's dtype names -> ONNX's TensorProto element types
ELEMENT_TYPES = {
    "float32": 1,
    "uint8": 2,
    "int8": 3,
    "uint16": 4,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "bool": 9,
    "float16": 10,
    "float64": 11,
    "uint32": 12,
    "uint64": 13,
    "bfloat16": 16,
    "float8_e4m3fn": 17,
    "float8_e4m3fnuz": 18,
    "float8_e5m2": 19,
    "float8_e5m2fnuz": 20,
    "uint4": 21,
    "int4": 22,
    "float4_e2m1fn": 23,
    "float8_e8m0fnu": 24,
    "uint2": 25,
    "int2": 26,
}
#: the types ONNX Runtime's Python binding cannot take or give as NumPy arrays -> the type they cross as
NARROW = {
    "bfloat16": "float32",
    "float8_e4m3fn": "float32",
    "float8_e4m3fnuz": "float32",
    "float8_e5m2": "float32",
    "float8_e5m2fnuz": "float32",
    "float8_e8m0fnu": "float32",
    "float4_e2m1fn": "float32",
    "int4": "int32",
    "uint4": "int32",
    "int2": "int32",
    "uint2": "int32",
}


class NoNode(Exception):
    """This call has no ONNX node (a form only gradual has)."""


@dataclass
class Node:
    """One ONNX node: inputs in ONNX's order (None: left out), attributes as ONNX names them."""

    op_type: str
    inputs: list
    attrs: dict = field(default_factory=dict)
    outputs: int = 1
    opset: int = 21


def dtype_name(a: np.ndarray) -> str:
    return str(a.dtype)


def _absent(a: Any) -> bool:
    return isinstance(a, np.ndarray) and a.size == 0 and a.ndim == 1


def _attrs(attrs: dict, drop: tuple = (), rename: Optional[dict] = None) -> dict:
    """Attributes as ONNX takes them: None left out, booleans as ints, dtypes as element types."""
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        if value is None or name in drop:
            continue
        out[(rename or {}).get(name, name)] = int(value) if isinstance(value, bool) else value
    return out


def _optional(args: list, positions: tuple) -> list:
    return [None if i in positions and _absent(a) else a for i, a in enumerate(args)]


def _int64(args: list, positions: tuple) -> list:
    """gradual takes any integer dtype for an index operand (`I: index`) where ONNX names int64
    alone: ONNX Runtime is given these as int64."""
    return [
        a.astype(np.int64) if i in positions and isinstance(a, np.ndarray) and a.dtype.kind in "iu" else a
        for i, a in enumerate(args)
    ]


def simple(
    op_type: str,
    optional: tuple = (),
    outputs: int = 1,
    opset: int = 21,
    drop: tuple = (),
    int64: tuple = (),
) -> Callable[[list, dict], Node]:
    """The node of an operator whose operands and attributes are ONNX's, in ONNX's order."""

    def make(args: list, attrs: dict) -> Node:
        return Node(op_type, _optional(_int64(args, int64), optional), _attrs(attrs, drop), outputs, opset)

    return make


REDUCTIONS = {
    "sum": "ReduceSum",
    "mean": "ReduceMean",
    "max": "ReduceMax",
    "min": "ReduceMin",
    "prod": "ReduceProd",
    "l1": "ReduceL1",
    "l2": "ReduceL2",
    "sum_square": "ReduceSumSquare",
    "log_sum": "ReduceLogSum",
    "log_sum_exp": "ReduceLogSumExp",
}


def _reduce(args: list, attrs: dict) -> Node:
    return Node(REDUCTIONS[attrs["kind"]], _optional(_int64(args, (1,)), (1,)), _attrs(attrs, ("kind",)), opset=18)


def _constant(args: list, attrs: dict) -> Node:
    from onnx import helper

    values = attrs["values"] if isinstance(attrs["values"], list) else [attrs["values"]]
    dtype = attrs["dtype"]
    count = int(np.prod(attrs["shape"]))
    flat = (values * count)[:count] if len(values) == 1 else values
    array = np.asarray(flat, dtype).reshape(attrs["shape"])
    return Node("Constant", [], {"value": helper.make_tensor("v", ELEMENT_TYPES[dtype], array.shape, array.ravel())})


def _cast_drops(target: str) -> tuple:
    """Cast's saturate is read for float8 targets alone and round_mode for float8_e8m0fnu alone;
    ONNX Runtime refuses either elsewhere."""
    return (() if target.startswith("float8") else ("saturate",)) + (
        () if target == "float8_e8m0fnu" else ("round_mode",)
    )


def _cast(args: list, attrs: dict) -> Node:
    e8m0 = attrs["dtype"] == "float8_e8m0fnu"
    out = _attrs(attrs, ("dtype",) + _cast_drops(attrs["dtype"]))
    return Node("Cast", args, {**out, "to": ELEMENT_TYPES[attrs["dtype"]]}, opset=25 if e8m0 else 21)


def _cast_like(args: list, attrs: dict) -> Node:
    target = dtype_name(args[1])
    return Node("CastLike", args, _attrs(attrs, _cast_drops(target)), opset=25 if target == "float8_e8m0fnu" else 21)


def _eye_like(args: list, attrs: dict) -> Node:
    out = _attrs(attrs, ("dtype",))
    if attrs.get("dtype"):
        out["dtype"] = ELEMENT_TYPES[attrs["dtype"]]
    return Node("EyeLike", args, out)


def _einsum(args: list, attrs: dict) -> Node:
    return Node("Einsum", list(args[0]), _attrs(attrs))


def _space_to_depth(args: list, attrs: dict) -> Node:
    """SpaceToDepth has no mode: gradual's CRD, depth_to_space's inverse, is no ONNX node."""
    if attrs.get("mode", "DCR") != "DCR":
        raise NoNode("SpaceToDepth is DCR alone")
    return Node("SpaceToDepth", args, _attrs(attrs, ("mode",)))


def _split(args: list, attrs: dict) -> Node:
    return Node("Split", args, _attrs(attrs), outputs=int(attrs["num_outputs"]), opset=18)


def _split_sizes(args: list, attrs: dict) -> Node:
    return Node("Split", _int64(args, (1,)), _attrs(attrs, ("num_outputs",)), outputs=int(attrs["num_outputs"]))


def _resize(args: list, attrs: dict) -> Node:
    return Node("Resize", _optional(_int64(args, (3,)), (1, 2, 3)), _attrs(attrs, ("static_scales",)), opset=19)


RECURRENT = {"rnn": ("RNN", 2, 6), "gru": ("GRU", 2, 6), "lstm": ("LSTM", 3, 8)}


def _rnn(args: list, attrs: dict) -> Node:
    op_type, outputs, count = RECURRENT[attrs["kind"]]
    drop = ["kind"]
    if attrs["kind"] != "lstm":
        drop.append("input_forget")
    if attrs["kind"] != "gru":
        drop.append("linear_before_reset")
    out = _attrs(attrs, tuple(drop))
    out.setdefault("hidden_size", int(args[2].shape[-1]))
    return Node(op_type, _optional(args[:count], (3, 4, 5, 6, 7)), out, outputs=outputs)


def _attention(args: list, attrs: dict) -> Node:
    out = _attrs(attrs, ("softmax_precision",))
    if attrs.get("softmax_precision"):
        out["softmax_precision"] = ELEMENT_TYPES[attrs["softmax_precision"]]
    inputs = _optional(args, (3, 4, 5, 6))
    # the standard refuses nonpad_kv_seqlen with the present cache outputs: then y alone is compared
    return Node("Attention", inputs, out, outputs=1 if inputs[6] is not None else 4, opset=25)


def _quantize(args: list, attrs: dict) -> Node:
    out = _attrs(attrs, ("dtype", "precision"))
    out["output_dtype"] = ELEMENT_TYPES[attrs["dtype"]]
    if attrs.get("precision"):
        out["precision"] = ELEMENT_TYPES[attrs["precision"]]
    return Node("QuantizeLinear", _optional(args, (2,)), out, opset=25)


def _dequantize(args: list, attrs: dict) -> Node:
    out = _attrs(attrs, ("dtype",))
    out["output_dtype"] = ELEMENT_TYPES[attrs["dtype"]]
    return Node("DequantizeLinear", _optional(args, (2,)), out, opset=25)


def _bitcast(args: list, attrs: dict) -> Node:
    return Node("BitCast", args, {"to": ELEMENT_TYPES[attrs["dtype"]]}, opset=26)


WINDOWS = {"hann": "HannWindow", "hamming": "HammingWindow", "blackman": "BlackmanWindow"}


def _window(args: list, attrs: dict) -> Node:
    out = {
        "periodic": int(attrs.get("periodic", True)),
        "output_datatype": ELEMENT_TYPES[attrs.get("dtype", "float32")],
    }
    return Node(WINDOWS[attrs["kind"]], _int64(args, (0,)), out)


def _dft(args: list, attrs: dict) -> Node:
    axis = np.asarray(attrs.get("axis", -2), np.int64)
    inputs = _optional(args, (1,)) + [axis]
    return Node("DFT", inputs, _attrs(attrs, ("axis",)), opset=20)


def _max_pool_indices(args: list, attrs: dict) -> Node:
    return Node("MaxPool", args, _attrs(attrs), outputs=2)


def _batch_norm_train(args: list, attrs: dict) -> Node:
    return Node("BatchNormalization", args, {**_attrs(attrs), "training_mode": 1}, outputs=3, opset=15)


UNARY = {
    "reciprocal": "Reciprocal",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "asinh": "Asinh",
    "acosh": "Acosh",
    "atanh": "Atanh",
    "softplus": "Softplus",
    "softsign": "Softsign",
    "mish": "Mish",
    "hard_swish": "HardSwish",
    "bitwise_not": "BitwiseNot",
    "elu": "Elu",
    "celu": "Celu",
    "selu": "Selu",
    "thresholded_relu": "ThresholdedRelu",
    "hard_sigmoid": "HardSigmoid",
    "shrink": "Shrink",
    "isnan": "IsNaN",
    "isinf": "IsInf",
    "bitwise_and": "BitwiseAnd",
    "bitwise_or": "BitwiseOr",
    "bitwise_xor": "BitwiseXor",
    "bitshift": "BitShift",
    "mod": "Mod",
    "prelu": "PRelu",
    "det": "Det",
    "hardmax": "Hardmax",
    "lrn": "LRN",
    "lp_norm": "LpNormalization",
    "instance_norm": "InstanceNormalization",
    "mean_variance_norm": "MeanVarianceNormalization",
    "global_lp_pool": "GlobalLpPool",
    "matmul": "MatMul",
    "flatten": "Flatten",
    "depth_to_space": "DepthToSpace",
    "gather_elements": "GatherElements",
    "scatter_elements": "ScatterElements",
    "conv": "Conv",
    "conv_transpose": "ConvTranspose",
    "max_pool": "MaxPool",
    "avg_pool": "AveragePool",
    "lp_pool": "LpPool",
    "one_hot": "OneHot",
    "affine_grid": "AffineGrid",
    "col2im": "Col2Im",
}

#: gradual operator -> how its call is an ONNX node
NODES: dict[str, Callable[[list, dict], Node]] = {f"onnx.{name}": simple(op) for name, op in UNARY.items()}
NODES.update(
    {
        "onnx.constant": _constant,
        "onnx.cast": _cast,
        "onnx.cast_like": _cast_like,
        "onnx.eye_like": _eye_like,
        "onnx.einsum": _einsum,
        "onnx.unsqueeze": simple("Unsqueeze", int64=(1,)),
        "onnx.squeeze": simple("Squeeze", int64=(1,)),
        "onnx.expand": simple("Expand", int64=(1,)),
        "onnx.slice": simple("Slice", optional=(3, 4), int64=(1, 2, 3, 4)),
        "onnx.tile": simple("Tile", int64=(1,)),
        "onnx.pad": simple("Pad", optional=(2, 3), int64=(1, 3)),
        "onnx.split": _split,
        "onnx.split_sizes": _split_sizes,
        "onnx.space_to_depth": _space_to_depth,
        "onnx.trilu": simple("Trilu", optional=(1,), int64=(1,)),
        "onnx.reduce": _reduce,
        "onnx.resize": _resize,
        "onnx.gather_nd": simple("GatherND", int64=(1,)),
        "onnx.scatter_nd": simple("ScatterND", int64=(1,), opset=18),
        "onnx.cumsum": simple("CumSum"),
        "onnx.cumprod": simple("CumProd", opset=26),
        "onnx.topk": simple("TopK", outputs=2, int64=(1,)),
        "onnx.max_pool_indices": _max_pool_indices,
        "onnx.layer_norm": simple("LayerNormalization", outputs=3),
        "onnx.batch_norm_train": _batch_norm_train,
        "onnx.rms_norm": simple("RMSNormalization", opset=23),
        "onnx.group_norm": simple("GroupNormalization"),
        "onnx.nll_loss": simple("NegativeLogLikelihoodLoss", optional=(2,), int64=(1,)),
        "onnx.softmax_cross_entropy": simple("SoftmaxCrossEntropyLoss", optional=(2,), outputs=2, int64=(1,)),
        "onnx.gelu": simple("Gelu", opset=20),
        "onnx.swish": simple("Swish", opset=24),
        "onnx.rnn": _rnn,
        "onnx.attention": _attention,
        "onnx.quantize": _quantize,
        "onnx.dequantize": _dequantize,
        "onnx.bitcast": _bitcast,
        "onnx.swiglu": simple("SwiGLU", opset=28),
        "onnx.compress": simple("Compress"),
        "onnx.reverse_sequence": simple("ReverseSequence", int64=(1,)),
        "onnx.window": _window,
        "onnx.center_crop_pad": simple("CenterCropPad", int64=(1,)),
        "onnx.tensor_scatter": simple("TensorScatter", optional=(2,), opset=24),
        "onnx.unique": simple("Unique", outputs=4),
        "onnx.rotary_embedding": simple("RotaryEmbedding", optional=(3,), opset=23),
        "onnx.grid_sample": simple("GridSample", opset=22),
        "onnx.dft": _dft,
        "onnx.stft": simple("STFT", optional=(2, 3), int64=(1, 3)),
        "onnx.max_unpool": simple("MaxUnpool", optional=(2,), int64=(1, 2)),
        "onnx.dynamic_quantize": simple("DynamicQuantizeLinear", outputs=3),
    }
)

#: operators of gradual's own, with no ONNX node: why
NO_NODE = {
    "onnx.scan_append": "the frontend's lowering of a Loop's scan outputs (one iteration's row appended to the rows"
    " so far); ONNX has no node for it: Loop concatenates its scan outputs itself",
}


def node_for(name: str, args: list, attrs: dict) -> Node:
    if name in NO_NODE:
        raise NoNode(NO_NODE[name])
    return NODES[name](args, attrs)


class NoKernel(Exception):
    """ONNX Runtime has no kernel for this node (its registered types are narrower than ONNX's)."""


def ort_outputs(node: Node, narrow_outputs: tuple = ()) -> list:
    """ONNX Runtime's outputs of one node (NoKernel where it has no kernel for these types);
    AssertionError where it refuses the model or the inputs. `narrow_outputs` names the element
    type of each output gradual gives ("" where NumPy holds it): those leave the graph cast."""
    import onnxruntime as ort
    from onnx import helper

    nodes, values, feeds, names = [], [], {}, []
    for i, a in enumerate(node.inputs):
        if a is None:
            names.append("")
            continue
        name = f"a{i}"
        a = np.asarray(a)  # a 0-d draw may be a NumPy scalar
        dtype = dtype_name(a)
        if dtype in NARROW:
            nodes.append(helper.make_node("Cast", [f"{name}_fed"], [name], to=ELEMENT_TYPES[dtype]))
            fed = f"{name}_fed"
            a = a.astype(NARROW[dtype])
            dtype = NARROW[dtype]
        else:
            fed = name
        feeds[fed] = a
        values.append(helper.make_tensor_value_info(fed, ELEMENT_TYPES[dtype], a.shape))
        names.append(name)
    while names and names[-1] == "":
        names.pop()  # optional inputs left out at the end are not named at all
    outs = [f"y{j}" for j in range(node.outputs)]
    nodes.append(helper.make_node(node.op_type, names, outs, **node.attrs))
    for j, dtype in enumerate(narrow_outputs[: node.outputs]):
        if dtype in NARROW:
            nodes.append(helper.make_node("Cast", [outs[j]], [f"{outs[j]}_out"], to=ELEMENT_TYPES[NARROW[dtype]]))
            outs[j] = f"{outs[j]}_out"
    graph = helper.make_graph(nodes, "g", values, [helper.make_empty_tensor_value_info(o) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", node.opset)])
    model.ir_version = 10
    options = ort.SessionOptions()
    options.log_severity_level = 4  # its refusals are reported here, not logged
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - ONNX Runtime's errors have no common base class
        text = str(exc)
        if "NOT_IMPLEMENTED" in text or "Could not find an implementation" in text:
            raise NoKernel(text[:200]) from None
        raise AssertionError(f"ONNX Runtime refused the model: {text[:400]}") from None
    try:
        return session.run(None, feeds)
    except Exception as exc:  # noqa: BLE001 - as above
        text = str(exc)
        if "does not support double" in text or "NOT_IMPLEMENTED" in text:
            raise NoKernel(text[:200]) from None
        raise AssertionError(f"ONNX Runtime refused the inputs: {text[:400]}") from None


def tolerance(dtype: np.dtype) -> tuple:
    """(rtol, atol) a float dtype's results agree to."""
    if dtype == np.float16:
        return 2e-2, 2e-2
    if dtype == np.float32:
        return 2e-4, 2e-5
    return 1e-6, 1e-7


def compare(ours: Any, theirs: Any, tolerance_of: Any = None, values: bool = True) -> str:
    """Where gradual's result differs from ONNX Runtime's ("" where they agree): shape, dtype,
    then the values (floats within tolerance, NaN equal to NaN; integers and booleans exactly).
    A narrow float (float8, bfloat16) is compared through float32, as ONNX Runtime gave it, to
    float16's tolerance; `tolerance_of` names a narrower dtype whose tolerance applies."""
    a = np.asarray(ours)
    b = np.asarray(theirs)
    if a.shape != b.shape:
        return f"shape {a.shape} vs ONNX Runtime's {b.shape}"
    mine = dtype_name(a)
    crossed = NARROW.get(mine, mine)
    if crossed != dtype_name(b):
        return f"dtype {mine} vs ONNX Runtime's {b.dtype}"
    if not values:
        return ""
    if mine in NARROW:
        a = a.astype(crossed)
    if a.dtype.kind == "f":
        width = np.dtype(tolerance_of or (mine if mine not in NARROW else np.float16))
        rtol, atol = tolerance(width)
        close = np.isclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        if not close.all():
            at = tuple(int(i) for i in np.argwhere(~close)[0])
            return f"values differ at {at}: {a[at]!r} vs ONNX Runtime's {b[at]!r} ({int((~close).sum())} of {a.size})"
        return ""
    if not np.array_equal(a, b):
        at = tuple(int(i) for i in np.argwhere(a != b)[0])
        return f"values differ at {at}: {a[at]!r} vs ONNX Runtime's {b[at]!r}"
    return ""
