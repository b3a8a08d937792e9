"""The command line's own words: options that do not fit together."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


def option_not_used(option: str, takers: list) -> str:
    """A frontend option given on the command line where no input is of a kind that takes it
    (`gradual check --batch N prog.rly`): it would have been silently ignored."""
    kinds = " and ".join(takers) or "no file kind"
    return f"`--{option}` applies to {kinds}, and no input here is one: it was not used"


def option_needs(option: str, needed: str) -> str:
    """A frontend option that does nothing without another one."""
    return f"`--{option}` does nothing without `--{needed}`: it was not used"


def format_bad_width(text: str) -> str:
    """A `gradual format --width` outside what it takes."""
    return f"cannot read `{text}` as a width: expected a whole number of columns from 20 to 1000"


def format_refused(path: str, reason: str) -> str:
    """A file formatting would not keep as it is (the formatter's own check failed)."""
    return f"{path}: not formatted: {reason}; the file is left as it is (a bug in gradual: please report it)"


def runtime_bad_seed(text: str) -> str:
    """A `--seed` NumPy's generator does not take."""
    return f"cannot read `{text}` as a seed: expected a whole number, 0 or more"
