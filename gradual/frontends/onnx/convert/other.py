"""Constants and pass-throughs: Constant (an import-time value, written into the program or
passed as a parameter where it is used) and Identity (the same variable)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..node import KNOWN, Node
from . import converts

_CONSTANT_ATTRS = {
    "value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64,
}


@converts("Constant")
def constant(node: Node) -> Any:
    """Constant: its value is recorded; it enters the program where it is used."""
    array = None
    if node.attr("value") is not None:
        array = np.asarray(node.attr("value"))
    for name, dtype in _CONSTANT_ATTRS.items():
        if node.attr(name) is not None:
            array = np.asarray(node.attr(name), dtype=dtype)
    if array is None:
        given = ", ".join(node.attributes) or "none"
        node.fail_attribute("attributes", given, "value, value_float(s) or value_int(s)")
    node.importer.record_constant(node.outputs[0], array, node.loc)
    return KNOWN


@converts("Identity")
def identity(node: Node) -> Any:
    """Identity: the output is the input's variable (a known value stays known)."""
    if node.value(0) is not None:
        node.importer.record_constant(node.outputs[0], node.value(0), node.loc)
        return KNOWN
    return node.x(0)
