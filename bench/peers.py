"""gradual against ONNX's C++ shape inference on the same chain, as whole processes, in one run.

    python bench/peers.py                      # 10k and 100k nodes, best of 3
    python bench/peers.py --nodes 10000 --repeat 5

Three comparisons, each timed in CPU seconds of the process (this machine is shared; wall time
follows the others' load), the processes interleaved and the best of `--repeat` kept:

* ONNX: `gradual check model.onnx` against a process that loads the same model with `onnx.load`
  and runs `onnx.shape_inference.infer_shapes` on it;
* text: `gradual check prog.rly`, the same chain written in gradual's language, against the
  same ONNX process;
* a real export's node mix: `gradual check` on 20,000 nodes of attention blocks as the
  TorchScript exporter writes them (scale.onnx_layers: Constant nodes, Shape/Gather/Unsqueeze/
  Concat before each Reshape, Transpose, Softmax, a LayerNorm), against the ONNX process; no
  target (the targets are on the chain), printed so the chain's ratio is not read as a model's;
* library: operators checked per second when the chain is built in memory (bench.py's library
  path: `gradual.builder`, then `gradual.check`), at the largest size;
* and, in a running process, what importing the largest model costs against checking it
  (`gradual.frontends.onnx.import_model`, then `ImportedModel.check`, with the collector paused
  across both as `gradual check` pauses it: each phase pausing it on its own would charge the
  sweep of the import's objects to the check or the import, whichever resumed it). The import runs ONNX's
  own inference only when a converter asks about an inner tensor, which this chain's do not;
  what that inference alone costs in-process is printed beside it.

It ends with each target, the measured value, and whether it is met.

The chain cycles Add, Mul, Relu, MatMul over `x: (n, 64)` and a (64, 64) weight (scale.py's
ONNX axis); the text program is the same chain (`add`, `multiply`, `nn.relu`, `nn.matmul`).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import scale  # noqa: E402

ONNX_PROCESS = "import sys, onnx; onnx.shape_inference.infer_shapes(onnx.load(sys.argv[1]))"


def text_chain(n: int) -> str:
    """The ONNX chain of scale.onnx_chain_model, written in gradual's language."""
    ops = ["add(%{p}, %x)", "multiply(%{p}, %x)", "nn.relu(%{p})", "nn.matmul(%{p}, %w)"]
    lines = ["def @main(%x: Tensor[(n, 64), float32], %w: Tensor[(64, 64), float32]) {"]
    prev = "x"
    for i in range(n):
        lines.append(f"  %v{i} = " + ops[i % 4].replace("{p}", prev) + ";")
        prev = f"v{i}"
    return "\n".join(lines + [f"  %{prev}", "}"]) + "\n"


def cpu_seconds(command: list) -> float:
    """CPU seconds (user + system) of one process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_of(repeat: int, commands: dict) -> dict:
    """Each command's best CPU seconds over `repeat` interleaved rounds."""
    best = {name: float("inf") for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            best[name] = min(best[name], cpu_seconds(command))
    return best


def library_check_seconds(ops: int) -> dict:
    """Runs in a child process: CPU seconds of `gradual.check` on bench.py's chain of `ops`
    operators built in memory (the operator library loaded and the checker's modules imported
    beforehand, as in a frontend's process: `gradual.check` imports the checker on its first
    call, which is start-up, not a cost per operator, and compiles it where there is no bytecode)."""
    import time

    import bench
    import gradual
    import gradual.checker.driver  # imported before the clock starts (see above)
    from gradual.ops.registry import default_registry

    default_registry()
    module = bench.build_module(bench.program("chain", ops, "symbolic"))
    t0 = time.process_time()
    result = gradual.check(module)
    seconds = time.process_time() - t0
    assert result.ok
    return {"check": seconds}


def library_ops_per_second(ops: int, repeat: int) -> float:
    """Operators checked per second on bench.py's library path, best of `repeat` processes."""
    return ops / best_in_children("library_check_seconds", ops, repeat)["check"]


def import_and_check_seconds(nodes: int) -> dict:
    """Runs in a child process: CPU seconds of ONNX's own inference on the ONNX chain of `nodes`
    nodes, of importing it and of checking the imported module."""
    import time

    import onnx

    from gradual.frontends import onnx as gonnx
    from gradual.infra.deep import gc_paused
    from gradual.ops.registry import default_registry

    default_registry()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chain.onnx"
        path.write_bytes(scale.onnx_chain(nodes))
        t0 = time.process_time()
        onnx.shape_inference.infer_shapes(path.read_bytes(), check_type=False, strict_mode=False)
        t1 = time.process_time()
        with gc_paused():  # as `gradual check` runs: one collection after both, not one per phase
            imported = gonnx.import_model(str(path))
            t2 = time.process_time()
            result = imported.check()
            t3 = time.process_time()
    assert result.ok
    return {"inference": t1 - t0, "import": t2 - t1, "check": t3 - t2}


def best_in_children(function: str, argument: int, repeat: int) -> dict:
    """The best of `repeat` child processes running `peers.function(argument)` (a dict of
    CPU seconds, each key's best)."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import peers; "
        f"print(json.dumps(peers.{function}({argument})))"
    )
    best: dict = {}
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        for key, value in json.loads(done.stdout.strip().splitlines()[-1]).items():
            best[key] = min(best.get(key, value), value)
    return best


def verdict(name: str, measured: str, met: bool) -> str:
    return f"  {'met    ' if met else 'NOT met'}  {name}: {measured}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--text-nodes", type=int, default=20_000)
    parser.add_argument(
        "--layers-nodes",
        type=int,
        default=20_000,
        help="nodes of the attention-block model (scale.onnx_layers), compared without a target",
    )
    parser.add_argument("--library-ops", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scale.compile_bytecode()
    gradual = [sys.executable, "-m", "gradual.cli", "check", "--quiet"]
    peer = [sys.executable, "-c", ONNX_PROCESS]
    ratios: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(set(args.nodes) | {args.text_nodes}):
            model = Path(tmp) / f"chain{n}.onnx"
            model.write_bytes(scale.onnx_chain(n))
            commands = {"onnx": peer + [str(model)]}
            if n in args.nodes:
                commands["gradual check model.onnx"] = gradual + [str(model)]
            if n == args.text_nodes:
                program = Path(tmp) / f"chain{n}.rly"
                program.write_text(text_chain(n))
                commands["gradual check prog.rly"] = gradual + [str(program)]
            best = best_of(args.repeat, commands)
            for name, seconds in best.items():
                if name != "onnx":
                    ratios[(name, n)] = seconds / best["onnx"]
                    print(
                        f"{n:>7} nodes: {name:<26} {seconds:6.2f} s   onnx infer_shapes process {best['onnx']:6.2f} s"
                        f"   ratio {seconds / best['onnx']:5.2f}",
                        flush=True,
                    )
        model = Path(tmp) / "layers.onnx"
        model.write_bytes(scale.onnx_layers(args.layers_nodes))
        best = best_of(args.repeat, {"onnx": peer + [str(model)], "gradual": gradual + [str(model)]})
        print(
            f"{args.layers_nodes:>7} nodes in attention blocks (an export's node mix, no target): gradual check "
            f"{best['gradual']:.2f} s, onnx infer_shapes process {best['onnx']:.2f} s, ratio "
            f"{best['gradual'] / best['onnx']:.2f}",
            flush=True,
        )
    rate = library_ops_per_second(args.library_ops, args.repeat)
    print(f"library path: {rate:,.0f} ops/s at {args.library_ops:,} ops (check only, chain built in memory)")
    largest = max(args.nodes)
    split = best_in_children("import_and_check_seconds", largest, args.repeat)
    print(
        f"{largest:>7} nodes in a running process: import {split['import']:.3f} s (ONNX's own inference, not "
        f"needed by this import, alone {split['inference']:.3f} s), check {split['check']:.3f} s"
    )
    print("targets:")
    onnx_ratio = ratios[("gradual check model.onnx", largest)]
    text_ratio = ratios[("gradual check prog.rly", args.text_nodes)]
    print(
        verdict(
            f"gradual check model.onnx within 1.5x of the ONNX process at {largest:,} nodes",
            f"{onnx_ratio:.2f}x",
            onnx_ratio <= 1.5,
        )
    )
    print(
        verdict(
            "the ONNX import costs no more than the check",
            f"import {split['import']:.3f} s, check {split['check']:.3f} s",
            split["import"] <= split["check"],
        )
    )
    print(
        verdict(
            f"gradual check prog.rly within 1.5x of the ONNX process at {args.text_nodes:,} operators",
            f"{text_ratio:.2f}x",
            text_ratio <= 1.5,
        )
    )
    print(
        verdict(
            f"library path at least 250,000 ops/s at {args.library_ops:,} ops", f"{rate:,.0f} ops/s", rate >= 250_000
        )
    )


if __name__ == "__main__":
    main()
