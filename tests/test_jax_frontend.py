"""The JAX frontend (gradual/frontends/jax), built on gradual's public API only: types against
JAX's own output avals, values against JAX's outputs, diagnostics at the model's lines."""

from __future__ import annotations

import ast
import inspect
import pathlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import gradual  # noqa: E402
from gradual.frontends import jax as gj  # noqa: E402
from tests.jax_models import models  # noqa: E402

RNG = np.random.default_rng(7)


def _array(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _aval_type(aval: object) -> str:
    """JAX's abstract value as gradual writes a tensor type (`float32[b,10]` is
    `Tensor[(b, 10), float32]`)."""
    dims = [str(d).replace("*", " * ") for d in aval.shape]  # type: ignore[attr-defined]
    shape = f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"
    return f"Tensor[{shape}, {np.dtype(aval.dtype).name}]"  # type: ignore[attr-defined]


MODELS = {
    "mlp": (
        models.mlp,
        ["b, 784", "784, 128", "128", "128, 10", "10"],
        lambda b: [_array(b, 784), _array(784, 128), _array(128), _array(128, 10), _array(10)],
    ),
    "convnet": (
        models.convnet,
        ["b, 28, 28, 1", "3, 3, 1, 8", "3, 3, 8, 16", "16, 10"],
        lambda b: [_array(b, 28, 28, 1), _array(3, 3, 1, 8), _array(3, 3, 8, 16), _array(16, 10)],
    ),
    "attention": (
        models.attention,
        ["b, s, 32", "32, 32", "32, 32", "32, 32", "32, 32", "32"],
        lambda b: [_array(b, b + 3, 32)] + [_array(32, 32) for _ in range(4)] + [_array(32)],
    ),
    "looped": (models.looped, ["n"], lambda b: [_array(b + 1)]),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_types_are_jaxs_and_values_are_jaxs(name: str) -> None:
    """The checked program's output types are JAX's avals (symbolic batch and sequence kept),
    with no runtime check left; a run at two sizes gives JAX's outputs."""
    fn, specs, make = MODELS[name]
    program = gj.convert(fn, *specs)
    result = program.check()
    assert result.ok, gradual.render_diagnostics(result.diagnostics)
    assert program.types() == [_aval_type(a) for a in program.out_avals]
    for size in (1, 3):
        args = make(size)
        want = fn(*args)
        got = program.run(*args)
        assert len(got) == 1 and got[0].shape == np.asarray(want).shape
        np.testing.assert_allclose(got[0], np.asarray(want), rtol=2e-4, atol=2e-4)


def _line_of(fn: object, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)  # type: ignore[arg-type]
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_a_shape_bug_is_reported_at_its_python_line() -> None:
    """A matmul whose operands disagree is refused by JAX's shape rules while tracing: a
    diagnostic at the model's own line and columns (the operator expression), never a
    traceback; its data is the exception."""
    program = gj.convert(models.buggy, "b, 16", "16, 32", "16, 8")
    (diag,) = program.check().errors
    assert diag.path == inspect.getsourcefile(models.buggy)
    assert (diag.line, diag.column) == (_line_of(models.buggy, "h @ w2"), 12)
    assert diag.span.text == "h @ w2" and "contracting dimensions" in diag.message
    assert isinstance(diag.data, TypeError)
    text = gradual.render_diagnostics([diag])
    assert "models.py" in text and "return h @ w2" in text
    assert gradual.render_diagnostics([diag], "json").count('"line": ' + str(diag.line)) == 1


def test_an_unknown_primitive_is_a_located_diagnostic_naming_it() -> None:
    """A primitive gradual has no conversion for (cumsum) is a call of `jax.cumsum`: the
    checker reports it at the user's line (inside jnp's jitted cumsum, the call's line), the
    equation as the diagnostic's data; the program is still built."""
    program = gj.convert(models.cumulative, "n")
    (diag,) = program.check().errors
    assert diag.code == "unknown-operator" and "jax.cumsum" in diag.message
    assert (diag.path, diag.line) == (inspect.getsourcefile(models.cumulative), _line_of(models.cumulative, "cumsum"))
    assert diag.data.primitive.name == "cumsum"


def test_equations_are_located_at_the_users_columns() -> None:
    """Each equation's binding is located at the expression that made it (line and columns
    CPython records)."""
    program = gj.convert(models.mlp, "b, 784", "784, 128", "128", "128, 10", "10")
    located = [s for s in program.module.defs[0].body.stmts if hasattr(s, "span")]
    spans = {(s.span.start_position, s.span.text) for s in located if s.span.source.path.endswith("models.py")}
    line = _line_of(models.mlp, "x @ w1")
    assert ((line, 21), "x @ w1") in spans
    assert any(text == "jax.nn.relu(x @ w1 + b1)" for _, text in spans)


ALLOWED = {"gradual", "gradual.builder"}


def test_the_frontend_imports_nothing_private_from_gradual() -> None:
    """The JAX frontend is a frontend author's: it imports only gradual's public API (and its
    own modules)."""
    package = pathlib.Path(gj.__file__).parent
    found = set()
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gradual"):
                found.update(f"{node.module}.{a.name}" if node.module == "gradual" else node.module for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("gradual"))
    own = "gradual.frontends.jax"
    private = {m for m in found if not m.startswith(own) and m not in ALLOWED and not _public_name(m)}
    assert not private, private
    assert "gradual.builder" in found or "gradual.builder" in {m.removeprefix("gradual.") for m in found}


def _public_name(module: str) -> bool:
    """`gradual.X` for a name X of gradual.__all__ (`from gradual import builder`)."""
    head, _, name = module.rpartition(".")
    return head == "gradual" and name in gradual.__all__
