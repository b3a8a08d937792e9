"""`gradual lsp`: a Language Server Protocol 3.17 server on stdio (pygls).

A front end over `gradual.analysis`, like the command line: `server.py` holds the handlers
and the scheduling (debounce, superseding, cancellation), `convert.py` the pure conversions
to LSP's types. pygls and lsprotocol are imported only when the server starts.
"""


def serve() -> int:
    """Run the language server on stdin/stdout."""
    from .server import serve as run

    return run()
