"""The table of converters by ONNX op_type, and the decorator that fills it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

CONVERTERS: dict[str, Callable[[Any], Any]] = {}


@dataclass(frozen=True)
class FixedForm:
    """A direct form that reads neither the importer nor the inputs' names: `ops[op_type]` for a
    node of `arity` inputs, else None (the converter decides)."""

    ops: dict
    arity: int

    def of(self, op_type: str, inputs: int) -> Optional[str]:
        """The form of a node of this op_type with `inputs` inputs."""
        return self.ops[op_type] if inputs == self.arity else None


#: ONNX op_type -> `direct(importer, op_type, inputs) -> op or None` (`inputs` the node's input
#: names), for a converter that turns a node
#: with no attributes, whose inputs are all tensors bound already, into exactly `op(inputs...)`
#: (one call of a gradual operator on the node's inputs, in order, located as the converter
#: locates them): the importer then builds that call itself, without a `Node` (importer.py,
#: `_import_nodes`). None: the converter decides. A `FixedForm` is decided by the op_type and the
#: count of inputs alone, so the importer decides it once per kind of node.
DirectForm = Union[Callable[[Any, str, list], Optional[str]], FixedForm]
DIRECT: dict[str, DirectForm] = {}


def converts(
    *op_types: str, direct: Optional[DirectForm] = None
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
