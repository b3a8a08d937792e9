"""Linear growth on every axis of input size, as counts rather than times.

bench/scale.py times each axis at n and 8n. Here the same programs are checked (and
elaborated or run, for those axes) at a small n and at 8n while counting every function call made,
Python and built-in alike: a count is exact and repeatable where a time is not, and a linear
checker makes about 8x the calls for 8x the input. A step that costs the depth per nested
level (a scope chain walked, a type copied at every level) makes it 60x.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import gradual
from gradual.analysis import queries
from gradual.infra.deep import run_deep

_SPEC = importlib.util.spec_from_file_location("scale", Path(__file__).parent.parent / "bench" / "scale.py")
scale = sys.modules["scale"] = importlib.util.module_from_spec(_SPEC)  # type: ignore[arg-type]
_SPEC.loader.exec_module(scale)  # type: ignore[union-attr]

LIMIT = 8.5  # calls at 8n over calls at n
SMALL = {
    "component": 40,
    "hints": 50,
    "hint-chain": 50,
    "definitions": 50,
    "sums": 100,
    "squaring": 20,
    "run-closures": 300,
    "run-closure-relations": 300,
    "torch-conds": 40,
    "doublings": 200,
    "static-doublings": 200,
    "halvings": 200,
    "close-names": 40,
    "close-globals": 40,
}
AXES = [a for a in scale.AXES if a.suffix == ".rly"]


def calls_made(work: Callable[[], None]) -> int:
    """Function calls (Python and built-in) that `work` makes on this thread."""
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count


def _work(text: str, axis) -> Callable[[], None]:  # a scale.Axis
    def check() -> None:
        result = gradual.check(text)
        if axis.errors:
            scale.render_errors(result)
            return
        assert result.ok, [d.message for d in result.errors[:1]]
        if axis.command == "elaborate":
            gradual.elaborate_text(result)
        elif axis.command == "run":
            gradual.run(result, {name: np.ones((4, 4), np.float32) for name in axis.inputs(text)})

    return check


@pytest.mark.parametrize("axis", AXES, ids=lambda a: a.name)
def test_calls_grow_linearly(axis) -> None:
    n = SMALL.get(axis.name, 100)
    gradual.check(axis.make(2))  # the operator library and caches are loaded once, outside the count

    def both() -> tuple:  # on the large-stack thread, where checking runs inline
        return calls_made(_work(axis.make(n), axis)), calls_made(_work(axis.make(8 * n), axis))

    small, large = run_deep(both)
    assert large <= LIMIT * small, f"{axis.name}: {small} calls at n = {n}, {large} at 8n ({large / small:.1f}x)"


@pytest.mark.parametrize("axis", [a for a in scale.AXES if a.suffix in scale.MODELS], ids=lambda a: a.name)
def test_model_calls_grow_linearly(axis, tmp_path: Path) -> None:
    """The model axes (ONNX, torch.export), imported and checked, by lines run (a loop that
    calls nothing, as a name's suffixes tried one by one, counts too)."""
    n = SMALL.get(axis.name, 100)
    paths = [tmp_path / f"{size}{axis.suffix}" for size in (n, 8 * n)]
    for path, size in zip(paths, (n, 8 * n)):
        path.write_bytes(axis.make(size))
    scale.check_model(paths[0])  # the frontend's imports and caches, outside the count

    def work(path: Path) -> Callable[[], None]:
        return lambda: scale.check_model(path)

    small, large = run_deep(lambda: (lines_run(work(paths[0])), lines_run(work(paths[1]))))
    assert large <= LIMIT * small, f"{axis.name}: {small} lines at n = {n}, {large} at 8n ({large / small:.1f}x)"


@pytest.mark.parametrize("axis", [a for a in scale.AXES if a.command == "python"], ids=lambda a: a.name)
def test_built_calls_grow_linearly(axis, tmp_path: Path) -> None:
    """The library axes (a script that builds a module with gradual.builder and checks it)."""
    import runpy

    n = SMALL.get(axis.name, 100)
    mains = []
    for size in (n, 8 * n):
        path = tmp_path / f"{size}{axis.suffix}"
        path.write_text(axis.make(size), encoding="utf-8")
        mains.append(runpy.run_path(str(path))["main"])
    mains[0]()  # the operator library and caches, outside the count
    small, large = run_deep(lambda: (calls_made(mains[0]), calls_made(mains[1])))
    assert large <= LIMIT * small, f"{axis.name}: {small} calls at n = {n}, {large} at 8n ({large / small:.1f}x)"


def lines_run(work: Callable[[], None]) -> int:
    """Lines of Python that `work` runs on this thread (a loop's every turn counts, where a
    call count sees a loop that calls nothing as nothing)."""
    count = 0

    def trace(frame: object, event: str, arg: object) -> Callable:
        nonlocal count
        if event == "line":
            count += 1
        return trace

    sys.settrace(trace)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


EDITOR_QUERIES = {  # what an editor asks of a whole document
    "symbols": lambda a, text: queries.symbols(a),
    "inlay hints": lambda a, text: queries.inlay_hints(a, 0, len(text)),
    "check sites": lambda a, text: [queries.check_sites(a, d) for d in queries.definitions(a)],
}


@pytest.mark.parametrize("query", EDITOR_QUERIES)
@pytest.mark.parametrize(
    "axis",
    [a for a in AXES if a.name in ("definitions", "chain", "closures", "inferred-closures", "symbols")],
    ids=lambda a: a.name,
)
def test_editor_queries_grow_linearly(axis, query: str) -> None:
    """The language server's document-wide answers, by lines run: looking a definition up by
    offset listed every piece's start, and a definition's checks went through every
    definition (both quadratic in the definitions); a parameter's hint walked its whole
    definition to find the closure it belongs to (61x for closures nested 8x as deep)."""
    from gradual.analysis.document import Document

    n = SMALL.get(axis.name, 100)

    def both() -> tuple:
        counts = []
        for size in (n, 8 * n):
            text = axis.make(size)
            analysis = Document("scale.rly").analyze(text)
            counts.append(lines_run(lambda a=analysis, t=text: EDITOR_QUERIES[query](a, t)))
        return tuple(counts)

    small, large = run_deep(both)
    assert large <= LIMIT * small, (
        f"{axis.name}, {query}: {small} lines at n = {n}, {large} at 8n ({large / small:.1f}x)"
    )


def test_diagnostics_on_one_long_line_print_in_linear_size() -> None:
    """Each diagnostic shows a window of its line, not the whole line: n errors on one line
    n statements long printed n times the line (quadratic in the line, as text, so counting
    calls would not see it)."""
    gradual.check(scale.errors_on_a_line(2))
    small, large = (len(scale.render_errors(gradual.check(scale.errors_on_a_line(n)))) for n in (100, 800))
    assert large <= LIMIT * small, f"{small} characters at n = 100, {large} at 8n ({large / small:.1f}x)"


def test_a_deep_program_is_checked_in_one_pass() -> None:
    """Every expression of 500 nested closures is inferred once (no level re-checks the ones
    inside it)."""
    from gradual.checker.infer import Checker

    seen: dict = {}
    original = Checker.expr

    def counting(self, e, env):  # a spy with the method's signature
        seen[id(e)] = seen.get(id(e), 0) + 1
        return original(self, e, env)

    Checker.expr = counting  # type: ignore[method-assign]
    try:
        assert gradual.check(scale.closure_calls(500)).ok
    finally:
        Checker.expr = original  # type: ignore[method-assign]
    assert len(seen) > 2000 and set(seen.values()) == {1}


def test_bounds_of_a_dim_with_many_remainders_grow_linearly() -> None:
    """`b - a0 // 2 - a1 // 2 - ...`: bounds split off remainder quotients (how exporters write
    `a % d`) a bounded number of times; splitting every one rebuilt the polynomial per quotient,
    quadratic in its size (400 quotients: 0.9 s)."""
    from gradual.shapes import Symbol
    from gradual.shapes.poly import Poly

    def remainders(k: int) -> Poly:
        p = Poly.atom(Symbol("b"))
        for i in range(k):
            p = p - Poly.atom(Symbol(f"a{i}")).floordiv(2)
        return p

    small, large = remainders(40), remainders(320)
    assert calls_made(large.bounds) <= LIMIT * calls_made(small.bounds)


LONG = 1_000_000
LONG_TEXTS = {  # a long string or comment, read by each path of the lexer
    "string lexeme": f'def @main(%x: {scale.T}) {{\n  nn.relu(%x, foo="{"a" * LONG}")\n}}\n',
    "string in a statement": f'def @main(%x: {scale.T}) {{\n  %y = nn.relu(%x, foo="{"a" * LONG}");\n  %y\n}}\n',
    "comment in a statement": f"def @main(%x: {scale.T}) {{\n  %y = nn.relu(%x) /* {'a' * LONG} */;\n  %y\n}}\n",
}


@pytest.mark.parametrize("what", LONG_TEXTS)
def test_a_long_string_or_comment_is_read_in_little_memory(what: str) -> None:
    """A million-character string attribute (or comment inside a statement) is read without
    a regular expression keeping a backtracking point per character: that took about 120
    bytes a character (3 GB for an 8-million-character string)."""
    import tracemalloc

    text = LONG_TEXTS[what]
    gradual.check(text)  # caches and tables, outside the measure
    tracemalloc.start()
    try:
        gradual.check(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * LONG, f"{what}: {peak / LONG:.0f} bytes a character"


def test_editor_positions_on_one_long_line_grow_linearly(monkeypatch) -> None:
    """The positions of n diagnostics on one line, converted for the editor in order, count
    the characters between one and the next, not from the line's start each time (n times
    the line: quadratic). Measured as the characters counted."""
    from lsprotocol import types as lsp
    from pygls.workspace.position_codec import PositionCodec

    from gradual.analysis.document import Document
    from gradual.lsp import convert
    from gradual.lsp import text as lsp_text

    counted = [0]
    units = lsp_text._units

    def counting(text: str, encoding: str) -> int:
        counted[0] += len(text)
        return units(text, encoding)

    monkeypatch.setattr(lsp_text, "_units", counting)

    def characters(n: int) -> int:
        analysis = Document("line.rly").analyze(scale.errors_on_a_line(n))
        positions = convert.Positions(analysis.source, PositionCodec(encoding=lsp.PositionEncodingKind.Utf16))
        counted[0] = 0
        for d in analysis.diagnostics:
            convert.diagnostic(d, "file:///line.rly", "line.rly", positions)
        return counted[0]

    small, large = run_deep(lambda: (characters(100), characters(800)))
    assert large <= LIMIT * small, f"{small} characters counted at n = 100, {large} at 8n ({large / small:.1f}x)"


def test_the_type_of_every_variable_grows_linearly() -> None:
    """`CheckResult.type_of` of a parameter's use looked the parameter up through every
    definition's parameters: asking it of every variable of n definitions was quadratic (53x
    the calls for 8x the definitions)."""
    from gradual.syntax import ast

    def both() -> tuple:
        counts = []
        for n in (100, 800):
            text = "\n".join(f"def @f{i}(%x: Tensor[({i + 1}, 3), float32]) {{ nn.relu(%x) }}" for i in range(n))
            result = gradual.check(text)
            uses = [v for d in result.module.defs for v in queries.walk(d.body) if isinstance(v, ast.Var)]
            assert [str(result.type_of(v)) for v in uses[:3]] == [f"Tensor[({i + 1}, 3), float32]" for i in range(3)]
            counts.append(calls_made(lambda r=result, vs=uses: [r.type_of(v) for v in vs]))
        return tuple(counts)

    small, large = run_deep(both)
    assert large <= LIMIT * small, f"{small} calls at n = 100, {large} at 8n ({large / small:.1f}x)"
