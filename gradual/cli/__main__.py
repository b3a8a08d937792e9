"""`python -m gradual.cli`: the same as the `gradual` command."""

from . import entry

entry()
