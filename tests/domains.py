"""Inputs inside and outside each operator's contract, for tests/test_domains.py.

A draw starts from a valid call (the operator's generator in tests/kernel_inputs*.py) and
changes one thing, or nothing:

* an operand's rank, to any of 0-4 (index and shape-like operands too), dims 0-4;
* an operand's dtype, to one of every dtype class;
* one dim of an operand, to 0 (zero-size tensors in every position);
* a tensor operand, to a tuple of tensors;
* one entry of a tuple operand (concatenate's tensors), to another rank, dtype or a zero dim;
  or the tuple, to an empty one or to its first tensor alone;
* an attribute, to a value out of its domain: negative, too large, a list one entry longer or
  shorter, another kind (a string for a number, a number for a string), None.

Each call is then written as a program whose parameters carry the operands' types as written,
with some dims made `?` or the rank unknown, so that both the static verdict and the inserted
checks are exercised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from gradual.syntax.printer import format_attr_value

#: one dtype of every class an operand can be declared with
DTYPES = ("float32", "float16", "float64", "int64", "int32", "int8", "uint8", "bool")

MUTATIONS = ("none", "rank", "dtype", "zero", "tuple", "entry", "attribute")


@dataclass
class Call:
    """One call of an operator: its operands (arrays, or tuples of arrays) and attributes, and
    how each operand's type is written in the program."""

    op: str
    args: list
    attrs: dict
    mutation: str
    #: per operand: "static" (its shape), "unknown" (`?` for each dim), "rank" (`Tensor[*, dt]`),
    #: "dtype" (its shape, dtype `?`)
    written: list

    def program(self) -> str:
        params = ", ".join(f"%a{i}: {_type(a, w)}" for i, (a, w) in enumerate(zip(self.args, self.written)))
        args = [f"%a{i}" for i in range(len(self.args))]
        args += [f"{name}={_attr_text(value)}" for name, value in self.attrs.items()]
        return f"def @main({params}) {{\n  {self.op}({', '.join(args)})\n}}\n"

    def inputs(self) -> dict:
        return {f"a{i}": a for i, a in enumerate(self.args)}

    def describe(self) -> str:
        shapes = [_shape_text(a) for a in self.args]
        return f"{self.op}({', '.join(shapes)}) {self.attrs} [{self.mutation}]"


def _dtype_name(a: np.ndarray) -> str:
    return str(a.dtype)


def _type(value: Any, written: str) -> str:
    if isinstance(value, tuple):
        fields = [_type(v, written) for v in value]
        return "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
    array = np.asarray(value)
    dtype = _dtype_name(array)
    if written == "rank":
        return f"Tensor[*, {dtype}]"
    if written == "dtype":
        dtype = "?"
    dims = ["?" if written == "unknown" else str(d) for d in array.shape]
    return f"Tensor[({', '.join(dims)}{',' if len(dims) == 1 else ''}), {dtype}]"


def _shape_text(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_shape_text(v) for v in value) + ")"
    array = np.asarray(value)
    return f"{array.shape}:{array.dtype}"


def _attr_text(value: Any) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, tuple):
        value = tuple(v.item() if isinstance(v, np.generic) else v for v in value)
        return "[" + ", ".join(_attr_text(v) for v in value) + "]"
    return format_attr_value(value)


# drawing -----------------------------------------------------------------------------------------
def _random_array(draw: Any, rank: int, dtype: str, zero_ok: bool = True) -> np.ndarray:
    shape = tuple(draw(st.integers(0 if zero_ok else 1, 4)) for _ in range(rank))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        low = 0 if np.dtype(dtype).kind == "u" else -3
        return rng.integers(low, 4, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 2).astype(dtype)


def _tensor_positions(args: list) -> list:
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]


def _out_of_domain(draw: Any, value: Any) -> Any:
    """A value of an attribute outside what it held: negative, large, another length or kind."""
    if isinstance(value, bool):
        return draw(st.sampled_from([3, "yes", None]))
    if isinstance(value, (int, np.integer)):
        return draw(st.sampled_from([-1, -7, int(value) + 7, 1 << 20, "x", 1.5, None, [int(value)]]))
    if isinstance(value, float):
        return draw(st.sampled_from([-1.0, 1e30, float("nan"), "x", None]))
    if isinstance(value, str):
        return draw(st.sampled_from(["", "nonsense", 1, None]))
    if isinstance(value, (list, tuple)):
        items = list(value)
        choices = [items + items[-1:] if items else [1], items[:-1], [-1] * len(items), [1 << 20] * len(items)]
        choices += [None, 2]
        return draw(st.sampled_from(choices))
    return draw(st.sampled_from([None, -1, "x"]))


def _changed_entry(draw: Any, fields: tuple) -> Any:
    """A tuple operand with one entry of another rank, dtype or a zero dim; or the tuple made
    empty, or its first tensor given alone (a tensor where a tuple goes)."""
    how = draw(st.sampled_from(("rank", "dtype", "zero", "empty", "tensor")))
    if how == "empty" or not fields:
        return ()
    if how == "tensor":
        return fields[0]
    entries = list(fields)
    j = draw(st.integers(0, len(entries) - 1))
    entry = entries[j]
    if how == "rank":
        entries[j] = _random_array(draw, draw(st.integers(0, 4)), _dtype_name(entry))
    elif how == "dtype":
        with np.errstate(all="ignore"):
            entries[j] = entry.astype(draw(st.sampled_from(DTYPES)))
    elif entry.ndim:
        shape = list(entry.shape)
        shape[draw(st.integers(0, entry.ndim - 1))] = 0
        entries[j] = np.zeros(shape, entry.dtype)
    return tuple(entries)


def draw_call(draw: Any, op: Any, generator: Any) -> Call:
    """A call of `op` from its generator's valid call, with at most one change (see above)."""
    args, attrs = generator(draw)
    args = [tuple(np.asarray(v) for v in a) if isinstance(a, (tuple, list)) else np.asarray(a) for a in args]
    attrs = dict(attrs)
    mutation = draw(st.sampled_from(MUTATIONS))
    tensors = _tensor_positions(args)
    if mutation in ("rank", "dtype", "zero", "tuple") and not tensors:
        mutation = "none"
    if mutation == "rank":
        at = draw(st.sampled_from(tensors))
        args[at] = _random_array(draw, draw(st.integers(0, 4)), _dtype_name(args[at]))
    elif mutation == "dtype":
        at = draw(st.sampled_from(tensors))
        dtype = draw(st.sampled_from(DTYPES))
        with np.errstate(all="ignore"):
            args[at] = args[at].astype(dtype)
    elif mutation == "zero":
        ranked = [i for i in tensors if args[i].ndim]
        if ranked:
            at = draw(st.sampled_from(ranked))
            axis = draw(st.integers(0, args[at].ndim - 1))
            shape = list(args[at].shape)
            shape[axis] = 0
            args[at] = np.zeros(shape, args[at].dtype)
        else:
            mutation = "none"
    elif mutation == "tuple":
        at = draw(st.sampled_from(tensors))
        args[at] = (args[at], args[at])
    elif mutation == "entry":
        tuples = [i for i, a in enumerate(args) if isinstance(a, tuple)]
        if tuples:
            at = draw(st.sampled_from(tuples))
            args[at] = _changed_entry(draw, args[at])
        else:
            mutation = "none"
    elif mutation == "attribute":
        names = sorted(n for n in op.attrs if n in attrs) or sorted(op.attrs)
        if names:
            name = draw(st.sampled_from(names))
            spec = op.attrs[name]
            current = attrs.get(name, spec.default)
            attrs[name] = _out_of_domain(draw, current)
        else:
            mutation = "none"
    written = [draw(st.sampled_from(("static", "static", "unknown", "rank", "dtype"))) for _ in args]
    return Call(op.name, args, attrs, mutation, written)
