"""Benchmark of `gradual lsp`'s editing features and of its concurrency, through a real LSP
client over stdio (pygls'; the client, the generated programs and the start-up are shared
with bench/lsp_bench.py).

    python bench/lsp_features.py                  # everything
    python bench/lsp_features.py --only concurrency --big 50000
    python bench/lsp_features.py --only completion rename --lines 10000
    python bench/lsp_features.py --only formatting --lines 10000 --formats 5

* **concurrency**: a `--big`-line program is opened, and while its first check runs, a
  100-line program is opened and edited `--edits` times (alternately breaking and fixing a
  call, so each edit changes the diagnostics): each edit timed from `didChange` to its
  diagnostics. Only the edits whose diagnostics arrived before the big program's are counted
  (the big check must still be running). `--no-turns` runs the same with analyses sharing the
  processor as Python threads do (no yielding to the document edited last), for comparison.
Completion and rename are timed with a client that reads replies as JSON, as editors do
(pygls' client structures each reply into lsprotocol objects, which is its time, not the
server's: 75 ms for a rename of 1,000 edits).

* **completion** at `--lines` lines: a character typed inside a definition (`didChange`) and a
  completion request right after it, at the cursor; timed from the request to its answer.
  Also on the untouched text (no edit pending).
* **rename** at `--lines` lines: a variable used 1,000 times in one definition (the rest of the
  program is the usual chain of layers), from another of its uses each time: `prepareRename`,
  then `textDocument/rename` to a new name (not applied), as editors ask; each, and the two.
* **formatting** at `--lines` lines, on each text of bench/format_bench.py (the examples
  concatenated, the generated layers whose signatures all break, the examples formatted
  already): the document opened and checked, then `textDocument/formatting` `--formats`
  times (the whole document's edit), and `textDocument/rangeFormatting` of one definition in
  the middle and of the whole text; each timed from the request to its answer (wall), and in
  the server's CPU time (user + system, from /proc: what the load of a shared machine does
  not inflate). Before them, each example is formatted through the client, the edit applied,
  and formatted again: the second request must change nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from format_bench import examples_text, layers_text
from lsp_bench import SERVER, cpu_seconds, fill_caches, generate, percentile, server_env, stop

NO_TURNS = [
    sys.executable,
    "-c",
    "import gradual.analysis.scheduling as s; s.Turns.checkpoint = lambda self, ticket, cancelled: cancelled(); "
    "from gradual.lsp import serve; raise SystemExit(serve())",
]


class Raw:
    """A client that reads replies as JSON, as an editor does (pygls' client structures every
    reply into lsprotocol objects: 75 ms for a rename of 1,000 edits, which is not the
    server's time)."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process
        self.next_id = 0
        self.waiting: dict = {}
        self.published: dict = {}
        self.event = asyncio.Event()

    async def start(self, env: dict, options: dict) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
        )
        self.reader = asyncio.ensure_future(self._read())
        capabilities = {"general": {"positionEncodings": ["utf-16"]}}
        await self.request(
            "initialize",
            {"processId": None, "rootUri": None, "capabilities": capabilities, "initializationOptions": options},
        )
        self.notify("initialized", {})

    async def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = await stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, value = line.decode().split(":", 1)
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(await stream.readexactly(length))
            if "method" in message:
                if message["method"] == "textDocument/publishDiagnostics":
                    # (a closed document's diagnostics are cleared without a version)
                    self.published[message["params"].get("version")] = time.perf_counter()
                    self.event.set()
                if "id" in message:  # a request of the server's: answered with null
                    self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") in self.waiting:
                self.waiting.pop(message["id"]).set_result(message)

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params: object) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: object) -> Any:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = await future
        assert "result" in reply, reply
        return reply["result"]

    async def diagnostics(self, version: int) -> float:
        while version not in self.published:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), 900)
        return self.published[version]

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        await self.process.wait()
        self.reader.cancel()


async def raw_started(env: dict, uri: str, text: str) -> Raw:
    client = Raw()
    await client.start(env, {"diagnostics": "push"})
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "gradual", "version": 1, "text": text}}
    )
    await client.diagnostics(1)
    return client


def opened(client: Any, uri: str, text: str) -> None:
    client.lsp.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="gradual", version=1, text=text))
    )


def change(client: Any, uri: str, version: int, line: int, old: str, new: str) -> None:
    """Replace `old` (at the start of `line`) by `new`."""
    client.lsp.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, len(old))), text=new
                )
            ],
        )
    )


class Recorder:
    """A pygls client recording diagnostics' arrival by (uri, version)."""

    def __init__(self) -> None:
        from pygls.lsp.client import LanguageClient

        self.lsp = LanguageClient("gradual-bench", "1")
        self.event = asyncio.Event()
        self.by_uri: dict = {}

        @self.lsp.feature(lsp.WINDOW_LOG_MESSAGE)
        def logged(params: lsp.LogMessageParams) -> None:
            pass

        @self.lsp.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self.by_uri[(params.uri, params.version)] = (time.perf_counter(), len(params.diagnostics))
            self.event.set()

    async def wait(self, uri: str, version: int, timeout: float = 900) -> tuple:
        deadline = time.perf_counter() + timeout
        while (uri, version) not in self.by_uri:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), max(0.0, deadline - time.perf_counter()))
        return self.by_uri[(uri, version)]


async def concurrency(scratch: Path, big_lines: int, edits: int, turns: bool) -> dict:
    """Edit-to-diagnostics of a 100-line program while a big one is checked (see the module
    docstring)."""
    client = Recorder()
    await client.lsp.start_io(*(SERVER if turns else NO_TURNS), env=server_env(scratch, True))
    await client.lsp.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(general=lsp.GeneralClientCapabilities(position_encodings=["utf-16"])),
            initialization_options={"diagnostics": "push"},
        )
    )
    client.lsp.initialized(lsp.InitializedParams())
    big, small = Path("/tmp/gradual-bench-big.rly").as_uri(), Path("/tmp/gradual-bench-small.rly").as_uri()
    small_text = generate(100)
    opened(client, big, generate(big_lines))
    began = time.perf_counter()
    await asyncio.sleep(0.5)  # the big check is under way
    opened(client, small, small_text)
    await client.wait(small, 1)
    line = small_text.split("\n").index("  %1 = nn.relu(%0);")
    broken, fixed = "  %1 = nn.relu(%0, %0);", "  %1 = nn.relu(%0);"
    latencies = []
    for i in range(edits):
        new, old = (broken, fixed) if i % 2 == 0 else (fixed, broken)
        sent = time.perf_counter()
        change(client, small, i + 2, line, old, new)
        arrived, count = await client.wait(small, i + 2)
        assert count == (1 if i % 2 == 0 else 0), (i, count)
        if (big, 1) in client.by_uri:
            break  # the big check is over: later edits do not count
        latencies.append(arrived - sent)
        await asyncio.sleep(0.05)  # a user types, then pauses
    big_done = (await client.wait(big, 1))[0] - began
    await stop(client)  # type: ignore[arg-type]
    ms = 1000
    return {
        "edits": len(latencies),
        "p50_ms": round(statistics.median(latencies) * ms, 1) if latencies else None,
        "p95_ms": round(percentile(latencies, 95) * ms, 1) if latencies else None,
        "max_ms": round(max(latencies) * ms, 1) if latencies else None,
        "big_first_diagnostics_s": round(big_done, 1),
    }


async def completion(scratch: Path, lines: int, requests: int) -> dict:
    """Completion latency at `lines` lines, right after typing and on untouched text."""
    text = generate(lines)
    uri = Path(f"/tmp/gradual-bench-complete-{lines}.rly").as_uri()
    client = await raw_started(server_env(scratch, True), uri, text)
    rows = text.split("\n")
    layer = text.count("def @layer") // 2
    line = rows.index("  %2 = add(%1, %y);", text[: text.index(f"def @layer{layer}(")].count("\n"))
    after_typing, untouched = [], []
    typed = ""
    version = 1
    start = len("  %2 = ")
    doc = {"uri": uri}
    for i in range(requests):
        # type `n`, `nn`, `nn.`, `nn.d`, `nn.de` at the start of the call, then delete it again
        target = "nn.de"[: i % 6]
        version += 1
        where = {"start": {"line": line, "character": start}, "end": {"line": line, "character": start + len(typed)}}
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": where, "text": target}]},
        )
        typed = target
        sent = time.perf_counter()
        found = await client.request(
            "textDocument/completion",
            {"textDocument": doc, "position": {"line": line, "character": start + len(typed)}},
        )
        after_typing.append(time.perf_counter() - sent)
        assert found and found["items"], (typed, found)
    await client.diagnostics(version)
    for i in range(requests):
        sent = time.perf_counter()
        await client.request(
            "textDocument/completion", {"textDocument": doc, "position": {"line": line + (i % 3), "character": 7}}
        )
        untouched.append(time.perf_counter() - sent)
    await client.stop()
    ms = 1000
    return {
        "lines": len(rows),
        "typing_p50_ms": round(statistics.median(after_typing) * ms, 1),
        "typing_p95_ms": round(percentile(after_typing, 95) * ms, 1),
        "still_p50_ms": round(statistics.median(untouched) * ms, 1),
        "still_p95_ms": round(percentile(untouched, 95) * ms, 1),
    }


def many_uses(lines: int, uses: int) -> tuple[str, int]:
    """A program of about `lines` lines whose first definition uses `%x` `uses` times; the
    line of `%x`'s binder."""
    body = ["def @wide(%x: Tensor[(8, 64), float32]) -> Tensor[(8, 64), float32] {", "  %0 = add(%x, %x);"]
    body += [f"  %{i} = add(%{i - 1}, %x);" for i in range(1, uses - 1)]
    body += [f"  %{uses - 2}", "}", ""]
    rest = generate(max(100, lines - len(body)))
    return "\n".join(body) + "\n" + rest, 0


async def rename(scratch: Path, lines: int, renames: int) -> dict:
    """Rename latency of a variable used 1,000 times at `lines` lines."""
    text, line = many_uses(lines, 1000)
    uri = Path(f"/tmp/gradual-bench-rename-{lines}.rly").as_uri()
    client = await raw_started(server_env(scratch, True), uri, text)
    rows = text.split("\n")
    prepared, renamed, both = [], [], []
    for i in range(renames):
        # a different use of %x each time (an answer kept from the time before cannot serve)
        row = line + 2 + i * 37
        at = {"line": row, "character": rows[row].rindex("%x") + 1}
        sent = time.perf_counter()
        found = await client.request("textDocument/prepareRename", {"textDocument": {"uri": uri}, "position": at})
        prepared.append(time.perf_counter() - sent)
        assert found is not None
        sent = time.perf_counter()
        edit = await client.request(
            "textDocument/rename", {"textDocument": {"uri": uri}, "position": at, "newName": f"%input{i}"}
        )
        renamed.append(time.perf_counter() - sent)
        both.append(prepared[-1] + renamed[-1])
        assert isinstance(edit, dict)
        edits = edit["changes"][uri]
        assert len(edits) == 1001, len(edits)  # 1,000 uses and the binder
    await client.stop()
    ms = 1000
    return {
        "lines": len(text.split("\n")),
        "rename_p50_ms": round(statistics.median(renamed) * ms, 1),
        "rename_p95_ms": round(percentile(renamed, 95) * ms, 1),
        "prepare_p50_ms": round(statistics.median(prepared) * ms, 1),
        "prepare_p95_ms": round(percentile(prepared, 95) * ms, 1),
        "both_p50_ms": round(statistics.median(both) * ms, 1),
        "both_p95_ms": round(percentile(both, 95) * ms, 1),
    }


async def formatting(scratch: Path, lines: int, formats: int) -> dict:
    """Formatting and range formatting latency at `lines` lines, per kind of text."""
    from gradual.syntax.formatting import format_source

    texts = {"examples": examples_text(lines), "layers": layers_text(lines)}
    texts["formatted"] = format_source(texts["examples"])
    found: dict = {}
    for kind, text in texts.items():
        uri = Path(f"/tmp/gradual-bench-format-{kind}-{lines}.rly").as_uri()
        client = await raw_started(server_env(scratch, True), uri, text)
        pid = client.process.pid
        rows = text.split("\n")
        middle = next(i for i in range(len(rows) // 2, len(rows)) if rows[i].startswith("def @"))
        options = {"tabSize": 2, "insertSpaces": True}
        doc = {"uri": uri}
        ranges = {
            "whole": ("textDocument/formatting", {"textDocument": doc, "options": options}),
            "range_one": (
                "textDocument/rangeFormatting",
                {
                    "textDocument": doc,
                    "options": options,
                    "range": {"start": {"line": middle, "character": 0}, "end": {"line": middle + 1, "character": 0}},
                },
            ),
            "range_all": (
                "textDocument/rangeFormatting",
                {
                    "textDocument": doc,
                    "options": options,
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": len(rows), "character": 0}},
                },
            ),
        }
        row: dict = {"lines": len(rows)}
        for name, (method, params) in ranges.items():
            walls, cpus = [], []
            for _ in range(formats):
                cpu, sent = cpu_seconds(pid), time.perf_counter()
                edits = await client.request(method, params)
                walls.append(time.perf_counter() - sent)
                cpus.append(cpu_seconds(pid) - cpu)
                assert isinstance(edits, list), (kind, name, edits)
                if name == "whole":
                    assert (edits == []) == (kind == "formatted"), (kind, len(edits))
            row[name] = (round(statistics.median(walls), 3), round(statistics.median(cpus), 3), round(max(walls), 3))
        await client.stop()
        found[kind] = row
    return found


async def examples_twice(scratch: Path) -> dict:
    """Each example formatted through the client, the edit applied as an editor applies it,
    then formatted again: the second request must change nothing; the longest line after."""
    root = Path(__file__).resolve().parents[1] / "examples"
    client = Raw()
    await client.start(server_env(scratch, True), {"diagnostics": "push"})
    unchanged, longest = 0, 0
    paths = sorted(root.glob("*.rly"))
    for path in paths:
        uri = path.as_uri()
        text = path.read_text(encoding="utf-8").replace("def @main", "def  @main")  # one change at least
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "gradual", "version": 1, "text": text}},
        )
        params = {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
        edits = await client.request("textDocument/formatting", params)
        once = edits[0]["newText"] if edits else text
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": once}]},
        )
        again = await client.request("textDocument/formatting", params)
        unchanged += again == []
        longest = max(longest, *(len(line) for line in once.splitlines()))
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    await client.stop()
    return {"examples": len(paths), "unchanged": unchanged, "longest": longest}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=["concurrency", "completion", "rename", "formatting"])
    parser.add_argument("--big", type=int, default=50000, help="lines of the program checked meanwhile")
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--lines", type=int, default=10000, help="lines for completion and rename")
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--renames", type=int, default=20)
    parser.add_argument("--formats", type=int, default=5, help="formatting requests of each kind")
    parser.add_argument("--no-turns", action="store_true", help="also measure concurrency without yielding")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gradual-lsp-features-") as scratch:
        asyncio.run(fill_caches(Path(scratch)))
        if "concurrency" in args.only:
            for turns in (True, False) if args.no_turns else (True,):
                r = asyncio.run(concurrency(Path(scratch), args.big, args.edits, turns))
                how = "taking turns" if turns else "sharing the GIL (no turns)"
                print(
                    f"100-line edits while a {args.big:,}-line program is checked ({how}): {r['edits']} edits, "
                    f"p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms; "
                    f"the big program's first diagnostics after {r['big_first_diagnostics_s']} s",
                    flush=True,
                )
        if "completion" in args.only:
            r = asyncio.run(completion(Path(scratch), args.lines, args.requests))
            print(
                f"completion at {r['lines']:,} lines: right after typing p50 {r['typing_p50_ms']} ms, "
                f"p95 {r['typing_p95_ms']} ms; on untouched text p50 {r['still_p50_ms']} ms, p95 {r['still_p95_ms']} ms",
                flush=True,
            )
        if "rename" in args.only:
            r = asyncio.run(rename(Path(scratch), args.lines, args.renames))
            print(
                f"rename of a variable used 1,000 times at {r['lines']:,} lines: p50 {r['rename_p50_ms']} ms, "
                f"p95 {r['rename_p95_ms']} ms after prepareRename (p50 {r['prepare_p50_ms']} ms, p95 {r['prepare_p95_ms']} ms); "
                f"the two together p50 {r['both_p50_ms']} ms, p95 {r['both_p95_ms']} ms",
                flush=True,
            )
        if "formatting" in args.only:
            twice = asyncio.run(examples_twice(Path(scratch)))
            print(
                f"the examples formatted twice through the client: {twice['unchanged']} of {twice['examples']} "
                f"unchanged the second time; the longest line {twice['longest']} columns (width 100)",
                flush=True,
            )
            found = asyncio.run(formatting(Path(scratch), args.lines, args.formats))
            for kind, r in found.items():
                cells = "; ".join(
                    f"{name} {r[name][0]:.3f} s wall (max {r[name][2]:.3f}) / {r[name][1]:.3f} s server CPU"
                    for name in ("whole", "range_one", "range_all")
                )
                print(f"formatting {kind} at {r['lines']:,} lines (median of {args.formats}): {cells}", flush=True)


if __name__ == "__main__":
    main()
