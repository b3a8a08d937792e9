"""Extensibility (spec §3.10): a frontend registers operators at runtime with
`gradual.register_op` — a signature in the language, or a Python shape rule over the dimension
domain — plus a NumPy kernel, and checked programs use them like stdlib operators."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gradual
from gradual.diagnostics import codes
from gradual.ops.context import ShapeContext
from gradual.ops.messages import register_rule_message
from gradual.ops.registry import Registry, StdlibError, default_registry


@pytest.fixture()
def registry() -> Registry:
    """A registry with the stdlib operators, private to one test."""
    fresh = Registry()
    fresh.ops.update(default_registry().ops)
    return fresh


def function_type(program: str, registry: Registry, name: str = "main") -> str:
    result = gradual.check(program, registry=registry)
    assert result.ok, [d.message for d in result.diagnostics]
    return str(result.function_type(name))


# a signature-only operator --------------------------------------------------------------------
SWAP = "def my.swap[T](%x: Tensor[(n, m), T]) -> Tensor[(m, n), T];"


def test_a_signature_registered_at_runtime_is_the_shape_rule(registry: Registry) -> None:
    gradual.register_op(SWAP, kernel=np.transpose, registry=registry)
    program = "def @main(%x: Tensor[(b, 3), float32]) { nn.relu(my.swap(%x)) }"
    assert function_type(program, registry) == "fn (Tensor[(b, 3), float32]) -> Tensor[(3, b), float32]"


def test_a_registered_signature_reports_rank_errors(registry: Registry) -> None:
    gradual.register_op(SWAP, registry=registry)
    result = gradual.check("def @main(%x: Tensor[(2, 3, 4), float32]) { my.swap(%x) }", registry=registry)
    (error,) = result.errors
    assert error.code == codes.RANK_MISMATCH
    assert "`my.swap` needs rank 2" in error.message


def test_a_registered_signature_checks_unknown_dims_at_runtime(registry: Registry) -> None:
    gradual.register_op(
        "def my.square[T](%x: Tensor[(n, n), T]) -> Tensor[(n, n), T];", kernel=lambda x: x @ x, registry=registry
    )
    result = gradual.check("def @main(%x: Tensor[(3, ?), float32]) { my.square(%x) }", registry=registry)
    assert result.ok
    assert str(result.function_type("main")) == "fn (Tensor[(3, ?), float32]) -> Tensor[(3, 3), float32]"
    assert result.functions["main"].check_count == 1


def test_a_registered_kernel_runs(registry: Registry) -> None:
    gradual.register_op(SWAP, kernel=np.transpose, registry=registry)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = gradual.run("def @main(%x: Tensor[(b, 3), float32]) { my.swap(%x) }", {"x": x}, registry=registry)
    np.testing.assert_array_equal(out, x.T)


def test_registering_does_not_touch_the_default_registry(registry: Registry) -> None:
    gradual.register_op(SWAP, registry=registry)
    assert "my.swap" in registry
    assert "my.swap" not in default_registry()


def test_a_malformed_declaration_is_rejected(registry: Registry) -> None:
    with pytest.raises(StdlibError):
        gradual.register_op("def my.bad(%x: Tensor[(n,), float33]) -> Tensor[(n,), float33];", registry=registry)


# an operator with a Python shape rule -----------------------------------------------------------
register_rule_message(
    "test-space-to-depth",
    codes.SHAPE_MISMATCH,
    "{op} needs dim {axis} of {arg} to be a multiple of {block}, but it is {dim}",
    "pad the input to a multiple of {block}",
)


def space_to_depth(ctx: ShapeContext) -> Any:
    """(n, c, h, w) -> (n, c * b * b, h // b, w // b): the same rule in both domains."""
    (data,) = ctx.args
    block = ctx.attr("block")
    ctx.require_rank(data, 4)
    n, c, h, w = data.dims
    for axis, size in ((2, h), (3, w)):
        known = ctx.static(size)
        if known is not None and known % block:
            ctx.fail("test-space-to-depth", arg=data, axis=axis, block=block, dim=size)
        ctx.equal(size // block * block, size)
    return ctx.tensor([n, c * (block * block), h // block, w // block])


def space_to_depth_kernel(x: np.ndarray, *, block: int) -> np.ndarray:
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // block, block, w // block, block)
    return blocks.transpose(0, 3, 5, 1, 2, 4).reshape(n, c * block * block, h // block, w // block)


S2D = "def my.space_to_depth[T](%data: Tensor[*, T], block: int = 2) -> Tensor[*, T];"


def test_a_python_rule_registered_at_runtime_computes_symbolic_dims(registry: Registry) -> None:
    gradual.register_op(S2D, rule=space_to_depth, kernel=space_to_depth_kernel, registry=registry)
    program = "def @main(%x: Tensor[(n, 3, 2 * h, 2 * w), float32]) { my.space_to_depth(%x) }"
    assert (
        function_type(program, registry)
        == "fn (Tensor[(n, 3, 2 * h, 2 * w), float32]) -> Tensor[(n, 12, h, w), float32]"
    )


def test_a_python_rule_takes_attributes_and_static_dims(registry: Registry) -> None:
    gradual.register_op(S2D, rule=space_to_depth, registry=registry)
    program = "def @main(%x: Tensor[(1, 8, 12, 6), float32]) { my.space_to_depth(%x, block=3) }"
    assert function_type(program, registry) == "fn (Tensor[(1, 8, 12, 6), float32]) -> Tensor[(1, 72, 4, 2), float32]"


def test_a_python_rule_reports_its_own_diagnostic(registry: Registry) -> None:
    gradual.register_op(S2D, rule=space_to_depth, registry=registry)
    result = gradual.check("def @main(%x: Tensor[(1, 8, 5, 6), float32]) { my.space_to_depth(%x) }", registry=registry)
    (error,) = result.errors
    assert error.code == codes.SHAPE_MISMATCH
    assert (
        error.message
        == "`my.space_to_depth` needs dim 2 of the 1st argument to `my.space_to_depth` to be a multiple of 2, but it is 5"
    )
    assert error.help == "pad the input to a multiple of 2"


def test_a_python_rule_gives_dims_to_an_input_of_unknown_rank(registry: Registry) -> None:
    gradual.register_op(S2D, rule=space_to_depth, registry=registry)
    result = gradual.check("def @main(%x: Tensor[*, float32]) { my.space_to_depth(%x) }", registry=registry)
    assert result.ok
    assert result.functions["main"].check_count == 1


def test_a_registered_rule_and_kernel_run_together(registry: Registry) -> None:
    gradual.register_op(S2D, rule=space_to_depth, kernel=space_to_depth_kernel, registry=registry)
    program = "def @main(%x: Tensor[(n, 2, ?, 4), float32]) { my.space_to_depth(%x) }"
    x = np.random.default_rng(0).standard_normal((3, 2, 6, 4)).astype(np.float32)
    (out,) = gradual.run(program, {"x": x}, registry=registry)
    assert out.shape == (3, 8, 3, 2)
    np.testing.assert_array_equal(out, space_to_depth_kernel(x, block=2))


def test_the_same_rule_rejects_bad_sizes_at_runtime(registry: Registry) -> None:
    gradual.register_op(S2D, rule=space_to_depth, kernel=space_to_depth_kernel, registry=registry)
    program = "def @main(%x: Tensor[(n, 2, ?, 4), float32]) { my.space_to_depth(%x) }"
    with pytest.raises(gradual.RunFailure):
        gradual.run(program, {"x": np.zeros((1, 2, 5, 4), np.float32)}, registry=registry)


def test_a_rule_kernel_or_converter_defined_twice_is_refused() -> None:
    """A second definition under one name used to replace the first silently (a branch's
    converter of aten.index hid main's, its upsample converter main's)."""
    from gradual.frontends.torch_export.convert import special
    from gradual.ops.tables import shape_rule
    from gradual.runtime.kernels.registration import kernel

    for decorate in (shape_rule("broadcast"), kernel("add"), special("aten.add")):
        with pytest.raises(ValueError, match="twice|two"):
            decorate(lambda *args: None)


def test_a_declaration_of_an_operator_that_exists_is_refused_unless_replaced(registry: Registry) -> None:
    """Declaring `nn.relu` again replaced the stdlib's silently, for every later check in the
    process (in the default registry); registering `my.swap` again without its kernel dropped
    the kernel. Now a ValueError, unless `replace=True`."""
    gradual.register_op(SWAP, kernel=np.transpose, registry=registry)
    with pytest.raises(ValueError, match="`my.swap` is already an operator"):
        gradual.register_op(SWAP, registry=registry)
    assert registry.get("my.swap").kernel is np.transpose
    with pytest.raises(ValueError, match="`nn.relu` is already an operator"):
        gradual.register_op("def nn.relu(%x: Tensor[(n,), float32]) -> Tensor[(n,), float32];")
    replaced = gradual.register_op(
        "def nn.relu(%x: Tensor[(n,), float32]) -> Tensor[(n,), float32];", registry=registry, replace=True
    )
    assert registry.get("nn.relu") is replaced and default_registry().get("nn.relu") is not replaced


@pytest.mark.parametrize(
    "text, count", [("", 0), ("// a comment", 0), (SWAP + "\n" + SWAP.replace("swap", "swap2"), 2)]
)
def test_a_text_that_declares_no_operator_or_several_is_refused(registry: Registry, text: str, count: int) -> None:
    """It was `ValueError: not enough values to unpack`, or both operators were registered
    and then the call failed."""
    before = set(registry.ops)
    with pytest.raises(ValueError, match=f"takes one operator declaration; this text declares {count}"):
        gradual.register_op(text, registry=registry)
    assert set(registry.ops) == before
