"""Soundness (spec §3.9), blame and minimal checks (spec §3.8) as properties of random programs. Programs come from tests/programs.py; runs are instrumented by tests/tracing.py,
which compares every value the elaborated program computes with the type the checker
inferred for its expression.

* Well-typed programs run on the inputs they were generated for, every value inside its
  inferred type, and no check fails (every assumption the checker made holds on them).
* On random inputs that fit the parameter types, a run either succeeds (values inside their
  types) or stops at a check: an inserted one, an operator's rule at a call, or a written cast
  or annotated let. Never a kernel failure, an internal error, an inferred return type that
  does not hold, or an exception.
* A check is inserted only on a boundary that involves imprecision: a value whose type has no
  `?`, interval, unknown rank or dtype gets none, except a bounds check of a rigid symbol
  (`strided_slice` of `(b, s)` with `end=[5]` needs `s >= 5`); and once per value and fact.
* A check that fails is one the checker recorded, and the value really violates its type.
* A program with one parameter dim changed (perturbed) is rejected with located diagnostics
  or runs soundly on inputs that fit its new types.

`-m deep` runs the same properties on more and larger programs.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from programs import STATIC, SYMBOLIC, Draw, Program, Relaxed, consistent_inputs, perturb, programs, random_data, relax
from tracing import every_type_static, run_outcome

import gradual
from gradual.shapes import Dimension
from gradual.syntax import ast
from gradual.types import Broadcast, DTypeVar, DynType, FuncType, RefType, TensorType, TupleType


def examples(count: int) -> settings:
    return settings(
        max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
    )


def checked(program: Program, variant: object = SYMBOLIC) -> gradual.CheckResult:
    """The program under a variant, checked; the generator only makes well-typed programs."""
    text = program.text(variant)  # type: ignore[arg-type]
    result = gradual.check(text)
    assert result.ok, f"a generated program was rejected:\n{text}\n" + "\n".join(
        f"{d.line}:{d.column} {d.message}" for d in result.errors
    )
    return result


def same_shapes_new_data(program: Program, seed: int) -> dict:
    """The intended shapes with fresh random data (conditions keep their intended value)."""
    rng = np.random.default_rng(seed)
    inputs = program.intended_inputs()
    for p in program.main.params:
        if p.val.dtype != "bool":
            inputs[p.name] = random_data(p.val.shape, p.val.dtype, rng)
    return inputs


# intended inputs ----------------------------------------------------------------------------------
def intended_runs_cleanly(program: Program, seed: int) -> None:
    for variant in (SYMBOLIC, STATIC, relax(program, Draw(seed=seed))):
        result = checked(program, variant)
        for inputs in (program.intended_inputs(), same_shapes_new_data(program, seed)):
            outcome = run_outcome(result, inputs)
            assert outcome.ok, f"{variant.name}: {outcome.describe()}\n{program.text(variant)}"


@examples(250)
@given(programs(), st.integers(0, 2**16))
def test_well_typed_programs_run_on_the_inputs_they_were_made_for(program: Program, seed: int) -> None:
    intended_runs_cleanly(program, seed)


@pytest.mark.deep
@examples(2000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_well_typed_programs_run_on_the_inputs_they_were_made_for_deep(program: Program, seed: int) -> None:
    intended_runs_cleanly(program, seed)


# random inputs ---------------------------------------------------------------------------------------
def random_runs_stop_only_at_checks(program: Program, seed: int, runs: int = 3) -> None:
    rng = np.random.default_rng(seed)
    for variant in (SYMBOLIC, relax(program, Draw(seed=seed))):
        result = checked(program, variant)
        for _ in range(runs):
            inputs = consistent_inputs(program, variant, rng)
            outcome = run_outcome(result, inputs)
            assert outcome.ok or outcome.allowed_stop, (
                f"{variant.name}: {outcome.describe()}\ninputs { ({k: v.shape for k, v in inputs.items()}) }\n"
                + program.text(variant)
            )


@examples(100)  # minutes a hundred on one core: the 2,000 of the deep variant below run under -m deep
@given(programs(), st.integers(0, 2**16))
def test_runs_on_random_inputs_stop_only_at_checks(program: Program, seed: int) -> None:
    random_runs_stop_only_at_checks(program, seed)


@pytest.mark.deep
@examples(2000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_runs_on_random_inputs_stop_only_at_checks_deep(program: Program, seed: int) -> None:
    random_runs_stop_only_at_checks(program, seed, runs=6)


@examples(100)
@given(
    st.sampled_from(["expressions", "functions"]).flatmap(lambda focus: programs(focus=focus)), st.integers(0, 2**16)
)
def test_runs_stop_only_at_checks_with_expression_dims_and_function_arguments(program: Program, seed: int) -> None:
    """The same, on programs rich in helpers whose parameter dims are expressions of later
    parameters' symbols and in functions passed to helpers."""
    random_runs_stop_only_at_checks(program, seed)


@pytest.mark.deep
@examples(1000)
@given(
    st.sampled_from(["expressions", "functions"]).flatmap(lambda focus: programs(max_steps=10, focus=focus)),
    st.integers(0, 2**16),
)
def test_runs_stop_only_at_checks_with_expression_dims_and_function_arguments_deep(program: Program, seed: int) -> None:
    random_runs_stop_only_at_checks(program, seed, runs=6)


def other_dtypes_stop_only_at_checks(program: Program, seed: int) -> None:
    """Every dtype of main written `?`, and each parameter in turn given another dtype (int32
    for a float, float32 otherwise): the run ends, or stops at a check site, never in a kernel or at
    a callee's parameter no check site stated (outside pass 8: two `?` dtypes a helper's `T`
    made equal, `take` of float indices)."""
    params = [p for p in program.main.params if p.slot is not None]
    if not params:
        return
    variant = Relaxed(SYMBOLIC, {}, frozenset(), frozenset(p.slot.uid for p in params))
    result = checked(program, variant)
    rng = np.random.default_rng(seed)
    for changed in params:
        inputs = consistent_inputs(program, variant, rng)
        other = "int32" if changed.val.dtype.startswith("float") else "float32"
        inputs[changed.name] = random_data(inputs[changed.name].shape, other, rng)
        outcome = run_outcome(result, inputs)
        assert outcome.ok or outcome.allowed_stop, (
            f"%{changed.name} as {other}: {outcome.describe()}\n{program.text(variant)}"
        )


@examples(200)
@given(programs(), st.integers(0, 2**16))
def test_runs_with_other_dtypes_for_unknown_ones_stop_only_at_checks(program: Program, seed: int) -> None:
    other_dtypes_stop_only_at_checks(program, seed)


@pytest.mark.deep
@examples(1500)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_runs_with_other_dtypes_for_unknown_ones_stop_only_at_checks_deep(program: Program, seed: int) -> None:
    other_dtypes_stop_only_at_checks(program, seed)


# where checks go -----------------------------------------------------------------------------------
def imprecise(t: object) -> bool:
    """Whether a type has `?`, an interval, an unknown rank or dtype anywhere."""
    if t is None or isinstance(t, DynType):
        return True
    if isinstance(t, TupleType):
        return any(imprecise(f) for f in t.fields)
    if isinstance(t, FuncType):
        return any(imprecise(p) for p in t.params) or imprecise(t.ret)
    if isinstance(t, RefType):
        return imprecise(t.content)
    if isinstance(t, TensorType):
        if t.dims is None or t.dtype == "?" or isinstance(t.dtype, DTypeVar) and t.dtype.meta:
            return True
        return any(not isinstance(d, Dimension) or not d.is_exact for d in t.dims)
    return True


def bounds_only(value: object, check: object) -> bool:
    """Whether a check of a precise value only bounds rigid symbols or asks that a number
    divides one: every dim it changes is an interval at a symbolic dim of the value, or
    `c * (m // c)` at its `m` (field by field for a tuple)."""
    if isinstance(value, TupleType):
        return (
            isinstance(check, TupleType)
            and len(check.fields) == len(value.fields)
            and all(bounds_only(v, c) for v, c in zip(value.fields, check.fields))
        )
    if not isinstance(value, TensorType) or not isinstance(check, TensorType):
        return False
    if check.dims is None or len(check.dims) != len(value.dims):
        return False
    for have, want in zip(value.dims, check.dims):
        if isinstance(want, Dimension) and want.is_exact and str(want) == str(have):
            continue
        if isinstance(want, Dimension) and want.is_exact and have.is_symbolic and divisible_form(have, want):
            continue
        if isinstance(want, Broadcast) or not isinstance(want, Dimension) or want.is_exact or not have.is_symbolic:
            return False
    return True


def divisible_form(have: Dimension, want: Dimension) -> bool:
    """Whether `want` is `c * (have // c)` for a whole c > 1: a check that c divides a rigid
    size (design.md, divisibility)."""
    return any(str(want) == str((have // c) * c) for c in range(2, 65))


def enclosing_bodies(module: ast.Module) -> dict:
    """id of each node -> id of the innermost body (definition, branch, closure) holding it."""
    found: dict = {}
    stack: list = [(module, None)]
    while stack:
        node, body = stack.pop()
        if isinstance(node, ast.Body):
            body = id(node)
        if isinstance(node, ast.Node):
            found[id(node)] = body
            stack.extend((getattr(node, f), body) for f in getattr(node, "__dataclass_fields__", {}) if f != "span")
        elif isinstance(node, tuple):
            stack.extend((n, body) for n in node)
    return found


def checked_once(result: gradual.CheckResult, name: str) -> None:
    """spec §3.8: one check per value and fact: no variable is checked twice against the same
    type in the same body (a fact established by a check sticks to the variable). A check
    that binds a runtime symbol `d` (one per call, shared by the arguments that must be
    equal there) states an equality with the other arguments that mention that same symbol,
    so those partners are part of the fact."""
    bodies = enclosing_bodies(result.module)
    records = [r for r in result.checks(name) if r.inserted]  # a written check is the author's
    seen: dict = {}
    for record in records:
        if isinstance(record.node, ast.Var):
            key = (
                binder_of(result, record.node),
                str(record.type),
                bodies.get(id(record.node)),
                partners(result, record, records),
            )
            assert key not in seen, f"@{name} checks %{record.node.name} twice as {record.type}"
            seen[key] = record


def binder_of(result: gradual.CheckResult, node: object) -> Optional[int]:
    found = result.resolution.uses.get(id(node)) if isinstance(node, ast.Var) else None
    return id(found) if found is not None else None


def partners(result: gradual.CheckResult, record: object, records: list) -> frozenset:
    """The other checks sharing one of this check's runtime symbols, by variable and type."""
    own = runtime_symbols(record.type)
    if not own:
        return frozenset()
    found = frozenset(
        (binder_of(result, r.node), id(r.node) if binder_of(result, r.node) is None else 0, str(r.type))
        for r in records
        if r is not record and runtime_symbols(r.type) & own
    )
    # a partner whose cast only binds `d` records no check: the call is then what tells the facts apart
    return found or frozenset({record.reason})


def runtime_symbols(t: object) -> set:
    """The symbols a call's checks bind at runtime (named `d`, one per call) in a check type
    of a tensor or tuple (a function's contract shares none with other checks)."""
    return _d_symbols(t) if isinstance(t, (TensorType, TupleType)) else set()


def _d_symbols(t: object) -> set:
    """The runtime symbols (`d`) a type mentions anywhere, function types' parameters and
    results included."""
    from gradual.types import type_symbols

    return {s for s in type_symbols(t) if s.name == "d"}


def _relates_to_others(value: object, check: object) -> bool:
    """Whether a check of a value names runtime symbols (`d`, bound from another value's `?`
    dim where the program runs) its type does not have."""
    return bool(_d_symbols(check) - _d_symbols(value))


def checks_sit_at_imprecision(program: Program, seed: int) -> None:
    for variant in (SYMBOLIC, STATIC, relax(program, Draw(seed=seed))):
        result = checked(program, variant)
        for name in result.functions:
            checked_once(result, name)
            for record in result.checks(name):
                if not record.inserted:  # a write through a reference, or a written annotation or cast
                    value = result.type_of(record.node)
                    assert imprecise(record.type) or imprecise(value), (
                        f"{record.reason}: a {value} checked against the precise {record.type}"
                    )
                    continue
                t = result.type_of(record.node)
                if imprecise(t):
                    continue
                if _relates_to_others(t, record.type) or (isinstance(t, FuncType) and variant.name == "relaxed"):
                    continue  # what it checks comes from another value's `?`: `d // 2` is bound at runtime
                    # from another argument's unknown dim; a relaxed program's contract checks what the
                    # function is given (a precise variant's contracts are asserted)
                assert bounds_only(t, record.type), (
                    f"{variant.name}: @{name} checks {record.node.span.describe()} of precise type {t} "
                    f"as {record.type} ({record.reason})\n{program.text(variant)}"
                )


@examples(300)
@given(programs(), st.integers(0, 2**16))
def test_checks_sit_only_where_a_type_is_imprecise_and_once_per_fact(program: Program, seed: int) -> None:
    checks_sit_at_imprecision(program, seed)


@pytest.mark.deep
@examples(3000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_checks_sit_only_where_a_type_is_imprecise_and_once_per_fact_deep(program: Program, seed: int) -> None:
    checks_sit_at_imprecision(program, seed)


def violates(shape: tuple, t: object) -> Optional[bool]:
    """Whether a shape can never fit a check's type, judged here, apart from the runtime:
    True or False where the type has only static dims, intervals and `e|1` of those; None
    where it names symbols (their values live in the run)."""
    if not isinstance(t, TensorType):
        return None
    if t.dims is None:
        return False
    if len(t.dims) != len(shape):
        return True
    for size, d in zip(shape, t.dims):
        if isinstance(d, Broadcast):
            if size == 1:
                continue
            d = d.target
        if not isinstance(d, Dimension) or d.is_symbolic:
            return None
        if not d.contains_value(size):
            return True
    return False


def failures_blame_the_source(program: Program, seed: int) -> None:
    """A check that fails on random inputs is one the checker recorded (an inserted check
    fails at the span it blames, an operator's rule at a call) and the value really violates
    what it assumed; a written cast or annotated let that fails is one `checks` counts (spec §5.1: every check site that can fail at runtime)."""
    rng = np.random.default_rng(seed)
    variant = relax(program, Draw(seed=seed))
    text = program.text(variant)
    result = checked(program, variant)
    records = {(r.blame.start, r.blame.end): r for name in result.functions for r in result.checks(name)}
    counted = {
        (span.start, span.end)
        for name in result.functions
        for r in result.checks(name)
        for span in (r.blame, r.node.span)
    }
    for _ in range(3):
        outcome = run_outcome(result, consistent_inputs(program, variant, rng), traced=False)
        if outcome.ok:
            continue
        assert outcome.allowed_stop, outcome.describe()
        failure = outcome.failure
        span = failure.span  # type: ignore[union-attr]
        assert span.source.path == "<input>" and 0 <= span.start <= span.end <= len(text), outcome.describe()
        assert failure.diagnostic().code == "check-failed"  # type: ignore[union-attr]
        if failure.blame.kind in ("cast", "let"):  # type: ignore[union-attr]
            assert (span.start, span.end) in counted, (
                f"{outcome.describe()}: a check site `checks` does not count\n{text}"
            )
        if failure.blame.kind == "inserted":  # type: ignore[union-attr]
            record = records.get((span.start, span.end))
            assert record is not None, f"{outcome.describe()}: no check site blames {span.describe()}\n{text}"
            shape = failure.shape  # type: ignore[union-attr]
            if shape is not None and failure.mismatch.path == ():  # type: ignore[union-attr]
                verdict = violates(shape, record.type)
                assert verdict is not False, f"{outcome.describe()}: {shape} fits {record.type}\n{text}"


@examples(200)
@given(programs(), st.integers(0, 2**16))
def test_failed_checks_blame_a_place_in_the_program(program: Program, seed: int) -> None:
    failures_blame_the_source(program, seed)


# perturbed programs ---------------------------------------------------------------------------------
def rejected_or_sound(program: Program, seed: int) -> None:
    """A program with one parameter dim changed is rejected with located diagnostics, or it
    checks and runs soundly on inputs that fit its new types; a fully static one that checks
    without checks runs without failing (its checker accepted exactly what runs)."""
    rng = np.random.default_rng(seed)
    for base in (SYMBOLIC, STATIC):
        variant = perturb(program, Draw(seed=seed), base)
        text = program.text(variant)
        result = gradual.check(text)
        for d in result.diagnostics:
            assert d.code and 0 <= d.span.start <= d.span.end <= len(text), (d.message, text)
        if not result.ok:
            continue
        static = base is STATIC and all(t.isdigit() for t in getattr(variant, "dims", {}).values())
        quiet = (
            static
            and result.check_count == 0
            and not program.data_dependent
            and "unannotated-param" not in program.features
            and every_type_static(result)
        )
        for _ in range(2):
            outcome = run_outcome(result, consistent_inputs(program, variant, rng))
            assert outcome.ok or (outcome.allowed_stop and not quiet), f"{variant.name}: {outcome.describe()}\n{text}"


@examples(250)
@given(programs(), st.integers(0, 2**16))
def test_perturbed_programs_are_rejected_or_run_soundly(program: Program, seed: int) -> None:
    rejected_or_sound(program, seed)


@pytest.mark.deep
@examples(3000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_perturbed_programs_are_rejected_or_run_soundly_deep(program: Program, seed: int) -> None:
    rejected_or_sound(program, seed)


@examples(100)
@given(programs(focus="functions"), st.integers(0, 2**16))
def test_perturbed_function_types_are_rejected_or_run_soundly(program: Program, seed: int) -> None:
    """The same, on programs rich in functions passed to helpers: a dim of a function type
    changed makes a function that can never fit (a static error) or one that needs a contract."""
    rejected_or_sound(program, seed)


# the generator ------------------------------------------------------------------------------------
def test_the_generator_covers_the_operators_and_the_language() -> None:
    """Over 3,000 seeds the generator uses every operator of stdlib/ (the ONNX and ATen ones aside: they
    have their own conformance tests) and every language feature."""
    from pathlib import Path

    from programs import generate

    ops: set = set()
    features: set = set()
    for seed in range(3000):
        p = generate(seed)
        ops.update(p.ops)
        features.update(p.features)
    stdlib = Path(__file__).parent.parent / "stdlib"
    declared = {
        line[4:].split("(")[0].split("[")[0].strip()
        for path in stdlib.glob("*.rly")
        if not path.stem.startswith(("onnx", "aten", "prelude"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("def ")
    }
    assert declared - ops == set(), (
        f"operators the generator never uses (add them to tests/programs.py): {sorted(declared - ops)}"
    )
    assert {
        "if",
        "helper",
        "closure",
        "tuple",
        "cast",
        "annotated-let",
        "existential",
        "unannotated-param",
        "reference",
        "negative-attribute",
        "signed-value",
        "zero-dim",
        "split-at",
        "function-argument",
        "hidden-function",
        "expression-dims",
        "hinted-loop",
        "polymorphic-helper",
        "dynamic-elimination",
        "claimed",
        "typed-closure",
        "polymorphic-return-type",
        "generic-function-result",
        "chosen-function",
        "chosen-shape",
        "definition-value",
    } <= features
