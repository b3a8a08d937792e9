"""What every command of the command line shares: exit codes, usage errors, the console,
errors as JSON, and loading an input with the frontends' options."""

from __future__ import annotations

from typing import Any, Callable

from gradual.analysis.inputs import Unavailable, load
from gradual.frontends import FrontendOption, frontend_for, frontends

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


#: a command's own option that a frontend's option of the same name shares, and the form of
#: the command's own values: `run --arg x=x.npy` is an input, `run --arg 'b, 784 float32'` an
#: argument of a JAX function (its frontend's `--arg`)
SHARED: dict[tuple[str, str], Callable[[str], bool]] = {("run", "arg"): lambda text: "=" in text}


def frontend_options(args: Any) -> dict:
    """The registered frontends' options as given on the command line."""
    return {option.dest: frontend_value(args, option) for frontend in frontends() for option in frontend.options}


def frontend_value(args: Any, option: FrontendOption) -> Any:
    """A frontend option's value on the command line: of an option the command shares
    (`SHARED`), the values that are not of the command's own form (None when there are none)."""
    value = getattr(args, option.dest, None)
    own = SHARED.get((str(getattr(args, "command", "")), option.name))
    if own is None or value is None:
        return value
    return [v for v in value if not own(v)] or None


def command_values(args: Any, name: str) -> list:
    """The values of a command's own repeated option (`run --arg`): where the input's frontend
    takes an option of the same name, only those of the command's form (the frontend reads
    the others); otherwise every one, which the command reads (and refuses if malformed)."""
    values = list(getattr(args, name, None) or [])
    own = SHARED.get((str(getattr(args, "command", "")), name))
    path = getattr(args, "file", None)
    frontend = frontend_for(path) if own is not None and path is not None else None
    if own is None or frontend is None or not any(option.name == name for option in frontend.options):
        return values
    return [v for v in values if own(v)]


def load_input(path: str, args: Any) -> Any:
    """Load a program or model (UsageError when it cannot be loaded at all)."""
    try:
        return load(path, frontend_options(args))
    except Unavailable as exc:
        raise UsageError(str(exc)) from None
