"""Conformance of gradual's ONNX frontend against ONNX's own backend node tests.

    python bench/onnx_conformance.py                 # the node tests (regenerated once into the cache)
    python bench/onnx_conformance.py --symbolic      # + inputs' first dims made symbolic, vs onnx.shape_inference
    python bench/onnx_conformance.py --light         # + the nine light models with a symbolic batch N
    python bench/onnx_conformance.py --all           # all three
    python bench/onnx_conformance.py --only 'test_slice*' --verbose

The onnx wheel ships the generators of its backend node tests
(`onnx.backend.test.loader.load_node_model_tests()`); the first run writes them into
`bench/out/onnx_node_tests/` (model.onnx and test_data_set_*/input_*.pb, output_*.pb, as ONNX's
own test data is laid out) and later runs read them from there (`--regenerate` rewrites them).

A test is *in scope* when the frontend imports all of its operators (default domain, no
subgraphs) and every input and output is a tensor of a dtype gradual runs. For each one it
imports the model (not using the declared output types), checks it, compares the inferred
output types with the real output shapes, runs the elaborated program on the test's inputs
and compares the outputs (dtype, shape, values within the test's rtol/atol). A Python
exception anywhere is a *traceback* and should never happen: every failure must be a
diagnostic or a recorded mismatch.

Shape-determining inputs (Reshape's shape, Slice's starts, ...) are graph inputs in many of
these tests; their values are data, so a static checker cannot know the output shape. The
default run *freezes* them (`ImportOptions.freeze`: small integer inputs consumed at such a
position become constants, as a deployment with fixed shape arguments would have them);
`--no-freeze` keeps them as inputs and reports how many outputs stay `?`.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import io
import json
import shutil
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import onnx  # noqa: E402
from onnx import numpy_helper, shape_inference  # noqa: E402

from gradual.frontends import onnx as gonnx  # noqa: E402
from gradual.frontends.onnx.types import gradual_dtype  # noqa: E402
from gradual.runtime import CheckFailure, ProgramRejected, RunFailure  # noqa: E402
from gradual.types import FLOAT_DTYPES, TensorType, TupleType  # noqa: E402

CACHE = ROOT / "bench" / "out" / "onnx_node_tests"
REPORT = ROOT / "bench" / "out" / "onnx_conformance.json"

#: inputs whose values determine an output shape: op_type -> input positions
SHAPE_INPUTS = {
    "Reshape": (1,),
    "Expand": (1,),
    "Tile": (1,),
    "Slice": (1, 2, 3, 4),
    "Pad": (1, 3),
    "Split": (1,),
    "Squeeze": (1,),
    "Unsqueeze": (1,),
    "ConstantOfShape": (0,),
    "Range": (0, 1, 2),
    "TopK": (1,),
    "OneHot": (1,),
    "ReduceSum": (1,),
    "ReduceMean": (1,),
    "ReduceMax": (1,),
    "ReduceMin": (1,),
    "ReduceProd": (1,),
    "ReduceL1": (1,),
    "ReduceL2": (1,),
    "ReduceSumSquare": (1,),
    "ReduceLogSum": (1,),
    "ReduceLogSumExp": (1,),
    "Trilu": (1,),
    "CumSum": (1,),
    "CumProd": (1,),
    "Resize": (1, 2, 3),
    "Upsample": (1,),
    "HannWindow": (0,),
    "HammingWindow": (0,),
    "BlackmanWindow": (0,),
    "CenterCropPad": (1,),
    "DFT": (1, 2),
    "STFT": (1, 3),
    "Col2Im": (1, 2),
    "AffineGrid": (1,),
    "MaxUnpool": (2,),
}
FREEZE_LIMIT = 64
#: float types narrower than float16, whose results differ from the reference's by rounding
NARROW = frozenset(t for t in FLOAT_DTYPES if t not in ("float16", "float32", "float64"))


# the test cases -------------------------------------------------------------------------------------
@dataclass
class Case:
    """One node test: its model and its data sets (inputs, expected outputs)."""

    name: str
    model: Any
    data_sets: list
    rtol: float = 1e-3
    atol: float = 1e-7


def regenerate(cache: Path) -> None:
    """Write every node test into the cache in ONNX's test-data layout."""
    from onnx.backend.test.loader import load_node_model_tests

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        tests = load_node_model_tests()
    cache.mkdir(parents=True, exist_ok=True)
    for t in tests:
        folder = cache / t.name
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "test_data_set_0").mkdir(parents=True, exist_ok=True)
        onnx.save(t.model, str(folder / "model.onnx"))
        (folder / "tolerance.json").write_text(json.dumps({"rtol": t.rtol, "atol": t.atol}))
        for k, (inputs, outputs) in enumerate(t.data_sets):
            data = folder / f"test_data_set_{k}"
            data.mkdir(exist_ok=True)
            _write_tensors(data, "input", inputs, [i.name for i in t.model.graph.input])
            _write_tensors(data, "output", outputs, [o.name for o in t.model.graph.output])
    (cache / "COMPLETE").write_text(str(len(tests)))


def _write_tensors(folder: Path, kind: str, arrays: list, names: list) -> None:
    for i, array in enumerate(arrays):
        name = names[i] if i < len(names) else f"{kind}_{i}"
        if isinstance(array, onnx.TensorProto):
            (folder / f"{kind}_{i}.pb").write_bytes(array.SerializeToString())
            continue
        try:
            proto = numpy_helper.from_array(np.asarray(array), name)
            (folder / f"{kind}_{i}.pb").write_bytes(proto.SerializeToString())
        except Exception:  # noqa: BLE001 - sequences, optionals: kept as .npy objects
            np.save(folder / f"{kind}_{i}.npy", np.asarray(array, dtype=object), allow_pickle=True)


def load_cases(cache: Path, pattern: str) -> list:
    """The cached node tests whose names match the pattern."""
    cases = []
    for folder in sorted(p for p in cache.iterdir() if p.is_dir()):
        if not fnmatch.fnmatch(folder.name, pattern):
            continue
        model = onnx.load(str(folder / "model.onnx"))
        tol = json.loads((folder / "tolerance.json").read_text())
        sets = []
        for data in sorted(folder.glob("test_data_set_*")):
            sets.append((_read_tensors(data, "input"), _read_tensors(data, "output")))
        cases.append(Case(folder.name, model, sets, tol["rtol"], tol["atol"]))
    return cases


def _read_tensors(folder: Path, kind: str) -> list:
    files = sorted(folder.glob(f"{kind}_*"), key=lambda p: int(p.stem.split("_")[1]))
    out = []
    for f in files:
        if f.suffix == ".pb":
            t = onnx.TensorProto()
            t.ParseFromString(f.read_bytes())
            out.append(numpy_helper.to_array(t))
        else:
            out.append(np.load(f, allow_pickle=True))
    return out


# scope ---------------------------------------------------------------------------------------------------
def op_types(graph: Any) -> set:
    """Every op_type in a graph and its subgraphs."""
    found = set()
    for node in graph.node:
        found.add(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}")
        for a in node.attribute:
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                found |= op_types(sub)
    return found


def out_of_scope(case: Case) -> Optional[str]:
    """Why a test is out of scope (None: in scope)."""
    ops = op_types(case.model.graph)
    missing = sorted(ops - set(gonnx.supported_operators()))
    if missing:
        return "operator " + missing[0]
    graph = case.model.graph
    for vi in list(graph.input) + list(graph.output):
        if not vi.type.HasField("tensor_type"):
            return "non-tensor value"
        if gradual_dtype(vi.type.tensor_type.elem_type) is None:
            return "dtype " + onnx.TensorProto.DataType.Name(vi.type.tensor_type.elem_type)
    return None


def shape_determining(graph: Any) -> set:
    """Tensors whose values flow into a shape-determining input (Reshape's shape, Slice's
    starts, ...), through any nodes but Shape and Size (whose inputs give only their dims)."""
    marked: set = set()
    for node in graph.node:
        for i in SHAPE_INPUTS.get(node.op_type, ()):
            if i < len(node.input) and node.input[i]:
                marked.add(node.input[i])
    for node in reversed(graph.node):
        if node.op_type not in ("Shape", "Size") and any(o in marked for o in node.output):
            marked.update(consumed(node))
    return marked


def consumed(node: Any) -> set:
    """The tensors a node reads: its inputs and what its subgraphs take from outside them."""
    names = {name for name in node.input if name}
    for a in node.attribute:
        for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
            made = {o for n in sub.node for o in n.output} | {i.name for i in sub.initializer}
            names |= {name for n in sub.node for name in consumed(n)} - made
    return names


def freezable(case: Case) -> dict:
    """Graph inputs whose values determine output shapes, with the test's values."""
    graph = case.model.graph
    positions = shape_determining(graph)
    inits = {i.name for i in graph.initializer}
    free = [vi for vi in graph.input if vi.name not in inits]
    out = {}
    for vi, array in zip(free, case.data_sets[0][0]):
        a = np.asarray(array)
        numeric = a.dtype.kind in "iuf" or a.dtype.name in FLOAT_DTYPES
        if vi.name in positions and numeric and a.ndim <= 1 and a.size <= FREEZE_LIMIT:
            out[vi.name] = a
    return out


# one test ---------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What happened to one in-scope test."""

    name: str
    imported: bool = False
    clean: bool = False
    shapes_equal: bool = False
    consistent: bool = False
    matched: bool = False
    core: bool = False
    internal: bool = False
    peers: dict = field(default_factory=dict)
    traceback: Optional[str] = None
    problem: str = ""
    inferred: list = field(default_factory=list)
    actual: list = field(default_factory=list)


def output_types(result: Any) -> list:
    """The inferred result types of @main, one per graph output."""
    t = result.function_type("main").ret
    return list(t.fields) if isinstance(t, TupleType) else [t]


def shape_equal(t: Any, shape: tuple) -> bool:
    """Whether an inferred type has exactly this static shape."""
    if not isinstance(t, TensorType) or t.dims is None or len(t.dims) != len(shape):
        return False
    return all(d.is_static and d.get_length() == s for d, s in zip(t.dims, shape))


def shape_consistent(t: Any, shape: tuple) -> bool:
    """Whether an inferred type admits this shape (`?`, intervals and symbols admit sizes)."""
    if not isinstance(t, TensorType):
        return False
    if t.dims is None:
        return True
    if len(t.dims) != len(shape):
        return False
    return all(not d.is_static or d.get_length() == s for d, s in zip(t.dims, shape))


def values_match(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str:
    """ "" when the output matches, else why not."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if want.dtype.name in NARROW:  # two units in the last place of bfloat16 (rounding order differs)
        rtol = max(rtol, 2**-6)
    if want.dtype.kind in "fc" or want.dtype.name in FLOAT_DTYPES:  # ml_dtypes' float types are kind "V"
        ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = np.array_equal(got, want)
    return "" if ok else "values differ"


#: the core operators (those ONNX models use most)
CORE = frozenset(
    """Add Sub Mul Div Pow MatMul Gemm Relu Sigmoid Tanh Softmax LogSoftmax Concat Reshape Transpose
Squeeze Unsqueeze Flatten Gather Slice ReduceSum ReduceMean ReduceMax Conv MaxPool AveragePool GlobalAveragePool
BatchNormalization Cast Shape Expand Where Equal Less Greater Sqrt Exp Log Neg Abs Identity Range NonZero Pad Split
Tile Clip LayerNormalization Erf Constant ConstantOfShape""".split()
)


def run_case(case: Case, freeze: bool, peers: bool = False) -> Outcome:
    """Import, check, compare types, run and compare outputs (and run the peers on it)."""
    outcome = Outcome(case.name, core=op_types(case.model.graph) <= CORE)
    try:
        _run_case(case, freeze, outcome)
    except Exception:  # noqa: BLE001 - recorded: the count must be zero
        outcome.traceback = traceback.format_exc()
    if peers:
        outcome.peers = {name: run_peer(name, case) for name in PEERS}
    return outcome


PEERS = ("reference", "onnxruntime")


def run_peer(name: str, case: Case) -> bool:
    """Whether ONNX's ReferenceEvaluator (or onnxruntime) reproduces the test's outputs."""
    graph = case.model.graph
    inits = {i.name for i in graph.initializer}
    free = [vi.name for vi in graph.input if vi.name not in inits]
    try:
        if name == "reference":
            from onnx.reference import ReferenceEvaluator

            session: Any = ReferenceEvaluator(case.model)
            run = lambda feeds: session.run(None, feeds)  # noqa: E731
        else:
            import onnxruntime

            onnxruntime.set_default_logger_severity(3)
            ort = onnxruntime.InferenceSession(case.model.SerializeToString(), providers=["CPUExecutionProvider"])
            run = lambda feeds: ort.run(None, feeds)  # noqa: E731
        for inputs, outputs in case.data_sets:
            got = run(dict(zip(free, inputs)))
            if len(got) != len(outputs) or any(values_match(g, e, case.rtol, case.atol) for g, e in zip(got, outputs)):
                return False
        return True
    except Exception:  # noqa: BLE001 - a peer that fails a test simply does not pass it
        return False


def _run_case(case: Case, freeze: bool, outcome: Outcome) -> None:
    frozen = freezable(case) if freeze else {}
    options = gonnx.ImportOptions(declared_outputs=False, freeze=frozen)
    model = gonnx.import_model(case.model, options, path=case.name + ".onnx")
    if not model.ok:
        outcome.problem = "import: " + model.diagnostics[0].message
        return
    outcome.imported = True
    result = model.check()
    if not result.ok:
        outcome.problem = "check: " + result.errors[0].message
        return
    outcome.clean = True
    inferred = output_types(result)
    outcome.inferred = [str(t) for t in inferred]
    expected = case.data_sets[0][1]
    outcome.actual = [list(np.asarray(e).shape) for e in expected]
    outcome.shapes_equal = len(inferred) == len(expected) and all(
        shape_equal(t, np.asarray(e).shape) for t, e in zip(inferred, expected)
    )
    outcome.consistent = len(inferred) == len(expected) and all(
        shape_consistent(t, np.asarray(e).shape) for t, e in zip(inferred, expected)
    )
    outcome.matched = all(
        _run_set(case, model, result, frozen, inputs, outputs, outcome) for inputs, outputs in case.data_sets
    )


def _run_set(case: Case, model: Any, result: Any, frozen: dict, inputs: list, outputs: list, outcome: Outcome) -> bool:
    graph = case.model.graph
    inits = {i.name for i in graph.initializer}
    free = [vi.name for vi in graph.input if vi.name not in inits]
    feeds = {name: a for name, a in zip(free, inputs) if name not in frozen}
    try:
        got = model.run(feeds, result)
    except (CheckFailure, RunFailure, ProgramRejected) as failure:
        outcome.problem = "run: " + str(failure).splitlines()[0]
        outcome.internal = getattr(failure, "code", "") == "internal-error"
        return False
    if len(got) != len(outputs):
        outcome.problem = f"run: {len(got)} outputs for {len(outputs)}"
        return False
    for g, e in zip(got, outputs):
        why = values_match(g, e, case.rtol, case.atol)
        if why:
            outcome.problem = "output: " + why
            return False
    return True


# symbolic inputs vs onnx.shape_inference -----------------------------------------------------------------
def symbolic_model(model: Any) -> Any:
    """A copy whose graph inputs' first dims are dim_params (one name per distinct size) and
    whose outputs and value_info carry no shapes."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    inits = {i.name for i in m.graph.initializer}
    names: dict = {}
    for vi in m.graph.input:
        if vi.name in inits or not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            continue
        dims = vi.type.tensor_type.shape.dim
        if len(dims) and dims[0].HasField("dim_value"):
            size = dims[0].dim_value
            names.setdefault(size, "N" if not names else f"N{len(names)}")
            dims[0].dim_param = names[size]
    for vi in m.graph.output:
        if vi.type.HasField("tensor_type"):
            vi.type.tensor_type.ClearField("shape")
    del m.graph.value_info[:]
    return m


def _gradual_levels(t: Any) -> Optional[list]:
    """Per dim: 3 static, 2 symbolic, 1 bounded, 0 unknown (None: unknown rank)."""
    if not isinstance(t, TensorType) or t.dims is None:
        return None
    out = []
    for d in t.dims:
        if d.is_static:
            out.append(3)
        elif d.is_symbolic:
            out.append(2)
        elif d.is_interval and not d.is_unknown:
            out.append(1)
        else:
            out.append(0)
    return out


def _onnx_levels(vi: Any, input_params: set) -> Optional[list]:
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    out = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            out.append(3)
        elif d.HasField("dim_param") and d.dim_param in input_params:
            out.append(2)
        else:
            out.append(0)  # unk__N: a fresh name ONNX made up, or no information
    return out


def compare_levels(g: Optional[list], o: Optional[list]) -> str:
    """more / less / equal / mixed precision of gradual's type against ONNX's."""
    if g is None and o is None:
        return "equal"
    if g is None:
        return "less"
    if o is None:
        return "more"
    if len(g) != len(o):
        return "mixed"
    more = any(a > b for a, b in zip(g, o))
    less = any(a < b for a, b in zip(g, o))
    return "mixed" if more and less else "more" if more else "less" if less else "equal"


@dataclass
class SymbolicOutcome:
    """One test in symbolic mode."""

    name: str
    clean: bool = False
    matched: bool = False
    verdict: str = ""
    gradual: list = field(default_factory=list)
    onnx: list = field(default_factory=list)
    traceback: Optional[str] = None


def run_symbolic(case: Case, freeze: bool) -> SymbolicOutcome:
    """gradual's inferred output types vs ONNX's on the symbolic model."""
    outcome = SymbolicOutcome(case.name)
    try:
        model = symbolic_model(case.model)
        frozen = freezable(case) if freeze else {}
        params = {
            d.dim_param
            for vi in model.graph.input
            if vi.type.HasField("tensor_type")
            for d in vi.type.tensor_type.shape.dim
            if d.HasField("dim_param")
        }
        inferred = shape_inference.infer_shapes(_frozen_model(model, frozen), strict_mode=False)
        onnx_out = [_onnx_levels(vi, params) for vi in inferred.graph.output]
        outcome.onnx = [_onnx_text(vi) for vi in inferred.graph.output]
        imported = gonnx.import_model(
            model, gonnx.ImportOptions(declared_outputs=False, freeze=frozen), path=case.name + ".onnx"
        )
        result = imported.check()
        if not result.ok:
            outcome.verdict = "gradual error"
            return outcome
        outcome.clean = True
        types = output_types(result)
        outcome.gradual = [str(t) for t in types]
        verdicts = [compare_levels(_gradual_levels(t), o) for t, o in zip(types, onnx_out)]
        outcome.verdict = _combine(verdicts)
        probe = Outcome(case.name)
        outcome.matched = all(
            _run_set(case, imported, result, frozen, inputs, outputs, probe) for inputs, outputs in case.data_sets
        )
    except Exception:  # noqa: BLE001 - recorded
        outcome.traceback = traceback.format_exc()
    return outcome


def _frozen_model(model: Any, frozen: dict) -> Any:
    """The model with frozen inputs as initializers (what ONNX's inference sees of them)."""
    if not frozen:
        return model
    m = onnx.ModelProto()
    m.CopyFrom(model)
    keep = [vi for vi in m.graph.input if vi.name not in frozen]
    del m.graph.input[:]
    m.graph.input.extend(keep)
    for name, value in frozen.items():
        m.graph.initializer.append(numpy_helper.from_array(value, name))
    return m


def _onnx_text(vi: Any) -> str:
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return "*"
    return (
        "("
        + ", ".join(str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim)
        + ")"
    )


def _combine(verdicts: list) -> str:
    if all(v == "equal" for v in verdicts):
        return "equal"
    if all(v in ("equal", "more") for v in verdicts):
        return "more"
    if all(v in ("equal", "less") for v in verdicts):
        return "less"
    return "mixed"


# the light models -------------------------------------------------------------------------------------------
def light_models() -> list:
    """(name, path) of the light models shipped in the onnx wheel."""
    folder = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    return sorted((p.stem.replace("light_", ""), p) for p in folder.glob("*.onnx"))


def run_light() -> list:
    """Each light model with a symbolic batch N: as exported, and with batch_reshapes."""
    rows = []
    for name, path in light_models():
        row = {"model": name, "nodes": len(onnx.load(str(path)).graph.node)}
        for key, reshapes in (("as_exported", False), ("batch_reshapes", True)):
            start = time.perf_counter()
            imported = gonnx.import_model(str(path), gonnx.ImportOptions(batch="N", batch_reshapes=reshapes))
            result = imported.check()
            elapsed = time.perf_counter() - start
            if result.ok:
                row[key] = {"type": str(output_types(result)[0]), "seconds": round(elapsed, 2)}
            else:
                err = result.errors[0]
                row[key] = {"error": err.message, "at": err.span.text, "seconds": round(elapsed, 2)}
        rows.append(row)
    return rows


# reporting ------------------------------------------------------------------------------------------------
def main(argv: Optional[list] = None) -> int:
    """Run and print the tables (see the module docstring)."""
    args = _parse(argv)
    if args.regenerate or not (args.cache / "COMPLETE").exists():
        print(f"regenerating the node tests into {args.cache} ...", file=sys.stderr)
        regenerate(args.cache)
    report: dict = {}
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    if not args.light_only:
        cases = load_cases(args.cache, args.only)
        report["node"] = node_tests(cases, not args.no_freeze, args.verbose, args.peers)
        if args.symbolic or args.all:
            report["symbolic"] = symbolic_tests(cases, not args.no_freeze, args.verbose)
    if args.light or args.all or args.light_only:
        report["light"] = light_table()
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=1, default=str))
    print(f"\ndetails: {REPORT.relative_to(ROOT)}")
    return 0


def _parse(argv: Optional[list]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=CACHE)
    p.add_argument("--regenerate", action="store_true", help="rewrite the cached node tests")
    p.add_argument("--only", default="*", help="fnmatch pattern of test names")
    p.add_argument("--symbolic", action="store_true", help="also compare with onnx.shape_inference on symbolic inputs")
    p.add_argument("--light", action="store_true", help="also check the nine light models with a symbolic batch")
    p.add_argument("--light-only", action="store_true", help="only the light models")
    p.add_argument("--all", action="store_true", help="node tests, symbolic comparison and light models")
    p.add_argument("--no-freeze", action="store_true", help="keep shape-determining inputs as inputs")
    p.add_argument(
        "--peers", action="store_true", help="also run onnx's ReferenceEvaluator and onnxruntime on the in-scope tests"
    )
    p.add_argument("--verbose", "-v", action="store_true", help="list every in-scope failure")
    return p.parse_args(argv)


def node_tests(cases: list, freeze: bool, verbose: bool, peers: bool = False) -> dict:
    """The conformance table."""
    scope: dict = {}
    scope_cases: dict = {}
    outcomes = []
    start = time.perf_counter()
    for case in cases:
        reason = out_of_scope(case)
        if reason is not None:
            scope[reason] = scope.get(reason, 0) + 1
            scope_cases.setdefault(reason, []).append(case.name)
            continue
        outcomes.append(run_case(case, freeze, peers))
    elapsed = time.perf_counter() - start
    n = len(outcomes)
    counts = {
        "total": len(cases),
        "in_scope": n,
        "imported": sum(o.imported for o in outcomes),
        "checked_clean": sum(o.clean for o in outcomes),
        "shapes_equal": sum(o.shapes_equal for o in outcomes),
        "consistent": sum(o.consistent for o in outcomes),
        "outputs_match": sum(o.matched for o in outcomes),
        "core_in_scope": sum(o.core for o in outcomes),
        "core_match": sum(o.core and o.matched for o in outcomes),
        "tracebacks": sum(o.traceback is not None for o in outcomes),
        "internal_errors": sum(o.internal for o in outcomes),
        "frozen_inputs": freeze,
        "seconds": round(elapsed, 1),
    }
    if peers:
        for name in PEERS:
            counts[f"{name}_match"] = sum(o.peers.get(name, False) for o in outcomes)
            counts[f"{name}_core_match"] = sum(o.core and o.peers.get(name, False) for o in outcomes)
    _print_counts(counts)
    _print_scope(scope)
    failures = [o for o in outcomes if not o.matched or not o.shapes_equal or o.traceback]
    if verbose:
        for o in failures:
            detail = (o.traceback or "").strip().splitlines()[-1:] or [
                o.problem or f"inferred {o.inferred} real {o.actual}"
            ]
            print(f"  {o.name}: {detail[0]}")
    return {
        "counts": counts,
        "out_of_scope": scope,
        "out_of_scope_cases": scope_cases,
        "failures": [
            {"name": o.name, "problem": o.problem, "inferred": o.inferred, "actual": o.actual, "traceback": o.traceback}
            for o in failures
        ],
    }


def _print_counts(c: dict) -> None:
    n = max(c["in_scope"], 1)
    print("\n| ONNX node tests | count | % of in scope |")
    print("| --- | ---: | ---: |")
    for key, label in (
        ("total", "total"),
        ("in_scope", "in scope (all operators and dtypes supported)"),
        ("imported", "imported"),
        ("checked_clean", "checked clean"),
        ("shapes_equal", "inferred output shapes equal the real ones"),
        ("consistent", "inferred output types consistent with the real shapes"),
        ("outputs_match", "outputs match (dtype, shape, values)"),
        ("reference_match", "(peer) onnx.reference.ReferenceEvaluator matches"),
        ("onnxruntime_match", "(peer) onnxruntime matches"),
        ("tracebacks", "tracebacks"),
        ("internal_errors", "internal errors (a rule and its kernel disagree)"),
    ):
        if key not in c:
            continue
        pct = "" if key == "total" else f"{100 * c[key] / n:.1f}%"
        print(f"| {label} | {c[key]} | {pct} |")
    core = f"{c['core_match']} of {c['core_in_scope']} match"
    for name in PEERS:
        if f"{name}_core_match" in c:
            core += f"; {name} {c[f'{name}_core_match']}"
    print(f"\ntests using only the {len(CORE)} core operators: {core}")
    print(f"\n({c['seconds']} s; shape-determining inputs {'frozen' if c['frozen_inputs'] else 'kept as inputs'})")


def _print_scope(scope: dict) -> None:
    ops = {k: v for k, v in scope.items() if k.startswith("operator ")}
    other = {k: v for k, v in scope.items() if not k.startswith("operator ")}
    print(f"\nout of scope: {sum(scope.values())} tests; by first unsupported operator ({sum(ops.values())}):")
    print("  " + ", ".join(f"{k[9:]} {v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])))
    print("  other reasons: " + ", ".join(f"{k} {v}" for k, v in sorted(other.items(), key=lambda kv: -kv[1])))


def symbolic_tests(cases: list, freeze: bool, verbose: bool) -> dict:
    """The precision comparison on symbolic inputs."""
    outcomes = [run_symbolic(c, freeze) for c in cases if out_of_scope(c) is None]
    counts: dict = {
        "in_scope": len(outcomes),
        "gradual_clean": sum(o.clean for o in outcomes),
        "matched": sum(o.matched for o in outcomes),
        "tracebacks": sum(o.traceback is not None for o in outcomes),
    }
    for verdict in ("more", "equal", "less", "mixed", "gradual error"):
        counts[verdict] = sum(o.verdict == verdict for o in outcomes)
    print("\n| first input dims symbolic: gradual vs onnx.shape_inference | tests |")
    print("| --- | ---: |")
    for key, label in (
        ("in_scope", "in scope"),
        ("gradual_clean", "gradual checks clean"),
        ("matched", "... and runs on the test inputs with matching outputs"),
        ("more", "gradual more precise"),
        ("equal", "equally precise"),
        ("less", "gradual less precise"),
        ("mixed", "mixed (more on one dim, less on another)"),
        ("gradual error", "gradual reports an error"),
        ("tracebacks", "tracebacks"),
    ):
        print(f"| {label} | {counts[key]} |")
    interesting = [o for o in outcomes if o.verdict in ("more", "less", "mixed", "gradual error") or o.traceback]
    if verbose:
        for o in interesting:
            print(f"  {o.verdict:>13} {o.name}: gradual {o.gradual} onnx {o.onnx}")
    return {"counts": counts, "cases": [o.__dict__ for o in interesting]}


def light_table() -> list:
    """The light-model table."""
    rows = run_light()
    print("\n| model | nodes | batch N, as exported | s | batch N, batch_reshapes | s |")
    print("| --- | ---: | --- | ---: | --- | ---: |")
    for row in rows:
        cells = []
        for key in ("as_exported", "batch_reshapes"):
            r = row[key]
            text = f"`{r['type']}`" if "type" in r else f"error at `{r['at']}`: {r['error']}"
            cells.append(f"{text} | {r['seconds']}")
        print(f"| {row['model']} | {row['nodes']} | " + " | ".join(cells) + " |")
    return rows


if __name__ == "__main__":
    sys.exit(main())
