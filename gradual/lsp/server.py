"""`gradual lsp`: the language server (LSP 3.17 over stdio, on pygls).

Handlers are thin: each converts positions, asks the analysis layer (`gradual.analysis`) and
converts the answer (`convert.py`). What is particular to serving lives here:

* **Never stale.** Each change schedules a re-check after a short debounce. Each document is
  analyzed on a thread of its own, the document edited last first (the others wait at their
  next checkpoint: `analysis.scheduling`), so a small file edited while a large one is checked
  gets its diagnostics at once; a newer version supersedes an analysis (it stops between two
  definitions) and diagnostics are only published for the newest version, with its number.
  Requests about a document wait for the analysis of its newest version, so an answer never
  mixes two versions; `$/cancelRequest` cancels such a wait.
* **Never dead.** A crash while checking one definition is an `internal-error` diagnostic at
  that definition (the analysis layer); anything else that escapes an analysis becomes an
  `internal-error` diagnostic of the document and a log message. Half-typed text is a
  syntax error like any other.
* **Push or pull.** Diagnostics are pushed (`textDocument/publishDiagnostics`) on open, change
  and save; a client that advertises pull diagnostics gets `textDocument/diagnostic` instead
  (both would show every diagnostic twice). `initializationOptions.diagnostics` = "push",
  "pull" or "both" overrides that.

* **Models.** A file a frontend reads (`model.onnx`, `model.pt2`) opened in the editor is
  no program text: it is checked from disk as `gradual check` checks it (on open and save;
  edits to the buffer are not the model), and its diagnostics stand at the document's start,
  each naming the node it is about. Requests about it get empty answers.

* **Commands.** `workspace/executeCommand` answers `gradual.elaborated` (the open program
  elaborated) and `gradual.modelListing` (a model's listing with its diagnostics), for
  editors that show them (commands.py).

Settings (`initializationOptions`, `workspace/didChangeConfiguration`, or the answer to
`workspace/configuration` for the section `gradual`, asked after `initialized` and after each
change when the client answers it; under `gradual` or at the top level):
`inlayHints.bindingTypes`, `inlayHints.parameterTypes`, `inlayHints.runtimeChecks` (booleans,
default true), `diagnostics` (see above), `debounceMs` (default 10, at most 10,000; another
value is ignored), `format.width` (the columns formatting fits lines to: default 100, from 20
to 1,000; another value is ignored).

* **Robust to its input.** `transport.py` reads the base protocol itself and answers every
  framing or encoding error as JSON-RPC says (`framing.py`); a watchdog exits when the
  client's process is gone. The editing features' handlers are in `features.py`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from gradual.analysis import fixes, queries
from gradual.analysis.document import Analysis, Cancelled, Document
from gradual.analysis.scheduling import Turns
from gradual.checker import messages
from gradual.checker.driver import CheckResult
from gradual.diagnostics import Diagnostic
from gradual.diagnostics.codes import INTERNAL_ERROR
from gradual.infra.version import __version__
from gradual.lsp import commands, convert, transport
from gradual.lsp.framing import strict_converter
from gradual.lsp.text import Lines, apply_changes
from gradual.syntax.source import Source, Span

log = logging.getLogger("gradual.lsp")

_HINT_SETTINGS = {"bindingTypes": "binding", "parameterTypes": "parameter", "runtimeChecks": "check"}
#: seconds to wait for the client's answer to `workspace/configuration`
SETTINGS_WAIT = 10.0
#: the longest `debounceMs` taken: a larger one (1e12, `Infinity`) kept diagnostics from ever
#: arriving, with nothing said; `true` was taken as 1 ms
MAX_DEBOUNCE_MS = 10_000
#: the widths `format.width` may set
FORMAT_WIDTHS = range(20, 1001)


@dataclass
class Settings:
    """What the client configured (see the module docstring)."""

    hints: dict = field(default_factory=lambda: dict.fromkeys(_HINT_SETTINGS.values(), True))
    diagnostics: str = "auto"
    debounce: float = 0.010
    width: int = fixes.DEFAULT_WIDTH

    def update(self, raw: Any) -> None:
        """Take the settings a client sent (unknown keys are ignored)."""
        if not isinstance(raw, dict):
            return
        raw = raw.get("gradual", raw) if isinstance(raw.get("gradual"), dict) else raw
        hints = raw.get("inlayHints")
        if isinstance(hints, dict):
            for key, kind in _HINT_SETTINGS.items():
                if isinstance(hints.get(key), bool):
                    self.hints[kind] = hints[key]
        if raw.get("diagnostics") in ("auto", "push", "pull", "both"):
            self.diagnostics = raw["diagnostics"]
        delay = raw.get("debounceMs")
        if isinstance(delay, (int, float)) and not isinstance(delay, bool) and 0 <= delay <= MAX_DEBOUNCE_MS:
            self.debounce = delay / 1000
        formatting = raw.get("format")
        width = formatting.get("width") if isinstance(formatting, dict) else None
        if isinstance(width, int) and not isinstance(width, bool) and width in FORMAT_WIDTHS:
            self.width = width

    def hint_kinds(self) -> tuple:
        """The inlay hint kinds switched on."""
        return tuple(kind for kind, on in self.hints.items() if on)


class OpenDocument:
    """A document the client has open: its newest text and version, the incremental
    analysis behind it, and the newest finished analysis."""

    def __init__(self, uri: str, path: str) -> None:
        self.uri = uri
        self.path = path
        self.document = Document(path)
        self.lines = Lines("")  # the newest text, as LSP counts its lines
        self.version: Optional[int] = None
        self.analysis: Optional[Analysis] = None
        self.waiters: list[asyncio.Future] = []
        self.timer: Optional[asyncio.TimerHandle] = None
        self.running = False
        self.shadow: Optional[Document] = None  # checks the texts fixes make (on the worker)
        self.kept: tuple = (None, {})  # an analysis, and which of its fixes keep their promise
        self.priority = 0  # larger: edited more recently (its analysis runs first)
        self.ticket: Optional[int] = None  # its turn, reserved at a change for the analysis to come

    def keeps_its_promise(self, analysis: Analysis, fix: fixes.Fix) -> bool:
        """Whether a fix does what it says (`fixes.keeps_its_promise`), checked on a shadow
        document, so only what the fix changed is checked again; on the worker thread."""
        if self.kept[0] is not analysis:
            self.kept = (analysis, {})
        key = (fix.title, tuple((e.start, e.end, e.text) for e in fix.edits))
        known = self.kept[1]
        if key not in known:
            shadow = self.shadow
            if shadow is None:
                shadow = self.shadow = Document(self.path)
            known[key] = fixes.keeps_its_promise(analysis, fix, lambda text: shadow.analyze(text).result)
        return known[key]

    @property
    def text(self) -> str:
        """The newest text."""
        return self.lines.text

    @property
    def current(self) -> Optional[Analysis]:
        """The analysis of the newest version, if it is done."""
        if self.analysis is not None and self.analysis.version == self.version:
            return self.analysis
        return None


class OpenModel:
    """A model file the client has open: checked from disk through its frontend; the
    diagnostics of its newest check (a future while one runs)."""

    def __init__(self, uri: str, path: str) -> None:
        self.uri = uri
        self.path = path
        self.version: Optional[int] = None
        self.checked: Optional[asyncio.Future] = None  # its result: (items, result id)


_ANSWERED = object()  # a request already answered (with an error) while it was read


def _send_unaddressed(protocol: Any, error: JsonRpcException) -> None:
    """An error response to a message whose id cannot be read: JSON-RPC 2.0 answers it with
    `"id": null` (pygls' serializer leaves a None id out, and a response needs one)."""
    protocol._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": error.code, "message": error.message}})


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, choosing UTF-8 positions whenever the client offers them (pygls
    takes the client's first preference; UTF-8 spares converting every column)."""

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Any:
        general = params.capabilities.general
        offered = general.position_encodings if general is not None else None
        if general is not None and offered and lsp.PositionEncodingKind.Utf8 in offered:
            general.position_encodings = [lsp.PositionEncodingKind.Utf8] + [
                e for e in offered if e != lsp.PositionEncodingKind.Utf8
            ]
        return (yield from super().lsp_initialize(params))

    def structure_message(self, data: Any) -> Any:
        """A message from the client; a request whose parameters do not fit its method gets
        an Invalid Params error (pygls only logged it, and the client waited for an answer
        forever)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
                return _ANSWERED
            raise

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """A result that is JSON already (a dict or list some handlers build, for large
        answers) is sent as it is; cattrs took it apart element by element."""
        if error is None and isinstance(result, (dict, list)):
            self._result_types.pop(msg_id, None)
            self._send_data({"jsonrpc": "2.0", "id": msg_id, "result": result})
            return
        super()._send_response(msg_id, result, error)

    _initialize_seen = False

    def handle_message(self, message: Any) -> None:
        """Dispatch a message. Before `initialize`, a request gets a ServerNotInitialized
        error and a notification but `exit` is dropped, as LSP says (pygls answered a hover
        with null, and a document opened then was lost while the server said nothing); a
        second `initialize` gets Invalid Request (it re-ran the handler, which failed with a
        traceback in the answer), and so does a message that is no JSON object (JSON-RPC 2.0,
        with a null id: pygls showed the user "'list' object has no attribute 'jsonrpc'"); after
        `shutdown` every request but `exit` gets an Invalid Request error (pygls dropped
        them unanswered)."""
        if message is _ANSWERED:
            return
        if not hasattr(message, "jsonrpc"):  # `[]`, `null`, `3`: no JSON-RPC object at all
            _send_unaddressed(self, JsonRpcInvalidRequest(message="a message is one JSON-RPC object"))
            return
        method = getattr(message, "method", None)
        if self._initialize_seen and method == lsp.INITIALIZE and isinstance(message, RPCRequest):
            error = JsonRpcInvalidRequest(message="`initialize` was already received: it is sent once")
            self._send_response(message.id, error=error.to_response_error())
            return
        if not self._initialize_seen:
            if method == lsp.INITIALIZE:
                self._initialize_seen = True
            elif isinstance(message, RPCRequest):
                early = JsonRpcServerNotInitialized(message="the server is not initialized: send `initialize` first")
                self._send_response(message.id, error=early.to_response_error())
                return
            elif method is not None and method != lsp.EXIT:
                return
        if self._shutdown and isinstance(message, RPCRequest) and message.method != lsp.EXIT:
            error = JsonRpcInvalidRequest(message="the server is shut down (it only takes `exit` now)")
            self._send_response(message.id, error=error.to_response_error())
            return
        super().handle_message(message)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams) -> Any:
        """The server applies a document's changes itself (`text.apply_changes`), not pygls'
        workspace: its lines also end at a form feed or U+2028, and it clamps a character past
        the end of a line to one short of it (or past its line break), so its copy of the text
        drifted from the editor's."""
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None


class GradualServer(LanguageServer):
    """The language server (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__("gradual", __version__, protocol_cls=_Protocol, converter_factory=strict_converter)
        self.settings = Settings()
        self.documents: dict[str, OpenDocument] = {}
        self.models: dict[str, OpenModel] = {}
        # fixes' checks, formatting, models (a document's analyses run on threads of their own)
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gradual-worker")
        self.turns = Turns()
        self._priorities = itertools.count(1)
        self.stopping = False
        self.push = True
        self.pull = False
        self._positions: list[tuple[Analysis, convert.Positions]] = []
        self.shut_down = False
        self.exit_code = 0  # LSP: 0 on `exit` after `shutdown`, 1 on `exit` without it
        self._serial = itertools.count(1)
        self._result_ids: "weakref.WeakKeyDictionary[Analysis, str]" = weakref.WeakKeyDictionary()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message that is no JSON gets JSON-RPC's Parse error (-32700, with a null id), as
        JSON-RPC 2.0 says; pygls showed the user the Python decoder's message instead. Other
        errors are reported as pygls does."""
        if isinstance(error, ValueError) and error.__class__.__name__ == "JSONDecodeError":
            from pygls.exceptions import JsonRpcParseError

            _send_unaddressed(self.protocol, JsonRpcParseError(message=f"the message is not JSON ({error})"))
            return
        super().report_server_error(error, source)

    # capabilities ---------------------------------------------------------------------------
    def client_supports(self, path: str) -> bool:
        """Whether the client advertised a capability (a dotted path of attribute names)."""
        found: Any = self.client_capabilities
        for name in path.split("."):
            found = getattr(found, name, None)
            if found is None:
                return False
        return bool(found)

    async def pull_settings(self) -> None:
        """Ask a client that answers `workspace/configuration` for the `gradual` section."""
        if not self.client_supports("workspace.configuration"):
            return
        try:
            found = await asyncio.wait_for(
                self.workspace_configuration_async(lsp.ConfigurationParams([lsp.ConfigurationItem(section="gradual")])),
                SETTINGS_WAIT,
            )
        except (asyncio.TimeoutError, JsonRpcException) as exc:  # a client that does not answer: as configured
            log.warning("the client did not give its settings: %s", exc)
            return
        if isinstance(found, (list, tuple)) and found:
            self.settings.update(found[0])

    # scheduling -----------------------------------------------------------------------------
    def changed(self, state: OpenDocument, lines: Lines, version: Optional[int]) -> None:
        """A new version: re-check it after the debounce (superseding any check under way)."""
        state.lines, state.version = lines, version
        state.priority = next(self._priorities)
        # its analysis has the turn from now on (others pause through the debounce too), and
        # one of the version before stops at its next checkpoint
        state.ticket = self.turns.reserve(state.ticket, state.priority)
        if state.timer is not None:
            state.timer.cancel()
        state.timer = asyncio.get_running_loop().call_later(self.settings.debounce, self.start, state)

    def start(self, state: OpenDocument) -> None:
        """Start checking the newest version, unless a check is running (it will restart)."""
        state.timer = None
        if state.running:
            return
        if state.uri not in self.documents or state.current is not None:
            self.release(state)
            return
        state.running = True
        version, text = state.version, state.text
        loop = asyncio.get_running_loop()

        def superseded() -> bool:
            return state.version != version or state.uri not in self.documents or self.stopping

        ticket = state.ticket if state.ticket is not None else self.turns.begin(state.priority)
        state.ticket = None  # the analysis holds it now; it ends once its diagnostics are out

        def run() -> Optional[Analysis]:
            return _analyze(state.document, text, version, self.turns.yielding(ticket, superseded))

        def done(future: asyncio.Future) -> None:
            try:
                self.finished(state, future)
            finally:
                self.turns.end(ticket)

        _on_a_thread(loop, run).add_done_callback(done)

    def release(self, state: OpenDocument) -> None:
        """A document has nothing to analyze: the turn it reserved goes to the others."""
        if state.ticket is not None:
            self.turns.end(state.ticket)
            state.ticket = None

    def finished(self, state: OpenDocument, done: asyncio.Future) -> None:
        """A check ended: publish it if it is still the newest, then go on with newer text."""
        state.running = False
        analysis: Optional[Analysis] = None if done.cancelled() else done.result()
        if analysis is not None and analysis.version == state.version and state.uri in self.documents:
            state.analysis = analysis
            self.report_crashes(analysis)
            self.publish(state)
            for waiter in state.waiters:
                if not waiter.done():
                    waiter.set_result(analysis)
            state.waiters.clear()
        if state.current is None and state.timer is None and state.uri in self.documents:
            self.start(state)

    async def analysis(self, uri: str) -> Optional[Analysis]:
        """The analysis of a document's newest version (waits for it)."""
        state = self.documents.get(uri)
        if state is None:
            return None
        if state.current is not None:
            return state.current
        waiter = asyncio.get_running_loop().create_future()
        state.waiters.append(waiter)
        return await waiter

    def not_formatted(self) -> None:
        """Say why a formatting request changed nothing."""
        self.window_log_message(
            lsp.LogMessageParams(
                lsp.MessageType.Info,
                "gradual: not formatted (the file does not parse, or formatting would not keep it as it is)",
            )
        )

    def report_crashes(self, analysis: Analysis) -> None:
        """A log message for each definition whose check crashed."""
        for diag in analysis.internal_errors:
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, f"{analysis.path}: {diag.message}"))

    # diagnostics ------------------------------------------------------------------------------
    def publish(self, state: OpenDocument) -> None:
        """Push a document's newest diagnostics (or ask a pulling client to pull again)."""
        analysis = state.analysis
        if not self.push or analysis is None:
            if self.pull and self.client_supports("workspace.diagnostics.refresh_support"):
                self.workspace_diagnostic_refresh(None)
            return
        items = convert.diagnostics(analysis, state.uri, self.positions(analysis))
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(state.uri, items, analysis.version))

    def check_model(self, model: OpenModel) -> None:
        """Check a model from disk on the worker, then publish (or offer for pulling) its
        diagnostics."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        model.checked = done
        running = loop.run_in_executor(self.worker, _model_diagnostics, model.path)

        def finished(future: asyncio.Future) -> None:
            items = [] if future.cancelled() else future.result()
            if not done.done():
                done.set_result((items, str(next(self._serial))))
            if self.models.get(model.uri) is model and model.checked is done:
                if self.push:
                    self.text_document_publish_diagnostics(
                        lsp.PublishDiagnosticsParams(model.uri, items, model.version)
                    )
                elif self.pull and self.client_supports("workspace.diagnostics.refresh_support"):
                    self.workspace_diagnostic_refresh(None)

        running.add_done_callback(finished)

    def result_id(self, analysis: Analysis) -> str:
        """The pull-diagnostics result id of an analysis: a number no other analysis this
        server made has (it was the object's `id()` and version, which a new analysis of a
        document closed and opened again could have too, and be answered "unchanged")."""
        found = self._result_ids.get(analysis)
        if found is None:
            found = self._result_ids[analysis] = str(next(self._serial))
        return found

    def positions(self, analysis: Analysis) -> convert.Positions:
        """Offsets <-> LSP positions for one analyzed version, in the negotiated encoding
        (kept for the few newest analyses: their lines are found once)."""
        for kept, positions in self._positions:
            if kept is analysis:
                return positions
        positions = convert.Positions(analysis.source, self.workspace.position_codec)
        self._positions = [(analysis, positions)] + self._positions[:7]
        return positions


def _on_a_thread(loop: asyncio.AbstractEventLoop, run: Any) -> asyncio.Future:
    """`run()` on a thread of its own; a future of its result, on the loop. A daemon thread:
    an analysis stops at its next checkpoint when the server stops, and never holds up its exit."""
    future = loop.create_future()

    def settle(result: Any, error: Optional[BaseException]) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def target() -> None:
        try:
            result = run()
        except BaseException as exc:  # noqa: BLE001 - delivered to the loop, as an executor would
            _call_soon(loop, settle, None, exc)
        else:
            _call_soon(loop, settle, result, None)

    threading.Thread(target=target, name="gradual-analysis", daemon=True).start()
    return future


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Any, *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # the loop is closed: the server has stopped
        pass


def _analyze(document: Document, text: str, version: Optional[int], superseded: Any) -> Optional[Analysis]:
    """One analysis on the worker thread: None when superseded; a crash outside the checking
    of a definition becomes an internal-error diagnostic of the whole document."""
    try:
        return document.analyze(text, version, superseded)
    except Cancelled:
        return None
    except Exception as exc:  # a bug in gradual: the server goes on serving
        log.exception("analysis of %s failed", document.path)
        document.reset()  # start afresh next time
        source = Source(text, document.path)
        diag = Diagnostic(
            INTERNAL_ERROR,
            f"gradual failed while checking this file: {messages.internal_crash(exc)}",
            Span(source, 0, 0),
            help="this is a bug in gradual",
        )
        result = CheckResult(None, source, [diag])
        return Analysis(document.path, text, version, result, [], source, [diag])


def _model_diagnostics(path: str) -> list:
    """A model's diagnostics as `gradual check` finds them, for the editor (on the worker)."""
    from gradual.analysis.inputs import Unavailable, check_input, load

    try:
        found = check_input(load(path)).diagnostics
    except Unavailable as exc:
        found = [messages.input_unavailable(Span(Source("", path), 0, 0), str(exc).removeprefix(f"{path}: "))]
    except Exception as exc:  # a bug in gradual: the server goes on serving
        log.exception("checking the model %s failed", path)
        found = [
            Diagnostic(
                INTERNAL_ERROR,
                f"gradual failed while checking this model: {messages.internal_crash(exc)}",
                Span(Source("", path), 0, 0),
                help="this is a bug in gradual",
            )
        ]
    return [convert.model_diagnostic(d, path) for d in found]


server = GradualServer()


# lifecycle --------------------------------------------------------------------------------------
@server.feature(lsp.INITIALIZE)
def initialize(ls: GradualServer, params: lsp.InitializeParams) -> None:
    """Take the settings; choose push or pull diagnostics; load the operator library."""
    ls.settings.update(params.initialization_options)
    pull_capable = ls.client_supports("text_document.diagnostic")
    mode = ls.settings.diagnostics
    ls.pull = mode in ("pull", "both") or mode == "auto" and pull_capable
    ls.push = mode in ("push", "both") or mode == "auto" and not pull_capable
    if ls.pull:
        ls.feature(
            lsp.TEXT_DOCUMENT_DIAGNOSTIC,
            lsp.DiagnosticOptions(identifier="gradual", inter_file_dependencies=False, workspace_diagnostics=False),
        )(pull_diagnostics)
    ls.worker.submit(_warm_up)
    transport.watch(ls, params.process_id)


@server.feature(lsp.INITIALIZED)
async def initialized(ls: GradualServer, params: lsp.InitializedParams) -> None:
    """Settings are asked for (`workspace/configuration`) when the client can answer, and
    their changes followed (a client that registers for them)."""
    if ls.client_supports("workspace.did_change_configuration.dynamic_registration"):
        registration = lsp.Registration(id="gradual-settings", method=lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
        ls.client_register_capability(lsp.RegistrationParams([registration]))
    await ls.pull_settings()


def _warm_up() -> None:
    """Load the operator library before the first document arrives, and make the operators'
    signatures that completion and signature help show."""
    from gradual.analysis.signature_help import operator_signature
    from gradual.ops.registry import default_registry

    registry = default_registry()
    for name in registry.names():
        op = registry.get(name)
        if op is not None:
            operator_signature(op)


@server.feature(lsp.SHUTDOWN)
def shutdown(ls: GradualServer, params: Any = None) -> None:
    """The client will send `exit` next."""
    ls.shut_down = True


@server.feature(lsp.EXIT)
def exit_(ls: GradualServer, params: Any = None) -> None:
    """The process's status, as LSP asks: 0 after `shutdown`, else 1."""
    ls.exit_code = 0 if ls.shut_down else 1


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: GradualServer, params: lsp.DidChangeConfigurationParams) -> None:
    """New settings: those sent, then those a client that answers `workspace/configuration`
    holds (VS Code sends `settings: null` and expects to be asked); inlay hints are asked for
    again."""
    ls.settings.update(params.settings)
    await ls.pull_settings()
    if ls.client_supports("workspace.inlay_hint.refresh_support"):
        ls.workspace_inlay_hint_refresh(None)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GradualServer, params: lsp.DidOpenTextDocumentParams) -> None:
    """Start following a document."""
    uri = params.text_document.uri
    path = to_fs_path(uri) or uri
    if _declares_operators(path, params.text_document.text):
        return  # stdlib/*.rly (opened by going to an operator's definition) declares, it is no program
    if _is_model(path):  # parsed as program text it was one parse-error, "unexpected character U+0008"
        model = ls.models.get(uri) or OpenModel(uri, path)
        ls.models[uri] = model
        model.version = params.text_document.version
        ls.check_model(model)
        return
    state = ls.documents.get(uri) or OpenDocument(uri, path)
    ls.documents[uri] = state
    ls.changed(state, Lines(params.text_document.text), params.text_document.version)


def _declares_operators(path: str, text: str) -> bool:
    """Whether a document is the operator library: a file of the shipped stdlib/, or a copy of
    one (a checkout's stdlib/ beside an installed package holds the same declarations)."""
    from pathlib import Path

    from gradual.ops.registry import stdlib_dir

    try:
        shipped = stdlib_dir().resolve()
        opened = Path(path).resolve()
        if opened.parent == shipped:
            return True
        twin = shipped / opened.name
        return opened.suffix == ".rly" and twin.is_file() and twin.read_text(encoding="utf-8") == text
    # ValueError: a NUL byte in the path (`file:///a%00b.rly`), or not UTF-8; RuntimeError: a
    # symbolic link loop, which Path.resolve raises (both were "Error in server", the document
    # never checked)
    except (OSError, ValueError, RuntimeError):
        return False


def _is_model(path: str) -> bool:
    """Whether a frontend reads this kind of file (a model, not program text); a file whose
    frontend reads a member of it (a Python file's JAX function, `model.py:NAME`) is no model
    by itself, and an editor's Python file is never imported."""
    from gradual.frontends import frontend_for

    frontend = frontend_for(path)
    return frontend is not None and not frontend.members


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GradualServer, params: lsp.DidChangeTextDocumentParams) -> None:
    """A new version: its changes applied to the newest text as LSP means them (see
    `_Protocol.lsp_text_document__did_change`); pygls' copy gets the result."""
    uri = params.text_document.uri
    state = ls.documents.get(uri)
    held = ls.workspace.text_documents.get(unquote(uri))
    if state is None and held is None:
        return  # a document that was never opened: nothing to change
    lines = apply_changes(
        state.lines if state is not None else Lines(held.source),
        params.content_changes,
        ls.workspace.position_encoding or lsp.PositionEncodingKind.Utf16,
    )
    if held is not None:
        ls.workspace.put_text_document(
            lsp.TextDocumentItem(uri, held.language_id or "gradual", params.text_document.version, lines.text)
        )
    if state is not None:
        ls.changed(state, lines, params.text_document.version)
    model = ls.models.get(uri)
    if model is not None:  # the buffer is not the model (the file on disk is): checked on save
        model.version = params.text_document.version


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GradualServer, params: lsp.DidSaveTextDocumentParams) -> None:
    """Diagnostics are pushed again on save (a model is checked again: the file changed)."""
    model = ls.models.get(params.text_document.uri)
    if model is not None:
        ls.check_model(model)
    state = ls.documents.get(params.text_document.uri)
    if state is not None and state.current is not None:
        ls.publish(state)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GradualServer, params: lsp.DidCloseTextDocumentParams) -> None:
    """Stop following a document; its diagnostics are cleared."""
    state = ls.documents.pop(params.text_document.uri, None)
    model = ls.models.pop(params.text_document.uri, None)
    if model is not None and ls.push:
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(model.uri, []))
    if state is None:
        return
    if state.timer is not None:
        state.timer.cancel()
    ls.release(state)
    for waiter in state.waiters:
        if not waiter.done():
            waiter.set_result(None)
    if ls.push:
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(state.uri, []))


# requests -----------------------------------------------------------------------------------------
def about_document(method: str, options: Any = None, empty: Any = None) -> Any:
    """Register a request about a document: the handler gets the analysis of its newest
    version (waiting for it) and its positions; a document that is not open gets `empty()`."""

    def register(handler: Any) -> Any:
        async def answer(ls: GradualServer, params: Any) -> Any:
            analysis = await ls.analysis(params.text_document.uri)
            if analysis is None:
                return empty() if empty is not None else None
            answer = handler(ls, params, analysis, ls.positions(analysis))
            return await answer if asyncio.iscoroutine(answer) else answer

        server.feature(method, options)(answer)
        return handler

    return register


async def pull_diagnostics(ls: GradualServer, params: lsp.DocumentDiagnosticParams) -> lsp.DocumentDiagnosticReport:
    """`textDocument/diagnostic`: the newest version's diagnostics (unchanged: say so)."""
    model = ls.models.get(params.text_document.uri)
    if model is not None and model.checked is not None:
        items, result_id = await model.checked
        if params.previous_result_id == result_id:
            return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)
    analysis = await ls.analysis(params.text_document.uri)
    if analysis is None:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = ls.result_id(analysis)
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    items = convert.diagnostics(analysis, params.text_document.uri, ls.positions(analysis))
    return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


@about_document(lsp.TEXT_DOCUMENT_HOVER)
def hover(
    ls: GradualServer, params: lsp.HoverParams, analysis: Analysis, positions: convert.Positions
) -> Optional[lsp.Hover]:
    """Types, instantiations, dims and checks under the cursor."""
    found = queries.hover(analysis, positions.offset(params.position))
    return convert.hover(found, positions) if found is not None else None


@about_document(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False), list)
def inlay_hints(
    ls: GradualServer, params: lsp.InlayHintParams, analysis: Analysis, positions: convert.Positions
) -> list[lsp.InlayHint]:
    """Binding and parameter types, runtime-check markers (the kinds switched on)."""
    start, end = positions.offset(params.range.start), positions.offset(params.range.end)
    found = queries.inlay_hints(analysis, start, end, ls.settings.hint_kinds())
    return [convert.inlay_hint(h, positions) for h in found]


@about_document(lsp.TEXT_DOCUMENT_DEFINITION, empty=list)
def definition(
    ls: GradualServer, params: lsp.DefinitionParams, analysis: Analysis, positions: convert.Positions
) -> list[lsp.Location]:
    """Where the variable, function, dim or operator under the cursor is defined."""
    spans = queries.definition(analysis, positions.offset(params.position))
    return _locations(spans, params.text_document.uri, analysis, positions)


@about_document(lsp.TEXT_DOCUMENT_REFERENCES, empty=list)
def references(
    ls: GradualServer, params: lsp.ReferenceParams, analysis: Analysis, positions: convert.Positions
) -> list[lsp.Location]:
    """Every occurrence of the variable, function, dim or operator under the cursor."""
    spans = queries.references(analysis, positions.offset(params.position), params.context.include_declaration)
    return _locations(spans, params.text_document.uri, analysis, positions)


def _locations(spans: list, uri: str, analysis: Analysis, positions: convert.Positions) -> list[lsp.Location]:
    found = (convert.location(span, uri, analysis.path, positions) for span in spans)
    return [where for where in found if where is not None]


@about_document(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, empty=list)
def document_symbols(
    ls: GradualServer, params: lsp.DocumentSymbolParams, analysis: Analysis, positions: convert.Positions
) -> list[lsp.DocumentSymbol]:
    """Each definition with its type, its parameters and lets."""
    return [convert.symbol(s, positions) for s in queries.symbols(analysis)]


@about_document(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite]),
    list,
)
async def code_actions(
    ls: GradualServer, params: lsp.CodeActionParams, analysis: Analysis, positions: convert.Positions
) -> list[lsp.CodeAction]:
    """Quick fixes for the diagnostics in the range and rewrites at it, those that keep
    their promise on the text they make (checked on the worker, as analyses are). At most
    MAX_VERIFIED_FIXES are checked for one request: each check analyses the fixed text again,
    so a range holding n fixes (a whole document selected) cost n times the document (400
    misspelt operators in one definition took 206 s)."""
    start, end = positions.offset(params.range.start), positions.offset(params.range.end)
    wanted = params.context.only
    versioned = ls.client_supports("workspace.workspace_edit.document_changes")
    state = ls.documents.get(params.text_document.uri)
    out = []
    verified = 0
    for fix in fixes.fixes(analysis, start, end):
        action = convert.code_action(
            fix, params.text_document.uri, analysis.path, analysis.version, positions, versioned
        )
        if wanted and not any(action.kind is not None and action.kind.startswith(w) for w in wanted):
            continue
        if state is None or verified >= MAX_VERIFIED_FIXES:
            break
        verified += 1
        if not await asyncio.get_running_loop().run_in_executor(ls.worker, state.keeps_its_promise, analysis, fix):
            continue
        out.append(action)
    return out


#: how many fixes one code-action request checks (each costs an analysis of the fixed text)
MAX_VERIFIED_FIXES = 32


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
async def formatting(ls: GradualServer, params: lsp.DocumentFormattingParams) -> Optional[list[lsp.TextEdit]]:
    """The document formatted to the `format.width` setting, when that provably keeps every
    comment and the meaning (formatted on the worker: it parses, as analyses do)."""
    analysis = await ls.analysis(params.text_document.uri)
    if analysis is None:
        return None
    text = await asyncio.get_running_loop().run_in_executor(ls.worker, fixes.formatted, analysis, ls.settings.width)
    if text is None:
        ls.not_formatted()
        return None
    if text == analysis.text:
        return []
    return [lsp.TextEdit(ls.positions(analysis).range(0, len(analysis.text)), text)]


@server.feature(lsp.TEXT_DOCUMENT_RANGE_FORMATTING)
async def range_formatting(ls: GradualServer, params: lsp.DocumentRangeFormattingParams) -> list[lsp.TextEdit] | None:
    """The definitions the range touches formatted (each replaced whole), as `formatting`."""
    analysis = await ls.analysis(params.text_document.uri)
    if analysis is None:
        return None
    positions = ls.positions(analysis)
    start, end = positions.offset(params.range.start), positions.offset(params.range.end)
    edits = await asyncio.get_running_loop().run_in_executor(
        ls.worker, fixes.formatted_definitions, analysis, start, end, ls.settings.width
    )
    if edits is None:
        ls.not_formatted()
        return None
    return [lsp.TextEdit(positions.range(e.start, e.end), e.text) for e in edits]


# commands (`workspace/executeCommand`, see commands.py) -----------------------------------------
@server.command(commands.ELABORATED)
async def elaborated(ls: GradualServer, *args: Any) -> dict:
    """`[uri]`: the open program's newest version, elaborated (on the worker)."""
    analysis = await ls.analysis(args[0]) if args and isinstance(args[0], str) else None
    if analysis is None:
        return {"error": "the program is not open in the editor (its open text is what is elaborated)"}
    return await asyncio.get_running_loop().run_in_executor(ls.worker, commands.elaborated, analysis)


@server.command(commands.MODEL_LISTING)
async def model_listing(ls: GradualServer, *args: Any) -> dict:
    """`[uri, listing_uri?]`: a model file's listing and diagnostics (on the worker)."""
    if not args or not isinstance(args[0], str) or not all(isinstance(a, str) for a in args[1:2]):
        return {"error": "expected the model's uri (and the listing's)"}
    path = to_fs_path(args[0]) or args[0]
    listing_uri = args[1] if len(args) > 1 else args[0]
    codec = ls.workspace.position_codec
    return await asyncio.get_running_loop().run_in_executor(ls.worker, commands.model_listing, path, listing_uri, codec)


def serve() -> int:
    """Run the server on stdin/stdout until the client exits."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="gradual lsp: %(levelname)s %(message)s")
    threading.stack_size(0)
    transport.serve(server)
    return server.exit_code
