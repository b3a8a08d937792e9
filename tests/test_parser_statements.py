"""The lexer reads the commonest statement (`%v = op(%a, k=v);`) as one STATEMENT token, and the
commonest type (`Tensor[(b, 64), float32]`) as one TENSOR_TYPE token, and the parser builds
their nodes at once. That must give exactly the tree the grammar's rules give when they are
read token by token (same nodes, same spans) and the same syntax errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradual.syntax import ast
from gradual.syntax.lexer import FastLexer
from gradual.syntax.parser import ParseError, parse
from gradual.syntax.printer import format_module

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import scale  # noqa: E402
from casefile import all_cases  # noqa: E402
from test_syntax_roundtrip import modules  # noqa: E402

import bench  # noqa: E402


def token_by_token(text: str) -> object:
    """The tree (or the ParseError) of `text` read without STATEMENT, TENSOR_TYPE or PARAM tokens."""
    FastLexer.read_statements = FastLexer.read_types = False
    try:
        return parse(text)
    except ParseError as exc:
        return exc
    finally:
        FastLexer.read_statements = FastLexer.read_types = True


def with_statements(text: str) -> object:
    try:
        return parse(text)
    except ParseError as exc:
        return exc


def nodes_with_spans(tree: object) -> Iterator[tuple]:
    """Every node and value of a tree in order, nodes with their span's offsets."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Node):
            yield type(x).__name__, x.span.start, x.span.end
            stack.extend(reversed([getattr(x, f) for f in x.__dataclass_fields__ if f != "span"]))
        elif isinstance(x, tuple):
            yield "tuple", len(x)
            stack.extend(reversed(x))
        else:
            yield type(x).__name__, repr(x)


def assert_same_reading(text: str) -> None:
    fast, slow = with_statements(text), token_by_token(text)
    if isinstance(slow, ParseError):
        assert isinstance(fast, ParseError), text
        assert (fast.span.start, fast.span.end, fast.found, fast.expected, fast.detail) == (
            slow.span.start,
            slow.span.end,
            slow.found,
            slow.expected,
            slow.detail,
        ), text
        return
    assert not isinstance(fast, ParseError), (text, fast)
    assert list(nodes_with_spans(fast)) == list(nodes_with_spans(slow)), text


STATEMENTS = [
    "%v = add(%a, %b);",
    "%v = add(%a, %b,);",
    "%v=add(%a,%b);",
    "%v = nn.relu(\n    %a\n  )   ;",
    "%v = f();",
    "let %v = f(%a);",
    "let%v = f(%a);",
    "%v = reshape(%a, newshape=[-1, 32]);",
    "%v = reshape(%a, newshape=[]);",
    "%v = reshape(%a, newshape=[1,]);",
    "%v = f(axis=1);",
    "%v = f(%a, axis=1, );",
    '%v = f(%a, s="x\\"y\\n", l=NCHW, b=True, c=False, n=None, k=fn, t=Tensor, d=a.b);',
    "%v = f(%a, i=-3, z=0, big=123456789012345678901234567890);",
    "%v = @f(%a, %b);",
    "%v=add(add=1,add=1);",  # an attribute given twice, no blank after the comma
    '%v=add(%a,x=1,y=[1,2],s="a,b=1");',
    "let %v: Tensor[(b, 64), float32] = f(%a, %b);",
    "let %v : Tensor [ ( ) , ? ] = @f();",
    "let %v: Tensor[(1,), int64] = f(%a, axis=1);",
    "%v: Tensor[(1,), int64] = f(%a);",  # a graph binding takes no type
    "let %v: Tensor[(1i64,), int64] = f(%a);",
    "let %v: Tensor[(a.b,), int64] = f(%a);",
    "let %v: float32 = f(%a);",
    "let %v: (Tensor[(1,), int64],) = f(%a);",
    "let %v: Tensor[(fn,), int64] = f(%a);",
    "let %v = @g_1();",
    "%v = @f(%a, axis=1);",
    "%v = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=64) /* ty=Tensor[(1, 64), float32] */;",
    "%v = f(%a) /* one */ /* two */ ;",
    "%v = let_x(%a);",
    "%v = Truex(%a, x=Truex);",
    # left to the grammar (not a STATEMENT), read alike all the same
    "%v = if(%a);",
    "%v = fn(%a);",
    "%v = f(%a, True=1);",
    "%v = f(%a, x=1.5);",
    "%v = f(%a, x=1i64);",
    "%v = f(%a, x=[1.5]);",
    "%v = f(%a, x=(1, 2));",
    "%v = f(%a, %a)(%b);",
    "%v = f(%a).0;",
    "%v = f(%a) as Tensor[(2,), float32];",
    "%v = f(%a /* c */);",
    "%v = f(%a, x=1, %b);",  # a positional argument after an attribute
    "%v = f(%a, x=1, x=2);",  # an attribute given twice
    "%v = f(%a, x=1" + "0" * 5000 + ");",  # an integer too long to read
    '%v = f(%a, s="unterminated);',
    "%v = f(%a)",  # no `;`: the body's result is missing too
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_statement_reads_alike_in_one_token_or_token_by_token(statement: str) -> None:
    text = f"def @main(%a, %b) {{\n  %w = nn.relu(%a);\n  {statement}\n  %b\n}}\n"
    assert_same_reading(text)


def test_statements_are_read_as_one_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus below would prove nothing if no statement were ever read in one token."""
    from gradual.syntax import lexer

    pattern, read = lexer.STATEMENT, []

    class Counting:
        def match(self, text: str, pos: int) -> object:
            found = pattern.match(text, pos)
            read.append(found is not None)
            return found

    monkeypatch.setattr(lexer, "STATEMENT", Counting())
    parse("def @main(%a) {\n  %v = add(%a, %a);\n  let %w = f(%v, k=[1, 2]);\n  %w\n}\n")
    assert read == [True, True, False]  # the body's result is not a statement


def test_a_syntax_error_after_statements_expects_the_same_tokens() -> None:
    text = "def @main(%a) {\n  %v = add(%a, %a);\n  %w = ;\n  %w\n}\n"
    fast, slow = with_statements(text), token_by_token(text)
    assert isinstance(fast, ParseError) and isinstance(slow, ParseError)
    assert fast.expected == slow.expected and fast.span.start == slow.span.start
    text = "def @main(%a) {\n  %v = add(%a, %a);\n  ]\n}\n"
    fast = with_statements(text)
    assert isinstance(fast, ParseError) and not any("statement" in e.lower() for e in fast.expected)


TYPES = [
    "Tensor[(b, 64), float32]",
    "Tensor[(), float32]",
    "Tensor[( ), ?]",
    "Tensor[(1,), int64]",
    "Tensor[(1 , ), int64]",
    "Tensor[(?, n, 3), bool]",
    "Tensor[\n  (\n    b,\n    64,\n  ),\n  float32,\n]",
    "Tensor [ ( b ) , float16 ]",
    "Tensor[(b_1, _c, N2), uint8]",
    # left to the grammar (not a TENSOR_TYPE), read alike all the same
    "Tensor[(b, 64), float32,]",
    "Tensor[(1i64, 2), float32]",
    "Tensor[(1..4, 2..), float32]",
    "Tensor[(-1, 2), float32]",
    "Tensor[(n + 1, n * 2, n // 2, n % 4), float32]",
    "Tensor[(max(a, b), b|1), float32]",
    "Tensor[(*rest, 3), float32]",
    "Tensor[*, float32]",
    "Tensor[(a.b, 2), float32]",
    "Tensor[(?b, 2), float32]",
    "Tensor[(fn, let, Tensor, True, shape, in, where), float32]",
    "Tensor[(b, 64), fn]",
    "Tensor[(b, 64), a.b]",
    "Tensor[(b, 64), ?T]",
    "Tensor[(b, /* c */ 64), float32]",
    "Tensor[(b, 64) // c\n, float32]",
    "Tensor[(1" + "0" * 5000 + ",), float32]",  # an integer too long to read
    "Tensor[(b 64), float32]",
    "Tensor[(b, 64)]",
    "Tensor[(b, 64), float32",
]


@pytest.mark.parametrize("typ", TYPES)
def test_a_tensor_type_reads_alike_in_one_token_or_token_by_token(typ: str) -> None:
    text = f"def @main(%a: {typ}, %b: ({typ}, {typ})) -> {typ} {{\n  let %c: {typ} = %a;\n  %c as {typ}\n}}\n"
    assert_same_reading(text)


def test_the_lexers_keywords_are_the_grammars() -> None:
    """No keyword is read as a name in a TENSOR_TYPE: the lexer's list is the grammar's."""
    from gradual.syntax.lexer import KEYWORDS
    from gradual.syntax.parser import _parser

    with _parser() as parser:
        words = {w for w in parser.lexer.literals if w[:1].isalpha() or w[:1] == "_"}
    assert set(KEYWORDS) == words | {"True", "False"}


def test_tensor_types_and_parameters_are_read_as_one_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus would prove nothing if no type or parameter were ever read in one token."""
    from gradual.syntax import lexer

    read: list[str] = []

    class CountingType(lexer.TensorTypeTok):
        def __init__(self, match: object) -> None:
            read.append("type")
            super().__init__(match)  # type: ignore[arg-type]

    class CountingParam(lexer.ParamTok):
        def __init__(self, match: object) -> None:
            read.append("param")
            super().__init__(match)  # type: ignore[arg-type]

    monkeypatch.setattr(lexer, "TensorTypeTok", CountingType)
    monkeypatch.setattr(lexer, "ParamTok", CountingParam)
    parse("def @main(%a: Tensor[(b, 64), float32], %b) -> Tensor[(b, ?), float32] {\n  %a\n}\n")
    assert read == ["param", "type"]


PARAMS = [
    "%a: Tensor[(b, 64), float32]",
    "%a : Tensor[(b, 64), float32] ",
    "%a:\n  Tensor[(), ?]\n",
    "%a: Tensor[(b, 64), float32] /* c */",
    "%a /* c */: Tensor[(b, 64), float32]",
    "%a: Tensor[(b, 64), float32] // c\n",
    "%a: Tensor[(n + 1, 64), float32]",
    "%a: Tensor[(b, 64), float32]?",
    "%a: Tensor[(b, 64), float32] = 1",
    "%a: Tensor[(b, 64), float32] %b: Tensor[(b, 64), float32]",
    "%a: Tensor[(b, 64), float32], k=1",
    "%a: Tensor[(b, 64), float32],",
]


@pytest.mark.parametrize("param", PARAMS)
def test_a_parameter_reads_alike_in_one_token_or_token_by_token(param: str) -> None:
    assert_same_reading(f"def @main({param}) {{\n  fn ({param}, %z) {{ %z }}\n}}\n")


def corpus() -> list:
    programs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "examples").glob("*.rly"))]
    programs += [(case.id, case.program) for case in all_cases()]
    programs += [
        (f"bench-{kind}-{variant}", bench.program(kind, 60, variant))
        for kind in ("chain", "dag")
        for variant in ("symbolic", "unknown", "static")
    ]
    programs += [(f"scale-{axis.name}", axis.make(12)) for axis in scale.AXES if axis.suffix == ".rly"]
    return programs


@pytest.mark.parametrize("name,text", corpus(), ids=[name for name, _ in corpus()])
def test_every_program_of_the_tests_reads_alike(name: str, text: str) -> None:
    assert_same_reading(text)


SPACE = st.sampled_from(["", " ", "  ", "\n    ", "\t", " /* c */ ", " // c\n "])
WORDS = st.sampled_from(
    [
        "add",
        "nn.relu",
        "f",
        "let_x",
        "if",
        "fn",
        "let",
        "True",
        "None",
        "Tensor",
        "a.b",
        "x1",
        "@f",
        "@g_1",
        "@a.b",
        "@",
    ]
)
VALUES = st.sampled_from(
    [
        "1",
        "-3",
        "0",
        "1.5",
        "1i64",
        "1e3",
        "[]",
        "[1, 2]",
        "[-1,]",
        "[1.5]",
        "(1, 2)",
        '"s"',
        '"a\\"b"',
        "True",
        "False",
        "None",
        "NCHW",
        "fn",
        "a.b",
        "%a",
        "1" + "0" * 4400,
    ]
)
ARGS = st.sampled_from(["%a", "%b", "%a_1", "1", "(%a, %b)", "%a.0", "f(%a)"])


DIM_TEXT = st.sampled_from(["1", "64", "b", "?", "n2", "_", "1i64", "-1", "n + 1", "a.b", "fn", "?b", "*r", "1..2"])
DTYPE_TEXT = st.sampled_from(["float32", "?", "int64", "a.b", "?T", "fn", "Tensor", "True"])


@st.composite
def tensor_types(draw) -> str:
    """Tensor-type-like text: mostly what TENSOR_TYPE reads, with near misses of every part."""
    sp = lambda: draw(SPACE)  # noqa: E731
    dims = f"{sp()},{sp()}".join(draw(st.lists(DIM_TEXT, max_size=4)))
    comma = draw(st.sampled_from(["", ",", " ,"])) if dims else ""
    shape = draw(st.sampled_from([f"({sp()}{dims}{comma}{sp()})", "*", f"({dims}"]))
    return f"Tensor{sp()}[{sp()}{shape}{sp()},{sp()}{draw(DTYPE_TEXT)}{sp()}]"


@st.composite
def statements(draw) -> str:
    """Statement-like text: mostly what STATEMENT reads, with near misses of every part."""
    sp = lambda: draw(SPACE)  # noqa: E731
    args = draw(st.lists(ARGS, max_size=3))
    attrs = [f"{draw(WORDS)}{sp()}={sp()}{draw(VALUES)}" for _ in range(draw(st.integers(0, 3)))]
    items = args + attrs if draw(st.booleans()) else attrs + args
    inside = f"{sp()},{sp()}".join(items) + (draw(st.sampled_from(["", ",", " ,"])) if items else "")
    head = draw(st.sampled_from(["", "let ", "let"]))
    tail = draw(st.sampled_from(["", " /* ty=T */", "/* a *//* b */", " (%b)"]))
    typ = draw(st.sampled_from(["", "", f"{sp()}:{sp()}{draw(tensor_types())}", ": float32", ":(Tensor[(1,), f],)"]))
    return f"{head}%v{typ}{sp()}={sp()}{draw(WORDS)}{sp()}({sp()}{inside}{sp()}){tail}{sp()};"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(statements(), min_size=1, max_size=3))
def test_statement_like_text_reads_alike(lines: list) -> None:
    body = "".join(f"\n  {line}" for line in lines)
    assert_same_reading(f"def @main(%a, %b) {{{body}\n  %b\n}}\n")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tensor_types(), min_size=1, max_size=3))
def test_tensor_type_like_text_reads_alike(types: list) -> None:
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    assert_same_reading(f"def @main({params}) -> {types[0]} {{\n  %a0\n}}\n")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules)
def test_printed_random_modules_read_alike(module: ast.Module) -> None:
    assert_same_reading(format_module(module))
