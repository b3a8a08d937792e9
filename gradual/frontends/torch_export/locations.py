"""Where a node of an exported program came from: the model's own Python line.

torch.export records, on each node, the stack trace of the Python code that created it,
outermost frame first:

    File "/home/me/model.py", line 9, in forward
        y = torch.relu(self.conv(x))
    File ".../site-packages/torch/nn/modules/conv.py", line 565, in forward
        return self._conv_forward(input, self.weight, self.bias)

A node's location is the innermost frame outside torch's own package (the model's line, not
`conv.py`); with no such frame, the innermost one. The location is a span of a one-line
`Source` whose path is the Python file and whose line number is the frame's, so diagnostics
read `model.py:9:9` and show the line: the file's own text when the file exists and still
holds that line, else the code the trace recorded. Each node gets its own Source, so a
diagnostic can be traced back to its node (the ATen node is added as a note).

Nodes without a trace (shape arithmetic torch.export inserts), graph inputs and outputs are
located in the listing of the graph (`Listing`): one line per node, as torch prints it, then
one per graph input and the outputs, under the archive's path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional

from gradual import builder as gb
from gradual.syntax.source import Source, Span, python_lines

_FRAME = re.compile(r'^\s*File "(?P<path>[^"]*)", line (?P<line>\d+)(?:, in (?P<func>\S+))?\s*$')
_TORCH_FILES = re.compile(r"[/\\]torch[/\\](?:nn|_|functional\.py|overrides\.py|fx|export|_tensor\.py|utils)")
MAX_TRACE_CHARS = 200_000
MAX_LINE = 10_000_000


@dataclass(frozen=True)
class Frame:
    """One frame of a stack trace: file, 1-based line, function and the code recorded."""

    path: str
    line: int
    function: str
    code: str


def parse_trace(trace: str) -> list:
    """The frames of a recorded stack trace, outermost first (malformed lines are skipped)."""
    frames: list = []
    lines = trace[:MAX_TRACE_CHARS].splitlines()
    for i, text in enumerate(lines):
        match = _FRAME.match(text)
        if not match:
            continue
        line = int(match.group("line"))
        if not 1 <= line <= MAX_LINE:
            continue
        code = lines[i + 1].strip() if i + 1 < len(lines) and not _FRAME.match(lines[i + 1]) else ""
        frames.append(Frame(match.group("path"), line, match.group("func") or "", code))
    return frames


def is_library(frame: Frame) -> bool:
    """Whether a frame is inside torch itself (a module's forward, a functional wrapper)."""
    return bool(_TORCH_FILES.search(frame.path)) or frame.path.startswith("<")


def model_frame(frames: list) -> Optional[Frame]:
    """The frame a node is attributed to: the innermost outside torch, else the innermost."""
    for frame in reversed(frames):
        if not is_library(frame):
            return frame
    return frames[-1] if frames else None


class PythonLines:
    """Python files as diagnostics show them (each file read once, only when it exists)."""

    def __init__(self) -> None:
        self._files: dict = {}

    def text(self, frame: Frame) -> tuple:
        """(text of the frame's line, whether it came from the file): the file's own line when
        it holds the recorded code (or when nothing was recorded), else the recorded code."""
        lines = self._lines(frame.path)
        if lines is not None and frame.line <= len(lines):
            own = lines[frame.line - 1].rstrip("\r\n")
            if not frame.code or own.strip() == frame.code:
                return own, True
        return frame.code, False

    def _lines(self, path: str) -> Optional[list]:
        if path not in self._files:
            self._files[path] = _read_lines(path)
        return self._files[path]

    def loc(self, frame: Frame) -> gb.SpanLoc:
        """A location spanning the code on the frame's line (its indentation left out)."""
        text, _ = self.text(frame)
        source = Source(text, frame.path, line_base=frame.line - 1)
        start = len(text) - len(text.lstrip())
        end = len(text.rstrip())
        return gb.SpanLoc(Span(source, start, max(start, end)))


def _read_lines(path: str) -> Optional[list]:
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > 50_000_000:
            return None
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            return python_lines(handle.read())
    except OSError:
        return None


class Listing:
    """The graph as text, one line per node (`conv2d = aten.conv2d.default(x, ...)`), then one
    per graph input and the outputs: where nodes without a Python line, inputs and outputs are
    located, and what the note naming a node's ATen call shows."""

    def __init__(self, path: str, node_lines: list, input_lines: list, output_line: str) -> None:
        lines = list(node_lines) + list(input_lines) + [output_line]
        self.source = Source("\n".join(lines) + "\n", path)
        starts, at = [], 0
        for line in lines:
            starts.append((at, at + len(line)))
            at += len(line) + 1
        self._nodes = starts[: len(node_lines)]
        self._inputs = starts[len(node_lines) : len(node_lines) + len(input_lines)]
        self._outputs = starts[-1]

    def _loc(self, bounds: tuple) -> gb.SpanLoc:
        return gb.SpanLoc(Span(self.source, *bounds))

    def node(self, index: int) -> gb.SpanLoc:
        """The line of node `index`."""
        return self._loc(self._nodes[index])

    def input(self, index: int) -> gb.SpanLoc:
        """The line of graph input `index`."""
        return self._loc(self._inputs[index])

    def outputs(self) -> gb.SpanLoc:
        """The outputs' line."""
        return self._loc(self._outputs)
