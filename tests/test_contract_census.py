"""docs/contracts.md's census table is what the declarations and rules hold now."""

from __future__ import annotations

from contract_census import census, documented, markdown


def test_the_census_in_the_docs_is_current() -> None:
    assert documented() == markdown(census()), "run `python tests/contract_census.py --write`"
