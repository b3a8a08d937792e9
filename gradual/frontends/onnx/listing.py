"""The model as diagnostics show it: one text ("listing") per model, one line per node, then
one per graph input, initializer and the graph outputs:

    node n15 (Reshape): r14, OC2_DUMMY_1 -> r15        <- line 16: node #15 (0-based)
    ...
    graph input data_0: float32[N, 3, 224, 224]
    initializer OC2_DUMMY_1: int64[2]
    graph outputs: prob_1

Every location of the imported program is a span of this text: a call is its node's line, an
argument is its tensor's name on that line, a parameter is its graph input's (or
initializer's) line. So a diagnostic underlines the tensors it is about in the node that uses
them, and line numbers count nodes.
"""

from __future__ import annotations

from typing import Any

from ... import builder as gb
from ... import messages
from ...syntax.source import Source, Span


class ListingLoc(gb.Loc):
    """A builder location that is a span of the model's listing."""

    __slots__ = ()

    def __init__(self, span: Span) -> None:  # noqa: D107 - a Loc made from a span
        self.span = span


class Listing:
    """The listing of one graph and the locations in it."""

    def __init__(self, path: str, graph: Any, describe: Any) -> None:
        """`describe(name)` gives a tensor's type as ONNX writes it (`float32[N, 3]`)."""
        lines: list = []
        self._nodes: list = []
        self._args: list = []
        self._values: dict = {}
        for index, node in enumerate(graph.node):
            text = messages.onnx_node_text(node.name, index, node.op_type, list(node.input), list(node.output))
            self._nodes.append((sum(len(line) + 1 for line in lines), text))
            lines.append(text)
        for vi in graph.input:
            self._values[vi.name] = self._add(lines, messages.onnx_input_text(vi.name, describe(vi.name)))
        inputs = {vi.name for vi in graph.input}
        for init in graph.initializer:
            if init.name not in inputs:
                self._values[init.name] = self._add(lines, messages.onnx_constant_text(init.name, describe(init.name)))
        self._outputs = self._add(lines, messages.onnx_output_text([o.name for o in graph.output]))
        self.source = Source("\n".join(lines) + "\n", path)

    @staticmethod
    def _add(lines: list, text: str) -> tuple:
        start = sum(len(line) + 1 for line in lines)
        lines.append(text)
        return start, start + len(text)

    def _loc(self, start: int, end: int) -> ListingLoc:
        return ListingLoc(Span(self.source, start, end))

    def node(self, index: int) -> ListingLoc:
        """A node's line."""
        start, text = self._nodes[index]
        return self._loc(start, start + len(text))

    def argument(self, index: int, position: int, names: list) -> ListingLoc:
        """Input `position` of node `index`: its name on the node's line."""
        start, text = self._nodes[index]
        cursor = text.index("): ") + 3
        for i, name in enumerate(names):
            found = text.find(name, cursor) if name else -1
            if found < 0:
                break
            if i == position:
                return self._loc(start + found, start + found + len(name))
            cursor = found + len(name)
        return self.node(index)

    def value(self, name: str) -> ListingLoc:
        """A graph input's or initializer's line (the outputs' line for anything else)."""
        return self._loc(*self._values.get(name, self._outputs))

    def outputs(self) -> ListingLoc:
        """The graph outputs' line."""
        return self._loc(*self._outputs)
