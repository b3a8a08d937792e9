"""NumPy kernels, one module per operator family, registered by operator name.

Adding a kernel is one function:

    @kernel("nn.leaky_relu")
    def leaky_relu(data, *, alpha):
        return np.where(data > 0, data, alpha * data)

Tensor arguments come positionally (a tuple argument as a Python tuple of arrays); attributes
come by keyword, with the declared defaults filled in; a kernel names only the attributes it
uses (or takes `**attrs`). It returns an array (or a tuple of arrays) with exactly the shape and
dtype the operator's shape rule computes: the runtime verifies that after every call. Kernels
follow Relay's semantics, written independently of the shape rules so the two check each other.
"""

from __future__ import annotations

# Importing each family registers it; the ONNX (onnx*) and torch.export (aten*) frontends' operators too.
from gradual.runtime.kernels import (  # each family registers its operators when imported
    aten,
    aten_nn,
    bitserial,
    conv,
    data,
    elementwise,
    image,
    nn,
    onnx,
    onnx_models,
    qnn,
    rearrange,
    reduce,
    sampling,
    scatter,
    sequence,
    shape,
    sparse,
    vision,
)
from gradual.runtime.kernels.registration import kernel, registered

__all__ = [
    "kernel",
    "registered",
    "aten",
    "aten_nn",
    "bitserial",
    "conv",
    "data",
    "elementwise",
    "image",
    "nn",
    "onnx",
    "onnx_models",
    "qnn",
    "rearrange",
    "reduce",
    "sampling",
    "scatter",
    "sequence",
    "shape",
    "sparse",
    "vision",
]
