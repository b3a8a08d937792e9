"""Dtype classes of operands: where a signature's `T` takes any dtype but the operator does not.

A declaration says `bitwise_and[T](%lhs: Tensor[*, T], ...)`; its kernel (NumPy's, as TVM's
lowering and torch) takes no floats, `negative` and `subtract` no bools, `qnn.*` only
integers. The operator's call checks every operand whose declared dtype is a dtype variable
against the operator's class here: statically where the dtype is known, and where the
program runs for a `?` dtype (the rule runs before the kernel). Such calls checked clean and
stopped in the kernel with a `runtime-error` (found by an outside pass;
tests/test_runtime_kernels.py's dtype property finds the operators that need an entry).
"""

from __future__ import annotations

from typing import Any

from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext, TensorArg
from gradual.ops.messages import register_rule_message
from gradual.types import FLOAT_DTYPES, INT_DTYPES, DTypeVar, TensorType

register_rule_message(
    "dtype-class",
    codes.DTYPE_MISMATCH,
    "{arg} has dtype {dtype}, but {op} needs {wanted}",
    "{help}",
)

#: class -> (what it is called, the help line, whether a dtype name belongs to it)
CLASSES: dict = {
    "bits": (
        "an integer or bool dtype",
        'cast it to an integer dtype first (`cast(x, dtype="int32")`)',
        lambda name: name in INT_DTYPES or name == "bool",
    ),
    "number": (
        "a numeric dtype (not bool)",
        "cast the bool tensor to a numeric dtype first, or use `logical_not` / `logical_xor`",
        lambda name: name != "bool",
    ),
    "float": (
        "a floating-point dtype",
        'cast it to a floating-point dtype first (`cast(x, dtype="float32")`)',
        lambda name: name in FLOAT_DTYPES,
    ),
    "integer": (
        "an integer (quantized) dtype",
        "quantize the tensor first (`qnn.quantize`)",
        lambda name: name in INT_DTYPES,
    ),
    "index": (
        "an integer dtype (it holds indices, axes or sizes)",
        'cast it to an integer dtype first (`cast(x, dtype="int64")`)',
        lambda name: name in INT_DTYPES,
    ),
    "int": (
        "an integer dtype",
        'cast it to an integer dtype first (`cast(x, dtype="int32")`)',
        lambda name: name in INT_DTYPES,
    ),
    "quantized": (
        "an integer (quantized) dtype",
        "quantize the tensor first (`qnn.quantize`)",
        lambda name: name in INT_DTYPES,
    ),
    "bool": (
        "the bool dtype",
        "compare the values to make a bool tensor (`not_equal(x, 0)`), or cast it",
        lambda name: name == "bool",
    ),
    "any": ("any dtype", "", lambda name: True),
}


def _ops(names: str, cls: str) -> dict:
    return dict.fromkeys(names.split(), cls)


OPERAND_CLASSES: dict = {
    **_ops("onnx.bitwise_and onnx.bitwise_or onnx.bitwise_xor onnx.bitwise_not onnx.bitshift", "bits"),
    **_ops("onnx.conv onnx.topk", "number"),
    **_ops("aten.rms_norm aten.rms_norm_sized", "float"),
}


#: operator -> its operands of any declared dtype (`?`) that hold indices, axes or sizes: the
#: kernel indexes with them, so a float or bool one stopped it (`take` of float32 indices,
#: `onnx.stft` of a float frame_length gave a result the rule did not compute); ONNX declares these int32 / int64
INDEX_OPERANDS: dict = {
    "onnx.gather_nd": ("indices",),
    "onnx.gather_elements": ("indices",),
    "onnx.scatter_elements": ("indices",),
    "onnx.scatter_nd": ("indices",),
    "onnx.rotary_embedding": ("position_ids",),
    "onnx.stft": ("frame_step", "frame_length"),
    "onnx.reduce": ("axes",),
    "onnx.squeeze": ("axes",),
    "onnx.unsqueeze": ("axes",),
    "onnx.slice": ("starts", "ends", "axes", "steps"),
    "onnx.cumsum": ("axis",),
    "onnx.cumprod": ("axis",),
    "onnx.col2im": ("image_shape", "block_shape"),
    "onnx.max_unpool": ("indices", "output_shape"),
    "aten.nll_loss": ("target",),
    "aten.nll_loss_forward": ("target",),
}


def check_operand_dtypes(ctx: ShapeContext, op: Any) -> None:
    """Stop an operand of a known dtype outside the operator's class (see the module docstring),
    and an index operand (INDEX_OPERANDS) of a known dtype that is no integer."""
    indices = INDEX_OPERANDS.get(op.name)
    if indices is not None:
        for name, arg in zip(op.param_names, ctx.args):
            if name in indices and isinstance(arg, TensorArg):
                check_dtype_class(ctx, arg, arg.dtype, "index")
    cls = OPERAND_CLASSES.get(op.name)
    if cls is None:
        return
    for param, arg in zip(op.signature.params, ctx.args):
        if isinstance(param, TensorType) and isinstance(param.dtype, DTypeVar) and isinstance(arg, TensorArg):
            check_dtype_class(ctx, arg, arg.dtype, cls)


def check_dtype_class(ctx: ShapeContext, arg: Any, dtype: Any, cls: str) -> None:
    """Stop a known dtype outside a class; an unknown one (a dtype variable) is remembered as
    a requirement of it (`ShapeContext.dtype_needs`)."""
    wanted, help_text, member = CLASSES[cls]
    name = _dtype_name(dtype)
    if name is None:
        ctx.dtype_needs(dtype, cls)
    elif not member(name):
        ctx.fail("dtype-class", arg=arg, wanted=wanted, dtype=name, help=help_text)


def _dtype_name(dtype: Any) -> Any:
    from gradual.ops.rules.common import dtype_name

    return dtype_name(dtype)
