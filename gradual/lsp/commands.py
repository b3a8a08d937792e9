"""The server's commands (`workspace/executeCommand`), for editors that show more than LSP's
requests do: each takes JSON arguments and answers a JSON object, `{"error": why}` when it
cannot answer. Pure functions of the analysis layer's data; the server runs them on its
worker thread (they parse, check and print, as analyses do).

* `gradual.elaborated` `[uri]`: the open program's newest version elaborated, as
  `gradual elaborate` prints it: `{"text": ...}`.
* `gradual.modelListing` `[uri, listing_uri?]`: a model file checked from disk, as `gradual
  check` checks it: `{"text": listing, "diagnostics": [LSP diagnostics]}`. Diagnostics located
  in the listing (one line per node) have ranges in `text` and related information at
  `listing_uri` (default: the model's uri); those located elsewhere (a torch.export model's
  Python line) stand at its start and say where they are.
"""

from __future__ import annotations

import functools
from typing import Any

from lsprotocol import types as lsp
from pygls.workspace.position_codec import PositionCodec

from gradual.analysis.document import Analysis
from gradual.lsp import convert
from gradual.syntax.source import Source

ELABORATED = "gradual.elaborated"
MODEL_LISTING = "gradual.modelListing"
COMMANDS = (ELABORATED, MODEL_LISTING)


def elaborated(analysis: Analysis) -> dict:
    """The elaborated program of an analysis, or why there is none (it does not parse, or it
    has type errors: nothing sound to elaborate)."""
    from gradual.checker.driver import elaborate_text

    try:
        return {"text": elaborate_text(analysis.result)}
    except ValueError as exc:
        return {"error": str(exc).replace("; see result.errors", "").replace("; see result.diagnostics", "")}


def model_listing(path: str, listing_uri: str, codec: PositionCodec) -> dict:
    """A model's listing and its diagnostics (see the module docstring)."""
    from gradual.analysis.inputs import Unavailable, check_input, load

    try:
        loaded = load(path)
    except Unavailable as exc:
        return {"error": str(exc)}
    if loaded.model is None:
        return {"error": f"{path}: not a model file (no frontend reads this kind of file)"}
    found = check_input(loaded).diagnostics
    listing = _listing_source(loaded.model.module, found, path)
    text = listing.text if listing is not None else ""
    positions = convert.Positions(listing or Source("", path), codec)
    items = [
        convert.diagnostic(d, listing_uri, path, positions)
        if listing is not None and d.span.source is listing
        else convert.model_diagnostic(d, path)
        for d in found
    ]
    return {"text": text, "diagnostics": [_json(item) for item in items]}


def _listing_source(module: Any, diagnostics: list, path: str) -> Source | None:
    """The listing a frontend located the model's program in: the source of its definitions,
    or of a diagnostic, that is the model's path (None when the import made neither)."""
    spans = [d.span for d in getattr(module, "defs", ())] + [d.span for d in diagnostics]
    return next((s.source for s in spans if s.source.path == path and s.source.text), None)


def _json(item: lsp.Diagnostic) -> Any:
    """A diagnostic as LSP's JSON (camelCase names), for an answer typed `LSPAny`."""
    return _converter().unstructure(item)


@functools.cache
def _converter() -> Any:
    from lsprotocol.converters import get_converter

    return get_converter()
