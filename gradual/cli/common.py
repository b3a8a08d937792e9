"""What every command of the command line shares: exit codes, usage errors, the console,
errors as JSON, and loading an input with the frontends' options."""

from __future__ import annotations

from typing import Any

from gradual.analysis.inputs import Unavailable, load
from gradual.frontends import frontends

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_CHECK_FAILED, EXIT_INTERNAL = 0, 1, 2, 3, 4


class UsageError(Exception):
    """Bad command-line usage or an unusable input (exit 2)."""


def error_json(code: str, message: str) -> dict:
    """An error that belongs to no file and no position (a usage or internal error), with the
    fields of a JSON diagnostic (render.diagnostic_json), its path and positions null."""
    return {
        "path": None,
        "severity": "error",
        "code": code,
        "message": message,
        "line": None,
        "column": None,
        "end_line": None,
        "end_column": None,
        "label": "",
        "labels": [],
        "notes": [],
        "help": None,
    }


def console(color: str) -> Any:
    """A rich console on stderr (rich is imported only when there is something to draw).
    `auto` leaves colour to rich: a terminal gets it unless `NO_COLOR` is set (no-color.org);
    `always` and `never` override the environment."""
    from rich.console import Console

    force = {"always": True, "never": False}.get(color)
    no_color = {"always": False, "never": True}.get(color)  # None: rich reads NO_COLOR
    return Console(
        stderr=True,
        highlight=False,
        force_terminal=force,
        no_color=no_color,
        width=200 if force is False else None,
        soft_wrap=True,
    )


def frontend_options(args: Any) -> dict:
    """The registered frontends' options as given on the command line."""
    return {option.dest: getattr(args, option.dest, None) for frontend in frontends() for option in frontend.options}


def load_input(path: str, args: Any) -> Any:
    """Load a program or model (UsageError when it cannot be loaded at all)."""
    try:
        return load(path, frontend_options(args))
    except Unavailable as exc:
        raise UsageError(str(exc)) from None
