"""The server's copy of a document is the editor's: changes applied and positions counted as
LSP 3.17 says (lines end at \\n, \\r\\n and \\r only; a character past a line's end is its end;
a line past the document's end is its end), in UTF-8 and UTF-16. pygls' own copy ended lines at
a form feed or U+2028 too and clamped a character past the end of the last line one short, so
the checked text silently drifted from the editor's.

A reference model of the protocol's text, `reference_apply`, is compared with `gradual.lsp.text`
on random edits, and a server (Neovim's capabilities: UTF-8 positions, pushed diagnostics) must
publish, after random edits with non-ASCII text, CRLF, tabs and positions past the ends, exactly
the diagnostics `gradual check` finds in the text the reference model says the editor holds."""

from __future__ import annotations

import bisect
import contextlib
import io
import json
import random
import re
from typing import Optional

import pytest
import pytest_lsp
from lspclient import EXAMPLES, Published, config, doc, open_document, uri_of
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

from gradual.cli import main as gradual_main
from gradual.lsp.text import Lines, apply_changes

pytestmark = [pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]
served = pytest.mark.asyncio(loop_scope="module")

UTF8, UTF16 = lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf16


# the reference: LSP's text model, written plainly ---------------------------------------------
def _starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def _units(char: str, encoding: str) -> int:
    if encoding == UTF8:
        return len(char.encode("utf-8", "surrogatepass"))
    return 2 if ord(char) > 0xFFFF else 1


def reference_offset(text: str, line: int, character: int, encoding: str) -> int:
    starts = _starts(text)
    if line >= len(starts):
        return len(text)
    at = starts[line]
    end = (
        len(text)
        if line + 1 == len(starts)
        else starts[line + 1] - (2 if text[starts[line + 1] - 2 : starts[line + 1]] == "\r\n" else 1)
    )
    count = 0
    while at < end and count + _units(text[at], encoding) <= character:
        count += _units(text[at], encoding)
        at += 1
    return at


def reference_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    starts = _starts(text)
    line = bisect.bisect_right(starts, offset) - 1
    return line, sum(_units(c, encoding) for c in text[starts[line] : offset])


def reference_apply(text: str, start: tuple, end: tuple, new: str, encoding: str) -> str:
    a, b = reference_offset(text, *start, encoding), reference_offset(text, *end, encoding)
    return text[:a] + new + text[b:]


PIECES = ["é", "😀", "\t", "\r\n", "\n", "\r", "\x0c", "\u2028", " ", "// c", "x", "(", ")", ",", "%x", "1", "?"]
BASE = (
    "// héllo 😀 wörld\x0c\ndef @main(%x: Tensor[(2, 3), float32]) {\r\n\t// 😀😀 é \u2028 x\n  nn.matmul(%x, %x)\n}\n"
)


def random_edit(rng: random.Random, text: str, encoding: str) -> tuple:
    """A random change: positions on character boundaries, past a line's end or past the
    document's end; empty edits among them."""
    starts = _starts(text)

    def somewhere() -> tuple[int, int]:
        r = rng.random()
        if r < 0.1:
            return len(starts) + rng.randint(0, 3), rng.randint(0, 5)
        line = rng.randrange(len(starts))
        if r < 0.25:
            return line, 200 + rng.randint(0, 5)
        offset = rng.randint(starts[line], reference_offset(text, line, 10**6, encoding))
        return reference_position(text, offset, encoding)

    a, b = sorted([somewhere(), somewhere()])
    new = "" if rng.random() < 0.15 else "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))
    return a, (a if not new and rng.random() < 0.5 else b), new


def change(start: tuple, end: tuple, new: str) -> lsp.TextDocumentContentChangePartial:
    return lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(*start), lsp.Position(*end)), text=new)


# the module, against the reference ------------------------------------------------------------
@pytest.mark.parametrize("encoding", [UTF8, UTF16])
@pytest.mark.parametrize("seed", range(20))
def test_changes_and_positions_follow_the_protocol(encoding: str, seed: int) -> None:
    rng = random.Random(seed)
    text = BASE if seed % 2 else (EXAMPLES / "shape_error.rly").read_text()
    lines = Lines(text)
    for _ in range(40):
        start, end, new = random_edit(rng, text, encoding)
        text = reference_apply(text, start, end, new, encoding)
        lines = apply_changes(lines, [change(start, end, new)], encoding)
        assert lines.text == text, (start, end, new)
        for offset in rng.sample(range(len(text) + 1), min(8, len(text) + 1)):
            if text[offset - 1 : offset + 1] == "\r\n":
                continue  # inside a line break: no position
            where = lines.position(offset, encoding)
            assert (where.line, where.character) == reference_position(text, offset, encoding)
            assert lines.offset(where, encoding) == offset


def _monotone_edit(
    rng: random.Random, text: str, encoding: str, after: Optional[tuple], before: Optional[tuple]
) -> tuple:
    """A random edit of `text` wholly at or after `after` or at or before `before` (positions),
    sometimes past a line's end or the text's."""
    for _ in range(50):
        start, end, new = random_edit(rng, text, encoding)
        if rng.random() < 0.1:
            end = (end[0], end[1] + rng.randint(1, 5))
        if (after is None or start >= after) and (before is None or end <= before):
            return start, end, new
    return (after or before), (after or before), rng.choice(["", "x", "\n", "é😀"])


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
@pytest.mark.parametrize("seed", range(30))
def test_many_changes_in_one_notification_are_applied_in_order(encoding: str, seed: int) -> None:
    """k changes of one didChange are made in one pass where they run through the text (each
    after the last, as multi-cursor typing sends them, or each before it, as VS Code sends a
    replace-all): applying each to a new copy of the whole text made 16,000 of them cost 1.2 s,
    quadratic. The result is the reference's, applying them one by one."""
    rng = random.Random(seed)
    text = BASE if seed % 2 else (EXAMPLES / "shape_error.rly").read_text()
    if seed % 3 == 0:
        text = text.replace("\n", "\r\n")
    lines, changes = Lines(text), []
    order = seed % 4  # 0: forward, 1: backward, 2: forward then backward, 3: random
    last_end = last_start = None
    for k in range(30):
        forward = order == 0 or order == 2 and k < 15
        if order == 3:
            start, end, new = random_edit(rng, text, encoding)
        elif forward:
            start, end, new = _monotone_edit(rng, text, encoding, last_end, None)
        else:
            start, end, new = _monotone_edit(rng, text, encoding, None, last_start)
        if rng.random() < 0.1:
            start, end = end, start  # a reversed range
        text = reference_apply(text, min(start, end), max(start, end), new, encoding)
        changes.append(change(start, end, new))
        low = min(start, end)
        breaks = re.findall(r"\r\n|\r|\n", new)
        tail = re.split(r"\r\n|\r|\n", new)[-1]
        low_offset = reference_offset(text, *low, encoding)
        low = reference_position(text, low_offset, encoding)
        last_start = low
        last_end = (low[0] + len(breaks), (low[1] if not breaks else 0) + sum(_units(c, encoding) for c in tail))
    assert apply_changes(lines, changes, encoding).text == text
    edited = apply_changes(lines, changes, encoding)
    for offset in rng.sample(range(len(text) + 1), min(8, len(text) + 1)):
        if text[offset - 1 : offset + 1] != "\r\n":
            where = edited.position(offset, encoding)
            assert (where.line, where.character) == reference_position(text, offset, encoding)


def test_a_batch_of_changes_makes_the_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replace-all's 2,000 changes (sent from the end up) and multi-cursor typing's (from
    the top down) build the new text once, not once a change (the structural side of the
    quadratic cost above: each build copies the whole text)."""
    import gradual.lsp.text as text_module

    built = []
    real = text_module.Lines

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, text: str, known: Optional[list] = None) -> None:
            built.append(len(text))
            super().__init__(text, known)

    monkeypatch.setattr(text_module, "Lines", Counting)
    text = "".join(f"  %v{i} = add(%v{i - 1}, %x);\n" for i in range(2000))
    lines = real(text)
    for rows in (range(1999, -1, -1), range(2000)):
        built.clear()
        edits = [change((i, len(f"  %v{i} = ")), (i, len(f"  %v{i} = add")), "subtract") for i in rows]
        assert apply_changes(lines, edits, UTF16).text == text.replace("= add(", "= subtract(")
        assert len(built) == 1


@pytest.mark.parametrize(
    "text, start, end, new, expected",
    [
        ("abc", (0, 10), (0, 10), "X", "abcX"),  # pygls: "abXc"
        ("abc\n", (0, 4), (0, 4), "X", "abcX\n"),  # pygls: "abc\nX"
        ("abc\r\ndef", (0, 4), (0, 4), "X", "abcX\r\ndef"),  # pygls: "abc\rX\ndef"
        ("a\u2028b\nc", (1, 0), (1, 0), "X", "a\u2028b\nXc"),  # pygls: "a\u2028Xb\nc"
        ("a\x0cb\nc", (1, 0), (1, 1), "", "a\x0cb\n"),
        ("a\rb\nc", (1, 1), (2, 0), "", "a\rbc"),
        ("a\r", (1, 0), (1, 0), "\nb", "a\r\nb"),  # a \r joined to the \n that follows it
        ("x😀y", (0, 1), (0, 2), "", "x😀y"),  # half a surrogate pair: nothing
        ("abc", (5, 0), (9, 9), "X", "abcX"),
    ],
)
def test_the_edge_cases(text: str, start: tuple, end: tuple, new: str, expected: str) -> None:
    assert apply_changes(Lines(text), [change(start, end, new)], UTF16).text == expected


def test_an_edit_keeps_the_lines_above_it() -> None:
    text = "".join(f"line {i}\n" for i in range(10_000))
    lines = Lines(text)
    assert lines.count() == 10_001
    edited = apply_changes(lines, [change((9_000, 0), (9_000, 0), "x")], UTF8)
    assert len(edited._starts) == 9_000  # kept, not found again
    assert edited.position(edited.text.index("xline 9000"), UTF8) == lsp.Position(9_000, 0)


# a server, against `gradual check` on the reference text --------------------------------------
@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.published = Published(lsp_client)
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("neovim@v0.11.0"),
            initialization_options={"debounceMs": 2, "diagnostics": "push"},
        )
    )
    assert result.capabilities.position_encoding == UTF8
    yield
    await lsp_client.shutdown_session()


def cli_diagnostics(tmp_path, text: str) -> list:
    """`gradual check --format json` on the text, each diagnostic's code and its range as
    LSP counts it (UTF-8)."""
    path = tmp_path / "edited.rly"
    path.write_bytes(text.encode("utf-8"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        gradual_main(["check", "--format", "json", str(path)])
    starts = _starts(text)  # the command line counts lines as LSP does (a lone \r ends one)

    def where(line: int, column: int) -> tuple[int, int]:
        return reference_position(text, starts[line - 1] + column - 1, UTF8)

    return sorted(
        (d["code"], where(d["line"], d["column"]), where(d["end_line"], d["end_column"]))
        for d in json.loads(out.getvalue())["files"][0]["diagnostics"]
    )


@served
@pytest.mark.parametrize("seed", range(4))
async def test_the_server_checks_the_editors_text(client: LanguageClient, tmp_path, seed: int) -> None:
    rng = random.Random(f"server {seed}")
    text = BASE if seed % 2 else (EXAMPLES / "shape_error.rly").read_text()
    uri = uri_of(f"text-{seed}.rly")
    open_document(client, uri, text)
    for version in range(2, 27):
        start, end, new = random_edit(rng, text, UTF8)
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), [change(start, end, new)]
            )
        )
        text = reference_apply(text, start, end, new, UTF8)
        published = await client.published.wait(uri, version)
        got = sorted(
            (d.code, (d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character))
            for d in published.diagnostics
        )
        assert got == cli_diagnostics(tmp_path, text), (version, start, end, new, text)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))


@served
@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x85", "\r"])
async def test_a_line_separator_in_a_comment(client: LanguageClient, separator: str) -> None:
    """A lone \r ends a line, and so the `//` comment (as `gradual check` reads it too); the
    others are characters of the comment."""
    after = "// b" if separator == "\r" else "b"
    text = f"// a{separator}{after}\ndef @main(%x: Tensor[(2, 3), float32]) {{\n  nn.matmul(%x, %x)\n}}\n"
    line = 3 if separator == "\r" else 2
    uri = uri_of(f"separator-{ord(separator)}.rly")
    open_document(client, uri, text)
    (first,) = (await client.published.wait(uri, 1)).diagnostics
    assert (first.range.start.line, first.range.start.character) == (line, 16)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2), [change((line, 0), (line, 0), "  ")]
        )
    )
    (second,) = (await client.published.wait(uri, 2)).diagnostics
    assert (second.range.start.line, second.range.start.character) == (line, 18)
    hover = await client.text_document_hover_async(lsp.HoverParams(doc(uri), second.range.start))
    assert "Tensor[(2, 3), float32]" in hover.contents.value
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))


@served
async def test_changes_to_a_document_never_opened_are_ignored(client: LanguageClient) -> None:
    uri = uri_of("never-opened.rly")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2), [change((0, 0), (0, 0), "x")]
        )
    )
    assert await client.text_document_hover_async(lsp.HoverParams(doc(uri), lsp.Position(0, 0))) is None
    assert await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(uri))) == []


@pytest.mark.parametrize("encoding", [UTF8, UTF16])
@pytest.mark.parametrize("order", ["forward", "backward", "shuffled"])
def test_positions_asked_in_any_order_along_a_line(encoding: str, order: str) -> None:
    """`position` counts from the previous position on the same line (forward or back): every
    offset of lines of wide characters, in any order, against the reference."""
    text = "é😀x\t" * 40 + "\n" + "😀a" * 30 + "\r\n" + "b" * 10
    offsets = [o for o in range(len(text) + 1) if text[o - 1 : o + 1] != "\r\n"]
    if order == "backward":
        offsets.reverse()
    elif order == "shuffled":
        random.Random(7).shuffle(offsets)
    lines = Lines(text)
    for offset in offsets:
        where = lines.position(offset, encoding)
        assert (where.line, where.character) == reference_position(text, offset, encoding), offset


@served
@pytest.mark.parametrize("breaks", ["\r", "\r\n", "\n", "mixed"])
async def test_the_editor_and_the_command_line_count_the_same_lines(
    client: LanguageClient, tmp_path, breaks: str
) -> None:
    """A lone `\r` (classic Mac) ends a line for LSP, and now for the lexer, spans, the
    renderer, JSON and SARIF too: the `//` comment ended at the `\r` only for the editor, so
    `gradual check` read the rest of the file as a comment and put every position on line 1. The server's diagnostics are the command line's, line for line."""
    lines = [
        "def @main(%x: Tensor[(2, 3), float32]) {  // a note",
        "  /* a block",
        "  comment */ %y = nn.relu(%x);",
        '  %z = nn.matmul(%x, %x);  // "quoted"',
        "  %q",
        "}",
        "",
    ]
    joiners = ["\r", "\r\n", "\n"]
    text = "".join(line + (joiners[i % 3] if breaks == "mixed" else breaks) for i, line in enumerate(lines))
    uri = uri_of(f"breaks-{len(breaks)}-{breaks[-1] == chr(10)}.rly")
    open_document(client, uri, text)
    published = await client.published.wait(uri, 1)
    got = sorted(
        (d.code, (d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character))
        for d in published.diagnostics
    )
    expected = cli_diagnostics(tmp_path, text)
    assert [code for code, _, _ in expected] == ["shape-mismatch", "unknown-variable"]
    assert got == expected
    assert [start[0] for _, start, _ in expected] == [3, 4]  # 0-based: the lines an editor shows
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))
