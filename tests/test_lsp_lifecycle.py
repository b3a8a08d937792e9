"""`gradual lsp` over raw JSON-RPC, as a careless or hostile client drives it: every request
gets an answer (a request whose parameters do not fit, or one sent after `shutdown`, was
dropped, and the client waited forever), and the process exits as LSP says: 0 on `exit`
after `shutdown`, 1 on `exit` without it (both were 2: the flush of the stdout pygls had
closed failed). Found by an outside pass."""

from __future__ import annotations

import json

from lspclient import WAIT, Session

URI = "file:///tmp/gradual-lifecycle/a.rly"
TEXT = "def @main(%x: Tensor[(2, 3), float32]) {\n  nn.matmul(%x, %x)\n}\n"


def test_every_request_is_answered_and_exit_after_shutdown_is_0() -> None:
    session = Session()
    try:
        session.start()
        session.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "gradual", "version": 1, "text": TEXT}}
        )
        for params in (
            {"textDocument": {"uri": URI}},  # no position
            {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}},  # not a uinteger
            5,
        ):
            reply = session.request("textDocument/hover", params)
            assert reply["error"]["code"] == -32602, reply  # Invalid Params
        hover = session.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 13}}
        )
        assert "Tensor[(2, 3), float32]" in hover["result"]["contents"]["value"]  # still serving
        assert session.request("shutdown", None) == {"jsonrpc": "2.0", "id": session.next_id, "result": None}
        after = session.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
        assert after["error"]["code"] == -32600, after  # Invalid Request
        assert session.request("shutdown", None)["error"]["code"] == -32600
        session.notify("exit")
        assert session.process.wait(WAIT) == 0
    finally:
        session.process.kill()


def test_exit_without_shutdown_is_1() -> None:
    session = Session()
    try:
        session.start()
        session.notify("exit")
        assert session.process.wait(WAIT) == 1
    finally:
        session.process.kill()


def test_before_initialize_a_request_is_refused_and_a_notification_dropped() -> None:
    """LSP 3.17: before `initialize` a request gets ServerNotInitialized (-32002) and a
    notification (but `exit`) is dropped. The server answered a hover with null, and a
    document opened before `initialize` was lost without a word."""
    session = Session()
    try:
        session.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "gradual", "version": 1, "text": TEXT}}
        )
        early = session.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 13}}
        )
        assert early["error"]["code"] == -32002, early
        assert session.request("shutdown", None)["error"]["code"] == -32002
        session.start()
        hover = session.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 13}}
        )
        assert hover["result"] is None  # the early didOpen was dropped: the document is not open
        session.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "gradual", "version": 1, "text": TEXT}}
        )
        hover = session.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 13}}
        )
        assert "Tensor[(2, 3), float32]" in hover["result"]["contents"]["value"]
        session.shut_down()
    finally:
        session.process.kill()


def test_a_debounce_past_ten_seconds_is_ignored() -> None:
    """`debounceMs` of 1e12 (or `true`) was taken: the first diagnostics were due in 31 years,
    and the editor showed none with nothing said. Such a value is ignored (10 ms stays)."""
    from gradual.lsp.server import Settings

    for wrong in (1e12, float("inf"), True, -1, "5"):
        settings = Settings()
        settings.update({"debounceMs": wrong})
        assert settings.debounce == 0.010, wrong
    settings = Settings()
    settings.update({"gradual": {"debounceMs": 250}})
    assert settings.debounce == 0.25


def test_a_second_initialize_is_refused() -> None:
    """`initialize` may only be sent once (LSP 3.17): a second one re-ran the server's handler,
    which registered pull diagnostics again and answered with an internal error carrying a
    Python traceback (pygls' FeatureAlreadyRegisteredError). It gets Invalid Request, and the
    server goes on serving."""
    session = Session()
    try:
        assert "result" in session.request(
            "initialize", {"processId": None, "rootUri": None, "capabilities": {"textDocument": {"diagnostic": {}}}}
        )
        session.notify("initialized", {})
        again = session.request(
            "initialize", {"processId": None, "rootUri": None, "capabilities": {"textDocument": {"diagnostic": {}}}}
        )
        assert again["error"]["code"] == -32600 and "traceback" not in json.dumps(again), again
        session.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "gradual", "version": 1, "text": TEXT}}
        )
        pulled = session.request("textDocument/diagnostic", {"textDocument": {"uri": URI}})
        assert [d["code"] for d in pulled["result"]["items"]] == ["shape-mismatch"]
        session.shut_down()
    finally:
        session.process.kill()


def test_a_message_that_is_no_json_rpc_object_gets_json_rpcs_error() -> None:
    """Not JSON (-32700) and JSON that is no object (`[]`, `null`, `3`, `{}`: -32600) are
    answered as JSON-RPC 2.0 says, with `"id": null`; pygls showed the user "Error in server:
    'list' object has no attribute 'jsonrpc'" (a Python message, a traceback on stderr). The
    server goes on serving."""
    session = Session()
    try:
        session.start()
        for body, code in ((b'{"a":', -32700), (b"[]", -32600), (b"null", -32600), (b"3", -32600), (b"{}", -32600)):
            session.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            session.process.stdin.flush()
            answer = session.receive()
            assert answer["id"] is None and answer["error"]["code"] == code and "method" not in answer, (body, answer)
            assert "attribute" not in answer["error"]["message"]
        session.shut_down()
    finally:
        session.process.kill()


def test_the_server_exits_when_the_clients_process_is_gone() -> None:
    """`processId` in `initialize`: the server watches that process and exits (status 1) when
    it is gone, even though its input stays open (an editor killed with its pipes inherited
    elsewhere left servers running forever)."""
    import subprocess
    import sys

    client = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    session = Session()
    try:
        session.start(processId=client.pid)
        assert "result" in session.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
        assert session.process.poll() is None  # the client lives: the server serves
        client.kill()
        client.wait()  # reaped (a zombie counts as gone too)
        assert session.process.wait(WAIT) == 1
    finally:
        client.kill()
        session.process.kill()


def test_settings_are_pulled_with_workspace_configuration() -> None:
    """A client that answers `workspace/configuration` is asked for the `gradual` section after
    `initialized` and after each `didChangeConfiguration`, which may carry `settings: null` (as
    VS Code sends): the hints switched off there are off."""
    session = Session()
    asked = []

    def answer(section_settings: dict, until: str = "workspace/configuration") -> None:
        """Answer the server's requests up to the first `until`, giving these settings."""
        while True:
            message = session.receive()
            method = message.get("method")
            if method == "workspace/configuration":
                asked.append(message["params"])
                session.send({"jsonrpc": "2.0", "id": message["id"], "result": [section_settings]})
            elif method in ("client/registerCapability", "workspace/inlayHint/refresh"):
                session.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if method == until:
                return

    try:
        capabilities = {
            "workspace": {
                "configuration": True,
                "didChangeConfiguration": {"dynamicRegistration": True},
                "inlayHint": {"refreshSupport": True},
            }
        }
        reply = session.request("initialize", {"processId": None, "rootUri": None, "capabilities": capabilities})
        assert "result" in reply
        session.notify("initialized", {})
        answer({"inlayHints": {"parameterTypes": False}})
        session.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": URI, "languageId": "gradual", "version": 1, "text": HINTED}},
        )
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}
        hints = session.request("textDocument/inlayHint", {"textDocument": {"uri": URI}, "range": whole})["result"]
        assert [h["kind"] for h in hints] == [1] and hints[0]["label"].startswith(": Tensor"), hints  # the let's only
        session.notify("workspace/didChangeConfiguration", {"settings": None})
        answer({"inlayHints": {"parameterTypes": True, "bindingTypes": False}}, until="workspace/inlayHint/refresh")
        hints = session.request("textDocument/inlayHint", {"textDocument": {"uri": URI}, "range": whole})["result"]
        assert len(hints) == 1 and hints[0]["position"]["line"] == 0, hints  # the parameter's only
        assert asked == [{"items": [{"section": "gradual"}]}] * 2
        session.shut_down()
    finally:
        session.process.kill()


HINTED = "def @main(%x, %w: Tensor[(2, 3), float32]) {\n  let %y = nn.relu(%w);\n  add(%x, %y)\n}\n"


def test_a_small_document_is_checked_while_a_large_one_is() -> None:
    """Each document is analyzed on a thread of its own, the one edited last first: a
    100-line document opened after a 6,000-line one gets its diagnostics (and two edits'
    worth more) before the large one's first diagnostics arrive. With one analysis thread
    for all documents it waited for the whole large check."""
    from lspclient import program

    session = Session()
    big, small = "file:///tmp/gradual-lifecycle/big.rly", "file:///tmp/gradual-lifecycle/small.rly"
    try:
        session.start(initializationOptions={"diagnostics": "push", "debounceMs": 0})
        session.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": big, "languageId": "gradual", "version": 1, "text": program(6000)}},
        )
        order = []
        text = program(100)
        for version in (1, 2, 3):
            if version == 1:
                session.notify(
                    "textDocument/didOpen",
                    {"textDocument": {"uri": small, "languageId": "gradual", "version": 1, "text": text}},
                )
            else:
                text = text.replace("nn.relu(%0)", "nn.relu(%0, %0)" if version == 2 else "nn.relu(%0)")
                text = text if version == 2 else text.replace("nn.relu(%0, %0)", "nn.relu(%0)")
                session.notify(
                    "textDocument/didChange",
                    {"textDocument": {"uri": small, "version": version}, "contentChanges": [{"text": text}]},
                )
            while True:
                message = session.receive()
                if message.get("method") == "textDocument/publishDiagnostics":
                    order.append((message["params"]["uri"], message["params"]["version"]))
                    if order[-1] == (small, version):
                        break
        while (big, 1) not in order:
            message = session.receive()
            if message.get("method") == "textDocument/publishDiagnostics":
                order.append((message["params"]["uri"], message["params"]["version"]))
        assert order.index((small, 3)) < order.index((big, 1)), order
        session.shut_down()
    finally:
        session.process.kill()
