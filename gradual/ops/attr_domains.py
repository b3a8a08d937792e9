"""What an operator's attribute may hold beyond its declared kind: one table both the checker
and the runtime's property test consult, so that a value the checker accepts is one the kernel
runs (spec §3: every provable error is a diagnostic; an attribute is a literal, so its value is
always known statically).

The kind check (`kind_problem`) is the declaration's: `int` is a 64-bit integer (the width of
ONNX's and torch's attributes: a larger literal is no attribute any model can hold), `float`
takes ints too, `dtype` names a dtype (or is "" where "" is the default, meaning the input's). The domains (`DOMAINS`) are per (operator, attribute):
the ranges, choices and lengths a kernel needs that the kind does not say, for checks that need
no shape (those live in the shape rules). Kernels take their choice lists from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from gradual.types import DTYPES

INT64 = (-(2**63), 2**63 - 1)
INT32 = (-(2**31), 2**31 - 1)


@dataclass(frozen=True)
class Within:
    """An int (or every entry of a list of ints) in [low, high] (high None: no upper end)."""

    low: int
    high: Optional[int] = None

    def problem(self, value: Any) -> Optional[str]:
        """What the value must be, or None when it is in range."""
        items = value if isinstance(value, tuple) else (value,)
        if all(self.low <= v and (self.high is None or v <= self.high) for v in items):
            return None
        bound = f"at least {self.low}" if self.high is None else f"from {self.low} to {self.high}"
        return ("a list whose every entry is " if isinstance(value, tuple) else "") + bound


@dataclass(frozen=True)
class OneOf:
    """A string (or int) among `choices`."""

    choices: tuple

    def problem(self, value: Any) -> Optional[str]:
        """What the value must be, or None when it is one of the choices."""
        if value in self.choices:
            return None
        return "one of " + ", ".join(f'"{c}"' if isinstance(c, str) else str(c) for c in self.choices)


@dataclass(frozen=True)
class Lengths:
    """A list of one of the `allowed` lengths."""

    allowed: tuple

    def problem(self, value: Any) -> Optional[str]:
        """What the value must be, or None when its length is allowed."""
        if not isinstance(value, tuple) or len(value) in self.allowed:
            return None
        return f"a list of {' or '.join(str(n) for n in self.allowed)} entries"


UPSAMPLING_METHODS = ("nearest_neighbor", "bilinear", "trilinear", "bicubic", "linear", "cubic")

_POSITIVE = Within(1)

#: operator -> attribute -> what its value must be (beyond its kind); a None value (an optional
#: attribute left out) is never checked here
DOMAINS: dict = {}


def kind_problem(spec: Any, value: Any) -> Optional[str]:
    """The kind a value lacks against its declaration (`int`, `list`, ...), or None."""
    if value is None:
        return None if spec.optional else "none"
    items = value if isinstance(value, tuple) else (value,)
    if isinstance(value, tuple) and not spec.is_list and spec.kind != "any":
        return "list"
    for item in items:
        if spec.kind == "int" and not (isinstance(item, int) and not isinstance(item, bool)):
            return "int"
        if spec.kind == "int" and not INT64[0] <= item <= INT64[1]:
            return "int64"
        if spec.kind == "float" and not (isinstance(item, (int, float)) and not isinstance(item, bool)):
            return "float"
        if spec.kind == "bool" and not isinstance(item, bool):
            return "bool"
        if spec.kind == "str" and not isinstance(item, str):
            return "str"
        if spec.kind == "dtype" and not (isinstance(item, str) and (item in DTYPES or item == "" == spec.default)):
            return "dtype"  # "" is a dtype only where it is the default: "the input's" (out_dtype="")
    return None


def domain_problem(op_name: str, name: str, value: Any) -> Optional[str]:
    """What a value of the right kind must be for this operator's attribute (`at least 1`,
    `one of "ij", "xy"`), or None when the kernel runs it."""
    domain = DOMAINS.get(op_name, {}).get(name)
    if domain is None or value is None:
        return None
    return domain.problem(value)


def attribute_problem(op: Any, name: str, value: Any) -> Optional[str]:
    """Why the checker rejects `name=value` on `op` (a short kind such as `int`, or what the
    value must be), or None: the one test the checker applies and the runtime's property test
    relies on."""
    spec = op.attrs.get(name)
    if spec is None:
        return "unknown"
    return kind_problem(spec, value) or domain_problem(op.name, name, value)
