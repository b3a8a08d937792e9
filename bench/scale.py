"""The scale table: for every axis of input size, the time at n and at 8n, and their ratio.

    python bench/scale.py                  # every axis (a few minutes)
    python bench/scale.py --axes ifs calls  # some axes
    python bench/scale.py --list            # the axes and what each program looks like

Linear growth makes the ratio about 8 (a little less where a fixed cost is part of the time);
quadratic growth makes it 64. Every ratio must stay at or under 9.5.

Each axis is a generator of programs of size n. Two times are measured for n and 8n:

* process: the command (`gradual check FILE`, or `elaborate` / `run` for those axes) as a
  user runs it, start-up included;
* library: the same work in an already running process (`gradual.check` on the text, then
  `gradual.elaborate` or `gradual.run` for those axes; ONNX: import the model, then check;
  the `built` axis: its script's `main`, which builds a module with gradual.builder and
  checks it, where the process runs the script).

Times are CPU seconds (user + system) of the process doing the work: this machine is shared,
and wall time there follows the load of others. The two sizes are measured interleaved
(n, 8n, n, 8n, ...) and the best of `--repeat` runs of each is kept (of 2 * repeat + 1 runs
in the library, which are cheaper), so a burst of load disturbs both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import runpy
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import bench  # noqa: E402  (the chain and DAG generators)

LINEAR_LIMIT = 9.5
T = "Tensor[(2, 3), float32]"


# program generators, one per axis ---------------------------------------------------------------
def chain(n: int) -> str:
    """`%v{i} = op(%v{i-1}, ...)`: n operators in a chain (bench.py's model-like chain)."""
    return bench.chain_program(n, "symbolic")


def dag(n: int) -> str:
    """A DAG n wide: n/2 operators all reading `%x` (all alive at once), then a chain that
    adds them together in turn."""
    half = n // 2
    lines = ["def @main(%x: Tensor[(n, 64), float32], %w: Tensor[(64, 64), float32]) {"]
    ops = ["nn.relu(%x)", "nn.dense(%x, %w)", "multiply(%x, %x)", "subtract(%x, %x)"]
    lines += [f"  %b{i} = {ops[i % 4]};" for i in range(half)]
    lines.append("  %s0 = %b0;")
    lines += [f"  %s{i} = add(%s{i - 1}, %b{i});" for i in range(1, half)]
    return "\n".join(lines + [f"  %s{half - 1}", "}"]) + "\n"


def closures(n: int) -> str:
    """`fn (%a0) { fn (%a1) { ... add(%a{n-1}, %x) } }`: closures n deep, each returning the next."""
    opens = "".join(f"fn (%a{i}: {T}) {{\n" for i in range(n))
    return f"def @main(%x: {T}) {{\n{opens}add(%a{n - 1}, %x)\n" + "}\n" * n + "}\n"


def inferred_closures(n: int) -> str:
    """`fn (%a0) { fn (%a1) { ... add(%a{n-1}, %x) } }` with unannotated parameters: each
    closure's type holds its parameter's inference variables (resolving each level's result
    walked every level below it: 4,000 deep took 13 s)."""
    opens = "".join(f"fn (%a{i}) {{\n" for i in range(n))
    return f"def @main(%x: {T}) {{\n{opens}add(%a{n - 1}, %x)\n" + "}\n" * n + "}\n"


def closed_closures(n: int) -> str:
    """`fn (%a0) { fn (%a1) { ... nn.relu(%a{n-1}) } }`: closed closures with unannotated
    parameters, each generalized on its own (none may finalize another's records again)."""
    opens = "".join(f"fn (%a{i}) {{\n" for i in range(n))
    return f"def @main(%x: {T}) {{\n{opens}nn.relu(%a{n - 1})\n" + "}\n" * n + "}\n"


def adt_closed_closures(n: int) -> str:
    """`closed_closures` in a module that defines a data type: each closure's type is searched for
    the element variables of data types it leaves polymorphic (`fn (%y, %x) { Cons(%x, %y) }`),
    which must not walk the closures nested in it again."""
    return "type Box[A] {\n  Box(A),\n}\n\n" + closed_closures(n)


def closure_calls(n: int) -> str:
    """`let %f0 = fn (%a0) { let %f1 = fn (%a1) { ... }; %f1(%a0) }; %f0(%x)`: n deep."""
    out = [f"def @main(%x: {T}) {{\n"]
    out += [f"let %f{i} = fn (%a{i}: {T}) {{\n" for i in range(n)]
    out.append(f"add(%a{n - 1}, %x)\n")
    out += ["};\n" + (f"%f{i}(%a{i - 1})\n" if i else "%f0(%x)\n") for i in reversed(range(n))]
    return "".join(out) + "}\n"


def ifs(n: int) -> str:
    """`if (%c) { if (%c) { ... } else { %x } } else { %x }`: n deep."""
    return f"def @main(%x: {T}, %c: bool) {{\n" + "if (%c) {\n" * n + "nn.relu(%x)\n" + "} else { %x }\n" * n + "}\n"


def joined_closures(n: int) -> str:
    """`if (%c) { fn () { ... %x } } else { fn () { ... %y } }`: two closures n deep whose
    innermost results differ, joined level by level (stripping each level's function type
    again at every level below was quadratic: 3,000 deep took 23 s)."""
    left, right = "fn () {\n" * n + "%x\n" + "}\n" * n, "fn () {\n" * n + "%y\n" + "}\n" * n
    return (
        f"def @main(%x: {T}, %y: Tensor[(4, 3), float32], %c: bool) {{\nif (%c) {{\n{left}}} else {{\n{right}}}\n}}\n"
    )


def lets(n: int) -> str:
    """`let %v{i}: Tensor[(2, n), float32] = nn.relu(%v{i-1});`: n annotated lets, each in the
    scope of the one before (Relay's lets nest)."""
    lines = ["  let %v0 = %x;"] + [f"  let %v{i}: Tensor[(2, n), float32] = nn.relu(%v{i - 1});" for i in range(1, n)]
    return "def @main(%x: Tensor[(2, n), float32]) {\n" + "\n".join(lines) + f"\n  %v{n - 1}\n}}\n"


def calls(n: int) -> str:
    """`nn.relu(nn.relu(...(%x)))`: calls n deep."""
    return "def @main(%x: Tensor[(2, ?), float32]) {\n  " + "nn.relu(" * n + "%x" + ")" * n + "\n}\n"


def parens(n: int) -> str:
    """`((((%x))))`: parentheses n deep."""
    return "def @main(%x: Tensor[(2, ?), float32]) {\n  " + "(" * n + "%x" + ")" * n + "\n}\n"


def definitions(n: int) -> str:
    """`def @f{i}(%x) { add(@f{i-1}(%x), %x) }`: n unannotated definitions, each calling the last."""
    out = ["def @f0(%x) { nn.relu(%x) }"]
    out += [f"def @f{i}(%x) {{ add(@f{i - 1}(%x), %x) }}" for i in range(1, n)]
    out.append(f"def @main(%x: Tensor[(n, 3), float32]) {{ @f{n - 1}(%x) }}")
    return "\n".join(out) + "\n"


def tuple_size(n: int) -> str:
    """`let %t = (%x, nn.relu(%x), ...); %t.{n-1}`: one tuple of n fields."""
    fields = ", ".join("%x" if i % 2 else "nn.relu(%x)" for i in range(n))
    return f"def @main(%x: {T}) {{\n  let %t = ({fields});\n  %t.{n - 1}\n}}\n"


def nested_tuples(n: int) -> str:
    """`((((%x, %x), %x), %x), ...)`: a tuple of tuples n deep (its type is n deep too)."""
    e = "%x"
    for _ in range(n):
        e = f"({e}, %x)"
    return f"def @main(%x: {T}) {{\n  let %t = {e};\n  %t\n}}\n"


def projections(n: int) -> str:
    """`%t.0.0.0...`: n projections out of a tuple n deep."""
    e = "%x"
    for _ in range(n):
        e = f"({e},)"
    return f"def @main(%x: {T}) {{\n  let %t = {e};\n  %t" + ".0" * n + "\n}\n"


def tuple_types(n: int) -> str:
    """`%x: ((((Tensor[...],),),),)`: a parameter type n deep."""
    t = T
    for _ in range(n):
        t = f"({t},)"
    return f"def @main(%x: {t}) {{\n  %x\n}}\n"


def fn_types(n: int) -> str:
    """`%f: fn (T) -> fn (T) -> ...`: a function type n deep."""
    t = T
    for _ in range(n):
        t = f"fn ({T}) -> {t}"
    return f"def @main(%f: {t}) {{\n  %f\n}}\n"


def degree(n: int) -> str:
    """`%s{i} = multiply(%s{i-1}, %s0)` from `%s0 = shape_of(%x)[0]`: a shape value of degree n
    (past the polynomial bound it is `?`)."""
    lines = ["def @main(%x: Tensor[(n, 3), float32]) {", "  %s0 = take(shape_of(%x), 0i64, axis=0);"]
    lines += [f"  %s{i} = multiply(%s{i - 1}, %s0);" for i in range(1, n)]
    return "\n".join(lines + [f"  %s{n - 1}", "}"]) + "\n"


def squaring(n: int) -> str:
    """`%s{i} = multiply(%s{i-1}, %s{i-1})` from `shape_of(%x)[0] + 1`: degree 2^n without the
    polynomial bound."""
    lines = ["def @main(%x: Tensor[(n, 3), float32]) {", "  %s0 = add(take(shape_of(%x), 0i64, axis=0), 1i64);"]
    lines += [f"  %s{i} = multiply(%s{i - 1}, %s{i - 1});" for i in range(1, n)]
    return "\n".join(lines + [f"  %s{n - 1}", "}"]) + "\n"


def doublings(n: int) -> str:
    """`%v{i} = concatenate((%v{i-1}, %v{i-1}))` from `(n, 6)`: a tensor doubled n times, its
    dim `2^i * n` (Python hashes ints modulo 2^61 - 1: these dims fell into 61 buckets of
    every dict keyed by type, quadratic until the polynomial bound)."""
    lines = ["def @main(%x: Tensor[(n, 6), float32]) {", "  %v0 = nn.relu(%x);"]
    lines += [f"  %v{i} = concatenate((%v{i - 1}, %v{i - 1}));" for i in range(1, n)]
    return "\n".join(lines + [f"  %v{n - 1}", "}"]) + "\n"


def static_doublings(n: int) -> str:
    """The doublings from a static `(3, 6)`: static dims `3 * 2^i` (same buckets)."""
    return doublings(n).replace("Tensor[(n, 6)", "Tensor[(3, 6)")


def halvings(n: int) -> str:
    """`%v{i} = nn.max_pool1d(%v{i-1}, strides=[2])` from `(1, 1, n)`: a length halved n times,
    `n // 2^i` (the divisors hashed into 61 buckets as the doublings' coefficients did)."""
    lines = ["def @main(%x: Tensor[(1, 1, n), float32]) {", "  %v0 = nn.relu(%x);"]
    lines += [f"  %v{i} = nn.max_pool1d(%v{i - 1}, pool_size=[1], strides=[2]);" for i in range(1, n)]
    return "\n".join(lines + [f"  %v{n - 1}", "}"]) + "\n"


def sums(n: int) -> str:
    """`concatenate((%c{i-1}, %x{i}))` over n inputs of n different symbolic lengths: a dim
    that sums n symbols (past the polynomial bound it is `?`)."""
    params = ", ".join(f"%x{i}: Tensor[(s{i}, 3), float32]" for i in range(n))
    lines = [f"def @main({params}) {{", "  %c0 = nn.relu(%x0);"]
    lines += [f"  %c{i} = concatenate((%c{i - 1}, %x{i}));" for i in range(1, n)]
    return "\n".join(lines + [f"  %c{n - 1}", "}"]) + "\n"


def dim_sum(n: int) -> str:
    """`Tensor[(s0 + s1 + ... + s{n-1}, 3)]`: a parameter whose dim is written as a sum of n
    names (past the polynomial bound it is `?`; it was built whole: 8,000 names took 4 s)."""
    return f"def @main(%x: Tensor[({' + '.join(f's{i}' for i in range(n))}, 3), float32]) {{ nn.relu(%x) }}\n"


def dim_nesting(n: int) -> str:
    """`Tensor[((((n // m) + 1) + 1) ..., 3)]`: arithmetic n deep around a division by a name
    (an error: each level asked its whole inside again, quadratic)."""
    return f"def @main(%x: Tensor[({'(' * n}n // m{' + 1)' * n}, 3), float32]) {{ nn.relu(%x) }}\n"


def symbols(n: int) -> str:
    """`def @f(%x0: Tensor[(s0, 3)], ..., %x{n-1}: Tensor[(s{n-1}, 3)])` called once: n symbols
    in one signature."""
    params = ", ".join(f"%x{i}: Tensor[(s{i}, 3), float32]" for i in range(n))
    args = ", ".join("%x" for _ in range(n))
    return f"def @f({params}) {{ %x0 }}\ndef @main(%x: Tensor[(n, 3), float32]) {{ @f({args}) }}\n"


def hints(n: int) -> str:
    """`can_unify(%x{i}, shape=(1, 3));` for n unannotated parameters."""
    params = ", ".join(f"%x{i}" for i in range(n))
    body = "\n".join(f"  can_unify(%x{i}, shape=(1, 3));" for i in range(n))
    uses = "\n".join(f"  %y{i} = add(%x{i}, %x0);" for i in range(n))
    return f"def @f({params}) {{\n{body}\n{uses}\n  %y{n - 1}\n}}\n"


def hint_chain(n: int) -> str:
    """n hinted definitions called in a chain, each with a seed that is not its guess once the
    one before it is widened (a widened hint makes the module be checked again)."""
    out = [f"def @f{i}(%x) {{\n  can_unify(%x, shape=(1,));\n  %x\n}}" for i in range(n)]
    call = "ones(shape=[3])"
    for i in range(n):
        call = f"@f{i}({call})"
    out.append(f"def @main() {{ {call} }}")
    return "\n".join(out) + "\n"


def component(n: int) -> str:
    """n definitions calling each other in a cycle (one recursive component, solved to a fixpoint)."""
    out = [
        f"def @f{i}(%i: int32, %x) {{\n  if (less(%i, 10)) {{ @f{(i + 1) % n}(add(%i, 1), %x) }} else {{ nn.relu(%x) }}\n}}"
        for i in range(n)
    ]
    out.append("def @main(%x: Tensor[(n, 3), float32]) { @f0(0, %x) }")
    return "\n".join(out) + "\n"


def one_line(n: int) -> str:
    """The chain of n operators written on one line."""
    return chain(n).replace("\n", " ") + "\n"


def blanks(n: int) -> str:
    """Runs of n blanks where the one-match statement reader (syntax/lexer.py) starts and then
    fails (a cast among the arguments): at the statement's start, after `let`, inside the
    parentheses and before the `;`. A failed match must not try every split of a run (it did:
    80,000 blanks took a minute)."""
    run = " " * n
    return (
        f"def @main(%x: {T}) {{{run}%a = zeros_like({run}%x as {T}){run};\n"
        f"  let{run}%b = nn.relu({run}%a as {T});\n  %b\n}}\n"
    )


def errors_on_a_line(n: int) -> str:
    """n statements on one line, each a shape error (`add` of a (2, 3) and a (3, 2)): every
    diagnostic shows the line (shown whole, each cost the line's length: quadratic)."""
    stmts = " ".join(f"%v{i} = add(%x, %y);" for i in range(n))
    return f"def @main(%x: {T}, %y: Tensor[(3, 2), float32]) {{ {stmts} %x }}\n"


def unknown_names(n: int) -> str:
    """n bound variables, then n uses of unknown ones (`%q{i}`): each unknown name looks for a
    close one among those in scope (a did-you-mean over all of them was quadratic: 8,000 took
    164 s)."""
    lines = [f"def @main(%x: {T}) {{"]
    lines += [f"  %v{i} = nn.relu(%x);" for i in range(n)]
    lines += [f"  %w{i} = nn.relu(%q{i});" for i in range(n)]
    return "\n".join(lines + ["  %x", "}"]) + "\n"


def close_names(n: int) -> str:
    """n bound variables `%value{i}`, then n uses of unknown ones `%valu{i}`, each close to
    many bound names: every comparison of a did-you-mean hint reaches difflib's full ratio,
    about 15 us (a budget of 2 comparisons a character let the hints cost 25 times the check,
    and grow as the product until it ran out: 12.6x for 8x the program)."""
    lines = [f"def @main(%x: {T}) {{"]
    lines += [f"  %value{i} = nn.relu(%x);" for i in range(n)]
    lines += [f"  %e{i} = nn.relu(%valu{i});" for i in range(n)]
    return "\n".join(lines + ["  %x", "}"]) + "\n"


def close_globals(n: int) -> str:
    """n definitions `@func{i}`, then n calls of misspelled ones `@fnuc{i}`: the did-you-mean
    hints of unknown globals share the budget of close variables (23.1x for 8x before)."""
    out = [f"def @func{i}(%x: {T}) {{ nn.relu(%x) }}" for i in range(n)]
    body = "\n".join(f"  %v{i} = @fnuc{i}(%x);" for i in range(n))
    out.append(f"def @main(%x: {T}) {{\n{body}\n  %x\n}}")
    return "\n".join(out) + "\n"


def unknown_chain(n: int) -> str:
    """The chain over `?` dims, so that n/8 calls get a runtime check (elaborated and printed)."""
    return bench.chain_program(n, "unknown")


def run_chain(n: int) -> str:
    """A chain of n elementwise operators on a (4, 4) tensor, run on NumPy."""
    ops = ["add(%{p}, %x)", "multiply(%{p}, %x)", "nn.relu(%{p})", "subtract(%{p}, %x)"]
    lines = ["def @main(%x: Tensor[(4, ?), float32]) {", "  %v0 = nn.relu(%x);"]
    lines += [f"  %v{i} = " + ops[i % 4].replace("{p}", f"v{i - 1}") + ";" for i in range(1, n)]
    return "\n".join(lines + [f"  %v{n - 1}", "}"]) + "\n"


def deferred_lets(n: int) -> str:
    """n lets annotated `(a * b, 4)` over the (4, 4) input, run: each cast binds `a * b` as a
    whole and leaves a check that waits for `a` and `b` (never bound here)."""
    lines = ["def @main(%x: Tensor[(4, 4), float32]) {"]
    lines += [f"  let %v{i}: Tensor[(a{i} * b{i}, 4), float32] = %x;" for i in range(n)]
    return "\n".join(lines + [f"  %v{n - 1}", "}"]) + "\n"


def entry_chain(n: int) -> str:
    """An entry whose n parameters chain their symbols (`(s{i+1} - s{i}, 4)`, the last one
    binding s0), run: each entry check waits for two symbols, and settling them binds one symbol
    after another (it was quadratic: a pass over every waiting check for each symbol bound)."""
    params = ", ".join(f"%x{i}: Tensor[(s{i + 1} - s{i}, 4), float32]" for i in reversed(range(n)))
    return f"def @main({params}, %x: Tensor[(s0, 4), float32]) {{ %x }}\n"


def entry_differences(n: int) -> str:
    """An entry whose n parameters are differences (`(s{i+1} - s{i}, 4)`) and no parameter
    binds a symbol, run: settling ties the symbols together (one class of n), and the body's
    annotation of s0 binds them all (chains of relations were quadratic)."""
    params = ", ".join(f"%x{i}: Tensor[(s{i + 1} - s{i}, 4), float32]" for i in range(n))
    return f"def @main({params}, %x: Tensor[(?, 4), float32]) {{\n  let %y: Tensor[(s0, 4), float32] = %x;\n  %y\n}}\n"


def run_closures(n: int) -> str:
    """Closures n deep, run: each level calls the next and adds `%x` of the outermost level (a
    lookup walked the frames between: quadratic, 16,000 levels took 12 s to run)."""
    t = "Tensor[(4, 4), float32]"
    out = [f"def @main(%x: {t}) {{\n"]
    out += [f"let %f{i} = fn (%a{i}: {t}) {{\n" for i in range(n)]
    out.append(f"add(%a{n - 1}, %x)\n")
    out += ["};\n" + (f"add(%f{i}(%a{i - 1}), %x)\n" if i else "%f0(%x)\n") for i in reversed(range(n))]
    return "".join(out) + "}\n"


def run_closure_symbols(n: int) -> str:
    """Closures n deep, run, whose parameters use the outermost level's symbols (`n`, and `a`
    and `b` that only `a * b` binds) and whose casts bind a symbol of their own (`m{i}`): a
    symbol's lookup walked the frames up to the root (quadratic: 8,000 levels took 100 s)."""
    out = ["def @main(%x: Tensor[(n, 4), float32], %y: Tensor[(a * b, 4), float32]) {\n"]
    out += [
        f"let %f{i} = fn (%a{i}: Tensor[(n, 4), float32], %c{i}: Tensor[(a * b, 4), float32]) {{\n"
        f"let %b{i}: Tensor[(m{i}, 4), float32] = %a{i};\n"
        for i in range(n)
    ]
    out.append(f"(%b{n - 1}, %c{n - 1})\n")
    out += ["};\n" + (f"%f{i}(%b{i - 1}, %c{i - 1})\n" if i else "%f0(%x, %y)\n") for i in reversed(range(n))]
    return "".join(out) + "}\n"


def run_closure_relations(n: int) -> str:
    """Closures n deep, run, whose parameters are `(s1 - s0, 4)` as the entry's is: the entry
    relates s1 to s0, and looking a relation up walked every level between (quadratic)."""
    t = "Tensor[(s1 - s0, 4), float32]"
    out = [f"def @main(%x: {t}) {{\n"]
    out += [f"let %f{i} = fn (%a{i}: {t}) {{\n" for i in range(n)]
    out.append(f"%a{n - 1}\n")
    out += ["};\n" + (f"%f{i}(%a{i - 1})\n" if i else "%f0(%x)\n") for i in reversed(range(n))]
    return "".join(out) + "}\n"


def entry_inputs(program: str) -> list:
    """The inputs of an `entry_chain` program: every parameter of its entry."""
    return re.findall(r"%(x[0-9]*):", program)


def onnx_chain(n: int) -> bytes:
    """An ONNX model: a chain of n nodes (Add, Mul, Relu, MatMul) over `(n, 64)`."""
    return onnx_chain_model(n).SerializeToString()


def onnx_chain_model(ops: int):  # an onnx.ModelProto
    """The chain as an ONNX ModelProto (the peer comparison uses the same model)."""
    from onnx import TensorProto, helper

    nodes, prev = [], "x"
    kinds = ["Add", "Mul", "Relu", "MatMul"]
    for i in range(ops):
        kind = kinds[i % 4]
        inputs = {"Add": [prev, "x"], "Mul": [prev, "x"], "Relu": [prev], "MatMul": [prev, "w"]}[kind]
        nodes.append(helper.make_node(kind, inputs, [f"v{i}"], name=f"n{i}"))
        prev = f"v{i}"
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
        initializer=[helper.make_tensor("w", TensorProto.FLOAT, [64, 64], [0.0] * 4096)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def onnx_layers(n: int) -> bytes:
    """An ONNX model: n attention blocks in the TorchScript exporter's node mix (25 nodes
    each): Constant nodes, the Shape/Gather/Unsqueeze/Concat chain before each Reshape,
    attention MatMuls of two inner tensors, Transpose, Softmax and a LayerNorm of ReduceMeans,
    over `(batch, seq, 64)`. A real export imported 4.4x slower than it was checked: converters
    asked inner tensors' ranks (ONNX's inference over the whole model) and read constants
    twice. `n` is in nodes (rounded down to whole blocks)."""
    return onnx_layers_model(max(1, n // 25)).SerializeToString()


def onnx_layers_model(blocks: int):  # an onnx.ModelProto
    """The blocks of `onnx_layers` as an ONNX ModelProto."""
    from onnx import TensorProto, helper

    nodes: list = []

    def node(op: str, inputs: list, out: str, **attrs: object) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op}_{out}", **attrs))
        return out

    def const(name: str, values: list, dtype: int = TensorProto.INT64, dims: Optional[list] = None) -> str:
        import numpy as np

        data = np.asarray(values, dtype=np.int64 if dtype == TensorProto.INT64 else np.float32).tobytes()
        tensor = helper.make_tensor(name, dtype, [len(values)] if dims is None else dims, data, raw=True)
        return node("Constant", [], name, value=tensor)  # raw data, as the exporters write

    prev = "x"
    for i in range(blocks):
        p = f"b{i}_"
        shape = node("Shape", [prev], p + "shape")
        batch = node("Gather", [shape, const(p + "i0", [0], dims=[])], p + "batch", axis=0)
        seq = node("Gather", [shape, const(p + "i1", [1], dims=[])], p + "seq", axis=0)
        axes = const(p + "axes", [0])
        heads = node(
            "Concat",
            [
                node("Unsqueeze", [batch, axes], p + "bu"),
                node("Unsqueeze", [seq, axes], p + "su"),
                const(p + "hd", [4, 16]),
            ],
            p + "heads",
            axis=0,
        )
        q = node("Reshape", [node("MatMul", [prev, "wq"], p + "q"), heads], p + "qh")
        qt = node("Transpose", [q], p + "qt", perm=[0, 2, 1, 3])
        kt = node("Transpose", [q], p + "kt", perm=[0, 2, 3, 1])
        scores = node(
            "Div", [node("MatMul", [qt, kt], p + "s"), const(p + "scale", [4.0], TensorProto.FLOAT, [])], p + "sd"
        )
        attn = node("MatMul", [node("Softmax", [scores], p + "p", axis=-1), qt], p + "o")
        flat = node("Concat", [p + "bu", p + "su", const(p + "width", [64])], p + "flat", axis=0)
        merged = node("Reshape", [node("Transpose", [attn], p + "ot", perm=[0, 2, 1, 3]), flat], p + "om")
        y = node("Add", [prev, merged], p + "y")
        centred = node("Sub", [y, node("ReduceMean", [y], p + "mean", axes=[-1])], p + "c")
        var = node("ReduceMean", [node("Mul", [centred, centred], p + "sq")], p + "var", axes=[-1])
        prev = node("Div", [centred, node("Sqrt", [var], p + "std")], p + "out")
    graph = helper.make_graph(
        nodes,
        "layers",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 64])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["batch", "seq", 64])],
        initializer=[helper.make_tensor("wq", TensorProto.FLOAT, [64, 64], [0.0] * 4096)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def onnx_fanin(n: int) -> bytes:
    """An ONNX model: n Relus of `x`, summed by one Sum node of n inputs (locating each input on
    the node's line walked the names before it: quadratic in a node's inputs)."""
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Relu", ["x"], [f"r{i}"], name=f"n{i}") for i in range(n)]
    nodes.append(helper.make_node("Sum", [f"r{i}" for i in range(n)], ["s"], name="sum"))
    graph = helper.make_graph(
        nodes,
        "fanin",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def onnx_branches(n: int) -> bytes:
    """An ONNX model: a chain of n If nodes whose branches all bind the same names (`t`, `e`):
    a fresh name was found by trying each suffix from `_1` on (quadratic)."""
    from onnx import TensorProto, helper

    def branch(kind: str, out: str, source: str, i: int):  # an onnx.GraphProto
        return helper.make_graph(
            [helper.make_node(kind, [source], [out])],
            f"{out}{i}",
            [],
            [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)],
        )

    nodes, prev = [], "x"
    for i in range(n):
        nodes.append(
            helper.make_node(
                "If",
                ["c"],
                [f"v{i}"],
                name=f"if{i}",
                then_branch=branch("Relu", "t", prev, i),
                else_branch=branch("Neg", "e", prev, i),
            )
        )
        prev = f"v{i}"
    graph = helper.make_graph(
        nodes,
        "branches",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def onnx_loops(n: int) -> bytes:
    """An ONNX model: a chain of n Loop nodes, each adding `x` to its carried value and
    collecting it as a scan output (each a recursive closure of its own)."""
    from onnx import TensorProto, helper

    def body(i: int):  # an onnx.GraphProto
        value = helper.make_tensor_value_info
        return helper.make_graph(
            [
                helper.make_node("Add", ["y_in", "x"], ["y_out"]),
                helper.make_node("Identity", ["c_in"], ["c_out"]),
                helper.make_node("Identity", ["y_out"], ["scan"]),
            ],
            f"body{i}",
            [
                value("i", TensorProto.INT64, []),
                value("c_in", TensorProto.BOOL, []),
                value("y_in", TensorProto.FLOAT, ["n", 64]),
            ],
            [
                value("c_out", TensorProto.BOOL, []),
                value("y_out", TensorProto.FLOAT, ["n", 64]),
                value("scan", TensorProto.FLOAT, ["n", 64]),
            ],
        )

    nodes, prev = [], "x"
    for i in range(n):
        nodes.append(helper.make_node("Loop", ["m", "", prev], [f"v{i}", f"s{i}"], name=f"loop{i}", body=body(i)))
        prev = f"v{i}"
    graph = helper.make_graph(
        nodes,
        "loops",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 64]),
            helper.make_tensor_value_info("m", TensorProto.INT64, []),
        ],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def onnx_loop_lists(n: int) -> bytes:
    """An ONNX model: one Loop carrying n lists it starts empty and appends to (TorchScript's
    `outs.append(h)`), each stacked after the loop: finding each list's SequenceInsert by a
    search of the body was quadratic."""
    from onnx import TensorProto, helper

    value, seq = helper.make_tensor_value_info, helper.make_tensor_sequence_value_info
    nodes = [helper.make_node("SequenceInsert", [f"s{i}_in", "x"], [f"s{i}_out"]) for i in range(n)]
    nodes.append(helper.make_node("Identity", ["c_in"], ["c_out"]))
    body = helper.make_graph(
        nodes,
        "body",
        [value("i", TensorProto.INT64, []), value("c_in", TensorProto.BOOL, [])]
        + [seq(f"s{i}_in", TensorProto.FLOAT, ["n", 64]) for i in range(n)],
        [value("c_out", TensorProto.BOOL, [])] + [seq(f"s{i}_out", TensorProto.FLOAT, ["n", 64]) for i in range(n)],
    )
    outer = [helper.make_node("SequenceEmpty", [], [f"e{i}"], dtype=TensorProto.FLOAT) for i in range(n)]
    outer.append(
        helper.make_node("Loop", ["m", ""] + [f"e{i}" for i in range(n)], [f"l{i}" for i in range(n)], body=body)
    )
    outer += [helper.make_node("ConcatFromSequence", [f"l{i}"], [f"y{i}"], axis=0, new_axis=1) for i in range(n)]
    graph = helper.make_graph(
        outer,
        "lists",
        [value("x", TensorProto.FLOAT, ["n", 64]), value("m", TensorProto.INT64, [])],
        [value(f"y{i}", TensorProto.FLOAT, None) for i in range(n)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def loop_iterations(n: int) -> str:
    """A loop as the ONNX import writes one (a recursive closure, a scan output's rows
    collected by `onnx.scan_append`) run for n iterations: a call per iteration must take
    constant stack, and appending a row must not copy the rows before it (quadratic)."""
    return f"""def @main(%x: Tensor[(4, ?), float32]) {{
  %loop = fn (%i: int64, %y: Tensor[(4, ?), float32], %rows: Tensor[(?, 4, ?), float32]) {{
    if (less(%i, {n}i64)) {{
      %loop(add(%i, 1i64), add(%y, %x), onnx.scan_append(%rows, %y))
    }} else {{
      (%y, %rows)
    }}
  }};
  %loop(0i64, %x, onnx.constant(values=[], shape=[0, 4, 0], dtype="float32"))
}}
"""


def torch_conds(n: int) -> bytes:
    """A torch.export archive (tests/data/torch/branches.pt2) with its first torch.cond node
    repeated n times: every branch binds the same names (`x`, `linear`), and a fresh name was
    found by trying each suffix from `_1` on (quadratic)."""
    import copy
    import io
    import zipfile

    def edit(program: dict) -> None:
        graph = program["graph_module"]["graph"]
        cond = next(node for node in graph["nodes"] if node["name"] == "cond")
        for i in range(n):
            node = copy.deepcopy(cond)
            node["name"] = f"cond_r{i}"
            for out in node["outputs"]:
                for tensor in out.get("as_tensors", [out["as_tensor"]] if "as_tensor" in out else []):
                    graph["tensor_values"][f"{tensor['name']}_r{i}"] = graph["tensor_values"]["x"]
                    tensor["name"] += f"_r{i}"
            graph["nodes"].append(node)

    source = ROOT / "tests" / "data" / "torch" / "branches.pt2"
    out = io.BytesIO()
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if "/models/" in info.filename and info.filename.endswith(".json"):
                program = json.loads(body)
                edit(program)
                body = json.dumps(program).encode()
            zout.writestr(info, body)
    return out.getvalue()


def built(n: int) -> str:
    """A Python program that builds a chain of n operators with gradual.builder and checks it,
    as a frontend does: a tuple-taking concatenate (a plain let) between runs of two graph
    calls (Dataflow statements), so a body holds n / 3 short Dataflows (their records were
    finalized one Dataflow at a time). It builds with the cyclic collector paused, as the ONNX
    and torch frontends import: under it, the collector's full collections alone made building
    20,000 operators 13x as long as 2,500 (8.5x paused)."""
    return f"""import gradual
from gradual import builder as gb
from gradual.infra.deep import gc_paused


def main() -> None:
    with gc_paused():
        module = build()
    result = gradual.check(module)
    assert result.ok, [d.message for d in result.diagnostics[:1]]


def build():
    f = gb.Function("main")
    x = f.param("x", gb.Tensor(("n", 64), "float32"))
    w = f.param("w", gb.Tensor((64, 128), "float32"))
    last = f.let("v0", gb.call("nn.relu", x))
    for i in range(1, {n}):
        if i % 3 == 1:
            value = gb.call("concatenate", gb.tuple_(last, last), axis=1)
        elif i % 3 == 2:
            value = gb.call("nn.dense", last, w)
        else:
            value = gb.call("reshape", last, newshape=[-1, 64])
        last = f.let(f"v{{i}}", value)
    return gb.module(f.returns(last))


if __name__ == "__main__":
    main()
"""


def edits(n: int) -> str:
    """A Python program that opens a document of n lines in `gradual lsp`'s text model and
    applies one didChange of n changes, a replace-all sent from the end of the document up as
    VS Code sends it, then multi-cursor typing from the top down (each change copied the whole
    text: 16,000 took 1.2 s where 2,000 took 0.02 s, 61x)."""
    return f"""from lsprotocol import types as lsp

from gradual.lsp.text import Lines, apply_changes

N = {n}
TEXT = "".join(f"  %v{{i}} = add(%v{{i - 1}}, %x);\\n" for i in range(N))


def change(line: int, start: int, end: int, text: str) -> lsp.TextDocumentContentChangePartial:
    return lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(line, start), lsp.Position(line, end)), text=text)


def main() -> None:
    lines = Lines(TEXT)
    at = [len(f"  %v{{i}} = ") for i in range(N)]
    lines = apply_changes(lines, [change(i, at[i], at[i] + 3, "subtract") for i in reversed(range(N))], "utf-16")
    lines = apply_changes(lines, [change(i, 0, 0, "// ") for i in range(N)], "utf-16")
    assert lines.text.count("subtract") == N and lines.text.count("// ") == N


if __name__ == "__main__":
    main()
"""


def inlay_closures(n: int) -> str:
    """A Python program that analyzes closures n deep with unannotated parameters as `gradual
    lsp` does and asks for the document's inlay hints (each parameter's hint walked the whole
    definition to find its closure: 61x for 8x)."""
    return f"""import sys

sys.path.insert(0, {str(ROOT / "bench")!r})

import scale
from gradual.analysis import queries
from gradual.analysis.document import Document
from gradual.infra.deep import run_deep

TEXT = scale.inferred_closures({n})


def main() -> None:
    def work() -> None:
        analysis = Document("closures.rly").analyze(TEXT)
        assert len(queries.inlay_hints(analysis, 0, len(TEXT))) >= {n}
    run_deep(work)


if __name__ == "__main__":
    main()
"""


@dataclass
class Axis:
    """One axis of input size: how a program of size n is made, and what is run on it."""

    name: str
    what: str
    make: Callable[[int], object]
    n: int
    command: str = "check"
    suffix: str = ".rly"
    inputs: Callable[[str], list] = lambda program: ["x"]  # what `run` is given, each a (4, 4) tensor
    errors: bool = False  # the program has errors: `check` exits 1 and prints them (the library renders them)


AXES = [
    Axis("chain", "ops in a chain", chain, 2500),
    Axis("dag", "DAG width (values alive at once)", dag, 2500),
    Axis("closures", "nesting depth of closures", closures, 1250),
    Axis("closure-calls", "nesting depth of closures that call the next", closure_calls, 1250),
    Axis("inferred-closures", "nesting depth of closures with unannotated parameters", inferred_closures, 1250),
    Axis("closed-closures", "nesting depth of closed closures with unannotated parameters", closed_closures, 1250),
    Axis(
        "adt-closed-closures",
        "nesting depth of closed closures, in a module with a data type",
        adt_closed_closures,
        1250,
    ),
    Axis("ifs", "nesting depth of `if`s", ifs, 1250),
    Axis("joined-closures", "nesting depth of two closures an `if` joins", joined_closures, 1250),
    Axis("lets", "annotated lets, each in the scope of the last", lets, 2500),
    Axis("calls", "nesting depth of calls", calls, 5000),
    Axis("parens", "nesting depth of parentheses", parens, 10000),
    Axis("definitions", "number of definitions", definitions, 600),
    Axis("tuple", "size of a tuple", tuple_size, 2500),
    Axis("nested-tuples", "nesting depth of tuples", nested_tuples, 2500),
    Axis("projections", "nesting depth of projections `%t.0.0`", projections, 2500),
    Axis("tuple-types", "nesting depth of a tuple type", tuple_types, 5000),
    Axis("fn-types", "nesting depth of a function type", fn_types, 1250),
    Axis("degree", "polynomial degree of a shape value", degree, 2500),
    Axis("squaring", "repeated squaring of a shape value", squaring, 2500),
    Axis("doublings", "a symbolic dim doubled (concatenate)", doublings, 600),
    Axis("static-doublings", "a static dim doubled", static_doublings, 600),
    Axis("halvings", "a symbolic dim halved (max_pool1d)", halvings, 600),
    Axis("sums", "symbols summed in one dim (concatenate)", sums, 600),
    Axis("symbols", "symbols in one signature", symbols, 600),
    Axis("dim-sum", "names summed in one written dim", dim_sum, 2500),
    Axis("dim-nesting", "nesting depth of dim arithmetic (an error inside)", dim_nesting, 1250, errors=True),
    Axis("hints", "`can_unify` hints", hints, 600),
    Axis("hint-chain", "hinted definitions, each widened by the one before", hint_chain, 600),
    Axis("component", "definitions in one recursive component", component, 150),
    Axis("line", "length of one source line", one_line, 2500),
    Axis("blanks", "runs of blanks inside statements", blanks, 10000),
    Axis("line-errors", "diagnostics on one long line", errors_on_a_line, 250, errors=True),
    Axis("unknown-names", "unknown variables among as many bound ones", unknown_names, 250, errors=True),
    Axis("close-names", "unknown variables close to as many bound ones", close_names, 50, errors=True),
    Axis("close-globals", "calls of unknown globals close to as many defined ones", close_globals, 50, errors=True),
    Axis("onnx", "ONNX nodes (`gradual check model.onnx`)", onnx_chain, 2500, suffix=".onnx"),
    Axis("onnx-layers", "ONNX nodes in attention blocks, as exported", onnx_layers, 2500, suffix=".onnx"),
    Axis("onnx-fanin", "inputs of one ONNX node (a Sum of n Relus)", onnx_fanin, 2500, suffix=".onnx"),
    Axis("onnx-branches", "ONNX If nodes whose branches bind the same names", onnx_branches, 1250, suffix=".onnx"),
    Axis("onnx-loops", "ONNX Loop nodes, each a recursive closure", onnx_loops, 600, suffix=".onnx"),
    Axis("onnx-loop-lists", "lists one ONNX Loop appends to", onnx_loop_lists, 300, suffix=".onnx"),
    Axis("torch-conds", "torch.cond nodes (`gradual check model.pt2`)", torch_conds, 300, suffix=".pt2"),
    Axis("built", "ops built by a gradual.builder script", built, 2500, command="python", suffix=".py"),
    Axis(
        "lsp-inlay-closures",
        "closures with unannotated parameters, inlay hints (`gradual lsp`)",
        inlay_closures,
        600,
        command="python",
        suffix=".py",
    ),
    Axis("lsp-edits", "changes in one `gradual lsp` didChange", edits, 16000, command="python", suffix=".py"),
    Axis("elaborate", "ops in a chain with checks (`gradual elaborate`)", unknown_chain, 2500, command="elaborate"),
    Axis("run", "ops in a chain run on NumPy (`gradual run`)", run_chain, 2500, command="run"),
    Axis(
        "loop-iterations",
        "iterations of a loop with a scan output (`gradual run`)",
        loop_iterations,
        1250,
        command="run",
    ),
    Axis("deferred", "casts whose checks wait for symbols (`gradual run`)", deferred_lets, 2500, command="run"),
    Axis(
        "run-closures",
        "closures using the outermost level's variable (`gradual run`)",
        run_closures,
        1250,
        command="run",
    ),
    Axis(
        "run-closure-symbols",
        "closures using the outermost level's symbols (`gradual run`)",
        run_closure_symbols,
        1250,
        command="run",
        inputs=lambda program: ["x", "y"],
    ),
    Axis(
        "run-closure-relations",
        "closures using the entry's related symbols (`gradual run`)",
        run_closure_relations,
        1250,
        command="run",
    ),
    Axis(
        "entry-chain",
        "parameters whose symbols chain (`gradual run`)",
        entry_chain,
        600,
        command="run",
        inputs=entry_inputs,
    ),
    Axis(
        "differences",
        "parameters that are differences of symbols (`gradual run`)",
        entry_differences,
        600,
        command="run",
        inputs=entry_inputs,
    ),
]


# measuring ------------------------------------------------------------------------------------
def compile_bytecode() -> None:
    """Compile gradual's modules once, as `pip install` does: a process that compiles them at
    every start (PYTHONDONTWRITEBYTECODE) would time the compiler, not the checker."""
    import compileall

    compileall.compile_dir(str(ROOT / "gradual"), quiet=1)


def write_program(axis: Axis, n: int, workdir: Path) -> Path:
    """The axis's program of size n, written to a file."""
    path = workdir / f"{axis.name}-{n}{axis.suffix}"
    data = axis.make(n)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))  # type: ignore[union-attr]
    return path


def _command(axis: Axis, path: Path) -> list:
    if axis.command == "python":
        return [sys.executable, str(path)]
    extra = {"check": ["--quiet", "--color=never"], "elaborate": []}.get(axis.command)
    if extra is None:
        extra = [f"--shape={name}=4x4" for name in axis.inputs(path.read_text(encoding="utf-8"))]
    return [sys.executable, "-m", "gradual.cli", axis.command, *extra, str(path)]


def process_seconds(axis: Axis, path: Path) -> float:
    """CPU seconds of one `gradual COMMAND FILE` process (its output is discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(_command(axis, path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != (1 if axis.errors else 0) or "Traceback" in done.stderr:
        raise RuntimeError(
            f"{axis.name}: {' '.join(_command(axis, path))} exited {done.returncode}\n{done.stderr[-2000:]}"
        )
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def library_work(axis: Axis, path: Path) -> Callable[[], None]:
    """The axis's work in this process, ready to time (the program is read beforehand)."""
    import gradual

    if axis.suffix in MODELS:
        return lambda: check_model(path)
    if axis.command == "python":
        return runpy.run_path(str(path))["main"]
    text = path.read_text(encoding="utf-8")

    def work() -> None:
        result = gradual.check(text, str(path))
        if axis.errors:
            render_errors(result)
            return
        assert result.ok, [d.message for d in result.diagnostics[:1]]
        if axis.command == "elaborate":
            gradual.elaborate_text(result)
        elif axis.command == "run":
            import numpy as np

            gradual.run(result, {name: np.ones((4, 4), np.float32) for name in axis.inputs(text)})

    return work


MODELS = (".onnx", ".pt2")  # axes whose input is a model file


def check_model(path: Path) -> None:
    """Import a model file and check it, as `gradual check model.onnx` does."""
    from gradual.analysis.inputs import check_input, load

    checked = check_input(load(str(path), {}))
    assert checked.result is not None and checked.result.ok, [d.message for d in checked.diagnostics[:1]]


def render_errors(result) -> str:  # a gradual.CheckResult
    """The diagnostics of a program that has errors, drawn as `gradual check` draws them."""
    import io

    from rich.console import Console

    from gradual.diagnostics.render import render_all

    assert not result.ok
    out = io.StringIO()
    render_all(result.diagnostics, Console(file=out, no_color=True, width=200, soft_wrap=True, highlight=False))
    return out.getvalue()


def library_seconds(axis_name: str, paths: list, repeat: int) -> list:
    """Runs in a child process: best CPU seconds of the library work on each path, interleaved."""
    from gradual.ops.registry import default_registry

    default_registry()
    axis = next(a for a in AXES if a.name == axis_name)
    works = [library_work(axis, Path(p)) for p in paths]
    works[0]()  # warm up: imports and caches a frontend pays once
    best = [float("inf")] * len(works)
    for _ in range(repeat):
        for i, work in enumerate(works):
            t0 = time.process_time()
            work()
            best[i] = min(best[i], time.process_time() - t0)
    return best


def _library_child(axis: Axis, paths: list, repeat: int) -> list:
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import scale; "
        f"print(json.dumps(scale.library_seconds({axis.name!r}, {[str(p) for p in paths]!r}, {repeat})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{axis.name}: library measurement failed\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclass
class Row:
    """One axis measured at n and 8n."""

    axis: Axis
    n: int
    process: tuple
    library: tuple

    @property
    def process_ratio(self) -> float:
        return self.process[1] / self.process[0]

    @property
    def library_ratio(self) -> float:
        return self.library[1] / self.library[0]

    @property
    def linear(self) -> bool:
        return max(self.process_ratio, self.library_ratio) <= LINEAR_LIMIT


def measure(axis: Axis, repeat: int, workdir: Path, factor: int = 8) -> Row:
    """An axis at n and factor * n, each measured `repeat` times interleaved; the best kept."""
    sizes = (axis.n, axis.n * factor)
    paths = [write_program(axis, size, workdir) for size in sizes]
    best = [float("inf")] * 2
    for _ in range(repeat):
        for i, path in enumerate(paths):
            best[i] = min(best[i], process_seconds(axis, path))
    library = _library_child(axis, paths, 2 * repeat + 1)  # cheaper than processes: more rounds
    return Row(axis, axis.n, tuple(best), tuple(library))


HEADER = f"| {'axis of input size':<52} | {'n':>6} | {'8n':>6} | {'process s (n / 8n)':>19} | {'ratio':>5} | {'library s (n / 8n)':>19} | {'ratio':>5} |"


def format_row(row: Row) -> str:
    what = f"{row.axis.what} ({row.axis.name})"
    proc = f"{row.process[0]:.2f} / {row.process[1]:.2f}"
    lib = f"{row.library[0]:.3f} / {row.library[1]:.3f}"
    return (
        f"| {what:<52} | {row.n:>6} | {row.n * 8:>6} | {proc:>19} | {row.process_ratio:>5.1f} | "
        f"{lib:>19} | {row.library_ratio:>5.1f} |"
    )


def run_table(names: Optional[list], repeat: int) -> list:
    """Measure the axes and print the table as they finish; returns the rows."""
    axes = [a for a in AXES if names is None or a.name in names]
    compile_bytecode()
    print(HEADER)
    print("|" + "|".join("-" * (len(cell)) for cell in HEADER.split("|")[1:-1]) + "|", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for axis in axes:
            row = measure(axis, repeat, Path(tmp))
            rows.append(row)
            print(format_row(row), flush=True)
    worst = max(rows, key=lambda r: max(r.process_ratio, r.library_ratio))
    print(
        f"\nworst ratio: {max(worst.process_ratio, worst.library_ratio):.1f} ({worst.axis.name}); "
        f"limit {LINEAR_LIMIT}: {'all linear' if all(r.linear for r in rows) else 'NOT LINEAR'}"
    )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--axes", nargs="+", choices=[a.name for a in AXES], help="measure only these axes")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each size; the best is kept")
    parser.add_argument("--list", action="store_true", help="print the axes and a small program of each")
    args = parser.parse_args()
    if args.list:
        for axis in AXES:
            print(f"== {axis.name}: {axis.what} (n = {axis.n})")
            sample = axis.make(3)
            print(sample if isinstance(sample, str) else f"<{len(sample)} bytes of ONNX>")  # type: ignore[arg-type]
        return 0
    rows = run_table(args.axes, args.repeat)
    return 0 if all(r.linear for r in rows) else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
