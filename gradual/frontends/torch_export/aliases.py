"""In-place operators and the views they write through (torch.export's default IR keeps them).

The default IR is not functional: `out += identity` is `add_ = aten.add_.Tensor(out, identity)`,
and `b[:, 0] = 0.0` is `fill_(select(slice(b, ...), 1, 0), 0.0)`, after which every later use
of `b` sees the write. gradual's language is functional, so the importer functionalizes as
torch's own `run_decompositions()` does:

* an in-place node `aten.X_` is its functional operator `aten.X`, whose result is written into
  `self` as `aten.copy` writes (broadcast to self's shape, in self's dtype: a result that would
  change self's shape is an error, as in torch); `copy_`, `fill_`, `zero_` are `copy`, `fill`,
  `zero`, and an `out=` variant writes into `out` likewise;
* the write rebinds the written name, and the node's output (an alias of it), to the new value;
* a view (`select`, `slice`, `view`, `transpose`, a part of `split`, ...) remembers the tensor it
  views; a write into a view is written back into that tensor with the view's scatter
  (`select_scatter`, `slice_scatter`, `diagonal_scatter`, the inverse permutation, a reshape), up to the tensor that
  owns the storage, whose version then grows;
* a view used after its storage was written is computed again from its source when it is used.

Only graphs with an in-place node track views (`Aliases.needed`). Each view knows its storage's
owner, so a write costs the length of one view chain and a use at most one re-computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from gradual.frontends.torch_export.conversions import strided_write
from gradual.frontends.torch_export.convert import NodeConverter, Unsupported, is_in_place, packet, writes_out
from gradual.frontends.torch_export.graph import GraphNode, Ref

if TYPE_CHECKING:
    from gradual.frontends.torch_export.importer import Importer

#: ATen operators whose result shares its input's storage (their outputs are views)
VIEWS = frozenset(
    {
        "aten.view",
        "aten.reshape",
        "aten.alias",
        "aten.detach",
        "aten.slice",
        "aten.select",
        "aten.narrow",
        "aten.transpose",
        "aten.permute",
        "aten.t",
        "aten.unsqueeze",
        "aten.squeeze",
        "aten.flatten",
        "aten.unflatten",
        "aten.expand",
        "aten.as_strided",
        "aten.diagonal",
        "aten.unfold",
        "aten.split",
        "aten.chunk",
        "aten.unbind",
        "aten.split_with_sizes",
        "aten.view_as",
        "aten.expand_as",
        "aten.movedim",
        "aten.swapaxes",
        "aten.swapdims",
        "aten.lift_fresh",
        "aten.lift_fresh_copy",
    }
)


@dataclass
class View:
    """A view: the node that made it, the name it views, which output of the node it is, and the
    tensor that owns the storage (`node` None: an alias, the output of an in-place node)."""

    node: Optional[GraphNode]
    source: str
    output: int
    owner: str


class Aliases:
    """The views of one graph and the versions of their storage (see the module docstring)."""

    def __init__(self, importer: "Importer", nodes: list) -> None:
        self.importer = importer
        self.needed = any(is_in_place(node.op) or writes_out(node) for node in nodes)
        self.views: dict = {}
        self.version: dict = {}
        self.made: dict = {}

    def owner(self, name: str) -> str:
        """The tensor that owns `name`'s storage (itself when it is no view)."""
        view = self.views.get(name)
        return name if view is None else view.owner

    def defined(self, node: GraphNode) -> None:
        """Remember the views a node just defined."""
        if not self.needed or packet(node.op) not in VIEWS:
            return
        source = next((v for v in node.args.values() if isinstance(v, Ref) and v.kind == "tensor"), None)
        if source is None:
            return
        owner = self.owner(source.name)
        for index, name in enumerate(node.output_names()):
            if name:
                self.views[name] = View(node, source.name, index, owner)
                self.made[name] = self.version.get(owner, 0)

    def alias(self, name: str, of: str) -> None:
        """`name` (an in-place node's output) is `of` itself."""
        self.views[name] = View(None, of, 0, self.owner(of))
        self.made[name] = self.version.get(self.owner(of), 0)

    def current(self, name: str) -> None:
        """Make `name`'s binding reflect the last write into its storage (views used after a
        write are computed again from their sources, the oldest first)."""
        stale = []
        while name in self.views and self.made[name] != self.version.get(self.views[name].owner, 0):
            stale.append(name)
            name = self.views[name].source
        for name in reversed(stale):
            view = self.views[name]
            if view.node is None:
                self.importer.exprs[name] = self.importer.exprs[view.source]
            else:
                self.importer.recompute(view.node)
            for other in [name] + ([n for n in view.node.output_names() if n] if view.node else []):
                if other in self.views:
                    self.made[other] = self.version.get(self.views[other].owner, 0)

    def write(self, name: str, value: Any, c: NodeConverter) -> None:
        """`name` now holds `value` (a bound variable): written back through its views into the
        tensor that owns the storage, whose version grows."""
        path = [name]
        while path[-1] in self.views:
            path.append(self.views[path[-1]].source)
        for written in path[1:]:
            self.current(written)
        for view_name, source in zip(path, path[1:]):
            self.importer.exprs[view_name] = value
            view = self.views[view_name]
            if view.node is not None:
                value = self.importer.bind_value(source, scatter(view, self.importer.exprs[source], value, c), c)
        self.importer.exprs[path[-1]] = value
        owner = path[-1]
        self.version[owner] = self.version.get(owner, 0) + 1
        for written in path[:-1]:
            self.made[written] = self.version[owner]


# writing a view back into its source ---------------------------------------------------------------
SCATTERS: dict = {}


def scatters(*ops: str) -> Callable:
    """Decorator: how a write into a view of these operators reaches the viewed tensor."""

    def register(fn: Callable) -> Callable:
        for op in ops:
            SCATTERS[op] = fn
        return fn

    return register


def scatter(view: View, source: Any, value: Any, at: NodeConverter) -> Any:
    """The viewed tensor (`source`, a variable) with the view's elements replaced by `value`
    (a view a node made: `write` passes no alias)."""
    node = view.node
    assert node is not None, "an alias is written as its source, not scattered"
    op = packet(node.op)
    if op not in SCATTERS:
        raise at.unsupported(f"a write into a view made by `{node.op}` (`{node.name}`)")
    c = NodeConverter(at.importer, node, at.loc)
    return SCATTERS[op](c, at.importer.var(source, at), at.importer.var(value, at), view.output)


@scatters("aten.alias", "aten.detach", "aten.lift_fresh", "aten.lift_fresh_copy")
def _identity(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    return value


@scatters(
    "aten.view", "aten.reshape", "aten.unsqueeze", "aten.squeeze", "aten.flatten", "aten.unflatten", "aten.view_as"
)
def _reshaped(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    return c.call("aten.view_as", value, source)


@scatters("aten.transpose", "aten.swapaxes", "aten.swapdims")
def _transposed(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    dims = [int(c.raw(name)) for name in ("dim0", "dim1") if c.has(name)] or [
        int(c.raw(name)) for name in ("axis0", "axis1")
    ]
    return c.call("aten.transpose", value, dim0=dims[0], dim1=dims[1])


@scatters("aten.t")
def _t(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    return c.call("aten.t", value)


@scatters("aten.permute")
def _permuted(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    dims = list(c.attribute(c.raw("dims")))
    rank = len(dims)
    inverse = [0] * rank
    for position, dim in enumerate(dims):
        inverse[dim % rank] = position
    return c.call("aten.permute", value, dims=inverse)


@scatters("aten.slice", "aten.narrow")
def _sliced(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    dim = int(c.raw("dim", 0))
    if packet(c.node.op) == "aten.narrow":
        start = c.raw("start")
        length = c.raw("length")
        if not isinstance(start, int) or not isinstance(length, int):
            raise c.unsupported("a write into a narrow view of symbolic bounds")
        begin, end, step = c.operand(start, "int64"), c.operand(start + length, "int64"), 1
    else:
        begin, end, step = c.operand(c.raw("start"), "int64"), c.operand(c.raw("end"), "int64"), int(c.raw("step", 1))
    return c.call("aten.slice_scatter", source, value, begin, end, dim=dim, step=step)


@scatters("aten.select")
def _selected(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    return c.call("aten.select_scatter", source, value, c.operand(c.raw("index"), "int64"), dim=int(c.raw("dim")))


@scatters("aten.diagonal")
def _diagonal(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    """`x.diagonal().zero_()`, `fill_diagonal_`'s form: the diagonal written back with diagonal_scatter."""
    attrs = {name: int(c.raw(name, default)) for name, default in (("offset", 0), ("dim1", 0), ("dim2", 1))}
    return c.call("aten.diagonal_scatter", source, value, **attrs)


@scatters("aten.as_strided")
def _strided(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    """A write through an as_strided view (of a contiguous tensor: its converter saw to it)."""
    return strided_write(c, source, value)


@scatters("aten.unbind")
def _unbound(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    return c.call("aten.select_scatter", source, value, c.number(output, "int64"), dim=int(c.raw("dim", 0)))


@scatters("aten.split", "aten.split_with_sizes")
def _split_part(c: NodeConverter, source: Any, value: Any, output: int) -> Any:
    size = c.raw("split_size", c.raw("split_sizes"))
    sizes = size if isinstance(size, list) else [size] * (output + 1) if isinstance(size, int) else None
    if sizes is None or not all(isinstance(s, int) for s in sizes[: output + 1]):
        raise c.unsupported("a write into a part of a split of symbolic size")
    start = sum(sizes[:output])
    return c.call(
        "aten.slice_scatter",
        source,
        value,
        c.number(start, "int64"),
        c.number(start + sizes[output], "int64"),
        dim=int(c.raw("dim", 0)),
        step=1,
    )


__all__ = ["Aliases", "Unsupported", "VIEWS"]
