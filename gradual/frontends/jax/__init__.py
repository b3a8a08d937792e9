"""A frontend for JAX, built only on gradual's public API (`gradual`, `gradual.builder`).

    import jax, jax.numpy as jnp
    from gradual.frontends import jax as gj

    def mlp(x, w1, w2):
        return jax.nn.relu(x @ w1) @ w2

    program = gj.convert(mlp, "b, 784 float32", "784, 128 float32", "128, 10 float32")
    result = program.check()            # a gradual.CheckResult, diagnostics at mlp's lines
    outputs = program.run(x, w1, w2)    # NumPy arrays, run on gradual's runtime

Arguments are `jax.ShapeDtypeStruct`s (their dims from `jax.export.symbolic_shape`), arrays
(their shapes), or specs `"b, 784 float32"` (dims as `symbolic_shape` reads them, one scope
for all the specs of a call; the dtype last, float32 when left out). The function is traced
with `jax.make_jaxpr` and its jaxpr converted (converter.py, primitives.py): every equation
located at the user's line, with the equation as the diagnostic's `data`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gradual.frontends.jax.program import JaxProgram, abstract, convert, convert_jaxpr, unknown_operator

__all__ = ["JaxProgram", "abstract", "convert", "convert_jaxpr", "unknown_operator"]


def __getattr__(name: str) -> Any:
    """The frontend loads on first use: the command line imports this package to register it
    (`registration`), and that must cost neither NumPy nor the builder."""
    if name in __all__:
        from gradual.frontends.jax import program

        return getattr(program, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
