"""Pure conversions between the analysis layer's data and LSP's: positions (in the code
units the client negotiated: UTF-8 or UTF-16), ranges, diagnostics, hovers, hints, symbols
and fixes. No I/O, no state: the server calls these."""

from __future__ import annotations

from typing import Optional

from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from gradual.analysis import queries
from gradual.analysis.document import Analysis
from gradual.analysis.fixes import Edit, Fix
from gradual.diagnostics import Diagnostic, Severity, docs_url
from gradual.diagnostics.codes import UNUSED_HINT
from gradual.lsp.text import Lines
from gradual.syntax.source import Source, Span

_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.NOTE: lsp.DiagnosticSeverity.Information,
}
_SYMBOL_KIND = {
    "function": lsp.SymbolKind.Function,
    "parameter": lsp.SymbolKind.Variable,
    "variable": lsp.SymbolKind.Variable,
}


class Positions:
    """Offsets of one document version <-> LSP positions in the client's code units, with
    lines as LSP counts them (`text.Lines`: a lone `\r` ends a line, a form feed does not)."""

    def __init__(self, source: Source, codec: PositionCodec) -> None:
        self.source = source
        self.codec = codec
        self.encoding: str = codec.encoding or lsp.PositionEncodingKind.Utf16  # none given: LSP's default
        self.lines = Lines(source.text)

    def offset(self, position: lsp.Position) -> int:
        """The code-point offset of an LSP position (clamped to the document)."""
        return self.lines.offset(position, self.encoding)

    def position(self, offset: int) -> lsp.Position:
        """The LSP position of a code-point offset."""
        return self.lines.position(offset, self.encoding)

    def range(self, start: int, end: int) -> lsp.Range:
        """The LSP range of [start, end)."""
        return lsp.Range(self.position(start), self.position(end))

    def span_range(self, span: Span) -> lsp.Range:
        """The range of a span of this document."""
        return self.range(queries.start_of(span), queries.end_of(span))


def location(span: Span, uri: str, path: str, positions: Positions) -> Optional[lsp.Location]:
    """An LSP location of a span: in this document, or in another file (a stdlib operator)."""
    if span.source.path == path:
        return lsp.Location(uri, positions.span_range(span))
    if not span.source.text or span.source.path.startswith("<"):
        return None
    other = Positions(span.source, positions.codec)
    return lsp.Location(from_fs_path(span.source.path) or span.source.path, other.range(span.start, span.end))


def diagnostic(diag: Diagnostic, uri: str, path: str, positions: Positions) -> lsp.Diagnostic:
    """One diagnostic: range, severity, code with a link to its documentation; the message,
    then the primary label, notes and help, on lines of their own; the secondary labels as
    related information."""
    lines = [diag.message] + ([diag.label] if diag.label else [])
    lines += [f"note: {note}" for note in diag.notes]
    if diag.help:
        lines.append(f"help: {diag.help}")
    related = []
    for label in diag.labels:
        where = location(label.span, uri, path, positions)
        if where is not None:
            related.append(lsp.DiagnosticRelatedInformation(where, label.message))
    return lsp.Diagnostic(
        range=positions.span_range(diag.span)
        if diag.span.source.path == path
        else lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
        message="\n".join(lines),
        severity=_SEVERITY[diag.severity],
        code=diag.code,
        code_description=lsp.CodeDescription(href=docs_url(diag.code)),
        source="gradual",
        related_information=related or None,
        tags=[lsp.DiagnosticTag.Unnecessary] if diag.code == UNUSED_HINT else None,
        data={"code": diag.code},
    )


def model_diagnostic(diag: Diagnostic, path: str) -> lsp.Diagnostic:
    """A diagnostic of a model file open in the editor: at the document's start (its text
    is the binary model, where the listing's positions mean nothing), the message followed
    by where it is: the node's line of the listing (`node fc2 (Gemm): a, w -> y`), or the
    file and line of another source (a torch.export model's Python line)."""
    span = diag.span
    lines = [diag.message] + ([diag.label] if diag.label else [])
    if span.source.text and span.source.path == path:
        lines.append(f"at {span.source.line_text(span.start_position[0])}")
    elif span.source.text:
        lines.append(f"at {span.describe()}")
    lines += [f"note: {note}" for note in diag.notes]
    if diag.help:
        lines.append(f"help: {diag.help}")
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
        message="\n".join(lines),
        severity=_SEVERITY[diag.severity],
        code=diag.code,
        code_description=lsp.CodeDescription(href=docs_url(diag.code)),
        source="gradual",
        data={"code": diag.code},
    )


def diagnostics(analysis: Analysis, uri: str, positions: Positions) -> list[lsp.Diagnostic]:
    """Every diagnostic of an analysis."""
    return [diagnostic(d, uri, analysis.path, positions) for d in analysis.diagnostics]


def hover(found: queries.Hover, positions: Positions) -> lsp.Hover:
    """A hover as markdown."""
    return lsp.Hover(
        lsp.MarkupContent(lsp.MarkupKind.Markdown, "\n".join(found.lines)), positions.span_range(found.span)
    )


def inlay_hint(hint: queries.InlayHint, positions: Positions) -> lsp.InlayHint:
    """A hint: types are `Type` hints after the name; a check's marker follows its expression."""
    kind = lsp.InlayHintKind.Type if hint.kind in ("binding", "parameter") else None
    return lsp.InlayHint(
        position=positions.position(hint.offset),
        label=hint.label,
        kind=kind,
        tooltip=hint.tooltip or None,
        padding_left=hint.kind == "check",
    )


def symbol(found: queries.Symbol, positions: Positions) -> lsp.DocumentSymbol:
    """A definition (with its parameters and bindings) as a document symbol."""
    return lsp.DocumentSymbol(
        name=found.name,
        kind=_SYMBOL_KIND[found.kind],
        detail=found.detail or None,
        range=positions.span_range(found.span),
        selection_range=positions.span_range(found.name_span),
        children=[symbol(c, positions) for c in found.children] or None,
    )


def text_edit(edit: Edit, positions: Positions) -> lsp.TextEdit:
    """One edit of this document."""
    return lsp.TextEdit(positions.range(edit.start, edit.end), edit.text)


def code_action(
    fix: Fix, uri: str, path: str, version: Optional[int], positions: Positions, versioned: bool = True
) -> lsp.CodeAction:
    """A fix as a code action; its edit names the document version it applies to when the
    client takes versioned edits (`documentChanges`)."""
    edits = [text_edit(e, positions) for e in sorted(fix.edits, key=lambda e: e.start)]
    if versioned:
        change = lsp.TextDocumentEdit(lsp.OptionalVersionedTextDocumentIdentifier(uri, version), edits)
        workspace_edit = lsp.WorkspaceEdit(document_changes=[change])
    else:
        workspace_edit = lsp.WorkspaceEdit(changes={uri: edits})
    kind = lsp.CodeActionKind.QuickFix if fix.kind == "quickfix" else lsp.CodeActionKind.RefactorRewrite
    diags = [diagnostic(fix.diagnostic, uri, path, positions)] if fix.diagnostic is not None else None
    return lsp.CodeAction(
        title=fix.title, kind=kind, diagnostics=diags, is_preferred=fix.preferred or None, edit=workspace_edit
    )
