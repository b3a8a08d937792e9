"""The ONNX frontend: import an ONNX model as a gradual program, check it, run it.

    from gradual.frontends import onnx as gonnx

    model = gonnx.import_model("resnet50.onnx", gonnx.ImportOptions(batch="N"))
    result = model.check()                     # a gradual.CheckResult
    str(result.function_type("main"))          # 'fn (Tensor[(N, 3, 224, 224), float32]) -> ...'
    outputs = model.run({"data_0": x})         # NumPy arrays, in graph-output order
    print(model.text())                        # the program in gradual's language

Needs the `onnx` extra (`pip install 'gradual[onnx]'`: onnx and protobuf). Decisions, where ONNX
leaves room:

* **One definition.** The graph becomes `def @main`: graph inputs are its parameters (in
  order), each node binds its outputs with `let` under the ONNX tensor names (sanitized:
  `gpu_0/conv1` is `%gpu_0_conv1`), the graph outputs are its result (a tuple for several).
  The declared output types annotate the result, so a model whose outputs contradict its
  declaration is an error (not with `batch`, which changes the inputs on purpose).
* **Dims.** A `dim_param` is a symbolic dim of that name (two different names are two
  possibly different sizes); a missing dim is `?`; a missing shape is dynamic rank. The same
  name in several inputs is one size, as ONNX says. Each distinct dim_param gets its own name
  of the language (`batch size` -> `batch_size`, `a-b` -> `a_b_2` beside `a b`, non-ASCII as
  `uXXXX`); one that is arithmetic over the inputs' dims (`2*seq - 1`, as the dynamo exporter
  writes output dims) is that expression.
* **Exporter dims are claims** (spec §6): the inputs' dim_params are marked as the exporter's
  claim (`builder.Function.claim_dims`), so a node that constrains one (`height = 32`, or a
  multiple of 4) gets a `dim-constraint` warning and a runtime check instead of an error;
  `ImportOptions.strict_dims` (`--strict-dims`) makes them promises again.
* **Outputs.** A fully declared graph output annotates `@main`'s result; one declared without
  a shape, with `?` dims or with dims named by the exporter alone (`Reluy_dim_2`) shows the
  inferred type, its declared parts still checked (see outputs.py).
* **Constants.** Initializers and Constant outputs are NumPy arrays at import. Where the
  frontend needs a value as an attribute (Reshape's target, Slice's starts, Pad's pads, Tile's
  repeats, axes of Squeeze/Unsqueeze/reductions) it reads the array. Where a constant is used
  as a tensor, a small one (up to 64 integers or 8 finite floats) is written into the program
  as `onnx.constant(values=[...], shape=[...], dtype=...)` or a literal, so its value is known
  to the checker (integer vectors are shape values, spec §3.7); a larger one becomes a
  parameter of `@main` with its exact static type, whose value `ImportedModel.feeds` / `run`
  pass along (`ImportedModel.constants`). An initializer listed among the graph inputs is a
  constant at every IR version: onnxruntime lets a run replace one from IR 4 on, but exporters
  that keep initializers as inputs list every weight so, and the model's value is what decides
  shapes (a decision: such an input cannot be given to `run`). `ImportOptions.freeze` turns
  graph inputs into constants. Model-local functions are expanded by ONNX's inliner first
  (one it cannot expand, recursive or nested past its depth, stays: its calls are errors that say why).
* **Shape tensors** that are not constants (a `Shape` -> `Gather` -> `Concat` chain, a graph
  input) stay tensors: `dyn.reshape`, `onnx.expand`, `onnx.slice`, ... read their values where
  the checker knows them and give `?` dims (of a known rank) where it does not.
* **Lowering.** Each ONNX operator maps onto stdlib operators with the same semantics where
  one exists (Gemm: `transpose` + `nn.dense`/`nn.matmul` + scaled bias; Flatten at axis 1:
  `nn.batch_flatten`; NonZero: `transpose(argwhere)`; Gather: `take(mode="fast")`, an index out
  of range an error as ONNX makes it; Split by sizes: `onnx.split_sizes`, which requires them
  to add up to the dim; 2-D Conv and
  pools with explicit pads: `nn.conv2d`, `nn.max_pool2d`, ...), else onto the operators of
  `stdlib/onnx.rly` (NumPy matmul, bidirectional Expand, N-d convolution and pooling with
  auto_pad and ONNX's ceil_mode, LayerNormalization over several axes, ...). To choose between
  equivalent lowerings and to type literals, the frontend reads dtypes and ranks from the
  model (its value_info) and derives the others from the nodes they depend on (ranks.py); the
  types themselves come from gradual.
* **Opsets.** Attributes that became inputs are read from either (Squeeze/Unsqueeze/Reduce*
  axes, Split's split, Slice, Pad, Clip, TopK's k, Reshape's shape); Softmax, LogSoftmax and
  Hardmax before opset 13 flatten at `axis`.
* **Inference only.** Dropout is the identity (training mode only with ratio 0); BatchNormalization
  in training mode normalizes with the batch's statistics. If is gradual's `if` (the
  branches' types join). A sequence whose length is known where it is made (SplitToSequence by
  constant sizes of a static dim, SequenceConstruct, SequenceEmpty, SequenceInsert at a constant
  position; the dynamo exporter's split and chunk with optimize=False) is a tuple: SequenceAt
  at a constant position is a field, ConcatFromSequence a concatenate or stack (convert/sequence.py).
  Loop and Scan (opset 9 on) are recursive closures, the way Relay writes a loop
  (convert/loops.py): the recursive call is the closure's tail call, the carried values'
  parameters keep the sizes the model gives in all three places (initial value, body input
  and output) and `?` elsewhere, and a scan output's rows are collected by
  `onnx.scan_append`. Other sequences, optionals and strings are reported as unsupported, at
  the node. Every numeric element type is supported (bfloat16, float8, float4,
  int4, int2 under their ml_dtypes names); an optional input a node leaves out is passed to the
  operators of stdlib/onnx_models.rly as an empty vector.
* **Malformed models** are diagnostics: an initializer whose data does not fit its dims
  (`bad-initializer`), an attribute of the wrong kind or a missing required one (checked
  against ONNX's schema of the operator).
* **Folding.** A node of shape arithmetic (Neg, Add, Concat, Unsqueeze, ConstantOfShape, ...)
  whose inputs are all small constants is evaluated at import (with NumPy as ONNX's reference
  evaluator computes it, or by the reference evaluator), when the result is small enough to be
  written into the program.
* **Reading.** The model is parsed by protobuf's own parser against gradual's description of
  ONNX's messages (proto.py) and checked against ONNX's schemas kept in the user cache
  (schemas.py): a check imports the `onnx` package only for what needs it (a first run, a
  model-local function to inline, external data, a rare fold).
* **Diagnostics** point into a listing of the model (`model.onnx:17:24` is line 17 of it): one
  line per node (`node Conv_3 (Conv): X, W -> Y`, line k is node #k-1), then one per graph
  input, initializer and the graph outputs. A call is its node's line, an argument is its
  tensor's name on that line, so an error underlines the tensors it is about.
* **`batch`** (`--batch N`) names the first dim of every graph input, making the batch
  symbolic; `batch_reshapes` lets Reshape targets that hard-code the original batch size copy
  the batch instead (see `ImportOptions`).

Supported operators (`supported_operators()`):

    Abs, Acos, Acosh, Add, AffineGrid, And, ArgMax, ArgMin, Asin, Asinh, Atan, Atanh, Attention,
    AveragePool, BatchNormalization, BitCast, BitShift, BitwiseAnd, BitwiseNot, BitwiseOr,
    BitwiseXor, BlackmanWindow, Cast, CastLike, Ceil, Celu, CenterCropPad, Clip, Col2Im,
    Compress, Concat, ConcatFromSequence, Constant, ConstantOfShape, Conv, ConvInteger,
    ConvTranspose, Cos, Cosh, CumProd, CumSum, DFT, DepthToSpace, DequantizeLinear, Det, Div,
    Dropout, DynamicQuantizeLinear, Einsum, Elu, Equal, Erf, Exp, Expand, EyeLike, Flatten,
    Floor, GRU, Gather, GatherElements, GatherND, Gelu, Gemm, GlobalAveragePool, GlobalLpPool,
    GlobalMaxPool, Greater, GreaterOrEqual, GridSample, GroupNormalization, HammingWindow,
    HannWindow, HardSigmoid, HardSwish, Hardmax, Identity, If, InstanceNormalization, IsInf,
    IsNaN, LRN, LSTM, LayerNormalization, LeakyRelu, Less, LessOrEqual, Log, LogSoftmax, Loop,
    LpNormalization, LpPool, MatMul, MatMulInteger, Max, MaxPool, MaxUnpool, Mean,
    MeanVarianceNormalization, Min, Mish, Mod, Mul, Neg, NegativeLogLikelihoodLoss, NonZero,
    Not, OneHot, Or, PRelu, Pad, Pow, QLinearConv, QLinearMatMul, QuantizeLinear,
    RMSNormalization, RNN, Range, Reciprocal, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
    ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum, ReduceSumSquare, Relu, Reshape,
    Resize, ReverseSequence, RotaryEmbedding, Round, STFT, Scan, Scatter, ScatterElements, ScatterND,
    Selu, SequenceAt, SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceLength, Shape,
    Shrink, Sigmoid, Sign, Sin, Sinh, Size, Slice, Softmax, SoftmaxCrossEntropyLoss, Softplus,
    Softsign, SpaceToDepth, Split, SplitToSequence, Sqrt, Squeeze, Sub, Sum, SwiGLU, Swish, Tan,
    Tanh, TensorScatter, ThresholdedRelu, Tile, TopK, Transpose, Trilu, Unique, Unsqueeze,
    Upsample, Where, Xor
"""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from gradual.frontends import LoadError
from gradual.frontends import messages as frontend_messages
from gradual.frontends.onnx import messages
from gradual.frontends.onnx.convert import supported_operators
from gradual.frontends.onnx.importer import ImportedModel, Importer, ImportOptions, InputSpec
from gradual.frontends.onnx.schemas import installed_onnx
from gradual.infra.deep import gc_paused

if installed_onnx() is None:  # the optional extra: found here, imported only where a model needs it
    raise ImportError(frontend_messages.onnx_not_installed())

__all__ = [
    "ImportOptions",
    "ImportedModel",
    "InputSpec",
    "LoadError",
    "import_model",
    "load_model",
    "supported_operators",
]


def load_model(source: Union[str, bytes, Any], path: Optional[str] = None) -> Any:
    """A ModelProto from a path, serialized bytes or a ModelProto; raises LoadError. A path or
    bytes give gradual's own message class (`proto.ModelProto`: the fields of `onnx.ModelProto`,
    parsed without importing `onnx`; `proto.to_onnx` makes it one)."""
    return _load(source, path)[0]


def _load(source: Union[str, bytes, Any], path: Optional[str]) -> tuple:
    """(model, its serialized bytes when they are at hand and complete, else None)."""
    from gradual import builder as gb
    from gradual.frontends.onnx import proto

    if not isinstance(source, (str, bytes)):  # a ModelProto already (onnx's or gradual's)
        return source, None
    where = path or (source if isinstance(source, str) else "<model>")
    data = None
    try:
        if isinstance(source, bytes):
            data = source
            model = _parse(proto, source)
        elif source.endswith(".onnx"):
            with open(source, "rb") as handle:
                data = handle.read()
            model = _parse(proto, data)
            if _EXTERNAL_DATA in data and _LOCATION_KEY in data:  # onnx.load would look in every tensor
                import onnx

                model = proto.to_onnx(model)
                onnx.load_external_data_for_model(model, os.path.dirname(source))
                data = None
        else:
            import onnx

            model = onnx.load(source, load_external_data=True)
    except Exception as exc:  # noqa: BLE001 - protobuf and I/O errors alike
        raise LoadError(messages.onnx_unreadable(gb.Loc(where, os.path.basename(where)).span, _reason(exc))) from None
    if not model.HasField("graph"):
        raise LoadError(messages.onnx_unreadable(gb.Loc(where, os.path.basename(where)).span, "it has no graph"))
    return model, data


def _parse(proto: Any, data: bytes) -> Any:
    """A ModelProto of serialized bytes (protobuf's DecodeError when they are none), as
    `onnx.load_model_from_string` reads them."""
    model = proto.ModelProto()
    decoded = model.ParseFromString(data)
    if decoded is not None and decoded != len(data):
        from google.protobuf.message import DecodeError

        raise DecodeError(f"Protobuf decoding consumed too few bytes: {decoded} out of {len(data)}")
    return model


def _inlined(model: Any, data: Optional[bytes]) -> tuple:
    """(the model, its bytes or None, {function: why it stays}): the model with its
    model-local functions (a FunctionProto a node calls by its domain and name, as onnxscript
    and exporters' module-preserving modes write them) expanded in place by ONNX's own
    inliner, so their nodes are imported as the graph's. A function the inliner cannot expand
    (recursive, or calls nested deeper than it follows: functions.py) is left out of the
    inlining, the others are still expanded, and a node that calls it is reported with the
    reason; should the inliner refuse anyway, every call stays, with its words."""
    if not model.functions:
        return model, data, {}
    import onnx.inliner

    from gradual.frontends.onnx import functions, proto

    stays = functions.unexpandable(model)
    model = proto.to_onnx(model)  # the inliner takes onnx's own messages
    try:
        return onnx.inliner.inline_local_functions(functions.without(model, stays) if stays else model), None, stays
    except Exception as exc:  # noqa: BLE001 - the inliner's own errors: the calls stay as they are
        reason = f"ONNX's inliner refused: {_reason(exc)}"
        return (
            model,
            data,
            {
                functions.function_key(f.domain, f.name): stays.get(functions.function_key(f.domain, f.name), reason)
                for f in model.functions
            },
        )


#: How a tensor stored outside the model file is serialized (TensorProto.data_location, field
#: 14, = EXTERNAL): a model without these bytes has no such tensor (a model with them may).
_EXTERNAL_DATA = bytes([14 << 3, 1])
#: and its `external_data` entries name the file under the key "location" (a StringStringEntryProto's
#: key, field 1, 8 bytes long): two bytes alone turn up by chance in megabytes of weights (a
#: 41 MB transformer's did, and loading looked for external data in all its 7,000 tensors)
_LOCATION_KEY = b"\x0a\x08location"


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def import_model(
    source: Union[str, bytes, Any], options: Optional[ImportOptions] = None, path: Optional[str] = None
) -> ImportedModel:
    """Import an ONNX model (a path, bytes or a ModelProto). Never raises for a bad graph: an
    unsupported node is a diagnostic in the result; an unreadable file raises LoadError."""
    model, data = _load(source, path)
    where = path or (source if isinstance(source, str) else "<model>.onnx")
    try:
        model, data, unexpanded = _inlined(model, data)
        with gc_paused():  # an import makes many objects that all stay alive: collections would only re-walk them
            return Importer(model, where, options, serialized=data, unexpanded=unexpanded).run()
    except Exception:
        _refuse_undecodable(model, where)
        raise


def _refuse_undecodable(model: Any, where: str) -> None:
    """A LoadError when the model holds a name that is not UTF-8 (protobuf hands it over as
    bytes, and the import failed on it); nothing otherwise (the failure is gradual's own)."""
    from gradual import builder as gb
    from gradual.frontends.onnx.proto import undecodable_text

    text = undecodable_text(model)
    if text is not None:
        shown = repr(text[:40])
        raise LoadError(
            messages.onnx_unreadable(gb.Loc(where, os.path.basename(where)).span, f"the text {shown} is not UTF-8")
        ) from None
