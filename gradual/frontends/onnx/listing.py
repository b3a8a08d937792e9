"""The model as diagnostics show it: one text ("listing") per model, one line per node, then
one per graph input, initializer and the graph outputs:

    node n15 (Reshape): r14, OC2_DUMMY_1 -> r15        <- line 16: node #15 (0-based)
    ...
    graph input data_0: float32[N, 3, 224, 224]
    initializer OC2_DUMMY_1: int64[2]
    graph outputs: prob_1
    node then_out (Constant) in then_branch of If_0 (If): () -> then_out    <- subgraphs last

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


class Listing:
    """The listing of one graph (and its subgraphs: their nodes follow the outputs' line) and the
    locations in it. A node is named by its graph's path and its index in that graph; the path
    of the main graph is (), of a branch `((3, "then_branch"),)`."""

    def __init__(self, path: str, graph: Any, describe: Any) -> None:
        """`describe(name)` gives a tensor's type as ONNX writes it (`float32[N, 3]`)."""
        lines = _Lines()
        self._nodes: dict = {}
        self._values: dict = {}
        self._add_nodes(lines, graph, (), "")
        for vi in graph.input:
            self._values[vi.name] = self._add(lines, messages.onnx_input_text(vi.name, describe(vi.name)))
        inputs = {vi.name for vi in graph.input}
        for init in graph.initializer:
            if init.name not in inputs:
                self._values[init.name] = self._add(lines, messages.onnx_constant_text(init.name, describe(init.name)))
        self._outputs = self._add(lines, messages.onnx_output_text([o.name for o in graph.output]))
        self._add_subgraphs(lines, graph, ())
        self.source = Source("\n".join(lines.texts) + "\n", path)

    def _add_nodes(self, lines: "_Lines", graph: Any, key: tuple, where: str) -> None:
        for index, node in enumerate(graph.node):
            header = messages.onnx_node_header(node.name, index, node.op_type, where)
            text = messages.onnx_node_text(header, list(node.input), list(node.output))
            self._nodes[(key, index)] = (lines.end, text, len(header) + 2)
            lines.add(text)

    def _add_subgraphs(self, lines: "_Lines", graph: Any, key: tuple) -> None:
        for index, node in enumerate(graph.node):
            for attr in node.attribute:
                if attr.HasField("g"):
                    sub_key = key + ((index, attr.name),)
                    owner = messages.onnx_node_header(node.name, index, node.op_type)[len("node "):]
                    self._add_nodes(lines, attr.g, sub_key, f"{attr.name} of {owner}")
                    self._add_subgraphs(lines, attr.g, sub_key)

    @staticmethod
    def _add(lines: "_Lines", text: str) -> tuple:
        start = lines.end
        lines.add(text)
        return start, start + len(text)

    def _loc(self, start: int, end: int) -> gb.SpanLoc:
        return gb.SpanLoc(Span(self.source, start, end))

    def node(self, key: tuple, index: int) -> gb.SpanLoc:
        """A node's line."""
        start, text, _ = self._nodes[(key, index)]
        return self._loc(start, start + len(text))

    def argument(self, key: tuple, index: int, position: int, names: list) -> gb.SpanLoc:
        """Input `position` of a node: its name on the node's line."""
        start, text, cursor = self._nodes[(key, index)]
        for i, name in enumerate(names):
            found = text.find(name, cursor) if name else -1
            if found < 0:
                break
            if i == position:
                return self._loc(start + found, start + found + len(name))
            cursor = found + len(name)
        return self.node(key, index)

    def value(self, name: str) -> gb.SpanLoc:
        """A graph input's or initializer's line (the outputs' line for anything else)."""
        return self._loc(*self._values.get(name, self._outputs))

    def outputs(self) -> gb.SpanLoc:
        """The graph outputs' line."""
        return self._loc(*self._outputs)


class _Lines:
    """The listing's lines so far and the offset where the next one starts (kept as they are
    added: summing the lengths for every node made the listing quadratic in the node count)."""

    __slots__ = ("texts", "end")

    def __init__(self) -> None:
        self.texts: list = []
        self.end = 0

    def add(self, text: str) -> None:
        self.texts.append(text)
        self.end += len(text) + 1
