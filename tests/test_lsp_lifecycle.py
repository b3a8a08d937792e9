"""`gradual lsp` over raw JSON-RPC, as a careless or hostile client drives it: every request
gets an answer (a request whose parameters do not fit, or one sent after `shutdown`, was
dropped, and the client waited forever), and the process exits as LSP says: 0 on `exit`
after `shutdown`, 1 on `exit` without it (both were 2: the flush of the stdout pygls had
closed failed). Found by an outside pass."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading

from lspclient import SERVER

WAIT = 60


class Session:
    """A server process and a blocking JSON-RPC client of it."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ)
        )
        self.next_id = 0
        self.replies: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Every message of the server, into `replies` (None when its output closes)."""
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.replies.put(None)
                    return
                if not line.strip():
                    break
                name, value = line.decode().split(":", 1)
                if name.lower() == "content-length":
                    length = int(value)
            self.replies.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()

    def receive(self) -> dict:
        """The next message (fails when none comes: an unanswered request)."""
        try:
            message = self.replies.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError("no answer") from None
        assert message is not None, "the server closed its output"
        return message

    def request(self, method: str, params: object) -> dict:
        """Send a request; its reply (notifications before it are skipped)."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def notify(self, method: str, params: object = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def start(self) -> None:
        assert "result" in self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})

    def shut_down(self) -> None:
        """`shutdown`, then `exit`, as an editor ends a session: the server exits with 0."""
        assert "result" in self.request("shutdown", None)
        self.notify("exit")
        assert self.process.wait(WAIT) == 0


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
    document opened before `initialize` was lost without a word (found by an outside pass)."""
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
    server goes on serving (found by an outside pass)."""
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
