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

from typing import Any, Callable

from gradual.ops.registry import KERNELS, attach_kernels

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


# Importing each family registers it; the ONNX (onnx*) and torch.export (aten*) frontends' operators too.
import gradual.runtime.kernels.aten  # noqa: E402,F401
import gradual.runtime.kernels.aten_nn  # noqa: E402,F401
import gradual.runtime.kernels.conv  # noqa: E402,F401
import gradual.runtime.kernels.data  # noqa: E402,F401
import gradual.runtime.kernels.elementwise  # noqa: E402,F401
import gradual.runtime.kernels.image  # noqa: E402,F401
import gradual.runtime.kernels.nn  # noqa: E402,F401
import gradual.runtime.kernels.onnx  # noqa: E402,F401
import gradual.runtime.kernels.onnx_models  # noqa: E402,F401
import gradual.runtime.kernels.qnn  # noqa: E402,F401
import gradual.runtime.kernels.rearrange  # noqa: E402,F401
import gradual.runtime.kernels.reduce  # noqa: E402,F401
import gradual.runtime.kernels.sampling  # noqa: E402,F401
import gradual.runtime.kernels.scatter  # noqa: E402,F401
import gradual.runtime.kernels.sequence  # noqa: E402,F401
import gradual.runtime.kernels.shape  # noqa: E402,F401
import gradual.runtime.kernels.sparse  # noqa: E402,F401
