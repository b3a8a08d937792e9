"""Analyses of several documents at once, taking turns by priority.

Each document is analyzed on a thread of its own (at most one analysis a document at a time),
but Python runs one thread at a time (the GIL): a 50,000-line document checked on one thread
took half the processor from a 100-line one edited meanwhile, whose diagnostics then came
seconds late. So analyses yield: at each checkpoint (between two pieces parsed, two
definitions resolved or two components checked: a few milliseconds apart) an analysis waits
while one of higher priority runs, and goes on when none does. The document edited last has
the highest priority; an analysis that is superseded meanwhile stops at its next checkpoint.

A process of its own for a large document was the other way: its results (syntax trees,
types) would have to be sent back to the server whole, each time, which costs about what
checking costs.
"""

from __future__ import annotations

import itertools
import threading
from typing import Callable


class Turns:
    """Who may run: analyses register with a priority (larger runs first); `checkpoint`
    blocks an analysis while a higher one runs."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running: dict[int, int] = {}  # ticket -> priority
        self._tickets = itertools.count()
        self.waits = 0  # how many times an analysis waited its turn (for tests and benchmarks)

    def begin(self, priority: int) -> int:
        """Register an analysis; its ticket."""
        with self._changed:
            ticket = next(self._tickets)
            self._running[ticket] = priority
            return ticket

    def reserve(self, ticket: "int | None", priority: int) -> int:
        """Hold a turn for an analysis about to start (from the edit on, through the debounce:
        the others pause meanwhile): a new ticket, or `ticket` with this priority."""
        with self._changed:
            if ticket is None or ticket not in self._running:
                ticket = next(self._tickets)
            self._running[ticket] = priority
            self._changed.notify_all()
            return ticket

    def end(self, ticket: int) -> None:
        """An analysis is over (done, failed or cancelled): those below it may go on."""
        with self._changed:
            self._running.pop(ticket, None)
            self._changed.notify_all()

    def wake(self) -> None:
        """Something an analysis waits on may have changed (it was superseded)."""
        with self._changed:
            self._changed.notify_all()

    def checkpoint(self, ticket: int, cancelled: Callable[[], bool]) -> bool:
        """Wait while an analysis of higher priority runs; whether this one is cancelled."""
        with self._changed:
            mine = self._running.get(ticket, 0)
            waited = False
            while not cancelled() and any(p > mine for p in self._running.values()):
                waited = True
                self._changed.wait(0.05)
            if waited:
                self.waits += 1
        return cancelled()

    def yielding(self, ticket: int, cancelled: Callable[[], bool]) -> Callable[[], bool]:
        """The `cancelled` callback `Document.analyze` takes: a checkpoint."""
        return lambda: self.checkpoint(ticket, cancelled)
