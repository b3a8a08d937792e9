"""ONNX element types and tensor types as gradual sees them.

ONNX names dtypes by number (`TensorProto.FLOAT` is 1); gradual by name. Types the NumPy runtime
cannot hold (bfloat16, float8, int4, strings, complex numbers) are reported as unsupported where
a model uses them, never silently converted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from ...syntax import ast
from ... import builder as gb

#: ONNX element type number -> gradual dtype
DTYPES = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
    10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
}
#: ONNX element type number -> its ONNX name, for messages
ONNX_NAMES = {
    0: "UNDEFINED", 1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32", 7: "INT64", 8: "STRING",
    9: "BOOL", 10: "FLOAT16", 11: "DOUBLE", 12: "UINT32", 13: "UINT64", 14: "COMPLEX64", 15: "COMPLEX128",
    16: "BFLOAT16", 17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ", 21: "UINT4",
    22: "INT4", 23: "FLOAT4E2M1", 24: "FLOAT8E8M0", 25: "UINT2", 26: "INT2",
}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = frozenset({"let", "if", "else", "fn", "def", "as", "Tensor", "can_unify", "None", "True", "False"} |
                     set(DTYPES.values()) | {"bfloat16"})


def onnx_dtype_name(elem_type: int) -> str:
    """`FLOAT`, `BFLOAT16`, ... (the number itself for types this onnx does not name)."""
    return ONNX_NAMES.get(elem_type, str(elem_type))


def gradual_dtype(elem_type: int) -> Optional[str]:
    """The gradual dtype of an ONNX element type, or None when gradual cannot run it."""
    return DTYPES.get(elem_type)


def dim_name(text: str) -> str:
    """A dim_param as a dimension name of the language (`batch size` -> `batch_size`)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text.strip()) or "_"
    if not name[0].isalpha() and name[0] != "_":
        name = "d_" + name
    return name + "_" if name in RESERVED else name


@dataclass(frozen=True)
class TensorInfo:
    """What the model says about one tensor: dtype (None: unsupported or unknown), rank and
    dims (ints; None where unknown, or strings for dim_params)."""

    dtype: Optional[str] = None
    dims: Optional[tuple] = None
    elem_type: int = 0

    @property
    def rank(self) -> Optional[int]:
        """The rank, when known."""
        return None if self.dims is None else len(self.dims)

    def type_expr(self) -> ast.TensorTypeExpr:
        """The type as the builder writes it (`?` for unknown dims, names for dim_params)."""
        return gb.Tensor(None if self.dims is None else list(self.dims), self.dtype or "?")

    def describe(self) -> str:
        """`float32[N, 3, 224, 224]` (ONNX's own notation, for locations)."""
        dtype = self.dtype or onnx_dtype_name(self.elem_type).lower()
        if self.dims is None:
            return f"{dtype}[*]"
        return f"{dtype}[{', '.join('?' if d is None else str(d) for d in self.dims)}]"


def info_of_type(type_proto: object) -> Optional[TensorInfo]:
    """A TypeProto's tensor information, or None for a non-tensor type (sequence, map, ...)."""
    if not type_proto.HasField("tensor_type"):  # type: ignore[attr-defined]
        return None
    tt = type_proto.tensor_type  # type: ignore[attr-defined]
    dims = None
    if tt.HasField("shape"):
        dims = tuple(_dim(d) for d in tt.shape.dim)
    return TensorInfo(gradual_dtype(tt.elem_type), dims, tt.elem_type)


def _dim(d: object) -> object:
    if d.HasField("dim_value") and d.dim_value >= 0:  # type: ignore[attr-defined]
        return int(d.dim_value)  # type: ignore[attr-defined]
    if d.HasField("dim_param") and d.dim_param:  # type: ignore[attr-defined]
        return dim_name(d.dim_param)  # type: ignore[attr-defined]
    return None


def info_of_array(elem_type: int, shape: tuple) -> TensorInfo:
    """The information of a constant tensor."""
    return TensorInfo(gradual_dtype(elem_type), tuple(int(s) for s in shape), elem_type)


def is_name(text: str) -> bool:
    """Whether text is usable as a `%name` as it is."""
    return bool(_NAME.match(text))
