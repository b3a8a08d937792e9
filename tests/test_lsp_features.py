"""The editing features of `gradual lsp` over stdio, as a UTF-16 client with VS Code's
capabilities: completion, signature help, rename with prepareRename, semantic tokens,
workspace symbols, document highlight, folding ranges, and the quick fixes of a
broadcast mismatch. One server for the module, its workspace a folder of `.rly` files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lspclient import Published, config, doc, edit, open_document, position_of, uri_of
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

WORKSPACE = Path(tempfile.mkdtemp(prefix="gradual-lsp-features-"))
(WORKSPACE / "models").mkdir()
(WORKSPACE / "models" / "layers.rly").write_text(
    "// on disk, never opened\ndef @conv_block(%x: Tensor[(1, 3), float32]) {\n  nn.relu(%x)\n}\n", encoding="utf-8"
)
(WORKSPACE / ".hidden").mkdir()
(WORKSPACE / ".hidden" / "secret.rly").write_text("def @conv_hidden(%x) { %x }\n", encoding="utf-8")

PROGRAM = """// a dense layer and its caller
/* a block comment
   over two lines */
def @dense(%x: Tensor[(b, k), float32], %w: Tensor[(m, k), float32]) -> Tensor[(b, m), float32] {
  %0 = nn.dense(%x, %w);
  let %y = nn.relu(%0);
  add(%y, %0)
}

def @main(%input: Tensor[(?, 784), float32], %weights: Tensor[(128, 784), float32]) {
  @dense(%input, %weights)
}
"""
BROADCAST = """def @main(%x: Tensor[(3, 4), float32], %bias: Tensor[(3,), float32]) {
  add(%x, %bias)
}
"""


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.published = Published(lsp_client)
    lsp_client.init_result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=WORKSPACE.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=WORKSPACE.as_uri(), name="ws")],
            initialization_options={"gradual": {"debounceMs": 5}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def opened(client: LanguageClient, name: str, text: str) -> str:
    uri = uri_of(name)
    open_document(client, uri, text)
    await client.published.wait(uri, 1)
    return uri


async def test_capabilities(client: LanguageClient) -> None:
    caps = client.init_result.capabilities
    assert caps.completion_provider and "%" in caps.completion_provider.trigger_characters
    assert caps.signature_help_provider and "(" in caps.signature_help_provider.trigger_characters
    assert caps.rename_provider.prepare_provider
    assert caps.semantic_tokens_provider.full and "parameter" in caps.semantic_tokens_provider.legend.token_types
    assert caps.workspace_symbol_provider and caps.document_highlight_provider and caps.folding_range_provider


async def complete(client: LanguageClient, uri: str, at: lsp.Position) -> lsp.CompletionList:
    found = await client.text_document_completion_async(lsp.CompletionParams(doc(uri), at))
    assert isinstance(found, lsp.CompletionList)
    return found


async def test_completion_of_operators_attributes_variables_dims_dtypes_functions(client: LanguageClient) -> None:
    uri = await opened(client, "complete.rly", PROGRAM)
    # an operator by its namespace, with its signature and doc line
    edit(client, uri, 2, position_of(PROGRAM, "nn.dense"), position_of(PROGRAM, "nn.dense", 8), "nn.de")
    text = PROGRAM.replace("nn.dense(", "nn.de(", 1)
    found = await complete(client, uri, position_of(text, "nn.de(", 5))
    dense = next(i for i in found.items if i.label == "nn.dense")
    assert dense.detail.startswith("nn.dense(%data: Tensor[(*b, k), T]") and "units: int? = None" in dense.detail
    assert "x W^T" in dense.documentation.value
    assert dense.text_edit.range == lsp.Range(position_of(text, "nn.de("), position_of(text, "nn.de(", 5))
    assert all(i.label.startswith("nn.de") for i in found.items)
    # a short name finds namespaced operators; nothing but namespaces and plain operators at first
    found = await complete(client, uri, position_of(text, "nn.de(", 0))
    labels = {i.label for i in found.items}
    assert {"nn.", "aten.", "add", "%x", "%w", "let"} <= labels and "nn.dense" not in labels and "@dense" not in labels
    assert found.is_incomplete
    # inside the call: its attributes first, then what an argument may be
    text2 = text.replace("nn.de(%x, %w)", "nn.dense(%x, %w, ", 1)
    edit(client, uri, 3, position_of(text, "nn.de("), position_of(text, "%w);", 3), "nn.dense(%x, %w, ")
    found = await complete(client, uri, position_of(text2, "%w, ", 4))
    assert [i.label for i in found.items[:2]] == ["units", "out_dtype"]
    assert found.items[0].detail == "units: int? = None" and found.items[0].text_edit.new_text == "units="
    assert found.items[0].kind == lsp.CompletionItemKind.Property
    # a variable: those written before, with their inferred types
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))
    uri = await opened(client, "complete2.rly", PROGRAM)
    found = await complete(client, uri, position_of(PROGRAM, "%y, %0)", 1))
    variables = {i.label: i.detail for i in found.items}
    assert variables["%x"] == "Tensor[(b, k), float32]" and variables["%0"] == "Tensor[(b, m), float32]"
    assert "%input" not in variables  # another definition's
    # dims inside a tensor type, then dtypes after them
    found = await complete(client, uri, position_of(PROGRAM, "(m, k)", 1))
    assert {i.label for i in found.items} >= {"b", "k", "m", "?"}
    assert all(i.kind == lsp.CompletionItemKind.TypeParameter for i in found.items)
    found = await complete(client, uri, position_of(PROGRAM, "float32]", 6))
    assert [i.label for i in found.items] == ["float32"]
    # functions after `@`
    found = await complete(client, uri, position_of(PROGRAM, "@dense(%input", 2))
    assert [(i.label, i.detail) for i in found.items] == [
        ("@dense", "fn (Tensor[(b, k), float32], Tensor[(m, k), float32]) -> Tensor[(b, m), float32]")
    ]
    # nothing in a comment
    found = await complete(client, uri, position_of(PROGRAM, "dense layer", 3))
    assert not found.items


async def test_signature_help_marks_the_active_parameter(client: LanguageClient) -> None:
    text = PROGRAM.replace("nn.dense(%x, %w)", "nn.dense(%x, %w, units=", 1)
    uri = uri_of("signature.rly")
    open_document(client, uri, text)
    found = await client.text_document_signature_help_async(
        lsp.SignatureHelpParams(doc(uri), position_of(text, "units=", 6))
    )
    (sig,) = found.signatures
    assert sig.label.startswith("nn.dense(%data: Tensor[(*b, k), T], %weight: Tensor[(u, k), U], units: int? = None")
    start, end = sig.parameters[found.active_parameter].label
    assert sig.label[start:end] == "units: int? = None"
    found = await client.text_document_signature_help_async(
        lsp.SignatureHelpParams(doc(uri), position_of(text, "%w, units", 1))
    )
    start, end = found.signatures[0].parameters[found.active_parameter].label
    assert found.signatures[0].label[start:end] == "%weight: Tensor[(u, k), U]"
    found = await client.text_document_signature_help_async(
        lsp.SignatureHelpParams(doc(uri), position_of(text, "%input, %weights", 8))
    )
    start, end = found.signatures[0].parameters[found.active_parameter].label
    assert found.signatures[0].label.startswith("@dense(%x: Tensor[(b, k), float32]")
    assert found.signatures[0].label[start:end] == "%w: Tensor[(m, k), float32]"


def apply(text: str, edits: list) -> str:
    lines = text.split("\n")

    def offset(p: lsp.Position) -> int:
        return sum(len(line) + 1 for line in lines[: p.line]) + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


async def test_rename_variables_functions_and_dims(client: LanguageClient) -> None:
    uri = await opened(client, "rename.rly", PROGRAM)
    at = position_of(PROGRAM, "%0 = ", 1)
    prepared = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(uri), at))
    assert prepared.placeholder == "%0" and prepared.range.start == position_of(PROGRAM, "%0 = ")
    renamed = await client.text_document_rename_async(lsp.RenameParams(doc(uri), at, "%hidden"))
    (change,) = renamed.document_changes
    assert change.text_document.version == 1
    after = apply(PROGRAM, change.edits)
    assert "%hidden = nn.dense" in after and "nn.relu(%hidden)" in after and "add(%y, %hidden)" in after
    # without the sigil, a function
    renamed = await client.text_document_rename_async(
        lsp.RenameParams(doc(uri), position_of(PROGRAM, "@dense(%input", 2), "layer")
    )
    after = apply(PROGRAM, renamed.document_changes[0].edits)
    assert "def @layer(" in after and "@layer(%input, %weights)" in after
    # a dim symbol, everywhere in its definition
    renamed = await client.text_document_rename_async(
        lsp.RenameParams(doc(uri), position_of(PROGRAM, "(m, k)", 1), "units")
    )
    after = apply(PROGRAM, renamed.document_changes[0].edits)
    assert "Tensor[(units, k), float32]" in after and "Tensor[(b, units), float32] {" in after


@pytest.mark.parametrize(
    ("needle", "name_at", "placeholder"),
    [("%0 = ", 0, "%0"), ("@dense(%input", 0, "@dense"), ("def @dense", 4, "@dense"), ("(m, k)", 1, "m")],
)
async def test_prepare_rename_names_what_a_rename_would_change(
    client: LanguageClient, needle: str, name_at: int, placeholder: str
) -> None:
    """prepareRename answers the whole name under the cursor (a variable, a function at a call
    or at its definition, a dim symbol), and the rename from there changes each use."""
    uri = uri_of("prepare.rly")
    if not client.published.of(uri):
        await opened(client, "prepare.rly", PROGRAM)
    where = position_of(PROGRAM, needle, name_at + 1)
    prepared = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(uri), where))
    assert prepared.placeholder == placeholder
    assert prepared.range == lsp.Range(
        position_of(PROGRAM, needle, name_at), position_of(PROGRAM, needle, name_at + len(placeholder))
    )
    renamed = await client.text_document_rename_async(lsp.RenameParams(doc(uri), where, placeholder + "_2"))
    edits = renamed.document_changes[0].edits
    after = apply(PROGRAM, edits)
    assert (
        after.count(placeholder + "_2") == len(edits) >= 2 and after.replace(placeholder + "_2", placeholder) == PROGRAM
    )


@pytest.mark.parametrize(
    ("needle", "new", "said"),
    [
        ("nn.dense(", "x", "operator"),
        ("%0 = ", "%y", "already a name"),
        ("%0 = ", "%a-b", "not a variable name"),
        ("(m, k)", "float32", "not a dimension name"),
        ("@dense(%input", "main", "already a name"),
    ],
)
async def test_rename_refusals_say_why(client: LanguageClient, needle: str, new: str, said: str) -> None:
    uri = uri_of("refuse.rly")
    if not client.published.of(uri):
        await opened(client, "refuse.rly", PROGRAM)
    at = position_of(PROGRAM, needle, 1)
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_rename_async(lsp.RenameParams(doc(uri), at, new))
    assert said in refused.value.message and refused.value.code == -32803
    if said == "operator":
        with pytest.raises(JsonRpcException):
            await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(uri), at))


async def test_semantic_tokens(client: LanguageClient) -> None:
    uri = await opened(client, "tokens.rly", PROGRAM)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    found = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc(uri)))
    lines = PROGRAM.split("\n")
    decoded = {}
    line = char = 0
    data = found.data
    for i in range(0, len(data), 5):
        line += data[i]
        char = data[i + 1] if data[i] else char + data[i + 1]
        text = lines[line][char : char + data[i + 2]]
        mods = {m for b, m in enumerate(legend.token_modifiers) if data[i + 4] >> b & 1}
        decoded.setdefault(text, (legend.token_types[data[i + 3]], mods))
    assert decoded["def"] == ("keyword", set())
    assert decoded["@dense"] == ("function", {"declaration"})
    assert decoded["%x"] == ("parameter", {"declaration"})
    assert decoded["%y"] == ("variable", {"declaration"})
    assert decoded["nn.dense"] == ("function", {"defaultLibrary"})
    assert decoded["Tensor"][0] == "type" and decoded["float32"][0] == "type"
    assert decoded["b"][0] == "typeParameter" and decoded["128"][0] == "number"
    assert decoded["// a dense layer and its caller"][0] == "comment"
    assert decoded["   over two lines */"][0] == "comment"  # a block comment: one token a line


async def test_workspace_symbols_of_open_documents_and_files_on_disk(client: LanguageClient) -> None:
    await opened(client, "symbols.rly", PROGRAM)
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="conv"))
    assert [(s.name, Path(s.location.uri).name) for s in found] == [("@conv_block", "layers.rly")]
    assert found[0].location.range.start == lsp.Position(1, 4)
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="dns"))
    mine = [s for s in found if s.location.uri == uri_of("symbols.rly")]
    assert [s.name for s in mine] == ["@dense"] and mine[0].container_name.startswith("fn (Tensor[(b, k)")


async def test_document_highlight(client: LanguageClient) -> None:
    uri = await opened(client, "highlight.rly", PROGRAM)
    found = await client.text_document_document_highlight_async(
        lsp.DocumentHighlightParams(doc(uri), position_of(PROGRAM, "%0)", 1))
    )
    assert [(h.range.start, h.kind) for h in found] == [
        (position_of(PROGRAM, "%0 = "), lsp.DocumentHighlightKind.Write),
        (position_of(PROGRAM, "%0);"), lsp.DocumentHighlightKind.Read),
        (position_of(PROGRAM, "%0)\n"), lsp.DocumentHighlightKind.Read),
    ]


async def test_folding_ranges(client: LanguageClient) -> None:
    uri = await opened(client, "fold.rly", PROGRAM)
    found = await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc(uri)))
    got = {(f.start_line, f.end_line, f.kind) for f in found}
    assert (1, 2, lsp.FoldingRangeKind.Comment) in got
    assert (3, 6, lsp.FoldingRangeKind.Region) in got  # @dense, its closing brace in view
    assert (9, 10, lsp.FoldingRangeKind.Region) in got


async def test_a_broadcast_mismatch_offers_expand_dims_and_relaxing(client: LanguageClient) -> None:
    uri = uri_of("broadcast.rly")
    open_document(client, uri, BROADCAST)
    (diag,) = (await client.published.wait(uri, 1)).diagnostics
    assert diag.code == "broadcast-mismatch"
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(doc(uri), diag.range, lsp.CodeActionContext(diagnostics=[diag]))
    )
    titles = [a.title for a in actions if a.kind == lsp.CodeActionKind.QuickFix]
    assert "align `%bias` with dim 0 of the other operand: `expand_dims(%bias, axis=1)`" in titles
    assert any(t.startswith("relax dim 0 of `%bias` from `3` to `?`") for t in titles)
    chosen = next(a for a in actions if a.title.startswith("align"))
    assert chosen.is_preferred
    fixed = apply(BROADCAST, chosen.edit.document_changes[0].edits)
    assert "add(%x, expand_dims(%bias, axis=1))" in fixed
    # applied as an editor applies it, the error clears
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert not (await client.published.wait(uri, 2)).diagnostics
