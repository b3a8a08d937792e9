"""The JAX frontend's words: a function JAX cannot trace, a Python file that does not import,
a name it does not define, and the command line's `FILE.py:NAME --arg 'SHAPE DTYPE'` misused.

Diagnostics are made with the public `gradual.Diagnostic` (code, message, span, label, notes,
help); usage errors are sentences the command line prints after `gradual: error:`.
"""

from __future__ import annotations

import difflib
from typing import Any, Optional

import gradual

#: how an argument is written on the command line, for usage errors to show
ARG_FORM = "--arg 'b, 784 float32'"


def trace_failed(exc: BaseException, span: Any, name: str, shape_rule: bool, callers: list) -> Any:
    """The traced function raised while JAX traced it: JAX's own shape rules (`shape_rule`)
    or the function's own code; `callers`: the user's frames that led there, innermost first,
    as ((path, line, ...), function name)."""
    message = str(exc).split("\n", 1)[0].strip() or type(exc).__name__
    label = "JAX's shape rules refused this operation" if shape_rule else f"{type(exc).__name__} raised here"
    called = tuple(f"called from {place[0]}:{place[1]}, in `{function}`" for place, function in callers)
    return gradual.Diagnostic(
        "op-constraint",
        f"JAX cannot trace this: {message}",
        span,
        label=label,
        notes=(*called, f"{type(exc).__name__} raised while JAX traced `{name}`"),
    )


def import_failed(exc: BaseException, span: Any, file: str) -> Any:
    """The Python file raised while it was imported (a module it imports is missing, its
    top-level code failed)."""
    message = str(exc).split("\n", 1)[0].strip()
    what = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return gradual.Diagnostic(
        "input-error",
        f"{file} does not import: {what}",
        span,
        label=f"{type(exc).__name__} raised here",
        notes=("gradual imports the file to find the function, with its directory on sys.path",),
    )


def syntax_error(exc: SyntaxError, span: Any, file: str) -> Any:
    """The Python file (or one it imports) is not Python."""
    return gradual.Diagnostic(
        "input-error",
        f"{file} does not import: {type(exc).__name__}: {exc.msg}",
        span,
        label=exc.msg or "not Python",
    )


def no_such_function(file: str, name: str, span: Any, defined: list) -> Any:
    """The file imports but defines no `name` (the closest names it defines as help)."""
    close = difflib.get_close_matches(name, defined, n=1)
    listed = ", ".join(f"`{n}`" for n in defined[:12]) + (", ..." if len(defined) > 12 else "")
    help_text = f"did you mean `{close[0]}`?" if close else (f"it defines {listed}" if defined else None)
    return gradual.Diagnostic(
        "input-error",
        f"{file} has no function `{name}`",
        span,
        label=f"no `{name}` in this module",
        help=help_text,
    )


def not_a_function(file: str, name: str, value: Any, span: Any) -> Any:
    """The name is defined, but is nothing JAX can trace."""
    return gradual.Diagnostic(
        "input-error",
        f"`{name}` in {file} is {_a(type(value).__name__)}, not a function JAX can trace",
        span,
        label=f"`{name}` is defined here",
    )


def _a(noun: str) -> str:
    return f"an `{noun}`" if noun[:1].lower() in "aeiou" else f"a `{noun}`"


# usage errors ---------------------------------------------------------------------------------
def name_the_function(path: str) -> str:
    """A Python file given without the function to check."""
    return (
        f"{path}: name the JAX function to check in the file, `{path}:NAME`, with one `{ARG_FORM}` per "
        "argument (its shape, then its dtype)"
    )


def not_a_name(path: str, member: str) -> str:
    """`FILE.py:NAME` whose NAME is no Python name (dotted names reach attributes)."""
    return f"{path}: `{member}` is not a Python name: write `FILE.py:NAME` (or `FILE.py:NAME.ATTRIBUTE`)"


def jax_not_installed(detail: Optional[str] = None) -> str:
    """JAX cannot be imported here."""
    if detail:  # JAX is there but broken (a jaxlib of another version, a missing library)
        return f"checking a JAX function needs the `jax` package, and importing it failed ({detail}): reinstall it, pip install --force-reinstall 'gradual[jax]'"
    return "checking a JAX function needs the `jax` package: pip install 'gradual[jax]'"


def bad_arg(text: str, reason: str) -> str:
    """An `--arg` that does not read as a shape and a dtype."""
    return f"cannot read `--arg '{text}'`: {reason}; write the shape, then the dtype: {ARG_FORM}"


def wrong_arg_count(name: str, where: str, params: list, low: int, high: Optional[int], given: int) -> str:
    """The number of `--arg`s does not fit the function's positional parameters."""
    if high == low:
        takes = f"{low} argument{'' if low == 1 else 's'}"
    elif high is None:
        takes = f"at least {low} argument{'' if low == 1 else 's'}"
    else:
        takes = f"{low} to {high} arguments"
    listed = f" ({', '.join(params)})" if params else ""
    return (
        f"`{name}` ({where}) takes {takes}{listed}, and {given} `--arg` {'was' if given == 1 else 'were'} given: "
        f"give one `{ARG_FORM}` per argument, in order"
    )


def keyword_only(name: str, where: str, params: list) -> str:
    """A function with keyword-only parameters that have no default: `--arg` cannot give them."""
    return (
        f"`{name}` ({where}) has keyword-only parameters without defaults ({', '.join(params)}), which "
        "`--arg` cannot give: check a function of positional arguments (a wrapper that passes them)"
    )


def header(name: str, file: str, version: str, specs: list) -> tuple:
    """The comment lines `gradual import FILE.py:NAME` prints above the program."""
    return (f"JAX function `{name}` of {file}, traced with jax {version}", "arguments: " + "; ".join(specs))
