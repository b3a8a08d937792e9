"""`gradual lsp`'s commands (`workspace/executeCommand`), which the VS Code extension's
"Show elaborated program" and "Check model file" call: what they answer for a program, a
program with errors, a model with an error, and inputs they cannot take. One server for the
module, with VS Code's capabilities (UTF-16 positions)."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lspclient import EXAMPLES, ROOT, Published, config, open_document, uri_of
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

MODEL = ROOT / "tests" / "data" / "onnx" / "examples" / "mlp_transposed.onnx"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.published = Published(lsp_client)
    lsp_client.init_result = await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


async def run(client: LanguageClient, command: str, *arguments: object) -> dict:
    return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command, list(arguments)))


async def test_the_commands_are_advertised(client: LanguageClient) -> None:
    provider = client.init_result.capabilities.execute_command_provider
    assert provider is not None
    assert set(provider.commands) == {"gradual.elaborated", "gradual.modelListing"}


async def test_elaborated_is_what_gradual_elaborate_prints(client: LanguageClient) -> None:
    uri = uri_of("broadcast_add.rly")
    open_document(client, uri, (EXAMPLES / "broadcast_add.rly").read_text())
    answer = await run(client, "gradual.elaborated", uri)
    assert "add(%x as Tensor[(2, 5|1), float32], %y as Tensor[(2|1, 5), float32])" in answer["text"]
    assert "/* ty=Tensor[(2, 5), float32] */" in answer["text"]


async def test_a_program_with_type_errors_is_not_elaborated_and_says_why(client: LanguageClient) -> None:
    uri = uri_of("shape_error.rly")
    open_document(client, uri, (EXAMPLES / "shape_error.rly").read_text())
    answer = await run(client, "gradual.elaborated", uri)
    assert "text" not in answer
    assert answer["error"].startswith("cannot elaborate a program with 1 type error(s), the first `shape-mismatch`")


async def test_elaborated_needs_an_open_document_and_a_uri(client: LanguageClient) -> None:
    assert "not open" in (await run(client, "gradual.elaborated", uri_of("never_opened.rly")))["error"]
    assert "not open" in (await run(client, "gradual.elaborated"))["error"]
    assert "not open" in (await run(client, "gradual.elaborated", 3))["error"]


async def test_a_model_listing_carries_its_diagnostics_at_the_node(client: LanguageClient) -> None:
    listing_uri = "gradual-model:/mlp_transposed.onnx.listing"
    answer = await run(client, "gradual.modelListing", MODEL.as_uri(), listing_uri)
    lines = answer["text"].splitlines()
    assert lines[2] == "node fc2 (Gemm): a, fc2.weight, fc2.bias -> logits"
    (diag,) = answer["diagnostics"]
    assert diag["code"] == "shape-mismatch" and diag["severity"] == 1 and diag["source"] == "gradual"
    start = lines[2].index("fc2.weight")
    assert diag["range"] == {
        "start": {"line": 2, "character": start},
        "end": {"line": 2, "character": start + len("fc2.weight")},
    }
    (related,) = diag["relatedInformation"]
    assert related["location"]["uri"] == listing_uri and related["location"]["range"]["start"]["line"] == 2


async def test_a_diagnostic_located_outside_the_listing_stands_at_its_start(client: LanguageClient) -> None:
    """A torch.export archive's error is at its model's Python line: it stands on the
    listing's first line and says where it is, with the ATen node's line of the listing."""
    archive = ROOT / "tests" / "data" / "torch" / "edited.pt2"
    answer = await run(client, "gradual.modelListing", archive.as_uri())
    (diag,) = answer["diagnostics"]
    assert diag["code"] == "rank-mismatch" and diag["range"]["start"] == {"line": 0, "character": 0}
    assert "\nat tests/data/torch/models.py:" in diag["message"] and "edited.pt2:9:1" in diag["message"]
    assert answer["text"].splitlines()[8].startswith("linear = aten.linear.default(")


async def test_a_clean_model_has_a_listing_and_no_diagnostics(client: LanguageClient) -> None:
    answer = await run(client, "gradual.modelListing", (MODEL.parent / "mlp.onnx").as_uri())
    assert answer["diagnostics"] == [] and answer["text"].startswith("node ")


async def test_a_model_listing_of_what_is_no_model_says_why(client: LanguageClient, tmp_path: Path) -> None:
    missing = await run(client, "gradual.modelListing", (tmp_path / "gone.onnx").as_uri())
    assert missing["error"].endswith("gone.onnx: no such file")
    program = await run(client, "gradual.modelListing", (EXAMPLES / "mlp.rly").as_uri())
    assert "not a model file" in program["error"]
    assert "expected the model's uri" in (await run(client, "gradual.modelListing"))["error"]
