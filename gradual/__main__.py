"""`python -m gradual`: the same as the `gradual` command (and `python -m gradual.cli`)."""

from gradual.cli import entry

entry()
