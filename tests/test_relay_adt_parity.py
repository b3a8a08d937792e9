"""gradual against TVM Relay on the programs of Relay's tests of algebraic data types, tensor
arrays, unmatched cases, the parser and the VM (bench/relay_harvest.py --adt).

Every program of tests/data/relay/adt_corpus.jsonl.gz is checked and compared with Relay's
verdict as tests/relay_parity.py compares the main corpus; tests/data/relay/adt_outcomes.json
records each one's outcome. A program whose outcome gets worse fails here; one that gets
better asks for the record to be rewritten (`python tests/relay_parity.py --adt --update`).
"""

from __future__ import annotations

import collections
from typing import Any, Optional

import numpy as np
import pytest
from relay_parity import ADT_CORPUS, ADT_OUTCOMES, AGREE, classify_all, load_corpus, load_outcomes
from test_relay_parity import BADNESS

import gradual
import gradual.infra.deep
from gradual.runtime.api import run
from gradual.runtime.errors import CheckFailure
from gradual.shapes import Dimension
from gradual.types import TensorType


@pytest.fixture(scope="module")
def outcomes() -> dict:
    return gradual.infra.deep.run_deep(classify_all, load_corpus(ADT_CORPUS))


def test_every_program_has_a_recorded_outcome(outcomes: dict) -> None:
    assert set(outcomes) == set(load_outcomes(ADT_OUTCOMES))


def test_no_program_gets_worse(outcomes: dict) -> None:
    recorded = load_outcomes(ADT_OUTCOMES)
    worse = [
        f"{pid}: {recorded[pid]} -> {now}"
        for pid, now in sorted(outcomes.items())
        if pid in recorded and BADNESS[now] > BADNESS[recorded[pid]]
    ]
    assert not worse, "programs of Relay's ADT tests whose outcome got worse:\n" + "\n".join(worse)


def test_the_record_is_up_to_date(outcomes: dict) -> None:
    recorded = load_outcomes(ADT_OUTCOMES)
    changed = [f"{pid}: {recorded[pid]} -> {now}" for pid, now in sorted(outcomes.items()) if now != recorded.get(pid)]
    assert not changed, "record them with `python tests/relay_parity.py --adt --update`:\n" + "\n".join(changed)


def test_most_programs_relay_accepts_check_as_relay_types_them(outcomes: dict) -> None:
    """The target: at least 95% of the programs Relay accepts and gradual can read check with
    Relay's types or more precise ones."""
    entries = {e["id"]: e for e in load_corpus(ADT_CORPUS)}
    accepted = [pid for pid, e in entries.items() if "error" not in e and outcomes[pid] != "unreadable"]
    agree = sum(outcomes[pid] in AGREE for pid in accepted)
    assert agree >= 0.95 * len(accepted), collections.Counter(outcomes[pid] for pid in accepted)


#: programs whose run Relay's own tests expect to stop: the tail of an empty list, a read of a
#: tensor array's slot that was never written (with the inputs of ones given here)
EXPECTED_STOPS = {"a0046", "a0070"}


def _ones(t: Any) -> Optional[np.ndarray]:
    """An input of ones of a fully static tensor type (None for any other type)."""
    if not isinstance(t, TensorType) or t.dims is None or not isinstance(t.dtype, str):
        return None
    if not all(isinstance(d, Dimension) and d.is_static for d in t.dims):
        return None
    return np.ones([d.get_length() for d in t.dims], dtype=t.dtype)


@pytest.mark.parametrize(
    "every", [pytest.param(4, id="every fourth"), pytest.param(1, marks=pytest.mark.deep, id="all")]
)
def test_the_programs_that_agree_run(outcomes: dict, every: int) -> None:
    """Each program that checks as Relay types it and has a `@main` of static inputs runs on
    NumPy (with ones); the two that Relay's tests expect to fail stop at a partial match.
    By default every fourth program runs (and the two), each a whole prelude checked again
    (half a second of the suite each); `-m deep` runs them all."""
    ran, stopped = 0, set()
    for index, entry in enumerate(load_corpus(ADT_CORPUS)):
        if outcomes[entry["id"]] not in AGREE or "error" in entry:
            continue
        if index % every and entry["id"] not in EXPECTED_STOPS:
            continue
        result = gradual.check(entry["text"], entry["id"])  # checked once: run takes the result
        main = result.function_type("main")
        inputs = [_ones(p) for p in main.params] if main is not None else [None]
        if any(i is None for i in inputs):
            continue
        assert result.module is not None
        names = [p.var.name for p in result.module.find("main").params]
        try:
            run(result, dict(zip(names, inputs)), path=entry["id"])
            ran += 1
        except CheckFailure as failure:
            assert failure.blame.kind == "match", (entry["id"], str(failure))
            stopped.add(entry["id"])
    assert stopped == EXPECTED_STOPS
    assert ran >= 55 // every, ran
