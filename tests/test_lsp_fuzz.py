"""Fuzzing `gradual lsp` over stdio, two ways.

Edits: random insertions and deletions on the examples (many mid-token, many leaving text
that does not parse), sent as incremental changes, with a random request after each. The
server must answer every request, never crash, and its diagnostics for the final version must
be exactly those of `gradual check --format json` on the final text. Derandomized: the same
edits every run.

The protocol (hypothesis; a few dozen examples each by default, many more under `-m deep`):
broken framing (a Content-Length that is missing, not a number, huge or wrong; header lines
that are no headers; bodies that are not UTF-8 or not JSON) gets -32700 with a null id; ids of
every JSON type are answered under their own id when LSP takes them (an integer, a string)
and with -32600 and a null id when not; parameters of the wrong shape for every method the
server registers get -32602 (a notification's are dropped: notifications are never
answered). After each, a valid request is answered: the server goes on serving. The reader
itself (`framing.Deframer`) is checked apart, on any split of the bytes."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import attrs
import pytest
import pytest_lsp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lspclient import EXAMPLES, Published, Session, config, doc, edit, open_document, uri_of
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities

from gradual.cli import main as gradual_main
from gradual.lsp.framing import MAX_BODY, MAX_HEADER_LINE, Broken, Deframer, Message

# replies that break the protocol for the declared client fail the test
pytestmark = [pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")]

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.rly"))
SEQUENCES = 2
EDITS = 10
PIECES = [
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    "%",
    "@",
    ":",
    "=",
    "?",
    "*",
    ".",
    "1",
    "28",
    " ",
    "\n",
    "x",
    "n",
    "Tensor",
    "float32",
    "nn.dense",
    "add(",
    "%x",
    "let ",
    "as ",
    "//",
    "/*",
    "*/",
]


@pytest_lsp.fixture(config=config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.published = Published(lsp_client)
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), initialization_options={"debounceMs": 2}
        )
    )
    yield
    await lsp_client.shutdown_session()


def position(text: str, offset: int) -> lsp.Position:
    line = text.count("\n", 0, offset)
    return lsp.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


def mutate(rng: random.Random, text: str) -> tuple[int, int, str]:
    """A random edit: (start, end, new text), ASCII only (UTF-16 units = code points)."""
    start = rng.randrange(len(text) + 1)
    if rng.random() < 0.4 and text:
        end = min(len(text), start + rng.randint(1, 12))
        return start, end, ""
    if rng.random() < 0.3 and text:
        a = rng.randrange(len(text))
        return start, start, text[a : a + rng.randint(1, 20)]
    return start, start, "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))


async def some_request(client: LanguageClient, rng: random.Random, uri: str, text: str) -> None:
    """One random request at a random place; it must get an answer (not an error)."""
    at = position(text, rng.randrange(len(text) + 1))
    where = lsp.Range(at, at)
    kind = rng.randrange(6)
    if kind == 0:
        await client.text_document_hover_async(lsp.HoverParams(doc(uri), at))
    elif kind == 1:
        await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(uri), lsp.Range(lsp.Position(0, 0), at)))
    elif kind == 2:
        await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(uri)))
    elif kind == 3:
        await client.text_document_definition_async(lsp.DefinitionParams(doc(uri), at))
    elif kind == 4:
        await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=doc(uri), position=at, context=lsp.ReferenceContext(include_declaration=True)
            )
        )
    else:
        await client.text_document_code_action_async(
            lsp.CodeActionParams(doc(uri), where, lsp.CodeActionContext(diagnostics=[]))
        )


def cli_diagnostics(tmp_path, name: str, text: str) -> list:
    """`gradual check --format json` on the text: (code, severity, message, range) per diagnostic."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        gradual_main(["check", "--format", "json", str(path)])
    found = json.loads(out.getvalue())["files"][0]["diagnostics"]
    return sorted(
        (d["code"], d["severity"], d["message"], d["line"] - 1, d["column"] - 1, d["end_line"] - 1, d["end_column"] - 1)
        for d in found
    )


def lsp_diagnostics(diags: tuple) -> list:
    severity = {
        lsp.DiagnosticSeverity.Error: "error",
        lsp.DiagnosticSeverity.Warning: "warning",
        lsp.DiagnosticSeverity.Information: "note",
    }
    out = []
    for d in diags:
        message = d.message.split("\n")[0]
        out.append(
            (
                d.code,
                severity[d.severity],
                message,
                d.range.start.line,
                d.range.start.character,
                d.range.end.line,
                d.range.end.character,
            )
        )
    return sorted(out)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.stem)
async def test_fuzzed_edits(client: LanguageClient, example, tmp_path) -> None:
    for sequence in range(SEQUENCES):
        rng = random.Random(f"{example.name}:{sequence}")
        text = example.read_text(encoding="utf-8")
        uri = uri_of(f"fuzz-{example.stem}-{sequence}.rly")
        open_document(client, uri, text, 1)
        version = 1
        for _ in range(EDITS):
            start, end, new = mutate(rng, text)
            version += 1
            edit(client, uri, version, position(text, start), position(text, end), new)
            text = text[:start] + new + text[end:]
            if rng.random() < 0.6:
                await some_request(client, rng, uri, text)
        published = await client.published.wait(uri, version)
        expected = cli_diagnostics(tmp_path, f"{example.stem}-{sequence}.rly", text)
        got = lsp_diagnostics(published.diagnostics)
        assert [g[:2] + g[3:] for g in got] == [e[:2] + e[3:] for e in expected], text
        for g, e in zip(got, expected):
            assert g[2].startswith(e[2]), (g, e)
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(uri)))


# the protocol ------------------------------------------------------------------------------------
FEW, MANY = 30, 400  # examples a property: the default suite, and `-m deep`
URI = "file:///tmp/gradual-protocol-fuzz/a.rly"
TEXT = "def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(%x)\n}\n"
HOVER = {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 11}}


def fuzz(examples: int):
    """Hypothesis settings for a property run against one server process."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=examples == FEW,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@pytest.fixture(scope="module")
def raw():
    """One server, driven byte by byte, with a document open."""
    session = Session()
    try:
        capabilities = session.start()["capabilities"]
        session.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "gradual", "version": 1, "text": TEXT}}
        )
        session.capabilities = capabilities
        yield session
        session.shut_down()
    finally:
        session.process.kill()


def serving(session: Session) -> list:
    """A valid request is answered (the server goes on); the messages that came before."""
    reply, before = session.request_after("textDocument/hover", HOVER)
    assert "Tensor[(2, 3), float32]" in reply["result"]["contents"]["value"], reply
    return before


def frame(body: bytes, length: object = None) -> bytes:
    return b"Content-Length: %s\r\n\r\n%s" % (str(len(body) if length is None else length).encode(), body)


REQUEST = json.dumps({"jsonrpc": "2.0", "id": "x", "method": "textDocument/hover", "params": HOVER}).encode()
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
not_a_number = st.text(min_size=1, max_size=12).filter(
    lambda v: not v.strip().isdigit() and "\n" not in v and "\r" not in v
)
broken_frames = st.one_of(
    # a Content-Length that is no number, then the body
    st.tuples(not_a_number, st.just(REQUEST)).map(lambda v: b"Content-Length: " + v[0].encode() + b"\r\n\r\n" + v[1]),
    # none at all
    st.just(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + REQUEST),
    # one past what the server takes (the body is never that long)
    st.integers(MAX_BODY + 1, 10**30).map(lambda n: frame(REQUEST, n)),
    # one longer than the body that follows, under the limit
    st.integers(len(REQUEST) + 200, MAX_BODY).map(lambda n: frame(REQUEST, n)),
    # a body that is not UTF-8, or not JSON
    st.binary(min_size=1, max_size=40).filter(lambda b: not _utf8(b)).map(frame),
    st.text(min_size=1, max_size=40).filter(lambda t: not _json(t)).map(lambda t: frame(t.encode())),
    # a header line that is none (blank ones between messages are taken), a header line too long
    st.binary(min_size=1, max_size=30)
    .filter(lambda b: b":" not in b and b"\n" not in b and b.strip())
    .map(lambda b: b + b"\r\n\r\n"),
    st.just(b"X-" + b"a" * (MAX_HEADER_LINE + 10) + b": 1\r\n\r\n"),
)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def check_broken_framing(session: Session, data: bytes) -> None:
    session.write(data)
    before = serving(session)
    errors = [m for m in before if "error" in m]
    assert errors and all(m["id"] is None for m in errors), (data[:200], before)
    assert errors[0]["error"]["code"] == -32700, (data[:200], errors)


@fuzz(FEW)
@given(data=broken_frames)
def test_broken_framing_is_a_parse_error(raw: Session, data: bytes) -> None:
    check_broken_framing(raw, data)


@pytest.mark.deep
@fuzz(MANY)
@given(data=broken_frames)
def test_broken_framing_is_a_parse_error_deep(raw: Session, data: bytes) -> None:
    check_broken_framing(raw, data)


def check_id(session: Session, identity: object) -> None:
    session.send({"jsonrpc": "2.0", "id": identity, "method": "textDocument/hover", "params": HOVER})
    reply = session.response()
    if isinstance(identity, str) or isinstance(identity, int) and not isinstance(identity, bool):
        assert reply["id"] == identity and "Tensor[(2, 3)" in reply["result"]["contents"]["value"], reply
    else:
        assert reply["id"] is None and reply["error"]["code"] == -32600, (identity, reply)
    serving(session)


@fuzz(FEW)
@given(identity=json_values)
def test_ids_of_every_json_type(raw: Session, identity: object) -> None:
    check_id(raw, identity)


@pytest.mark.deep
@fuzz(MANY)
@given(identity=json_values)
def test_ids_of_every_json_type_deep(raw: Session, identity: object) -> None:
    check_id(raw, identity)


def registered_methods() -> list:
    """Every method the server handles (its features and pygls' own), with the class of its
    parameters: those lsprotocol knows and a client may send. `initialize`, `shutdown` and
    `exit` end or restart the session: left out."""
    import gradual.lsp.features  # noqa: F401  (registers its handlers)
    from gradual.lsp.server import server

    names = set(server.protocol.fm.features) | set(server.protocol.fm.builtin_features)
    names.add(lsp.TEXT_DOCUMENT_DIAGNOSTIC)  # registered at `initialize` for a pulling client
    out = []
    for name in sorted(names - {lsp.INITIALIZE, lsp.SHUTDOWN, lsp.EXIT}):
        types = lsp.METHOD_TO_TYPES.get(name)
        if types is not None and types[2] is not None and attrs.has(types[2]):
            out.append((name, types[2], types[1] is not None))
    return out


METHODS = registered_methods()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@st.composite
def wrong_params(draw: st.DrawFn) -> tuple:
    """(method, is it a request, parameters of the wrong shape for it): not an object; or an
    object missing a required field, or giving one a value of another JSON type."""
    method, params_class, is_request = draw(st.sampled_from(METHODS))
    required = [f for f in attrs.fields(params_class) if f.default is attrs.NOTHING]
    wrong_type = (
        st.integers() | st.booleans() | st.lists(st.integers(), max_size=2) | st.text(max_size=4).map(lambda t: {t: 1})
    )
    if not required or draw(st.booleans()):
        return method, is_request, draw(st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2))
    field = draw(st.sampled_from(required))
    params = {_camel(f.name): {} for f in required if f is not field}
    if draw(st.booleans()):
        value = draw(wrong_type.filter(lambda v: not isinstance(v, dict) or f"{field.type}" == "<class 'str'>"))
        params[_camel(field.name)] = value
    return method, is_request, params


def check_wrong_params(session: Session, case: tuple) -> None:
    method, is_request, params = case
    if is_request:
        reply, before = session.request_after(method, params)
        assert reply.get("error", {}).get("code") == -32602, (method, params, reply)
    else:
        session.notify(method, params)
    before = serving(session)
    assert not [m for m in before if "error" in m], (method, params, before)


def test_the_methods_fuzzed_are_the_servers() -> None:
    names = {m for m, _, _ in METHODS}
    assert {"textDocument/hover", "textDocument/completion", "textDocument/rename", "workspace/symbol"} <= names
    assert {"textDocument/didOpen", "textDocument/didChange", "workspace/didChangeConfiguration"} <= names


@fuzz(FEW)
@given(case=wrong_params())
def test_params_of_the_wrong_shape(raw: Session, case: tuple) -> None:
    check_wrong_params(raw, case)


@pytest.mark.deep
@fuzz(MANY)
@given(case=wrong_params())
def test_params_of_the_wrong_shape_deep(raw: Session, case: tuple) -> None:
    check_wrong_params(raw, case)


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_huge_content_length_is_never_allocated(raw: Session) -> None:
    """A header that announces 60 MB (under the limit) or a terabyte, then a short body and
    another message: nothing of that size is held, and the next message is read."""
    serving(raw)
    before = resident_mb(raw.process.pid)
    for length in (60_000_000, 10**12):
        check_broken_framing(raw, frame(REQUEST, length))
    raw.write(b"Content-Length: 50000000\r\n\r\n" + b" " * 3_000_000)  # a body cut short, 3 MB of it sent
    check_broken_framing(raw, b"")
    assert resident_mb(raw.process.pid) - before < 40, (before, resident_mb(raw.process.pid))


# the reader on its own ---------------------------------------------------------------------------
def deframed(data: bytes, cuts: list) -> list:
    """What a Deframer makes of `data` fed in pieces cut at `cuts`; memory stays bounded."""
    reader = Deframer(max_body=1000)
    events = []
    at = 0
    for cut in sorted(set(cuts)) + [len(data)]:
        events += reader.feed(data[at:cut])
        assert reader.pending() <= max(1000, MAX_HEADER_LINE) + (cut - at) + 64
        at = cut
    return events


bodies = st.lists(st.binary(min_size=1, max_size=60).filter(lambda b: b"ontent" not in b), min_size=1, max_size=4)


@settings(max_examples=200, derandomize=True)
@given(bodies=bodies, data=st.data())
def test_messages_come_out_whole_however_the_bytes_are_split(bodies: list, data: st.DataObject) -> None:
    stream = b"".join((b"\r\n" if i % 2 else b"") + frame(b) for i, b in enumerate(bodies))
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=6))
    assert deframed(stream, cuts) == [Message(b) for b in bodies]


@settings(max_examples=200, derandomize=True)
@given(
    garbage=st.binary(max_size=3000),
    body=st.binary(min_size=1, max_size=40).filter(lambda b: b"ontent" not in b),
    data=st.data(),
)
def test_after_any_garbage_the_next_message_is_read(garbage: bytes, body: bytes, data: st.DataObject) -> None:
    stream = garbage + b"\r\n" + frame(body)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=6))
    events = deframed(stream, cuts)
    assert events[-1] == Message(body), events
    assert all(isinstance(e, Broken) for e in events[:-1]) or garbage.strip() == b"" or b"ontent" in garbage.lower()
