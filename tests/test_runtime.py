"""The reference runtime: the interpreter, runtime casts, blame, function contracts, the library
API (`gradual.run`), and deep recursion."""

from __future__ import annotations

import numpy as np
import pytest

import gradual
from gradual.ops.registry import Registry, default_registry, register_op
from gradual.runtime import CheckFailure, InputError, KernelFailure, ProgramRejected, run_elaborated
from gradual.runtime.errors import Blame
from gradual.runtime.match import match_value
from gradual.runtime.values import Frame
from gradual.shapes import Dimension, Poly, Symbol
from gradual.syntax.source import generated_span
from gradual.types import Broadcast, DTypeVar, TensorType, TupleType, Variadic

F32 = np.float32


def ones(*shape: int, dtype: type = F32) -> np.ndarray:
    return np.ones(shape, dtype)


def failure(program: str, inputs: dict, entry: str = "main") -> CheckFailure:
    """The CheckFailure a run raises."""
    with pytest.raises(CheckFailure) as info:
        gradual.run(program, inputs, entry)
    return info.value


# the interpreter -------------------------------------------------------------------------------
def test_lets_tuples_projections_and_literals() -> None:
    src = """
def @main(%x: Tensor[(2, 3), float32]) {
  let %t = (%x, 2f, 3i64, True);
  %y = multiply(%t.0, %t.1);
  (%y, %t.2, %t.3)
}
"""
    y, three, true = gradual.run(src, {"x": ones(2, 3)})
    np.testing.assert_array_equal(y, 2 * ones(2, 3))
    assert three.dtype == np.int64 and int(three) == 3
    assert true.dtype == np.bool_ and bool(true)


def test_if_takes_the_branch_its_condition_selects() -> None:
    src = """
def @main(%i: int32, %x: Tensor[(3,), float32]) {
  if (less(%i, 5)) { add(%x, 1f) } else { negative(%x) }
}
"""
    (low,) = gradual.run(src, {"i": 1, "x": ones(3)})
    (high,) = gradual.run(src, {"i": 9, "x": ones(3)})
    np.testing.assert_array_equal(low, 2 * ones(3))
    np.testing.assert_array_equal(high, -ones(3))


def test_closures_capture_their_environment() -> None:
    src = """
def @main(%x: Tensor[(3,), float32], %k: float32) {
  let %scale = fn (%a: Tensor[(3,), float32]) { multiply(%a, %k) };
  let %twice = fn (%f: fn (Tensor[(3,), float32]) -> Tensor[(3,), float32], %a: Tensor[(3,), float32]) { %f(%f(%a)) };
  %twice(%scale, %x)
}
"""
    (out,) = gradual.run(src, {"x": ones(3), "k": 3.0})
    np.testing.assert_allclose(out, 9 * ones(3))


def test_globals_are_values_and_symbols_are_instantiated_per_call() -> None:
    src = """
def @double(%a: Tensor[(n,), float32]) -> Tensor[(2 * n,), float32] { concatenate((%a, %a)) }
def @apply(%f: fn (Tensor[(3,), float32]) -> Tensor[(6,), float32], %x: Tensor[(3,), float32]) { %f(%x) }
def @main(%x: Tensor[(3,), float32], %y: Tensor[(5,), float32]) { (@apply(@double, %x), @double(%y)) }
"""
    a, b = gradual.run(src, {"x": ones(3), "y": ones(5)})
    assert a.shape == (6,) and b.shape == (10,)


def test_outputs_are_flattened_tuples() -> None:
    src = "def @main(%x: Tensor[(2,), float32]) { ((%x, (%x, %x)), %x) }"
    assert len(gradual.run(src, {"x": ones(2)})) == 4


# deep recursion --------------------------------------------------------------------------------
LOOP = """
def @loop(%i: int32, %x: Tensor[(3,), float32]) -> Tensor[(3,), float32] {
  if (less(%i, 10000)) { @loop(add(%i, 1), add(%x, 1f)) } else { %x }
}
def @main(%x: Tensor[(3,), float32]) { @loop(0, %x) }
"""


def test_a_loop_of_10000_iterations_runs_in_constant_stack() -> None:
    (out,) = gradual.run(LOOP, {"x": np.zeros(3, F32)})
    np.testing.assert_array_equal(out, np.full(3, 10000, F32))


def test_a_closure_loop_of_10000_iterations() -> None:
    src = """
def @main(%x: Tensor[(3,), float32]) {
  let %loop = fn (%i: int32, %acc: Tensor[(3,), float32]) {
    if (less(%i, 10000)) { %loop(add(%i, 1), add(%acc, 1f)) } else { %acc }
  };
  %loop(0, %x)
}
"""
    (out,) = gradual.run(src, {"x": np.zeros(3, F32)})
    assert float(out[0]) == 10000


def test_recursion_10000_deep_that_is_not_a_tail_call() -> None:
    src = """
def @count(%i: int32) -> int32 {
  if (less(%i, 10000)) { add(@count(add(%i, 1)), 1) } else { 0 }
}
def @main() { @count(0) }
"""
    (out,) = gradual.run(src, {})
    assert int(out) == 10000


def test_the_rfc_loop_with_a_growing_shape() -> None:
    (out,) = gradual.run(open_example("loop.rly"), {"seed": np.full((1, 1), 7, F32)})
    assert out.shape == (1024, 1) and (out == 7).all()


def open_example(name: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "examples" / name).read_text()


# runtime casts ----------------------------------------------------------------------------------
BLAME = Blame(generated_span("<test>"), "cast")


def dims(*items: object) -> tuple:
    return tuple(Dimension(i) if isinstance(i, int) else i for i in items)


def sym(name: str, lo: int = 0, hi: int | None = None) -> tuple:
    s = Symbol(name, lo, hi)
    return s, Dimension.of_expr(Poly.atom(s))


def check(value: object, t: object, frame: Frame | None = None) -> Frame:
    frame = frame or Frame()
    match_value(value, t, frame, BLAME)
    return frame


def mismatch(value: object, t: object, frame: Frame | None = None) -> CheckFailure:
    with pytest.raises(CheckFailure) as info:
        check(value, t, frame)
    return info.value


def test_static_dims_must_be_equal_and_unknown_dims_are_anything() -> None:
    check(ones(2, 3), TensorType(dims(2, Dimension.dynamic()), "float32"))
    fail = mismatch(ones(2, 3), TensorType(dims(2, 4), "float32"))
    assert fail.axis == 1 and fail.shape == (2, 3) and fail.expected == "Tensor[(2, 4), float32]"
    assert "dim 1 is 3, not 4" in fail.diagnostic().message


def test_intervals_bound_the_size() -> None:
    t = TensorType((Dimension(1, 8),), "float32")
    check(ones(8), t)
    assert "outside 1..8" in mismatch(ones(9), t).diagnostic().message


def test_a_bare_symbol_binds_then_is_rigid() -> None:
    n, d = sym("n")
    frame = check(ones(4), TensorType((d,), "float32"))
    assert frame.dim(n) == 4
    check(ones(4, 4), TensorType((d, d), "float32"), frame)
    fail = mismatch(ones(4, 5), TensorType((d, d), "float32"), frame)
    assert fail.axis == 1 and fail.expected == "Tensor[(4, 4), float32]"


def test_one_unbound_symbol_appearing_linearly_is_solved() -> None:
    n, d = sym("n")
    frame = check(ones(7), TensorType((2 * d + 1,), "float32"))
    assert frame.dim(n) == 3
    assert (
        "not `2 * m + 1` for any size"
        in mismatch(ones(6), TensorType((2 * sym("m")[1] + 1,), "float32")).diagnostic().message
    )


def test_symbolic_expressions_are_evaluated_once_bound() -> None:
    n, d = sym("n")
    t = TupleType((TensorType((d,), "float32"), TensorType((d + 1, 2 * d), "float32")))
    check((ones(3), ones(4, 6)), t)
    fail = mismatch((ones(3), ones(4, 5)), t)
    assert fail.axis == 1 and fail.mismatch.path == (1,)
    assert "in field 1, dim 1 is 5, not 6" in fail.diagnostic().message


def test_symbol_bounds_are_checked_when_binding() -> None:
    _, d = sym("d", 2, 4)
    check(ones(4), TensorType((d,), "float32"))
    assert "outside its bounds 2..4" in mismatch(ones(5), TensorType((d,), "float32")).diagnostic().message


def test_broadcast_dims_are_one_or_the_target() -> None:
    t = TensorType((Broadcast(Dimension(5)),), "float32")
    check(ones(1), t)
    check(ones(5), t)
    assert "not 1 or 5" in mismatch(ones(4), t).diagnostic().message


def test_rank_dtype_and_dtype_variables() -> None:
    assert "its rank is 3, not 2" in mismatch(ones(1, 2, 3), TensorType(dims(1, 2), "float32")).diagnostic().message
    assert (
        "its dtype is int32, not float32"
        in mismatch(ones(2, dtype=np.int32), TensorType(dims(2), "float32")).diagnostic().message
    )
    var = DTypeVar("T")
    t = TupleType((TensorType(dims(2), var), TensorType(dims(2), var)))
    check((ones(2), ones(2)), t)
    assert "`T` is float32 here" in mismatch((ones(2), ones(2, dtype=np.int64)), t).diagnostic().message


def test_dynamic_rank_and_variadic_dims() -> None:
    check(ones(1, 2, 3), TensorType(None, "float32"))
    b = Symbol("b")
    _, k = sym("k")
    t = TupleType((TensorType((Variadic(b), k), "float32"), TensorType((Variadic(b), Dimension(1)), "float32")))
    check((ones(2, 3, 4), ones(2, 3, 1)), t)
    assert "`*b` is (2, 3) here" in mismatch((ones(2, 3, 4), ones(2, 4, 1)), t).diagnostic().message


def test_kinds_and_tuple_lengths() -> None:
    assert (
        "it is a tuple of 2, not a tensor"
        in mismatch((ones(1), ones(1)), TensorType(None, "float32")).diagnostic().message
    )
    assert (
        "it has 1 fields, not 2" in mismatch((ones(1),), TupleType((TensorType(None, "?"),) * 2)).diagnostic().message
    )


# blame ------------------------------------------------------------------------------------------
def test_an_inserted_check_blames_the_assumption_with_the_checkers_reason() -> None:
    src = "def @f(%a: Tensor[(10, 10), float32]) { %a }\ndef @main(%x: Tensor[(?, ?), float32]) { @f(%x) }\n"
    fail = failure(src, {"x": ones(10, 9)})
    diag = fail.diagnostic()
    assert (diag.code, diag.line, diag.column) == ("check-failed", 2, 45)
    assert diag.span.text == "%x"
    assert diag.message == "expected Tensor[(10, 10), float32], found Tensor[(10, 9), float32]: dim 1 is 9, not 10"
    assert any("the 1st argument (`%a`) to `@f`" in n for n in diag.notes)
    assert fail.shape == (10, 9) and fail.dtype == "float32" and fail.axis == 1


def test_a_user_cast_blames_the_cast() -> None:
    src = "def @main(%x: Tensor[(?,), float32]) {\n  %y = %x as Tensor[(3,), float32];\n  %y\n}\n"
    diag = failure(src, {"x": ones(4)}).diagnostic()
    assert diag.span.text == "%x as Tensor[(3,), float32]" and diag.line == 2
    assert [label.span.text for label in diag.labels] == ["Tensor[(3,), float32]"]


def test_an_annotated_let_binds_and_blames_its_value() -> None:
    src = """def @main(%x: Tensor[(?, 4), float32], %y: Tensor[(?, 4), float32]) {
  let %a: Tensor[(b, 4), float32] = nn.relu(%x);
  let %c: Tensor[(b, 4), float32] = %y;
  add(%a, %c)
}
"""
    (out,) = gradual.run(src, {"x": ones(3, 4), "y": ones(3, 4)})
    assert out.shape == (3, 4)
    diag = failure(src, {"x": ones(3, 4), "y": ones(2, 4)}).diagnostic()
    assert (diag.line, diag.span.text) == (3, "%y")
    assert "dim 0 is 2, not 3 (`b`)" in diag.message
    assert diag.labels[0].span.text == "Tensor[(b, 4), float32]"


def test_an_input_that_does_not_fit_its_parameter_blames_the_parameter() -> None:
    src = "def @main(%x: Tensor[(n, 4), float32], %y: Tensor[(n, 4), float32]) { add(%x, %y) }"
    diag = failure(src, {"x": ones(3, 4), "y": ones(5, 4)}).diagnostic()
    assert diag.span.text == "Tensor[(n, 4), float32]" and diag.column == 44
    assert "2nd parameter (`%y`) of `@main`" in diag.notes[0]


def test_a_return_annotation_is_checked_against_the_result() -> None:
    src = """def @f(%x: Tensor[(?,), float32]) -> Tensor[(4,), float32] { %x }
def @main(%x: Tensor[(?,), float32]) { @f(%x) }
"""
    diag = failure(src, {"x": ones(5)}).diagnostic()
    assert diag.span.text == "Tensor[(4,), float32]" and diag.line == 1


def test_a_shape_rule_rejects_inputs_the_checker_could_not_see() -> None:
    src = "def @main(%x: Tensor[(?,), float32], %y: Tensor[(?,), float32]) {\n  add(%x, %y)\n}\n"
    diag = failure(src, {"x": ones(3), "y": ones(4)}).diagnostic()
    assert (diag.code, diag.line, diag.span.text) == ("check-failed", 2, "add(%x, %y)")
    assert diag.message == "`add` cannot broadcast dim 0 of the 1st argument (3) with dim 0 of the 2nd argument (4)"
    assert diag.label == "called with Tensor[(3,), float32], Tensor[(4,), float32]"


# function contracts ----------------------------------------------------------------------------------
CONTRACTS = """
def @main(%x: Tensor[(3,), float32]) {
  let %grow = fn (%a: Tensor[(3,), float32]) { concatenate((%a, %a)) };
  let %four = fn (%a: Tensor[(4,), float32]) { %a };
  let %keep = fn (%a: Tensor[(3,), float32]) { nn.relu(%a) };
  let %hidden = @hide(%WHICH);
  %g = %hidden as fn (Tensor[(3,), float32]) -> Tensor[(3,), float32];
  %g(%x)
}
def @hide(%f: ?) -> ? { %f }
"""


def test_a_function_cast_to_a_type_it_honours_runs() -> None:
    (out,) = gradual.run(CONTRACTS.replace("%WHICH", "%keep"), {"x": -ones(3)})
    np.testing.assert_array_equal(out, np.zeros(3, F32))


def test_a_function_returning_the_wrong_type_is_blamed_at_its_cast() -> None:
    diag = failure(CONTRACTS.replace("%WHICH", "%grow"), {"x": ones(3)}).diagnostic()
    assert diag.line == 7 and diag.span.text.startswith("%hidden as fn")
    assert diag.label == "this function's result does not have the type it was given"
    assert "found Tensor[(6,), float32]" in diag.message


def test_a_function_rejecting_an_argument_its_type_accepts_is_blamed_at_its_cast() -> None:
    diag = failure(CONTRACTS.replace("%WHICH", "%four"), {"x": ones(3)}).diagnostic()
    assert diag.line == 7 and diag.span.text.startswith("%hidden as fn")
    assert diag.label == "this function was given a type whose arguments it does not accept"
    assert [label.span.text for label in diag.labels] == ["%g(%x)"]


def test_a_caller_passing_a_bad_argument_to_a_checked_function_is_blamed() -> None:
    # unchecked (the checker would reject it statically): the wrapper itself catches the caller
    src = """def @id(%a: Tensor[(3,), float32]) { %a }
def @apply(%f: fn (Tensor[(3,), float32]) -> Tensor[(3,), float32], %x: Tensor[(4,), float32]) { %f(%x) }
def @main(%x: Tensor[(4,), float32]) { @apply(@id, %x) }
"""
    with pytest.raises(CheckFailure) as info:
        run_elaborated(gradual.parse(src), {"x": ones(4)})
    diag = info.value.diagnostic()
    assert diag.span.text == "%f(%x)" and diag.label == "this call passes an argument of the wrong type"


# the library API ----------------------------------------------------------------------------------
def test_run_accepts_text_check_results_and_modules() -> None:
    src = "def @main(%x: Tensor[(?, 2), float32]) { nn.relu(%x) }"
    for program in (src, gradual.check(src), gradual.parse(src)):
        (out,) = gradual.run(program, {"x": -ones(3, 2)})
        assert out.shape == (3, 2) and (out == 0).all()


def test_run_rejects_a_program_with_type_errors() -> None:
    with pytest.raises(ProgramRejected) as info:
        gradual.run("def @main(%x: Tensor[(3,), float32], %y: Tensor[(4,), float32]) { add(%x, %y) }", {})
    assert info.value.diagnostics[0].code == "broadcast-mismatch"


def test_run_names_missing_and_unknown_inputs() -> None:
    src = "def @main(%x: Tensor[(2,), float32]) { %x }"
    with pytest.raises(InputError, match="no input for `%x`"):
        gradual.run(src, {})
    with pytest.raises(InputError, match="no parameter `%z`"):
        gradual.run(src, {"x": ones(2), "z": ones(2)})
    with pytest.raises(InputError, match="no definition `@nope`"):
        gradual.run(src, {"x": ones(2)}, entry="nope")


def test_python_numbers_become_the_declared_dtype() -> None:
    (out,) = gradual.run("def @main(%i: int64, %x: float32) { (%i, %x) }", {"i": 3, "x": 2})[:1]
    assert out.dtype == np.int64


def test_the_elaborated_text_parses_and_runs() -> None:
    result = gradual.check("def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) { add(%x, %y) }")
    module = gradual.parse(gradual.elaborate_text(result), "elaborated.rly")
    out = run_elaborated(module, {"x": ones(2, 1), "y": ones(1, 5)})
    assert out.shape == (2, 5)
    with pytest.raises(CheckFailure) as info:
        run_elaborated(module, {"x": ones(2, 3), "y": ones(1, 5)})
    assert info.value.diagnostic().span.text == "%x as Tensor[(2, 5|1), float32]"


def fresh_registry() -> Registry:
    registry = Registry()
    for name in default_registry().names():
        registry.add(default_registry().get(name))
    return registry


def test_a_registered_operator_runs_its_rule_and_kernel() -> None:
    registry = fresh_registry()
    register_op("def my.swap[T](%x: Tensor[(n, m), T]) -> Tensor[(m, n), T];", kernel=lambda x: x.T, registry=registry)
    src = "def @main(%x: Tensor[(?, 3), float32]) { my.swap(%x) }"
    (out,) = gradual.run(gradual.check(src, registry=registry), {"x": ones(2, 3)})
    assert out.shape == (3, 2)


def test_a_kernel_that_disagrees_with_its_rule_is_an_internal_error() -> None:
    registry = fresh_registry()
    register_op("def my.bad[T](%x: Tensor[(n,), T]) -> Tensor[(n,), T];", kernel=lambda x: x[:-1], registry=registry)
    with pytest.raises(KernelFailure) as info:
        gradual.run(
            gradual.check("def @main(%x: Tensor[(4,), float32]) { my.bad(%x) }", registry=registry), {"x": ones(4)}
        )
    diag = info.value.diagnostic()
    assert diag.code == "internal-error"
    assert (
        diag.message
        == "`my.bad`: the kernel produced Tensor[(3,), float32], but the shape rule computed Tensor[(4,), float32]"
    )


def test_an_operator_without_a_kernel_is_a_runtime_error() -> None:
    registry = fresh_registry()
    register_op("def my.none[T](%x: Tensor[(n,), T]) -> Tensor[(n,), T];", registry=registry)
    with pytest.raises(KernelFailure) as info:
        gradual.run(
            gradual.check("def @main(%x: Tensor[(4,), float32]) { my.none(%x) }", registry=registry), {"x": ones(4)}
        )
    assert info.value.code == "runtime-error" and "no NumPy kernel" in info.value.diagnostic().message


def test_a_kernel_failing_on_its_values_is_a_runtime_error() -> None:
    """A kernel that fails on values its declaration does not constrain (every stdlib operator
    declares or checks what its kernel needs: a registered one here) is a `runtime-error` at
    the call, never a traceback."""
    from gradual.ops.registry import Registry, default_registry

    registry = Registry()
    registry.ops.update(default_registry().ops)

    def pick(x: np.ndarray, i: np.ndarray) -> np.ndarray:
        return x[i]  # index 7 of 4: IndexError

    gradual.register_op(
        "def my.pick[T, I: index](%x: Tensor[(n,), T], %i: Tensor[(k,), I]) -> Tensor[(k,), T];",
        kernel=pick,
        registry=registry,
    )
    src = "def @main(%x: Tensor[(4,), float32], %i: Tensor[(2,), int32]) { my.pick(%x, %i) }"
    with pytest.raises(KernelFailure) as info:
        gradual.run(src, {"x": ones(4), "i": np.array([1, 7], np.int32)}, registry=registry)
    assert info.value.code == "runtime-error" and "out of bounds" in info.value.diagnostic().message


def test_an_index_past_its_dim_stops_before_the_kernel() -> None:
    """take's indices are held to the data's dim before its kernel runs, whatever their rank:
    a check failure with blame, not a kernel error."""
    src = 'def @main(%x: Tensor[(4,), float32], %i: Tensor[(1, 2), int32]) { take(%x, %i, axis=0, mode="fast") }'
    with pytest.raises(gradual.runtime.errors.OperatorCheckFailure):
        gradual.run(src, {"x": ones(4), "i": np.array([[1, 7]], np.int32)})


# rules and kernels that disagreed -------
def test_global_pool_honours_out_layout() -> None:
    (out,) = gradual.run(
        'def @main(%x: Tensor[(1, 3, 4, 5), float32]) { nn.global_avg_pool2d(%x, out_layout="NHWC") }',
        {"x": ones(1, 3, 4, 5)},
    )
    assert out.shape == (1, 1, 1, 3)


def test_cast_to_a_narrower_integer_type_does_not_keep_values_it_cannot_hold() -> None:
    (out,) = gradual.run(
        'def @main(%x: Tensor[(n, 300), float32]) { cast(shape_of(%x), dtype="int8") }', {"x": ones(2, 300)}
    )
    assert out.tolist() == [2, 44]


def test_a_function_passed_around_a_loop_is_not_wrapped_again_and_again() -> None:
    src = """
def @loop(%i: int32, %f: fn (Tensor[(3,), float32]) -> Tensor[(3,), float32], %x: Tensor[(3,), float32]) -> Tensor[(3,), float32] {
  if (less(%i, 3000)) { @loop(add(%i, 1), %f, %f(%x)) } else { %x }
}
def @main(%x: Tensor[(3,), float32]) {
  @loop(0, fn (%a: Tensor[(3,), float32]) { add(%a, 1f) }, %x)
}
"""
    (out,) = gradual.run(src, {"x": np.zeros(3, F32)})
    assert float(out[0]) == 3000


def test_an_inserted_check_mentioning_a_let_bound_existential_blames_the_argument() -> None:
    """(`b` of a `2..` dim: one of a `?` may be 1, and then no check claims it.)"""
    src = """def @main(%x: Tensor[(2.., 4), float32], %y: Tensor[(?, 4), float32]) {
  let %h: Tensor[(b, 4), float32] = %x;
  add(%h, %y)
}
"""
    diag = failure(src, {"x": ones(3, 4), "y": ones(2, 4)}).diagnostic()
    assert diag.span.text == "%y"


# the memory budget -----------------------------------------------------------------------------
DOUBLING_LOOP = """
def @loop(%i: int32, %x) {
  can_unify(%x, shape=(1, 1));
  if (less(%i, 1000000)) { @loop(add(%i, 1), concatenate((%x, %x), axis=0)) } else { %x }
}
def @main(%seed: Tensor[(1, 1), float32]) { @loop(0, %seed) }
"""


def test_a_result_beyond_the_memory_budget_stops_the_run_before_it_is_allocated(monkeypatch) -> None:
    """A loop that doubles a tensor a million times stops at the call whose result would pass
    the budget."""
    monkeypatch.setenv("GRADUAL_MAX_TENSOR_BYTES", "4096")
    with pytest.raises(KernelFailure) as info:
        gradual.run(DOUBLING_LOOP, {"seed": ones(1, 1)})
    diagnostic = info.value.diagnostic()
    assert diagnostic.code == "runtime-error"
    assert "8,192 bytes, more than the runtime's limit of 4,096 bytes" in diagnostic.message
    assert DOUBLING_LOOP[diagnostic.span.start : diagnostic.span.end] == "concatenate((%x, %x), axis=0)"
    assert "GRADUAL_MAX_TENSOR_BYTES" in diagnostic.help


def test_a_result_of_more_dims_than_numpy_allows_stops_before_its_kernel() -> None:
    """NumPy's own "maximum supported dimension" came out, with a help about input values, for
    a well-typed program with no check."""
    newshape = ", ".join(["1"] * 70) + ", 3, 3"
    text = f"def @main(%x: Tensor[(3, 3), float32]) {{ reshape(%x, newshape=[{newshape}]) }}"
    with pytest.raises(KernelFailure) as info:
        gradual.run(text, {"x": ones(3, 3)})
    diagnostic = info.value.diagnostic()
    assert diagnostic.code == "runtime-error"
    assert "its result would have 72 dims, more than the 64 a NumPy array can have" in diagnostic.message
    assert "make fewer of them" in diagnostic.help


def test_the_memory_budget_defaults_to_a_gibibyte(monkeypatch) -> None:
    from gradual.runtime.operators import tensor_byte_limit

    monkeypatch.delenv("GRADUAL_MAX_TENSOR_BYTES", raising=False)
    assert tensor_byte_limit() == 1 << 30
    monkeypatch.setenv("GRADUAL_MAX_TENSOR_BYTES", "not a number")
    assert tensor_byte_limit() == 1 << 30


# inputs and bounds ------------------------------------------------
@pytest.mark.parametrize("value", ["abc", object(), [[1, 2], [3]]])
def test_an_input_that_is_no_tensor_is_an_input_error(value: object) -> None:
    with pytest.raises(InputError, match="cannot read"):
        gradual.run("def @main(%x: Tensor[(2,), float32]) { %x }", {"x": value})


@pytest.mark.parametrize("value", ["1.5", b"2", None, [None, "3"]])
def test_text_and_none_are_no_float_input(value: object) -> None:
    """NumPy reads "1.5" as 1.5 and None as nan for a float dtype; they were accepted."""
    with pytest.raises(InputError, match="values that fit float32"):
        gradual.run("def @main(%x: Tensor[*, float32]) { %x }", {"x": value})


@pytest.mark.parametrize("value", [np.array(["a", "b"]), np.array([1j, 2j]), np.array([None, 1], dtype=object)])
def test_an_array_outside_the_languages_dtypes_is_an_input_error(value: np.ndarray) -> None:
    with pytest.raises(InputError, match="not a dtype of the language"):
        gradual.run("def @main(%x: Tensor[*, ?]) { %x }", {"x": value})


@pytest.mark.parametrize("value", [3.99, 2**40])
def test_a_number_is_converted_exactly_or_not_at_all(value: object) -> None:
    with pytest.raises(InputError, match="values that fit int32"):
        gradual.run("def @main(%n: int32) { %n }", {"n": value})
    (out,) = gradual.run("def @main(%n: int32) { %n }", {"n": 3.0})
    assert out.dtype == np.int32 and int(out) == 3


COUNTDOWN = """
def @main(%i: int32) -> int32 {
  if (less(%i, 1)) { %i } else { @main(subtract(%i, 1)) }
}
"""


def test_a_tail_call_loop_runs_in_constant_memory() -> None:
    import tracemalloc

    gradual.run(COUNTDOWN, {"i": 10})  # warm caches outside the measurement
    tracemalloc.start()
    try:
        gradual.run(COUNTDOWN, {"i": 20_000})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, f"a 20,000-iteration loop peaked at {peak:,} bytes"


def test_a_loop_that_never_ends_stops_at_the_step_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradual.runtime.errors import CallFailure

    monkeypatch.setenv("GRADUAL_MAX_STEPS", "500")
    with pytest.raises(CallFailure) as info:
        gradual.run("def @main(%x: float32) -> float32 { @main(%x) }", {"x": 1.0})
    diag = info.value.diagnostic()
    assert "more than 500 calls" in diag.message and "GRADUAL_MAX_STEPS" in diag.help
    assert "gradual check" not in diag.help


def test_a_dynamic_value_used_as_a_function_or_tuple_stops_at_its_check() -> None:
    """A `?` called or projected is a check site (it was a `runtime-error` that blamed no
    check: the elaborated program had none there)."""
    from gradual.runtime.errors import CheckFailure

    with pytest.raises(CheckFailure) as info:
        gradual.run("def @h(%f: ?) { %f(1f) }\ndef @main(%x: float32) { @h(%x) }", {"x": 1.0})
    diag = info.value.diagnostic()
    assert (diag.line, diag.column) == (1, 17) and "not a function" in diag.message
    with pytest.raises(CheckFailure) as info:
        gradual.run("def @h(%t: ?) { %t.1 }\ndef @main(%x: float32) { @h((%x,)) }", {"x": 1.0})
    diag = info.value.diagnostic()
    assert (diag.line, diag.column) == (1, 17) and "no field 1" in diag.message


def test_a_chain_keeps_only_its_live_values() -> None:
    """Each let's value is let go after its last use (runtime.liveness): a chain of 64
    operators on 1 MB tensors peaks at a few of them, not 64 (a model's activations would
    otherwise all stay alive until its function returns). Values a closure captures stay."""
    import tracemalloc

    lines = ["def @main(%x: Tensor[(512, 512), float32]) {", "  %v0 = nn.relu(%x);"]
    lines += [f"  %v{i} = add(%v{i - 1}, %x);" for i in range(1, 64)]
    lines += ["  %keep = fn () { %v1 };", "  (%v63, %keep())", "}"]
    result = gradual.check("\n".join(lines) + "\n")
    x = np.ones((512, 512), np.float32)
    tracemalloc.start()
    try:
        out, kept = gradual.run(result, {"x": x})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert float(out[0, 0]) == 64.0 and float(kept[0, 0]) == 2.0
    assert peak < 8 * x.nbytes, f"peak {peak / x.nbytes:.1f} tensors"


def test_a_failed_check_names_the_dtype_its_variable_was_bound_to() -> None:
    """`expected Tensor[(2..,), float32]`, not the definition's `T`."""
    src = (
        "def @h(%x) { can_unify(%x, shape=(3,)); %a = nn.pad(%x, 0f, pad_width=[[0, -2]]); %x }\n"
        "def @main(%y: Tensor[(1,), float32]) { @h(%y) }\n"
    )
    with pytest.raises(gradual.CheckFailure) as info:
        gradual.run(src, {"y": ones(1)})
    assert info.value.diagnostic().message.startswith("expected Tensor[(2..,), float32], found Tensor[(1,), float32]")


class _CollectorCalls:
    """The gc module as the interpreter sees it, counting the calls that touch frozen objects."""

    def __init__(self, frozen: int) -> None:
        self.frozen = frozen
        self.calls: list[str] = []

    def get_freeze_count(self) -> int:
        self.calls.append("get_freeze_count")
        return self.frozen

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def __getattr__(self, name: str) -> object:
        import gc

        return getattr(gc, name)


@pytest.mark.parametrize(
    ("iterations", "frozen", "expected"),
    [
        (10, 0, []),  # a short run: no full collection, nothing asked of the collector's freeze list
        (10, 500_000, []),  # ... whatever the caller froze (asking costs O(frozen objects))
        (2_000, 0, ["get_freeze_count", "freeze", "unfreeze"]),  # set aside once, given back at the end
        (2_000, 500_000, ["get_freeze_count"]),  # the caller's freeze is left alone
    ],
)
def test_a_run_sets_aside_what_lives_only_once_it_is_long(
    monkeypatch: pytest.MonkeyPatch, iterations: int, frozen: int, expected: list
) -> None:
    from gradual.runtime import interpreter

    collector = _CollectorCalls(frozen)
    monkeypatch.setattr(interpreter, "gc", collector)
    monkeypatch.setattr(interpreter, "COLLECT_STEPS", 10)  # a full collection after 80 steps
    gradual.run(COUNTDOWN, {"i": iterations})
    assert collector.calls == expected
