"""`gradual lsp` end to end over stdio, as a client that takes pushed diagnostics and counts
positions in UTF-16 (VS Code's capabilities): diagnostics, hover, inlay hints, navigation,
symbols, quick fixes, formatting, and never stale, never dead (superseded versions,
cancellation, half-typed text). One server for the whole module."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lspclient import (
    EXAMPLES,
    ROOT,
    Published,
    config,
    doc,
    edit,
    eventually,
    open_document,
    position_of,
    program,
    replace_all,
    uri_of,
)
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

import gradual

# replies that break the protocol for the declared client fail the test
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

SHAPE_ERROR = (EXAMPLES / "shape_error.rly").read_text()
CALL_CHECK = (EXAMPLES / "call_check.rly").read_text()
LOOP = (EXAMPLES / "loop.rly").read_text()


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.published = Published(lsp_client)
    lsp_client.init_result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            initialization_options={"gradual": {"debounceMs": 5}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def opened(client: LanguageClient, name: str, text: str) -> tuple[str, list]:
    """Open a document; its uri and the diagnostics published for version 1."""
    uri = uri_of(name)
    open_document(client, uri, text)
    published = await client.published.wait(uri, 1)
    return uri, list(published.diagnostics)


async def test_capabilities(client: LanguageClient) -> None:
    caps = client.init_result.capabilities
    assert caps.position_encoding == lsp.PositionEncodingKind.Utf16  # VS Code 1.65 offers no other
    assert caps.hover_provider and caps.inlay_hint_provider and caps.definition_provider
    assert caps.references_provider and caps.document_symbol_provider and caps.code_action_provider
    assert caps.document_formatting_provider and caps.document_range_formatting_provider
    assert caps.diagnostic_provider is None  # this client takes pushed diagnostics


async def test_an_error_is_pushed_with_everything_a_client_shows(client: LanguageClient) -> None:
    uri, diags = await opened(client, "shape_error.rly", SHAPE_ERROR)
    (diag,) = diags
    assert diag.code == "shape-mismatch" and diag.source == "gradual"
    assert diag.severity == lsp.DiagnosticSeverity.Error
    assert diag.range == lsp.Range(position_of(SHAPE_ERROR, "%w2)"), position_of(SHAPE_ERROR, "%w2)", 3))
    href = diag.code_description.href
    assert href.endswith("diagnostics.md#shape-mismatch")
    assert "## shape-mismatch" in Path(href[len("file://") :].split("#")[0]).read_text()
    (related,) = diag.related_information
    assert related.message.startswith("`k` was bound to 128 here")
    assert related.location.uri == uri and related.location.range.start == position_of(SHAPE_ERROR, "%0, %w2")
    assert "\nnote: the signature is nn.dense" in diag.message and "\nhelp: make the two agree" in diag.message


async def test_an_edit_that_clears_the_error(client: LanguageClient) -> None:
    uri, diags = await opened(client, "clears.rly", SHAPE_ERROR)
    assert len(diags) == 1
    start = position_of(SHAPE_ERROR, "(128, 10), float32")
    edit(client, uri, 2, start, lsp.Position(start.line, start.character + len("(128, 10)")), "(10, 128)")
    assert (await client.published.wait(uri, 2)).diagnostics == ()
    edit(client, uri, 3, start, lsp.Position(start.line, start.character + len("(10, 128)")), "(128, 10)")
    assert len((await client.published.wait(uri, 3)).diagnostics) == 1


async def test_hover_shows_types_instantiations_checks_and_dims(client: LanguageClient) -> None:
    uri, _ = await opened(client, "hover.rly", CALL_CHECK)

    async def hover(needle: str, shift: int = 1, nth: int = 0) -> str:
        found = await client.text_document_hover_async(
            lsp.HoverParams(doc(uri), position_of(CALL_CHECK, needle, shift, nth))
        )
        return found.contents.value if found is not None else ""

    assert "%x: Tensor[(?, ?), float32]" in await hover("%x)")
    shown = await hover("%x)")
    assert "runtime check" in shown and "Tensor[(10, 10), float32]" in shown and "`@square`" in shown
    matmul = await hover("nn.matmul")
    assert "nn.matmul" in matmul and "at this call:" in matmul
    assert "@square: fn (Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32]" in await hover("@square(%x)")
    uri2, _ = await opened(client, "hover-dims.rly", SHAPE_ERROR.replace("(128, 784)", "(k, 784)"))
    text = SHAPE_ERROR.replace("(128, 784)", "(k, 784)")
    found = await client.text_document_hover_async(lsp.HoverParams(doc(uri2), position_of(text, "nn.dense(%x")))
    assert "k := 784" in found.contents.value or "k := " in found.contents.value
    dims = "def @f(%a: Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32] {\n  nn.relu(%a) as Tensor[(n, 4), float32]\n}\n"
    uri3, _ = await opened(client, "hover-dim-symbol.rly", dims)
    found = await client.text_document_hover_async(lsp.HoverParams(doc(uri3), position_of(dims, "n, 4", nth=2)))
    assert "dimension n" in found.contents.value and "line 1, column 20" in found.contents.value


async def test_inlay_hints_for_bindings_parameters_and_checks(client: LanguageClient) -> None:
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(100, 0))
    uri, _ = await opened(client, "hints-checks.rly", CALL_CHECK)
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(uri), whole))
    (check,) = [h for h in hints if h.label == "as Tensor[(10, 10), float32]"]
    assert check.position == position_of(CALL_CHECK, "%x)", 2) and "runtime check" in check.tooltip
    uri2, _ = await opened(client, "hints-loop.rly", LOOP)
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(uri2), whole))
    assert any(h.label == ": Tensor[(?, 1), T]" and h.kind == lsp.InlayHintKind.Type for h in hints)
    uri3, _ = await opened(client, "hints-let.rly", SHAPE_ERROR)
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(uri3), whole))
    assert [h.label for h in hints] == [": Tensor[(?, 128), float32]"]
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams({"gradual": {"inlayHints": {"runtimeChecks": False}}})
    )
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(uri), whole))
    assert not any(h.label.startswith("as ") for h in hints)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams({"gradual": {"inlayHints": {"runtimeChecks": True}}})
    )


async def test_definition_and_references(client: LanguageClient) -> None:
    uri, _ = await opened(client, "navigation.rly", CALL_CHECK)

    async def definition(needle: str, shift: int = 1, nth: int = 0) -> list:
        return await client.text_document_definition_async(
            lsp.DefinitionParams(doc(uri), position_of(CALL_CHECK, needle, shift, nth))
        )

    (var,) = await definition("%x)")
    assert var.range.start == position_of(CALL_CHECK, "%x:")
    (fn,) = await definition("@square(%x)")
    assert fn.range.start == position_of(CALL_CHECK, "def @square", 4)
    (op,) = await definition("nn.matmul")
    assert op.uri.endswith("/nn.rly") and Path(op.uri[len("file://") :]).is_file()
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=doc(uri),
            position=position_of(CALL_CHECK, "%a,"),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert len(refs) == 3
    dims = "def @f(%a: Tensor[(n, 4), float32]) -> Tensor[(n, 4), float32] {\n  nn.relu(%a)\n}\n"
    uri2, _ = await opened(client, "navigation-dims.rly", dims)
    (dim,) = await client.text_document_definition_async(
        lsp.DefinitionParams(doc(uri2), position_of(dims, "n, 4", nth=1))
    )
    assert dim.range.start == position_of(dims, "n, 4")
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=doc(uri2),
            position=position_of(dims, "n, 4"),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert len(refs) == 2


async def test_document_symbols(client: LanguageClient) -> None:
    uri, _ = await opened(client, "symbols.rly", CALL_CHECK)
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(uri)))
    assert [(s.name, s.detail) for s in symbols] == [
        ("@square", "fn (Tensor[(10, 10), float32]) -> Tensor[(10, 10), float32]"),
        ("@main", "fn (Tensor[(?, ?), float32]) -> Tensor[(10, 10), float32]"),
    ]
    assert [c.name for c in symbols[0].children] == ["%a"]


async def actions_at(client: LanguageClient, uri: str, text: str, needle: str, diags: list, shift: int = 0) -> list:
    at = position_of(text, needle, shift)
    return await client.text_document_code_action_async(
        lsp.CodeActionParams(doc(uri), lsp.Range(at, at), lsp.CodeActionContext(diagnostics=diags))
    )


def applied(text: str, action: lsp.CodeAction) -> str:
    """The text after a code action's edits (positions in UTF-16: these texts are ASCII)."""
    (change,) = action.edit.document_changes
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for e in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[e.range.start.line] + e.range.start.character
        end = offsets[e.range.end.line] + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
    return text


@pytest.mark.parametrize(
    "name, broken, needle, fixed",
    [
        ("dtype", "def @main(%x: Tensor[(2, 3), flaot32]) {\n  nn.relu(%x)\n}\n", "flaot32", "Tensor[(2, 3), float32]"),
        ("operator", "def @main(%x: Tensor[(2, 3), float32]) {\n  nn.rleu(%x)\n}\n", "nn.rleu", "nn.relu(%x)"),
        ("attribute", "def @main(%x: Tensor[(2, 3), float32]) {\n  sum(%x, axs=[1])\n}\n", "axs", "sum(%x, axis=[1])"),
    ],
)
async def test_did_you_mean(client: LanguageClient, name: str, broken: str, needle: str, fixed: str) -> None:
    uri, diags = await opened(client, f"fix-{name}.rly", broken)
    actions = await actions_at(client, uri, broken, needle, diags)
    (action,) = [a for a in actions if a.kind == lsp.CodeActionKind.QuickFix]
    assert action.is_preferred and action.diagnostics[0].code == diags[0].code
    assert fixed in applied(broken, action)


async def test_relax_a_conflicting_dim_and_remove_an_unused_hint(client: LanguageClient) -> None:
    uri, diags = await opened(client, "fix-relax.rly", SHAPE_ERROR)
    actions = await actions_at(client, uri, SHAPE_ERROR, "%w2)", diags)
    (relax,) = [a for a in actions if a.title.startswith("relax")]
    relaxed = applied(SHAPE_ERROR, relax)
    assert "%w2: Tensor[(128, ?), float32]" in relaxed
    replace_all(client, uri, relaxed, 2)
    assert (await client.published.wait(uri, 2)).diagnostics == ()  # a runtime check instead
    hinted = "def @main(%x: Tensor[(2, 3), float32]) {\n  can_unify(%x, shape=(2, 3));\n  %x\n}\n"
    uri2, diags = await opened(client, "fix-hint.rly", hinted)
    assert (
        list(diags[0].tags) == [lsp.DiagnosticTag.Unnecessary] and diags[0].severity == lsp.DiagnosticSeverity.Warning
    )
    (remove,) = [
        a for a in await actions_at(client, uri2, hinted, "can_unify", diags) if a.kind == lsp.CodeActionKind.QuickFix
    ]
    assert applied(hinted, remove) == "def @main(%x: Tensor[(2, 3), float32]) {\n  %x\n}\n"


async def test_annotate_and_make_a_check_explicit(client: LanguageClient) -> None:
    uri, _ = await opened(client, "fix-annotate.rly", SHAPE_ERROR)
    (annotate,) = [a for a in await actions_at(client, uri, SHAPE_ERROR, "%0 =", []) if a.title.startswith("annotate")]
    annotated = applied(SHAPE_ERROR, annotate)
    assert "  let %0: Tensor[(?, 128), float32] = nn.relu(" in annotated
    replace_all(client, uri, annotated, 2)
    assert [d.code for d in (await client.published.wait(uri, 2)).diagnostics] == ["shape-mismatch"]  # nothing new
    source = "def @f(%x, %y) {\n  nn.dense(%x, %y)\n}\n"
    uri2, _ = await opened(client, "fix-annotate-param.rly", source)
    (param,) = [a for a in await actions_at(client, uri2, source, "%x,", []) if a.title.startswith("annotate")]
    assert applied(source, param).startswith("def @f[T](%x: Tensor[*, T], %y)")
    uri3, _ = await opened(client, "fix-cast.rly", CALL_CHECK)
    (cast,) = [
        a
        for a in await actions_at(client, uri3, CALL_CHECK, "%x)", [], 1)
        if a.title.startswith("make the runtime check")
    ]
    explicit = applied(CALL_CHECK, cast)
    assert "@square(%x as Tensor[(10, 10), float32])" in explicit
    replace_all(client, uri3, explicit, 2)
    assert (await client.published.wait(uri3, 2)).diagnostics == ()


async def test_a_polymorphic_closure_can_be_annotated_with_its_type(client: LanguageClient) -> None:
    """The closure's own `m`, written in a let's function type, was an existential of the let,
    so `%f(%x)` became an error and the annotation was withheld; a name only a function type's
    parameter mentions is now that function type's own, and the annotation keeps its meaning."""
    text = (
        "def @main(%x: Tensor[(n, 4), float32]) {\n  %f = fn (%a: Tensor[(m, 4), float32]) -> Tensor[(m, 4), float32] "
        "{ nn.relu(%a) };\n  %f(%x)\n}\n"
    )
    uri, diags = await opened(client, "fix-closure.rly", text)
    actions = [a for a in await actions_at(client, uri, text, "%f =", diags) if a.title.startswith("annotate `%f`")]
    assert actions
    annotated = applied(text, actions[0])
    assert gradual.check(annotated).ok
    assert str(gradual.check(annotated).function_type("main")) == str(gradual.check(text).function_type("main"))


@pytest.mark.parametrize(
    "name, text, needle, refused",
    [
        # a let cannot declare the dtype variable its inferred type mentions: unknown dtype `T`
        (
            "dtype-variable",
            "def @main(%x: Tensor[(1, 3, 7, 7), float32], %w: Tensor[(4, 3, 1, 1), float32], %b: Tensor[(4,), float32]) {\n"
            "  %layer = fn (%d, %k, %c) { nn.relu(nn.bias_add(nn.conv2d(%d, %k, kernel_size=[1, 1]), %c)) };\n"
            "  %layer(%x, %w, %b)\n}\n",
            "%layer =",
            "annotate `%layer`",
        ),
        # the 32 of the 4th argument keeps the conflict: the error stays, nothing is checked at runtime
        (
            "relax",
            "def @main(%x: Tensor[(n, 64, h, w), float32], %g: Tensor[(64,), float32], %b: Tensor[(64,), float32], "
            "%m: Tensor[(32,), float32], %v: Tensor[(64,), float32]) {\n  nn.batch_norm(%x, %g, %b, %m, %v)\n}\n",
            "%m, %v",
            "relax dim 1 of `%x`",
        ),
    ],
)
async def test_a_fix_that_would_not_keep_its_promise_is_not_offered(
    client: LanguageClient, name: str, text: str, needle: str, refused: str
) -> None:
    uri, diags = await opened(client, f"fix-refused-{name}.rly", text)
    titles = [a.title for a in await actions_at(client, uri, text, needle, diags)]
    assert not [t for t in titles if t.startswith(refused)], titles
    if name == "relax":  # relaxing the 32 does resolve it: offered
        assert "relax dim 0 of `%m` from `32` to `?` (checked at runtime instead)" in titles, titles


async def test_an_explicit_broadcast_check_is_offered_and_checked_once(client: LanguageClient) -> None:
    """Elaboration checked an explicit `5|1` cast a second time (3 checks where there were 2),
    so the action was withheld; the cast's fact now holds for the value it passes on."""
    text = (EXAMPLES / "broadcast_add.rly").read_text()
    uri, diags = await opened(client, "fix-broadcast.rly", text)
    actions = [
        a
        for a in await actions_at(client, uri, text, "%x, %y)", diags)
        if a.title.startswith("make the runtime check explicit")
    ]
    assert actions
    explicit = applied(text, actions[0])
    assert gradual.check(explicit).check_count == gradual.check(text).check_count


async def test_code_actions_in_a_deeply_nested_call(client: LanguageClient) -> None:
    """The explicit-cast rewrite elaborates the definition, which recurses as deep as the
    program nests: a RecursionError came back as an internal error."""
    depth = 1500
    text = (
        "def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) {\n  "
        + "nn.relu(" * depth
        + "add(%x, %y)"
        + ")" * depth
        + "\n}\n"
    )
    uri, _ = await opened(client, "deep-actions.rly", text)
    titles = [a.title for a in await actions_at(client, uri, text, "%x, %y)", [])]
    assert all(isinstance(t, str) for t in titles)


async def test_code_actions_for_a_whole_document_check_a_bounded_number_of_fixes(client: LanguageClient) -> None:
    """Each fix is checked by analysing the fixed text: a range over a whole document of n
    misspelt names checked n fixes, each as costly as the document (quadratic; 400 misspelt
    operators took 206 s). The server checks at most MAX_VERIFIED_FIXES, the first ones."""
    from gradual.lsp.server import MAX_VERIFIED_FIXES

    count = 100
    text = (
        "def @main(%x: Tensor[(2, 3), float32]) {\n"
        + "".join(f"  %v{i} = nn.relu(%x);\n" for i in range(count))
        + "".join(f"  %w{i} = nn.relu(%vv{i});\n" for i in range(count))
        + "  %x\n}\n"
    )
    uri, _ = await opened(client, "typos.rly", text)
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(2 * count + 3, 0))
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(doc(uri), whole, lsp.CodeActionContext(diagnostics=[]))
    )
    assert 0 < len(actions) <= MAX_VERIFIED_FIXES


FORMATTING = lsp.FormattingOptions(tab_size=2, insert_spaces=True)


async def formatted(client: LanguageClient, name: str, text: str) -> object:
    """Open a document and ask for it formatted: the new text, [] (already formatted) or None."""
    uri, _ = await opened(client, name, text)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(doc(uri), FORMATTING))
    if not edits:
        return None if edits is None else []
    (whole,) = edits
    end = lsp.Position(text.count("\n"), len(text) - (text.rfind("\n") + 1))
    assert whole.range == lsp.Range(lsp.Position(0, 0), end)  # the whole document
    return whole.new_text


async def test_formatting_rewrites_the_layout(client: LanguageClient) -> None:
    messy = "def @main(%x: Tensor[(2, 3), float32])   {\n      nn.relu( %x )\n}\n"
    assert (
        await formatted(client, "format.rly", messy) == "def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(%x)\n}\n"
    )
    assert (
        await formatted(client, "format-twice.rly", "def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(%x)\n}\n")
        == []
    )


async def test_formatting_keeps_the_comments(client: LanguageClient) -> None:
    messy = (
        '#[version = "0.0.5"]\n// a model\n\ndef @main(%x: Tensor[(?, 784), float32], // the input\n'
        "    %w: Tensor[(10, 784), float32]) {\n    /* the layer */ %0 = nn.dense(%x,   %w);   // dense\n"
        "  // the result\n  nn.relu(%0)\n} // end\n"
    )
    assert await formatted(client, "format-comments.rly", messy) == (
        '#[version = "0.0.5"]\n// a model\n\ndef @main(\n  %x: Tensor[(?, 784), float32], // the input\n'
        "  %w: Tensor[(10, 784), float32],\n) {\n  /* the layer */ %0 = nn.dense(%x, %w); // dense\n"
        "  // the result\n  nn.relu(%0)\n} // end\n"
    )


async def test_formatting_fits_lines_to_the_width_setting(client: LanguageClient) -> None:
    """`format.width` is the columns formatting fits lines to (100 by default)."""
    text = "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {\n  add(%x, %y)\n}\n"
    assert await formatted(client, "format-width.rly", text) == []
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams({"gradual": {"format": {"width": 40}}}))
    try:
        assert await formatted(client, "format-width-40.rly", text) == (
            "def @main(\n  %x: Tensor[(2, 3), float32],\n  %y: Tensor[(2, 3), float32],\n) {\n  add(%x, %y)\n}\n"
        )
        client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams({"gradual": {"format": {"width": 5}}})  # ignored: too narrow
        )
        assert (await formatted(client, "format-width-5.rly", text)).startswith("def @main(\n")
    finally:
        client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams({"gradual": {"format": {"width": 100}}})
        )


async def test_range_formatting_formats_the_definitions_the_range_touches(client: LanguageClient) -> None:
    first = "def @f(%x: Tensor[(3,), float32])   {\n      nn.relu( %x )\n}\n"
    second = "// the entry\ndef @main(%x: Tensor[(3,), float32]) {\n  @f(  %x)   // call\n}\n"
    text = first + "\n" + second
    uri, _ = await opened(client, "format-range.rly", text)
    inside = position_of(text, "@f(  %x)")
    edits = await client.text_document_range_formatting_async(
        lsp.DocumentRangeFormattingParams(doc(uri), lsp.Range(inside, inside), FORMATTING)
    )
    (only,) = edits
    assert only.range == lsp.Range(position_of(text, "def @main"), position_of(text, "}\n", 1, 1))
    assert only.new_text == "def @main(%x: Tensor[(3,), float32]) {\n  @f(%x) // call\n}"
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(text.count("\n"), 0))
    edits = await client.text_document_range_formatting_async(
        lsp.DocumentRangeFormattingParams(doc(uri), whole, FORMATTING)
    )
    assert [e.new_text for e in edits] == [
        "def @f(%x: Tensor[(3,), float32]) {\n  nn.relu(%x)\n}",
        "def @main(%x: Tensor[(3,), float32]) {\n  @f(%x) // call\n}",
    ]


async def test_formatting_leaves_a_file_that_does_not_parse(client: LanguageClient) -> None:
    assert await formatted(client, "format-broken.rly", "def @main(%x) { // half typed\n  nn.relu(%x\n}\n") is None


async def test_a_non_ascii_line_is_underlined_in_utf16_units(client: LanguageClient) -> None:
    text = SHAPE_ERROR.replace("nn.dense(%0, %w2)", "nn.dense(/* é😀 */ %0, %w2)")
    uri, (diag,) = await opened(client, "unicode.rly", text)
    code_points = position_of(text, "%w2)")
    assert diag.range.start == lsp.Position(code_points.line, code_points.character + 1)  # 😀 is two UTF-16 units
    assert diag.range.end.character - diag.range.start.character == 3
    found = await client.text_document_hover_async(
        lsp.HoverParams(doc(uri), lsp.Position(code_points.line, code_points.character + 2))
    )
    assert "%w2: Tensor[(128, 10), float32]" in found.contents.value


async def test_a_superseded_version_is_never_published(client: LanguageClient) -> None:
    uri = uri_of("race.rly")
    open_document(client, uri, SHAPE_ERROR, 1)
    await client.published.wait(uri, 1)
    replace_all(client, uri, program(10_000), 2)  # seconds of checking
    await asyncio.sleep(0.3)  # version 2 is being checked now
    replace_all(client, uri, CALL_CHECK, 3)
    assert (await client.published.wait(uri, 3)).diagnostics == ()
    await asyncio.sleep(0.5)
    versions = [e.version for e in client.published.of(uri)]
    assert 2 not in versions and versions == sorted(versions)


async def test_cancel_request_and_half_typed_text(client: LanguageClient) -> None:
    uri = uri_of("cancel.rly")
    big = program(10_000)
    open_document(client, uri, big, 1)
    future = client.protocol.send_request(
        lsp.TEXT_DOCUMENT_HOVER, lsp.HoverParams(doc(uri), lsp.Position(3, 4)), msg_id="hover-to-cancel"
    )
    client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="hover-to-cancel"))
    with pytest.raises(JsonRpcException) as failure:
        await asyncio.wrap_future(future)
    assert failure.value.code == lsp.LSPErrorCodes.RequestCancelled
    replace_all(client, uri, "def @main(%x: Tensor[(", 2)  # half-typed
    (diag,) = (await client.published.wait(uri, 2)).diagnostics
    assert diag.code == "parse-error"
    assert await client.text_document_hover_async(lsp.HoverParams(doc(uri), lsp.Position(0, 11))) is None
    replace_all(client, uri, SHAPE_ERROR, 3)
    assert len((await client.published.wait(uri, 3)).diagnostics) == 1


async def test_a_model_opened_in_the_editor_is_checked_as_a_model(client: LanguageClient, tmp_path) -> None:
    """An .onnx file opened in the editor was parsed as program text: one `parse-error`,
    "unexpected character U+0008", whatever the model. Now it is checked from disk as
    `gradual check` does, its diagnostics at the start of the document, each naming its node;
    edits to the buffer are not the model, a save checks the file again, requests about it get
    empty answers, closing clears it."""
    import shutil

    model = tmp_path / "mlp transposed.onnx"
    shutil.copy(ROOT / "tests" / "data" / "onnx" / "examples" / "mlp_transposed.onnx", model)
    uri = model.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="onnx", version=1, text=model.read_bytes().decode("latin-1"))
        )
    )
    (diag,) = (await client.published.wait(uri, 1)).diagnostics
    assert diag.code == "shape-mismatch" and diag.range == lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    assert "\nat node fc2 (Gemm): a, fc2.weight, fc2.bias -> logits\n" in diag.message
    hover = await client.text_document_hover_async(lsp.HoverParams(doc(uri), lsp.Position(0, 0)))
    assert hover is None
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangeWholeDocument(text="x")],
        )
    )
    shutil.copy(ROOT / "tests" / "data" / "onnx" / "examples" / "mlp.onnx", model)  # the file now checks clean
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(doc(uri)))
    assert not (await client.published.wait(uri, 2)).diagnostics
    model.unlink()
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(doc(uri)))
    await eventually(lambda: [d.code for d in client.published.of(uri)[-1].diagnostics] == ["input-error"])
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))
    await eventually(lambda: not client.published.of(uri)[-1].diagnostics)


async def test_a_uri_whose_path_holds_a_nul_byte_or_a_symlink_loop_is_still_checked(
    client: LanguageClient, tmp_path
) -> None:
    """`file:///tmp/a%00b.rly` (or `.onnx`) was "Error in server: ValueError: embedded null
    byte" shown to the user, and the document was never checked: opening it asked the file
    system whether it is the operator library. So was a file that is a symbolic link loop
    ("RuntimeError: Symlink loop"). The program is checked from its text; the model, which no
    file holds, is an input-error."""
    import os

    text = "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, %y)\n}\n"
    os.symlink("loop.rly", tmp_path / "loop.rly")
    os.symlink("loop.onnx", tmp_path / "loop.onnx")
    directory = uri_of("x").removesuffix("x")
    for uri, code in (
        (directory + "nul%00byte.rly", "unknown-variable"),
        (directory + "nul%00byte.onnx", "input-error"),
        ((tmp_path / "loop.rly").as_uri(), "unknown-variable"),
        ((tmp_path / "loop.onnx").as_uri(), "input-error"),
    ):
        open_document(client, uri, text)
        published = await client.published.wait(uri, 1)
        assert [d.code for d in published.diagnostics] == [code]
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))
