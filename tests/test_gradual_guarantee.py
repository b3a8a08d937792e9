"""The gradual guarantees and conservative extension as properties of random programs.

* Static gradual guarantee: making annotations less precise (a dim to `?`, a static dim to an
  interval around it, an interval wider, a shape to `Tensor[*, dtype]`) never turns a program
  that checks into one that does not, and no inferred type becomes more precise
  (`tracing.precision_problem`: dims compared with `Dimension.relaxes`).
* Dynamic gradual guarantee: on inputs where the precise program runs, the less precise one
  runs too and computes the same outputs.
* Conservative extension: a program whose parameters are all static (and whose shapes do not
  depend on data) gets no runtime check, and every type the checker infers is the static
  shape the value has: what a static checker would say.
* Hints never fail (spec §3.5): a program checks with its `can_unify` hints as it does
  without them, whatever the values its hinted loops are called with, and runs alike; a
  parameter to infer written `%x: ?T` is inferred (and its hint used) as `%x` is.

A dim that introduces an existential name (`let %v: Tensor[(b, 4), ...]`, `b` new) is a
binder, not a precision annotation, and is never relaxed. Bound to a dim the checker knows, the
name is that dim (`b` of a (2, 4) value is 2), as a relaxed `?` would reveal it; bound from
`?`, it names a value the precise program may know exactly, so it counts as general. A bound
the body checks of a rigid signature symbol (`m >= 1` for a pad by -1) is learned into the
signature (`FuncType.requires`), as the same check refines a `?` dim to `1..`. The two tests at
the end pin both.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from programs import STATIC, SYMBOLIC, Draw, Program, Spelled, Variant, consistent_inputs, programs, relax
from tracing import precision_problem, run_outcome, same_outputs

import gradual
from gradual.shapes import Dimension
from gradual.syntax import ast
from gradual.types import FuncType, TensorType, TupleType


def examples(count: int) -> settings:
    return settings(
        max_examples=count,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def checked(program: Program, variant: Variant) -> gradual.CheckResult:
    text = program.text(variant)
    result = gradual.check(text)
    assert result.ok, f"{variant.name} variant rejected:\n{text}\n" + "\n".join(
        f"{d.line}:{d.column} {d.message}" for d in result.errors
    )
    return result


def let_names(text: str) -> list:
    """The variables bound by lets and graph bindings in a program text."""
    return re.findall(r"(?:let )?%(v\d+)(?::[^=]*)? = ", text)


def closure_symbols(result: gradual.CheckResult, definition: str, text: str) -> frozenset:
    """The names the closures a definition binds (`%f12 = fn ...`) quantify over: the closure's
    own type (a let's annotation, `let %f: fn (...) -> ... = fn ...`, does not show them)."""
    names: set = set()
    wanted = set(re.findall(r"%(f\d+)(?::[^=]*)? = fn", text))
    d = result.module.find(definition) if result.module is not None else None
    stack: list = [d.body] if d is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Let) and node.var.name in wanted and isinstance(node.value, ast.Fn):
            t = result.types.get(id(node.value))
            if isinstance(t, FuncType):
                names |= {s.name for s in t.dim_params}
        if isinstance(node, ast.Node):
            stack.extend(getattr(node, f) for f in getattr(node, "__dataclass_fields__", {}) if f != "span")
        elif isinstance(node, tuple):
            stack.extend(node)
    return frozenset(names)


def precision_problems(program: Program, tight: gradual.CheckResult, loose: gradual.CheckResult) -> list:
    """Every function type and binding type of `loose` that is more precise than in `tight`."""
    problems = []
    names = let_names(program.text(SYMBOLIC))
    existentials = frozenset(s.name for symbols in loose.resolution.introduced.values() for s in symbols)
    for d in program.defs:
        fn = loose.function_type(d.name)
        found = precision_problem(fn, tight.function_type(d.name))
        if found:
            problems.append(f"@{d.name}: {found}")
        general = frozenset(s.name for s in fn.dim_params)  # the definition's own (generalized) symbols
        # and a closed closure's: an unannotated parameter made equal to a relaxed sibling's `?`
        # is generalized to a symbol of the closure (`n` where the precise program had 1), which
        # each call instantiates (its callers see what they saw), as a definition's is
        general |= closure_symbols(loose, d.name, program.text(SYMBOLIC))
        # a name the relaxed program's annotation binds from `?` stands for what the precise
        # program knows exactly (which then names it by that dim: `b` of a (2, 4) value is 2)
        general |= existentials
        for v in names:
            t = tight.binding_type(d.name, v)
            found = precision_problem(loose.binding_type(d.name, v), t, general) if t is not None else None
            if found:
                problems.append(f"@{d.name} %{v}: {found}")
    return problems


# static gradual guarantee ---------------------------------------------------------------------------
def static_guarantee(program: Program, seed: int, relaxations: int = 2) -> None:
    for base in (SYMBOLIC, STATIC):
        tight = checked(program, base)
        for k in range(relaxations):
            variant = relax(program, Draw(seed=seed + k), base)
            loose = gradual.check(program.text(variant))
            assert loose.ok, (
                f"relaxing {base.name} ({variant.describe()}) made the program fail:\n{program.text(variant)}\n"
                + "\n".join(f"{d.line}:{d.column} {d.message}" for d in loose.errors)
            )
            problems = precision_problems(program, tight, loose)
            assert not problems, "\n".join(problems) + f"\n{program.text(base)}\n--- relaxed\n{program.text(variant)}"


@examples(250)
@given(programs(), st.integers(0, 2**16))
def test_less_precise_annotations_never_reject_or_sharpen(program: Program, seed: int) -> None:
    static_guarantee(program, seed)


@pytest.mark.deep
@examples(2000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_less_precise_annotations_never_reject_or_sharpen_deep(program: Program, seed: int) -> None:
    static_guarantee(program, seed, relaxations=4)


# dynamic gradual guarantee ---------------------------------------------------------------------------
def dynamic_guarantee(program: Program, seed: int, runs: int = 2) -> None:
    rng = np.random.default_rng(seed)
    for base in (SYMBOLIC, STATIC):
        tight = checked(program, base)
        loose_variant = relax(program, Draw(seed=seed), base)
        loose = checked(program, loose_variant)
        for inputs in [program.intended_inputs()] + [consistent_inputs(program, base, rng) for _ in range(runs)]:
            precise = run_outcome(tight, inputs, traced=False)
            if not precise.ok:
                continue
            relaxed = run_outcome(loose, inputs)
            assert relaxed.ok and same_outputs(precise.outputs, relaxed.outputs), (
                f"{base.name} ran ({precise.describe()}) but the relaxed program gave {relaxed.describe()}\n"
                f"inputs { ({k: v.shape for k, v in inputs.items()}) }\n{program.text(base)}\n--- relaxed\n"
                f"{program.text(loose_variant)}"
            )


@examples(250)
@given(programs(), st.integers(0, 2**16))
def test_less_precise_programs_compute_the_same_outputs(program: Program, seed: int) -> None:
    dynamic_guarantee(program, seed)


@pytest.mark.deep
@examples(2000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_less_precise_programs_compute_the_same_outputs_deep(program: Program, seed: int) -> None:
    dynamic_guarantee(program, seed, runs=5)


@examples(100)
@given(programs(focus="edges"), st.integers(0, 2**16))
def test_less_precise_programs_compute_the_same_outputs_at_the_edges(program: Program, seed: int) -> None:
    """The same, on programs rich in slices that reach past a dim's end and in empty tensors
    reshaped: a `?` there must not reject what the static program runs."""
    dynamic_guarantee(program, seed)


# conservative extension --------------------------------------------------------------------------------
def static_dims(t: object) -> bool:
    """Every dim of every tensor in the type is a known size, every rank is known."""
    from gradual.types import FuncType

    if isinstance(t, TupleType):
        return all(static_dims(f) for f in t.fields)
    if isinstance(t, FuncType):
        return all(static_dims(p) for p in t.params) and static_dims(t.ret)
    if isinstance(t, TensorType):
        return t.dims is not None and all(isinstance(d, Dimension) and d.is_static for d in t.dims)
    return False


def conservative_extension(program: Program) -> None:
    assume("unannotated-param" not in program.features and "polymorphic-helper" not in program.features)
    result = checked(program, STATIC)
    text = program.text(STATIC)
    assert result.check_count == 0, (
        f"{result.check_count} checks in a static program:\n{gradual.elaborate_text(result)}"
    )
    for d in program.defs:
        t = result.function_type(d.name)
        assert static_dims(t), f"@{d.name}: {t}\n{text}"
    for (fn, var), val in program.bindings.items():
        t = result.binding_type(fn, var)
        if val.dims is None or not isinstance(t, TensorType):
            continue
        shape = tuple(d.get_length() if d.is_static else d for d in t.dims or ())
        assert t.dims is not None and shape == val.shape, (
            f"@{fn} %{var}: {t}, but its value has shape {val.shape}\n{text}"
        )


@examples(400)
@given(programs(precise=True))
def test_static_programs_get_no_checks_and_static_types(program: Program) -> None:
    conservative_extension(program)


@pytest.mark.deep
@examples(3000)
@given(programs(precise=True, max_steps=10))
def test_static_programs_get_no_checks_and_static_types_deep(program: Program) -> None:
    conservative_extension(program)


# hints and parameters to infer ------------------------------------------------------
def hints_are_guesses(program: Program) -> None:
    for base in (SYMBOLIC, STATIC):
        hinted = checked(program, base)
        bare = checked(program, Spelled(base, hints=False))
        holes = checked(program, Spelled(base, holes=True))
        # a claimed dim the program constrains warns (spec §6) with holes or without
        expected = {d.message for d in hinted.warnings if d.code == "dim-constraint"}
        assert {d.message for d in holes.warnings} <= expected, [d.message for d in holes.warnings]
        for d in program.defs:
            assert str(holes.function_type(d.name)) == str(hinted.function_type(d.name)), (
                f"@{d.name}: %x: ?T gives {holes.function_type(d.name)}, %x gives {hinted.function_type(d.name)}\n"
                + program.text(Spelled(base, holes=True))
            )
        with_hints = run_outcome(hinted, program.intended_inputs())
        without = run_outcome(bare, program.intended_inputs(), traced=False)
        assert with_hints.ok and without.ok and same_outputs(with_hints.outputs, without.outputs), (
            f"{with_hints.describe()} with hints, {without.describe()} without\n{program.text(base)}"
        )


@examples(150)
@given(programs(focus="hints"))
def test_hints_never_fail_and_holes_are_inferred_alike(program: Program) -> None:
    hints_are_guesses(program)


@pytest.mark.deep
@examples(1500)
@given(programs(max_steps=10, focus="hints"))
def test_hints_never_fail_and_holes_are_inferred_alike_deep(program: Program) -> None:
    hints_are_guesses(program)


# binders ------------------------------------------------------------------------------------------------
def test_relaxing_an_existential_binder_does_not_sharpen_types() -> None:
    """`b` bound to a dim the checker knows is that dim (it was a name that hid it: the relaxed
    `?` revealed the 2 and the precise program said `?`)."""
    tight = gradual.check(
        "def @main(%x: Tensor[(2, 4), float32]) {\n  let %y: Tensor[(b, 4), float32] = nn.relu(%x);\n  %y\n}\n"
    )
    loose = gradual.check(
        "def @main(%x: Tensor[(2, 4), float32]) {\n  let %y: Tensor[(?, 4), float32] = nn.relu(%x);\n  %y\n}\n"
    )
    assert tight.ok and loose.ok
    assert str(tight.function_type("main")) == "fn (Tensor[(2, 4), float32]) -> Tensor[(2, 4), float32]"
    assert str(loose.function_type("main")) == "fn (Tensor[(2, 4), float32]) -> Tensor[(2, 4), float32]"
    assert precision_problem(loose.function_type("main"), tight.function_type("main")) is None


def test_a_bound_checked_on_a_signature_symbol_reaches_callers() -> None:
    body = "  %a = nn.pad(%x, 0f, pad_width=[[0, 0], [0, -1]]);\n  nn.relu(%x)\n}\n"
    main = "def @main(%y: Tensor[(?, ?), float32]) { @h(%y) }\n"
    tight = gradual.check("def @h(%x: Tensor[(n, m), float32]) {\n" + body + main)
    loose = gradual.check("def @h(%x: Tensor[(n, ?), float32]) {\n" + body + main)
    assert tight.ok and loose.ok
    assert precision_problem(loose.function_type("main"), tight.function_type("main")) is None


def test_a_closed_closures_own_symbols_count_as_general() -> None:
    """Relaxing a sibling makes an unannotated closure parameter a symbol of the closure (`n`
    where the precise program knew 1), instantiated at each call: its callers see what they
    saw, and inside it `n` is general, as a definition's own symbols are (the deep "never
    sharpen" property flagged it)."""
    program = (
        "def @main(%x: Tensor[(1, 1), float32], %y: Tensor[(1, 1, 2, 2), float32]) {\n"
        "  let %f1 = fn (%a, %b: Tensor[(1, 1, 2, 2), float32]) {\n"
        "    %g = fn (%c: Tensor[(1, 1), float32]) { %c };\n"
        "    %u = %g(%a);\n    let %v2 = nn.relu(%a);\n    %v2\n  };\n"
        "  let %v3 = %f1(%x, %y);\n  %v3\n}\n"
    )
    tight = gradual.check(program)
    loose = gradual.check(program.replace("%c: Tensor[(1, 1)", "%c: Tensor[(?, 1)"))
    assert tight.ok and loose.ok
    assert str(loose.binding_type("main", "v2")) == "Tensor[(n, 1), float32]"
    assert str(loose.binding_type("main", "v3")) == "Tensor[(1, 1), float32]"
    general = closure_symbols(loose, "main", program)
    assert general == {"n"}
    assert precision_problem(loose.binding_type("main", "v2"), tight.binding_type("main", "v2"), general) is None
    assert precision_problem(loose.binding_type("main", "v2"), tight.binding_type("main", "v2")) is not None


def test_a_typed_closures_own_symbols_count_as_general() -> None:
    """The same where the let writes the closure's function type: the names are the closure's
    own type's, not the annotation's (the deep property found it with an interval `..1`)."""
    program = (
        "def @h(%p: Tensor[(2, 1), float32]) { nn.relu(%p) }\n"
        "def @main(%x: Tensor[(2, 1), float32]) {\n"
        "  let %f1: fn (Tensor[(2, 1), float32]) -> Tensor[(?, ?), float32] = fn (%a) {\n"
        "    let %v2 = @h(%a);\n    let %v3 = nn.relu(%a);\n    %v3\n  };\n"
        "  %f1(%x)\n}\n"
    )
    tight = gradual.check(program)
    loose = gradual.check(program.replace("%p: Tensor[(2, 1)", "%p: Tensor[(2, ..1)"))
    assert tight.ok and loose.ok
    assert str(loose.binding_type("main", "v3")) == "Tensor[(2, n), float32]"
    assert closure_symbols(loose, "main", program) == {"n"}
    assert precision_problem(loose.binding_type("main", "v3"), tight.binding_type("main", "v3"), {"n"}) is None
