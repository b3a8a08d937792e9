"""Fuzzing the front door: random bytes and mutated examples through `gradual check`,
`gradual elaborate` and `gradual run`, in-process (`gradual.cli.main`) and in a few real
subprocesses. The answer is always a diagnostic and an exit code (check: 0 or 1, 2 for
unreadable input; run: 0 to 3), never a traceback, an internal error (exit 4) or a hang.
Mutated models (ONNX protobuf fields, .pt2 JSON values of another kind) through check and run.
Pathological inputs (20,000 nested parentheses, 20,000 lets, a 5,000-dim shape, a 10^30 dim,
non-UTF-8 bytes) each finish within seconds through `check` and `run`.
"""

from __future__ import annotations

import io
import math
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradual
from gradual import cli
from gradual.runtime import Interpreter
from gradual.types import TensorType

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.rly"))
SECONDS = 120.0  # a hang detector per call (each takes well under a second to a few seconds on a laptop)
TMP = Path(tempfile.mkdtemp(prefix="gradual-fuzz-"))


class Call:
    """One in-process `gradual` command: exit code, stdout, stderr, seconds."""

    def __init__(self, code: int, out: str, err: str, seconds: float) -> None:
        self.code, self.out, self.err, self.seconds = code, out, err, seconds

    def __repr__(self) -> str:
        return f"exit {self.code} after {self.seconds:.1f}s\n--- stdout\n{self.out[-2000:]}\n--- stderr\n{self.err[-2000:]}"


def gradual_cli(*args: str, timeout: float = SECONDS) -> Call:
    """Run `gradual ARGS` in-process on a thread (a hang fails the test instead of blocking it);
    an exception escaping `main` is a failure: it would be a traceback for the user."""
    box: dict = {}
    out, err = io.StringIO(), io.StringIO()

    def target() -> None:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                box["code"] = cli.main(list(args))
            except SystemExit as exc:  # argparse
                box["code"] = exc.code
            except BaseException as exc:  # noqa: BLE001 - reported below
                box["error"] = exc

    start = time.perf_counter()
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout)
    seconds = time.perf_counter() - start
    assert not worker.is_alive(), f"gradual {' '.join(args)} did not finish within {timeout}s"
    assert "error" not in box, f"gradual {' '.join(args)} raised {box['error']!r}"
    return Call(box["code"], out.getvalue(), err.getvalue(), seconds)


def write(name: str, data: bytes | str) -> str:
    path = TMP / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


def clean(call: Call, codes: set) -> None:
    """The exit code is one of `codes`, and nothing looks like a traceback or an internal error."""
    assert call.code in codes, call
    assert "Traceback" not in call.err and "internal error" not in call.err, call
    if call.code == 1:
        assert "error" in call.err or '"severity": "error"' in call.out, call


# inputs for `gradual run` ----------------------------------------------------------------------------
def run_arguments(text: str, rng: random.Random) -> Optional[list]:
    """`--shape` options giving each parameter of @main a shape that fits its type (random
    sizes where it is not static), or none when the program does not check; None when an
    input would be too large to make."""
    result = gradual.check(text)
    if not result.ok or "main" not in result.functions:
        return []
    try:
        params = Interpreter(gradual.elaborate(result), result.registry).parameters("main")
    except Exception:  # noqa: BLE001 - a program the runtime rejects: `run` will say so
        return []
    args = []
    for name, t in params:
        if isinstance(t, TensorType) and t.dims is not None:
            dims = [d.get_length() if getattr(d, "is_static", False) else rng.randint(1, 4) for d in t.dims]
            if math.prod(dims) > MAX_ELEMENTS:
                return None
            args.append(f"--shape={name}=" + ("x".join(map(str, dims)) if dims else "()"))
        elif isinstance(t, TensorType):
            args.append(f"--shape={name}=2x3")
    return args


MAX_ELEMENTS = 10**7  # a mutated dim of 10^6 asks for gigabytes of random input: not run


def check_and_run(path: str, text: str, seed: int) -> None:
    clean(gradual_cli("check", path), {0, 1})
    clean(gradual_cli("elaborate", path), {0, 1})
    args = run_arguments(text, random.Random(seed))
    if args is not None:
        clean(gradual_cli("run", path, *args), {0, 1, 2, 3})


# random bytes ---------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_get_a_diagnostic_from_check_and_run(data: bytes) -> None:
    path = write("random.rly", data)
    clean(gradual_cli("check", path), {0, 1})
    clean(gradual_cli("check", "--format", "json", path), {0, 1})
    clean(gradual_cli("run", path), {0, 1, 2, 3})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                "def",
                "@main",
                "(",
                ")",
                "%x",
                ":",
                "Tensor",
                "[",
                "]",
                "{",
                "}",
                ",",
                "float32",
                "?",
                "n",
                "1..8",
                "*",
                "=",
                "let",
                "%y",
                ";",
                "add",
                "as",
                "if",
                "else",
                "fn",
                "->",
                "2",
                "0",
                "10000000000000000000000000",
                "-1",
                "//",
                "+",
                ".",
                "0i64",
                "True",
            ]
        ),
        max_size=40,
    )
)
def test_random_token_strings_get_a_diagnostic(tokens: list) -> None:
    text = " ".join(tokens)
    path = write("tokens.rly", text)
    check_and_run(path, text, len(tokens))


# mutations of the examples ----------------------------------------------------------------------------
TOKEN = re.compile(r"\s+|[A-Za-z_%@][A-Za-z0-9_.]*|\d+|\.\.|->|//|.")
DIMS = re.compile(r"Tensor\[\(([^()\]]*)\)")


def mutate(text: str, rng: random.Random) -> str:
    """One random edit: delete, duplicate or swap tokens, change a number, edit a shape."""
    kind = rng.choice(["delete", "duplicate", "swap", "digit", "dim", "dim", "rank"])
    tokens = list(TOKEN.findall(text))
    words = [i for i, t in enumerate(tokens) if not t.isspace()]
    if kind == "delete":
        del tokens[rng.choice(words)]
    elif kind == "duplicate":
        i = rng.choice(words)
        tokens.insert(i, tokens[i])
    elif kind == "swap":
        i, j = rng.choice(words), rng.choice(words)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif kind == "digit":
        numbers = [i for i, t in enumerate(tokens) if t.isdigit()]
        if numbers:
            tokens[rng.choice(numbers)] = str(rng.choice([0, 1, 2, 3, 7, 64, 10**6, 10**30]))
    else:
        return edit_shape(text, rng, kind)
    return "".join(tokens)


def edit_shape(text: str, rng: random.Random, kind: str) -> str:
    """Change one dim of one written shape (to `?`, a number, a symbol, an interval, an
    expression), or drop / add a dim."""
    shapes = list(DIMS.finditer(text))
    if not shapes:
        return text
    m = rng.choice(shapes)
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    if kind == "rank" or not dims:
        if dims and rng.random() < 0.5:
            del dims[rng.randrange(len(dims))]
        else:
            dims.insert(rng.randrange(len(dims) + 1), rng.choice(["1", "?", "k", "3"]))
    else:
        dims[rng.randrange(len(dims))] = rng.choice(
            [
                "?",
                "0",
                "1",
                "5",
                "n",
                "m",
                "q",
                "1..4",
                "3..",
                "..2",
                "n + 1",
                "2 * n",
                "(n - 1) // 2",
                "10000000000000000000",
            ]
        )
    inner = ", ".join(dims) + ("," if len(dims) == 1 else "")
    return text[: m.start(1)] + inner + text[m.end(1) :]


def run_mutations(example: Path, prefix: str, count: int, most_edits: int) -> None:
    """`count` mutants of an example (1 to `most_edits` edits each) through check and run."""
    rng = random.Random(prefix.rstrip("-") + example.stem)  # the seeds the examples always had
    original = example.read_text(encoding="utf-8")
    for i in range(count):
        text = original
        for _ in range(rng.randint(1, most_edits)):
            text = mutate(text, rng)
        path = write(f"{prefix}{example.stem}-{i}.rly", text)
        check_and_run(path, text, i)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_mutated_examples_get_a_diagnostic(example: Path) -> None:
    run_mutations(example, "", 12, 3)


@pytest.mark.deep
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_mutated_examples_get_a_diagnostic_deep(example: Path) -> None:
    run_mutations(example, "deep-", 300, 4)


# mutations of models ----------------------------------------------------------------------------------
# A model file is input like any other: an edited or damaged ONNX model or torch.export
# archive gets a diagnostic from check and run, never an exception from a converter or a reader.
DATA = Path(__file__).parent / "data"
ONNX_MODELS = sorted(p for p in (DATA / "onnx").glob("test_*/model.onnx") if p.stat().st_size < 100_000)
ARCHIVES = sorted((DATA / "torch").glob("*.pt2"))
ODD_INTS = [-(2**62), -2, -1, 0, 1, 7, 2**31, 2**62]
ODD_JSON = [None, -1, 0, 2**70, 3.5, True, "", "x", [], [1, 2], {}, {"a": 1}]


def _proto_fields(msg: object) -> list:
    """(message, field) of every scalar or repeated scalar field set in a protobuf message tree."""
    found = []
    for fd, value in msg.ListFields():  # type: ignore[attr-defined]
        if fd.type != fd.TYPE_MESSAGE:
            found.append((msg, fd))
        elif fd.is_repeated:
            for item in value:
                found.extend(_proto_fields(item))
        else:
            found.extend(_proto_fields(value))
    return found


def _odd_scalar(fd: object, old: object, rng: random.Random) -> object:
    """A value of a field's kind that an exporter would not write."""
    if fd.type == fd.TYPE_STRING:  # type: ignore[attr-defined]
        return rng.choice(["", "x", "a b", "批", f"{old}_"])
    if fd.type == fd.TYPE_BYTES:  # type: ignore[attr-defined]
        return old[: len(old) // 2] if old and rng.random() < 0.5 else rng.choice([b"", b"\xff", b"\0" * 3])  # type: ignore[index]
    if fd.type in (fd.TYPE_FLOAT, fd.TYPE_DOUBLE):  # type: ignore[attr-defined]
        return rng.choice([float("nan"), -1e30, 0.0, -1.0])
    value = rng.choice(ODD_INTS)
    if fd.type == fd.TYPE_ENUM:  # type: ignore[attr-defined]
        return abs(value) % 32
    return abs(value) if fd.type in (fd.TYPE_UINT64, fd.TYPE_UINT32) else value  # type: ignore[attr-defined]


def mutate_onnx(model: object, rng: random.Random) -> None:
    """One edit of a ModelProto: a field set to an odd value of its kind, or an element dropped."""
    msg, fd = rng.choice(_proto_fields(model))
    value = getattr(msg, fd.name)
    try:
        if not fd.is_repeated:
            setattr(msg, fd.name, _odd_scalar(fd, value, rng))
        elif value and rng.random() < 0.4:
            del value[rng.randrange(len(value))]
        elif value:
            i = rng.randrange(len(value))
            value[i] = _odd_scalar(fd, value[i], rng)
    except (ValueError, TypeError):  # a value protobuf itself refuses (an int32 out of range)
        pass


def _json_paths(value: object, path: tuple = ()) -> list:
    found = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        found.extend(_json_paths(item, path + (key,)))
    return found


def mutate_json(document: object, rng: random.Random) -> None:
    """One edit of a JSON document: a value (anywhere) replaced by one of another kind, or an
    integer moved to a neighbour, its negation or 0."""
    path = rng.choice(_json_paths(document))
    holder = document
    for key in path[:-1]:
        holder = holder[key]  # type: ignore[index]
    old = holder[path[-1]]  # type: ignore[index]
    if isinstance(old, int) and not isinstance(old, bool) and rng.random() < 0.5:
        holder[path[-1]] = rng.choice([old + 1, old - 1, -old, old * 1000, 0])  # type: ignore[index]
    else:
        holder[path[-1]] = rng.choice(ODD_JSON)  # type: ignore[index]


def mutated_archive(archive: Path, rng: random.Random, edits: int) -> bytes:
    """The archive with `edits` edits of its JSON members (the program, the weights' configs)."""
    import io
    import json
    import zipfile

    with zipfile.ZipFile(archive) as zf:
        members = {info.filename: zf.read(info.filename) for info in zf.infolist()}
    documents = [name for name in members if name.endswith(".json")]
    for _ in range(edits):
        name = rng.choice(documents)
        document = json.loads(members[name])
        mutate_json(document, rng)
        members[name] = json.dumps(document).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def run_model_mutations(seed: int, count: int) -> None:
    """`count` mutants of ONNX models and of each torch.export archive through check and run."""
    import onnx

    rng = random.Random(seed)
    for i in range(count):
        model = onnx.load(str(rng.choice(ONNX_MODELS)))
        for _ in range(rng.randint(1, 3)):
            mutate_onnx(model, rng)
        path = write(f"mutant-{seed}-{i}.onnx", model.SerializeToString())
        clean(gradual_cli("check", path), {0, 1})
        clean(gradual_cli("run", path), {0, 1, 2, 3})
    for archive in ARCHIVES:
        for i in range(max(1, count // 8)):
            path = write(f"mutant-{seed}-{archive.stem}-{i}.pt2", mutated_archive(archive, rng, rng.randint(1, 3)))
            clean(gradual_cli("check", path), {0, 1})
            clean(gradual_cli("run", path), {0, 1, 2, 3})


def test_mutated_models_get_a_diagnostic() -> None:
    run_model_mutations(0, 24)


@pytest.mark.deep
@pytest.mark.parametrize("seed", range(1, 9))
def test_mutated_models_get_a_diagnostic_deep(seed: int) -> None:
    run_model_mutations(seed, 80)


# pathological inputs ---------------------------------------------------------------------------------------
FAST = 120.0  # a hang detector, not a timing: speed is measured by bench/, never by tests


def test_twenty_thousand_nested_parentheses() -> None:
    depth = 20_000
    path = write(
        "parens.rly", "def @main(%x: Tensor[(2,), float32]) {\n  " + "(" * depth + "%x" + ")" * depth + "\n}\n"
    )
    checked = gradual_cli("check", path)
    clean(checked, {0})
    ran = gradual_cli("run", path)
    clean(ran, {0})
    assert ran.out.strip() == "Tensor[(2,), float32]" and max(checked.seconds, ran.seconds) < FAST


def test_twenty_thousand_lets() -> None:
    count = 20_000
    lines = ["  let %v0 = %x;"] + [f"  let %v{i} = nn.relu(%v{i - 1});" for i in range(1, count)]
    path = write(
        "lets.rly", "def @main(%x: Tensor[(2, n), float32]) {\n" + "\n".join(lines) + f"\n  %v{count - 1}\n}}\n"
    )
    checked = gradual_cli("check", path)
    clean(checked, {0})
    ran = gradual_cli("run", path, "--shape", "x=2x3")
    clean(ran, {0})
    assert ran.out.strip() == "Tensor[(2, 3), float32]" and max(checked.seconds, ran.seconds) < FAST


def test_ten_thousand_nested_calls_run() -> None:
    depth = 10_000
    path = write(
        "calls.rly", "def @main(%x: Tensor[(2, ?), float32]) {\n  " + "nn.relu(" * depth + "%x" + ")" * depth + "\n}\n"
    )
    ran = gradual_cli("run", path, "--shape", "x=2x2")
    clean(ran, {0})
    assert ran.out.strip() == "Tensor[(2, 2), float32]" and ran.seconds < FAST


T23 = "Tensor[(2, 3), float32]"


def _nested(depth: int, open_: str, middle: str, close: str) -> str:
    return open_ * depth + middle + close * depth


NESTED = {  # each construct 10,000 deep gets a result, never a traceback
    "closures": lambda d: (
        f"def @main(%x: {T23}) {{\n"
        + "".join(f"fn (%a{i}: {T23}) {{\n" for i in range(d))
        + f"add(%a{d - 1}, %x)\n"
        + "}\n" * d
        + "}\n"
    ),
    "closure calls": lambda d: (
        f"def @main(%x: {T23}) {{\n"
        + "".join(f"let %f{i} = fn (%a{i}: {T23}) {{\n" for i in range(d))
        + f"add(%a{d - 1}, %x)\n"
        + "".join("};\n" + (f"%f{i}(%a{i - 1})\n" if i else "%f0(%x)\n") for i in reversed(range(d)))
        + "}\n"
    ),
    "ifs": lambda d: (
        f"def @main(%x: {T23}, %c: bool) {{\n" + _nested(d, "if (%c) {\n", "nn.relu(%x)\n", "} else { %x }\n") + "}\n"
    ),
    "tuples": lambda d: f"def @main(%x: {T23}) {{\n  " + _nested(d, "(", "%x", ", %x)") + "\n}\n",
    "projections": lambda d: (
        f"def @main(%x: {T23}) {{\n  let %t = " + _nested(d, "(", "%x", ",)") + ";\n  %t" + ".0" * d + "\n}\n"
    ),
    "tuple types": lambda d: f"def @main(%x: {_nested(d, '(', T23, ',)')}) {{\n  %x\n}}\n",
    "function types": lambda d: (
        "def @main(%f: " + "".join(f"fn ({T23}) -> " for _ in range(d)) + T23 + ") {\n  %f\n}\n"
    ),
    "casts": lambda d: f"def @main(%x: {T23}) {{\n  " + "(" * d + "%x" + f" as {T23})" * d + "\n}\n",
}


@pytest.mark.parametrize("construct", NESTED)
def test_ten_thousand_deep(construct: str) -> None:
    """Checking, elaborating and running each nested construct 10,000 deep (types included:
    the printed type of `@main` is as deep) gives a result."""
    path = write(f"deep-{construct.replace(' ', '-')}.rly", NESTED[construct](10_000))
    checked = gradual_cli("check", path, timeout=120)
    clean(checked, {0})
    assert "@main: fn (" in checked.out
    clean(gradual_cli("elaborate", path, timeout=120), {0})
    if construct in ("closure calls", "ifs", "projections"):  # the runtime recurses over these too
        clean(
            gradual_cli(
                "run", path, "--shape", "x=2x3", *(("--arg", "c=1") if construct == "ifs" else ()), timeout=120
            ),
            {0},
        )


def test_five_thousand_dims() -> None:
    """Checks; at runtime a rank NumPy cannot hold is a usage error, not a traceback."""
    path = write("rank.rly", "def @main(%x: Tensor[(" + ", ".join(["1"] * 5_000) + "), float32]) {\n  nn.relu(%x)\n}\n")
    checked = gradual_cli("check", path)
    clean(checked, {0})
    ran = gradual_cli("run", path)
    clean(ran, {2, 3})
    assert "gradual: error" in ran.err or "error" in ran.err
    assert max(checked.seconds, ran.seconds) < FAST


def test_a_dim_of_ten_to_the_thirty() -> None:
    big = 10**30
    path = write("big.rly", f"def @main(%x: Tensor[({big}, 3), float32]) {{\n  nn.relu(%x)\n}}\n")
    checked = gradual_cli("check", path)
    clean(checked, {0})
    assert f"Tensor[({big}, 3), float32]" in checked.out
    ran = gradual_cli("run", path)
    clean(ran, {2})
    shaped = gradual_cli(
        "run", write("big2.rly", "def @main(%x: Tensor[(?, 3), float32]) { nn.relu(%x) }"), "--shape", f"x={big}x3"
    )
    clean(shaped, {2})
    assert max(checked.seconds, ran.seconds, shaped.seconds) < FAST


def test_huge_dims_computed_at_runtime_are_a_clean_error() -> None:
    """A program that asks for a 10^30 tensor itself (not an input) stops with a diagnostic."""
    path = write(
        "bigmake.rly",
        "def @main(%x: Tensor[(2,), float32]) {\n"
        "  let %z = zeros(shape=[1000000000000000000000000000000, 3]);\n  (%x, %z)\n}\n",
    )
    clean(gradual_cli("check", path), {0, 1})
    ran = gradual_cli("run", path)
    clean(ran, {1, 2, 3})


def test_non_utf8_bytes() -> None:
    path = write("latin1.rly", "def @main(%x: Tensor[(2,), float32]) { %x } // caf\xe9".encode("latin-1"))
    for command in ("check", "elaborate", "run"):
        call = gradual_cli(command, path)
        clean(call, {1})
        assert "not UTF-8" in call.err


# real processes ------------------------------------------------------------------------------------------------
def subprocess_gradual(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradual.cli", *args], capture_output=True, text=True, timeout=60)


DEEP = "def @main(%x: Tensor[(2,), float32]) {\n  " + "(" * 20_000 + "%x" + ")" * 20_000 + "\n}\n"


@pytest.mark.parametrize(
    "name, data, command, codes",
    [
        ("garbage.rly", b"\x00\xff\xfe def @main( %x: Tensor[(", "check", {1}),
        ("deep.rly", DEEP.encode(), "run", {0}),
        (
            "rank.rly",
            ("def @main(%x: Tensor[(" + ", ".join(["1"] * 5_000) + "), float32]) { %x }").encode(),
            "run",
            {2, 3},
        ),
        (
            "big.rly",
            b"def @main(%x: Tensor[(1000000000000000000000000000000, 3), float32]) { nn.relu(%x) }",
            "run",
            {2},
        ),
        (
            "shapes.rly",
            b"def @main(%x: Tensor[(2, ?), float32], %y: Tensor[(?, 5), float32]) { add(%x, %y) }",
            "run",
            {2},
        ),
    ],
)
def test_real_processes_exit_cleanly(name: str, data: bytes, command: str, codes: set) -> None:
    path = write(name, data)
    done = subprocess_gradual(command, path)
    assert done.returncode in codes, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def test_a_crash_inside_gradual_is_one_line_and_exit_4(monkeypatch) -> None:
    """Defense in depth: whatever escapes a command is reported without a traceback."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "check_input", broken)
    call = gradual_cli("check", write("ok.rly", "def @main(%x: float32) { %x }"))
    assert call.code == 4 and "Traceback" not in call.err
    assert call.err.startswith("gradual: internal error:") and "RuntimeError: boom" in call.err


def test_the_library_runs_deeply_nested_programs() -> None:
    """`gradual.run` resolves the elaborated program on the large-stack thread too (it hit
    Python's recursion limit at 10,000 nested calls)."""
    import numpy as np

    depth = 10_000
    src = "def @main(%x: Tensor[(2, ?), float32]) {\n  " + "negative(" * depth + "%x" + ")" * depth + "\n}\n"
    (out,) = gradual.run(src, {"x": np.ones((2, 3), np.float32)})
    assert out.shape == (2, 3) and float(out[0, 0]) == 1.0


def test_an_int32_literal_of_ten_to_the_thirty_is_a_diagnostic() -> None:
    """From mutating examples/loop.rly: `add(%i, 10^30)` crashed the runtime (exit 4); the
    checker rejects it now."""
    path = write("biglit.rly", "def @main(%i: int32) {\n  add(%i, 1000000000000000000000000000000)\n}\n")
    for command in ("check", "run"):
        call = gradual_cli(command, path)
        clean(call, {1})
        assert "bad-literal" in call.err


def test_a_written_dim_with_a_coefficient_past_two_to_the_1024() -> None:
    """`((n * 2 + 1) * 2 + 1) ...` 4,000 deep has a coefficient of 2^4000 (within the 4096-bit
    bound): its bounds multiplied that int by an infinite float, an OverflowError (exit 4).
    A sum of 10,000 names is past the bound of 256: a `dim-untracked` note, and `?`."""
    deep = 4_000
    path = write(
        "coefficient.rly",
        "def @main(%x: Tensor[(" + "(" * deep + "n" + " * 2 + 1)" * deep + ", 3), float32]) {\n  nn.relu(%x)\n}\n",
    )
    for command in ("check", "elaborate"):
        clean(gradual_cli(command, path), {0})
    wide = write(
        "sum.rly",
        "def @main(%x: Tensor[(" + " + ".join(f"n{i}" for i in range(10_000)) + ", 3), float32]) {\n  nn.relu(%x)\n}\n",
    )
    checked = gradual_cli("check", wide)
    clean(checked, {0})
    assert "dim-untracked" in checked.err and "@main: fn (Tensor[(?, 3), float32])" in checked.out


BAD_RUN_FLAGS = [  # each a usage error (exit 2): the flag's value is not what it names
    ["--seed", "-1"],
    ["--seed", "abc"],
    ["--seed", "1.5"],
    ["--shape", "x=-1x3"],
    ["--shape", "x=axb"],
    ["--shape", "x=2x3x"],
    ["--shape", "=2x3"],
    ["--shape", "x"],
    ["--shape", "x=99999999999999999999x3"],
    ["--shape", "nope=2x3"],
    ["--arg", "x=nan"],
    ["--arg", "x=/no/such/file.npy"],
    ["--arg", "c=2"],
    ["--arg", "i=3.5"],
    ["--arg", "i=99999999999999999999"],
    ["--entry", "nope"],
    ["--entry", ""],
    ["--format", "bogus"],
    ["--color", "x"],
]


@pytest.mark.parametrize("flags", BAD_RUN_FLAGS, ids=lambda f: " ".join(f))
def test_a_bad_flag_value_is_a_usage_error(flags: list) -> None:
    """`gradual run` with a flag value it cannot use stops with a usage error (exit 2) that names
    it; `--seed -1` reached NumPy's generator and was an internal error (exit 4)."""
    path = write(
        "flags.rly",
        "def @main(%x: Tensor[(?, 3), float32], %c: bool, %i: int32) {\n  if (%c) { nn.relu(%x) } else { %x }\n}\n",
    )
    named = {value.split("=")[0] for flag, value in zip(flags[::2], flags[1::2]) if flag in ("--shape", "--arg")}
    inputs = [
        part
        for name, flag, value in (("x", "--shape", "x=2x3"), ("c", "--arg", "c=1"), ("i", "--arg", "i=3"))
        if name not in named
        for part in (flag, value)
    ]  # the inputs the flags under test leave out
    clean(gradual_cli("run", *flags, *inputs, path), {2})


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("suffix", [".onnx", ".pt2"])
def test_a_device_named_as_a_model_is_not_read(suffix: str) -> None:
    """A model path that is no regular file (here /dev/zero, linked under a model's name) is a
    usage error: reading it went on until memory ran out (an internal error, exit 4, or the
    machine's memory)."""
    link = TMP / f"zero{suffix}"
    link.unlink(missing_ok=True)
    link.symlink_to("/dev/zero")
    for command in ("check", "run", "import"):
        call = gradual_cli(command, str(link), timeout=60)
        clean(call, {2})
        assert "not a regular file" in call.err


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_program_saved_as_utf16_or_utf32_says_so(encoding: str) -> None:
    """A program saved as UTF-16 (Windows' "Unicode") or UTF-32 is an input-error that names
    the encoding: without a byte-order mark it was "unexpected `d`" at 1:1, with one "byte 0xff
    at offset 0"."""
    path = write(f"wide-{encoding}.rly", "def @main(%x: Tensor[(2,), float32]) { %x }\n".encode(encoding))
    for command in ("check", "elaborate", "run"):
        call = gradual_cli(command, path)
        clean(call, {1})
        assert "input-error" in call.err and ("UTF-32" if "32" in encoding else "UTF-16") + " text" in call.err
