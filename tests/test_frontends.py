"""The frontend registry: built-in frontends, and those an installed distribution declares
through the `gradual.frontends` entry point group (found without importing importlib.metadata
when no distribution declares one)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import gradual.frontends as registry

PLUGIN = """
from gradual.frontends import Frontend, LoadedModel, register_frontend

register_frontend(Frontend("fake", (".fake",), lambda path, options: LoadedModel(path, None, [])))
"""


def distribution(site: Path, name: str, entry_points: str) -> None:
    """A distribution installed in `site` whose entry_points.txt says `entry_points`."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as before any plugin was looked for (the built-in frontends registered)."""
    registry.frontends()
    monkeypatch.setattr(registry, "_FRONTENDS", dict(registry._FRONTENDS))
    monkeypatch.setattr(registry, "_loaded", False)


def test_a_distribution_that_declares_a_frontend_registers_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    (tmp_path / "fake_frontend_plugin.py").write_text(PLUGIN)
    distribution(
        tmp_path, "fake_plugin", "[console_scripts]\nx = y:z\n\n  [gradual.frontends]\nfake = fake_frontend_plugin\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fake_frontend_plugin", raising=False)
    assert registry._may_declare_entry_points()
    assert {f.name for f in registry.frontends()} == {"onnx", "torch.export", "jax", "fake"}
    assert registry.frontend_for("model.fake").name == "fake"


def test_distributions_without_the_group_need_no_metadata_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    distribution(tmp_path, "other_plugin", "[console_scripts]\nx = y:z\n[gradual.frontends.more]\nq = r\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    assert not registry._may_declare_entry_points()
    assert registry._entry_points() == []


def test_what_the_look_cannot_see_into_is_left_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "packed.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "packed.zip")])
    assert registry._may_declare_entry_points()
    (tmp_path / "old.egg").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert registry._may_declare_entry_points()


def test_every_committed_models_elaborated_program_checks_again() -> None:
    """spec §5: `gradual elaborate`'s output parses and runs, so it must check again. A model's
    dynamic dims are the exporter's claim (spec §6): the elaborated program writes them as the
    function attribute `claimed=[...]`; without it, a check the claim had made (a warning and a
    cast) was a rigid-symbol error when checked again (8 of the committed models that check
    clean)."""
    import glob

    import gradual
    from gradual.analysis.inputs import check_input, load

    root = Path(__file__).parent / "data"
    paths = sorted(glob.glob(str(root / "onnx/**/*.onnx"), recursive=True) + glob.glob(str(root / "torch/*.pt2")))
    clean = failed = 0
    for path in paths:
        checked = check_input(load(path))
        if checked.result is None or not checked.result.ok:
            continue
        clean += 1
        again = gradual.check(gradual.elaborate_text(checked.result), "<elaborated>")
        failed += not again.ok
    assert clean >= 100 and failed == 0
