"""Without the `onnx` package (CI installs only `.[test]`), reading a model is a usage error
that says how to install the extra, and nothing else in gradual needs onnx."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs the command line with `import onnx` made to fail, whether or not onnx is installed.
SCRIPT = """
import sys
sys.modules["onnx"] = None
from gradual.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run_without_onnx(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_checking_a_model_without_onnx_says_how_to_install_it(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read")
    proc = run_without_onnx("check", str(model))
    assert proc.returncode == 2
    assert "pip install 'gradual[onnx]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_importing_without_onnx_is_the_same_usage_error(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read")
    for argv in (("import", str(model)), ("run", str(model))):
        proc = run_without_onnx(*argv)
        assert proc.returncode == 2 and "gradual[onnx]" in proc.stderr and "Traceback" not in proc.stderr


def test_programs_check_without_onnx() -> None:
    proc = run_without_onnx("check", str(ROOT / "examples" / "mlp.rly"))
    assert proc.returncode == 0, proc.stderr


def test_under_pre_commit_the_message_names_the_hook_that_brings_onnx(tmp_path: Path) -> None:
    """pre-commit installs a hook's environment itself (PRE_COMMIT=1 in its hooks): `pip
    install` is no advice there; the hook that installs onnx, or the config line, is."""
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read")
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, "check", str(model)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=dict(os.environ, PRE_COMMIT="1"),
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "gradual-check-models" in proc.stderr and 'additional_dependencies: ["onnx>=1.14"]' in proc.stderr


def test_the_models_hook_installs_onnx() -> None:
    """.pre-commit-hooks.yaml: `gradual-check-models` declares onnx (pre-commit uses a
    manifest's `additional_dependencies` unless the user's config gives its own), at the
    version the `onnx` extra asks; `gradual-check` does not."""
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hooks = {m.group(1): m.group(0) for m in re.finditer(r"(?ms)^- id: (\S+)$.*?(?=^- id: |\Z)", manifest)}
    assert set(hooks) == {"gradual-check", "gradual-check-models"}
    extra = re.search(r"^onnx = \[([^\]]*)\]", (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M).group(1)
    assert f"additional_dependencies: [{extra}]" in hooks["gradual-check-models"]
    assert "additional_dependencies" not in hooks["gradual-check"]
    for body in hooks.values():
        assert "entry: gradual check --quiet --color=never" in body and r"files: (?i)\.(rly|onnx|pt2)$" in body
