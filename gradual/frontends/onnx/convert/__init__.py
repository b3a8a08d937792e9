"""Converters from ONNX operators to gradual operator calls, one module per family.

`CONVERTERS` maps an ONNX op_type (default domain) to a function of a `Node` (see node.py).
Each handles the opset versions' differences (an attribute that became an input, changed
defaults) and prefers a stdlib operator with ONNX's exact semantics, falling back to the
operators of stdlib/onnx.rly.
"""

from __future__ import annotations

from typing import Any, Callable

CONVERTERS: dict[str, Callable[[Any], Any]] = {}


def converts(*op_types: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Decorator: register a converter for ONNX op_types."""

    def register(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        for op in op_types:
            CONVERTERS[op] = fn
        return fn

    return register


def supported_operators() -> list[str]:
    """Every ONNX operator the frontend imports, sorted."""
    return sorted(CONVERTERS)


from . import elementwise, models, nn, reduce, shape, other  # noqa: E402,F401  (registers the converters)
