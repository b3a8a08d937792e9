"""What makes `gradual lsp` (and every command) start quickly, and how it falls back: the
user cache (`gradual.infra.usercache`), the parsed stdlib kept there, the compiled `attrs` methods
the server keeps there (`gradual.lsp.startup`), and what the server does not import."""

from __future__ import annotations

import marshal
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gradual.infra import usercache
from gradual.ops import registry
from gradual.syntax.ast import same_tree


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh user cache for one test."""
    where = tmp_path / "cache"
    monkeypatch.setenv("GRADUAL_CACHE_DIR", str(where))
    usercache.directory.cache_clear()
    yield where
    usercache.directory.cache_clear()


def test_an_entry_is_read_back_only_with_its_key(cache_dir: Path) -> None:
    key = usercache.key("stdlib", "text")
    usercache.store("entry", key, b"payload")
    assert usercache.load("entry", key) == b"payload"
    assert usercache.load("entry", usercache.key("stdlib", "other text")) is None
    assert usercache.load("missing", key) is None
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700


def test_keys_tell_their_parts_apart() -> None:
    assert usercache.key("ab", "c") != usercache.key("a", "bc")
    assert usercache.key(b"x") == usercache.key("x")


@pytest.mark.parametrize("setting", ["", "file"])
def test_no_usable_directory_caches_nothing(tmp_path, monkeypatch, setting: str) -> None:
    if setting == "file":  # a path that cannot be a directory
        setting = str(tmp_path / "a-file")
        Path(setting).write_text("")
    monkeypatch.setenv("GRADUAL_CACHE_DIR", setting)
    usercache.directory.cache_clear()
    try:
        assert usercache.directory() is None and usercache.path("x") is None
        usercache.store("entry", b"k", b"payload")  # nothing, and no error
        assert usercache.load("entry", b"k") is None
    finally:
        usercache.directory.cache_clear()


def test_a_directory_others_can_write_to_is_not_used(tmp_path, monkeypatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("GRADUAL_CACHE_DIR", str(shared))
    usercache.directory.cache_clear()
    try:
        assert usercache.directory() is None
    finally:
        usercache.directory.cache_clear()


def _stdlib_paths() -> list:
    return registry.operator_files()


def test_the_cached_stdlib_is_the_parsed_one(cache_dir: Path) -> None:
    parsed = registry._stdlib_modules(_stdlib_paths())  # parses, and stores
    assert (cache_dir / registry.stdlib_cache_name(_stdlib_paths())).is_file()
    cached = registry._stdlib_modules(_stdlib_paths())  # reads back
    assert cached is not parsed and len(cached) == len(parsed)
    for a, b in zip(parsed, cached):
        assert same_tree(a, b)
        assert [d.doc for d in a.defs] == [d.doc for d in b.defs]
        assert [d.span.describe() for d in a.defs] == [d.span.describe() for d in b.defs]


def test_two_installs_keep_their_own_stdlib_entries() -> None:
    here = _stdlib_paths()
    elsewhere = [Path("/elsewhere/site-packages/stdlib") / p.name for p in here]
    assert registry.stdlib_cache_name(here) != registry.stdlib_cache_name(elsewhere)
    assert registry.stdlib_cache_name(here) == registry.stdlib_cache_name(list(here))


def test_a_damaged_stdlib_entry_is_parsed_again(cache_dir: Path) -> None:
    parsed = registry._stdlib_modules(_stdlib_paths())
    entry = cache_dir / registry.stdlib_cache_name(_stdlib_paths())
    data = entry.read_bytes()
    entry.write_bytes(data[:32] + b"not a pickle")  # the key is intact, the payload is not
    again = registry._stdlib_modules(_stdlib_paths())
    assert all(same_tree(a, b) for a, b in zip(parsed, again))
    assert entry.read_bytes() != data[:32] + b"not a pickle"  # rewritten


def test_compiled_code_from_the_cache_behaves_as_compiled(cache_dir: Path) -> None:
    from gradual.lsp.startup import CompileCache

    script = "def twice(x):\n    return 2 * x\n"
    first = CompileCache({})
    code = first(script, "<generated twice>", "exec")
    assert first.new == 1
    second = CompileCache(dict(first.used))
    again = second(script, "<generated twice>", "exec")
    assert second.new == 0 and again == code
    scope: dict = {}
    exec(again, scope)
    assert scope["twice"](21) == 42
    broken = CompileCache(dict.fromkeys(first.used, b"garbage"))
    assert broken(script, "<generated twice>", "exec") == code and broken.new == 1


def _run(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True, timeout=120
    )


def test_the_server_imports_fill_the_cache_and_load_no_runtime(tmp_path) -> None:
    code = (
        "import sys\nfrom gradual.lsp.startup import fast_imports\n"
        "with fast_imports():\n    import gradual.lsp.server\n"
        "print(sorted(m for m in ('numpy', 'rich', 'gradual.runtime') if m in sys.modules))"
    )
    env = {"GRADUAL_CACHE_DIR": str(tmp_path)}
    first = _run(code, env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "[]"
    entries = marshal.loads((tmp_path / "attrs-code.marshal").read_bytes()[32:])
    assert len(entries) > 100  # every class lsprotocol defines
    second = _run(code, env)
    assert second.returncode == 0 and second.stdout.strip() == "[]", second.stderr


def test_the_server_imports_with_a_damaged_or_no_cache(tmp_path) -> None:
    code = "from gradual.lsp.startup import fast_imports\nwith fast_imports():\n    import gradual.lsp.server\n"
    from importlib.util import MAGIC_NUMBER

    (tmp_path / "attrs-code.marshal").write_bytes(usercache.key(MAGIC_NUMBER) + b"not marshal data")
    assert _run(code, {"GRADUAL_CACHE_DIR": str(tmp_path)}).returncode == 0
    assert _run(code, {"GRADUAL_CACHE_DIR": ""}).returncode == 0


def test_a_document_loads_the_stdlib_when_first_analyzed(monkeypatch) -> None:
    """The server makes documents on its event loop and analyzes them on its worker: loading
    the stdlib when a document is made loaded it on both threads at once."""
    from gradual.analysis import document

    loads = []
    monkeypatch.setattr(document, "default_registry", lambda: loads.append(1) or registry.default_registry())
    doc = document.Document("made.rly")
    assert loads == []
    doc.analyze("def @main(%x: Tensor[(2,), float32]) { nn.relu(%x) }")
    assert loads == [1]


def test_checking_an_onnx_model_imports_no_onnx(tmp_path) -> None:
    """`gradual check model.onnx` reads the model with protobuf's parser and ONNX's schemas from
    the user cache: `import onnx` (and its ml_dtypes) was most of a small model's check. The
    first check fills the cache from onnx; the next imports neither, nor the runtime, for a
    TorchScript and a dynamo export alike."""
    pytest.importorskip("onnx")
    exported = Path(__file__).parent / "data" / "onnx" / "exported"
    code = (
        "import sys\nfrom gradual.cli import main\n"
        "try:\n    main(['check', '--quiet', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('onnx', 'ml_dtypes', 'gradual.runtime') "
        "if m in sys.modules))"
    )
    env = dict(os.environ, GRADUAL_CACHE_DIR=str(tmp_path))
    for name in ("bert.ts.onnx", "vit.ts.onnx", "gpt2.dynamo.onnx", "mobilenet_v2.ts.onnx"):
        model = str(exported / name)
        first = subprocess.run([sys.executable, "-c", code, model], env=env, capture_output=True, text=True)
        assert first.returncode == 0, first.stderr
        again = subprocess.run([sys.executable, "-c", code, model], env=env, capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip().splitlines()[-1] == "[]", (name, again.stdout)
