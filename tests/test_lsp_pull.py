"""`gradual lsp` as Neovim 0.11's capabilities describe it: pulled diagnostics
(`textDocument/diagnostic`) and UTF-8 positions; and a crash inside a check (a server with a
planted bug) becomes an internal-error diagnostic and a log message, and the server goes on."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lspclient import EXAMPLES, ROOT, config, doc, eventually, open_document, position_of, replace_all, uri_of
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

# replies that break the protocol for the declared client fail the test
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

SHAPE_ERROR = (EXAMPLES / "shape_error.rly").read_text()
FAULTY = [sys.executable, str(ROOT / "tests" / "lsp" / "faulty_server.py")]


@pytest_lsp.fixture(config=config(FAULTY), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.init_result = await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("neovim@v0.11.0"))
    )
    yield
    await lsp_client.shutdown_session()


async def pull(client: LanguageClient, uri: str, previous: str = None) -> lsp.DocumentDiagnosticReport:
    return await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(doc(uri), previous_result_id=previous)
    )


async def test_capabilities(client: LanguageClient) -> None:
    caps = client.init_result.capabilities
    assert caps.position_encoding == lsp.PositionEncodingKind.Utf8
    assert caps.diagnostic_provider.identifier == "gradual"
    assert not caps.diagnostic_provider.inter_file_dependencies


async def test_pulled_diagnostics_follow_edits(client: LanguageClient) -> None:
    uri = uri_of("pulled.rly")
    open_document(client, uri, SHAPE_ERROR)
    report = await pull(client, uri)
    (diag,) = report.items
    assert diag.code == "shape-mismatch" and diag.related_information[0].message.startswith("`k` was bound to 128")
    assert not client.diagnostics.get(uri)  # nothing pushed to a client that pulls
    again = await pull(client, uri, report.result_id)
    assert again.kind == "unchanged"
    replace_all(client, uri, SHAPE_ERROR.replace("%w2: Tensor[(128, 10)", "%w2: Tensor[(10, 128)"), 2)
    assert not (await pull(client, uri, report.result_id)).items


async def test_a_non_ascii_line_is_underlined_in_utf8_units(client: LanguageClient) -> None:
    text = SHAPE_ERROR.replace("nn.dense(%0, %w2)", "nn.dense(/* é😀 */ %0, %w2)")
    uri = uri_of("unicode8.rly")
    open_document(client, uri, text)
    (diag,) = (await pull(client, uri)).items
    code_points = position_of(text, "%w2)")
    assert diag.range.start == lsp.Position(code_points.line, code_points.character + 1 + 3)  # é: 2 bytes, 😀: 4
    assert diag.range.end.character - diag.range.start.character == 3
    hints = await client.text_document_inlay_hint_async(
        lsp.InlayHintParams(doc(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(99, 0)))
    )
    assert [h.label for h in hints] == [": Tensor[(?, 128), float32]"]


async def test_a_crash_inside_a_check_is_a_diagnostic_and_a_log_message(client: LanguageClient) -> None:
    text = (
        "def @crash(%x: Tensor[(2, 3), float32]) {\n  nn.softmax(%x)\n}\n\n"
        "def @fine(%x: Tensor[(2, 3), float32], %y: Tensor[(3, 3), float32]) {\n  add(%x, %y)\n}\n"
    )
    uri = uri_of("crash.rly")
    open_document(client, uri, text)
    items = (await pull(client, uri)).items
    assert sorted(d.code for d in items) == ["broadcast-mismatch", "internal-error"]
    crash = next(d for d in items if d.code == "internal-error")
    assert crash.range.start == position_of(text, "@crash") and "ZeroDivisionError" in crash.message
    await eventually(lambda: any("ZeroDivisionError" in m.message for m in client.log_messages))
    found = await client.text_document_hover_async(lsp.HoverParams(doc(uri), position_of(text, "%y)", 1)))
    assert "Tensor[(3, 3), float32]" in found.contents.value


async def test_the_operator_library_is_not_checked_as_a_program(client: LanguageClient) -> None:
    """Going to an operator's definition opens stdlib/*.rly: declarations, not a program."""
    from gradual.ops.registry import stdlib_dir

    path = stdlib_dir() / "nn.rly"
    open_document(client, path.as_uri(), path.read_text())
    assert not (await pull(client, path.as_uri())).items


async def test_a_result_id_is_never_an_earlier_analysis_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """The result id was the analysis object's `id()` and version: a document closed and opened
    again (version 1 again) can get its new analysis at the freed one's address (CPython reuses
    them: 1 try in 10 in process), and a pull with the old id was answered "unchanged" over
    different diagnostics. Here every object has the same `id()`, as a reused address would."""
    from pygls.workspace.position_codec import PositionCodec

    from gradual.analysis import Document
    from gradual.lsp import server as served

    class Workspace:
        position_codec = PositionCodec(lsp.PositionEncodingKind.Utf16)

    class Server(served.GradualServer):
        workspace = Workspace()  # type: ignore[assignment]

    monkeypatch.setattr(served, "id", lambda obj: 140000000000000, raising=False)

    async def reopened() -> tuple:
        ls, current = Server(), {}

        async def analysis(uri: str) -> object:
            return current["now"]

        ls.analysis = analysis  # type: ignore[method-assign]
        params = lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier("file:///reopened.rly"))
        current["now"] = Document("reopened.rly").analyze("def @main(%x: Tensor[(2, 3), float32]) { %x }\n", 1)
        first = await served.pull_diagnostics(ls, params)
        current["now"] = Document("reopened.rly").analyze("def @main(%x: Tensor[(2, 3), float32]) { %y }\n", 1)
        params.previous_result_id = first.result_id
        return first, await served.pull_diagnostics(ls, params)

    first, second = await reopened()
    assert first.items == [] and second.kind == "full" and [d.code for d in second.items] == ["unknown-variable"]


async def test_a_model_opened_in_the_editor_is_pulled_as_a_model(client: LanguageClient) -> None:
    """A pulling client gets a model's diagnostics from `textDocument/diagnostic` (checked
    from disk, at the document's start, each saying where it is), "unchanged" while the file
    is; a crash while checking a model (this server's planted bug, in `nn.softmax`, which the
    ONNX model calls) is an internal-error diagnostic, and the server goes on."""
    for path, code, where in (
        (ROOT / "tests" / "data" / "torch" / "edited.pt2", "rank-mismatch", "models.py:23:"),
        (
            ROOT / "tests" / "data" / "onnx" / "examples" / "mlp_transposed.onnx",
            "internal-error",
            "planted by tests/lsp/faulty_server.py",
        ),
    ):
        uri = path.as_uri()
        client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=uri, language_id="model", version=1, text=path.read_bytes().decode("latin-1"))
            )
        )
        report = await pull(client, uri)
        (diag,) = report.items
        assert diag.code == code and where in diag.message, diag.message
        assert diag.range == lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
        assert (await pull(client, uri, report.result_id)).kind == "unchanged"
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))
