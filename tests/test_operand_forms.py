"""Operand forms of a declaration beyond a tensor or tuple type (docs/contracts.md): `%x: T?`, a
tensor or absent (`()`: ATen's optional tensors), and `%x: [T]`, a tuple of any length whose
every field is a T (ATen's SymInt lists). The signature matches them, a contract reads them
(`len(%x)`; a condition naming an absent operand holds), and the checker and the runtime
enforce both the same way."""

from __future__ import annotations

import numpy as np
import pytest

import gradual
from gradual.diagnostics import codes
from gradual.ops.registry import Registry, default_registry
from gradual.runtime.errors import CheckFailure

LINEAR = (
    "def my.linear[T: float](%x: Tensor[(n, k), T], %w: Tensor[(u, k), T], %b: Tensor[(u,), T]?) -> Tensor[(n, u), T];"
)
RESHAPE = (
    "def my.reshape[T, I: index](%x: Tensor[*, T], %size: [Tensor[(), I]]) -> Tensor[*, T]"
    " where len(%size) >= 1, len(%size) <= rank(%x) + 1;"
)
SCALED = "def my.scaled[T](%x: Tensor[*, T], %s: Tensor[*, T]?) -> Tensor[*, T] where rank(%s) == rank(%x);"


def _linear(x: np.ndarray, w: np.ndarray, b: object) -> np.ndarray:
    out = x @ w.T
    return out if isinstance(b, tuple) else out + b


@pytest.fixture()
def registry() -> Registry:
    fresh = Registry()
    fresh.ops.update(default_registry().ops)
    gradual.register_op(LINEAR, kernel=_linear, registry=fresh)
    gradual.register_op(RESHAPE, kernel=lambda x, size: x.reshape([int(s) for s in size]), registry=fresh)
    gradual.register_op(SCALED, kernel=lambda x, s: x if isinstance(s, tuple) else x * s, registry=fresh)
    return fresh


def _errors(program: str, registry: Registry) -> list:
    return [(d.code, d.message) for d in gradual.check(program, registry=registry).errors]


def test_an_optional_operand_may_be_absent_or_a_tensor_of_its_type(registry: Registry) -> None:
    absent = "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) { my.linear(%x, %w, ()) }"
    given = (
        "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32], %b: Tensor[(4,), float32]) "
        "{ my.linear(%x, %w, %b) }"
    )
    for program in (absent, given):
        result = gradual.check(program, registry=registry)
        assert result.ok, result.diagnostics
        assert str(result.functions["main"].type.ret) == "Tensor[(2, 4), float32]"
    x, w, b = np.ones((2, 3), "float32"), np.ones((4, 3), "float32"), np.arange(4, dtype="float32")
    (out,) = gradual.run(given, {"x": x, "w": w, "b": b}, registry=registry)
    assert np.array_equal(out, x @ w.T + b)
    (out,) = gradual.run(absent, {"x": x, "w": w}, registry=registry)
    assert np.array_equal(out, x @ w.T)


def test_a_present_optional_operand_is_held_to_its_type(registry: Registry) -> None:
    head = "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32], %b: "
    wrong_dim = _errors(head + "Tensor[(5,), float32]) { my.linear(%x, %w, %b) }", registry)
    assert [c for c, _ in wrong_dim] == [codes.SHAPE_MISMATCH]
    wrong_dtype = _errors(head + "Tensor[(4,), float64]) { my.linear(%x, %w, %b) }", registry)
    assert [c for c, _ in wrong_dtype] == [codes.DTYPE_MISMATCH]
    # a tuple of tensors is neither absent nor a tensor
    pair = _errors(head + "Tensor[(4,), float32]) { my.linear(%x, %w, (%b, %b)) }", registry)
    assert [c for c, _ in pair] == [codes.TYPE_MISMATCH] and "needs a tensor" in pair[0][1]


def test_a_present_optional_operand_of_unknown_dims_is_checked_when_run(registry: Registry) -> None:
    program = (
        "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32], %b: Tensor[(?,), float32]) "
        "{ my.linear(%x, %w, %b) }"
    )
    assert gradual.check(program, registry=registry).ok
    x, w = np.ones((2, 3), "float32"), np.ones((4, 3), "float32")
    with pytest.raises(CheckFailure):
        gradual.run(program, {"x": x, "w": w, "b": np.ones(5, "float32")}, registry=registry)


def test_a_condition_on_an_absent_operand_holds(registry: Registry) -> None:
    absent = "def @main(%x: Tensor[(2, 3), float32]) { my.scaled(%x, ()) }"
    assert gradual.check(absent, registry=registry).ok
    wrong = "def @main(%x: Tensor[(2, 3), float32], %s: Tensor[(3,), float32]) { my.scaled(%x, %s) }"
    ((code, message),) = _errors(wrong, registry)
    assert code == codes.RANK_MISMATCH and "rank(%s) == rank(%x)" in message


def test_a_list_operand_takes_any_length_of_its_field_type(registry: Registry) -> None:
    program = "def @main(%x: Tensor[(2, 3), float32], %a: int64, %b: int64) { my.reshape(%x, (%a, %b)) }"
    assert gradual.check(program, registry=registry).ok
    (out,) = gradual.run(
        program, {"x": np.ones((2, 3), "float32"), "a": np.int64(3), "b": np.int64(2)}, registry=registry
    )
    assert out.shape == (3, 2)
    floats = "def @main(%x: Tensor[(2, 3), float32], %a: float32) { my.reshape(%x, (%a, %a)) }"
    assert [c for c, _ in _errors(floats, registry)] == [codes.DTYPE_MISMATCH]
    vectors = "def @main(%x: Tensor[(2, 3), float32], %a: Tensor[(2,), int64]) { my.reshape(%x, (%a,)) }"
    assert [c for c, _ in _errors(vectors, registry)] == [codes.RANK_MISMATCH]
    tensor = "def @main(%x: Tensor[(2, 3), float32], %a: Tensor[(2,), int64]) { my.reshape(%x, %a) }"
    assert [c for c, _ in _errors(tensor, registry)] == [codes.TYPE_MISMATCH]


def test_a_contract_reads_a_list_operands_length(registry: Registry) -> None:
    program = "def @main(%x: Tensor[(6,), float32], %a: int64) { my.reshape(%x, (%a, %a, %a)) }"
    ((code, message),) = _errors(program, registry)
    assert code == codes.RANK_MISMATCH
    assert "len(%size) <= rank(%x) + 1" in message and "len(%size) is 3" in message


def test_the_forms_print_as_declared(registry: Registry) -> None:
    op = registry.get("my.linear")
    assert op is not None and op.signature_text.endswith("%b: Tensor[(u,), T]?) -> Tensor[(n, u), T]")
    reshape = registry.get("my.reshape")
    assert reshape is not None and "%size: [" in reshape.signature_text
    with pytest.raises(ValueError, match="len"):
        gradual.register_op("def my.bad[T](%x: Tensor[*, T]) -> Tensor[*, T] where len(%x) == 1;", registry=Registry())
