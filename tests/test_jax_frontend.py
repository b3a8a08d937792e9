"""The JAX frontend (gradual/frontends/jax), built on gradual's public API only: types against
JAX's own output avals, values against JAX's outputs, diagnostics at the model's lines."""

from __future__ import annotations

import ast
import inspect
import json
import pathlib
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import gradual  # noqa: E402
from gradual.frontends import jax as gj  # noqa: E402
from tests.jax_models import models  # noqa: E402
from tests.jax_models import primitives as primitive_cases  # noqa: E402

RNG = np.random.default_rng(7)


def _array(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _aval_type(aval: object) -> str:
    """JAX's abstract value as gradual writes a tensor type (`float32[b,10]` is
    `Tensor[(b, 10), float32]`)."""
    dims = [str(d).replace("*", " * ") for d in aval.shape]  # type: ignore[attr-defined]
    if not dims:  # a scalar: gradual writes its dtype alone
        return np.dtype(aval.dtype).name  # type: ignore[attr-defined]
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


def test_a_shape_bug_in_a_helper_names_the_calls_that_led_there() -> None:
    """The error is at the helper's line; a note per user frame that called it, innermost
    first, and the function that was traced."""
    program = gj.convert(models.calls_buggy, "b, 16", "16, 32", "16, 8")
    (diag,) = program.check().errors
    assert diag.line == _line_of(models.buggy, "h @ w2")
    path = inspect.getsourcefile(models.calls_buggy)
    assert diag.notes == (
        f"called from {path}:{_line_of(models.calls_buggy, 'return buggy(')}, in `calls_buggy`",
        "TypeError raised while JAX traced `calls_buggy`",
    )


def test_an_unknown_primitive_is_a_located_diagnostic_naming_it() -> None:
    """A primitive gradual has no conversion for (cholesky) is a call of `jax.cholesky`: the
    checker reports it at the user's line (inside jnp's jitted function, the call's line), the
    equation as the diagnostic's data; the program is still built."""
    program = gj.convert(models.unconverted, "n, 3")
    (diag,) = program.check().errors
    assert diag.code == "unknown-operator" and "jax.cholesky" in diag.message
    where = (inspect.getsourcefile(models.unconverted), _line_of(models.unconverted, "cholesky"))
    assert (diag.path, diag.line) == where
    assert diag.data.primitive.name == "cholesky"


def test_a_form_of_a_primitive_without_a_conversion_is_reported_as_that_primitive() -> None:
    """A primitive gradual has no conversion for (`reduce_window` of a product, `cumlogsumexp`)
    is a located diagnostic naming it."""
    program = gj.convert(models.unconverted_forms, "n, 4")
    found = {(d.data.primitive.name, d.line) for d in program.check().errors if d.code == "unknown-operator"}
    line = _line_of(models.unconverted_forms, "lax.reduce_window")
    assert found == {("reduce_window", line), ("cumlogsumexp", line)}


@pytest.mark.parametrize("name", sorted(primitive_cases.CASES))
def test_each_primitive_has_jaxs_types_and_values(name: str) -> None:
    """Each primitive (and each form of one jnp emits) converts: the checked program's output
    types are JAX's out avals, symbolic dims kept, and a run gives JAX's outputs (dtype too)."""
    fn, specs, args = primitive_cases.CASES[name]
    program = gj.convert(fn, *specs)
    result = program.check()
    assert result.ok, gradual.render_diagnostics(result.diagnostics)
    assert program.types() == [_aval_type(a) for a in program.out_avals]
    want = jax.tree_util.tree_leaves(fn(*[jax.numpy.asarray(a) for a in args]))
    got = program.run(*args)
    assert len(got) == len(want)
    for ours, theirs in zip(got, want):
        theirs = np.asarray(theirs)
        assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
        np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=2e-4)


def test_equations_are_located_at_the_users_columns() -> None:
    """Each equation's binding is located at the expression that made it (line and columns
    CPython records)."""
    program = gj.convert(models.mlp, "b, 784", "784, 128", "128", "128, 10", "10")
    located = [s for s in program.module.defs[0].body.stmts if hasattr(s, "span")]
    spans = {(s.span.start_position, s.span.text) for s in located if s.span.source.path.endswith("models.py")}
    line = _line_of(models.mlp, "x @ w1")
    assert ((line, 21), "x @ w1") in spans
    assert any(text == "jax.nn.relu(x @ w1 + b1)" for _, text in spans)


#: the public API, and the registry a frontend registers its file kind through
ALLOWED = {"gradual", "gradual.builder", "gradual.frontends"}


def test_the_frontend_imports_nothing_private_from_gradual() -> None:
    """The JAX frontend is a frontend author's: it imports only gradual's public API, the
    frontend registry (as a third party's registers through it) and its own modules."""
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


# the command line: `gradual check FILE.py:NAME --arg 'SHAPE DTYPE' ...` ---------------------------
MODELS_PY = str(pathlib.Path(models.__file__))
MLP_ARGS = ["--arg", "b, 784 float32", "--arg", "784, 128", "--arg", "128", "--arg", "128, 10", "--arg", "10 float32"]


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple:
    from gradual.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_line_checks_a_function_on_symbolic_arguments(capsys: pytest.CaptureFixture) -> None:
    """`check FILE.py:NAME` with one `--arg` per argument: the signature with JAX's symbolic
    batch kept, exit 0; `import` prints the program with the arguments in its header."""
    code, out, err = _cli(capsys, "check", f"{MODELS_PY}:mlp", *MLP_ARGS)
    assert code == 0, err
    assert "Tensor[(b, 784), float32]" in out and "-> Tensor[(b, 10), float32]" in out
    code, out, err = _cli(capsys, "import", f"{MODELS_PY}:mlp", *MLP_ARGS)
    assert code == 0, err
    assert "// JAX function `mlp` of" in out and "x: (b, 784) float32" in out and "def @main(" in out


def test_the_command_line_reports_a_shape_bug_at_the_functions_line(capsys: pytest.CaptureFixture) -> None:
    code, out, err = _cli(capsys, "check", f"{MODELS_PY}:buggy", "--arg", "b, 16", "--arg", "16, 32", "--arg", "16, 8")
    assert code == 1
    line = _line_of(models.buggy, "h @ w2")
    assert f"models.py:{line}:12" in err and "error[op-constraint]" in err and "traced `buggy`" in err
    code, out, _ = _cli(
        capsys, "check", "--format", "json", f"{MODELS_PY}:buggy", "--arg", "b, 16", "--arg", "16, 32", "--arg", "16, 8"
    )
    (diag,) = json.loads(out)["files"][0]["diagnostics"]
    assert (diag["code"], diag["line"]) == ("op-constraint", line)


def test_an_unconverted_primitive_is_a_located_diagnostic_on_the_command_line(capsys: pytest.CaptureFixture) -> None:
    code, _, err = _cli(capsys, "check", f"{MODELS_PY}:unconverted", "--arg", "n, 3")
    assert code == 1
    assert "unknown operator `jax.cholesky`" in err and f"models.py:{_line_of(models.unconverted, 'cholesky')}" in err


def _write(tmp_path: pathlib.Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


#: (file text or None for no file, member, --arg texts, exit code, words of the error, its line)
BAD_INPUTS = {
    "no file": (None, "f", ["3"], 2, "no such file", None),
    "no function named": ("def f(x):\n    return x\n", "", ["3"], 2, "name the JAX function to check", None),
    "no such function": ("def fun(x):\n    return x\n", "fn", ["3"], 1, "has no function `fn`", 1),
    "not a function": ("import jax\nfn = 3\n", "fn", ["3"], 1, "is an `int`, not a function", 2),
    "not a name": ("def f(x):\n    return x\n", "f-g", ["3"], 2, "is not a Python name", None),
    "bad shape": ("def f(x):\n    return x\n", "f", ["3,, 4"], 2, "cannot read `--arg '3,, 4'`", None),
    "too few args": ("def f(x, y):\n    return x + y\n", "f", ["3"], 2, "takes 2 arguments (x, y), and 1", None),
    "too many args": ("def f(x):\n    return x\n", "f", ["3", "3"], 2, "takes 1 argument (x), and 2", None),
    "keyword only": ("def f(x, *, y):\n    return x\n", "f", ["3"], 2, "keyword-only parameters", None),
    "syntax error": ("import jax\n\ndef f(x):\n    return x +\n", "f", ["3"], 1, "SyntaxError", 4),
    "import fails": ("import jax\nimport no_such_module_xyz\n", "f", ["3"], 1, "No module named", 2),
    "raises at import": ("x = 1\nraise RuntimeError('boom')\n", "f", ["3"], 1, "RuntimeError: boom", 2),
    "raises while traced": (
        "def f(x):\n    if x.shape[0] > 2:\n        raise RuntimeError('too long')\n    return x\n",
        "f",
        ["5"],
        1,
        "JAX cannot trace this: too long",
        3,
    ),
    "not traceable": ("def f(x):\n    return x if x > 0 else -x\n", "f", ["5"], 1, "JAX cannot trace this", 2),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_every_bad_input_is_a_diagnostic_never_a_traceback(
    capsys: pytest.CaptureFixture, tmp_path: pathlib.Path, case: str
) -> None:
    """A missing file, a function the file lacks, an `--arg` that does not read or does not
    fit, a file that does not import, a function JAX cannot trace: a diagnostic (at the
    file's line where there is one), never a traceback, in text and in JSON."""
    text, member, specs, want_code, words, line = BAD_INPUTS[case]
    path = str(tmp_path / "m.py") if text is None else _write(tmp_path, "m.py", text)
    target = f"{path}:{member}" if member else path
    argv = [a for spec in specs for a in ("--arg", spec)]
    code, _, err = _cli(capsys, "check", target, *argv)
    assert code == want_code, err
    assert words in err and "Traceback" not in err
    if line is not None:
        assert f"m.py:{line}:" in err
    code, out, err = _cli(capsys, "check", "--format", "json", target, *argv)
    assert code == want_code and "Traceback" not in err
    found = json.loads(out)["files"][0]["diagnostics"]
    assert any(words in d["message"] for d in found), found


def test_without_jax_the_error_says_how_to_install_it(capsys: pytest.CaptureFixture, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError
    code, _, err = _cli(capsys, "check", f"{MODELS_PY}:mlp", *MLP_ARGS)
    assert code == 2 and "pip install 'gradual[jax]'" in err and "Traceback" not in err


def test_a_file_that_prints_keeps_stdout_for_the_document(capsys: pytest.CaptureFixture, tmp_path) -> None:
    """The file's prints (at import and while traced) go to stderr: `--format json` stays JSON."""
    path = _write(tmp_path, "noisy.py", "print('imported')\n\ndef f(x):\n    print('traced')\n    return x * 2\n")
    code, out, err = _cli(capsys, "check", "--format", "json", f"{path}:f", "--arg", "n")
    assert code == 0 and json.loads(out)["files"][0]["diagnostics"] == []
    assert "imported" in err and "traced" in err


def test_a_file_imports_its_neighbours(capsys: pytest.CaptureFixture, tmp_path: pathlib.Path) -> None:
    _write(tmp_path, "layers_gj.py", "import jax\n\ndef dense(x, w):\n    return jax.nn.relu(x @ w)\n")
    path = _write(tmp_path, "net_gj.py", "from layers_gj import dense\n\ndef net(x, w):\n    return dense(x, w)\n")
    code, out, err = _cli(capsys, "check", f"{path}:net", "--arg", "b, 4", "--arg", "4, 2")
    assert code == 0, err
    assert "-> Tensor[(b, 2), float32]" in out


def test_run_compares_gradual_with_jax(capsys: pytest.CaptureFixture, tmp_path: pathlib.Path) -> None:
    """`run FILE.py:NAME`: random inputs (`--shape` for symbolic dims) or given ones
    (`--arg NAME=FILE.npy`, told apart from the specs by the `=`), run on gradual's runtime
    and by JAX: the outputs agree, in text and JSON."""
    code, out, err = _cli(capsys, "run", f"{MODELS_PY}:mlp", *MLP_ARGS, "--shape", "x=3x784")
    assert code == 0, err
    assert out.splitlines() == ["Tensor[(3, 10), float32]", out.splitlines()[1]]
    assert out.splitlines()[1].startswith("jax: the output agrees (largest difference ")
    x = tmp_path / "x.npy"
    np.save(x, _array(4, 28, 28, 1))
    specs = ["--arg", "b, 28, 28, 1", "--arg", "3, 3, 1, 8", "--arg", "3, 3, 8, 16", "--arg", "16, 10"]
    code, out, err = _cli(capsys, "run", "--format", "json", f"{MODELS_PY}:convnet", *specs, "--arg", f"x={x}")
    assert code == 0, err
    document = json.loads(out)
    assert document["outputs"] == [{"shape": [4, 10], "dtype": "float32"}]
    assert document["reference"]["framework"] == "jax" and document["reference"]["agrees"] is True


def test_run_gives_jax_arrays_to_the_function(capsys: pytest.CaptureFixture, tmp_path: pathlib.Path) -> None:
    """JAX runs the function on JAX arrays (`x[i]` is JAX's clamping index, not NumPy's
    IndexError), several outputs in a pytree included; random int indices agree too."""
    path = _write(
        tmp_path,
        "index_gj.py",
        "from jax import lax\n\ndef row(i, x):\n    return x[i]\n\ndef both(x):\n    return lax.top_k(x, 2), {'s': x.sum()}\n",
    )
    code, out, err = _cli(capsys, "run", f"{path}:row", "--arg", "int32", "--arg", "4, 3", "--arg", "i=7")
    assert code == 0, err
    assert out.splitlines() == ["Tensor[(3,), float32]", "jax: the output agrees (largest difference 0)"]
    code, out, err = _cli(capsys, "run", f"{path}:row", "--arg", "k int32", "--arg", "4, 3", "--shape", "i=6")
    assert code == 0 and "jax: the output agrees" in out, err
    code, out, err = _cli(capsys, "run", f"{path}:both", "--arg", "b, 5", "--shape", "x=3x5")
    assert code == 0, err
    assert out.splitlines()[:3] == ["Tensor[(3, 2), float32]", "Tensor[(3, 2), int32]", "float32"]
    assert out.splitlines()[3].startswith("jax: all 3 outputs agree")


def test_run_reports_where_jax_disagrees() -> None:
    """A disagreement names the output, the index and both values; a framework that fails is
    said too; within the tolerance (a sum in another order) is agreement."""
    from gradual.cli.run import compare_with_reference

    ours = [np.array([1.0, 2.0], np.float32), np.array([1, 2], np.int32)]
    same = compare_with_reference("m.py:f", lambda inputs: [ours[0] + 1e-6, ours[1]], {}, ours)
    assert same["agrees"] and 0 < same["largest_difference"] < 1e-5
    off = compare_with_reference("m.py:f", lambda inputs: [ours[0], np.array([1, 3], np.int32)], {}, ours)
    assert (
        not off["agrees"]
        and off["message"] == "output 1 differs from jax's: at [1] gradual gives np.int32(2), jax gives np.int32(3)"
    )
    shape = compare_with_reference("m.py:f", lambda inputs: [ours[0][:1], ours[1]], {}, ours)
    assert not shape["agrees"] and "float32[2] against float32[1]" in shape["message"]
    count = compare_with_reference("m.py:f", lambda inputs: ours[:1], {}, ours)
    assert not count["agrees"] and "gave 2 outputs, jax gave 1" in count["message"]

    def fails(inputs: dict) -> list:
        raise FloatingPointError("bad")

    failed = compare_with_reference("m.py:f", fails, {}, ours)
    assert (
        not failed["agrees"] and failed["message"] == "jax could not run it on these inputs (FloatingPointError: bad)"
    )


def test_the_language_server_takes_no_python_file_for_a_model() -> None:
    """An editor's `.py` file is not loaded as a JAX model (which would import it): only a
    command line names the function to trace."""
    pytest.importorskip("pygls")
    from gradual.lsp.server import _is_model

    assert not _is_model("/work/model.py") and _is_model("/work/model.onnx")
