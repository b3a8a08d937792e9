"""The library façade: check, parse, elaborate as Python objects."""

from __future__ import annotations

import pytest

import gradual
from gradual.syntax import ast


def test_check_returns_types_checks_and_diagnostics() -> None:
    result = gradual.check("def @main(%x: Tensor[(?, ?), float32]) { nn.relu(%x) }")
    assert result.ok
    assert str(result.function_type("main")) == "fn (Tensor[(?, ?), float32]) -> Tensor[(?, ?), float32]"
    assert result.checks("main") == []


def test_check_accepts_a_parsed_module() -> None:
    module = gradual.parse("def @f(%a: Tensor[(2,), float32]) { add(%a, %a) }")
    assert isinstance(module, ast.Module)
    result = gradual.check(module)
    assert result.ok and str(result.function_type("f")).endswith("-> Tensor[(2,), float32]")


def test_parse_raises_a_syntax_problem_with_a_diagnostic() -> None:
    with pytest.raises(gradual.SyntaxProblem) as info:
        gradual.parse("def @f( {")
    assert info.value.diagnostic.code == "parse-error"
    assert info.value.diagnostic.line == 1


def test_check_never_raises_on_syntax_errors() -> None:
    result = gradual.check("def @f( {", "x.rly")
    assert not result.ok
    assert [d.code for d in result.diagnostics] == ["parse-error"]
    assert result.functions == {}


def test_check_sites_name_what_they_blame() -> None:
    src = (
        "def @f(%a: Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32] { %a }\n"
        "def @main(%x: Tensor[(?, ?), float32]) { @f(%x) }\n"
    )
    result = gradual.check(src, "m.rly")
    (check,) = result.checks("main")
    assert str(check.type) == "Tensor[(10, 10), float32]"
    assert check.blame.start_position == (2, 45)
    assert "the 1st argument (`%a`) to `@f`" in check.reason


def test_diagnostics_are_data() -> None:
    result = gradual.check("def @f(%x: Tensor[(3,), float32], %y: Tensor[(4,), float32]) { add(%x, %y) }")
    (diag,) = result.errors
    assert diag.code == "broadcast-mismatch"
    assert diag.severity is gradual.Severity.ERROR
    assert diag.span.text == "%y"
    assert diag.labels and diag.labels[0].span.text == "%x"
    assert diag.help


def test_elaborate_returns_a_module_with_inserted_casts() -> None:
    result = gradual.check("def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) { add(%x, %y) }")
    module = gradual.elaborate(result)
    call = module.defs[0].body.result
    assert all(isinstance(a, ast.Cast) and a.check is not None for a in call.args)


def test_binding_types_are_available() -> None:
    result = gradual.check("def @main(%x: Tensor[(n, 4), float32]) { %s = shape_of(%x); %s }")
    assert str(result.binding_type("main", "s")) == "Tensor[(2,), int64]"


def test_register_op_adds_an_operator() -> None:
    from gradual.ops.registry import Registry, default_registry

    registry = Registry()
    registry.ops.update(default_registry().ops)
    gradual.register_op("def my.swap[T](%x: Tensor[(n, m), T]) -> Tensor[(m, n), T];", registry=registry)
    result = gradual.check("def @main(%x: Tensor[(2, 3), float32]) { my.swap(%x) }", registry=registry)
    assert result.ok
    assert str(result.function_type("main")) == "fn (Tensor[(2, 3), float32]) -> Tensor[(3, 2), float32]"


@pytest.mark.parametrize("program", [None, 123, 4.5, ["def @main() { 1 }"]])
def test_check_of_something_that_is_not_a_program_is_a_type_error(program: object) -> None:
    with pytest.raises(TypeError, match="program text"):
        gradual.check(program)  # type: ignore[arg-type]


def test_check_decodes_bytes_and_reports_bytes_that_are_not_utf8() -> None:
    assert str(gradual.check(b"def @main() { 1i64 }").function_type("main")) == "fn () -> int64"
    result = gradual.check(b"def @main() {\xff}")
    assert [d.code for d in result.diagnostics] == ["input-error"]
    assert "not UTF-8" in result.diagnostics[0].message


@pytest.mark.parametrize(
    "call,names",
    [
        (lambda: gradual.check("def @main() { 1 }", registry="ops"), "gradual.check takes a Registry"),
        (lambda: gradual.check("def @main() { 1 }", None), "gradual.check takes a path"),
        (lambda: gradual.parse(None), "gradual.parse takes program text"),
        (lambda: gradual.parse("def @main() { 1 }", path=3), "gradual.parse takes a path"),
        (lambda: gradual.elaborate("def @main() { 1 }"), "gradual.elaborate takes the CheckResult"),
        (lambda: gradual.elaborate_text(None), "gradual.elaborate_text takes the CheckResult"),
        (lambda: gradual.register_op(None), "gradual.register_op takes a declaration"),
        (lambda: gradual.register_op("def my.typed[T](%x: Tensor[*, T]) -> Tensor[*, T];", rule=5), "a callable rule"),
        (lambda: gradual.run("def @main(%x: float32) { %x }", [1.0]), "gradual.run takes inputs as a mapping"),
        # `run` named `gradual.check`, the function it calls; bytes that are not UTF-8 skipped the path's check
        (lambda: gradual.run(None), "gradual.run takes program text .* or a CheckResult"),
        (lambda: gradual.run("def @main() { 1f }", None, "main", 3), "gradual.run takes a path"),
        (lambda: gradual.run("def @main() { 1f }", registry="ops"), "gradual.run takes a Registry"),
        (lambda: gradual.check(b"def @main() {\xff}", 3), "gradual.check takes a path"),
        (
            lambda: __import__("gradual.analysis").analysis.Document("d.rly").analyze(None),
            "Document.analyze takes the document's text",
        ),
    ],
)
def test_a_wrong_argument_is_a_type_error_that_names_the_function(call, names) -> None:
    """The façade's functions say which argument is wrong (SPEC: bad input is reported, never
    a crash inside): a wrong registry failed with "'str' object has no attribute 'ops'" deep in
    inference, `parse(None)` with lark's "No text assigned to lexer state", `elaborate(text)`
    with an AttributeError, and `run` with inputs as a list took the first array as a
    (name, value) pair ("`@main` has no parameter `%1.0`")."""
    with pytest.raises(TypeError, match=names):
        call()


def test_parse_takes_utf8_bytes_as_check_does() -> None:
    assert isinstance(gradual.parse(b"def @main() { 1 }"), ast.Module)
    with pytest.raises(gradual.SyntaxProblem) as info:
        gradual.parse(b"def @main() { 1 }\xff")
    assert info.value.diagnostic.code == "input-error"


@pytest.mark.parametrize("elaborate", [gradual.elaborate, gradual.elaborate_text])
def test_a_program_with_type_errors_is_not_elaborated(elaborate) -> None:
    """`gradual.elaborate` of a result with type errors returned a module as if it were sound
    (the rejected `nn.dense` left as it was, no check before it: running it handed the kernel
    the shapes the checker had rejected); `gradual elaborate` exits 1 there. Now a ValueError
    that names the first error."""
    result = gradual.check(
        "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 5), float32]) {\n  nn.dense(%x, %w)\n}\n", "m.rly"
    )
    with pytest.raises(ValueError, match=r"1 type error\(s\), the first `shape-mismatch` at m.rly:2:"):
        elaborate(result)
    warned = gradual.check("def @main(%x: Tensor[(2,), float32]) {\n  can_unify(%x, shape=(2,));\n  %x\n}\n")
    assert warned.ok and warned.warnings and elaborate(warned)  # warnings do not stop it


def test_what_run_raises_can_be_caught_through_the_facade() -> None:
    """`gradual.run`'s docstring names InputError and KernelFailure, which only
    gradual.runtime.errors offered."""
    program = "def @main(%x: Tensor[(2,), float32]) { %x }"
    with pytest.raises(gradual.InputError, match="no input for `%x`"):
        gradual.run(program, {})
    assert issubclass(gradual.KernelFailure, gradual.RunFailure)
    assert {"InputError", "KernelFailure"} <= set(gradual.__all__)


def test_every_public_name_is_documented() -> None:
    for name in gradual.__all__:
        assert (getattr(gradual, name).__doc__ or "").strip(), name


def test_a_file_name_given_as_the_program_says_so() -> None:
    """`gradual.check("examples/mlp.rly")` (the path where the text is expected: a newcomer's
    first call) was "unexpected `examples`" with no help."""
    from pathlib import Path

    path = str(Path(__file__).resolve().parents[1] / "examples" / "mlp.rly")
    (error,) = gradual.check(path).diagnostics
    assert error.code == "parse-error" and "`gradual.check` takes the program's text" in error.help
    with pytest.raises(gradual.SyntaxProblem) as info:
        gradual.parse(path)
    assert "`gradual.parse` takes the program's text" in info.value.diagnostic.help
    assert gradual.check("no such file here").diagnostics[0].help is None


def test_no_public_name_is_also_a_submodule() -> None:
    """The public names load on first use; a submodule of the same name would replace one the
    moment anything imports it (`import gradual.x` sets the package's attribute `x`)."""
    import pkgutil

    import gradual as package

    submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    lazy = set(package._LAZY) | set(package._RUNTIME_NAMES)
    assert not (lazy & submodules)
    import gradual.operator_info  # the module behind gradual.operators()

    assert callable(package.operators)
