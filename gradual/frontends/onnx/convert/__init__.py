"""Converters from ONNX operators to gradual operator calls, one module per family.

`CONVERTERS` maps an ONNX op_type (default domain) to a function of a `Node` (see node.py).
Each handles the opset versions' differences (an attribute that became an input, changed
defaults) and prefers a stdlib operator with ONNX's exact semantics, falling back to the
operators of stdlib/onnx.rly.
"""

from __future__ import annotations

# Importing each family registers its converters.
import gradual.frontends.onnx.convert.elementwise
import gradual.frontends.onnx.convert.loops
import gradual.frontends.onnx.convert.models
import gradual.frontends.onnx.convert.nn
import gradual.frontends.onnx.convert.other
import gradual.frontends.onnx.convert.reduce
import gradual.frontends.onnx.convert.sequence
import gradual.frontends.onnx.convert.shape  # noqa: F401
from gradual.frontends.onnx.convert.registration import CONVERTERS, DIRECT, FixedForm, converts, supported_operators

__all__ = ["CONVERTERS", "DIRECT", "FixedForm", "converts", "supported_operators"]
