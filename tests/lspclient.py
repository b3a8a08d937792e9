"""Driving `gradual lsp` over stdio from pytest (pytest-lsp): one server per test module,
a recorder of every `publishDiagnostics` with its version, and small helpers for documents,
positions and waiting."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Optional

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SERVER = [sys.executable, "-m", "gradual.cli", "lsp"]
WAIT = 60.0  # generous: the machine may be loaded; a hang still fails


def config(command: Optional[list] = None) -> ClientServerConfig:
    """A pytest-lsp configuration starting the server (with this environment)."""
    return ClientServerConfig(server_command=command or SERVER, server_env=dict(os.environ))


class Published:
    """Every publishDiagnostics the client received, in order, with a way to wait for one;
    and every capability the server registered (`client/registerCapability`)."""

    def __init__(self, client: LanguageClient) -> None:
        self.events: list[lsp.PublishDiagnosticsParams] = []
        self.arrived = asyncio.Event()
        features = client.protocol.fm.features
        original = features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def record(params: lsp.PublishDiagnosticsParams) -> Any:
            self.events.append(params)
            self.arrived.set()
            return original(params)

        features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
        # the server registers for configuration changes with a client that offers dynamic
        # registration (VS Code's capabilities): accepted, as VS Code does, and kept
        self.registrations: list[lsp.Registration] = []

        @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def registered(params: lsp.RegistrationParams) -> None:
            self.registrations.extend(params.registrations)

    def of(self, uri: str) -> list[lsp.PublishDiagnosticsParams]:
        """What was published for one document."""
        return [e for e in self.events if e.uri == uri]

    async def wait(self, uri: str, version: int, timeout: float = WAIT) -> lsp.PublishDiagnosticsParams:
        """The diagnostics published for this version of a document (waits for them)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = [e for e in self.of(uri) if e.version == version]
            if found:
                return found[-1]
            self.arrived.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"no diagnostics for {uri} version {version}: {[e.version for e in self.of(uri)]}")
            try:
                await asyncio.wait_for(self.arrived.wait(), left)
            except asyncio.TimeoutError:
                pass


def uri_of(name: str) -> str:
    """A document URI (the file need not exist: the client sends the text)."""
    return (ROOT / "tests" / "lsp-docs" / name).as_uri()


def open_document(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    """textDocument/didOpen."""
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="gradual", version=version, text=text))
    )


def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    """textDocument/didChange with the whole text."""
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def edit(client: LanguageClient, uri: str, version: int, start: lsp.Position, end: lsp.Position, text: str) -> None:
    """textDocument/didChange replacing a range (an incremental change)."""
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangePartial(range=lsp.Range(start, end), text=text)],
        )
    )


def position_of(text: str, needle: str, shift: int = 0, nth: int = 0) -> lsp.Position:
    """The (code-point) position of the nth occurrence of `needle`, plus `shift` columns."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += shift
    line = text.count("\n", 0, at)
    return lsp.Position(line, at - (text.rfind("\n", 0, at) + 1))


def doc(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


async def eventually(predicate: Callable[[], Any], timeout: float = WAIT) -> Any:
    """Wait until `predicate()` is truthy; returns its value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition never held")
        await asyncio.sleep(0.02)


def program(lines: int) -> str:
    """A generated program of about `lines` lines: a chain of definitions, each calling the
    previous one (the benchmark uses the same generator)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from lsp_bench import generate

    return generate(lines)


class Session:
    """A server process and a blocking JSON-RPC client of it."""

    def __init__(self, env: Optional[dict] = None, stderr: Any = subprocess.DEVNULL) -> None:
        self.process = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(os.environ, **(env or {})),
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
        self.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def write(self, data: bytes) -> None:
        """Raw bytes to the server's input (framing of one's own)."""
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self, timeout: float = WAIT) -> dict:
        """The next message (fails when none comes: an unanswered request)."""
        try:
            message = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no answer") from None
        assert message is not None, "the server closed its output"
        return message

    def request(self, method: str, params: object) -> dict:
        """Send a request; its reply (notifications before it are skipped)."""
        return self.request_after(method, params)[0]

    def request_after(self, method: str, params: object) -> tuple[dict, list]:
        """Send a request; its reply, and every message that came before it."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        before = []
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message, before
            before.append(message)

    def response(self) -> dict:
        """The next response (a message with no method), notifications skipped."""
        while True:
            message = self.receive()
            if "method" not in message:
                return message

    def notify(self, method: str, params: object = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def start(self, **params: object) -> dict:
        """`initialize` (with these parameters besides the defaults), then `initialized`; the
        server's capabilities."""
        reply = self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}, **params})
        assert "result" in reply, reply
        self.notify("initialized", {})
        return reply["result"]

    def shut_down(self) -> None:
        """`shutdown`, then `exit`, as an editor ends a session: the server exits with 0."""
        assert "result" in self.request("shutdown", None)
        self.notify("exit")
        assert self.process.wait(WAIT) == 0
