"""The `kernel` decorator: a NumPy kernel registered under one or more operator names."""

from __future__ import annotations

from typing import Any, Callable

from gradual.diagnostics import codes
from gradual.ops.context import RuleFailure
from gradual.ops.messages import register_rule_message
from gradual.ops.registry import attach_kernels
from gradual.ops.tables import KERNELS

Kernel = Callable[..., Any]


_DECORATED: dict[str, str] = {}  # operator -> the function `kernel` registered for it


def kernel(*names: str) -> Callable[[Kernel], Kernel]:
    """Decorator: register a NumPy kernel for one or more operator names; one per name (a
    second would silently replace the first)."""

    def register(fn: Kernel) -> Kernel:
        for name in names:
            if name in _DECORATED:
                raise ValueError(f"{name} has two kernels: {_DECORATED[name]} and {fn.__name__}")
            _DECORATED[name] = fn.__name__
        attach_kernels((name, fn) for name in names)
        return fn

    return register


def registered() -> dict[str, Kernel]:
    """Every kernel registered so far, by operator name."""
    return dict(KERNELS)


register_rule_message(
    "data-index",
    codes.OP_CONSTRAINT,
    "{op} reads {what} {index} along a dim of {size}: it lies outside that dim",
    "pass {what}s from -{size} to {last} (they are data: checked when the program runs)",
)


def data_index(value: int, size: int, what: str = "index", negative: bool = True) -> int:
    """An index read from a tensor's elements, as a position in a dim of `size` (negative ones
    count from the end where `negative`). One outside the dim stops the call with a check
    failure blamed at it, as the operator's framework does: where a contract can state the
    bound (`max(%index) < dim(%x, axis)`) the declaration says it; this is for the indices a
    contract cannot relate to their dim (a list of index tensors, a value that may also be a
    sentinel such as ignore_index)."""
    i = int(value)
    position = i + size if i < 0 and negative else i
    if not 0 <= position < size:
        raise RuleFailure("data-index", {"what": what, "index": i, "size": size, "last": size - 1})
    return position
