"""Benchmarks: how fast gradual checks model-sized programs, and how that grows.

    python bench/bench.py                 # the default table (1k .. 200k ops)
    python bench/bench.py --sizes 1000 10000 --kinds chain
    python bench/bench.py --onnx          # also time onnx.shape_inference on the same chain

Programs are generated: a *chain* cycles through add, multiply, nn.relu, nn.dense,
concatenate + nn.dense, and reshape there and back, over `(n, 64)` shapes; a *dag* feeds every
operator two earlier values picked at random. Variants: `symbolic` (batch `n`), `unknown`
(`?` dims that force runtime checks) and `static` (all dims known).

Two paths are measured, each in a fresh process so peak memory (RSS) is its own:
* text: `gradual check FILE` as a user runs it, whole process (startup, parse, check);
* library: the program built in memory with `gradual.builder`, then checked and elaborated
  (the operator library is loaded before timing: a frontend loads it once).

Each configuration is measured `--repeat` times (3) in fresh processes and the best kept.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
OPS_PER_CYCLE = 8


# program generation ---------------------------------------------------------------------------
def _params(variant: str) -> tuple[str, str]:
    batch = {"symbolic": "n", "unknown": "?", "static": "8"}[variant]
    second = "?" if variant == "unknown" else "64"
    return (
        f"%x: Tensor[({batch}, {second}), float32], %w: Tensor[(64, 64), float32], %w2: Tensor[(64, 128), float32]"
    ), batch


def _chain_ops(i: int, prev: str) -> list[str]:
    """One step of the chain; returns the lines (a step may take two operators)."""
    kind = i % 6
    if kind == 0:
        return [f"add(%{prev}, %x)"]
    if kind == 1:
        return [f"multiply(%{prev}, %x)"]
    if kind == 2:
        return [f"nn.relu(%{prev})"]
    if kind == 3:
        return [f"nn.dense(%{prev}, %w)"]
    if kind == 4:
        return [f"concatenate((%{prev}, %{prev}), axis=1)", "nn.dense(%{last}, %w2)"]
    return ["reshape(%{prev}, newshape=[-1, 32])".replace("{prev}", prev), "reshape(%{last}, newshape=[-1, 64])"]


def chain_program(ops: int, variant: str) -> str:
    """A chain of `ops` operators."""
    params, _ = _params(variant)
    lines = [f"def @main({params}) {{", "  %v0 = nn.relu(%x);"]
    count, step, prev = 1, 0, "v0"
    while count < ops:
        for template in _chain_ops(step, prev):
            name = f"v{count}"
            lines.append(f"  %{name} = " + template.replace("{last}", prev).replace("%{prev}", f"%{prev}") + ";")
            prev = name
            count += 1
            if count >= ops:
                break
        step += 1
    lines.append(f"  %{prev}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dag_program(ops: int, variant: str, seed: int = 0) -> str:
    """A wide DAG: each operator combines two earlier values (shapes stay (batch, 64))."""
    rng = random.Random(seed)
    params, _ = _params(variant)
    lines = [f"def @main({params}) {{", "  %v0 = nn.relu(%x);"]
    for i in range(1, ops):
        a = f"v{rng.randrange(max(0, i - 64), i)}"
        b = f"v{rng.randrange(max(0, i - 64), i)}"
        op = rng.choice(
            ["add(%{a}, %{b})", "multiply(%{a}, %{b})", "nn.relu(%{a})", "nn.dense(%{a}, %w)", "subtract(%{a}, %x)"]
        )
        lines.append(f"  %v{i} = " + op.replace("{a}", a).replace("{b}", b) + ";")
    lines.append(f"  %v{ops - 1}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def program(kind: str, ops: int, variant: str) -> str:
    """The generated program text."""
    return chain_program(ops, variant) if kind == "chain" else dag_program(ops, variant)


# building in memory (the library path) ------------------------------------------------------
def build_module(text: str):
    """The same program built with gradual.builder (no text is parsed: each line is read
    back into builder calls here, outside the timed region)."""
    from gradual import builder as gb

    steps = _decode(text)
    main = gb.Function("main")
    header = text.split("\n", 1)[0]
    names = {}
    for name, dims in _decode_params(header):
        names[name] = main.param(name, gb.Tensor(dims, "float32"))
    last = None
    for target, op, args, attrs in steps:
        values = [gb.tuple_(*(names[a] for a in arg)) if isinstance(arg, tuple) else names[arg] for arg in args]
        last = names[target] = main.let(target, gb.call(op, *values, **attrs))
    return gb.module(main.returns(last))


def _decode_params(header: str) -> list:
    inside = header[header.index("(") + 1 : header.rindex(")")]
    out = []
    for part in inside.split("%")[1:]:
        name, rest = part.split(":", 1)
        dims = rest[rest.index("(") + 1 : rest.index(")")].split(",")
        out.append(
            (
                name.strip(),
                tuple(None if d.strip() == "?" else (d.strip() if not d.strip().isdigit() else int(d)) for d in dims),
            )
        )
    return out


def _decode(text: str) -> list:
    steps = []
    for line in text.splitlines()[1:]:
        line = line.strip()
        if not line.startswith("%v") or "=" not in line:
            continue
        target, call = line.rstrip(";").split(" = ", 1)
        op, inner = call.split("(", 1)
        inner = inner[: inner.rindex(")")]
        attrs = {}
        if "axis=" in inner:
            inner, value = inner.rsplit(", axis=", 1)
            attrs["axis"] = int(value)
        if "newshape=" in inner:
            inner, value = inner.rsplit(", newshape=", 1)
            attrs["newshape"] = [int(v) for v in value.strip("[]").split(",")]
        if inner.startswith("("):
            args = [tuple(a.strip().lstrip("%") for a in inner.strip("()").split(","))]
        else:
            args = [a.strip().lstrip("%") for a in inner.split(",")]
        steps.append((target.lstrip("%"), op, args, attrs))
    return steps


# measuring ----------------------------------------------------------------------------------
def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure_library(kind: str, ops: int, variant: str) -> dict:
    """Runs in a child process: build, check, elaborate; times and peak memory."""
    import gradual
    from gradual.ops.registry import default_registry

    default_registry()  # the operator library loads once per process (the text path pays it)
    text = program(kind, ops, variant)
    t0 = time.perf_counter()
    module = build_module(text)
    t1 = time.perf_counter()
    result = gradual.check(module)
    t2 = time.perf_counter()
    gradual.elaborate(result)
    t3 = time.perf_counter()
    assert result.ok, [d.message for d in result.diagnostics[:3]]
    return {
        "build": t1 - t0,
        "check": t2 - t1,
        "elaborate": t3 - t2,
        "checks": result.check_count,
        "rss_mb": _peak_rss_mb(),
    }


def measure_parse(kind: str, ops: int, variant: str) -> dict:
    """Runs in a child process: parse the text alone (the parser's own speed)."""
    import gradual

    text = program(kind, ops, variant)
    t0 = time.perf_counter()
    gradual.parse(text)
    return {"parse": time.perf_counter() - t0, "lines": text.count("\n")}


def measure_text(kind: str, ops: int, variant: str, workdir: Path) -> dict:
    """`gradual check FILE` as a whole process."""
    path = workdir / f"{kind}_{variant}_{ops}.rly"
    path.write_text(program(kind, ops, variant))
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from gradual.cli import main; sys.exit(main())",
            "check",
            "--quiet",
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return {"total": elapsed, "lines": path.read_text().count("\n")}


def _child(fn: str, *args: object) -> dict:
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'bench')!r}); "
        f"import bench; print(json.dumps(bench.{fn}(*{args!r})))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def onnx_chain_seconds(ops: int) -> float | None:
    """onnx.shape_inference.infer_shapes on an equivalent chain (None without onnx)."""
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError:
        return None
    nodes, prev = [], "x"
    inits = [helper.make_tensor("w", TensorProto.FLOAT, [64, 64], [0.0] * 4096)]
    kinds = ["Add", "Mul", "Relu", "MatMul"]
    for i in range(ops):
        kind = kinds[i % 4]
        out = f"v{i}"
        inputs = {"Add": [prev, "x"], "Mul": [prev, "x"], "Relu": [prev], "MatMul": [prev, "w"]}[kind]
        nodes.append(helper.make_node(kind, inputs, [out]))
        prev = out
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    t0 = time.perf_counter()
    onnx.shape_inference.infer_shapes(model)
    return time.perf_counter() - t0


def _best(repeat: int, measure: Callable[[], dict]) -> dict:
    """The fastest of `repeat` measurements, field by field (this machine's timings vary by
    up to 1.5x from run to run; the minimum is the least disturbed one)."""
    runs = [measure() for _ in range(repeat)]
    return {k: (min(r[k] for r in runs) if isinstance(runs[0][k], float) else runs[0][k]) for k in runs[0]}


def run_table(
    sizes: list[int], kinds: list[str], variants: list[str], with_text: bool, with_onnx: bool, repeat: int = 3
) -> None:
    """Measure every configuration (best of `repeat`) and print the table."""
    header = f"{'program':<22}{'ops':>8}{'parse s':>9}{'check s':>9}{'elab s':>8}{'lib ops/s':>11}{'RSS MB':>8}{'text s':>8}{'lines/s':>9}{'checks':>8}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            for variant in variants:
                for ops in sizes:
                    lib = _best(repeat, lambda k=kind, n=ops, v=variant: _child("measure_library", k, n, v))
                    parse = _best(repeat, lambda k=kind, n=ops, v=variant: _child("measure_parse", k, n, v))
                    measure = lambda k=kind, n=ops, v=variant: measure_text(k, n, v, Path(tmp))  # noqa: E731
                    text = _best(repeat, measure) if with_text else None
                    check = lib["check"]
                    row = (
                        f"{kind + '/' + variant:<22}{ops:>8}{parse['parse']:>9.2f}{check:>9.2f}{lib['elaborate']:>8.2f}"
                        f"{ops / check:>11.0f}{lib['rss_mb']:>8.0f}"
                    )
                    if text is not None:
                        row += f"{text['total']:>8.2f}{text['lines'] / text['total']:>9.0f}"
                    else:
                        row += f"{'':>8}{'':>9}"
                    print(row + f"{lib['checks']:>8}", flush=True)
    if with_onnx:
        print()
        for ops in sizes:
            timings = [onnx_chain_seconds(ops) for _ in range(repeat)]
            seconds = None if timings[0] is None else min(timings)  # type: ignore[type-var]
            if seconds is None:
                print("onnx is not installed: no comparison")
                break
            lib = _best(repeat, lambda n=ops: _child("measure_library", "chain", n, "symbolic"))
            print(
                f"onnx infer_shapes, chain of {ops}: {seconds:.2f} s ({ops / seconds:.0f} nodes/s); "
                f"gradual check: {lib['check']:.2f} s ({ops / lib['check']:.0f} ops/s); ratio {seconds / lib['check']:.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000, 200000])
    parser.add_argument("--kinds", nargs="+", default=["chain", "dag"], choices=["chain", "dag"])
    parser.add_argument("--variants", nargs="+", default=["symbolic", "unknown", "static"])
    parser.add_argument("--no-text", action="store_true", help="skip the whole-process text path")
    parser.add_argument("--onnx", action="store_true", help="compare with onnx.shape_inference")
    parser.add_argument(
        "--repeat", type=int, default=3, help="measure each configuration this many times, keep the best"
    )
    args = parser.parse_args()
    run_table(args.sizes, args.kinds, args.variants, not args.no_text, args.onnx, args.repeat)


if __name__ == "__main__":
    main()
