"""`python -m gradual`: the same as the `gradual` command (and `python -m gradual.cli`)."""

from .cli import entry

entry()
