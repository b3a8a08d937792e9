"""Importing an ONNX ModelProto into a gradual module (the decisions are in the package docstring).

`Importer` walks the graph once, in node order: graph inputs become parameters of `@main`,
every node becomes `let` bindings of its outputs (named after the ONNX tensors), and the graph
outputs its result. Constants are kept as NumPy arrays until something uses them; then a small
one is written into the program and a large one becomes a parameter whose value rides along in
`ImportedModel.constants`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from gradual import builder as gb
from gradual.checker.driver import CheckResult, check
from gradual.diagnostics import Diagnostic
from gradual.frontends import dim_name
from gradual.frontends import messages as frontend_messages
from gradual.frontends.onnx import constants as initializers
from gradual.frontends.onnx import messages
from gradual.frontends.onnx import outputs as declared_outputs
from gradual.frontends.onnx.fold import fold, foldable
from gradual.frontends.onnx.forms import FORMS
from gradual.frontends.onnx.listing import Listing, NodeRecord
from gradual.frontends.onnx.node import (
    INT_INLINE,
    KNOWN,
    Node,
    Tuple,
    Unsupported,
    _schema_problem,
    inlinable,
    inline_constant,
    numpy_dtype,
    problem_of_counts,
    schema_problem,
)
from gradual.frontends.onnx.ranks import rule
from gradual.frontends.onnx.types import (
    DimNames,
    TensorInfo,
    arithmetic_names,
    dim_params,
    info_of_array,
    info_of_type,
    onnx_dtype_name,
)
from gradual.infra.scopes import UndoLog
from gradual.syntax import ast
from gradual.syntax.source import Span

DEFAULT_DOMAINS = ("", "ai.onnx")


@dataclass
class ImportOptions:
    """How to import a model.

    * `batch`: a dimension name given to the first dim of every graph input (initializers
      excluded), making the batch symbolic; the declared output types are then not checked.
    * `batch_reshapes`: with `batch`, a constant Reshape target whose first entry is the
      inputs' original batch size copies the batch instead (0): models exported with a fixed
      batch of 1 (`Reshape(x, [1, 9216])`) become batch-polymorphic. The result is checked.
    * `declared_outputs`: annotate `@main`'s result with the graph outputs' declared types.
    * `freeze`: graph inputs to treat as constants, by name (their values are known when
      checking, as for initializers).
    * `strict_dims`: the inputs' dim_params are promises: a node that constrains one (it only
      works when `height = 32`) is an error. By default they are the exporter's claim (spec §6):
      such a node gets a `dim-constraint` warning and a runtime check.
    """

    batch: Optional[str] = None
    batch_reshapes: bool = False
    declared_outputs: bool = True
    freeze: Mapping[str, np.ndarray] = field(default_factory=dict)
    strict_dims: bool = False

    def __post_init__(self) -> None:
        """A `batch` that is no dimension name of the language is a ValueError (it was written
        into the program as it was: `Tensor[(, 16)]`, `(n m, 16)`, a symbol named `3`)."""
        if self.batch is not None:
            dim_name(self.batch)


@dataclass
class InputSpec:
    """A graph input: its ONNX name, its `@main` parameter and what the model declares."""

    name: str
    param: str
    info: TensorInfo


@dataclass
class ImportedModel:
    """An imported model: the module (None when the import failed), the import's diagnostics,
    the graph's inputs and outputs, and the values of the constants that became parameters."""

    path: str
    module: Optional[ast.Module]
    diagnostics: list
    inputs: list
    outputs: list
    constants: dict
    opset: int = 0
    node_count: int = 0
    declared: Optional[list] = None  # the outputs' declarations, when they are not all complete
    renamed_dims: dict = field(default_factory=dict)  # dim_params spelled otherwise: {text: name}

    @property
    def ok(self) -> bool:
        """True when the whole graph was imported."""
        return self.module is not None and not any(d.is_error for d in self.diagnostics)

    def check(self) -> CheckResult:
        """Type-check the imported module (a failed import gives its diagnostics instead)."""
        if self.module is None:
            return CheckResult(None, None, list(self.diagnostics))
        result = check(self.module, self.path)
        if not self.declared or not result.ok or not declared_outputs.says_something(self.declared):
            return result
        main = result.function_type("main")
        ret = declared_outputs.refined(self.declared, main.ret) if main is not None else None
        if ret is None:
            return result
        return check(declared_outputs.with_result_type(self.module, ret), self.path)

    def feeds(self, inputs: Mapping[str, Any]) -> dict:
        """`@main`'s arguments: the given inputs (by ONNX name or parameter name) and every
        constant parameter. Unknown names raise KeyError."""
        params = {spec.name: spec.param for spec in self.inputs}
        known = set(params.values())
        out = dict(self.constants)
        for name, value in inputs.items():
            if name in params:
                out[params[name]] = value
            elif name in known:
                out[name] = value
            else:
                raise KeyError(frontend_messages.model_unknown_input(name, list(params)))
        return out

    def run(self, inputs: Mapping[str, Any], checked: Optional[CheckResult] = None) -> list:
        """Check (unless `checked` is given), elaborate and run on NumPy; the graph outputs."""
        from gradual.runtime import run

        return run(checked if checked is not None else self.check(), self.feeds(inputs))

    def text(self) -> str:
        """The module in gradual's language."""
        from gradual.syntax.printer import format_module

        if self.module is None:
            return ""
        return format_module(self.module)


_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
#: what _UNSAFE replaces, for ASCII text: str.translate's table
_ASCII_SAFE = {c: "_" for c in range(128) if _UNSAFE.match(chr(c))}


class Namer:
    """Unique `%names` from ONNX tensor names (`gpu_0/conv1` -> `gpu_0_conv1`)."""

    def __init__(self) -> None:
        self.taken: set = set()
        self.next: dict = {}  # base -> the suffix to try first for it

    def name(self, onnx_name: str) -> str:
        """A fresh variable name close to an ONNX tensor name."""
        if onnx_name.isascii():  # only [A-Za-z0-9_] kept, the rest replaced by one table lookup each
            base = onnx_name if onnx_name.isidentifier() else onnx_name.translate(_ASCII_SAFE) or "v"
        else:
            base = _UNSAFE.sub("_", onnx_name) or "v"
        name, k = base, self.next.get(base, 1)
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        self.next[base] = k  # the suffix to try first next time: not _1 again (quadratic when
        return name  # every If branch binds the same names, or many names differ only in punctuation)


class Importer:
    """One import of one model (see the module docstring)."""

    def __init__(
        self,
        model: Any,
        path: str,
        options: Optional[ImportOptions] = None,
        serialized: Optional[bytes] = None,
        unexpanded: Optional[dict] = None,
    ) -> None:
        """`serialized`: the model's bytes, when at hand (ONNX's inference reads them as they are);
        `unexpanded`: the model-local functions the inliner could not expand, (domain, name) ->
        why (a node calling one is reported with it)."""
        self.model = model
        self.unexpanded = unexpanded or {}
        self.serialized = serialized
        self.graph = model.graph
        self.path = path
        self.options = options or ImportOptions()
        self.opset = _default_opset(model)
        self.fn = gb.Function("main")
        self.body: gb.Block = self.fn  # where lets go: @main's body, or an If branch being imported
        self.namer = Namer()
        self.exprs: dict = {}  # tensor -> its variable where the import is (written through `scope`; see `_variable`)
        #: what a branch's import bound in `exprs`, undone when it ends (a copy of `exprs` per
        #: branch made a graph of many Ifs quadratic)
        self.scope = UndoLog()
        self.values: dict = {}
        self.infos: dict = {}
        self.inferred = False  # whether the model's value_info has been read into `infos` (_collect_infos)
        self.hearsay: set = set()  # tensors whose info only the model's value_info gave
        self.derived: dict = {}  # (graph path, node index) -> its outputs' infos by ranks.rule (_derived)
        self.type_infos: dict = {}  # a TypeProto's bytes -> what it says (_read_value_info)
        #: a small constant written into the program, by its dtype, shape and bytes -> its variable:
        #: an exporter writes a Constant node per use (a 100,000-node TorchScript export has 21,000
        #: of a dozen values), and each was a let of its own to import and to check
        self.inlined: dict = {}
        self.assertions: dict = {}  # tensor -> the variable asserting its hearsay (_assert_hearsay)
        self.at: tuple = ((), 0)  # the node being imported: (graph path, index)
        self.graph_protos: dict = {(): self.graph}  # GraphProtos by path, as their nodes are imported
        self.direct_forms: dict = {}  # (op_type, #inputs, #outputs) -> direct form or None (_import_nodes)
        self.sequence_lengths: dict = {}  # sequence value -> its length (convert/sequence.py)
        self.sequence_dtypes: dict = {}  # an empty sequence -> its items' dtype (SequenceEmpty's attribute)
        #: sequences a loop appends to, held as one tensor of their stacked items (convert/loops.py)
        self.sequence_rows: set = set()
        self.sequence_row_ranks: dict = {}  # such a sequence -> its items' rank, where known
        self.cast_sources: dict = {}  # a Cast's output -> its input (a Range reads a size cast to float)
        self.poisoned: set = set()
        #: [what it has defined, the node being imported, its key] of each graph whose nodes are being
        #: imported, outermost first: a subgraph's node may not define a tensor an enclosing
        #: graph has (ONNX's single assignment spans subgraphs)
        self.enclosing: list = []
        self.diagnostics: list = []
        self.inputs: list = []
        self.constants: dict = {}
        self.value_locs: dict = {}
        self.broken: dict = {}  # initializers that cannot be read: name -> why
        self.batch_size: Optional[int] = None
        self.input_dims = _input_dim_params(self.graph, self.options.batch is not None)
        self.input_dims |= arithmetic_names(self.input_dims)  # `h2` of an input's `2*h2`
        graph_values = list(self.graph.input) + list(self.graph.output) + list(self.graph.value_info)
        self.dim_names = DimNames(
            dim_params(graph_values) + sorted(self.input_dims), [self.options.batch] if self.options.batch else []
        )

    # the walk -----------------------------------------------------------------------------------
    def run(self) -> ImportedModel:
        """Import the whole graph."""
        self._collect_constants()
        self._apply_batch()
        self.listing = Listing(self.path, self.graph, lambda name: self.info(name).describe())
        self.fn.loc = self.listing.outputs()
        self._report_broken()
        self._declare_inputs()
        self._import_nodes(self.graph.node, ())
        result = self._result()
        module, declared = None, None
        if result is not None and not self.diagnostics:
            if not self.options.strict_dims:
                self.fn.claim_dims(self._input_dim_names())
            declared = self._declared_outputs()
            ret = declared_outputs.annotation(declared) if declared is not None else None
            self.fn.ret = gb.located(ret, self.fn.loc.span) if ret is not None else None
            module = gb.module(self.fn.returns(result))
        outputs = [o.name for o in self.graph.output]
        return ImportedModel(
            self.path,
            module,
            self.diagnostics,
            self.inputs,
            outputs,
            self.constants,
            self.opset,
            len(self.graph.node),
            declared if self.fn.ret is None else None,
            self.dim_names.renamed(),
        )

    def _collect_infos(self) -> None:
        """Dtypes and ranks the model itself declares (the value_info, inputs and outputs of its
        graphs), read the first time a converter asks about a tensor the import does not know
        yet: a model whose converters never ask (a chain of Add, Mul, Relu, MatMul) is never
        read twice. What the import knew already (initializers, inputs, constants) stays.
        Tensors mostly share a few types: each distinct TypeProto (by its bytes) is read once.
        A tensor the model says nothing of gets what its node's rule gives (`_derived`)."""
        self.inferred = True
        for graph in _graphs(self.graph) if _may_hold_graphs(self.serialized) else [self.graph]:
            self._read_value_info(graph)

    def _read_value_info(self, graph: Any) -> None:
        """What one graph's value_info, outputs and inputs declare (see `_collect_infos`)."""
        read, infos = self.type_infos, self.infos
        for vi in itertools.chain(graph.value_info, graph.output, graph.input):
            if not vi.HasField("type"):
                continue
            type_proto = vi.type
            key = type_proto.SerializeToString()
            info = read.get(key, _UNREAD)
            if info is _UNREAD:
                info = read[key] = info_of_type(type_proto, self.dim_names, self.input_dims)
            if info is not None and vi.name not in infos:
                infos[vi.name] = info
                self.hearsay.add(vi.name)

    def _producer(self, name: str) -> Optional[tuple]:
        """(graph path, node index) of the node that defines a tensor where the import is (the
        innermost graph that defines it), or None for a graph input, an initializer or an
        unknown name."""
        for defined, _, key in reversed(self.enclosing):
            found = defined.get(name)
            if found is not None:
                return (key, found) if isinstance(found, int) else None
        return None

    def _peek(self, name: str) -> Optional[TensorInfo]:
        """What is known of a tensor without deriving it (nor asserting it)."""
        found = self.infos.get(name)
        if found is not None:
            return found
        producer = self._producer(name)
        if producer is None:
            return None
        derived = self.derived.get(producer)
        if not derived:
            return None
        proto = self.node_proto(*producer)
        for output, info in zip(proto.output, derived):
            if output == name:
                return info
        return None

    def _derived(self, name: str) -> Optional[TensorInfo]:
        """A tensor's dtype and rank by the rules of the nodes it depends on (ranks.rule),
        each node's found once, the nodes walked with a stack of their own (a chain of 100,000
        nodes is no deeper than one)."""
        start = self._producer(name)
        if start is None:
            return None
        derived, pending, visiting = self.derived, [start], set()
        while pending:
            at = pending[-1]
            if at in derived:
                pending.pop()
                continue
            proto = self.node_proto(*at)
            if at not in visiting:
                visiting.add(at)
                needed = [
                    p
                    for p in (self._producer(i) for i in proto.input if i and i not in self.infos)
                    if p is not None and p not in derived and p not in visiting
                ]
                if needed:
                    pending.extend(needed)
                    continue
            pending.pop()
            derived[at] = self._rule(proto, at[0])
        return self._peek(name)

    def _rule(self, proto: Any, key: tuple) -> list:
        """ranks.rule of one NodeProto (a node of another domain has none)."""
        if proto.domain not in DEFAULT_DOMAINS:
            return []
        inputs = [self._peek(i) if i else None for i in proto.input]
        values = [self.values.get(i) if i else None for i in proto.input]
        attributes = {a.name: a for a in proto.attribute}
        return rule(proto.op_type, inputs, attributes, values, self.opset, len(proto.output))

    def _collect_constants(self) -> None:
        for init in self.graph.initializer:
            self.infos[init.name] = info_of_array(init.data_type, tuple(init.dims))
            self._read_initializer(init)
        for name, value in self.options.freeze.items():
            array = np.asarray(value)
            self.values[name] = array
            old = self.info(name)
            self.infos[name] = TensorInfo(numpy_dtype(array) or None, tuple(array.shape), old.elem_type)

    def _read_initializer(self, init: Any) -> Optional[str]:
        """Record an initializer's value; a broken one is poisoned (its uses are skipped) and
        its problem returned."""
        value = initializers.read(init)
        if isinstance(value, str):
            self.broken[init.name] = value
            self.poisoned.add(init.name)
            return value
        self.scope.set(self.values, init.name, value)  # a subgraph's: its own (undone as it ends)
        return None

    def _report_broken(self) -> None:
        for name, problem in self.broken.items():
            self._report(
                self.listing.value(name), lambda span, n=name, p=problem: messages.onnx_bad_initializer(span, n, p)
            )

    def _apply_batch(self) -> None:
        """The `batch` option: the first dim of every graph input (initializers excluded)."""
        for vi in self.graph.input:
            info = info_of_type(vi.type, self.dim_names, self.input_dims)
            if vi.name not in self.values and info is not None:
                self.infos[vi.name] = self._with_batch(info)

    def _declare_inputs(self) -> None:
        for vi in self.graph.input:
            if vi.name in self.values or vi.name in self.broken:
                continue  # an initializer listed as an input (IR < 4), or a frozen input
            loc = self.listing.value(vi.name)
            problem = _input_problem(vi, self.info(vi.name))
            if problem is not None:
                self._report(loc, problem)
                self.poisoned.add(vi.name)
                continue
            info = self.info(vi.name)
            param = self.namer.name(vi.name)
            self.scope.set(self.exprs, vi.name, self.fn.param(param, info.type_expr(), loc=loc))
            self.inputs.append(InputSpec(vi.name, param, info))

    def _with_batch(self, info: TensorInfo) -> TensorInfo:
        """The input's type with the `batch` option applied to its first dim."""
        if self.options.batch is None or not info.dims:
            return info
        if self.batch_size is None and isinstance(info.dims[0], int):
            self.batch_size = info.dims[0]
        return TensorInfo(info.dtype, (self.options.batch,) + tuple(info.dims[1:]), info.elem_type)

    def _import_nodes(self, nodes: Any, key: tuple) -> None:
        """Import a graph's nodes (its NodeProtos) in order. A node of the default domain with no
        attributes whose converter has a direct form (convert.DIRECT: the node is one operator
        call on its inputs), whose inputs are all bound and not all constants, is bound here as
        the converter and `_bind_outputs` would bind it, in the body's Dataflow, without a
        `Node` or even a NodeRecord (most nodes of most models: this loop is the import's cost
        per node, its protobuf field reads the larger part). Any other node (a schema problem,
        an input to fold, several outputs, attributes) is `_import_node`'s."""
        defined = self._graph_names(key)  # the tensors this graph has defined so far (SSA)
        ancestors = list(self.enclosing)
        level = [defined, -1, key]
        self.enclosing.append(level)
        try:
            self._import_node_list(nodes, key, defined, ancestors, level)
        finally:
            self.enclosing.pop()

    def _import_node_list(self, nodes: Any, key: tuple, defined: dict, ancestors: list, level: list) -> None:
        """`_import_nodes`' loop over a graph's nodes (`defined`: what the graph has defined so
        far; `ancestors`: the enclosing graphs' levels of `enclosing`; `level`: this graph's)."""
        exprs, values, poisoned, scope = self.exprs, self.values, self.poisoned, self.scope
        forms, form_of, taken = self.direct_forms, self._direct_form, self.namer.taken
        fresh_name, locator = self.namer.name, self.listing.locator(key)
        flow = None  # the Dataflow this run of direct nodes extends (see gb.Block.dataflow)
        for index, proto in enumerate(nodes):
            op = attrs = None
            attributes = proto.attribute
            if attributes:
                if (
                    len(attributes) == 1
                    and proto.op_type == "Constant"
                    and self._constant_node(proto, attributes[0], key, index, defined, ancestors)
                ):
                    continue  # recorded: nothing enters the program until a node uses it
                if self.fast_forms and proto.op_type in FORMS and proto.domain in DEFAULT_DOMAINS:
                    op_type, inputs, outputs = proto.op_type, proto.input[:], proto.output[:]
                    found = self._formed(op_type, inputs, outputs, attributes, key, index)
                    if found is not None:
                        op, args, attrs, materialized = found
                        if materialized:
                            flow = None
            elif proto.domain in DEFAULT_DOMAINS:
                op_type, inputs, outputs = proto.op_type, proto.input[:], proto.output[:]
                direct = forms.get((op_type, len(inputs), len(outputs)), _UNREAD)
                if direct is _UNREAD:
                    direct = forms[(op_type, len(inputs), len(outputs))] = form_of(op_type, len(inputs), len(outputs))
                if direct is not None and outputs[0] and not (poisoned and not poisoned.isdisjoint(inputs)):
                    args = []
                    constant: Optional[bool] = True  # all inputs constants: they may fold (None: an input unbound)
                    for name in inputs:
                        var = exprs.get(name)
                        if var is None:  # unbound, or absent (""), or a constant not yet used
                            constant = None
                            break
                        args.append(var[0] if var.__class__ is tuple else var.name)
                        if constant and values.get(name) is None:
                            constant = False
                    if constant is False:
                        if direct.__class__ is str:
                            op = direct
                        else:
                            self.at = (key, index)
                            before = len(self.body.stmts)
                            op = direct(self, op_type, inputs)
                            if len(self.body.stmts) != before:  # it asserted what value_info says of an
                                flow = None  # input: the node's statement goes after that let
                if op is None and self.fast_forms and (op_type in FORMS or direct is not None):
                    found = self._formed(op_type, inputs, outputs, (), key, index)
                    if found is not None:
                        op, args, attrs, materialized = found
                        if materialized:
                            flow = None
            if op is None:
                record = NodeRecord(proto)
                level[1] = index  # its subgraphs may read (not define again) what it defines
                self._define(record.outputs, defined, key, index, ancestors)
                self._import_node(index, record, key)
                flow = None
                continue
            name = outputs[0]  # a direct node has one output (`_direct_form`)
            if name in defined or ancestors and _enclosing_definition(name, ancestors) is not None:
                self._define(outputs, defined, key, index, ancestors)
            else:
                defined[name] = index
            if not (name.isascii() and name.isidentifier() and name not in taken):
                name = fresh_name(name)
            else:
                taken.add(name)  # what Namer.name does for a name it keeps as it is
            if flow is None:
                flow = self.body.dataflow(locator)
                names, ops, arguments, tags = flow.names, flow.ops, flow.args, flow.tags
            var = (name, flow, len(names))  # a DataflowVar's fields, made one when asked (`_variable`)
            if attrs:
                span = locator.line(index)
                flow.attrs[len(names)] = tuple([ast.Attr(k, gb.attr_value(v), span=span) for k, v in attrs.items()])
            names.append(name)
            ops.append(op)
            arguments.append(args)
            tags.append(index)
            if scope.open:
                scope.set(exprs, outputs[0], var)
            else:  # the graph's own level: nothing to undo
                exprs[outputs[0]] = var

    #: whether nodes of FORMS (and maps with a constant input) are bound without a `Node`: the
    #: forms' test compares the programs imported with and without them
    fast_forms = True

    def _formed(
        self, op_type: str, inputs: list, outputs: list, attributes: Any, key: tuple, index: int
    ) -> Optional[tuple]:
        """(op, argument names, attributes, whether a constant was materialized) of a node that
        is one call of its form (forms.FORMS, or its direct form with constants among its
        inputs), as its converter would make it; None for the converter to import it. The node
        must have one output, no poisoned input, a schema it meets, inputs all bound or
        constants and not all constants (it may fold)."""
        if len(outputs) != 1 or not outputs[0]:
            return None
        poisoned, exprs, values = self.poisoned, self.exprs, self.values
        if poisoned and not poisoned.isdisjoint(inputs):
            return None
        constants = 0
        for name in inputs:
            if exprs.get(name) is None:
                if not name or values.get(name) is None:
                    return None  # absent, unbound, or a subgraph's input hiding a constant
                constants += 1
            elif values.get(name) is not None:
                constants += 1
        if constants == len(inputs):
            return None
        if attributes:
            if _schema_problem(op_type, self.opset, len(inputs), len(outputs), attributes) is not None:
                return None
        elif problem_of_counts(op_type, self.opset, len(inputs), len(outputs)) is not None:
            return None
        self.at = (key, index)
        body = self.body.stmts
        before = len(body)  # a form that asserts what value_info says of an input binds a let first
        form = FORMS.get(op_type)
        if form is not None:
            found = form(self, op_type, inputs, attributes)
            if found is None:
                return None
            op, used, attrs = found
        else:
            op = self.direct_forms.get((op_type, len(inputs), len(outputs)))
            if op is not None and op.__class__ is not str:
                op = op(self, op_type, inputs)
            if op is None:
                return None
            used, attrs = inputs, None
        if any(exprs.get(name) is None and not numpy_dtype(values[name]) for name in used):
            return None  # a constant of a dtype gradual has not: the converter reports it
        args = []
        for name in used:
            var = exprs.get(name)
            if var is None:
                var = self._materialize(name, values[name])
            args.append(var[0] if var.__class__ is tuple else var.name)
        return op, args, attrs, len(body) != before

    def _constant_node(
        self, proto: Any, attribute: Any, key: tuple, index: int, defined: dict, ancestors: list
    ) -> bool:
        """A Constant node whose `value` is a plain tensor (most of an export's Constants, a
        third of a TorchScript export's nodes) recorded as its converter records it, without a
        record or a `Node`: True when it was (False: `_import_node` imports it, and reports
        what is wrong with it)."""
        if attribute.type != 4 or attribute.name != "value" or attribute.ref_attr_name or proto.input:
            return False
        outputs = proto.output
        if len(outputs) != 1 or not outputs[0] or proto.domain not in DEFAULT_DOMAINS:
            return False
        array = initializers.read_plain(attribute.t)
        if array is None:
            return False
        name = outputs[0]
        if name in defined or ancestors and _enclosing_definition(name, ancestors) is not None:
            self._define(outputs, defined, key, index, ancestors)
        else:
            defined[name] = index
        self.record_constant(name, array, self.listing.node(key, index))
        return True

    def _graph_names(self, key: tuple) -> dict:
        """The names a graph defines before its nodes, each with what defines it (its inputs
        and initializers; one listed as both is one tensor, as IR < 4 writes them); a name
        given twice is reported."""
        graph = self.graph_protos[key]
        defined: dict = {}
        for what, fields in (("graph input", graph.input), ("initializer", graph.initializer)):
            for value in fields:
                name = value.name
                if defined.get(name) == what:
                    loc = self.listing.value(name) if not key else self.listing.node(key[:-1], key[-1][0])
                    self._report(
                        loc, lambda span, n=name, w=what: messages.onnx_duplicate_tensor(span, n, f"another {w}")
                    )
                defined.setdefault(name, what)
        return defined

    def _define(self, outputs: Any, defined: dict, key: tuple, index: int, ancestors: Sequence = ()) -> None:
        """Record a node's outputs as defined; one defined before (by an earlier node, a graph
        input or an initializer, of this graph or, for a subgraph's node, of an enclosing one)
        breaks ONNX's single assignment and is reported at the node (the import goes on, the
        later definition read after it)."""
        for name in outputs:
            if not name:
                continue
            first = defined.get(name)
            where, graph = "", key
            if first is None and ancestors:
                found = _enclosing_definition(name, ancestors)
                if found is not None:
                    first, graph = found
                    where = "the enclosing graph's "
            if first is not None:
                if first == index and not where:
                    first = "another output of the node"
                else:
                    first = (where or ("" if isinstance(first, int) else "the ")) + self._definer(first, graph)
                self._report(
                    self.listing.node(key, index),
                    lambda span, n=name, f=first, w=bool(where): messages.onnx_duplicate_tensor(span, n, f, w),
                )
            defined[name] = index

    def _import_node(self, index: int, record: Any, key: tuple) -> None:
        """Import one node through its converter (see `_import_nodes`)."""
        self.at = (key, index)
        if self.poisoned and not self.poisoned.isdisjoint(record.inputs):
            self.poisoned.update(record.outputs)  # already reported where the input failed
            return
        default_domain = record.domain in DEFAULT_DOMAINS
        node = Node(self, record, index, key)
        problem = schema_problem(record, self.opset) if default_domain else None
        if problem is not None:
            self._report(node.loc, problem)
            self.poisoned.update(record.outputs)
            return
        if default_domain and self._fold(node):
            return
        convert = _converters().get(record.op_type) if default_domain else None
        try:
            if convert is None:
                why = None if default_domain else self.unexpanded.get((record.domain, record.op_type))
                if why is not None:
                    raise Unsupported(
                        lambda span: messages.onnx_function_not_expanded(span, record.op_type, record.domain, why)
                    )
                raise Unsupported(
                    lambda span: messages.onnx_unsupported_operator(span, record.op_type, record.domain, self.opset)
                )
            result = convert(node)
            self._bind_outputs(node, result)
        except Unsupported as refused:
            self._report(node.loc, refused.make)
            self.poisoned.update(record.outputs)

    def _direct_form(self, op_type: str, inputs: int, outputs: int) -> Optional[Any]:
        """The direct form (convert.DIRECT) of a node with no attributes, given its operator and
        its counts of inputs and outputs, when its operator has one, the node has one output and
        the schema accepts the counts (which decide the schema check of a node with no
        attributes); else None. A `FixedForm` is decided here, once per kind of node: the
        operator's name."""
        from gradual.frontends.onnx.convert.registration import FixedForm

        if outputs != 1 or problem_of_counts(op_type, self.opset, inputs, outputs) is not None:
            return None  # a problem is reported by _import_node
        form = _direct_forms().get(op_type)
        return form.of(op_type, inputs) if isinstance(form, FixedForm) else form

    def node_proto(self, key: tuple, index: int) -> Any:
        """The NodeProto of node `index` of the graph at path `key` (the records do not keep it)."""
        return self.graph_protos[key].node[index]

    def _fold(self, node: Node) -> bool:
        """Evaluate a node of constant arithmetic now (see fold.py); True when it was."""
        values = self.values
        for name in node.inputs:
            if name and values.get(name) is None:
                return False  # an input that is not constant: the common case, decided before fold.py
        known = [values.get(name) for name in node.inputs if name]
        if not foldable(node.op_type, known):
            return False
        results = fold(
            node.proto,
            [values.get(name) if name else None for name in node.inputs],
            self.model.opset_import,
            node.attributes,
        )
        if results is None:
            return False
        for name, array in zip([n for n in node.outputs if n], results):
            self.record_constant(name, array, node.loc)
        return True

    def _bind_outputs(self, node: Node, result: Any) -> None:
        outputs = node.outputs
        if len(outputs) == 1 and outputs[0] and isinstance(result, ast.Node):  # the common case
            # a converter's node is an expression (isinstance with Node: the cheapest test)
            let = self.body.let(self.namer.name(outputs[0]), result, loc=node.loc)  # type: ignore[arg-type]
            self.scope.set(self.exprs, outputs[0], let)
            return
        if result is KNOWN:
            return
        if isinstance(result, Tuple):
            self._bind_tuple(node, result)
            return
        results = result if isinstance(result, list) else [result]
        for j, name in enumerate(node.outputs):
            if not name:
                continue
            if j >= len(results) or results[j] is None:
                node.fail_attribute(f"output {j}", name, "only its first output" if j else "its outputs")
            self._bind(name, results[j], node.loc)

    def _bind_tuple(self, node: Node, result: Tuple) -> None:
        wanted = [j for j, name in enumerate(node.outputs) if name and j < result.count]
        if not wanted:
            return
        holder = self.body.let(self.namer.name(node.outputs[wanted[0]] + "_all"), result.expr, loc=node.loc)
        for j in wanted:
            self._bind(node.outputs[j], gb.proj(holder, j, loc=node.loc), node.loc)

    def _bind(self, name: str, expr: Any, loc: Optional[gb.Loc]) -> None:
        """Bind an ONNX tensor: a variable is reused as it is (Identity), anything else is let."""
        if not isinstance(expr, gb.Var):
            expr = self.body.let(self.namer.name(name), expr, loc=loc)
        self.scope.set(self.exprs, name, expr)

    # tensors -----------------------------------------------------------------------------------
    def info(self, name: str) -> TensorInfo:
        """What the model (or ONNX's inference) says about a tensor. A converter asks in order to
        choose a lowering, so what only inference or the model's value_info says is asserted in
        the program before the node that relies on it (_assert_hearsay)."""
        found = self.infos.get(name)
        if found is None and not self.inferred:
            self._collect_infos()
            found = self.infos.get(name)
        if found is None:
            found = self._derived(name)
            if found is not None:
                self._assert_hearsay(name, found)
        elif name in self.hearsay:
            self._assert_hearsay(name, found)
        return found or _NO_INFO

    def known(self, name: str) -> TensorInfo:
        """What the import knows of a tensor without deriving it (a graph input, an initializer, a
        constant, what the model's value_info says once read, or what an earlier `info` derived),
        for a converter that has a lowering for any rank and only prefers another for a known
        one (MatMul: deriving an attention MatMul's inner ranks walked the model back to its
        inputs, for nothing): asserted in the program as `info` asserts it."""
        if name in self.infos:
            return self.info(name)
        producer = self._producer(name) if self.derived else None
        return self.info(name) if producer is not None and producer in self.derived else _NO_INFO

    def _assert_hearsay(self, name: str, info: TensorInfo) -> None:
        """Cast a tensor to the rank and dtype inference gave it, once per scope (a branch's
        assertion ends with the branch): a value_info that says rank 2 where the tensor has rank 3
        chose Softmax's last-axis form and computed other values than ONNX's flattening form.
        The checker proves the cast (no check), rejects it, or checks it where it cannot tell."""
        current = self.exprs.get(name)
        if current is None or current is self.assertions.get(name) or self.values.get(name) is not None:
            return
        current = _variable(current)
        if info.dims is None and info.dtype is None:
            return
        loc = self.listing.node(*self.at)
        claimed = gb.located(
            gb.Tensor(None if info.dims is None else [None] * len(info.dims), info.dtype or "?"), loc.span
        )
        cast = gb.cast(current, claimed, loc=loc, what=messages.onnx_inferred_claim(name))
        var = self.body.let(self.namer.name(name + "_as_inferred"), cast, loc=loc)
        self.assertions[name] = var
        self.scope.set(self.exprs, name, var)

    def expr_of(self, name: str, loc: gb.Loc) -> Any:
        """The variable holding a tensor; constants are materialized on first use."""
        var = self.exprs.get(name)  # None: unbound, or shadowed by a subgraph's constant
        if var is not None:
            return _variable(var)
        array = self.values.get(name)  # None: not a constant, or shadowed by a subgraph's input
        if array is not None:
            return self._materialize(name, array)
        raise Unsupported(lambda span: messages.onnx_undefined_tensor(span, name))

    def record_constant(self, name: str, array: np.ndarray, loc: gb.Loc) -> None:
        """An import-time constant (a Constant node's output, a folded value) made at `loc`;
        one a subgraph makes is the subgraph's (the scope undoes it as the subgraph ends: a
        branch's constant was its sibling's value, and the enclosing graph's, of that name)."""
        scope = self.scope
        scope.set(self.values, name, array)
        scope.set(self.value_locs, name, loc)
        dtype = numpy_dtype(array)
        scope.set(self.infos, name, TensorInfo(dtype or None, tuple(array.shape), _elem_type(array)))

    def _materialize(self, name: str, array: np.ndarray) -> Any:
        dtype = numpy_dtype(array)
        loc = self.value_locs.get(name) or self.listing.value(name)
        if not dtype:
            shown = array.dtype.name
            raise Unsupported(lambda span: messages.onnx_unsupported_dtype(span, name, shown))
        # a small constant written before (exporters repeat a dozen values thousands of times)
        # is found by its bytes before its values are looked at: equal bytes, equally inlinable
        same = (dtype, array.shape, array.tobytes()) if array.size <= INT_INLINE else None
        var = self.inlined.get(same) if same is not None else None
        if var is None and inlinable(array):
            same = (dtype, array.shape, array.tobytes())
            var = self.body.let(self.namer.name(name), inline_constant(array, dtype, loc), loc=loc)
            self.scope.set(self.inlined, same, var)  # a branch's ends with it
        elif var is None:
            param = self.namer.name(name)
            var = self.fn.param(param, gb.Tensor(list(array.shape), dtype), loc=loc)
            self.constants[param] = array
        self.scope.set(self.exprs, name, var)
        return var

    def _report(self, loc: gb.Loc, make: Any) -> None:
        diagnostic = make(loc.span)
        if diagnostic is not None:  # None: already reported where it went wrong
            self.diagnostics.append(diagnostic)

    def import_inline(self, graph: Any, key: tuple) -> list:
        """A subgraph's nodes imported where its node is (the taken branch of an If whose
        condition is a constant); its outputs' variables."""
        for init in graph.initializer:
            if self._hides_enclosing(init.name, key):
                continue
            problem = self._read_initializer(init)
            if problem is not None:
                raise Unsupported(_bad_initializer(init.name, problem))
        self.graph_protos[key] = graph
        self._import_nodes(graph.node, key)
        names = [o.name for o in graph.output]
        if any(name in self.poisoned for name in names):
            raise Unsupported(lambda span: None)
        return [self.expr_of(name, self.listing.outputs()) for name in names]

    def _hides_enclosing(self, name: str, key: tuple) -> bool:
        """Whether a subgraph's initializer has the name of a tensor an enclosing graph defined
        before the subgraph's node: reported (ONNX Runtime reads the initializer when it folds
        constants and the enclosing tensor when it does not, as ONNX's reference evaluator
        does), and the initializer is not read (the enclosing tensor is, as the reference
        reads it)."""
        found = _enclosing_definition(name, self.enclosing) if key and self.enclosing else None
        if found is None:
            return False
        first, graph = found
        definer = self._definer(first, graph)
        self._report(
            self.listing.node(key[:-1], key[-1][0]),
            lambda span, n=name, f=definer: messages.onnx_hiding_initializer(span, n, f),
        )
        return True

    def _definer(self, first: Any, graph: tuple) -> str:
        """What defines a tensor, as `_graph_names` and `_define` record it, named for a message:
        `node #3 (Add)` of the graph at path `graph`, or `graph input` / `initializer`."""
        return f"node #{first} ({self.graph_protos[graph].node[first].op_type})" if isinstance(first, int) else first

    def import_block(
        self,
        graph: Any,
        key: tuple,
        bound: Optional[Mapping[str, Any]] = None,
        result: Optional[Callable[[list], Any]] = None,
        loc: Optional[gb.Loc] = None,
    ) -> Any:
        """A subgraph (an If branch, a Loop's body) as a block of lets ending in its outputs (a
        tuple for several), or in what `result(outputs)` makes of them; it sees every tensor in
        scope where its node is, and `bound` (its own inputs: graph input name -> expression,
        bound at `loc`, the node's)."""
        saved, mark = self.body, self.scope.mark()
        self.body = gb.Block()
        try:
            for name, expr in (bound or {}).items():
                if self.values.get(name) is not None:  # an enclosing graph's constant: the input hides it here
                    self.scope.set(self.values, name, None)
                self._bind(name, expr, loc)
            outputs = self.import_inline(graph, key)
            if result is not None:
                return self.body.body(result(outputs))
            return self.body.body(outputs[0] if len(outputs) == 1 else gb.tuple_(*outputs))
        finally:
            self.body = saved
            self.scope.undo(mark)

    # the result ----------------------------------------------------------------------------------
    def _result(self) -> Any:
        outputs = list(self.graph.output)
        if any(o.name in self.poisoned for o in outputs):
            return None
        loc = self.listing.outputs()
        try:
            exprs = [self.expr_of(o.name, loc) for o in outputs]
        except Unsupported as problem:
            self._report(loc, problem.make)
            return None
        if len(exprs) == 1:
            return exprs[0]
        return gb.tuple_(*exprs, loc=loc)

    def _input_dim_names(self) -> list:
        """The symbols the graph inputs' dim_params name (`batch`, and `h2` of a `2*h2`, which
        is that expression, not a name of its own)."""
        found = (self.dim_names.dim(text, self.input_dims) for text in sorted(self.input_dims))
        return [d for d in found if isinstance(d, str)]

    def _declared_outputs(self) -> Optional[list]:
        """What each graph output's declaration says (see outputs.py); None when they are not
        checked (`batch` changes the inputs on purpose)."""
        if not self.options.declared_outputs or self.options.batch is not None:
            return None
        dims = set(self._input_dim_names())
        return [
            declared_outputs.declared(info_of_type(o.type, self.dim_names, self.input_dims), dims)
            for o in self.graph.output
        ]


def _bad_initializer(name: str, problem: str) -> Callable[[Span], Diagnostic]:
    """The diagnostic of an initializer that cannot be read, made at a span."""
    return lambda span: messages.onnx_bad_initializer(span, name, problem)


def _enclosing_definition(name: str, ancestors: Sequence) -> Optional[tuple]:
    """(what defines `name`, its graph's key) in the innermost enclosing graph that defines it
    before the node being imported there (whose own outputs its subgraphs do not define), or None."""
    for defined, at, key in reversed(ancestors):
        first = defined.get(name)
        if first is not None and first != at:
            return first, key
    return None


_NO_INFO = TensorInfo()
_UNREAD = object()
_CONVERTERS: Optional[dict] = None
_DIRECT: Optional[dict] = None


def _converters() -> dict:
    """The converters by ONNX operator type (imported once, on first use)."""
    global _CONVERTERS, _DIRECT
    if _CONVERTERS is None:
        from gradual.frontends.onnx.convert import CONVERTERS, DIRECT

        _CONVERTERS, _DIRECT = CONVERTERS, DIRECT
    return _CONVERTERS


def _direct_forms() -> dict:
    """The converters' direct forms by ONNX operator type (convert.DIRECT; imported with them)."""
    if _DIRECT is None:
        _converters()
    return _DIRECT  # type: ignore[return-value]


def _variable(entry: Any) -> Any:
    """The variable an entry of `Importer.exprs` holds: a direct node's output is held as the
    fields of its `gb.DataflowVar` (name, Dataflow, index), and most are never asked for."""
    return gb.DataflowVar(*entry) if entry.__class__ is tuple else entry


def _input_problem(vi: Any, info: TensorInfo) -> Optional[Any]:
    """Why a graph input cannot be a parameter (a diagnostic maker), or None."""
    name = vi.name
    if info_of_type(vi.type) is None:
        return lambda span: messages.onnx_unsupported_value(span, name, "not a tensor")
    if info.dtype is None:
        shown = onnx_dtype_name(info.elem_type)
        return lambda span: messages.onnx_unsupported_dtype(span, name, shown)
    return None


def _input_dim_params(graph: Any, batch: bool = False) -> set:
    """The dim_params of the graph inputs that are not initializers (with `batch`: but their
    first dims, which the batch name replaces: `claimed=["batch"]` named a dim the imported
    signature no longer had, an `unused-claim` when the printed program was checked again)."""
    initializers = {init.name for init in graph.initializer}
    found: set[str] = set()
    for vi in graph.input:
        if vi.name in initializers or not (vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape")):
            continue
        found.update(
            d.dim_param
            for i, d in enumerate(vi.type.tensor_type.shape.dim)
            if d.HasField("dim_param") and not (batch and i == 0)
        )
    return found


#: An AttributeProto's `type` (field 20, a varint) of GRAPH (5), as serialized. Only an
#: attribute's one graph (`g`) is a subgraph `_graphs` reads. The bytes of GRAPHS (10),
#: `a0 01 0a`, are also those of any message 160 bytes long whose first field is field 1 (a
#: node of that length: 303 of a 100,000-node encoder's nodes, each match a walk of every
#: node's attributes); `a0 01 05` is no tag and no varint's end, so outside weights and
#: strings it is only this field.
_GRAPH_ATTRIBUTE = b"\xa0\x01\x05"


def _may_hold_graphs(serialized: Optional[bytes]) -> bool:
    """Whether a model may have subgraphs: False only when its bytes hold no attribute typed
    GRAPH (a scan of the bytes: walking every node's attributes for them cost 0.16 s of a
    100,000-node import); the bytes may hold the pattern by chance (in weights), and a model
    given as a message is walked."""
    return serialized is None or _GRAPH_ATTRIBUTE in serialized


def _graphs(graph: Any) -> list:
    """A graph and its subgraphs, recursively."""
    found = [graph]
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                found.extend(_graphs(attr.g))
    return found


def _default_opset(model: Any) -> int:
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS:
            return int(entry.version)
    return 1


def _elem_type(array: np.ndarray) -> int:
    """The ONNX element type of an array's dtype (0 where ONNX has none)."""
    found = _ELEM_TYPES.get(array.dtype)
    if found is None:
        from onnx import helper

        try:
            found = int(helper.np_dtype_to_tensor_dtype(array.dtype))
        except (KeyError, ValueError, TypeError):
            found = 0
        _ELEM_TYPES[array.dtype] = found
    return found


#: NumPy dtype -> ONNX element type, as asked (the plain ones known without asking onnx)
_ELEM_TYPES: dict = {np.dtype(code): elem_type for elem_type, code in initializers.PLAIN.items()}
