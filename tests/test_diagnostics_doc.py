"""docs/diagnostics.md: a section per diagnostic code (editors and SARIF reports link to it),
and each section's example program still produces its code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gradual
from gradual.diagnostics import CODES, docs_url

DOC = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"


def sections() -> dict[str, str]:
    """Each `## code` heading and the text under it."""
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return {part.split("\n", 1)[0].strip(): part for part in parts}


def test_every_code_has_a_section_and_nothing_else_does() -> None:
    assert set(sections()) == set(CODES)


@pytest.mark.parametrize("code", sorted(CODES))
def test_the_example_produces_its_code(code: str) -> None:
    body = sections()[code]
    assert "**Fix.**" in body
    found = re.search(r"```gradual\n(.*?)```", body, flags=re.S)
    if found is None:  # runtime codes (gradual run), unreadable files and imported models show a command
        assert code in ("input-error", "check-failed", "runtime-error", "internal-error", "bad-initializer",
                        "dim-constraint", "archive-version", "usage-error")
        return
    result = gradual.check(found.group(1), "example.rly")
    produced = [d for d in result.diagnostics if d.code == code]
    assert produced, [d.code for d in result.diagnostics]
    assert f"[{code}]: {produced[0].message}" in body


def test_links_point_at_the_section() -> None:
    url = docs_url("shape-mismatch")
    assert url.endswith("diagnostics.md#shape-mismatch")
    assert url.startswith("file://") and Path(url[len("file://"):].split("#")[0]).is_file()
