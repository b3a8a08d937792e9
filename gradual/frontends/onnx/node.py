"""One ONNX node as a converter sees it: its inputs as expressions, its attributes, what the
model knows about its tensors, and the builder calls located at the node.

A converter is a function `convert(node: Node) -> result`, where the result is one expression
(the node's first output), a list with one expression (or None) per output, a `Tuple` (a
tuple-valued expression whose fields are the outputs), or `KNOWN` when the converter recorded
its outputs as import-time constants (Constant). It raises `Unsupported` for what it cannot
import; the importer turns that into a diagnostic at the node.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional

import numpy as np

from gradual import builder as gb
from gradual.diagnostics import Diagnostic
from gradual.frontends.onnx import messages
from gradual.frontends.onnx.constants import read as read_tensor
from gradual.frontends.onnx.schemas import known_operator as _known_operator
from gradual.frontends.onnx.schemas import schema as _schema
from gradual.frontends.onnx.types import TensorInfo, gradual_dtype, onnx_dtype_name
from gradual.syntax.source import Span
from gradual.types import DTYPES

if TYPE_CHECKING:
    from gradual.frontends.onnx.importer import Importer

#: Constants with at most this many elements (integers and booleans) or FLOAT_INLINE (floats)
#: are written into the program as `onnx.constant(values=[...])`; larger ones become parameters.
INT_INLINE = 64
FLOAT_INLINE = 8
INT64_MAX = 2**63 - 1


class Unsupported(Exception):
    """A node (or tensor) the frontend cannot import; `make(span)` is its diagnostic (None: it
    was reported already, where it went wrong)."""

    def __init__(self, make: Callable[[Span], Optional[Diagnostic]]) -> None:
        super().__init__("unsupported")
        self.make = make


@dataclass(frozen=True)
class Tuple:
    """A converter result: a tuple-valued expression whose fields are the node's outputs."""

    expr: Any
    count: int


KNOWN = object()  # a converter result: the outputs were recorded as import-time constants


class Node:
    """The converter's view of one node (see the module docstring)."""

    __slots__ = ("importer", "record", "index", "key", "op_type", "opset", "inputs", "outputs", "loc", "_attributes")

    def __init__(self, importer: "Importer", record: Any, index: int, key: tuple = ()) -> None:
        """`record`: the node's fields as read once (listing.NodeRecord)."""
        self.importer = importer
        self.record = record
        self.index = index
        self.key = key
        self.op_type: str = record.op_type
        self.opset: int = importer.opset
        self.inputs: list = record.inputs
        self.outputs: list = record.outputs
        self.loc = importer.listing.node(key, index)
        self._attributes: Optional[dict] = None

    @property
    def proto(self) -> Any:
        """The node's NodeProto."""
        return self.importer.node_proto(self.key, self.index)

    @property
    def attributes(self) -> dict:
        """The node's AttributeProtos by name."""
        if self._attributes is None:
            self._attributes = {a.name: a for a in self.record.attributes}
        return self._attributes

    # inputs -----------------------------------------------------------------------------------
    def has(self, i: int) -> bool:
        """Whether input i is given (ONNX writes an absent optional input as "")."""
        return i < len(self.inputs) and self.inputs[i] != ""

    def x(self, i: int) -> Any:
        """Input i as an expression: its variable, located at the tensor's name in this node."""
        inputs = self.inputs
        if i >= len(inputs) or not inputs[i]:
            self.fail_attribute(f"input {i}", "absent", "this input given")
        var = self.importer.expr_of(inputs[i], self.loc)
        return gb.Var(var.name, self.importer.listing.argument(self.key, self.index, i))

    def args(self) -> list:
        """Every given input as an expression."""
        return [self.x(i) for i in range(len(self.inputs)) if self.has(i)]

    def value(self, i: int) -> Optional[np.ndarray]:
        """Input i's value when it is known at import time (an initializer or a Constant)."""
        return self.importer.values.get(self.inputs[i]) if self.has(i) else None

    def ints(self, i: int) -> Optional[list]:
        """Input i's known elements as ints."""
        v = self.value(i)
        return None if v is None else [int(e) for e in np.asarray(v).reshape(-1)]

    def axes(self, input_from: int) -> tuple:
        """(axes, known): the `axes` attribute before opset `input_from`, input 1 from it on
        (None: absent; not known when the input is not a constant)."""
        if self.opset < input_from:
            axes = self.attr("axes")
            return (None if axes is None else [int(a) for a in axes]), True
        if not self.has(1):
            return None, True
        values = self.ints(1)
        return values, values is not None

    def required_ints(self, i: int, role: str) -> list:
        """Input i's known elements; Unsupported when it is not a constant."""
        values = self.ints(i)
        if values is None:
            name, op = self.inputs[i], self.op_type
            raise Unsupported(lambda span: messages.onnx_needs_constant(span, op, i, name, role))
        return values

    def info(self, i: int) -> TensorInfo:
        """What the model says about input i."""
        return self.importer.info(self.inputs[i]) if self.has(i) else TensorInfo()

    def dtype(self, i: int) -> Optional[str]:
        """Input i's gradual dtype, when known."""
        return self.info(i).dtype

    def rank(self, i: int) -> Optional[int]:
        """Input i's rank, when known."""
        return self.info(i).rank

    def wants(self, j: int) -> bool:
        """Whether output j is used (named)."""
        return j < len(self.outputs) and self.outputs[j] != ""

    # attributes --------------------------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        """An attribute's value (strings decoded, tensors as arrays), or the default."""
        a = self.attributes.get(name)
        if a is None:
            return default
        value = attribute_value(a)
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
        if isinstance(value, list) and value and isinstance(value[0], bytes):
            return [v.decode("utf-8", errors="replace") for v in value]
        if hasattr(value, "data_type") and hasattr(value, "dims"):
            return self._tensor_attr(name, value)
        return value

    def _tensor_attr(self, name: str, tensor: Any) -> np.ndarray:
        """A TENSOR attribute's value, read as an initializer is (Unsupported where it cannot be)."""
        array = read_tensor(tensor)
        if isinstance(array, str):
            op = self.op_type
            raise Unsupported(lambda span: messages.onnx_bad_tensor_attribute(span, op, name, array))
        return array

    def fail_attribute(self, name: str, value: Any, supported: str) -> NoReturn:
        """Raise Unsupported for an attribute value (or input, or output) not imported."""
        op = self.op_type
        raise Unsupported(lambda span: messages.onnx_unsupported_attribute(span, op, name, str(value), supported))

    # building ------------------------------------------------------------------------------------
    def call(self, op: str, *args: Any, **attrs: Any) -> Any:
        """An operator call located at this node."""
        return gb.call(op, *args, loc=self.loc, **attrs)

    def scalar(self, value: float, like: int) -> Any:
        """A scalar of input `like`'s dtype (a literal, or a cast when the dtype is not known)."""
        dtype = self.dtype(like)
        if dtype is not None and math.isfinite(float(value)):
            return literal(value, dtype, self.loc)
        return self.call("onnx.cast_like", literal(float(value), "float32", self.loc), self.x(like))

    def constant(self, array: np.ndarray, dtype: Optional[str] = None) -> Any:
        """A constant written into the program (small arrays only)."""
        return inline_constant(np.asarray(array), dtype or numpy_dtype(np.asarray(array)), self.loc)

    def int64s(self, values: list) -> Any:
        """An int64 vector constant."""
        return self.constant(np.asarray(values, dtype=np.int64), "int64")

    def onnx_dtype(self, elem_type: int, tensor: str) -> str:
        """The gradual dtype of an ONNX element type used by this node (Unsupported if none)."""
        dtype = gradual_dtype(elem_type)
        if dtype is None:
            shown = onnx_dtype_name(elem_type)
            raise Unsupported(lambda span: messages.onnx_unsupported_dtype(span, tensor, shown))
        return dtype


#: AttributeProto.type -> (its field, whether repeated), as onnx.helper.get_attribute_value reads them
_ATTRIBUTE_FIELDS = {
    1: ("f", False),
    2: ("i", False),
    3: ("s", False),
    4: ("t", False),
    5: ("g", False),
    11: ("sparse_tensor", False),
    13: ("tp", False),
    6: ("floats", True),
    7: ("ints", True),
    8: ("strings", True),
    9: ("tensors", True),
    10: ("graphs", True),
    12: ("sparse_tensors", True),
    14: ("type_protos", True),
}


def attribute_value(a: Any) -> Any:
    """An AttributeProto's value as `onnx.helper.get_attribute_value` gives it (a repeated kind
    as a list; None for UNDEFINED; ValueError for a reference attribute or an unknown kind)."""
    field = _ATTRIBUTE_FIELDS.get(a.type)
    if field is None or a.ref_attr_name:
        if a.ref_attr_name:
            raise ValueError(f"Cannot get value of reference attribute: {a}")
        if a.type == 0:
            return None
        raise ValueError(f"Unsupported ONNX attribute: {a}")
    value = getattr(a, field[0])
    return list(value) if field[1] else value


def schema_problem(node: Any, opset: int) -> Optional[Callable[[Span], Diagnostic]]:
    """A diagnostic maker for the first way a node (its fields as read once: a
    listing.NodeRecord) departs from ONNX's schema of its operator: more or fewer inputs or
    outputs than the schema allows (a Cast with no output), an attribute of another kind than
    the schema gives (`axis="zero"` where an INT is due, or no kind at all), or a missing
    required attribute. Converters may then rely on what the schema says."""
    if not node.attributes:  # most nodes: the answer depends on the counts alone, found once per kind
        return problem_of_counts(node.op_type, opset, len(node.inputs), len(node.outputs))
    return _schema_problem(node.op_type, opset, len(node.inputs), len(node.outputs), node.attributes)


@functools.lru_cache(maxsize=None)
def problem_of_counts(op: str, opset: int, inputs: int, outputs: int) -> Optional[Callable[[Span], Diagnostic]]:
    """schema_problem of a node with no attributes, given its operator and its counts of
    inputs and outputs."""
    return _schema_problem(op, opset, inputs, outputs, ())


def _schema_problem(
    op: str, opset: int, inputs: int, outputs: int, attributes: Any
) -> Optional[Callable[[Span], Diagnostic]]:
    """schema_problem of a node given its operator, its counts of inputs and outputs and its
    AttributeProtos."""
    schema = _schema(op, opset)
    if schema is None:  # an operator that does not exist at this opset (0, or before its first version)
        known = _known_operator(op)
        return (lambda span: messages.onnx_unsupported_operator(span, op, "", opset)) if known else None
    for role, count, (least, most) in (("inputs", inputs, schema.inputs), ("outputs", outputs, schema.outputs)):
        if not least <= count <= most:
            return lambda span: messages.onnx_node_arity(span, op, role, count, least, most)
    if not attributes and not schema.required:
        return None
    given = []
    for a in attributes:
        name = a.name
        given.append(name)
        spec = schema.attributes.get(name)
        if spec is None:
            continue  # attributes the schema does not list are the converter's business
        wanted = spec[0]
        if a.type != wanted:
            expected, found = _attribute_kind(wanted), _attribute_kind(a.type)
            return lambda span: messages.onnx_attribute_kind(span, op, name, expected, found)
    for name in schema.required:
        if name not in given:
            return lambda span: messages.onnx_attribute_missing(span, op, name)
    return None


def _attribute_kind(number: int) -> str:
    from gradual.frontends.onnx.proto import ATTRIBUTE_TYPES

    return ATTRIBUTE_TYPES.get(number, str(number))


def numpy_dtype(array: np.ndarray) -> str:
    """The gradual dtype of a NumPy (or ml_dtypes) array ("" when gradual has none)."""
    found = _DTYPE_NAMES.get(array.dtype)
    if found is None:
        name = array.dtype.name  # slow in NumPy: asked once per dtype
        found = _DTYPE_NAMES[array.dtype] = name if name in DTYPES else ""
    return found


_DTYPE_NAMES: dict = {}


def literal(value: Any, dtype: str, loc: Optional[gb.Loc] = None) -> Any:
    """A scalar literal of a dtype."""
    if dtype == "bool":
        return gb.const(bool(value), "bool", loc=loc)
    if dtype.startswith(("int", "uint")):
        return gb.const(int(value), dtype, loc=loc)
    return gb.const(float(value), dtype, loc=loc)


def inlinable(array: np.ndarray) -> bool:
    """Whether a constant is small (and finite) enough to be written into the program."""
    dtype = numpy_dtype(array)
    if not dtype or array.dtype.kind not in "fiub":
        return False  # the narrow types (bfloat16, float8, int4) ride along as parameters
    if array.dtype.kind == "f":
        return array.size <= FLOAT_INLINE and bool(np.all(np.isfinite(array)))
    return array.size <= INT_INLINE


def inline_constant(array: np.ndarray, dtype: str, loc: Optional[gb.Loc]) -> Any:
    """A literal (rank 0) or `onnx.constant(values=[...], shape=[...], dtype=...)`."""
    if array.ndim == 0 and (array.dtype.kind != "f" or math.isfinite(float(array))):
        return literal(array.item(), dtype, loc)
    items = array.reshape(-1).tolist()  # Python bools, ints or floats as the kind is
    kind = array.dtype.kind
    if dtype == "bool" and kind != "b":
        items = [bool(v) for v in items]
    elif dtype != "bool" and kind not in "iu" and kind != "f":
        items = [float(v) for v in items]
    return gb.call("onnx.constant", loc=loc, values=items, shape=list(array.shape), dtype=dtype)
