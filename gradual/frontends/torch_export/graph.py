"""The serialized ExportedProgram (schema 8) as plain Python values.

`Program` wraps the JSON: its graph's nodes (`GraphNode`), the metadata of every tensor and
symbolic int, the signature (which inputs are parameters, buffers, constants or the user's),
and the range constraints. Arguments are decoded once (`decode`): a tensor or symbolic value is
a `Ref` to the value's name, a list of SymInts a list of `Ref`s and ints, a dtype a `ScalarType`,
and anything gradual does not model an `Opaque` that a converter may reject.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class Ref:
    """A value of the graph by name: a tensor, or a symbolic int / float / bool."""

    name: str
    kind: str = "tensor"


@dataclass(frozen=True)
class ScalarType:
    """A dtype argument (torch's ScalarType number)."""

    number: int


@dataclass(frozen=True)
class Opaque:
    """An argument gradual does not model (a device, a layout, a subgraph, ...)."""

    kind: str
    value: Any = None


def _floats(value: Any) -> Any:
    """Floats as serialized: JSON has no infinities or NaN, so torch writes them as strings."""
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return Opaque("float", value)
    return value


def _sym(item: Any, kind: str) -> Any:
    """A SymInt/SymFloat/SymBool argument: a Ref to its name, or its constant."""
    if not isinstance(item, dict):
        return Opaque(kind, item)
    if isinstance(item.get("as_name"), str):
        return Ref(item["as_name"], kind)
    for key, test in (("as_int", _is_int), ("as_float", _is_number), ("as_bool", lambda v: isinstance(v, bool))):
        if key in item and test(item[key]):
            return item[key]
    return Opaque(kind, item)


def _optional_tensor(item: Any) -> Any:
    if isinstance(item, dict) and "as_tensor" in item:
        return _tensor_ref(item["as_tensor"])
    return None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return _is_int(v) or isinstance(v, float)


def _list_of(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(test(e) for e in v)


#: the plain argument kinds, and what their JSON value must be
_PLAIN: dict = {
    "as_int": _is_int,
    "as_bool": lambda v: isinstance(v, bool),
    "as_string": lambda v: isinstance(v, str),
    "as_ints": _list_of(_is_int),
    "as_bools": _list_of(lambda v: isinstance(v, bool)),
    "as_strings": _list_of(lambda v: isinstance(v, str)),
    "as_int_lists": _list_of(_list_of(_is_int)),
    "as_float_lists": _list_of(_list_of(_is_number)),
}


def _dict(value: Any) -> dict:
    """A JSON object, or {} where the (malformed) archive has something else."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    """A JSON array, or [] where the (malformed) archive has something else."""
    return value if isinstance(value, list) else []


def _tensor_ref(value: Any) -> Any:
    name = value.get("name") if isinstance(value, dict) else None
    return Ref(name) if isinstance(name, str) else Opaque("malformed", value)


def decode(arg: Any) -> Any:
    """One serialized Argument as a Python value (see the module docstring); a value of the
    wrong JSON kind for its key (an archive edited or damaged) is an Opaque "malformed"."""
    if not isinstance(arg, dict) or len(arg) != 1:
        return Opaque("malformed", arg)
    ((key, value),) = arg.items()
    if key in ("as_float", "as_floats"):
        floats = _floats(value)
        return floats if _is_number(floats) or _list_of(_is_number)(floats) else Opaque("malformed", arg)
    if key in _PLAIN:
        return value if _PLAIN[key](value) else Opaque("malformed", arg)
    if key == "as_none":
        return None
    if key == "as_tensor":
        return _tensor_ref(value)
    if key == "as_tensors":
        return [_tensor_ref(v) for v in value] if isinstance(value, list) else Opaque("malformed", arg)
    if key in ("as_sym_int", "as_sym_float", "as_sym_bool"):
        return _sym(value, key[len("as_") :])
    if key in ("as_sym_ints", "as_sym_floats", "as_sym_bools"):
        return [_sym(v, key[len("as_") : -1]) for v in value] if isinstance(value, list) else Opaque("malformed", arg)
    if key == "as_scalar_type":
        return ScalarType(value) if _is_int(value) else Opaque("malformed", arg)
    if key == "as_optional_tensor":
        return _optional_tensor(value)
    if key == "as_optional_tensors":
        return [_optional_tensor(v) for v in value] if isinstance(value, list) else Opaque("malformed", arg)
    return Opaque(key[len("as_") :] if key.startswith("as_") else key, value)


@dataclass
class GraphNode:
    """One node: its target (`aten.conv2d.default`), named arguments, outputs and stack trace."""

    index: int
    target: str
    name: str
    args: dict
    outputs: list
    stack_trace: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def op(self) -> str:
        """The target without torch's `torch.ops.` prefix: `aten.conv2d.default`, `_operator.mul`."""
        return self.target[len("torch.ops.") :] if self.target.startswith("torch.ops.") else self.target

    def arg(self, name: str, default: Any = None) -> Any:
        """An argument by its schema name (the default when the node omits it)."""
        return self.args.get(name, default)

    def used_names(self) -> set:
        """The names of the values the node reads."""
        used = set()
        for value in self.args.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, Ref):
                    used.add(item.name)
        return used

    def output_names(self) -> list:
        """The names of the values the node defines (flattened; None for an unused output)."""
        names: list = []
        for out in self.outputs:
            if isinstance(out, Ref):
                names.append(out.name)
            elif isinstance(out, list):
                names.extend(o.name if isinstance(o, Ref) else None for o in out)
            else:
                names.append(None)
        return names


def _node(index: int, raw: Any) -> GraphNode:
    raw = _dict(raw)
    args = {}
    for i, named in enumerate(_list(raw.get("inputs"))):
        if isinstance(named, dict):
            # positional arguments (a higher-order op's: torch.cond's) have no name: `arg{i}`
            args[str(named.get("name") or f"arg{i}")] = decode(named.get("arg"))
    outputs = [decode(o) for o in _list(raw.get("outputs"))]
    meta = _dict(raw.get("metadata"))
    target = str(raw.get("target", "?"))
    name = raw.get("name") or (outputs[0].name if outputs and isinstance(outputs[0], Ref) else f"node{index}")
    return GraphNode(index, target, str(name), args, outputs, str(meta.get("stack_trace") or ""), meta)


@dataclass
class InputSpec:
    """One graph input: `kind` is user_input, parameter, buffer, tensor_constant,
    constant_input, custom_obj or token; `target` the state's qualified name."""

    kind: str
    name: str
    target: str = ""
    value: Any = None


def _input_spec(raw: Any) -> InputSpec:
    if not isinstance(raw, dict) or len(raw) != 1:
        return InputSpec("malformed", "?")
    ((kind, body),) = raw.items()
    body = body if isinstance(body, dict) else {}
    arg = body.get("arg")
    if kind == "user_input":
        value = decode(arg)
        name = value.name if isinstance(value, Ref) else "?"
        return InputSpec(kind, name, value=value)
    if kind == "constant_input":
        return InputSpec(kind, str(body.get("name", "?")), value=decode(body.get("value")))
    name = str(arg.get("name", "?")) if isinstance(arg, dict) else "?"
    target = (
        body.get("parameter_name")
        or body.get("buffer_name")
        or body.get("tensor_constant_name")
        or body.get("custom_obj_name")
        or ""
    )
    return InputSpec(kind, name, str(target))


def _output_spec(raw: Any) -> tuple:
    """(kind, decoded value) of one output spec."""
    if not isinstance(raw, dict) or len(raw) != 1:
        return "malformed", None
    ((kind, body),) = raw.items()
    return kind, decode(body.get("arg")) if isinstance(body, dict) else None


class Program:
    """The serialized program's graph, metadata and signature."""

    def __init__(self, program: dict) -> None:
        gm = _dict(program.get("graph_module"))
        graph = _dict(gm.get("graph"))
        self.nodes = [_node(i, raw) for i, raw in enumerate(_list(graph.get("nodes")))]
        self.tensor_values: MutableMapping[str, Any] = _dict(graph.get("tensor_values"))  # a cond branch: layered
        self.sym_int_values: dict = _dict(graph.get("sym_int_values"))
        self.sym_float_values: dict = _dict(graph.get("sym_float_values"))
        self.sym_bool_values: dict = _dict(graph.get("sym_bool_values"))
        self.graph_outputs = [decode(o) for o in _list(graph.get("outputs"))]
        signature = _dict(gm.get("signature"))
        self.inputs = [_input_spec(s) for s in _list(signature.get("input_specs"))]
        self.outputs = [_output_spec(s) for s in _list(signature.get("output_specs"))]
        self.range_constraints: dict = _dict(program.get("range_constraints"))
        self.guards: list = [g for g in _list(program.get("guards_code")) if isinstance(g, str)]
        self.verifiers: list = _list(program.get("verifiers"))
        self.opset: dict = _dict(program.get("opset_version"))

    def tensor_meta(self, name: str) -> Optional[dict]:
        """The recorded metadata of a tensor (dtype, sizes, ...), if any: where the archive
        records sizes that are not a list, or a dtype that is not a number, as having none."""
        meta = self.tensor_values.get(name)
        if not isinstance(meta, dict):
            return None
        if isinstance(meta.get("sizes", []), list) and _is_int(meta.get("dtype", 0)):
            return meta
        return {k: v for k, v in meta.items() if k not in ("sizes", "dtype")}

    def only_asserting(self, is_assertion: Callable[["GraphNode"], bool]) -> set:
        """Indices of the nodes that exist only for torch.export's assertions: the assertion
        nodes themselves and every node whose results only they use (the `sym_max` /
        `sym_not` behind a deferred runtime assertion)."""
        returned = {v.name for _, v in self.outputs if isinstance(v, Ref)}
        consumers: dict = {}
        for node in self.nodes:
            for name in node.used_names():
                consumers.setdefault(name, []).append(node.index)
        found: set = set()
        for node in reversed(self.nodes):
            names = [n for n in node.output_names() if n]
            users = [i for n in names for i in consumers.get(n, [])]
            if is_assertion(node) or (users and not returned.intersection(names) and set(users) <= found):
                found.add(node.index)
        return found

    def user_outputs(self) -> list:
        """The values the program returns to its caller (user outputs, in order)."""
        return [value for kind, value in self.outputs if kind == "user_output"]
