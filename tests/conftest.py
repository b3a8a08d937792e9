"""Hypothesis profiles: the default suite is derandomized, so a red run on a fresh clone is a
real regression that reproduces; `-m deep` explores with fresh random seeds each time."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("suite", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)


def pytest_configure(config) -> None:
    """Pick the profile from the marker expression (`-m deep` explores)."""
    expression = config.getoption("markexpr", "") or ""
    exploring = "deep" in expression and "not deep" not in expression
    settings.load_profile("explore" if exploring else "suite")
