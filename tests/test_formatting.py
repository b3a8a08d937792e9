"""Formatting keeps comments (properties; the worked examples are `tests/cases/formatting.case`).

Comments are sprinkled between the tokens of generated programs (`programs.py`: programs a
model would have) and of random trees of every syntactic form (`test_syntax_roundtrip.py`),
on lines of their own or after code, as line or block comments. Formatting must then never be
refused, must keep the tree and every comment in order, and must be a fixed point.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from programs import programs
from test_syntax_roundtrip import modules

from gradual.syntax.ast import same_tree
from gradual.syntax.formatting import format_text
from gradual.syntax.parser import ParseError, parse_with_comments
from gradual.syntax.printer import format_module
from gradual.syntax.source import Source

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


def check_formatting(original: str, commented: str, written: list) -> None:
    module, _ = parse_with_comments(Source(original))
    try:
        read, comments = parse_with_comments(Source(commented))
    except Exception:
        read, comments = None, []
    # a comment can, rarely, read as something else where it was put (`// ...` after a dim
    # reads as a division): such a text is not the program with these comments
    assume(read is not None and same_tree(module, read) and [c.text for c in comments] == written)
    formatted = format_text(commented)
    assert formatted is not None, commented
    again, kept = parse_with_comments(Source(formatted))
    assert same_tree(module, again)
    assert [c.text for c in kept] == written
    assert format_text(formatted) == formatted, formatted


@SETTINGS
@given(sprinkled(program_texts()))
def test_formatting_generated_programs_keeps_the_tree_and_the_comments(case) -> None:
    check_formatting(*case)


@settings(SETTINGS, max_examples=50)  # random trees are slow to draw
@given(sprinkled(printed_modules()))
def test_formatting_every_form_keeps_the_tree_and_the_comments(case) -> None:
    check_formatting(*case)


@pytest.mark.deep
@settings(SETTINGS, max_examples=2000)
@given(sprinkled(program_texts()))
def test_formatting_generated_programs_deep(case) -> None:
    check_formatting(*case)


@pytest.mark.deep
@settings(SETTINGS, max_examples=1000)
@given(sprinkled(printed_modules()))
def test_formatting_every_form_deep(case) -> None:
    check_formatting(*case)


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
    Windows file (found by an outside pass)."""
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
