"""Starting the server quickly: most of a start is importing `lsprotocol.types`, whose 500-odd
`attrs` classes each compile generated methods (`__init__`, `__repr__`, `__eq__`, ...) from
source, every time the process starts.

`fast_imports()` wraps the imports of pygls and lsprotocol. The compiles `attrs` makes are
looked up in a cache of code objects (`marshal`) kept in the user cache (`gradual.infra.usercache`),
keyed by each script's text, file name and mode, in a file keyed by Python's bytecode version
(whatever the attrs version, the same script compiles to the same code). The cyclic collector
is paused meanwhile (imports make many objects and free few), and what the imports made is
frozen out of later collections. A cache that cannot be read or written only makes the start
slower. A few scripts (`__hash__` of frozen classes) hold the process's string-hash seed and
never repeat: they are compiled every time, and the cache is rewritten only when many scripts
were new (the first start, or another attrs or lsprotocol).
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import hashlib
import marshal
from importlib.util import MAGIC_NUMBER
from types import ModuleType
from typing import Any, Iterator, Optional

from gradual.infra import usercache

_CACHE = "attrs-code.marshal"
#: New scripts in one start above which the cache is rewritten (see the module docstring).
_REWRITE_AFTER = 16


class CompileCache:
    """`compile` for source text, memoized through a dict of marshalled code objects."""

    def __init__(self, entries: dict) -> None:
        self.entries = entries
        self.used: dict = {}
        self.new = 0

    def __call__(self, source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not isinstance(source, str) or not isinstance(filename, str):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        script = f"{mode}\0{filename}\0{source}".encode("utf-8", "surrogatepass")
        name = hashlib.blake2b(script, digest_size=16).digest()
        data = self.entries.get(name)
        if data is not None:
            try:
                code = marshal.loads(data)
                self.used[name] = data
                return code
            except (EOFError, ValueError, TypeError):
                pass
        code = builtins.compile(source, filename, mode)
        self.used[name] = marshal.dumps(code)
        self.new += 1
        return code


def _load(key: bytes) -> dict:
    payload = usercache.load(_CACHE, key)
    if payload is None:
        return {}
    try:
        entries = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    return entries if isinstance(entries, dict) else {}


@contextlib.contextmanager
def fast_imports() -> Iterator[None]:
    """Import pygls and lsprotocol inside this (see the module docstring)."""
    was_enabled = gc.isenabled()
    gc.disable()
    builder: Optional[ModuleType]
    try:
        import attr._make as builder  # attrs' class builder calls `compile` from its module

        key = usercache.key(MAGIC_NUMBER)
        cache = CompileCache(_load(key))
    except Exception:  # noqa: BLE001 - no attrs, or one that cannot be imported alone: import as usual
        builder = None
    try:
        if builder is None or "compile" in vars(builder):
            yield
        else:
            builder.compile = cache  # type: ignore[attr-defined]  # attrs' builder module, patched while pygls imports
            try:
                yield
            finally:
                del builder.compile
            if cache.new > _REWRITE_AFTER:
                usercache.store(_CACHE, key, marshal.dumps(cache.used))
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
