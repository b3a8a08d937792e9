"""Converters from ONNX operators to gradual operator calls, one module per family.

`CONVERTERS` maps an ONNX op_type (default domain) to a function of a `Node` (see node.py).
Each handles the opset versions' differences (an attribute that became an input, changed
defaults) and prefers a stdlib operator with ONNX's exact semantics, falling back to the
operators of stdlib/onnx.rly.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

CONVERTERS: dict[str, Callable[[Any], Any]] = {}

#: ONNX op_type -> `direct(importer, op_type, inputs) -> op or None` (`inputs` the node's input
#: names), for a converter that turns a node
#: with no attributes, whose inputs are all tensors bound already, into exactly `op(inputs...)`
#: (one call of a gradual operator on the node's inputs, in order, located as the converter
#: locates them): the importer then builds that call itself, without a `Node` (importer.py,
#: `_import_nodes`). None: the converter decides.
DIRECT: dict[str, Callable[[Any, str, list], Optional[str]]] = {}


def converts(*op_types: str, direct: Optional[Callable[[Any, str, list], Optional[str]]] = None
             ) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Decorator: register a converter for ONNX op_types (and its direct form, see DIRECT)."""

    def register(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        for op in op_types:
            CONVERTERS[op] = fn
            if direct is not None:
                DIRECT[op] = direct
        return fn

    return register


def supported_operators() -> list[str]:
    """Every ONNX operator the frontend imports, sorted."""
    return sorted(CONVERTERS)


from . import elementwise, loops, models, nn, reduce, shape, other, sequence  # noqa: E402,F401  (registers the converters)
