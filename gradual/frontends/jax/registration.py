"""The JAX frontend's registration: `FILE.py:NAME`, a JAX function in a Python file, traced on
the abstract arguments `--arg 'SHAPE DTYPE'` gives (one per positional argument, in order).

    gradual check models.py:mlp --arg 'b, 784 float32' --arg '784, 128 float32' ...

The frontend is written on gradual's public API, as a third party's would be: this module
registers it through the public registry (`gradual.frontends`), which imports it by name
(`BUILTIN`), and it imports neither JAX, NumPy nor the converter: loading does
(`loading.py`).
"""

from __future__ import annotations

from gradual.frontends import Frontend, FrontendOption, FrontendUsageError, LoadedModel, register_frontend

ARG = FrontendOption(
    "arg",
    "an argument of the function, one per positional argument in order: its shape (dims as "
    "jax.export.symbolic_shape reads them, `b` a symbol) then its dtype, `'b, 784 float32'`",
    metavar="'SHAPE DTYPE'",
    repeated=True,
)

OPTIONS = (ARG,)


def load(path: str, options: dict) -> LoadedModel:
    """Import the file, find the function, trace and convert it (the diagnostics of a file
    that does not import, a name it lacks, a function JAX cannot trace); a path without the
    function's name, an `--arg` that does not read, the wrong number of them, or no JAX, are
    usage errors (FrontendUsageError, FrontendUnavailable)."""
    file, colon, member = path.rpartition(":")
    if path.lower().endswith(".py") or not colon or not member:
        from gradual.frontends.jax import messages

        raise FrontendUsageError(messages.name_the_function(path if path.lower().endswith(".py") else file))
    from gradual.frontends.jax import loading

    return loading.load(path, file, member, list(options.get("arg") or ()))


register_frontend(Frontend("jax", (".py",), load, OPTIONS, members=True))
