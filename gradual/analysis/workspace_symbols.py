"""Workspace symbols: the `@` definitions of every open document and of every `.rly` file
under the workspace's folders, found by a name the query matches (its characters in order,
ignoring case, as editors match).

An open document is read from its newest analysis (its functions' types as details) or its
text; a file on disk is read lexically (a line starting `def @name`), kept while its size and
modification time do not change. The walk skips hidden folders, virtual environments and
caches, and stops at MAX_FILES files; each file over MAX_FILE_BYTES is skipped.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from gradual.analysis.document import Analysis
from gradual.syntax.source import Source, Span
from gradual.types import format_type

MAX_FILES = 5000
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_RESULTS = 500
_SKIPPED = {"node_modules", "__pycache__", "site-packages", "build", "dist"}
_DEFINITION = re.compile(r"(?:^|(?<=[\r\n]))def[ \t]+(@[A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Symbol:
    """A definition: its name (with `@`), its type if known, where its name is."""

    name: str
    detail: str
    span: Span


class FileIndex:
    """The definitions of `.rly` files on disk, each read once while it does not change."""

    def __init__(self) -> None:
        self._files: dict[str, tuple] = {}

    def definitions(self, path: str) -> list[Symbol]:
        try:
            stat = os.stat(path)
        except OSError:
            return []
        key = (stat.st_mtime_ns, stat.st_size)
        kept = self._files.get(path)
        if kept is not None and kept[0] == key:
            return kept[1]
        found: list[Symbol] = []
        if stat.st_size <= MAX_FILE_BYTES:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    found = text_definitions(f.read(), path)
            except OSError:
                found = []
        self._files[path] = (key, found)
        return found


def text_definitions(text: str, path: str) -> list[Symbol]:
    """The `def @name` lines of a text."""
    source = Source(text, path)
    return [Symbol(m.group(1), "", Span(source, m.start(1), m.end(1))) for m in _DEFINITION.finditer(text)]


def analysis_definitions(analysis: Analysis) -> list[Symbol]:
    """The definitions of an analyzed document, with their types."""
    module = analysis.result.module
    if module is None:
        return text_definitions(analysis.text, analysis.path)
    functions = analysis.result.functions or {}
    out = []
    for d in module.defs:
        fn = functions.get(d.name)
        out.append(Symbol(f"@{d.name}", format_type(fn.type) if fn is not None else "", d.name_span))
    return out


def rly_files(roots: Iterable[str], limit: int = MAX_FILES) -> list[str]:
    """The `.rly` files under the folders (see the module docstring for what is skipped)."""
    out: list[str] = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".")
                and d not in _SKIPPED
                and not os.path.exists(os.path.join(folder, d, "pyvenv.cfg"))
            )
            for name in sorted(files):
                if name.endswith(".rly"):
                    out.append(os.path.join(folder, name))
                    if len(out) >= limit:
                        return out
    return out


def matches(query: str, name: str) -> bool:
    """Whether the query's characters occur in the name in order (ignoring case and `@`)."""
    at = 0
    lowered = name.lower()
    for char in query.lower().lstrip("@"):
        at = lowered.find(char, at) + 1
        if at == 0:
            return False
    return True


def workspace_symbols(
    query: str,
    open_documents: dict,
    roots: Iterable[str],
    index: Optional[FileIndex] = None,
    stdlib: Optional[str] = None,
) -> list[Symbol]:
    """The definitions matching `query`: open documents (path -> Analysis, or text) first,
    then the files on disk under `roots` that are not open (nor in the operator library
    folder `stdlib`); at most MAX_RESULTS."""
    index = index or FileIndex()
    out: list[Symbol] = []
    for path, held in open_documents.items():
        found = analysis_definitions(held) if isinstance(held, Analysis) else text_definitions(held, path)
        out += [s for s in found if matches(query, s.name)]
    seen = {os.path.realpath(p) for p in open_documents}
    shipped = os.path.realpath(stdlib) if stdlib else None
    for path in rly_files(roots):
        real = os.path.realpath(path)
        if real in seen or (shipped is not None and os.path.dirname(real) == shipped):
            continue
        seen.add(real)
        out += [s for s in index.definitions(path) if matches(query, s.name)]
        if len(out) >= MAX_RESULTS:
            break
    return out[:MAX_RESULTS]
