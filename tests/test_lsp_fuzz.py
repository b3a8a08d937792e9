"""Fuzzed edit sequences on the examples, through `gradual lsp` over stdio: random insertions
and deletions (many mid-token, many leaving text that does not parse), sent as incremental
changes, with a random request after each. The server must answer every request, never crash,
and its diagnostics for the final version must be exactly those of
`gradual check --format json` on the final text. Derandomized: the same edits every run."""

from __future__ import annotations

import contextlib
import io
import json
import random

import pytest
import pytest_lsp
from lspclient import EXAMPLES, Published, config, doc, edit, open_document, uri_of
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

from gradual.cli import main as gradual_main

# replies that break the protocol for the declared client fail the test
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.rly"))
SEQUENCES = 2
EDITS = 10
PIECES = [
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    "%",
    "@",
    ":",
    "=",
    "?",
    "*",
    ".",
    "1",
    "28",
    " ",
    "\n",
    "x",
    "n",
    "Tensor",
    "float32",
    "nn.dense",
    "add(",
    "%x",
    "let ",
    "as ",
    "//",
    "/*",
    "*/",
]


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.published = Published(lsp_client)
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), initialization_options={"debounceMs": 2}
        )
    )
    yield
    await lsp_client.shutdown_session()


def position(text: str, offset: int) -> lsp.Position:
    line = text.count("\n", 0, offset)
    return lsp.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


def mutate(rng: random.Random, text: str) -> tuple[int, int, str]:
    """A random edit: (start, end, new text), ASCII only (UTF-16 units = code points)."""
    start = rng.randrange(len(text) + 1)
    if rng.random() < 0.4 and text:
        end = min(len(text), start + rng.randint(1, 12))
        return start, end, ""
    if rng.random() < 0.3 and text:
        a = rng.randrange(len(text))
        return start, start, text[a : a + rng.randint(1, 20)]
    return start, start, "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))


async def some_request(client: LanguageClient, rng: random.Random, uri: str, text: str) -> None:
    """One random request at a random place; it must get an answer (not an error)."""
    at = position(text, rng.randrange(len(text) + 1))
    where = lsp.Range(at, at)
    kind = rng.randrange(6)
    if kind == 0:
        await client.text_document_hover_async(lsp.HoverParams(doc(uri), at))
    elif kind == 1:
        await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(uri), lsp.Range(lsp.Position(0, 0), at)))
    elif kind == 2:
        await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(uri)))
    elif kind == 3:
        await client.text_document_definition_async(lsp.DefinitionParams(doc(uri), at))
    elif kind == 4:
        await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=doc(uri), position=at, context=lsp.ReferenceContext(include_declaration=True)
            )
        )
    else:
        await client.text_document_code_action_async(
            lsp.CodeActionParams(doc(uri), where, lsp.CodeActionContext(diagnostics=[]))
        )


def cli_diagnostics(tmp_path, name: str, text: str) -> list:
    """`gradual check --format json` on the text: (code, severity, message, range) per diagnostic."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        gradual_main(["check", "--format", "json", str(path)])
    found = json.loads(out.getvalue())["files"][0]["diagnostics"]
    return sorted(
        (d["code"], d["severity"], d["message"], d["line"] - 1, d["column"] - 1, d["end_line"] - 1, d["end_column"] - 1)
        for d in found
    )


def lsp_diagnostics(diags: tuple) -> list:
    severity = {
        lsp.DiagnosticSeverity.Error: "error",
        lsp.DiagnosticSeverity.Warning: "warning",
        lsp.DiagnosticSeverity.Information: "note",
    }
    out = []
    for d in diags:
        message = d.message.split("\n")[0]
        out.append(
            (
                d.code,
                severity[d.severity],
                message,
                d.range.start.line,
                d.range.start.character,
                d.range.end.line,
                d.range.end.character,
            )
        )
    return sorted(out)


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.stem)
async def test_fuzzed_edits(client: LanguageClient, example, tmp_path) -> None:
    for sequence in range(SEQUENCES):
        rng = random.Random(f"{example.name}:{sequence}")
        text = example.read_text(encoding="utf-8")
        uri = uri_of(f"fuzz-{example.stem}-{sequence}.rly")
        open_document(client, uri, text, 1)
        version = 1
        for _ in range(EDITS):
            start, end, new = mutate(rng, text)
            version += 1
            edit(client, uri, version, position(text, start), position(text, end), new)
            text = text[:start] + new + text[end:]
            if rng.random() < 0.6:
                await some_request(client, rng, uri, text)
        published = await client.published.wait(uri, version)
        expected = cli_diagnostics(tmp_path, f"{example.stem}-{sequence}.rly", text)
        got = lsp_diagnostics(published.diagnostics)
        assert [g[:2] + g[3:] for g in got] == [e[:2] + e[3:] for e in expected], text
        for g, e in zip(got, expected):
            assert g[2].startswith(e[2]), (g, e)
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))
