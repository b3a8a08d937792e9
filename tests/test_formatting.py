"""Formatting (properties; the worked examples are `tests/cases/formatting.case`).

Comments are sprinkled between the tokens of generated programs (`programs.py`: programs a
model would have) and of random trees of every syntactic form (`test_syntax_roundtrip.py`),
on lines of their own or after code, as line or block comments, and the texts are formatted
to a random width. Formatting must then never be refused, must keep the tree and every
comment in order, must be a fixed point (idempotent), and must fit every line to the width
unless a token or a comment is too long; a generated program must check after formatting as
it did before (the same types, runtime checks and diagnostics). Every example and operator
library file is a fixed point of formatting too, and the examples are formatted.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from formatcheck import meaning, too_long
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from programs import programs
from test_adt import adt_programs
from test_syntax_roundtrip import attr_values, modules, types

from gradual.syntax import ast
from gradual.syntax.ast import same_tree
from gradual.syntax.formatting import DEFAULT_WIDTH, applied, format_definitions, format_source, format_text
from gradual.syntax.layout import render
from gradual.syntax.parser import ParseError, parse_with_comments
from gradual.syntax.printer import attr_value_doc, format_attr_value, format_dim, format_module, format_type, type_doc
from gradual.syntax.source import Source

ROOT = Path(__file__).resolve().parents[1]

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
# how a comment is written, and what surrounds it: {} is a number that tells comments apart
FORMS = [
    " /* note {} */ ",  # between two tokens on a line
    "\n/* note {} */\n",  # a line of its own
    " // note {}\n",  # after code
    "\n// note {}\n",  # a line of its own
    "\n\n// section {}\n\n",  # between empty lines
    "\n/* two\n   lines {} */ ",  # a block over two lines, leading into code
    " //- {}\n",  # not a division, whatever precedes it
]


def token_gaps(text: str) -> list[int]:
    """Offsets of the spaces and line breaks between tokens (not inside strings)."""
    strings = [m.span() for m in _STRING.finditer(text)]
    return [i for i, ch in enumerate(text) if ch in " \n" and not any(a < i < b for a, b in strings)] + [len(text)]


@st.composite
def sprinkled(draw, texts) -> tuple[str, str, list]:
    """(program text, the text with comments inserted, the comments' texts in order)."""
    text = draw(texts)
    gaps = token_gaps(text)
    chosen = sorted(draw(st.lists(st.sampled_from(gaps), max_size=8)))
    out, at, written = [], 0, []
    for number, gap in enumerate(chosen):
        form = draw(st.sampled_from(FORMS)).format(number)
        out += [text[at:gap], form]
        written.append(form.strip())
        at = gap
    out.append(text[at:])
    return text, "".join(out), written


def program_texts():
    return programs(max_steps=5).map(lambda program: program.text())


def printed_modules():
    return modules.map(format_module)


widths = st.sampled_from([20, 40, 60, 80, 100, 120])
#: from this width on, a line of a generated program longer than the width holds a token or a
#: comment that is: below it, a line may also be longer when what the layout never breaks
#: (`), float32] = nn.relu(`, `def @name(`, a dimension such as `(h - 1) // 2 + 1`) is
FITTING = 60


_DIMS = (ast.DimInt, ast.DimUnknown, ast.DimName, ast.DimBinary, ast.DimInterval, ast.DimBroadcast, ast.DimVariadic)


def dim_texts(node: object) -> list[str]:
    """The text of every dimension in a tree (what the layout never breaks, besides tokens)."""
    found: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, _DIMS):
            found.append(format_dim(n))
        elif isinstance(n, (tuple, list)):
            stack.extend(n)
        elif dataclasses.is_dataclass(n):
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n) if f.name != "span")
    return found


def check_formatting(
    original: str, commented: str, written: list, width: int = DEFAULT_WIDTH, fit: bool = True
) -> None:
    """Formatting `commented` (`original` with the comments `written`) to `width` keeps the tree
    and the comments, is a fixed point, and fits lines to the width (`fit`: a dimension counts
    as a token, else it cannot be longer than the width at all)."""
    module, _ = parse_with_comments(Source(original))
    try:
        read, comments = parse_with_comments(Source(commented))
    except Exception:  # noqa: BLE001 - a text the parser refuses in any way is no round trip to compare
        read, comments = None, []
    # a comment can, rarely, read as something else where it was put (`// ...` after a dim
    # reads as a division): such a text is not the program with these comments
    assume(read is not None and same_tree(module, read) and [c.text for c in comments] == written)
    formatted = format_text(commented, width=width)
    assert formatted is not None, commented
    again, kept = parse_with_comments(Source(formatted))
    assert same_tree(module, again)
    assert [c.text for c in kept] == written
    assert format_text(formatted, width=width) == formatted, formatted
    if width >= FITTING:
        assert too_long(formatted, width, () if fit else dim_texts(module)) == [], formatted


@SETTINGS
@given(sprinkled(program_texts()), widths)
def test_formatting_generated_programs_keeps_the_tree_and_the_comments(case, width: int) -> None:
    check_formatting(*case, width)


@settings(SETTINGS, max_examples=50)  # random trees are slow to draw
@given(sprinkled(printed_modules()), widths)
def test_formatting_every_form_keeps_the_tree_and_the_comments(case, width: int) -> None:
    check_formatting(*case, width, fit=False)  # random dim arithmetic may be longer than any width


@pytest.mark.deep
@settings(SETTINGS, max_examples=2000)
@given(sprinkled(program_texts()), widths)
def test_formatting_generated_programs_deep(case, width: int) -> None:
    check_formatting(*case, width)


@pytest.mark.deep
@settings(SETTINGS, max_examples=1000)
@given(sprinkled(printed_modules()), widths)
def test_formatting_every_form_deep(case, width: int) -> None:
    check_formatting(*case, width, fit=False)


# Every construct with brackets breaks when it does not fit: only a token is longer than the
# width. A value printed as one text instead (an attribute object such as `VirtualDevice(...)`,
# a constructor's fields, a pattern) would leave a line too long; each is placed where it
# is the longest thing on its line, at widths just under its flat width (from FITTING on, where
# what else never breaks, a head such as `value=` or `%x: `, fits).
def fits_where_it_can(text: str) -> None:
    module = parse_with_comments(Source(text))[0]
    longest = max(len(line) for line in format_module(module).splitlines())
    for width in sorted({max(FITTING, longest - cut) for cut in (1, 5, 20)}):
        formatted = format_text(text, width=width)
        assert formatted is not None, text
        assert same_tree(parse_with_comments(Source(formatted))[0], module)
        assert format_text(formatted, width=width) == formatted, formatted
        assert too_long(formatted, width) == [], formatted


@SETTINGS
@given(attr_values)
def test_an_attribute_value_breaks_where_it_does_not_fit(value) -> None:
    fits_where_it_can(f"def @f(%x) {{\n  f(%x, value={format_attr_value(value)})\n}}\n")


@SETTINGS
@given(types)
def test_a_type_breaks_where_it_does_not_fit(t) -> None:
    fits_where_it_can(f"def @f(%x: {format_type(t)}) {{\n  %x\n}}\n")
    fits_where_it_can(f"def @f(%x) {{\n  g(%x, 1.9275100139785296e+16f as {format_type(t)})\n}}\n")  # after a cast


@settings(SETTINGS, max_examples=80)
@given(adt_programs())
def test_a_type_definition_and_a_match_break_where_they_do_not_fit(text: str) -> None:
    long_names = {name: name * 4 for name in ["Leaf", "Node", "Pair", "Empty", "One"]}  # patterns wider
    fits_where_it_can(re.sub(r"\b(Leaf|Node|Pair|Empty|One)\b", lambda m: long_names[m.group()], text))


@SETTINGS
@given(attr_values)
def test_an_attribute_value_laid_out_flat_is_its_text(value) -> None:
    assert render(attr_value_doc(value)) == format_attr_value(value)


@settings(SETTINGS, max_examples=60)  # each example checks two programs
@given(programs(max_steps=5), widths)
def test_a_formatted_program_checks_as_it_did(program, width: int) -> None:
    """The same types, runtime checks and diagnostics (codes and messages) after formatting."""
    text = program.text()
    formatted = format_text(text, width=width)
    assert formatted is not None, text
    assert meaning(formatted) == meaning(text), formatted
    if width >= FITTING:
        assert too_long(formatted, width) == [], formatted


@settings(SETTINGS, max_examples=100)
@given(sprinkled(program_texts()), widths, st.data())
def test_formatting_a_range_formats_the_definitions_it_touches(case, width: int, data) -> None:
    """Range formatting replaces only the definitions the range overlaps, and formatting the
    whole text after it gives what formatting the whole text gives."""
    _, text, _ = case
    assume(format_text(text, width=width) is not None)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    edits = format_definitions(text, start, end, width=width)
    whole = format_text(text, width=width)
    assert whole is not None
    for edit in edits:
        assert edit.start <= end and start <= edit.end + 1
        assert edit.text in whole, edit.text  # a definition formatted alone is laid out as in the whole
    result = applied(text, edits)
    assert format_text(result, width=width) == format_text(text, width=width)
    assert format_definitions(result, start, end, width=width) == [] or len(edits) == 0 and result == text


@settings(SETTINGS, max_examples=300)
@given(types)
def test_a_type_laid_out_flat_is_its_text(t) -> None:
    """The formatter's document of a type, on one line, is the type as messages print it."""
    assert render(type_doc(t)) == format_type(t)


SOURCES = sorted((ROOT / "examples").glob("*.rly")) + sorted((ROOT / "stdlib").glob("*.rly"))


@pytest.mark.parametrize("width", [40, 100])
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_example_and_library_file_formats_to_a_fixed_point(path: Path, width: int) -> None:
    text = path.read_text(encoding="utf-8")
    once = format_source(text, str(path), width)
    assert format_source(once, str(path), width) == once
    if width >= FITTING:
        assert too_long(once, width) == []
    if path.parent.name == "examples":
        assert meaning(once) == meaning(text)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.rly")), ids=lambda p: p.name)
def test_the_examples_are_formatted(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_source(text, str(path)) == text
    assert max(len(line) for line in text.splitlines()) <= DEFAULT_WIDTH


def test_a_program_without_comments_formats_as_the_printer_prints_it() -> None:
    text = "def @main(%x: Tensor[(2,), float32]) {   nn.relu(  %x) }"
    module, comments = parse_with_comments(Source(text))
    assert comments == [] and format_text(text) == format_module(module)


def relay_printouts_with_comments() -> list:
    """Every eighth program of the Relay corpus that holds a comment (`/* ty=... */`)."""
    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / "relay" / "corpus.jsonl").open()]
    return [row["text"] for row in rows if "/*" in row["text"]][::8]


def test_relay_printouts_format_with_their_type_comments() -> None:
    """Relay prints a `/* ty=... */` after every binding: formatting keeps each, in place."""
    formatted = 0
    for text in relay_printouts_with_comments():
        try:
            module, comments = parse_with_comments(Source(text))
        except ParseError:
            continue  # the corpus holds a few programs gradual does not read
        result = format_text(text)
        assert result is not None, text
        again, kept = parse_with_comments(Source(result))
        assert same_tree(module, again) and [c.text for c in kept] == [c.text for c in comments]
        assert sum(c.text.startswith("/*") for c in comments) == text.count("/*"), text  # all read
        assert format_text(result) == result, result
        formatted += 1
    assert formatted > 150


@pytest.mark.parametrize("newline", ["\r\n", "\n"])
def test_formatting_keeps_the_documents_line_breaks(newline: str) -> None:
    """Formatting a file whose lines end in `\\r\\n` keeps them, as ruff and black
    do: the printer writes `\\n`, and the editor's formatting replaced every line ending of a
    Windows file."""
    from gradual.analysis import Document
    from gradual.analysis.fixes import formatted

    text = newline.join(
        ["def @main(%x: Tensor[(2, 3), float32])  {", "  /* kept 😀 */", "  %0 = nn.relu( %x );", "  %0", "}", ""]
    )
    result = formatted(Document("crlf.rly").analyze(text))
    assert result == newline.join(
        ["def @main(%x: Tensor[(2, 3), float32]) {", "  /* kept 😀 */", "  %0 = nn.relu(%x);", "  %0", "}", ""]
    )
    assert formatted(Document("again.rly").analyze(result)) == result


def test_the_library_formats_a_program_and_raises_a_syntax_problem_when_it_does_not_parse() -> None:
    import gradual

    assert gradual.format_program("def @f(%x) {nn.relu(  %x)}") == "def @f(%x) {\n  nn.relu(%x)\n}\n"
    assert gradual.format_program(b"def @f(%x) { %x }\r\n", width=40) == "def @f(%x) {\r\n  %x\r\n}\r\n"
    with pytest.raises(gradual.SyntaxProblem) as raised:
        gradual.format_program("def @f(%x) { nn.relu(%x }")
    assert raised.value.diagnostic.code == "parse-error"
    with pytest.raises(TypeError, match="format_program takes a width"):
        gradual.format_program("", width="100")  # type: ignore[arg-type]


# The check by pieces: a formatted text whose unchanged definitions are the original's is
# proven by parsing only what changed; it must never accept what the whole parse refuses.
PIECES = """#[version = "0.0.5"]
// a header comment

type Pair[A] {
  MkPair(A, A),
}

/// not a declaration's documentation: a program's
def @f(%x: Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32] {
  %0 = nn.relu(%x); // trailing
  /* a block */ %0
}

def @g(%x: Tensor[(n, 4), float32], %y: Tensor[(n, 4), float32], %z: Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32] {
  add(%x, multiply(%y, %z))
}

def @k(%x: Tensor[(n, 4), float32], %y: Tensor[(n, 4), float32], %z: Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32] {
  %0 = f(%x, s="a  b", t="c  d");  // two  spaces
  /*  a  block  */ multiply(%y,  %z)
}

// between

def @h(%a: Tensor[(2,), float32]) {
  @f(%a) // last
}
"""


def _pieces_check(text: str, formatted: str) -> bool:
    from gradual.syntax.formatting import _parse, _same_by_pieces

    module, comments = _parse(text, "<test>")
    return _same_by_pieces(module, comments, text, formatted, "<test>")


def _whole_check(text: str, formatted: str) -> bool:
    from gradual.syntax.formatting import _parse

    module, comments = _parse(text, "<test>")
    try:
        again, kept = _parse(formatted, "<test>")
    except ParseError:
        return False
    return (
        same_tree(module, again)
        and [c.text for c in comments] == [c.text for c in kept]
        and [getattr(d, "doc", None) for d in module.defs] == [getattr(d, "doc", None) for d in again.defs]
    )


def test_a_formatted_text_is_proven_by_its_changed_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradual.syntax import formatting

    signatures = []
    same_signature = formatting._same_signature
    monkeypatch.setattr(formatting, "_same_signature", lambda a, b: signatures.append(b.name) or same_signature(a, b))
    formatted = format_source(PIECES)
    assert formatted != PIECES and "def @f(" in formatted
    signatures.clear()
    assert _pieces_check(PIECES, formatted)  # @f and @h are unchanged, @g's signature is broken
    assert signatures == ["g", "k"]  # and their bodies are kept (@k's but for blanks): only signatures are read
    assert not _pieces_check(PIECES, formatted.replace("%y: Tensor[(n, 4)", "%y: Tensor[(n, 5)"))
    assert not _pieces_check(PIECES, formatted.replace("def @g(", "def @gg("))
    assert _pieces_check(PIECES, formatted.replace("\n// between", "\n\n\n// between"))  # blank lines
    assert not _pieces_check(PIECES, formatted.replace("multiply", "subtract"))
    assert not _pieces_check(PIECES, formatted.replace("// between\n", ""))


def test_the_examples_concatenated_are_proven_by_their_changed_pieces() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.rly")))
    text = text.replace("def @", "def  @")  # every definition changed: none is reused whole, its body is
    formatted = format_source(text)
    assert _pieces_check(text, formatted)
    assert _pieces_check(text.replace("def  @", "def @", 3), formatted)
    assert not _pieces_check(text, formatted.replace("epsilon=1e-12", "epsilon=1e-11"))
    assert not _pieces_check(text, formatted.replace("%ln2_gamma, %ln2_beta", "%ln2_beta, %ln2_gamma"))


EDITS = st.sampled_from(
    ["", " ", "  ", "\t", "\n", "/*", "*/", "//", '"', "}", "{", ";", "1", "%x", "def @z() { 1 }\n", "/// d\n", "{0}"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_check_by_pieces_accepts_only_what_the_whole_parse_accepts(data) -> None:
    """Soundness: an edit anywhere in a formatted text (deleting, inserting or replacing a
    little) is accepted by the pieces only if the whole text parses to the same program,
    comments and documentation."""
    text = data.draw(st.sampled_from([PIECES, _STDLIB_PIECES]))
    formatted = format_source(text)
    at = data.draw(st.integers(0, len(formatted)))
    cut = data.draw(st.integers(0, 3))
    edited = formatted[:at] + data.draw(EDITS) + formatted[at + cut :]
    if _pieces_check(text, edited):
        assert _whole_check(text, edited), edited


_STDLIB_PIECES = """// operators
/// The first.
def first(%x: Tensor[(n,), T]) -> Tensor[(n,), T];

/// The second, whose signature is long enough to be broken over lines by the formatter at a width of one hundred.
def second(%x: Tensor[(n,), T], %y: Tensor[(n,), T], %z: Tensor[(n,), T], %w: Tensor[(n,), T]) -> Tensor[(n,), T];
/// The third.
def third(%x: Tensor[(n,), T]) -> Tensor[(n,), T];
"""
