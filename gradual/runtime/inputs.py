"""Inputs for a run: from `.npy` files, literal values, or random data of a given shape.

Used by `gradual run` (`--arg NAME=FILE.npy|VALUE`, `--shape NAME=2x3[:dtype]`) and by the
tests' case files. A parameter whose type is fully static may be left out: it gets random data.
Random data has the declared dtype (float32 where the dtype is not known): standard normal
floats, integers in [0, 10), random booleans.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Optional

import numpy as np

from gradual.runtime import messages
from gradual.runtime.errors import InputError
from gradual.runtime.operators import LIMIT_VARIABLE, tensor_byte_limit
from gradual.runtime.values import NUMPY_DTYPES
from gradual.types import FuncType, RefType, TensorType, TupleType, Type, format_type

_SHAPE = re.compile(
    r"^\s*(\(\s*\)|scalar|\d+(?:\s*x\s*\d+)*|\(\s*\d+\s*(?:,\s*\d+\s*)*,?\s*\))?\s*(?::\s*([a-z0-9]+))?\s*$"
)
DEFAULT_FLOAT = "float32"


def parse_shape(text: str) -> tuple[tuple, Optional[str]]:
    """`2x3` or `(2, 3)` -> ((2, 3), None); `2x3:int32` -> ((2, 3), "int32"); `5` or `(5,)` ->
    one dim; `()`, `scalar` or nothing -> a scalar."""
    m = _SHAPE.match(text)
    if m is None:
        raise InputError(messages.runtime_bad_input_spec(text, "a shape such as 2x3, (2, 3), 2x3:int32 or ()"))
    words = re.findall(r"\d+", m.group(1) or "")
    return tuple(int(w) for w in words), m.group(2)


def declared_dtype(t: Optional[Type]) -> str:
    """The dtype random data and literals get for a parameter (float32 when not concrete)."""
    if isinstance(t, TensorType) and isinstance(t.dtype, str) and t.dtype in NUMPY_DTYPES:
        return t.dtype
    if isinstance(t, TensorType) and t.dtype == "bfloat16":
        raise InputError(messages.runtime_unsupported_dtype("bfloat16"))
    return DEFAULT_FLOAT


def random_array(shape: tuple, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Random data of a shape and dtype."""
    if dtype not in NUMPY_DTYPES:
        raise InputError(messages.runtime_unsupported_dtype(dtype))
    kind = np.dtype(dtype).kind
    limit = tensor_byte_limit()
    if math.prod(shape) * np.dtype(dtype).itemsize > limit:  # NumPy would try (and swap for minutes)
        raise InputError(
            messages.runtime_bad_input_spec(
                "x".join(map(str, shape)), f"a shape of at most {limit:,} bytes ({LIMIT_VARIABLE} raises the limit)"
            )
        )
    try:
        if kind == "f":
            return np.asarray(rng.standard_normal(shape).astype(dtype))
        if kind == "b":
            return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
        return np.asarray(rng.integers(0, 10, size=shape).astype(dtype))
    except (MemoryError, ValueError) as exc:
        raise InputError(
            messages.runtime_bad_input_spec("x".join(map(str, shape)), f"a shape that fits in memory ({exc})")
        ) from None


def static_shape(t: Optional[Type]) -> Optional[tuple]:
    """The shape of a fully static tensor type, else None."""
    if not isinstance(t, TensorType) or t.dims is None:
        return None
    if not all(getattr(d, "is_static", False) for d in t.dims):
        return None
    return tuple(d.get_length() for d in t.dims)


def random_for_type(t: Optional[Type], rng: np.random.Generator) -> Optional[Any]:
    """Random data for a fully static type (tensors, tuples of them), else None."""
    if isinstance(t, TupleType):
        fields = [random_for_type(f, rng) for f in t.fields]
        return None if any(f is None for f in fields) else tuple(fields)
    shape = static_shape(t)
    if shape is None or not isinstance(t, TensorType) or not isinstance(t.dtype, str) or t.dtype not in NUMPY_DTYPES:
        return None
    return random_array(shape, t.dtype, rng)


def shaped_input(text: str, t: Optional[Type], rng: np.random.Generator) -> np.ndarray:
    """`--shape NAME=2x3[:dtype]`: random data of that shape and the declared (or given) dtype."""
    shape, dtype = parse_shape(text)
    return random_array(shape, dtype or declared_dtype(t), rng)


def literal_input(text: str, t: Optional[Type]) -> np.ndarray:
    """`--arg NAME=3`, `NAME=2.5`, `NAME=True`, `NAME=[1, 2, 3]`: a value of the declared dtype."""
    word = text.strip()
    if word in ("True", "False", "true", "false"):
        value: Any = word.lower() == "true"
    else:
        try:
            value = json.loads(re.sub(r"\b(True|False)\b", lambda m: m.group(1).lower(), word))
        except ValueError:
            raise InputError(
                messages.runtime_bad_input_spec(text, "a number, True/False, a list [1, 2] or a .npy file")
            ) from None
    return python_input(text, value, t)


def python_input(shown: str, value: Any, t: Optional[Type]) -> np.ndarray:
    """A Python number, bool or (nested) list as an array of the parameter's dtype (its own
    where the type has none). The conversion must be exact: `3.99` is no int32, `2` no bool,
    and a string is no tensor (an InputError naming `shown`)."""
    dtype = declared_dtype(t) if _has_concrete_dtype(t) else _literal_dtype(value)
    try:
        given = np.asarray(value)
        array = np.asarray(value, dtype=dtype)
        if np.dtype(dtype).kind == "f":  # any number converts (rounding is no loss of meaning); text and None do not
            exact = given.dtype.kind in "biuf"
        else:
            exact = array.tolist() == given.tolist()
    except (TypeError, ValueError, OverflowError):
        exact = False
    if not exact:
        raise InputError(messages.runtime_bad_input_spec(shown, f"values that fit {dtype}"))
    return array


def language_value(name: str, value: Any) -> Any:
    """An input array (or a tuple of them) whose element type the language has: a string,
    complex or object array is an InputError, not a tensor of an unknown dtype."""
    if isinstance(value, tuple):
        return tuple(language_value(name, v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.name not in NUMPY_DTYPES:
        raise InputError(messages.runtime_bad_input_dtype(name, str(value.dtype)))
    return value


def _has_concrete_dtype(t: Optional[Type]) -> bool:
    return isinstance(t, TensorType) and isinstance(t.dtype, str) and t.dtype in NUMPY_DTYPES


def _literal_dtype(value: Any) -> str:
    try:
        flat = np.asarray(value)
    except ValueError:  # a ragged list: no dtype fits it
        return DEFAULT_FLOAT
    if flat.dtype.kind == "b":
        return "bool"
    if flat.dtype.kind in "iu":
        return "int32"
    return DEFAULT_FLOAT


def file_input(path: str) -> np.ndarray:
    """`--arg NAME=FILE.npy`."""
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise InputError(messages.runtime_unreadable_array(path, str(exc) or type(exc).__name__)) from None


def split_assignment(text: str) -> tuple[str, str]:
    """`NAME=VALUE` -> (NAME, VALUE); a leading `%` on the name is allowed."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputError(messages.runtime_bad_input_spec(text, "NAME=VALUE"))
    return name.strip().lstrip("%"), value


def build_inputs(params: list, args: list, shapes: list, seed: int = 0) -> dict:
    """Inputs by parameter name from `--arg` and `--shape` assignments; fully static
    parameters left out get random data; anything else left out is an InputError."""
    rng = np.random.default_rng(seed)
    declared = dict(params)
    inputs: dict = {}
    for text in shapes:
        name, value = split_assignment(text)
        _known(name, declared)
        _givable(name, declared[name])
        inputs[name] = shaped_input(value, declared[name], rng)
    for text in args:
        name, value = split_assignment(text)
        _known(name, declared)
        _givable(name, declared[name])
        if value.strip().lower().endswith(".npy"):  # `A.NPY` too, as `MODEL.ONNX` is a model
            inputs[name] = language_value(name, file_input(value))
        else:
            inputs[name] = literal_input(value, declared[name])
    for name, t in params:
        if name not in inputs:
            _givable(name, t)
            made = random_for_type(t, rng)
            if made is None:
                raise InputError(messages.runtime_needs_shape(name, format_type(t) if t is not None else "?"))
            inputs[name] = made
    return inputs


def _givable(name: str, t: Optional[Type]) -> None:
    """An InputError for a parameter no input of a run can fill: one whose type holds a
    function or a reference (`--shape f=2` made a tensor, which failed the entry's check
    with exit 3, and leaving it out said "give one with --shape f=2x3")."""
    part = _ungivable_part(t)
    if part is not None:
        raise InputError(messages.runtime_ungivable_input(name, format_type(t), part))  # type: ignore[arg-type]


def _ungivable_part(t: Optional[Type]) -> Optional[str]:
    """ "a function" or "a reference" where `t` holds one (in a tuple, too), else None."""
    stack = [t]
    while stack:
        part = stack.pop()
        if isinstance(part, FuncType):
            return "a function"
        if isinstance(part, RefType):
            return "a reference"
        if isinstance(part, TupleType):
            stack.extend(part.fields)
    return None


def _known(name: str, declared: dict) -> None:
    if name not in declared:
        raise InputError(messages.runtime_unknown_input(name, list(declared)))
