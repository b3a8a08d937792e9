"""Where an equation of a jaxpr came from: the user's Python line and columns.

JAX records, on each equation, the Python traceback of the call that made it (innermost frame
first). The equation is located at the innermost frame outside JAX's own packages and
gradual's (the model's `h = x @ w`, not `jax/_src/numpy/...`), with the line and columns
CPython records for the instruction (3.11+). The location carries the equation as its payload
(`Diagnostic.data`).
"""

from __future__ import annotations

import os
from typing import Any, Optional

from gradual import builder as gb


def _package_dir(module: Any) -> str:
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


def at(place: tuple, data: Any) -> gb.Loc:
    """A location from (path, line, column, end line, end column), with its payload."""
    path, line, column, end_line, end_column = place
    return gb.Loc.at(path, line, column, end_line, end_column, data=data)


class Locator:
    """Locations of a jaxpr's equations (positions read once per code object)."""

    def __init__(self) -> None:
        import jax
        import jaxlib

        import gradual

        self.skipped = tuple(_package_dir(m) for m in (jax, jaxlib, gradual))
        self._positions: dict = {}
        self._places: dict = {}  # (code, lasti) -> its place, or None for a library frame
        self._library: dict = {}  # code -> whether it is JAX's or gradual's own

    def frame(self, traceback: Any) -> Optional[tuple]:
        """(path, line, column, end line, end column) of the innermost user frame, or None."""
        if traceback is None:
            return None
        try:
            codes, lastis = traceback.raw_frames()
        except Exception:  # noqa: BLE001 - a traceback of another form: no place
            return None
        library = self._library
        for code, lasti in zip(codes, lastis):
            skip = library.get(code)
            if skip is None:
                skip = library[code] = code.co_filename.startswith((*self.skipped, "<frozen"))
            if not skip:
                return self._place(code, lasti)
        return None

    def exception_loc(self, exc: BaseException) -> Optional[gb.Loc]:
        """Where a traced function failed: the innermost user frame of the exception's traceback."""
        frames = self.exception_frames(exc)
        return at(frames[0][0], exc) if frames else None

    def exception_frames(self, exc: BaseException) -> list:
        """The user frames of an exception's traceback, innermost first: (place, the name of
        the frame's function)."""
        tb = exc.__traceback__
        frames = []
        while tb is not None:
            frames.append((tb.tb_frame.f_code, tb.tb_lasti))
            tb = tb.tb_next
        found = []
        for code, lasti in reversed(frames):
            place = self._place(code, lasti)
            if place is not None:
                found.append((place, code.co_name))
        return found

    def frame_place(self, code: Any, lasti: int) -> Optional[tuple]:
        """(path, line, column, end line, end column) of one frame's instruction, or None for a
        frame of JAX's, gradual's or a frozen module."""
        return self._place(code, lasti)

    def _place(self, code: Any, lasti: int) -> Optional[tuple]:
        key = (code, lasti)
        if key in self._places:
            return self._places[key]
        found = self._places[key] = self._find(code, lasti)
        return found

    def _find(self, code: Any, lasti: int) -> Optional[tuple]:
        path = code.co_filename
        if path.startswith((*self.skipped, "<frozen")):
            return None
        positions = self._positions.get(code)
        if positions is None:
            positions = self._positions[code] = list(code.co_positions())
        index = lasti // 2
        if 0 <= index < len(positions):
            line, end_line, column, end_column = positions[index]
            if line is not None and column is not None and end_line is not None and end_column is not None:
                if end_line > line or end_line == line and end_column > column:
                    return path, line, column + 1, end_line, end_column + 1
                return path, line, column + 1, None, None
            if line is not None:
                return path, line, 1, None, None
        return path, code.co_firstlineno, 1, None, None

    def place(self, eqn: Any) -> Optional[tuple]:
        """(path, line, column, end line, end column) of the equation's user frame, or None."""
        return self.frame(getattr(getattr(eqn, "source_info", None), "traceback", None))

    def loc(self, eqn: Any) -> Optional[gb.Loc]:
        """The equation's location (None where JAX recorded no user frame)."""
        source_info = getattr(eqn, "source_info", None)
        found = self.frame(getattr(source_info, "traceback", None))
        if found is None:
            return None
        return at(found, eqn)
