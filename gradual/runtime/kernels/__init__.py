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
import gradual.runtime.kernels.aten  # noqa: F401
import gradual.runtime.kernels.aten_nn  # noqa: F401
import gradual.runtime.kernels.bitserial  # noqa: F401
import gradual.runtime.kernels.conv  # noqa: F401
import gradual.runtime.kernels.data  # noqa: F401
import gradual.runtime.kernels.elementwise  # noqa: F401
import gradual.runtime.kernels.image  # noqa: F401
import gradual.runtime.kernels.nn  # noqa: F401
import gradual.runtime.kernels.onnx  # noqa: F401
import gradual.runtime.kernels.onnx_models  # noqa: F401
import gradual.runtime.kernels.qnn  # noqa: F401
import gradual.runtime.kernels.rearrange  # noqa: F401
import gradual.runtime.kernels.reduce  # noqa: F401
import gradual.runtime.kernels.sampling  # noqa: F401
import gradual.runtime.kernels.scatter  # noqa: F401
import gradual.runtime.kernels.sequence  # noqa: F401
import gradual.runtime.kernels.shape  # noqa: F401
import gradual.runtime.kernels.sparse  # noqa: F401
import gradual.runtime.kernels.vision  # noqa: F401
from gradual.runtime.kernels.registration import kernel, registered

__all__ = ["kernel", "registered"]
