"""The modules mypy does not report on: none (an `ignore_errors` override in pyproject.toml would name them).

`mypy gradual` itself (CI, pre-commit) holds every other module to zero errors; these tests
hold the list: no wildcard (a new module is checked from its first line), every name a module
that exists, no name added beyond the ones exempt when the list was written, and the list in
docs/checks.md the same as the configuration's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the configuration is the same on 3.10

ROOT = Path(__file__).resolve().parent.parent

#: the most the exemption may name: nothing (fix a new error instead of exempting its module)
EXEMPT_AT_MOST: frozenset[str] = frozenset()


def exempt_modules() -> list[str]:
    """The modules named in every `ignore_errors = true` override of pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names: list[str] = []
    for override in config["tool"]["mypy"].get("overrides", []):
        if override.get("ignore_errors"):
            module = override["module"]
            names.extend([module] if isinstance(module, str) else module)
    return names


def test_the_exemption_names_modules_not_patterns() -> None:
    wildcards = [name for name in exempt_modules() if "*" in name]
    assert not wildcards, f"{wildcards}: a pattern would exempt every new module under it; name the modules"


def test_every_exempt_module_exists() -> None:
    missing = [name for name in exempt_modules() if not (ROOT / (name.replace(".", "/") + ".py")).is_file()]
    assert not missing, f"{missing} are exempt from mypy but are no module: take them off the list"


def test_the_exemption_only_shrinks() -> None:
    added = sorted(set(exempt_modules()) - EXEMPT_AT_MOST)
    assert not added, f"{added} newly exempt from mypy: fix their errors instead (docs/checks.md)"


def test_docs_list_the_exempt_modules() -> None:
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\s*\| `(gradual\.[a-z_.]+)` \|", text, re.M))
    assert documented == set(exempt_modules()), "docs/checks.md's table of exempt modules differs from pyproject.toml"
