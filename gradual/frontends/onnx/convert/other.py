"""Constants, pass-throughs and branches: Constant (an import-time value, written into the
program or passed as a parameter where it is used), Identity (the same variable), If (an `if`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gradual import builder as gb
from gradual.frontends.onnx.convert.registration import converts
from gradual.frontends.onnx.node import KNOWN, Node, Tuple

_CONSTANT_ATTRS = {
    "value_float": np.float32,
    "value_floats": np.float32,
    "value_int": np.int64,
    "value_ints": np.int64,
}


@converts("Constant")
def constant(node: Node) -> Any:
    """Constant: its value is recorded; it enters the program where it is used."""
    array = node.attr("value")  # each read of a tensor attribute reads the tensor again
    if array is not None:
        array = np.asarray(array)
    for name, dtype in _CONSTANT_ATTRS.items():
        value = node.attr(name)
        if value is not None:
            array = np.asarray(value, dtype=dtype)
    if array is None:
        given = ", ".join(node.attributes) or "none"
        node.fail_attribute("attributes", given, "value, value_float(s) or value_int(s)")
    node.importer.record_constant(node.outputs[0], array, node.loc)
    return KNOWN


@converts("If")
def if_(node: Node) -> Any:
    """If: gradual's `if` over the two branches (subgraphs that see the enclosing tensors); the
    checker joins the branches' types. The condition is a one-element bool tensor; when it is a
    constant, only the branch taken is imported (the other is dead code)."""
    known = node.value(0)
    if known is not None and np.asarray(known).size == 1:
        name = "then_branch" if bool(np.asarray(known).reshape(-1)[0]) else "else_branch"
        return node.importer.import_inline(node.attr(name), node.key + ((node.index, name),))
    cond = node.x(0)
    if node.rank(0) != 0:
        cond = node.call("reshape", cond, newshape=[])
    importer = node.importer
    then = importer.import_block(node.attr("then_branch"), node.key + ((node.index, "then_branch"),))
    other = importer.import_block(node.attr("else_branch"), node.key + ((node.index, "else_branch"),))
    expr = gb.if_(cond, then, other, loc=node.loc)
    count = len(node.outputs)
    return expr if count == 1 else Tuple(expr, count)


@converts("Identity")
def identity(node: Node) -> Any:
    """Identity: the output is the input's variable (a known value stays known)."""
    known = node.value(0)
    if known is not None:
        node.importer.record_constant(node.outputs[0], known, node.loc)
        return KNOWN
    return node.x(0)
