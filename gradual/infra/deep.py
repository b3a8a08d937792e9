"""Running the recursive phases: a worker thread with a large stack, and the collector paused.

Parsing, checking, elaboration and the interpreter recurse over the syntax tree; they run on a
thread with a large stack so that a 20,000-deep program behaves like a shallow one.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

R = TypeVar("R")
_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 1_000_000
_DEEP_THREAD = "gradual-deep"


_deep_lock = threading.Lock()
_deep_active = 0
_saved_limit = 0


def _enter_deep() -> None:
    """Raise the recursion limit while any deep worker runs (restored by the last one)."""
    global _deep_active, _saved_limit
    with _deep_lock:
        if _deep_active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, _RECURSION_LIMIT))
        _deep_active += 1


def _leave_deep() -> None:
    global _deep_active
    with _deep_lock:
        _deep_active -= 1
        if _deep_active == 0:
            sys.setrecursionlimit(_saved_limit)


def run_deep(fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """Run `fn` on a thread with a large stack (inline if already on one)."""
    if threading.current_thread().name == _DEEP_THREAD:
        return fn(*args, **kwargs)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
            box["error"] = exc

    _enter_deep()
    try:
        previous = threading.stack_size()
        threading.stack_size(_STACK_BYTES)
        try:
            worker = threading.Thread(target=target, name=_DEEP_THREAD)
            worker.start()
        finally:
            threading.stack_size(previous)
        worker.join()
    finally:
        _leave_deep()
    if "error" in box:
        raise box["error"]
    return box["value"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while parsing and checking: both make many objects
    while a large tree stays alive, and repeated full collections cost 40-50% of parsing and a
    fifth of checking on large programs. Collection resumes (and catches up) afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
