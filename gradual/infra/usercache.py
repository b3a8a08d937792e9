"""A per-user cache for what gradual derives from its own files and would otherwise rebuild at
every start: lark's parse tables, the parsed operator library, the language server's compiled
`attrs` methods.

Each entry is a pure function of a key its writer computes from everything it depends on
(file contents, versions); an entry whose key differs is ignored and rewritten. Deleting the
cache only costs time. Entries are loaded with pickle or marshal, so the directory must be
private: `$GRADUAL_CACHE_DIR`, else `$XDG_CACHE_HOME/gradual` or `~/.cache/gradual`, else
`<tmp>/gradual-<uid>`, the first that exists or can be made, belongs to this user and is
writable by no one else. `GRADUAL_CACHE_DIR=` (empty) turns caching off, as does finding no
such directory: everything then works, only slower.
"""

from __future__ import annotations

import importlib
import os
import stat
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Optional


@lru_cache(maxsize=1)
def directory() -> Optional[Path]:
    """The cache directory, or None when nothing can be cached."""
    configured = os.environ.get("GRADUAL_CACHE_DIR")
    if configured is not None:
        candidates = [configured] if configured else []
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        candidates = [os.path.join(base, "gradual"), os.path.join(tempfile.gettempdir(), f"gradual-{_uid()}")]
    for candidate in candidates:
        if _private(candidate):
            return Path(candidate)
    return None


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _private(path: str) -> bool:
    """Whether `path` is (or was just made) a directory of this user that no one else can
    write to, and that this process can write to."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path, follow_symlinks=False)
        if not stat.S_ISDIR(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return False
        return os.access(path, os.W_OK | os.X_OK)
    except OSError:
        return False


def path(name: str) -> Optional[str]:
    """Where the entry `name` lives (for a library that manages its own cache file)."""
    found = directory()
    return None if found is None else str(found / name)


@lru_cache(maxsize=1)
def _sha256() -> Callable[[bytes], Any]:
    # which private module holds it depends on the Python version: looked up by name
    for name in ("_sha2", "_sha256"):
        try:
            made: Callable[[bytes], Any] = importlib.import_module(name).sha256
        except ImportError:
            continue
        return made
    from hashlib import sha256 as fallback

    return fallback


def sha256(data: bytes = b"") -> Any:
    """A SHA-256 hash object: CPython's own (`_sha256`, `_sha2` from 3.12) where there is one,
    since `hashlib` loads OpenSSL at import (a few tens of milliseconds of every start)."""
    return _sha256()(data)


def key(*parts: object) -> bytes:
    """A key from the things an entry depends on (texts, bytes, versions)."""
    digest = sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.digest()


def files_key(paths: Iterable[Path], *parts: object) -> bytes:
    """A key from the names and contents of files, and more parts."""
    contents: list = []
    for file in paths:
        contents += [str(file), file.read_bytes()]
    return key(*contents, *parts)


def load(name: str, expected: bytes) -> Optional[bytes]:
    """The payload stored under `name` with this key, or None (absent, stale, unreadable)."""
    where = path(name)
    if where is None:
        return None
    try:
        with open(where, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if data[: len(expected)] != expected:
        return None
    return data[len(expected) :]


def store(name: str, stored_key: bytes, payload: bytes) -> None:
    """Store a payload under `name` (atomically; silently nothing when it cannot be written)."""
    found = directory()
    if found is None:
        return
    try:
        handle, temporary = tempfile.mkstemp(dir=found, prefix=f".{name}.")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(stored_key + payload)
            os.replace(temporary, found / name)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
