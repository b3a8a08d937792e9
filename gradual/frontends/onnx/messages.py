"""The words of the ONNX frontend: models it cannot read, the parts of a model it cannot
import, and how it lists a model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradual.diagnostics import Diagnostic, codes
from gradual.diagnostics.words import backticked, ordinal
from gradual.frontends.messages import RUNNABLE_DTYPES
from gradual.syntax.source import Span

if TYPE_CHECKING:
    pass


# of a model it cannot import. Appended by the frontend; nothing above uses it.
def onnx_unreadable(span: Span, detail: str) -> Diagnostic:
    """A file that is not an ONNX model."""
    return Diagnostic(
        codes.INPUT_ERROR,
        f"cannot read the file as an ONNX model: {detail}",
        span,
        label="this file",
        help="pass an ONNX model (a ModelProto in protobuf form, usually `.onnx`)",
    )


def onnx_unsupported_operator(span: Span, op_type: str, domain: str, opset: int) -> Diagnostic:
    """An ONNX operator the frontend does not import."""
    where = f"domain `{domain}`" if domain else f"opset {opset}"
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"the ONNX operator `{op_type}` ({where}) is not supported",
        span,
        label="this node",
        help="the supported operators are listed in gradual/frontends/onnx/__init__.py",
    )


def onnx_function_not_expanded(span: Span, name: str, domain: str, why: str) -> Diagnostic:
    """A call of a model-local function that ONNX's inliner cannot expand (frontends/onnx/functions.py)."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"the model-local function `{name}` (domain `{domain}`) cannot be expanded: {why}",
        span,
        label="this call",
        help="gradual imports a model-local function by expanding its body in place "
        "(ONNX's inliner): a function that calls itself, or calls nested more than 100 deep, stays a call",
    )


def onnx_sequence_unsupported(span: Span, op_type: str, what: str) -> Diagnostic:
    """A sequence operator gradual cannot import as tuples (convert/sequence.py)."""
    return Diagnostic(
        codes.UNKNOWN_OPERATOR,
        f"`{op_type}` is not supported here: {what}",
        span,
        label="this node",
        help="gradual imports a sequence as a tuple whose length is known where it is made "
        "(SplitToSequence by constant sizes of a static dim, SequenceConstruct, SequenceEmpty, "
        "SequenceInsert at a constant position)",
    )


def onnx_unsupported_attribute(span: Span, op_type: str, name: str, value: str, supported: str) -> Diagnostic:
    """An attribute value (or an output) the frontend does not import."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"`{op_type}` with {name}={value} is not supported",
        span,
        label="this node",
        help=f"gradual imports `{op_type}` with {supported}",
    )


def onnx_attribute_kind(span: Span, op_type: str, name: str, expected: str, found: str) -> Diagnostic:
    """An attribute whose kind is not the one the operator's schema gives."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"`{op_type}` needs attribute `{name}` of type {expected}, but it is of type {found}",
        span,
        label="this node",
        help=f"write `{name}` as an {expected} attribute, as ONNX's definition of `{op_type}` says",
    )


def onnx_attribute_missing(span: Span, op_type: str, name: str) -> Diagnostic:
    """A required attribute that the node does not have."""
    return Diagnostic(
        codes.MISSING_ATTRIBUTE,
        f"`{op_type}` needs attribute `{name}`, but the node has none",
        span,
        label="this node",
        help=f"give the node its `{name}` attribute",
    )


def onnx_node_arity(span: Span, op_type: str, role: str, count: int, least: int, most: int) -> Diagnostic:
    """A node with more or fewer inputs or outputs than its operator's schema allows."""
    allowed = str(least) if least == most else f"{least} to {most}" if most < 2**31 - 1 else f"at least {least}"
    noun = role[:-1] if allowed == "1" else role
    return Diagnostic(
        codes.WRONG_ARITY,
        f"`{op_type}` takes {allowed} {noun}, but the node lists {count}",
        span,
        label="this node",
        help=f"give the node the {role} ONNX's definition of `{op_type}` says",
    )


def onnx_bad_tensor_attribute(span: Span, op_type: str, name: str, problem: str) -> Diagnostic:
    """A TENSOR attribute whose data does not fit its declared dims or element type."""
    return Diagnostic(
        codes.BAD_ATTRIBUTE,
        f"attribute `{name}` of `{op_type}` cannot be read: {problem}",
        span,
        label="this node",
        help="re-export the model, or repair the tensor's dims or data",
    )


def onnx_unsupported_dtype(span: Span, tensor: str, dtype: str) -> Diagnostic:
    """A tensor whose element type gradual cannot run."""
    return Diagnostic(
        codes.UNKNOWN_DTYPE,
        f"tensor `{tensor}` has element type {dtype}, which gradual does not support",
        span,
        label="here",
        help=RUNNABLE_DTYPES + " (and ONNX's 8-, 4- and 2-bit types)",
    )


def onnx_bad_initializer(span: Span, tensor: str, problem: str) -> Diagnostic:
    """An initializer whose data does not fit its declared dims or element type."""
    return Diagnostic(
        codes.BAD_INITIALIZER,
        f"initializer `{tensor}` cannot be read: {problem}",
        span,
        label="this initializer",
        help="re-export the model, or repair the initializer's dims or data",
    )


def onnx_unsupported_value(span: Span, tensor: str, kind: str) -> Diagnostic:
    """A graph value that is not a tensor (a sequence, a map, an optional)."""
    return Diagnostic(
        codes.TYPE_MISMATCH,
        f"`{tensor}` is {kind}, but gradual imports only tensors",
        span,
        label="here",
        help="only graphs whose inputs, outputs and values are tensors can be checked",
    )


def onnx_needs_constant(span: Span, op_type: str, index: int, tensor: str, role: str) -> Diagnostic:
    """An input the frontend needs as a constant (it becomes an attribute)."""
    return Diagnostic(
        codes.OP_CONSTRAINT,
        f"`{op_type}` needs its {ordinal(index + 1)} input `{tensor}` ({role}) to be a constant",
        span,
        label="this node",
        help="make it an initializer or the output of a Constant node",
    )


def onnx_undefined_tensor(span: Span, tensor: str) -> Diagnostic:
    """A node input that nothing produces."""
    return Diagnostic(
        codes.UNKNOWN_VARIABLE,
        f"`{tensor}` is used here, but no graph input, initializer or earlier node produces it",
        span,
        label="this node",
        help="the graph's nodes must be in topological order",
    )


def onnx_duplicate_tensor(span: Span, tensor: str, other: str, nested: bool = False) -> Diagnostic:
    """A tensor name a graph defines twice (ONNX graphs are in single static assignment), or
    a subgraph's node defines again (`nested`: an enclosing graph defined it first)."""
    rule = (
        "an ONNX subgraph reads the tensors of the graphs around it but does not define them again"
        if nested
        else "an ONNX graph defines each tensor once"
    )
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"`{tensor}` is defined here, but {other} defines it too: {rule}",
        span,
        label="this defines it again",
        help="rename one of the two (ONNX Runtime and onnx.checker reject the model as it is)",
    )


def onnx_hiding_initializer(span: Span, tensor: str, other: str) -> Diagnostic:
    """A subgraph's initializer named as a tensor of an enclosing graph (importer._hides_enclosing)."""
    return Diagnostic(
        codes.DUPLICATE_DEFINITION,
        f"a subgraph of this node has an initializer `{tensor}`, but the enclosing graph's {other} defines "
        f"`{tensor}` too: ONNX Runtime reads the initializer where it folds constants and the enclosing "
        f"tensor where it does not",
        span,
        label="its subgraph defines it again",
        help="rename the initializer (gradual reads the enclosing tensor, as ONNX's reference evaluator does)",
    )


def onnx_inferred_claim(tensor: str) -> str:
    """How a cast asserting what ONNX's shape inference (or the model's value_info) says about
    a tensor names it."""
    return f"tensor {backticked(tensor)} (typed by ONNX's shape inference or the model's value_info)"


def onnx_node_header(name: str, index: int, op_type: str, where: str = "") -> str:
    """A node's name as diagnostics show it: `node Conv_3 (Conv)`, `node #4 (Add) in then_branch of If_1`."""
    who = name if name else f"#{index}"
    return f"node {who} ({op_type})" + (f" in {where}" if where else "")


def onnx_node_text(header: str, inputs: list, outputs: list) -> str:
    """A node as diagnostics show it: `node Conv_3 (Conv): X, W -> Y`."""
    return f"{header}: {', '.join(inputs) or '()'} -> {', '.join(outputs) or '()'}"


def onnx_input_text(name: str, described: str) -> str:
    """A graph input as diagnostics show it."""
    return f"graph input {name}: {described}"


def onnx_constant_text(name: str, described: str) -> str:
    """An initializer (or a frozen input) as diagnostics show it."""
    return f"initializer {name}: {described}"


def onnx_output_text(names: list) -> str:
    """The graph's outputs as diagnostics show them (declared types are checked there)."""
    return f"graph outputs: {', '.join(names)}"


def onnx_unreadable_tensor(path: str, problem: str) -> str:
    """A `.pb` input that is not a TensorProto."""
    return f"cannot read {path} as an ONNX TensorProto: {problem}"


def onnx_import_header(path: str, opset: int, nodes: int) -> str:
    """The first comment line of `gradual import`."""
    return f"imported from {path} (ONNX opset {opset}, {nodes} node{'s' if nodes != 1 else ''}) by gradual"


def onnx_constants_header(params: list) -> str:
    """Which parameters of an imported program hold the model's initializers."""
    shown = ", ".join(f"%{p}" for p in params[:8]) + (f" and {len(params) - 8} more" if len(params) > 8 else "")
    return f"initializers passed as parameters: {shown}"


def onnx_renamed_dims_header(renamed: dict) -> str:
    """Which dim_params are spelled otherwise in the imported program."""
    pairs = [f"`{text}` is {name}" for text, name in list(renamed.items())[:8]]
    more = f" and {len(renamed) - 8} more" if len(renamed) > 8 else ""
    return "dim_params renamed: " + ", ".join(pairs) + more
