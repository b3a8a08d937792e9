"""The editing features of `gradual lsp` beyond diagnostics and navigation: completion,
signature help, rename (with prepareRename), semantic tokens, workspace symbols, document
highlight and folding ranges. Each handler converts positions, asks the analysis layer
(one module per feature in `gradual.analysis`) and converts the answer; nothing here
knows the language.

Completion, signature help and folding read the newest text as it is (with the newest
analysis done, perhaps of an older version, for types): they answer while the user types,
without waiting for a check. The others wait for the analysis of the newest version, as
hover does (`server.about_document`).
"""

from __future__ import annotations

import asyncio
import bisect
import weakref
from typing import Any, Optional

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from gradual.analysis import completion, folding, highlights, rename, semantic_tokens, signature_help
from gradual.analysis import workspace_symbols as symbols
from gradual.analysis.document import Analysis
from gradual.lsp import convert
from gradual.lsp.server import GradualServer, OpenDocument, about_document, server
from gradual.lsp.text import _units

_COMPLETION_KIND = {
    "operator": lsp.CompletionItemKind.Function,
    "namespace": lsp.CompletionItemKind.Module,
    "function": lsp.CompletionItemKind.Function,
    "variable": lsp.CompletionItemKind.Variable,
    "dim": lsp.CompletionItemKind.TypeParameter,
    "dtype": lsp.CompletionItemKind.TypeParameter,
    "attribute": lsp.CompletionItemKind.Property,
    "keyword": lsp.CompletionItemKind.Keyword,
    "value": lsp.CompletionItemKind.Value,
    "type": lsp.CompletionItemKind.Class,
}
_HIGHLIGHT_KIND = {
    "write": lsp.DocumentHighlightKind.Write,
    "read": lsp.DocumentHighlightKind.Read,
    "text": lsp.DocumentHighlightKind.Text,
}


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed (-32803): a request that is understood but cannot be done (a
    rename refused); the message says why and the editor shows it."""

    CODE = -32803


def _registry() -> Any:
    from gradual.ops.registry import default_registry

    return default_registry()


async def _newest(ls: GradualServer, uri: str) -> Optional[OpenDocument]:
    """An open document, once it has been analyzed at least once (its types are then known,
    perhaps of an older version)."""
    state = ls.documents.get(uri)
    if state is not None and state.analysis is None:
        await ls.analysis(uri)
    return state


def _encoding(ls: GradualServer) -> str:
    return ls.workspace.position_encoding or lsp.PositionEncodingKind.Utf16


# completion ---------------------------------------------------------------------------------
@server.feature(
    lsp.TEXT_DOCUMENT_COMPLETION,
    lsp.CompletionOptions(trigger_characters=["%", "@", ".", "(", ",", "[", "="], resolve_provider=False),
)
async def complete(ls: GradualServer, params: lsp.CompletionParams) -> Optional[dict]:
    """Completions at the cursor of the newest text (see `gradual.analysis.completion`)."""
    state = await _newest(ls, params.text_document.uri)
    if state is None:
        return None
    encoding = _encoding(ls)
    offset = state.lines.offset(params.position, encoding)
    found = completion.complete(state.text, offset, _registry(), state.analysis)
    (sl, sc), (el, ec) = state.lines.place(found.start, encoding), state.lines.place(found.end, encoding)
    where = {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}
    items = []
    for i, item in enumerate(found.items):  # JSON made directly, as `edits_json` does
        made: dict = {"label": item.label, "kind": _COMPLETION_KIND[item.kind].value}
        if item.detail:
            made["detail"] = item.detail
        if item.doc:
            made["documentation"] = {"kind": "markdown", "value": item.doc}
        made["sortText"] = f"{item.group}{i:05d}"
        made["filterText"] = item.label
        made["textEdit"] = {"range": where, "newText": item.insert or item.label}
        items.append(made)
    return {"isIncomplete": found.incomplete, "items": items}


# signature help -----------------------------------------------------------------------------
@server.feature(
    lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
    lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[",", "="]),
)
async def signature(ls: GradualServer, params: lsp.SignatureHelpParams) -> Optional[lsp.SignatureHelp]:
    """The signature of the call around the cursor, its active parameter marked."""
    state = await _newest(ls, params.text_document.uri)
    if state is None:
        return None
    encoding = _encoding(ls)
    offset = state.lines.offset(params.position, encoding)
    found = signature_help.signature_help(state.text, offset, _registry(), state.analysis)
    if found is None:
        return None
    label = found.signature.label
    parameters = [
        lsp.ParameterInformation(
            label=(_units(label[: p.start], encoding), _units(label[: p.end], encoding)), documentation=p.doc or None
        )
        for p in found.signature.parameters
    ]
    info = lsp.SignatureInformation(
        label=label,
        documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, found.signature.doc) if found.signature.doc else None,
        parameters=parameters,
        active_parameter=found.active,
    )
    return lsp.SignatureHelp(signatures=[info], active_signature=0, active_parameter=found.active)


# rename ---------------------------------------------------------------------------------------
@about_document(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(
    ls: GradualServer, params: lsp.PrepareRenameParams, analysis: Analysis, positions: convert.Positions
) -> Optional[lsp.PrepareRenamePlaceholder]:
    """The name under the cursor, if it can be renamed; a refusal says why."""
    try:
        target = rename.prepare(analysis, positions.offset(params.position))
    except rename.RenameRefused as exc:
        raise RequestFailed(str(exc)) from None
    if target is None:
        return None
    return lsp.PrepareRenamePlaceholder(range=positions.span_range(target.span), placeholder=target.name)


@about_document(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
def rename_symbol(
    ls: GradualServer, params: lsp.RenameParams, analysis: Analysis, positions: convert.Positions
) -> Optional[dict]:
    """Every occurrence renamed, as one edit of the document's analyzed version."""
    try:
        edits = rename.rename(analysis, positions.offset(params.position), params.new_name)
    except rename.RenameRefused as exc:
        raise RequestFailed(str(exc)) from None
    uri = params.text_document.uri
    changes = edits_json(edits, positions)
    if ls.client_supports("workspace.workspace_edit.document_changes"):
        versioned = {"uri": uri, "version": analysis.version}
        return {"documentChanges": [{"textDocument": versioned, "edits": changes}]}
    return {"changes": {uri: changes}}


def edits_json(edits: list, positions: convert.Positions) -> list[dict]:
    """Text edits as the JSON LSP sends, made directly: a rename of a variable used 1,000
    times made 4,000 lsprotocol objects (their validators) and cattrs took them apart again,
    which was most of its time."""
    place = positions.lines.place
    encoding = str(positions.encoding or lsp.PositionEncodingKind.Utf16)
    if positions.source.base == 0 and positions.source.text.isascii():  # columns are offsets
        starts = positions.source.line_starts()

        def place(offset: int, encoding: str) -> tuple[int, int]:
            line = bisect.bisect_right(starts, offset) - 1
            return line, offset - starts[line]

    out = []
    for e in sorted(edits, key=lambda e: e.start):
        (sl, sc), (el, ec) = place(e.start, encoding), place(e.end, encoding)
        out.append(
            {"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "newText": e.text}
        )
    return out


# document highlight -----------------------------------------------------------------------------
@about_document(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, empty=list)
def highlight(
    ls: GradualServer, params: lsp.DocumentHighlightParams, analysis: Analysis, positions: convert.Positions
) -> list[lsp.DocumentHighlight]:
    """The occurrences of what is under the cursor (bound: write; used: read)."""
    found = highlights.highlights(analysis, positions.offset(params.position))
    return [lsp.DocumentHighlight(positions.span_range(h.span), _HIGHLIGHT_KIND[h.kind]) for h in found]


# semantic tokens ------------------------------------------------------------------------------
LEGEND = lsp.SemanticTokensLegend(
    token_types=list(semantic_tokens.LEGEND), token_modifiers=list(semantic_tokens.MODIFIERS)
)


@about_document(
    lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
    LEGEND,  # pygls makes the SemanticTokensOptions (full, no range) from the legend
    lambda: lsp.SemanticTokens(data=[]),
)
async def tokens_full(
    ls: GradualServer, params: lsp.SemanticTokensParams, analysis: Analysis, positions: convert.Positions
) -> dict:
    """Every token of the document, delta-encoded in the client's position units: made once
    an analysis, off the event loop (0.7 s at 10,000 lines), taking turns with the analyses
    of documents edited since."""
    data = _TOKENS.get(analysis)
    if data is None:
        state = ls.documents.get(params.text_document.uri)
        priority = state.priority if state is not None else 0
        encoding = _encoding(ls)

        def made() -> list:
            ticket = ls.turns.begin(priority)
            try:
                pause = ls.turns.yielding(ticket, lambda: False)
                found = semantic_tokens.semantic_tokens(analysis, analysis.result.registry or _registry(), pause)
                return encode_tokens(analysis.text, found, encoding)
            finally:
                ls.turns.end(ticket)

        data = await asyncio.get_running_loop().run_in_executor(ls.worker, made)
        _TOKENS[analysis] = data
    return {"data": data}


_TOKENS: "weakref.WeakKeyDictionary[Analysis, list]" = weakref.WeakKeyDictionary()


def encode_tokens(text: str, found: list, encoding: str) -> list[int]:
    """LSP's five integers a token (line delta, start delta, length, type, modifiers), for
    tokens in document order that each stay on one line."""
    from gradual.syntax.source import LINE_BREAK

    starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
    ascii_text = text.isascii()
    data: list[int] = []
    line = 0
    last_line = last_char = 0
    for start, end, kind, bits in found:
        while line + 1 < len(starts) and starts[line + 1] <= start:
            line += 1
        if ascii_text:
            char, length = start - starts[line], end - start
        else:
            char = _units(text[starts[line] : start], encoding)
            length = _units(text[start:end], encoding)
        data += [line - last_line, char - last_char if line == last_line else char, length, kind, bits]
        last_line, last_char = line, char
    return data


# folding --------------------------------------------------------------------------------------
@server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
async def fold(ls: GradualServer, params: lsp.FoldingRangeParams) -> list:
    """Definitions, bodies and multi-line comments of the newest text (found off the event
    loop, once a version: 0.2 s at 10,000 lines)."""
    state = ls.documents.get(params.text_document.uri)
    if state is None:
        return []
    text = state.text
    kept = _FOLDS.get(state)
    if kept is None or kept[0] is not text:
        found = await asyncio.get_running_loop().run_in_executor(ls.worker, folding.folding_ranges, text)
        kept = _FOLDS[state] = (text, found)
    return [
        {"startLine": f.start_line, "endLine": f.end_line, "kind": "comment" if f.kind == "comment" else "region"}
        for f in kept[1]
    ]


_FOLDS: "weakref.WeakKeyDictionary[OpenDocument, tuple]" = weakref.WeakKeyDictionary()  # (text, folds)


# workspace symbols ----------------------------------------------------------------------------
_INDEX = symbols.FileIndex()


@server.feature(lsp.WORKSPACE_SYMBOL)
async def workspace_symbol(ls: GradualServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol]:
    """Definitions across the open documents and the workspace's `.rly` files."""
    from gradual.ops.registry import stdlib_dir

    held: dict = {}
    for state in ls.documents.values():
        held[state.path] = (
            state.analysis if state.analysis is not None and state.analysis.text == state.text else state.text
        )
    roots = [to_fs_path(f.uri) or f.uri for f in ls.workspace.folders.values()]
    if not roots and ls.workspace.root_path:
        roots = [ls.workspace.root_path]
    loop = asyncio.get_running_loop()
    found = await loop.run_in_executor(
        None, lambda: symbols.workspace_symbols(params.query, held, roots, _INDEX, str(stdlib_dir()))
    )
    uris = {state.path: state.uri for state in ls.documents.values()}
    codec = ls.workspace.position_codec
    kept: dict = {}  # a file's positions, made once for all its symbols
    out = []
    for symbol in found:
        source = symbol.span.source
        analysis = held.get(source.path)
        if isinstance(analysis, Analysis):
            positions = ls.positions(analysis)
        else:
            if source.path not in kept:
                kept[source.path] = convert.Positions(source, codec)
            positions = kept[source.path]
        uri = uris.get(source.path) or from_fs_path(source.path) or source.path
        where = lsp.Location(uri, positions.span_range(symbol.span))
        out.append(
            lsp.WorkspaceSymbol(
                name=symbol.name, kind=lsp.SymbolKind.Function, location=where, container_name=symbol.detail or None
            )
        )
    return out
