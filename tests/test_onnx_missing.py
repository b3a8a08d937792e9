"""Without the `onnx` package (CI installs only `.[test]`), reading a model is a usage error
that says how to install the extra, and nothing else in gradual needs onnx."""

from __future__ import annotations

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
