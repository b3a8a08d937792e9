"""gradual against TVM Relay on the modules Relay's own tests type-check.

Every program of tests/data/relay/corpus.jsonl is checked and compared with Relay's verdict
(tests/relay_parity.py says how); tests/data/relay/outcomes.json records each one's outcome.
A program whose outcome gets worse fails here; one that gets better asks for the record to be
rewritten (`python tests/relay_parity.py --update`), so the README's table stays true.
"""

from __future__ import annotations

import pytest
from relay_parity import classify_all, load_corpus, load_outcomes, table

import gradual.infra.deep

#: how bad an outcome is: a program may move down this scale, never up
BADNESS = {
    "equal": 0,
    "more-precise": 0,
    "both-reject": 0,
    "less-precise": 1,
    "unreadable": 2,
    "rejected": 3,
    "disagree": 3,
    "accepted": 4,
}


@pytest.fixture(scope="module")
def outcomes() -> dict:
    return gradual.infra.deep.run_deep(classify_all, load_corpus())


def test_every_program_has_a_recorded_outcome(outcomes: dict) -> None:
    assert set(outcomes) == set(load_outcomes())


def test_no_program_gets_worse(outcomes: dict) -> None:
    recorded = load_outcomes()
    worse = [
        f"{pid}: {recorded[pid]} -> {now}"
        for pid, now in sorted(outcomes.items())
        if pid in recorded and BADNESS[now] > BADNESS[recorded[pid]]
    ]
    assert not worse, "programs of Relay's tests whose outcome got worse:\n" + "\n".join(worse)


def test_the_record_is_up_to_date(outcomes: dict) -> None:
    recorded = load_outcomes()
    better = [
        f"{pid}: {recorded[pid]} -> {now}"
        for pid, now in sorted(outcomes.items())
        if pid in recorded and now != recorded[pid] and BADNESS[now] <= BADNESS[recorded[pid]]
    ]
    assert not better, (
        "outcomes changed for the better; record them with "
        "`python tests/relay_parity.py --update`:\n" + "\n".join(better) + "\n" + table(outcomes)
    )


def test_nothing_relay_rejects_is_accepted(outcomes: dict) -> None:
    accepted = sorted(pid for pid, now in outcomes.items() if now == "accepted")
    assert not accepted, f"gradual accepts programs Relay rejects: {accepted}"
