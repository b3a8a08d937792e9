"""gradual against ONNX, OpenVINO and ONNX Runtime on exporters' graphs, as whole processes.

    python bench/exporters.py                          # everything, median of 5
    python bench/exporters.py --sizes 1000 10000 --repeat 7
    python bench/exporters.py --no-real                # the generated graphs only
    python bench/exporters.py --json out.json          # also the raw numbers

Two kinds of models:

* the real exports checked into the repository (tests/data/onnx/exported/, made by
  export_corpus.py from PyTorch's TorchScript and dynamo exporters, and tests/data/onnx/examples/);
* exporter-style graphs (`encoder`): BERT-like encoders in the node mix the TorchScript
  exporter writes (Constant nodes; Shape -> Gather -> Unsqueeze -> Concat before each Reshape;
  LayerNormalization; GELU spelled with Erf; position ids from Range over the sequence
  length; an attention mask widened with Unsqueeze, Cast, Sub, Mul), of about 1,000, 10,000,
  50,000 and 100,000 nodes. The layers share one set of weights (the file stays small: the
  comparison is of graph work, not of reading megabytes). They are written by a child process
  (onnx.helper), so nothing here imports onnx.

Each model is run by four processes, interleaved (every tool on every model, then again,
`--repeat` times), and the median of each is kept:

* `gradual check --quiet model.onnx`;
* ONNX: `onnx.load` then `onnx.shape_inference.infer_shapes(model, data_prop=True)`;
* OpenVINO: `openvino.Core().read_model(path)` (reading converts the graph and infers shapes);
* ONNX Runtime: `onnxruntime.InferenceSession(path)` on the CPU (load, optimize, plan).

A process that fails, or runs longer than TIMEOUT (ONNX Runtime's session of the largest
encoder), is shown as `failed` and left out of the ratios.

For each: wall seconds, CPU seconds (user + system) and peak RSS of the process. The summary
gives the ratios the performance targets are stated in (docs/performance.md): over the real
exports of at most 1,000 nodes, the geometric mean of gradual's CPU time over OpenVINO's and
over ONNX's; at the largest encoder, gradual over ONNX and OpenVINO, and the peak RSS. CPU
time is the measure (the machine is shared: wall time follows others' load); wall is shown.
gradual's user cache is warmed by one untimed check first, as any second run finds it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import scale  # noqa: E402  (compile_bytecode)

CORPUS = [ROOT / "tests" / "data" / "onnx" / "exported", ROOT / "tests" / "data" / "onnx" / "examples"]
SIZES = [1_000, 10_000, 50_000, 100_000]

TOOLS = {
    "gradual": [sys.executable, "-m", "gradual.cli", "check", "--quiet"],
    "onnx": [
        sys.executable,
        "-c",
        "import sys, onnx; onnx.shape_inference.infer_shapes(onnx.load(sys.argv[1]), data_prop=True)",
    ],
    "openvino": [sys.executable, "-c", "import sys, openvino; openvino.Core().read_model(sys.argv[1])"],
    "onnxruntime": [
        sys.executable,
        "-c",
        "import sys, onnxruntime; onnxruntime.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])",
    ],
}


# the exporter-style encoder ---------------------------------------------------------------------
def encoder_model(nodes: int, hidden: int = 64, heads: int = 4, vocab: int = 1000):
    """An onnx.ModelProto: a BERT-like encoder of about `nodes` nodes as the TorchScript exporter
    writes one (see the module docstring), opset 17, inputs `input_ids` and `attention_mask`
    of (batch, seq) int64, output the last hidden state (batch, seq, hidden)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    out: list = []
    count = [0]

    def node(op: str, inputs: list, **attrs: object) -> str:
        count[0] += 1
        name = f"/{op}_{count[0]}_output_0"
        out.append(helper.make_node(op, inputs, [name], name=f"/{op}_{count[0]}", **attrs))
        return name

    def const(values: object, dtype: object = np.int64) -> str:
        array = np.asarray(values, dtype=dtype)
        return node("Constant", [], value=numpy_helper.from_array(array))

    rng = np.random.default_rng(0)
    head = hidden // heads

    def weight(name: str, *shape: int) -> object:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.02).astype(np.float32), name)

    weights = [
        weight("word_embeddings", vocab, hidden),
        weight("position_embeddings", 512, hidden),
        weight("q.weight", hidden, hidden),
        weight("k.weight", hidden, hidden),
        weight("v.weight", hidden, hidden),
        weight("o.weight", hidden, hidden),
        weight("ffn1.weight", hidden, 4 * hidden),
        weight("ffn2.weight", 4 * hidden, hidden),
        weight("bias", hidden),
        weight("ffn1.bias", 4 * hidden),
        numpy_helper.from_array(np.ones(hidden, np.float32), "ln.weight"),
        numpy_helper.from_array(np.zeros(hidden, np.float32), "ln.bias"),
    ]

    def layer_norm(x: str) -> str:
        return node("LayerNormalization", [x, "ln.weight", "ln.bias"], axis=-1, epsilon=1e-12)

    def linear(x: str, w: str, b: str) -> str:
        return node("Add", [node("MatMul", [x, w]), b])

    def dims(x: str) -> tuple:
        """batch and seq of x as 1-element vectors: Shape -> Gather -> Unsqueeze, as TorchScript writes it."""
        batch = node("Gather", [node("Shape", [x]), const(0)], axis=0)
        seq = node("Gather", [node("Shape", [x]), const(1)], axis=0)
        return node("Unsqueeze", [batch, const([0])]), node("Unsqueeze", [seq, const([0])])

    def split_heads(x: str, perm: list) -> str:
        batch, seq = dims(x)
        shape = node("Concat", [batch, seq, const([heads]), const([head])], axis=0)
        return node("Transpose", [node("Reshape", [x, shape])], perm=perm)

    # embeddings: position ids from Range over the sequence length
    seq_len = node("Gather", [node("Shape", ["input_ids"]), const(1)], axis=0)
    positions = node("Unsqueeze", [node("Range", [const(0), seq_len, const(1)]), const([0])])
    embedded = node(
        "Add",
        [node("Gather", ["word_embeddings", "input_ids"]), node("Gather", ["position_embeddings", positions])],
    )
    h = layer_norm(embedded)
    # the attention mask, widened once: (1 - mask) * -10000 of shape (batch, 1, 1, seq)
    widened = node("Cast", [node("Unsqueeze", ["attention_mask", const([1, 2])])], to=TensorProto.FLOAT)
    mask = node("Mul", [node("Sub", [const(1.0, np.float32), widened]), const(-10000.0, np.float32)])
    per_layer = 0
    while True:
        start = count[0]
        q = split_heads(linear(h, "q.weight", "bias"), [0, 2, 1, 3])
        k = split_heads(linear(h, "k.weight", "bias"), [0, 2, 3, 1])
        v = split_heads(linear(h, "v.weight", "bias"), [0, 2, 1, 3])
        scores = node("Add", [node("Div", [node("MatMul", [q, k]), const(math.sqrt(head), np.float32)]), mask])
        context = node("Transpose", [node("MatMul", [node("Softmax", [scores], axis=-1), v])], perm=[0, 2, 1, 3])
        batch, seq = dims(context)
        merged = node("Reshape", [context, node("Concat", [batch, seq, const([hidden])], axis=0)])
        h = layer_norm(node("Add", [h, linear(merged, "o.weight", "bias")]))
        up = linear(h, "ffn1.weight", "ffn1.bias")
        erf = node("Erf", [node("Div", [up, const(math.sqrt(2.0), np.float32)])])
        gelu = node("Mul", [node("Mul", [up, node("Add", [erf, const(1.0, np.float32)])]), const(0.5, np.float32)])
        h = layer_norm(node("Add", [h, linear(gelu, "ffn2.weight", "bias")]))
        per_layer = per_layer or count[0] - start
        if count[0] + per_layer > nodes:
            break
    out[-1].output[0] = "last_hidden_state"
    int64 = TensorProto.INT64
    graph = helper.make_graph(
        out,
        "encoder",
        [
            helper.make_tensor_value_info("input_ids", int64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", int64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden])],
        initializer=weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def write_encoders(sizes: list, directory: Path) -> dict:
    """Writes the encoders in a child process (which imports onnx); {size: path}."""
    paths = {n: directory / f"encoder{n}.onnx" for n in sizes}
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import exporters; "
        f"[open(p, 'wb').write(exporters.encoder_model(int(n)).SerializeToString()) "
        f"for n, p in zip(sys.argv[1::2], sys.argv[2::2])]"
    )
    argv = [str(x) for n, p in paths.items() for x in (n, p)]
    subprocess.run([sys.executable, "-c", code, *argv], check=True)
    return paths


def node_count(path: Path) -> int:
    """The main graph's node count, read with gradual's own reader (no onnx import here)."""
    sys.path.insert(0, str(ROOT))
    from gradual.frontends.onnx import proto

    return len(proto.ModelProto.FromString(path.read_bytes()).graph.node)


# measuring --------------------------------------------------------------------------------------
TIMEOUT = 120.0  # seconds of wall time a process may take (ONNX Runtime's session at 100,000 nodes took more)


def measure(command: list, timeout: float = TIMEOUT) -> Optional[dict]:
    """One process: wall and CPU seconds and peak RSS (MB); None when it fails (a tool that cannot
    read the model) or takes longer than `timeout` (then killed)."""
    import threading

    with tempfile.NamedTemporaryFile("r") as peak:
        # GNU time starts the command from a small process: a child forked from this one (which
        # holds a hundred megabytes) counts this process's pages in its own peak until it execs
        timed = [TIME, "-f", "%M", "-o", peak.name, *command] if TIME else command
        start = time.perf_counter()
        process = subprocess.Popen(timed, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)  # CPU times include the command's (reaped by time)
        timer.cancel()
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1) or wall >= timeout:  # gradual check exits 1 for a model with errors
            return None
        rss = usage.ru_maxrss / 1024
        if TIME:
            lines = peak.read().split()
            rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else rss
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": rss}


#: GNU time, which measures a command's peak RSS from a small process (None: the fork's own)
TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def medians(samples: dict) -> dict:
    """{model: {tool: {measure: median}}} of the samples so far (None for a tool that failed)."""
    return {
        model: {
            tool: {k: statistics.median(s[k] for s in runs) for k in ("wall", "cpu", "rss")} if runs else None
            for tool, runs in by_tool.items()
        }
        for model, by_tool in samples.items()
    }


def run(models: dict, tools: list, repeat: int, progress: Optional[str] = None) -> dict:
    """{model: {tool: {measure: median}}}, every tool on every model per round, `repeat` rounds
    (the medians so far written to `progress` after each round)."""
    samples: dict = {m: {t: [] for t in tools} for m in models}
    failed: set = set()  # (model, tool) that failed once: not run again
    for round_ in range(repeat):
        for model, path in models.items():
            for tool in tools:
                if (model, tool) in failed:
                    continue
                found = measure(TOOLS[tool] + [str(path)])
                if found is None:
                    failed.add((model, tool))
                    samples[model][tool] = []
                else:
                    samples[model][tool].append(found)
        print(f"  round {round_ + 1}/{repeat} done", file=sys.stderr, flush=True)
        if progress:
            Path(progress).write_text(json.dumps({"rounds": round_ + 1, "results": medians(samples)}, indent=1))
    return medians(samples)


def geomean(values: list) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def report(results: dict, counts: dict, tools: list) -> dict:
    """Prints the table and the summary; returns the summary's numbers."""
    print(f"\n{'model':<30} {'nodes':>7}  " + "  ".join(f"{t + ' cpu/wall s, MB':>26}" for t in tools))
    for model, by_tool in results.items():
        cells = []
        for tool in tools:
            m = by_tool[tool]
            cells.append(f"{'failed':>26}" if m is None else f"{m['cpu']:7.3f} {m['wall']:7.3f} {m['rss']:7.0f}   ")
        print(f"{model:<30} {counts[model]:>7}  " + "  ".join(cells))
    summary: dict = {}
    real = [m for m in results if not m.startswith("encoder") and counts[m] <= 1000]
    for peer in ("openvino", "onnx", "onnxruntime", "before"):
        if peer not in tools:
            continue
        ratios = [
            results[m]["gradual"]["cpu"] / results[m][peer]["cpu"]
            for m in real
            if results[m]["gradual"] and results[m][peer]
        ]
        if ratios:
            summary[f"real exports <= 1,000 nodes: gradual / {peer} (geometric mean of CPU, {len(ratios)} models)"] = (
                geomean(ratios)
            )
    encoders = sorted((counts[m], m) for m in results if m.startswith("encoder"))
    for n, model in encoders:
        g = results[model]["gradual"]
        for peer in ("onnx", "openvino", "onnxruntime", "before"):
            if peer in tools and g and results[model][peer]:
                p = results[model][peer]
                summary[f"encoder of {n:,} nodes: gradual / {peer} CPU"] = g["cpu"] / p["cpu"]
                summary[f"encoder of {n:,} nodes: gradual / {peer} peak RSS"] = g["rss"] / p["rss"]
    print("\nsummary (ratios of medians; CPU seconds):")
    for name, value in summary.items():
        print(f"  {value:6.2f}  {name}")
    return summary


def checkout_command(checkout: str) -> list:
    """`gradual check --quiet` run from a checkout's sources (its bytecode compiled first)."""
    import compileall

    compileall.compile_dir(str(Path(checkout) / "gradual"), quiet=1)
    return [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {checkout!r}); sys.argv[0] = 'gradual'; "
        "from gradual.cli import entry; entry()",
        "check",
        "--quiet",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=SIZES, help="encoder sizes in nodes")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    parser.add_argument("--no-real", action="store_true", help="only the generated encoders")
    parser.add_argument("--models", nargs="*", default=None, help="only the real exports with these names")
    parser.add_argument("--json", help="write the medians and the summary to this file")
    parser.add_argument(
        "--before",
        metavar="CHECKOUT",
        help="also time `gradual check` of another checkout (its bytecode compiled), as the tool `before`",
    )
    parser.add_argument(
        "--gradual", metavar="CHECKOUT", help="time `gradual check` of this checkout (default: the one installed)"
    )
    args = parser.parse_args()
    scale.compile_bytecode()
    tools = ["gradual"] + [t for t in args.tools if t != "gradual"]
    if args.gradual:
        TOOLS["gradual"] = checkout_command(args.gradual)
    if args.before:
        TOOLS["before"] = checkout_command(args.before)
        tools.insert(1, "before")
    with tempfile.TemporaryDirectory() as tmp:
        models: dict = {}
        if not args.no_real:
            for folder in CORPUS:
                for path in sorted(folder.glob("*.onnx")):
                    if args.models is None or path.name in args.models:
                        models[path.name] = path
        for n, path in write_encoders(args.sizes, Path(tmp)).items():
            models[f"encoder{n}"] = path
        counts = {name: node_count(path) for name, path in models.items()}
        for path in models.values():  # warms gradual's user cache (ONNX's schemas, the stdlib)
            for tool in ("gradual", "before"):
                if tool in tools:
                    measure(TOOLS[tool] + [str(path)])
            break
        results = run(models, tools, args.repeat, args.json and args.json + ".partial")
    summary = report(results, counts, tools)
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "nodes": counts, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
