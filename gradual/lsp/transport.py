"""Serving on stdin/stdout: bytes are read on a thread of their own, cut into messages
(`framing.Deframer`), checked against JSON-RPC's rules and handed to the protocol; every
framing or encoding error gets the JSON-RPC error its specification names and the server
goes on (see `framing`). pygls' own reader only matched `Content-Length: <digits>` exactly,
ignored everything else and read a body of whatever length the header said, in one piece.

A watchdog follows the client's process (`processId` in `initialize`): when it is gone
(or a zombie), the server exits, as LSP asks, even if nobody closes its input.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from typing import Any, Optional

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError

from gradual.lsp.framing import Broken, Deframer, Message, invalid

log = logging.getLogger("gradual.lsp")

#: seconds between two looks at the client's process
WATCH_EVERY = 2.0
_READ = 64 * 1024
SWITCH_INTERVAL = 0.001


def serve(server: Any, stdin: Optional[int] = None) -> None:
    """Serve until `exit`, the end of the input, or the client's process is gone."""
    from pygls.io_ import StdoutWriter

    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    # a message read while an analysis runs waits for the GIL at most this long (Python's 5 ms
    # default came up to three times between an edit and its diagnostics)
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        asyncio.run(_serve(server, sys.stdin.fileno() if stdin is None else stdin))
    except (KeyboardInterrupt, SystemExit, BrokenPipeError):
        pass
    finally:
        server.stopping = True
        server.turns.wake()


async def _serve(server: Any, fd: int) -> None:
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue = asyncio.Queue()
    server.quit = loop.create_future()  # set by the watchdog

    def read() -> None:
        while True:
            try:
                data = os.read(fd, _READ)
            except OSError:
                data = b""
            try:
                loop.call_soon_threadsafe(chunks.put_nowait, data or None)
            except RuntimeError:  # the loop is closed
                return
            if not data:
                return

    threading.Thread(target=read, name="gradual-stdin", daemon=True).start()
    deframer = Deframer()
    while True:
        getting = asyncio.ensure_future(chunks.get())
        done, _ = await asyncio.wait({getting, server.quit}, return_when=asyncio.FIRST_COMPLETED)
        if server.quit in done:
            getting.cancel()
            return
        data = getting.result()
        if data is None:
            return
        for event in deframer.feed(data):
            if isinstance(event, Broken):
                answer_unaddressed(server.protocol, JsonRpcParseError(message=event.reason))
            else:
                receive(server.protocol, event)


def answer_unaddressed(protocol: Any, error: JsonRpcException, identity: Any = None) -> None:
    """An error response; its id null when the message's could not be read (JSON-RPC 2.0:
    pygls' serializer leaves a None id out, and a response needs one)."""
    protocol._send_data({"jsonrpc": "2.0", "id": identity, "error": {"code": error.code, "message": error.message}})


def receive(protocol: Any, message: Message) -> None:
    """One body: decoded, parsed, checked, structured and handled (see `framing`)."""
    try:
        text = message.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        answer_unaddressed(protocol, JsonRpcParseError(message=f"the message is not UTF-8 (byte {exc.start})"))
        return
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        answer_unaddressed(protocol, JsonRpcParseError(message=f"the message is not JSON ({_reason(exc)})"))
        return
    wrong = invalid(data)
    if wrong is not None:
        identity, reason = wrong
        answer_unaddressed(protocol, JsonRpcInvalidRequest(message=reason), identity)
        return
    try:
        structured = protocol.structure_message(data)
    except JsonRpcException as exc:  # a request's is answered by the protocol; a notification's is dropped
        log.warning("dropped a message whose parameters do not fit its method: %s", exc.message)
        return
    except Exception:  # a response the protocol cannot read: nobody waits for an answer
        log.exception("could not read a message")
        return
    try:
        protocol.handle_message(structured)
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception:  # a bug in a handler: logged (a request's error is sent by pygls)
        log.exception("a message could not be handled")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deep"
    return str(exc)


# the client's process -------------------------------------------------------------------------
def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie (a client killed but not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def watch(server: Any, pid: Any) -> None:
    """Exit (status 1) once the client's process is gone; a processId that is no positive
    integer is not watched."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return
    loop = asyncio.get_running_loop()

    def look() -> None:
        if alive(pid):
            loop.call_later(WATCH_EVERY, look)
            return
        log.warning("the client's process %d is gone: exiting", pid)
        server.exit_code = 1
        quit_ = getattr(server, "quit", None)
        if quit_ is not None and not quit_.done():
            quit_.set_result(None)

    loop.call_later(WATCH_EVERY, look)
