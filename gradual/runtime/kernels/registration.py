"""The `kernel` decorator: a NumPy kernel registered under one or more operator names."""

from __future__ import annotations

from typing import Any, Callable

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
