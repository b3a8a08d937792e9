"""OpenVINO's own shape-algebra tests (ported as data in tests/data/openvino/shape_tests.port)
against gradual's Dimension / PartialShape / Shape / Interval / Symbol.

Every assertion gives OpenVINO's answer, except the deliberate differences: each is marked in
the data with a key that docs/design.md documents, and gradual must give the answer the data
states for it (so a difference cannot change unnoticed). bench/openvino_parity.py prints the
parity table and re-derives the answers with the real `openvino` package.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from peer_port import RAISES, format_answer, gradual_namespace, read_port, run_test

TESTS = read_port()
DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design.md"
PASS_RATE = 0.98


@pytest.mark.parametrize("ported", TESTS, ids=[t.ident for t in TESTS])
def test_openvino_assertions_hold(ported) -> None:
    problems = []
    for outcome in run_test(ported, gradual_namespace):
        line = outcome.line
        expected = line.gradual_answer if line.difference else line.answer
        if outcome.missing:
            problems.append(f"line {line.number}: {line.source}: missing API ({outcome.missing})")
        elif outcome.value != expected:
            error = f" [{outcome.error}]" if outcome.error and outcome.value == RAISES else ""
            problems.append(
                f"line {line.number}: {line.source} => {format_answer(outcome.value)}{error}, "
                f"expected {format_answer(expected)}"
            )
    assert not problems, f"{ported.origin} :: {ported.name}\n" + "\n".join(problems)


def test_pass_rate_and_every_difference_is_documented() -> None:
    assertions = [line for t in TESTS for line in t.assertions]
    differences = {line.difference for line in assertions if line.difference}
    documented = set(re.findall(r"\*\*`([a-z0-9-]+)`\*\*", DESIGN.read_text(encoding="utf-8")))
    assert differences <= documented, f"undocumented differences: {sorted(differences - documented)}"
    rate = sum(1 for line in assertions if not line.difference) / len(assertions)
    assert rate >= PASS_RATE, f"only {rate:.1%} of OpenVINO's assertions hold as they are"


def test_the_port_reads_what_it_says() -> None:
    """The format's corners: a difference needs its key and gradual's answer; answers are
    literals or `raises`."""
    first = TESTS[0]
    assert first.origin == "src/core/tests/dimension.cpp" and len(first.commit) == 40
    differences = [line for t in TESTS for line in t.assertions if line.difference]
    assert all(line.gradual_answer != line.answer for line in differences)
    assert any(line.answer == RAISES for t in TESTS for line in t.assertions)
