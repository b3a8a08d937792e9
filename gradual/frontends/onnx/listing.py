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

import sys
from typing import Any, Optional, Sequence

from ... import builder as gb
from ... import messages
from ...syntax import ast
from ...syntax.source import Source, Span


class NodeRecord:
    """One NodeProto's fields, read once: each protobuf field access costs about a
    microsecond (a repeated field several), and the listing, the importer and the converters
    all read them. The NodeProto itself is not kept (the few that need it find it by graph and
    index, `Importer.node_proto`): a NodeProto object kept alive after its fields were read
    holds about 500 bytes more (50 MB of a 100,000-node import's peak)."""

    __slots__ = ("name", "op_type", "domain", "inputs", "outputs", "attributes")

    def __init__(self, proto: Any) -> None:
        self.name: str = proto.name
        self.op_type: str = sys.intern(proto.op_type)  # one string per operator, not one per node
        self.domain: str = proto.domain
        self.inputs: list = proto.input[:]
        self.outputs: list = proto.output[:]
        attributes = proto.attribute
        self.attributes: Sequence = attributes[:] if attributes else ()  # most nodes have none: no copy



class Listing:
    """The listing of one graph (and its subgraphs: their nodes follow the outputs' line) and the
    locations in it. A node is named by its graph's path and its index in that graph; the path
    of the main graph is (), of a branch `((3, "then_branch"),)`. `graphs` holds each graph's
    node records by path, the main graph's first, then its subgraphs depth first."""

    def __init__(self, path: str, graph: Any, describe: Any, graphs: Optional[dict] = None) -> None:
        """`describe(name)` gives a tensor's type as ONNX writes it (`float32[N, 3]`);
        `graphs` the node records `read_graphs(graph)` gives (read here when not given)."""
        self.graphs: dict = graphs if graphs is not None else read_graphs(graph)
        self._last_node: Optional[tuple] = None  # the node whose input offsets `argument` kept
        self._last_starts: list = []
        lines = _Lines()
        self._nodes: dict = {}
        self._values: dict = {}
        self._add_nodes(lines, (), "")
        for vi in graph.input:
            self._values[vi.name] = self._add(lines, messages.onnx_input_text(vi.name, describe(vi.name)))
        inputs = {vi.name for vi in graph.input}
        for init in graph.initializer:
            if init.name not in inputs:
                self._values[init.name] = self._add(lines, messages.onnx_constant_text(init.name, describe(init.name)))
        self._outputs = self._add(lines, messages.onnx_output_text([o.name for o in graph.output]))
        for key in self.graphs:
            if key:
                index, attr = key[-1]
                owner = self.graphs[key[:-1]][index]
                where = messages.onnx_node_header(owner.name, index, owner.op_type)[len("node "):]
                self._add_nodes(lines, key, f"{attr} of {where}")
        self.source = Source("\n".join(lines.texts) + "\n", path)

    def _add_nodes(self, lines: "_Lines", key: tuple, where: str) -> None:
        """The lines of one graph's nodes; each node's place is kept by index, in a list per
        graph (start and end of its line, and where its inputs begin)."""
        places = self._nodes[key] = []
        place = places.append
        texts = lines.texts
        end = lines.end
        header_of, text_of = messages.onnx_node_header, messages.onnx_node_text
        for index, node in enumerate(self.graphs[key]):
            header = header_of(node.name, index, node.op_type, where)
            text = text_of(header, node.inputs, node.outputs)
            place((end, end + len(text), end + len(header) + 2))
            texts.append(text)
            end += len(text) + 1
        lines.end = end

    @staticmethod
    def _add(lines: "_Lines", text: str) -> tuple:
        start = lines.end
        lines.add(text)
        return start, start + len(text)

    def _loc(self, start: int, end: int) -> gb.SpanLoc:
        return gb.SpanLoc(Span(self.source, start, end))

    def node(self, key: tuple, index: int) -> gb.SpanLoc:
        """A node's line."""
        start, end, _ = self._nodes[key][index]
        return gb.SpanLoc(Span(self.source, start, end))

    def argument(self, key: tuple, index: int, position: int, names: list) -> gb.SpanLoc:
        """Input `position` of a node (`names`: its inputs, as its line lists them): its name
        on the node's line (the whole line from an absent input on). The offsets of a node's
        inputs are found once (for its last node asked): finding each by walking the names
        before it made a node of n inputs (a Concat, a Sum) cost n squared."""
        if self._last_node != (key, index):
            offset = self._nodes[key][index][2]
            starts = []
            for name in names:
                if not name:
                    break
                starts.append(offset)
                offset += len(name) + 2  # the line joins the names with ", "
            self._last_node, self._last_starts = (key, index), starts
        starts = self._last_starts
        if position < len(starts):
            start = starts[position]
            return gb.SpanLoc(Span(self.source, start, start + len(names[position])))
        return self.node(key, index)

    def call_site(self, key: tuple, index: int, names: list, variables: dict) -> tuple:
        """For a node that lists every input (no absent one), each bound in `variables`
        (tensor name -> its builder Var): the node's line as a span, and each input as a
        variable use located at its name on the line (what `node` and `argument` locate)."""
        start, end, offset = self._nodes[key][index]
        source = self.source
        uses = []
        for name in names:
            size = len(name)
            uses.append(ast.Var(variables[name].name, span=Span(source, offset, offset + size)))
            offset += size + 2  # the line joins the names with ", "
        return Span(source, start, end), tuple(uses)

    def value(self, name: str) -> gb.SpanLoc:
        """A graph input's or initializer's line (the outputs' line for anything else)."""
        return self._loc(*self._values.get(name, self._outputs))

    def outputs(self) -> gb.SpanLoc:
        """The graph outputs' line."""
        return self._loc(*self._outputs)


def read_graphs(graph: Any) -> dict:
    """The node records of a graph and of its subgraphs by path (the graph's first, then its
    subgraphs depth first, in node order)."""
    out: dict = {}
    _read_graph(graph, (), out)
    return out


def _read_graph(graph: Any, key: tuple, out: dict) -> None:
    records = out[key] = [NodeRecord(proto) for proto in graph.node]
    for index, node in enumerate(records):
        for attr in node.attributes:
            if attr.HasField("g"):
                _read_graph(attr.g, key + ((index, attr.name),), out)


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
