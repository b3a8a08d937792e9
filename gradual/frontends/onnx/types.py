"""ONNX element types and tensor types as gradual sees them.

ONNX names dtypes by number (`TensorProto.FLOAT` is 1); gradual by name. Every numeric type
has a gradual dtype (bfloat16, the float8 and float4 types and the 4- and 2-bit integers under
their ml_dtypes names: `float8_e4m3fn`, `int4`, ...); strings and complex numbers are reported as
unsupported where a model uses them, never silently converted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union

from gradual import builder as gb
from gradual.syntax import ast

if TYPE_CHECKING:
    import ast as pyast  # Python's own syntax trees (imported where used: only arithmetic dim_params parse)

#: ONNX element type number -> gradual dtype
DTYPES = {
    1: "float32",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    9: "bool",
    10: "float16",
    11: "float64",
    12: "uint32",
    13: "uint64",
    16: "bfloat16",
    17: "float8_e4m3fn",
    18: "float8_e4m3fnuz",
    19: "float8_e5m2",
    20: "float8_e5m2fnuz",
    21: "uint4",
    22: "int4",
    23: "float4_e2m1fn",
    24: "float8_e8m0fnu",
    25: "uint2",
    26: "int2",
}
#: ONNX element type number -> its ONNX name, for messages
ONNX_NAMES = {
    0: "UNDEFINED",
    1: "FLOAT",
    2: "UINT8",
    3: "INT8",
    4: "UINT16",
    5: "INT16",
    6: "INT32",
    7: "INT64",
    8: "STRING",
    9: "BOOL",
    10: "FLOAT16",
    11: "DOUBLE",
    12: "UINT32",
    13: "UINT64",
    14: "COMPLEX64",
    15: "COMPLEX128",
    16: "BFLOAT16",
    17: "FLOAT8E4M3FN",
    18: "FLOAT8E4M3FNUZ",
    19: "FLOAT8E5M2",
    20: "FLOAT8E5M2FNUZ",
    21: "UINT4",
    22: "INT4",
    23: "FLOAT4E2M1",
    24: "FLOAT8E8M0",
    25: "UINT2",
    26: "INT2",
}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = frozenset(
    {"let", "if", "else", "fn", "def", "as", "Tensor", "can_unify", "None", "True", "False"} | set(DTYPES.values())
)


def onnx_dtype_name(elem_type: int) -> str:
    """`FLOAT`, `BFLOAT16`, ... (the number itself for types this onnx does not name)."""
    return ONNX_NAMES.get(elem_type, str(elem_type))


def gradual_dtype(elem_type: int) -> Optional[str]:
    """The gradual dtype of an ONNX element type, or None when gradual cannot run it."""
    return DTYPES.get(elem_type)


class DimNames:
    """The dimension names of one model: each distinct `dim_param` gets its own name of the
    language, as close to the ONNX text as the language allows.

    A text that is already a name keeps it (`batch`); others are spelled with `_` for spaces
    and punctuation and `uXXXX` for other characters (`batch size` -> `batch_size`, `批次` ->
    `u6279u6b21`); where two texts would get the same name, the later one gets a suffix
    (`a b` -> `a_b`, `a-b` -> `a_b_2`), so two different dim_params are never one symbol. A
    text that is arithmetic over the model's other dims (`2*seq - 1`, `((seq - 1)//2) + 1`, as
    PyTorch's dynamo exporter writes output dims) is that expression (see `dim`).
    """

    def __init__(self, texts: Iterable[str] = (), reserved: Iterable[str] = ()) -> None:
        self.taken: set = set(RESERVED) | set(reserved)
        self.names: dict = {}
        self.next: dict = {}  # a spelling -> the suffix to try first for it
        texts = list(dict.fromkeys(t for t in texts if t))
        for text in texts:  # names that need no spelling change come first: they keep it
            if _NAME.match(text) and text not in self.taken:
                self.names[text] = text
                self.taken.add(text)
        for text in texts:
            self.name(text)

    def name(self, text: str) -> str:
        """The language name of a dim_param (the same text always gets the same name)."""
        found = self.names.get(text)
        if found is not None:
            return found
        base = _spelled(text)
        name, k = base, self.next.get(base, 2)
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.next[base] = k  # the suffix to try first next time (from 2 again was quadratic)
        self.names[text] = name
        self.taken.add(name)
        return name

    def renamed(self) -> dict:
        """The dim_params whose name differs from their text: {text: name}."""
        return {t: n for t, n in self.names.items() if t != n}

    def dim(self, text: str, known: Optional[set] = None) -> object:
        """A dim_param as a dimension: its name, or a `DimExpr` when the text is arithmetic
        (`+ - * //`, integers, parentheses) over names in `known` (the model's input dims)."""
        if known:
            expr = _parse_dim_expr(text, lambda n: self.names.get(n) if n in known else None)
            if expr is not None:
                return expr
        return self.name(text)


@dataclass(frozen=True, eq=False)
class DimExpr:
    """A dim_param that is arithmetic over other dims: `dim` for the builder, `text` as the
    model writes it."""

    dim: gb.Dim
    text: str

    def __str__(self) -> str:
        return self.text


MAX_DIM_TEXT = 200


def _spelled(text: str) -> str:
    chars = []
    for c in text.strip():
        if c.isascii() and (c.isalnum() or c == "_"):
            chars.append(c)
        elif c.isascii() or c.isspace():
            chars.append("_")
        else:
            chars.append(f"u{ord(c):04x}")
    name = "".join(chars) or "_"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "d_" + name
    return name + "_" if name in RESERVED else name


def _parse_dim_expr(text: str, lookup: Callable[[str], Optional[str]]) -> Optional[DimExpr]:
    """`2*seq - 1` as a DimExpr when every name in it is known, else None (a plain name)."""
    tree = _expression_tree(text)
    try:
        built = _dim_of(tree, lookup) if tree is not None else None
    except (ValueError, RecursionError, MemoryError):
        return None
    return None if built is None or isinstance(built, int) else DimExpr(built, text.strip())


def _expression_tree(text: str) -> Optional[pyast.expr]:
    """A dim_param that may be arithmetic, parsed as a Python expression (None otherwise)."""
    import ast as pyast

    if len(text) > MAX_DIM_TEXT or not any(op in text for op in "+-*/"):
        return None
    try:
        return pyast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_OPS = {"Add": "+", "Sub": "-", "Mult": "*", "FloorDiv": "//"}


def arithmetic_names(texts: Iterable[str]) -> set:
    """The names inside the dim_params that are arithmetic with a number in it (`2*h2`,
    `seq + 1`, as PyTorch's dynamo exporter writes a derived dim): each is a dim of its own,
    so `2*h2` is `2 * h2`, known to be even. A text with no number (`batch-size`) stays a name."""
    import ast as pyast

    found: set[str] = set()
    for text in texts:
        tree = _expression_tree(text)
        if tree is None or not any(isinstance(n, pyast.Constant) for n in pyast.walk(tree)):
            continue
        names: set[str] = set()

        def noted(name: str, names: set[str] = names) -> str:
            names.add(name)
            return name

        try:
            built = _dim_of(tree, noted)
        except (ValueError, RecursionError, MemoryError):
            continue
        if built is not None and not isinstance(built, int):
            found |= names
    return found


def _dim_of(node: Any, lookup: Callable[[str], Optional[str]]) -> Union[int, gb.Dim, None]:
    """A builder Dim (or an int) of a Python expression over known names and integers; None
    for anything else."""
    import ast as pyast

    if isinstance(node, pyast.Constant) and type(node.value) is int and node.value >= 0:
        return node.value
    if isinstance(node, pyast.Name):
        name = lookup(node.id)
        return None if name is None else gb.Dim(name)
    op = _OPS.get(type(node.op).__name__) if isinstance(node, pyast.BinOp) else None
    if op is None:
        return None
    left, right = _dim_of(node.left, lookup), _dim_of(node.right, lookup)
    if left is None or right is None or isinstance(left, int) and isinstance(right, int):
        return None  # constant arithmetic is not what exporters write
    if isinstance(left, int):
        left = gb.Dim(ast.DimInt(left))
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    return left // right if isinstance(right, int) and right > 0 else None


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
        if self.dims is None:
            return gb.Tensor(None, self.dtype or "?")
        return gb.Tensor([d.dim if isinstance(d, DimExpr) else d for d in self.dims], self.dtype or "?")

    def describe(self) -> str:
        """`float32[N, 3, 224, 224]` (ONNX's own notation, for locations)."""
        dtype = self.dtype or onnx_dtype_name(self.elem_type).lower()
        if self.dims is None:
            return f"{dtype}[*]"
        return f"{dtype}[{', '.join('?' if d is None else str(d) for d in self.dims)}]"


def info_of_type(
    type_proto: object, names: Optional[DimNames] = None, known: Optional[set] = None
) -> Optional[TensorInfo]:
    """A TypeProto's tensor information, or None for a non-tensor type (sequence, map, ...).
    Its dim_params are named by `names` (expressions over the `known` names are expressions)."""
    if not type_proto.HasField("tensor_type"):  # type: ignore[attr-defined]
        return None
    tt = type_proto.tensor_type  # type: ignore[attr-defined]
    dims = None
    if tt.HasField("shape"):
        names = names if names is not None else DimNames()
        dims = tuple(_dim(d, names, known) for d in tt.shape.dim)
    return TensorInfo(gradual_dtype(tt.elem_type), dims, tt.elem_type)


def _dim(d: object, names: DimNames, known: Optional[set]) -> object:
    if d.HasField("dim_value") and d.dim_value >= 0:  # type: ignore[attr-defined]
        return int(d.dim_value)  # type: ignore[attr-defined]
    if d.HasField("dim_param") and d.dim_param:  # type: ignore[attr-defined]
        return names.dim(d.dim_param, known)  # type: ignore[attr-defined]
    return None


def dim_params(values: Iterable) -> list:
    """Every dim_param the ValueInfoProtos write, in order."""
    found: list[str] = []
    for vi in values:
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
            found.extend(d.dim_param for d in vi.type.tensor_type.shape.dim if d.HasField("dim_param"))
    return found


def info_of_array(elem_type: int, shape: tuple) -> TensorInfo:
    """The information of a constant tensor."""
    return TensorInfo(gradual_dtype(elem_type), tuple(int(s) for s in shape), elem_type)


def is_name(text: str) -> bool:
    """Whether text is usable as a `%name` as it is."""
    return bool(_NAME.match(text))
