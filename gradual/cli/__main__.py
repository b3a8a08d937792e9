"""`python -m gradual.cli`: the same as the `gradual` command."""

from gradual.cli import entry

entry()
