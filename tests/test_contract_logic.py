"""The contract logic (docs/contracts.md): `or`, `and`, `not`, `present(x)` and the quantifiers
`all(c for e in xs)` / `any(...)` over a list operand, a list attribute or an integer range.

The property: a contract drawn from the logic is evaluated the same way by the checker and by
the runtime. On a program whose types are static, the checker's verdict (a contract error, or
clean) is the runtime's (a check failure before the kernel, or a result); on the same program
with unknown ranks, the runtime decides as before, and a static error means no run can pass."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradual
from gradual.diagnostics import codes
from gradual.ops.registry import Registry, StdlibError, default_registry
from gradual.runtime.errors import CheckFailure

SIGNATURE = (
    "def t.op[T](%x: Tensor[*, T], %xs: [Tensor[*, T]], %w: Tensor[*, T]?, k: int = 0, ks: [int] = [1], "
    "m: int? = None) -> Tensor[*, T]"
)
EXAMPLES = int(os.environ.get("GRADUAL_CONTRACT_EXAMPLES", "40"))
DEEP_EXAMPLES = int(os.environ.get("GRADUAL_CONTRACT_DEEP_EXAMPLES", "400"))
CONTRACT_CODES = {codes.OP_CONSTRAINT, codes.BAD_ATTRIBUTE, codes.RANK_MISMATCH, codes.SHAPE_MISMATCH}

# terms and atoms of the drawn contracts ----------------------------------------------------------
_TERMS = st.sampled_from(["k", "m", "rank(%x)", "len(ks)", "len(%xs)", "rank(%xs[0])", "rank(%w)", "dim(%x, 0)", "1"])
_CMP = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


@st.composite
def _atom(draw: Any) -> str:
    kind = draw(st.integers(0, 7))
    if kind == 0:
        return f"present({draw(st.sampled_from(['m', '%w']))})"
    if kind == 1:
        return f"all(rank(e) {draw(_CMP)} {draw(_TERMS)} for e in %xs)"
    if kind == 2:
        return f"any(s {draw(_CMP)} {draw(_TERMS)} for s in ks)"
    if kind == 3:
        return f"all(dim(%x, i) {draw(_CMP)} {draw(st.integers(0, 2))} for i in 0 .. rank(%x) - 1)"
    if kind == 4:
        return f"k in {{{', '.join(str(v) for v in draw(st.sets(st.integers(-1, 3), min_size=1, max_size=3)))}}}"
    return f"{draw(_TERMS)} {draw(_CMP)} {draw(_TERMS)}"


def _condition(depth: int) -> Any:
    if depth == 0:
        return _atom()
    inner = _condition(depth - 1)
    return st.one_of(
        _atom(),
        st.tuples(inner, st.sampled_from(["or", "and"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda c: f"not {c}"),
    )


# values ----------------------------------------------------------------------------------------
_SHAPES = st.lists(st.integers(0, 2), max_size=3).map(tuple)


@st.composite
def _call(draw: Any) -> dict:
    return {
        "x": draw(_SHAPES),
        "xs": draw(st.lists(_SHAPES, max_size=3)),
        "w": draw(st.none() | _SHAPES),
        "k": draw(st.integers(-1, 3)),
        "ks": draw(st.lists(st.integers(-1, 3), max_size=3)),
        "m": draw(st.none() | st.integers(-1, 3)),
    }


def _type(shape: tuple, static: bool) -> str:
    if not static:
        return "Tensor[*, float32]"
    return f"Tensor[({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), float32]"


def _program(call: dict, static: bool) -> tuple[str, dict]:
    params = [f"%x: {_type(call['x'], static)}"]
    inputs = {"x": np.zeros(call["x"], "float32")}
    fields = []
    for i, shape in enumerate(call["xs"]):
        params.append(f"%a{i}: {_type(shape, static)}")
        inputs[f"a{i}"] = np.zeros(shape, "float32")
        fields.append(f"%a{i}")
    xs = "()" if not fields else f"({', '.join(fields)}{',' if len(fields) == 1 else ''})"
    w = "()"
    if call["w"] is not None:
        params.append(f"%w: {_type(call['w'], static)}")
        inputs["w"] = np.zeros(call["w"], "float32")
        w = "%w"
    attrs = [f"k={call['k']}", f"ks=[{', '.join(map(str, call['ks']))}]"]
    if call["m"] is not None:
        attrs.append(f"m={call['m']}")
    return f"def @main({', '.join(params)}) {{ t.op(%x, {xs}, {w}, {', '.join(attrs)}) }}", inputs


def _registry(condition: str) -> Registry:
    registry = Registry()
    registry.ops.update(default_registry().ops)

    def identity(x: np.ndarray, xs: Any, w: Any, **attrs: Any) -> np.ndarray:
        return x

    gradual.register_op(f"{SIGNATURE} where {condition};", kernel=identity, registry=registry)
    return registry


def _verdict(program: str, inputs: dict, registry: Registry) -> tuple[bool, bool]:
    """(checks clean, runs to a result); a clean program that stops does so at a check."""
    result = gradual.check(program, registry=registry)
    assert not any(d.code == codes.INTERNAL_ERROR for d in result.diagnostics), result.diagnostics
    if not result.ok:
        assert {d.code for d in result.errors} <= CONTRACT_CODES | {codes.TYPE_MISMATCH}, result.diagnostics
        return False, False
    try:
        gradual.run(program, inputs, registry=registry)
    except CheckFailure:
        return True, False
    return True, True


def _decide_alike(condition: str, calls: list) -> None:
    registry = _registry(condition)
    for call in calls:
        program, inputs = _program(call, static=True)
        checked, ran = _verdict(program, inputs, registry)
        assert checked == ran, (condition, program, checked, ran)
        dynamic, dynamic_inputs = _program(call, static=False)
        dyn_checked, dyn_ran = _verdict(dynamic, dynamic_inputs, registry)
        if dyn_checked:
            assert dyn_ran == ran, (condition, dynamic)  # the runtime decides on the values alone
        else:
            assert not ran, (condition, dynamic)  # a static error only where no run passes


_CONTRACTS = st.integers(0, 2).flatmap(_condition)
_CALLS = st.lists(_call(), min_size=4, max_size=4)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(_CONTRACTS, _CALLS)
def test_the_checker_and_the_runtime_decide_a_contract_alike(condition: str, calls: list) -> None:
    _decide_alike(condition, calls)


@pytest.mark.deep
@settings(max_examples=DEEP_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(_CONTRACTS, _CALLS)
def test_the_checker_and_the_runtime_decide_a_contract_alike_deep(condition: str, calls: list) -> None:
    _decide_alike(condition, calls)


def _errors(condition: str, program: str) -> list:
    return [(d.code, d.message) for d in gradual.check(program, registry=_registry(condition)).errors]


def test_a_failing_entry_is_named() -> None:
    program = (
        "def @main(%x: Tensor[(2,), float32], %a: Tensor[(2, 3), float32], %b: Tensor[(4,), float32]) "
        "{ t.op(%x, (%a, %b), ()) }"
    )
    ((code, message),) = _errors("all(rank(e) == rank(%xs[0]) for e in %xs)", program)
    assert code == codes.RANK_MISMATCH
    assert "but e = %xs[1], rank(e) is 1, rank(%xs[0]) is 2" in message
    program = "def @main(%x: Tensor[(2,), float32]) { t.op(%x, (), (), ks=[1, 0, 2]) }"
    ((code, message),) = _errors("all(s >= 1 for s in ks)", program)
    assert code == codes.BAD_ATTRIBUTE and "s = ks[1] = 0" in message


def test_or_not_and_present() -> None:
    program = "def @main(%x: Tensor[(2, 3), float32]) { t.op(%x, (), (), k=5) }"
    assert not _errors("k <= rank(%x) or present(m)", program.replace("k=5", "k=5, m=1"))
    ((code, message),) = _errors("k <= rank(%x) or present(m)", program)
    assert code == codes.OP_CONSTRAINT and "k is 5, rank(%x) is 2, present(m) is False" in message
    assert not _errors("not present(%w) or rank(%w) == 1", program)
    bad = "def @main(%x: Tensor[(2, 3), float32]) { t.op(%x, (), %x) }"
    assert [c for c, _ in _errors("not present(%w) or rank(%w) == 1", bad)] == [codes.RANK_MISMATCH]


def test_a_quantified_condition_of_unknown_entries_waits_for_runtime() -> None:
    condition = "all(rank(e) == 2 for e in %xs) and len(%xs) >= 1"
    program = "def @main(%x: Tensor[(2,), float32], %a: Tensor[*, float32]) { t.op(%x, (%a,), ()) }"
    assert not _errors(condition, program)
    registry = _registry(condition)
    x = np.zeros(2, "float32")
    gradual.run(program, {"x": x, "a": np.zeros((1, 1), "float32")}, registry=registry)
    with pytest.raises(CheckFailure):
        gradual.run(program, {"x": x, "a": np.zeros(1, "float32")}, registry=registry)


@pytest.mark.parametrize(
    "condition",
    [
        "all(rank(e) >= 0 for e in %nope)",  # no such operand
        "all(e >= 0 for e in k)",  # not a list attribute
        "all(k >= 0 for k in ks)",  # the name is taken
        "present(k)",  # k is not optional
        "rank(e) >= 0",  # e is bound nowhere
    ],
)
def test_a_contract_that_names_what_it_does_not_have_is_refused(condition: str) -> None:
    with pytest.raises((StdlibError, ValueError)):
        _registry(condition)


def test_the_logic_prints_as_parsed() -> None:
    from gradual.syntax.parser import parse_stdlib_source
    from gradual.syntax.printer import format_condition
    from gradual.syntax.source import Source

    written = [
        "not present(m) or k in -rank(%x) .. rank(%x) - 1",
        "(k >= 0 or k == -1) and not (present(%w) and rank(%w) > 2)",
        "all(dim(e, 0) == dim(%xs[0], 0) for e in %xs)",
        "any(s == 1 for s in ks) or all(dim(%x, i) >= 1 for i in 0 .. rank(%x) - 1)",
    ]
    for text in written:
        module = parse_stdlib_source(Source(f"{SIGNATURE} where {text};", "t"))
        (node,) = module.defs[0].where
        assert format_condition(node) == text


@pytest.mark.parametrize("condition", ["k == dim(%x, 0)", "dim(%x, -1) >= 2", "k + 1 < dim(%x, 1)"])
def test_a_dim_outside_the_rank_names_nothing_whether_the_rank_is_known_or_not(condition: str) -> None:
    """A scalar has no dim 0: the comparison holds, statically and at runtime, and the same
    program with the rank left unknown is not held to a rank it never needed."""
    call = {"x": (), "xs": [], "w": None, "k": 1, "ks": [], "m": None}
    _decide_alike(condition, [call])
    program, inputs = _program(call, static=False)
    assert _verdict(program, inputs, _registry(condition)) == (True, True)
