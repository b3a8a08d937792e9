"""Reading an initializer (a TensorProto) into a NumPy array, or saying what is wrong with it.

A model file is input like any other: an initializer may declare dims whose element count does
not fit in memory, hold fewer bytes than its dims need, or name an element type no ONNX
release defines. Each of these is a diagnostic at the initializer's line of the listing, never
an exception from NumPy.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

#: bits per element of the element types NumPy holds in less than a byte (packed in raw_data)
PACKED_BITS = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2}
#: initializers larger than this many bytes are not read (a model cannot hold them in one file)
MAX_BYTES = 2**34


#: element types whose raw_data NumPy reads as it is (little-endian, as ONNX stores it)
PLAIN = {
    1: "<f4",
    2: "u1",
    3: "i1",
    4: "<u2",
    5: "<i2",
    6: "<i4",
    7: "<i8",
    9: "?",
    10: "<f2",
    11: "<f8",
    12: "<u4",
    13: "<u8",
}


_PLAIN_DTYPES = {elem_type: np.dtype(code) for elem_type, code in PLAIN.items()}


def read(tensor: Any) -> Union[np.ndarray, str]:
    """The initializer's value, or a sentence saying why it cannot be read."""
    plain = _read_plain(tensor)
    if plain is not None:
        return plain
    problem = problem_of(tensor)
    if problem is not None:
        return problem
    from onnx import numpy_helper

    from gradual.frontends.onnx.proto import to_onnx

    try:
        return np.asarray(numpy_helper.to_array(to_onnx(tensor)))
    except Exception as exc:  # noqa: BLE001 - protobuf, NumPy and ml_dtypes errors alike
        text = str(exc).strip().splitlines()
        return f"its data cannot be read ({text[0] if text else type(exc).__name__})"


def _read_plain(tensor: Any) -> Optional[np.ndarray]:
    """The common case read directly (a model's many small Constant nodes): a plain element
    type held in raw_data, whose length fits the dims. None: `read` goes the general way,
    which also says what is wrong."""
    dtype = _PLAIN_DTYPES.get(tensor.data_type)
    if dtype is None or tensor.data_location == 1:
        return None
    raw = tensor.raw_data
    dims = tuple(tensor.dims)
    count = 1
    for d in dims:
        count *= d
    if min(dims, default=0) < 0:
        return None
    if not raw:  # the values in their typed field, as numpy_helper reads them
        if tensor.HasField("raw_data") and count or tensor.HasField("segment"):
            return None
        field = _TYPED_FIELDS.get(tensor.data_type)
        if field is None:
            return None
        values = getattr(tensor, field[0])
        if len(values) != count:
            return None
        return np.asarray(values, dtype=field[1]).astype(dtype).reshape(dims)
    if len(raw) != count * dtype.itemsize:
        return None
    return np.frombuffer(raw, dtype=dtype).reshape(dims).copy()  # a copy: frombuffer's is read-only


read_plain = _read_plain  # for the importer's Constant nodes (None: read them the general way)

#: element type -> (the typed field holding its values outside raw_data, that field's NumPy dtype)
_TYPED_FIELDS = {
    1: ("float_data", np.float32),
    2: ("int32_data", np.int32),
    3: ("int32_data", np.int32),
    4: ("int32_data", np.int32),
    5: ("int32_data", np.int32),
    6: ("int32_data", np.int32),
    7: ("int64_data", np.int64),
    11: ("double_data", np.float64),
    12: ("uint64_data", np.uint64),
    13: ("uint64_data", np.uint64),
}


def problem_of(tensor: Any) -> Optional[str]:
    """Why the initializer's declared dims and type do not fit its data (None: they fit)."""
    from onnx import helper

    if any(d < 0 for d in tensor.dims):
        return f"its dims {_dims(tensor)} include a negative size"
    count = 1
    for d in tensor.dims:
        count *= int(d)
    try:
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type)).itemsize
    except Exception:  # noqa: BLE001 - an element type number onnx does not define
        return f"its element type number {tensor.data_type} is not an ONNX element type"
    if tensor.data_type == 8:  # strings have no fixed size
        return None
    if tensor.data_location == 1:  # external data: onnx.load read it into raw_data already
        return None if tensor.HasField("raw_data") else "its external data was not found"
    needed = _bytes_needed(tensor.data_type, count, itemsize)
    if needed > MAX_BYTES:
        return f"its dims {_dims(tensor)} make {count:,} elements, too many to hold in memory"
    if tensor.HasField("raw_data"):
        have = len(tensor.raw_data)
        if have != needed:
            return f"it holds {have:,} bytes of data, but its dims {_dims(tensor)} need {needed:,}"
        return None
    field = helper.tensor_dtype_to_field(tensor.data_type)
    have = len(getattr(tensor, field))
    wanted = _field_entries(tensor.data_type, count)
    if have != wanted:
        return f"it holds {have:,} values in {field}, but its dims {_dims(tensor)} need {wanted:,}"
    return None


def _bytes_needed(data_type: int, count: int, itemsize: int) -> int:
    bits = PACKED_BITS.get(data_type)
    if bits is not None:
        return (count * bits + 7) // 8
    return count * itemsize


def _field_entries(data_type: int, count: int) -> int:
    """How many entries of its typed field an initializer of `count` elements has."""
    bits = PACKED_BITS.get(data_type)
    if bits is not None:
        return (count * bits + 7) // 8
    if data_type in (14, 15):  # complex numbers: two entries each
        return 2 * count
    return count


def _dims(tensor: Any) -> str:
    return "(" + ", ".join(str(d) for d in tensor.dims) + ("," if len(tensor.dims) == 1 else "") + ")"
