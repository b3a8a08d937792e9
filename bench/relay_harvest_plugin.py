"""A pytest plugin, loaded into TVM's own Relay tests, that records what Relay's type inference
says about every module it is asked to check.

Loaded by `bench/relay_harvest.py` (`pytest -p relay_harvest_plugin`) under a Python that has a
TVM build with Relay. Each call of the `InferType` pass from Python appends one JSON line to
the file named by `RELAY_HARVEST_OUT`:

    {"test": "tests/python/relay/test_op_level1.py::test_unary_op", "text": <module text before
     inference>, "types": {"main": "fn (...) -> ..."}}         (Relay accepted)
    {"test": ..., "text": ..., "error": "<first line of Relay's diagnostic>"}   (Relay rejected)

Running a module through `create_executor` is replaced by type inference and outputs of zeros
(numeric comparisons are disabled), so a test goes on to its next module; `relay.build` and
`vm.compile` type-check and stop the test (`HarvestSkip`). What the tests would compile is
recorded without compiling it, which keeps a harvest of thousands of modules to minutes.
"""

import json
import os
import re

import numpy as np
import tvm
import tvm.testing
from tvm import relay
from tvm.ir import transform as ir_transform

_OUT = os.environ.get("RELAY_HARVEST_OUT", "relay_harvest.jsonl")
_original_call = ir_transform.Pass.__call__
_MAX_TEXT = 200_000


class HarvestSkip(Exception):
    """Raised where a test would compile or run a module: the harvest only type-checks."""


def _current_test():
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    return current.rsplit(" (", 1)[0]


def _write(record):
    with open(_OUT, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def dim_text(dim):
    """A shape dim as Relay's text format writes it (`?` for Any, names for variables)."""
    if isinstance(dim, tvm.tir.IntImm):
        return str(dim.value)
    if isinstance(dim, tvm.tir.Any):
        return "?"
    if isinstance(dim, tvm.tir.Var):
        return dim.name
    for node, symbol in _DIM_OPERATORS:
        if isinstance(dim, node):
            return f"({dim_text(dim.a)} {symbol} {dim_text(dim.b)})"
    return "?"


_DIM_OPERATORS = (
    (tvm.tir.Add, "+"),
    (tvm.tir.Sub, "-"),
    (tvm.tir.Mul, "*"),
    (tvm.tir.FloorDiv, "//"),
)


def type_text(ty):
    """A Relay type in the text format (`str` of a type prints TVMScript in this build)."""
    if isinstance(ty, relay.TensorType):
        dims = ", ".join(dim_text(d) for d in ty.shape)
        comma = "," if len(ty.shape) == 1 else ""
        return f"Tensor[({dims}{comma}), {ty.dtype}]"
    if isinstance(ty, relay.TupleType):
        fields = [type_text(f) for f in ty.fields]
        return "(" + ", ".join(fields) + ("," if len(fields) == 1 else "") + ")"
    if isinstance(ty, relay.FuncType):
        params = ", ".join(type_text(p) for p in ty.arg_types)
        return f"fn ({params}) -> {type_text(ty.ret_type)}"
    if isinstance(ty, relay.RefType):
        return f"ref({type_text(ty.value)})"
    if isinstance(ty, relay.TypeVar):
        return ty.name_hint
    if isinstance(ty, relay.TypeCall):  # an algebraic data type applied: `List[A]`, `nat[]`
        args = ", ".join(type_text(a) for a in ty.args)
        return f"{type_text(ty.func)}[{args}]"
    if isinstance(ty, relay.GlobalTypeVar):
        return ty.name_hint
    return "?"


def _function_types(mod):
    types = {}
    for var, func in mod.functions.items():
        if isinstance(func, relay.Function):
            types[var.name_hint] = type_text(func.checked_type)
    return types


_META = re.compile(r"meta\[(tir\.[A-Za-z]+)\]\[([0-9]+)\]")
# arange's start, stop and step attributes repeat its three arguments; this build prints them
# as metadata (the prelude's tensor arrays call arange): they are left out
_ARANGE_META = re.compile(r", (?:start|stop|step)=meta\[relay\.[A-Za-z]+\]\[[0-9]+\]")
_OMITTED = re.compile(r"/\* For debugging purposes the metadata section has been omitted.*?\*/", re.S)


def module_text(mod):
    """The module as Relay prints it, with shape variables by name instead of as metadata.

    The text is printed without the metadata section: Relay then writes every call's
    attributes inline (`scatter_nd(%d, %i, %u, mode="add")`), where with it the attributes of
    an operator registered without an attribute type (scatter_nd, cumsum, trilu, stft, unique)
    become `meta[relay.attrs.ScatterNDAttrs][0]`, which has no text form. The shape variables
    are read from the metadata section of a second printing (each type's entries are numbered
    in the same order: attributes are not among them, unless they hold shape variables, when
    the attributes are left as metadata)."""
    text = mod.astext(show_meta_data=False)
    if "meta[tir." in text:
        full, _, metadata = mod.astext(show_meta_data=True).partition("#[metadata]")
        if "meta[relay.attrs." in full:
            text = full
        table = tvm.ir.load_json(metadata.strip())
        text = _META.sub(lambda m: dim_text(table[m.group(1)][int(m.group(2))]), text)
    text = _ARANGE_META.sub("", text)
    return _OMITTED.sub("", text).rstrip() + "\n"


def _first_error_line(error):
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() or "check failed" in line.lower():
            return line[:500]
    return (lines[-1] if lines else type(error).__name__)[:500]


def _recording_call(self, mod):
    if self.info.name != "InferType" or not isinstance(mod, tvm.IRModule):
        return _original_call(self, mod)
    try:
        text = module_text(mod)
    except Exception:  # noqa: BLE001 - a module Relay cannot print is not a corpus entry
        return _original_call(self, mod)
    record = {"test": _current_test(), "text": text[:_MAX_TEXT]}
    try:
        result = _original_call(self, mod)
    except Exception as error:
        record["error"] = _first_error_line(error)
        _write(record)
        raise
    try:
        record["types"] = _function_types(result)
    except Exception as error:  # noqa: BLE001 - an unprintable type: keep the module, say so
        record["types_error"] = _first_error_line(error)
    _write(record)
    return result


_original_infer_local = relay.transform.InferTypeLocal


def _infer_type_local(expr):
    """`InferTypeLocal` infers one expression: record it as the module it would make."""
    try:
        _recording_call(relay.transform.InferType(), tvm.IRModule.from_expr(expr))
    except Exception:  # noqa: BLE001 - recorded; the original call reports it to the test
        pass
    return _original_infer_local(expr)


def _as_module(mod_or_func):
    if isinstance(mod_or_func, tvm.IRModule):
        return mod_or_func
    return tvm.IRModule.from_expr(mod_or_func)


def _infer(mod_or_func):
    return relay.transform.InferType()(_as_module(mod_or_func))


def _infer_then_skip(mod_or_func):
    _infer(mod_or_func)
    raise HarvestSkip("the harvest type-checks, it does not compile")


class _FakeTensor:
    """Stands for an executor's output: zeros of the inferred shape (`?` as 1)."""

    def __init__(self, tensor_type):
        dims = [int(d) if isinstance(d, tvm.tir.IntImm) else 1 for d in tensor_type.shape]
        self.value = np.zeros(dims, dtype=tensor_type.dtype if tensor_type.dtype != "bool" else "bool")
        self.shape = self.value.shape
        self.dtype = str(self.value.dtype)

    def numpy(self):
        return self.value

    asnumpy = numpy


def _fake_value(value_type):
    if isinstance(value_type, relay.TensorType):
        return _FakeTensor(value_type)
    if isinstance(value_type, relay.TupleType):
        return [_fake_value(field) for field in value_type.fields]
    raise HarvestSkip("the harvest fakes only tensor and tuple results")


class _InferringExecutor:
    """Stands for an executor: evaluating type-checks the module; running gives zeros."""

    def __init__(self, mod):
        self.mod = mod if mod is not None else tvm.IRModule()

    def evaluate(self, expr=None, binds=None):
        if expr is None:
            mod = self.mod
        elif isinstance(expr, relay.GlobalVar) or not self.mod.functions:
            mod = self.mod if isinstance(expr, relay.GlobalVar) else tvm.IRModule.from_expr(expr)
        else:  # an expression over the module's definitions and types (the prelude's), as Relay's executors take it
            mod = tvm.IRModule.from_expr(expr, self.mod.functions, self.mod.type_definitions)
        inferred = _infer(mod)
        func_type = inferred["main"].checked_type
        return lambda *args, **kwargs: _fake_value(func_type.ret_type)


def _create_executor(kind="debug", mod=None, device=None, target="llvm", params=None):
    return _InferringExecutor(mod)


def _build(ir_mod, *args, **kwargs):
    _infer_then_skip(ir_mod)


def _no_check(*args, **kwargs):
    return None


def _no_features(*args, **kwargs):
    return False


_original_unmatched = relay.analysis.unmatched_cases


def _unmatched_cases(match, mod=None):
    """`unmatched_cases` asks about one match: record the module a function of it would make
    (its free variables as parameters, over the module's types), with Relay's verdict on it (a
    complete match that misses cases is an error of type inference)."""
    try:
        scope = mod if mod is not None else tvm.IRModule()
        function = relay.Function(relay.analysis.free_vars(match), match)
        whole = tvm.IRModule.from_expr(function, scope.functions, scope.type_definitions)
        _recording_call(relay.transform.InferType(), whole)
    except Exception:  # noqa: BLE001 - recorded (or not printable); the original call answers the test
        pass
    return _original_unmatched(match, mod)


def install():
    """Patch the pass call and the compilation entry points (idempotent)."""
    # A cross-compiling build (hhb-tvm targets riscv64) cannot answer CPU feature queries
    # for x86 tests; those tests only compile, so they are skipped as unsupported.
    tvm.target.codegen.target_has_features = _no_features
    # Outputs are faked, so numeric comparisons pass vacuously and the test goes on to its
    # next module.
    for name in ("assert_allclose", "assert_equal", "assert_array_equal", "assert_almost_equal"):
        setattr(np.testing, name, _no_check)
    tvm.testing.assert_allclose = _no_check
    ir_transform.Pass.__call__ = _recording_call
    relay.transform.InferTypeLocal = _infer_type_local
    relay.analysis.unmatched_cases = _unmatched_cases
    relay.transform.transform.InferTypeLocal = _infer_type_local
    relay.create_executor = _create_executor
    relay.build_module.create_executor = _create_executor
    relay.build = _build
    relay.build_module.build = _build
    relay.vm.compile = _build
    relay.backend.vm.compile = _build


install()
