"""Algebraic data types beyond the case files: the printer's round trip on generated ADT
programs, Relay's printed syntax, exhaustiveness against Relay's own answers, hover, the
prelude's loading, and the interpreter's stack use over a list (a 100,000-long list must fit
the recursion limit of the large-stack thread)."""

from __future__ import annotations

import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import gradual
from gradual.analysis import queries
from gradual.analysis.document import Document
from gradual.checker.adt import show_candidate, unmatched
from gradual.checker.adt_names import declare_types
from gradual.infra import deep
from gradual.runtime.interpreter import Interpreter
from gradual.runtime.values import GlobalFunction
from gradual.syntax import ast
from gradual.syntax.parser import parse
from gradual.syntax.printer import format_module

LIST = "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n"


# printing -------------------------------------------------------------------------------------
_CTOR_NAMES = ["Leaf", "Node", "Pair", "Empty", "One"]
_FIELD_TYPES = ["A", "int32", "Tensor[(?, 4), float32]", "(A, int32)", "fn (A) -> A"]


@st.composite
def adt_programs(draw: st.DrawFn) -> str:
    """A type definition with constructors of generated fields and a function matching on it
    with nested constructor, tuple, variable and wildcard patterns (`match` or `match?`)."""
    names = draw(st.lists(st.sampled_from(_CTOR_NAMES), min_size=1, max_size=4, unique=True))
    arities = {}
    ctors = []
    for name in names:
        fields = draw(st.lists(st.sampled_from(_FIELD_TYPES + ["T[A]"]), max_size=3))
        arities[name] = len(fields)
        ctors.append(f"{name}({', '.join(fields)})" if fields else name)
    counter = iter(range(1000))

    def pattern(depth: int) -> str:
        kind = draw(st.sampled_from(["wild", "var", "ctor", "tuple"] if depth < 2 else ["wild", "var"]))
        if kind == "wild":
            return "_"
        if kind == "var":
            return f"%v{next(counter)}"
        if kind == "tuple":
            return "(" + ", ".join(pattern(depth + 1) for _ in range(draw(st.integers(2, 3)))) + ")"
        name = draw(st.sampled_from(names))
        if not arities[name]:
            return name
        return f"{name}({', '.join(pattern(depth + 1) for _ in range(arities[name]))})"

    clauses = [
        f"    {pattern(0)} => {draw(st.sampled_from(['0', '{ 1 }', '%x.1']))}," for _ in range(draw(st.integers(1, 4)))
    ]
    partial = "?" if draw(st.booleans()) else ""
    return (
        f"type T[A] {{ {', '.join(ctors)} }}\n"
        f"def @f[A](%x: (T[A], int32)) -> int32 {{\n  match{partial} (%x.0) {{\n" + "\n".join(clauses) + "\n  }\n}\n"
    )


@settings(max_examples=150, deadline=None)
@given(adt_programs())
def test_generated_adt_programs_print_and_read_back_the_same(text: str) -> None:
    module = parse(text)
    printed = format_module(module)
    assert ast.same_tree(parse(printed), module), printed
    assert format_module(parse(printed)) == printed


def test_relays_printed_forms_read() -> None:
    """What Relay prints: `nat[]`, clause bodies in braces, a type of no constructors, a
    polymorphic function's type `fn [A](A) -> A`, a closure with type parameters, annotated
    pattern variables with Relay's type comments, `match` with no parentheses."""
    text = (
        "type Storage {\n}\n"
        "type nat { zero, succ(nat), }\n"
        "def @f(%x: nat[]) -> nat[] {\n"
        "  match %x {\n    zero => { zero },\n    succ(%y: nat[] /* ty=nat[] */) => { %y },\n  }\n}\n"
        "def @main() {\n  %0 = fn [a](%x: a) -> a { %x };\n  let %g: fn [b](b) -> b = %0;\n  %g(@f(zero))\n}\n"
    )
    result = gradual.check(text)
    assert result.ok, result.diagnostics
    assert str(result.function_type("main")) == "fn () -> nat[]"
    module = parse(text)
    assert ast.same_tree(parse(format_module(module)), module)


# exhaustiveness -------------------------------------------------------------------------------
def _patterns(text: str) -> tuple[list, dict]:
    module = parse(LIST + "type box[A] { box(A) }\ndef @f(%v) {\n  match (%v) {\n" + text + "\n  }\n}\n")
    adts, ctors = declare_types(module.types, lambda d: None, lambda *a: None)
    from gradual.checker.adt import _simple

    match = module.defs[0].body.result
    return [_simple(c.pattern, ctors) for c in match.clauses], ctors


def test_unmatched_cases_are_relays() -> None:
    """The cases of tests/python/relay/test_pass_unmatched_cases.py, with Relay's answers."""
    cases = {
        "_ => %v": [],
        "box(box(box(_))) => %v": [],
        "Cons(_, Cons(_, _)) => %v": ["Cons(_, Nil)", "Nil"],
        "Cons(_, Cons(_, Nil)) => %v, Cons(_, Nil) => %v": ["Cons(_, Cons(_, Cons(_, _)))", "Nil"],
        "Nil => %v, Cons(_, Cons(_, Nil)) => %v": ["Cons(_, Cons(_, Cons(_, _)))", "Cons(_, Nil)"],
        "(Nil, _) => %v, (Cons(_, _), Nil) => %v": ["(Cons(_, _), Cons(_, _))"],
    }
    for clauses, missing in cases.items():
        patterns, _ = _patterns(clauses.replace(", C", ",\n C").replace(", N", ",\n N"))
        found = unmatched(patterns)
        assert found is not None
        assert sorted(show_candidate(c) for c in found) == sorted(missing), clauses


def test_a_match_with_no_clause_misses_everything() -> None:
    result = gradual.check("def @main(%v) {\n  match (%v) {\n  }\n}\n")
    assert [d.code for d in result.errors] == ["non-exhaustive-match"]
    assert result.errors[0].facts["missing"] == ["_"]


# tools ----------------------------------------------------------------------------------------
def test_hover_shows_a_constructors_type_and_a_pattern_variables() -> None:
    text = (
        LIST
        + "def @len[A](%xs: List[A]) -> int32 {\n  match (%xs) {\n    Cons(_, %rest) => add(@len(%rest), 1),\n    Nil => 0,\n  }\n}\ndef @main() { Cons(1, Nil) }\n"
    )
    analysis = Document("x.rly").analyze(text)
    found = queries.hover(analysis, text.index("Cons(1"))
    assert found is not None and "Cons: fn [A](A, List[A]) -> List[A]" in found.lines
    assert "result: `List[int32]`" in found.lines
    found = queries.hover(analysis, text.index("Cons(_"))
    assert found is not None and "a constructor of `List`" in found.lines
    found = queries.hover(analysis, text.index("%rest)"))
    assert found is not None and "%rest: List[A]" in found.lines
    found = queries.hover(analysis, text.rindex("Nil"))
    assert found is not None and found.lines[1].startswith("Nil: ")


def test_the_prelude_joins_only_a_program_that_uses_it() -> None:
    """`@map`, `Cons`, `List` without definitions come from the prelude (and what they use);
    a program that defines `List` itself keeps its own."""
    uses = gradual.check("def @main(%x: int32) { @length(@map(fn (%a: int32) { %a }, Cons(%x, Nil))) }")
    assert uses.ok, uses.diagnostics
    assert {"map", "length"} <= set(uses.functions) and "zip" not in uses.functions
    own = gradual.check(LIST.replace("Nil", "Empty") + "def @main() { Empty }")
    assert own.ok and str(own.function_type("main")) == "fn () -> List[?]" and set(own.functions) == {"main"}
    plain = gradual.check("def @main(%x: float32) { %x }")
    assert set(plain.functions) == {"main"}


def test_the_lsp_document_checks_adts_and_the_prelude_as_check_does() -> None:
    text = "def @main(%x: Tensor[(?, 4), float32]) {\n  @hd(Cons(%x, Nil))\n}\n"
    analysis = Document("x.rly").analyze(text)
    assert analysis.result.ok
    assert str(analysis.result.function_type("main")) == "fn (Tensor[(?, 4), float32]) -> Tensor[(?, 4), float32]"
    assert [d.name for d in queries.definitions(analysis)] == ["main"]  # the prelude's are not the document's


# the runtime ----------------------------------------------------------------------------------
_RECURSION = LIST + (
    "def @build(%n: int32) -> List[int32] {\n"
    "  if (equal(%n, 0)) { Nil } else { Cons(%n, @build(subtract(%n, 1))) }\n}\n"
    "def @len[A](%xs: List[A]) -> int32 {\n"
    "  match (%xs) {\n    Cons(_, %rest) => add(@len(%rest), 1),\n    Nil => 0,\n  }\n}\n"
    "def @main(%n: int32) { @len(@build(%n)) }\n"
)


def test_a_recursion_over_a_list_fits_the_recursion_limit_at_100000() -> None:
    """Each level of a recursion over a list (`@build`, then `@len` matching and adding) costs
    the interpreter a few Python frames: measured at two depths, the frames a level times
    100,000 stay below the large-stack thread's recursion limit."""
    from gradual.checker.elaboration import elaborate_module

    module, _ = elaborate_module(gradual.check(_RECURSION))
    interpreter = Interpreter(module)
    depths: list = []
    enter = interpreter.enter_function

    def measured(*args: object, **kwargs: object) -> object:
        depths.append(len(_stack()))
        return enter(*args, **kwargs)  # type: ignore[arg-type]

    interpreter.enter_function = measured  # type: ignore[method-assign]
    n = 300
    out = deep.run_deep(
        interpreter.apply, GlobalFunction(interpreter.res.defs["main"]), (np.asarray(n, "int32"),), None
    )
    assert int(out) == n
    build = depths[1 : n + 2]  # @main, then @build n + 1 times, then @len n + 1 times
    length = depths[n + 2 :]
    per_level = max((build[-1] - build[0]) / n, (length[-1] - length[0]) / n)
    assert per_level * 100_000 < deep._RECURSION_LIMIT * 0.95, per_level


def _stack() -> list:
    frames = []
    frame = sys._getframe()
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def test_a_checked_lists_tail_is_not_walked_again() -> None:
    """A list checked against a closed type remembers it cell by cell: a recursion that passes
    its tail to a parameter of that type checks one cell a call, not the whole tail."""
    from gradual.runtime.adt import check_adt
    from gradual.runtime.values import AdtValue
    from gradual.types import AdtType, scalar

    adts, ctors = declare_types(parse(LIST).types, lambda d: None, lambda *a: None)
    value = AdtValue(ctors["Nil"], ())
    for i in range(1000):
        value = AdtValue(ctors["Cons"], (np.asarray(i, "int32"), value))
    t = AdtType("List", (scalar("int32"),))
    seen: list = []

    def field(v: object, ft: object) -> object:
        seen.append(v)
        return v

    check_adt(value, t, field, lambda m: (_ for _ in ()).throw(AssertionError(m)))
    assert len(seen) == 1000
    seen.clear()
    check_adt(value.fields[1], t, field, lambda m: (_ for _ in ()).throw(AssertionError(m)))
    assert seen == []
