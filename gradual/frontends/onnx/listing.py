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

from gradual import builder as gb
from gradual.frontends.onnx import messages
from gradual.syntax.source import Source, Span


class NodeRecord:
    """One NodeProto's fields, read once: each protobuf field access costs a fraction of a
    microsecond (a repeated field more), and the listing (once written) and a node's converter
    read them many times. The importer's loop reads a direct node's few fields itself and makes
    no record (`Importer._import_nodes`). The NodeProto itself is not kept (the few that need
    it find it by graph and index, `Importer.node_proto`): a NodeProto object kept alive after
    its fields were read holds about 500 bytes more (50 MB of a 100,000-node import's peak)."""

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
    node records by path, the main graph's first, then its subgraphs depth first.

    The text is written, and the places in it found, the first time a location's offsets or the
    text are read (a diagnostic, a printed program, an editor): a model that checks clean never
    needs them. Until then a location is a `_Place` that knows what it points at."""

    def __init__(self, path: str, graph: Any, describe: Any) -> None:
        """`describe(name)` gives a tensor's type as ONNX writes it (`float32[N, 3]`), asked
        here for the graph inputs and initializers."""
        self._graph = graph
        self._records: Optional[dict] = None
        inputs = {vi.name for vi in graph.input}
        self._value_texts = [(vi.name, messages.onnx_input_text(vi.name, describe(vi.name))) for vi in graph.input]
        self._value_texts += [
            (init.name, messages.onnx_constant_text(init.name, describe(init.name)))
            for init in graph.initializer
            if init.name not in inputs
        ]
        self._outputs_text = messages.onnx_output_text([o.name for o in graph.output])
        self._nodes: Optional[dict] = None  # graph path -> each node's (start, end, inputs' start)
        self._values: dict = {}
        self._outputs: tuple = (0, 0)
        self._locators: dict = {}
        self._last_node: Optional[tuple] = None  # the node whose input offsets are kept
        self._last_starts: list = []
        self.source = _ListingSource(self, path)

    @property
    def graphs(self) -> dict:
        """Each graph's node records by path (`read_graphs`), read the first time they are
        asked for: the import reads the NodeProtos it needs itself, and a model that checks
        clean never asks."""
        if self._records is None:
            self._records = read_graphs(self._graph)
        return self._records

    def _write(self) -> str:
        """The text, its places found (once)."""
        lines = _Lines()
        self._nodes = {}
        self._add_nodes(lines, (), "")
        for name, text in self._value_texts:
            self._values[name] = self._add(lines, text)
        self._outputs = self._add(lines, self._outputs_text)
        for key in self.graphs:
            if key:
                index, attr = key[-1]
                owner = self.graphs[key[:-1]][index]
                where = messages.onnx_node_header(owner.name, index, owner.op_type)[len("node ") :]
                self._add_nodes(lines, key, f"{attr} of {where}")
        return "\n".join(text.translate(_ONE_LINE) for text in lines.texts) + "\n"

    def _add_nodes(self, lines: "_Lines", key: tuple, where: str) -> None:
        """The lines of one graph's nodes; each node's place is kept by index, in a list per
        graph (start and end of its line, and where its inputs begin)."""
        places: list[tuple[int, int, int]] = []
        assert self._nodes is not None, "_write made the table before adding its graphs"
        self._nodes[key] = places
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

    def _places(self) -> dict:
        """Each graph's node places (the text written first, if it is not yet)."""
        if self._nodes is None:
            self.source.text  # noqa: B018 - writes it
        return self._nodes  # type: ignore[return-value]

    def offsets(self, where: tuple) -> tuple:
        """The (start, end) a `_Place` points at."""
        kind = where[0]
        if kind == "node":
            start, end, _ = self._places()[where[1]][where[2]]
            return start, end
        if kind == "argument":
            return self._argument_offsets(*where[1:])
        self._places()
        return self._values.get(where[1], self._outputs) if kind == "value" else self._outputs

    def _argument_offsets(self, key: tuple, index: int, position: int) -> tuple:
        """Where input `position` of a node is on its line (the whole line from an absent input
        on). A node's input offsets are found once, for the last node asked: finding each by
        walking the names before it made a node of n inputs (a Concat, a Sum) cost n squared."""
        names = self.graphs[key][index].inputs
        if self._last_node != (key, index):
            offset = self._places()[key][index][2]
            starts = []
            for name in names:
                if not name:
                    break
                starts.append(offset)
                offset += len(name) + 2  # the line joins the names with ", "
            self._last_node, self._last_starts = (key, index), starts
        if position < len(self._last_starts):
            start = self._last_starts[position]
            return start, start + len(names[position])
        start, end, _ = self._nodes[key][index]  # type: ignore[index]
        return start, end

    def node(self, key: tuple, index: int) -> gb.SpanLoc:
        """A node's line."""
        return gb.SpanLoc(_Place(self, ("node", key, index)))

    def argument(self, key: tuple, index: int, position: int) -> gb.SpanLoc:
        """Input `position` of a node: its name on the node's line (the whole line from an
        absent input on)."""
        return gb.SpanLoc(_Place(self, ("argument", key, index, position)))

    def locator(self, key: tuple) -> "GraphPlaces":
        """The places of one graph's nodes, as an ast.Dataflow locates its statements (a
        statement's tag is its node's index)."""
        found = self._locators.get(key)
        if found is None:
            found = self._locators[key] = GraphPlaces(self, key)
        return found

    def value(self, name: str) -> gb.SpanLoc:
        """A graph input's or initializer's line (the outputs' line for anything else)."""
        return gb.SpanLoc(_Place(self, ("value", name)))

    def outputs(self) -> gb.SpanLoc:
        """The graph outputs' line."""
        return gb.SpanLoc(_Place(self, ("outputs",)))


class _ListingSource(Source):
    """The listing as a Source whose text is written when first read."""

    __slots__ = ("listing", "_written")

    def __init__(self, listing: Listing, path: str) -> None:
        self.listing = listing
        self._written: Optional[str] = None
        self.path = path
        self._line_starts = None
        self.base = 0
        self.line_base = 0

    @property
    def text(self) -> str:  # type: ignore[override]  # Source.text
        if self._written is None:
            self._written = self.listing._write()
        return self._written


class _Place(Span):
    """A span of the listing found when its offsets are first read (see Listing)."""

    __slots__ = ("listing", "where", "_offsets")

    def __init__(self, listing: Listing, where: tuple) -> None:  # Span's fields, found later
        self.listing = listing
        self.where = where
        self._offsets: Optional[tuple] = None

    @property
    def source(self) -> Source:  # type: ignore[override]  # Span.source
        return self.listing.source

    @property
    def start(self) -> int:  # type: ignore[override]  # Span.start
        if self._offsets is None:
            self._offsets = self.listing.offsets(self.where)
        return self._offsets[0]

    @property
    def end(self) -> int:  # type: ignore[override]  # Span.end
        if self._offsets is None:
            self._offsets = self.listing.offsets(self.where)
        return self._offsets[1]


class GraphPlaces:
    """The lines of one graph's nodes and their inputs' names on them (ast.Dataflow's locator)."""

    __slots__ = ("listing", "key")

    def __init__(self, listing: Listing, key: tuple) -> None:
        self.listing = listing
        self.key = key

    def line(self, index: int) -> Span:
        """Node `index`'s line."""
        return _Place(self.listing, ("node", self.key, index))

    def argument(self, index: int, position: int) -> Span:
        """Input `position` of node `index`, on its line."""
        return _Place(self.listing, ("argument", self.key, index, position))


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


#: a line break inside a name (ONNX names are any strings) drawn as a visible symbol, one
#: character for one, so each node keeps one line (and its offsets): a name `a\rb` or `a\nb`
#: split its node's line, and every later line number was off by one
_ONE_LINE = str.maketrans({"\r": "\u240d", "\n": "\u240a"})


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
