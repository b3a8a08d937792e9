"""The analysis layer: an edited document (gradual.analysis.Document) checks exactly as
`gradual.check` does, re-checking only what an edit touched; and its queries (hover,
navigation, hints) and fixes answer by offset."""

from __future__ import annotations

import json

import pytest
from casefile import all_cases
from hypothesis import given, settings
from hypothesis import strategies as st

import gradual
from gradual.analysis import Document, queries
from gradual.analysis.document import piece_bounds
from gradual.diagnostics.render import diagnostic_json

CASES = all_cases()
LAYER = """def @layer{i}(%x: Tensor[(b, 64), float32], %w: Tensor[(64, 64), float32]) -> Tensor[(b, 64), float32] {{
  %0 = nn.dense(%x, %w);
  {call}
}}

"""


def chain(n: int, broken: int = -1) -> str:
    """n definitions, each calling the previous one; `broken` has a wrong call."""
    out = []
    for i in range(n):
        call = f"@layer{i - 1}(%0, %w)" if i else "nn.relu(%0)"
        if i == broken:
            call = "nn.relu(%0, %0)"
        out.append(LAYER.format(i=i, call=call))
    return "".join(out)


def same_as_check(analysis, text: str, functions: bool = True) -> None:
    """The document's diagnostics and function types are gradual.check's."""
    expected = gradual.check(text, analysis.path)
    show = lambda ds: sorted(json.dumps(diagnostic_json(d), sort_keys=True) for d in ds)  # noqa: E731
    assert show(analysis.diagnostics) == show(expected.diagnostics)
    if not functions:
        return
    assert {k: str(f.type) for k, f in analysis.result.functions.items()} == {
        k: str(f.type) for k, f in expected.functions.items()
    }
    assert {k: f.check_count for k, f in analysis.result.functions.items()} == {
        k: f.check_count for k, f in expected.functions.items()
    }


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_case_checks_as_gradual_check_does(case) -> None:
    document = Document("case.rly")
    same_as_check(document.analyze(case.program), case.program)
    # and again after everything moved down two lines (every piece reused, none re-checked)
    moved = "\n\n" + case.program
    analysis = document.analyze(moved)
    same_as_check(analysis, moved)
    assert analysis.rechecked == () or not analysis.result.functions


def test_only_the_edited_definition_is_checked_again() -> None:
    document = Document("chain.rly")
    first = document.analyze(chain(30))
    assert len(first.rechecked) == 30
    edited = document.analyze(chain(30, broken=12))
    assert edited.rechecked == ("layer12",)
    assert [d.code for d in edited.diagnostics] == ["wrong-arity"]
    same_as_check(edited, chain(30, broken=12))
    fixed = document.analyze(chain(30))
    assert fixed.rechecked == ("layer12",) and fixed.diagnostics == []


def test_a_changed_signature_rechecks_the_callers() -> None:
    document = Document("chain.rly")
    text = chain(5)
    document.analyze(text)
    changed = text.replace("def @layer2(%x: Tensor[(b, 64), float32]", "def @layer2(%x: Tensor[(b, 32), float32]")
    analysis = document.analyze(changed)
    assert analysis.rechecked == ("layer2", "layer3")  # layer3 calls layer2; layer4 sees layer3 unchanged
    same_as_check(analysis, changed)


HINTED = """def @loop(%i: int32, %x) {
  can_unify(%x, shape=(1, 1));
  if (less(%i, 3)) { @loop(add(%i, 1), nn.relu(%x)) } else { %x }
}
def @main(%s: Tensor[(SEED), float32]) { @loop(0, %s) }
"""


def test_a_call_that_widens_a_hint_is_checked_as_gradual_check_does() -> None:
    """A caller passing another size than a hint guessed widens it (the definition is checked
    again); an edit back to the guessed size makes it a guess again."""
    document = Document("loop.rly")
    for seed in ("2, 1", "1, 1", "1, 1", "3, 3", "3, 3"):
        text = HINTED.replace("SEED", seed)
        same_as_check(document.analyze(text), text)


def test_pieces_start_at_definitions_outside_comments() -> None:
    text = '#[version = "0.0.5"]\n/* a comment\ndef @not_a_piece() { 1 }\n*/\ndef @a() { 1 }\ndef @b() { 2 }\n'
    starts = [text[s:e].split("\n")[0] for s, e in piece_bounds(text)]
    assert starts == ['#[version = "0.0.5"]', "def @a() { 1 }", "def @b() { 2 }"]


def test_a_syntax_error_is_the_whole_texts_first_one() -> None:
    """A piece that breaks only at its end (a missing `}`) reports where the whole text does."""
    text = chain(3).replace("  nn.relu(%0)\n}", "  nn.relu(%0)\n", 1)
    analysis = Document("broken.rly").analyze(text)
    same_as_check(analysis, text, functions=False)
    assert [d.code for d in analysis.diagnostics] == ["parse-error"]
    assert analysis.result.functions  # the other pieces are still checked, for hover and hints


def test_queries_answer_by_offset() -> None:
    text = gradual.__file__ and open(__file__.replace("tests/test_analysis.py", "examples/call_check.rly")).read()
    analysis = Document("call_check.rly").analyze(text)
    at = text.index("@square(%x)") + len("@square(") + 1
    found = queries.hover(analysis, at)
    assert found is not None and "%x: Tensor[(?, ?), float32]" in "\n".join(found.lines)
    (binder,) = queries.definition(analysis, at)
    assert binder.text == "%x" and binder.start_position[0] == 7
    (check,) = queries.check_sites(analysis)
    assert check.span.text == "%x" and str(check.type) == "Tensor[(10, 10), float32]"
    assert [h.label for h in queries.inlay_hints(analysis, 0, len(text))] == ["as Tensor[(10, 10), float32]"]
    assert [s.name for s in queries.symbols(analysis)] == ["@square", "@main"]


def _nodes(node):
    """Every syntax node under `node` (iteratively)."""
    from gradual.syntax import ast

    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Node):
            yield item
            stack.extend(getattr(item, name) for name in getattr(item, "__dataclass_fields__", {}) if name != "span")
        elif isinstance(item, tuple):
            stack.extend(item)


def test_every_literal_and_variable_has_a_type_in_hover_and_the_library() -> None:
    """Hover on a literal said `?` and `CheckResult.type_of` answered None for every literal
    and variable (the checker records only compound expressions), though its docstring
    promised the type of an expression. Over every case program that checks clean: each
    literal's hover and `type_of` is its dtype, each variable's `type_of` its binder's."""
    from gradual.syntax import ast

    literals = variables = 0
    for case in all_cases():
        result = gradual.check(case.program)
        if not result.ok or result.module is None:
            continue
        analysis = Document("case.rly").analyze(case.program)
        for d in result.module.defs:
            if d.span.source is not result.source:
                continue  # a definition of the prelude the program uses
            for node in _nodes(d.body):
                if isinstance(node, ast.Literal) and node.span is not None and node.span.end > node.span.start:
                    literals += 1
                    assert str(result.type_of(node)) == str(node.dtype), (case.name, node)
                    found = queries.hover(analysis, node.span.start)
                    assert found is not None and found.lines[1] != "?", (case.name, node, found.lines)
                elif isinstance(node, ast.Var) and result.resolution.binder_of(node) is not None:
                    binder = result.resolution.binder_of(node)
                    if binder.kind in ("param", "let"):
                        variables += 1
                        assert result.type_of(node) is not None, (case.name, node)
    assert literals > 200 and variables > 1000, (literals, variables)


def _positions(diagnostics) -> list:
    return [(d.code, d.span.start_position, d.span.end_position, d.message) for d in diagnostics]


@pytest.mark.parametrize("brk", ["\r", "\r\n"])
def test_every_case_checks_the_same_whatever_its_line_breaks(brk: str) -> None:
    """Every case program with its `\\n`s made `\\r` (classic Mac) or `\\r\\n` gives the same
    diagnostics at the same lines and columns, through `gradual.check` and through the
    language server's incremental Document. A lone `\\r` was a blank to the lexer: a `//`
    comment ran on to the end of the file (found by an outside pass: on the code before the
    fix, 96 of the 771 case programs differed with `\\r`)."""
    differ = []
    for case in all_cases():
        expected = _positions(gradual.check(case.program).diagnostics)
        text = case.program.replace("\n", brk)
        if _positions(gradual.check(text).diagnostics) != expected:
            differ.append(case.name)
        elif _positions(Document("case.rly").analyze(text).diagnostics) != expected:
            differ.append(case.name + " (Document)")
    assert not differ, (len(differ), differ[:10])


@settings(max_examples=25, deadline=None, derandomize=True)
@given(stop=st.integers(1, 40), edit=st.integers(0, 5), broken=st.integers(-1, 5))
def test_an_analysis_cancelled_at_any_checkpoint_leaves_the_document_whole(stop: int, edit: int, broken: int) -> None:
    """Analyses stop between two pieces parsed, two definitions resolved or two components
    checked (the server's turns and superseding): whichever checkpoint one stops at, the next
    analysis is gradual.check's, reusing what was kept."""
    from gradual.analysis import Cancelled

    document = Document("cancel.rly")
    document.analyze(chain(6))
    text = chain(6, broken).replace(f"@layer{edit}(", f"@layer{edit}(", 1) + f"// edit {edit}\n"
    calls = [0]

    def cancelled() -> bool:
        calls[0] += 1
        return calls[0] >= stop

    try:
        document.analyze(text, 2, cancelled)
    except Cancelled:
        pass
    same_as_check(document.analyze(text, 3), text)


def test_turns_pause_an_analysis_while_one_edited_later_runs() -> None:
    """`Turns`: an analysis waits at its checkpoint while one of higher priority holds a turn
    (reserved at an edit, before its analysis even starts), goes on when it ends, and stops
    waiting when it is cancelled."""
    import threading
    import time

    from gradual.analysis.scheduling import Turns

    turns = Turns()
    low = turns.begin(1)
    high = turns.reserve(None, 2)
    passed = threading.Event()
    cancel = threading.Event()

    def run() -> None:
        turns.checkpoint(low, cancel.is_set)
        passed.set()

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.2)
    assert not passed.is_set()  # it waits for the higher one
    assert turns.checkpoint(high, lambda: False) is False  # the higher one never waits
    turns.end(high)
    assert passed.wait(10)
    worker.join()
    # a waiting analysis that is superseded stops waiting
    high = turns.reserve(None, 3)
    passed.clear()
    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.1)
    assert not passed.is_set()
    cancel.set()
    turns.wake()
    assert passed.wait(10)
    worker.join()


def test_two_threads_parse_at_once() -> None:
    """Each parse borrows a parser of its own (the language server analyzes documents on
    threads of their own): texts parsed together give the trees they give alone."""
    import threading

    from gradual.syntax.ast import same_tree
    from gradual.syntax.parser import parse

    texts = [chain(60), chain(40).replace("layer", "block")]
    alone = [parse(t) for t in texts]
    together: list = [None, None]

    def run(i: int) -> None:
        together[i] = [parse(texts[i]) for _ in range(3)]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(2):
        assert all(same_tree(tree, alone[i]) for tree in together[i])
        assert all(d.span.source.text == texts[i] for tree in together[i] for d in tree.defs)
