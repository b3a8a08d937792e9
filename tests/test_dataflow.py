"""Dataflow statements (ast.Dataflow, the compact form graph frontends bind runs of operator
nodes in, for speed) check as the lets they stand for.

Every random program of tests/programs.py is checked three times: as a parsed module (checked
as given: plain lets), as text (`gradual.check` compacts runs of operator lets itself,
ast.compact_lets), and with each run of plain operator lets (`%v = op(%a, %b, attr=...);`,
every argument a variable) turned into one Dataflow statement placed at the lets' own spans
(for half the seeds holding the parsed lets as made, as the builder's `let` does; for the
others made again when asked). All must give the same diagnostics, the same function types and
check counts, the same type for every binding; the first and last also the same elaborated
program and the same run outcome. Statements checked from the arrays and statements made into
syntax (an outcome not reused, an unknown name) both occur in these programs.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from programs import SYMBOLIC, Draw, generate, relax
from tracing import run_outcome

import gradual
from gradual import builder as gb
from gradual.ops.attributes import written_key
from gradual.syntax import ast


class _LetPlaces:
    """A Dataflow locator whose tags are the parsed lets a statement replaces."""

    @staticmethod
    def line(let: ast.Let) -> object:
        return let.span

    @staticmethod
    def argument(let: ast.Let, j: int) -> object:
        return let.value.args[j].span  # type: ignore[attr-defined]


def _plain(stmt: object) -> bool:
    value = getattr(stmt, "value", None)
    return (
        stmt.__class__ is ast.Let
        and stmt.graph
        and stmt.type is None
        and value.__class__ is ast.Call  # type: ignore[attr-defined]
        and value.callee.__class__ is ast.OpRef
        and value.callee.name not in ast.REF_FORMS
        and all(a.__class__ is ast.Var for a in value.args)
    )


def as_dataflow(module: ast.Module, made: bool = False) -> int:
    """Turn every run of plain operator lets of every body into a Dataflow, in place (with
    each let as made, if `made`); how many statements were turned."""
    turned, stack = 0, [module]
    places = _LetPlaces()
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        if not isinstance(node, ast.Node):
            continue
        if isinstance(node, ast.Body):
            stmts: list = []
            for s in node.stmts:
                if _plain(s):
                    if not stmts or stmts[-1].__class__ is not ast.Dataflow:
                        stmts.append(ast.Dataflow([], [], [], [], places))
                    flow = stmts[-1]
                    flow.names.append(s.var.name)
                    flow.ops.append(s.value.callee.name)
                    flow.args.append([a.name for a in s.value.args])
                    flow.tags.append(s)
                    if s.value.attrs:
                        flow.attrs[len(flow) - 1] = s.value.attrs
                        _ATTRIBUTED.append(1)
                    if made:
                        flow.made[len(flow) - 1] = s
                    turned += 1
                else:
                    stmts.append(s)
            node.stmts = tuple(stmts)
        for name in getattr(node, "__dataclass_fields__", {}):
            if name != "span":
                stack.append(getattr(node, name))
    return turned


def _summary(result: gradual.CheckResult) -> dict:
    module = result.module
    assert module is not None
    bindings = {}
    for d in module.defs:
        stack: list = [d.body]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Let):
                bindings[(d.name, node.var.name, id(node) % 1)] = str(result.types.get(id(node)))
            if isinstance(node, tuple):
                stack.extend(node)
            elif isinstance(node, ast.Node) and node.__class__ is not ast.Dataflow:
                stack.extend(getattr(node, f) for f in node.__dataclass_fields__ if f != "span")
    return {
        "diagnostics": [(d.code, d.message) for d in result.diagnostics],
        "functions": {name: (str(fn.type), fn.check_count) for name, fn in result.functions.items()},
        "bindings": bindings,
    }


def _both(text: str, made: bool = False) -> tuple:
    plain = gradual.check(gradual.parse(text))  # a module is checked as given: plain lets
    module = gradual.parse(text)
    turned = as_dataflow(module, made)
    flowing = gradual.check(module)
    return plain, flowing, turned


SEEDS = range(0, 1200, 4)


@pytest.mark.parametrize("seed", SEEDS)
def test_dataflow_checks_as_its_lets(seed: int) -> None:
    program = generate(seed)
    variant = relax(program, Draw(seed=seed)) if seed % 2 else SYMBOLIC  # half of them with checks
    text = program.text(variant)
    plain, flowing, turned = _both(text, made=seed % 8 < 4)
    assert _summary(flowing) == _summary(plain)
    assert _summary(gradual.check(text)) == _summary(plain)  # text: compacted (ast.compact_lets)
    if plain.ok:
        assert gradual.elaborate_text(flowing) == gradual.elaborate_text(plain)
        inputs = program.intended_inputs()
        assert _ended(run_outcome(flowing, inputs)) == _ended(run_outcome(plain, inputs))


_ATTRIBUTED: list = []  # one entry per statement with attributes turned


def test_most_programs_have_dataflow_statements() -> None:
    """The comparison above is not vacuous: the programs of its seeds, turned the same way
    (here, whichever worker ran the comparison), have Dataflow statements, some with attributes."""
    before = len(_ATTRIBUTED)
    turned = [as_dataflow(gradual.parse(generate(seed).text(SYMBOLIC))) for seed in SEEDS]
    assert len(turned) >= 300 and sum(1 for t in turned if t) >= 50
    assert len(_ATTRIBUTED) - before >= 30


def _ended(outcome: object) -> tuple:
    """How a run ended, comparable: its outputs' shapes and values, or its failure's class."""
    failure = outcome.failure  # type: ignore[attr-defined]
    if failure is not None:
        return ("failed", type(failure).__name__)
    return ("ok", [(np.shape(o), np.asarray(o).tobytes()) for o in outcome.outputs])  # type: ignore[attr-defined]


def test_every_statement_is_checked_from_the_arrays_when_outcomes_repeat() -> None:
    """A chain of the same call is checked once as syntax; the rest reuse its outcome, and
    their nodes are made only when a tool asks for the syntax or the tables."""
    main = gb.Function("main")
    x = main.param("x", gb.Tensor(("n", 4), "float32"))
    places = _Places()
    prev = x
    for i in range(50):
        prev = main.bind_op(f"v{i}", "nn.relu", [prev.name], places, i)
    module = gb.module(main.returns(prev))
    flow = module.defs[0].body.stmts[0]
    assert isinstance(flow, ast.Dataflow) and len(flow) == 50
    result = gradual.check(module)
    assert len(flow.made) == 1  # the first call: its outcome is reused by the other 49
    assert str(result.function_type("main")) == "fn (Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32]"
    assert str(result.binding_type("main", "v49")) == "Tensor[(n, 4), float32]"  # the tables, published
    assert len(flow.made) == 50
    assert all(not isinstance(s, ast.Dataflow) for s in result.module.defs[0].body.stmts)


class _Places:
    """Spans of a one-line-per-statement text, for builder tests."""

    def __init__(self) -> None:
        from gradual.syntax.source import Source

        self.source = Source("\n".join(f"node {i}: a, b" for i in range(100)) + "\n", "graph.txt")

    def line(self, tag: int) -> object:
        from gradual.syntax.source import Span

        start = self.source.line_starts()[tag]
        return Span(self.source, start, start + len(f"node {tag}: a, b"))

    def argument(self, tag: int, j: int) -> object:
        from gradual.syntax.source import Span

        start = self.source.line_starts()[tag] + len(f"node {tag}: ") + 3 * j
        return Span(self.source, start, start + 1)


def test_a_mismatch_in_a_dataflow_is_reported_at_its_statement_and_argument() -> None:
    main = gb.Function("main")
    x = main.param("x", gb.Tensor(("n", 4), "float32"))
    y = main.param("y", gb.Tensor(("n", 5), "float32"))
    places = _Places()
    v = main.bind_op("v0", "add", [x.name, y.name], places, 3)
    result = gradual.check(gb.module(main.returns(v)))
    [error] = result.errors
    assert error.code == "broadcast-mismatch"
    assert error.span.start_position[0] == 4  # node 3's line
    assert "`add`" in error.message


def test_unknown_names_in_a_dataflow_are_reported_as_in_lets() -> None:
    main = gb.Function("main")
    x = main.param("x", gb.Tensor((2, 4), "float32"))
    places = _Places()
    main.bind_op("v0", "nn.relu", ["nowhere"], places, 1)
    main.bind_op("v1", "no.such_op", [x.name], places, 2)
    v = main.bind_op("v2", "add", [x.name, "v0"], places, 5)
    result = gradual.check(gb.module(main.returns(v)))
    codes = sorted(d.code for d in result.errors)
    assert codes == ["unknown-operator", "unknown-variable"]
    unknown = next(d for d in result.errors if d.code == "unknown-variable")
    assert unknown.span.start_position[0] == 2 and unknown.span.text == "a"


def test_a_dataflow_in_a_closure_captures_what_it_uses() -> None:
    """A closure whose Dataflow uses a variable of its definer is not closed (a closed one
    would be generalized on its own), as with the let it stands for."""

    def closure_program(compact: bool) -> tuple:
        main = gb.Function("main")
        x = main.param("x", gb.Tensor(("n", 4), "float32"))
        inner = gb.Block()
        if compact:
            w = inner.bind_op("w", "add", ["p", x.name], _Places(), 0)
        else:
            w = inner.let("w", gb.call("add", gb.Var("p"), x))
        fn = gb.closure([("p", None)], inner.body(w))
        f = main.let("f", fn)
        out = main.let("out", gb.call_value(f, x))
        return gradual.check(gb.module(main.returns(out))), fn

    (plain, _), (flowing, fn) = closure_program(False), closure_program(True)
    assert flowing.ok and not flowing.resolution.function(fn).closed
    assert str(flowing.binding_type("main", "out")) == str(plain.binding_type("main", "out"))
    assert str(flowing.function_type("main")) == str(plain.function_type("main"))


def test_a_text_programs_operator_lets_are_checked_from_arrays_and_given_back_as_parsed() -> None:
    """`gradual.check` of text holds runs of operator lets as Dataflows of the parsed lets
    (ast.compact_lets); a tool asking for the module or the tables gets those lets back."""
    text = (
        "def @main(%x: Tensor[(n, 4), float32]) {\n  %a = nn.relu(%x);\n  %b = add(%a, %x);\n"
        "  %c = reshape(%b, newshape=[-1]);\n  let %d: Tensor[(4 * n,), float32] = %c;\n  %d\n}\n"
    )
    result = gradual.check(text)
    assert result._dataflow  # statements checked from the arrays, not yet published
    assert str(result.binding_type("main", "c")) == "Tensor[(4 * n,), float32]"
    stmts = result.module.defs[0].body.stmts
    assert [type(s).__name__ for s in stmts] == ["Let"] * 4
    assert result.types[id(stmts[2].value)] == result.types[id(stmts[2])]
    assert gradual.elaborate_text(result).count("reshape(%b, newshape=[-1])") == 1


def test_unknown_names_in_a_text_programs_dataflow_are_reported_at_the_names() -> None:
    text = "def @main(%x: Tensor[(2,), float32]) {\n  %a = nn.relu(%x);\n  %b = no.such_op(%a);\n  %c = add(%b, %y);\n  %c\n}\n"
    errors = {d.code: d.span.text for d in gradual.check(text).errors}
    assert errors == {"unknown-operator": "no.such_op", "unknown-variable": "%y"}


_scalars = st.one_of(st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.booleans(), st.sampled_from(["a", "b"]))
_attr_values = st.recursive(
    st.one_of(_scalars, st.sampled_from(["a", "b"]).map(lambda n: ast.Ident(n))),
    lambda inner: st.lists(inner, max_size=3).map(lambda items: ast.AttrSeq(tuple(items))),
    max_leaves=6,
)


def _typed_value(value: object) -> object:
    """An attribute value as the checker reads it, each scalar with its class (an identifier
    is its name, a string): two calls whose attributes read so are the same call."""
    if isinstance(value, ast.AttrSeq):
        return tuple(_typed_value(v) for v in value.items)
    if isinstance(value, ast.Ident):
        return (str, value.name)
    return (value.__class__, value)


def _recast(value: object, rnd: random.Random) -> object:
    """The same attribute value with some ints written as floats (or as bools): equal as
    Python values, different attributes."""
    if isinstance(value, ast.AttrSeq):
        return ast.AttrSeq(tuple(_recast(v, rnd) for v in value.items))
    if type(value) is int and rnd.random() < 0.5:
        return bool(value) if value in (0, 1) and rnd.random() < 0.5 else float(value)
    return value


_written = st.lists(st.tuples(st.sampled_from(["axis", "newshape"]), _attr_values), max_size=2)
_flat = st.tuples(st.just("newshape"), st.lists(st.integers(-2, 2), max_size=3).map(lambda v: ast.AttrSeq(tuple(v))))
#: two attribute lists: unrelated, or the same values with some of another class
_attribute_pairs = st.one_of(_written, st.lists(_flat, min_size=1, max_size=1)).flatmap(
    lambda w: st.tuples(
        st.just(w),
        st.one_of(_written, st.randoms(use_true_random=False).map(lambda r: [(n, _recast(v, r)) for n, v in w])),
    )
)


@given(_attribute_pairs)
@example(([("newshape", ast.AttrSeq((1,)))], [("newshape", ast.AttrSeq((1.0,)))]))
@example(([("axis", 1)], [("axis", True)]))
@example(([("axis", ast.Ident("a"))], [("axis", "a")]))
def test_written_keys_are_equal_exactly_when_the_attributes_read_the_same(pair: tuple[list, list]) -> None:
    """A quick call's key holds its attributes as written (ops.attributes.written_key): equal
    keys for attributes that read the same (1 and 1.0 and True do not), and only for them."""
    written, other = pair
    first = tuple(ast.Attr(name, value) for name, value in written)
    second = tuple(ast.Attr(name, value) for name, value in other)
    same = [(n, _typed_value(v)) for n, v in written] == [(n, _typed_value(v)) for n, v in other]
    assert (written_key(first) == written_key(second)) == same
    assert written_key(first) == written_key(tuple(ast.Attr(name, value) for name, value in written))
