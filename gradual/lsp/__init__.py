"""`gradual lsp`: a Language Server Protocol 3.17 server on stdio (pygls).

A front end over `gradual.analysis`, like the command line: `server.py` holds the handlers
and the scheduling (debounce, superseding, cancellation), `convert.py` the pure conversions
to LSP's types, `features.py` the editing features (completion, signature help, rename,
semantic tokens, workspace symbols, highlights, folding), `startup.py` what makes the start
quick. pygls and lsprotocol are imported
only when the server starts.
"""


def serve() -> int:
    """Run the language server on stdin/stdout."""
    from gradual.lsp.startup import fast_imports

    with fast_imports():
        import gradual.lsp.features  # noqa: F401  (registers the editing features' handlers)
        from gradual.lsp.server import serve as run
    return run()
