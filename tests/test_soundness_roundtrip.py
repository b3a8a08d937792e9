"""Elaborated programs round-trip: `gradual.elaborate_text` prints a
program that parses, prints back to itself, checks again with the same function types, and
runs exactly like the elaborated module it was printed from (the same outputs, or the same
failed check: code, expected and actual types).

(`parse(print(ast)) == ast` for random syntax trees is tests/test_syntax_roundtrip.py.)

Checking the printed program again is not always clean: its inserted casts become written
casts whose binders (`d`, `d1`) are rigid names, where the original check only knew bounds,
and two rigid names never unify (a binder bound to a dim the checker knows is that dim, which
settles the example at the end; one bound to an interval is not). Errors of that kind, and only
those, are tolerated: each must name a symbol that elaboration invented. Knowing those names,
the re-checked program may also stop at a check of a call's argument where the original
stopped in that call's operator rule (`checked_sooner`).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from programs import SYMBOLIC, Draw, Program, consistent_inputs, programs, relax
from tracing import Outcome, run_outcome, same_outputs

import gradual
from gradual.runtime import Interpreter, run_elaborated
from gradual.runtime.values import flatten_outputs
from gradual.syntax import ast
from gradual.syntax.printer import format_module

NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\b")
DEF = re.compile(r"def (@[A-Za-z0-9_]+)")
BINDING = re.compile(r"\s*(?:let )?(%[A-Za-z0-9_]+)(?::[^=]*)? = ")


def examples(count: int) -> settings:
    return settings(
        max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
    )


def run_module(module: ast.Module, inputs: dict) -> Outcome:
    try:
        return Outcome(outputs=flatten_outputs(run_elaborated(module, dict(inputs))))
    except Exception as exc:  # noqa: BLE001 - compared below
        return Outcome(failure=exc)


def same_outcome(a: Outcome, b: Outcome) -> bool:
    """The same outputs, or failures with the same code, expected and actual types."""
    if a.ok or b.ok:
        return a.ok and b.ok and same_outputs(a.outputs, b.outputs)  # type: ignore[arg-type]
    fa, fb = a.failure, b.failure

    def key(f: object) -> tuple[object, ...]:
        return (type(f).__name__, getattr(f, "code", None), getattr(f, "expected", None), getattr(f, "actual", None))

    return key(fa) == key(fb)


def invented_names(source: str, elaborated: str) -> set:
    """Dimension names that elaboration introduced (in casts and inferred annotations)."""
    return set(NAME.findall(elaborated)) - set(NAME.findall(source))


def round_trip(program: Program, seed: int) -> None:
    variant = relax(program, Draw(seed=seed)) if seed % 2 else SYMBOLIC
    source = program.text(variant)
    result = gradual.check(source)
    assert result.ok, source
    text = gradual.elaborate_text(result)
    module = gradual.parse(text)
    assert format_module(gradual.parse(format_module(module))) == format_module(module), text
    again = gradual.check(text)
    if again.ok:
        for d in program.defs:
            assert str(again.function_type(d.name)) == str(result.function_type(d.name)), text
    else:
        invented = invented_names(source, text)
        for diag in again.errors:
            assert set(NAME.findall(diag.message)) & invented, f"{diag.line}:{diag.column} {diag.message}\n{text}"
    rng = np.random.default_rng(seed)
    for inputs in (program.intended_inputs(), consistent_inputs(program, variant, rng)):
        direct = run_outcome(result, inputs, traced=False)
        printed = run_module(module, inputs)
        assert same_outcome(direct, printed), f"{direct.describe()}\nvs printed: {printed.describe()}\n{text}"
        if again.ok:
            rechecked = run_outcome(again, inputs, traced=False)
            assert same_outcome(direct, rechecked) or checked_sooner(direct, rechecked), (
                f"{direct.describe()}\nvs re-checked: {rechecked.describe()}\n{text}"
            )


def checked_sooner(direct: Outcome, rechecked: Outcome) -> bool:
    """The re-checked program stopped at a check it inserted on an argument of the very call
    whose operator rule stopped the direct run. Its casts' binders are names there (`d`), where
    the original check knew only bounds, so it can check that argument (`%x as (d|1,)`) before
    the operator sees it: the same failure, found one step earlier. Or at one of that call's
    written casts (the elaborated ones, printed), whose binder such an inserted check bound
    first (found by outside pass 9 on a generated program: `nn.dense(%v as Tensor[*, ?],
    %p as Tensor[(4, d), ?])`)."""
    a, b = direct.failure, rechecked.failure
    if type(a).__name__ != "OperatorCheckFailure" or type(b).__name__ != "CheckFailure":
        return False
    kind = getattr(getattr(b, "blame", None), "kind", None)
    if kind not in ("inserted", "cast"):
        return False
    call, arg = a.span, b.span  # type: ignore[union-attr]  # in the source and in the printed text
    same_call = _statement_of(call) == _statement_of(arg)
    if kind == "cast":  # one of the call's own elaborated casts, written now, whose binder an
        return same_call  # earlier inserted check bound (`%p as (4, d)` after `%v as (.., d)`)
    return same_call and a.diagnostic().message.split("`")[1] in b.blame.reason  # type: ignore[union-attr]


def _statement_of(span: Any) -> tuple:
    """Where a span is, in terms both texts share: the definition it is in and the variable its
    line binds (`%v10`), or its line number there when the line binds none (elaboration may
    print an `if` over more lines than its source had, so lines alone do not correspond)."""
    text = span.source.text
    start = text.rfind("\n", 0, span.start) + 1
    end = text.find("\n", span.start)
    line = text[start : end if end >= 0 else len(text)]
    definition = DEF.findall(text, 0, span.start)
    bound = BINDING.match(line)
    return (
        definition[-1] if definition else None,
        bound.group(1) if bound else text.count("\n", text.rfind("def @", 0, span.start), span.start),
    )


@examples(250)
@given(programs(), st.integers(0, 2**16))
def test_elaborated_programs_parse_check_and_run_alike(program: Program, seed: int) -> None:
    round_trip(program, seed)


@pytest.mark.deep
@examples(2000)
@given(programs(max_steps=10), st.integers(0, 2**16))
def test_elaborated_programs_parse_check_and_run_alike_deep(program: Program, seed: int) -> None:
    round_trip(program, seed)


def test_an_elaborated_program_with_two_binders_checks_again() -> None:
    """The printed binder d1 names the sum's dim, which the cast of %x bound to d: a name bound
    to a dim the checker knows is that dim (Env.alias), so the two binders agree."""
    result = gradual.check(
        "def @main(%x: Tensor[(1, 3..4, 3), float32], %y: Tensor[(1, 3..4, 3), float32]) {\n"
        "  %a = add(%x, %y);\n  %f = reshape(%a, newshape=[-1]);\n  reshape_like(%f, %a)\n}\n"
    )
    assert result.ok
    text = gradual.elaborate_text(result)
    assert "%a as Tensor[(1, d1, 3), float32]" in text
    again = gradual.check(text)
    assert again.ok, [d.message for d in again.errors]


def test_elaborated_text_runs_like_the_elaborated_module() -> None:
    """A fixed example of the property: a check inserted for `?` fails alike in both."""
    result = gradual.check("def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) { add(%x, %y) }")
    module = gradual.parse(gradual.elaborate_text(result))
    inputs = {"x": np.ones((2, 3), np.float32), "y": np.ones((2, 5), np.float32)}
    direct = Interpreter(gradual.elaborate(result))
    with pytest.raises(gradual.CheckFailure) as first:
        direct.run("main", dict(inputs))
    with pytest.raises(gradual.CheckFailure) as second:
        run_elaborated(module, inputs)
    assert (first.value.expected, first.value.actual) == (second.value.expected, second.value.actual)
    assert first.value.expected == "Tensor[(2, 5|1), float32]"
