"""Loading an input: a program file read as text, or a model imported by the frontend
registered for its file kind; then checking it. Every front end (command line, language
server, library) loads through here.

Problems that make an input unusable at all (a missing file, a frontend whose package is not
installed) raise `Unavailable`; a file that is there but cannot be read as what it claims to
be (not UTF-8, too large, not a model) loads with a diagnostic saying why.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from gradual.diagnostics.codes import INPUT_ERROR
from gradual.frontends import (
    Frontend,
    FrontendUnavailable,
    FrontendUsageError,
    LoadedModel,
    frontend_for,
    frontends,
    model_file,
)
from gradual.syntax.source import Source, Span, wide_encoding

if TYPE_CHECKING:
    from gradual.checker.driver import CheckResult

# The checker loads only where an input is checked or a problem is worded: reading a program
# that is plain UTF-8 text (all `gradual format` does) does not pay for it.

MAX_FILE_BYTES = 64 * 1024 * 1024


class Unavailable(Exception):
    """The input cannot be loaded at all (missing, a directory, unreadable, or its frontend
    is not installed): a usage problem, not a diagnostic."""


@dataclass
class Input:
    """A loaded input: program text, or a frontend's model; `problem` is the diagnostic of
    an input that could not be read as text."""

    path: str
    text: Optional[str] = None
    model: Optional[LoadedModel] = None
    problem: Optional[object] = None
    #: a program's `claimed=[...]` dims are claims (False under `--strict-dims`: promises, as
    #: a frontend's dims are then)
    claims: bool = True


@dataclass
class Checked:
    """An input and what checking it gave (`result` is None when there was nothing to check)."""

    input: Input
    result: Optional[CheckResult]
    diagnostics: list = field(default_factory=list)


def read_text(path: str) -> Input:
    """Read a program file (`-`: standard input) as UTF-8."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        raise unavailable(path, exc, "program") from None
    if len(data) <= MAX_FILE_BYTES and not data.startswith(LFS_POINTER) and wide_encoding(data) is None:
        try:
            return Input(path, data.decode("utf-8"))  # what decode_program gives such text
        except UnicodeDecodeError:
            pass
    from gradual.checker import messages
    from gradual.checker.driver import decode_program

    if len(data) > MAX_FILE_BYTES:
        span = Span(Source("", path), 0, 0)
        return Input(path, problem=messages.input_error(span, f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB"))
    if data.startswith(LFS_POINTER):
        return Input(
            path, problem=messages.input_unavailable(Span(Source("", path), 0, 0), messages.lfs_pointer_detail())
        )
    text, problem = decode_program(data, path)
    if problem is not None and path != "-":
        _note_other_kind(problem, path, None, {})
    return Input(path, text, problem=problem)


def unavailable(path: str, exc: Exception, kind: str) -> Unavailable:
    """Why a path cannot be opened, said the same for a program and a model (`kind`): a
    symbolic link loop was "cannot read (Too many levels of symbolic links)" for a `.rly`
    file and "no such file" for a `.onnx` or `.pt2` one (which asked `os.path.exists`)."""
    if isinstance(exc, FileNotFoundError):
        return Unavailable(f"{path}: no such file")
    if isinstance(exc, IsADirectoryError):
        return Unavailable(f"{path}: is a directory, not a {kind} file")
    if isinstance(exc, OSError):
        return Unavailable(f"{path}: cannot read ({exc.strerror or exc})")
    return Unavailable(f"{path}: cannot read ({exc})")


def load(path: str, options: Optional[dict] = None) -> Input:
    """Load a program file, or a model through the frontend registered for its kind
    (`options`: the frontend's, by `FrontendOption.dest`)."""
    frontend = frontend_for(path)
    if frontend is None:
        loaded = read_text(path)
        loaded.claims = not (options or {}).get("strict_dims")
        return loaded
    file = model_file(path)  # `model.py` of `model.py:mlp`
    try:
        mode = os.stat(file).st_mode
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        raise unavailable(file, exc, "model") from None
    if stat.S_ISDIR(mode):
        raise Unavailable(f"{file}: is a directory, not a model file")
    if not stat.S_ISREG(mode):  # a device or a pipe: /dev/zero as a model was read until memory ran out
        raise Unavailable(f"{file}: is not a regular file, and a model is read from one")
    pointer = _lfs_pointer(file)
    if pointer is not None:
        return Input(path, problem=pointer)
    try:
        model = frontend.load(path, dict(options or {}))
    except (FrontendUnavailable, FrontendUsageError) as exc:
        raise Unavailable(str(exc)) from None
    unreadable = [d for d in model.diagnostics if d.code == INPUT_ERROR]
    if unreadable and model.module is None:
        _note_other_kind(unreadable[0], path, frontend, options or {})
    return Input(path, model=model)


def _note_other_kind(problem: Any, path: str, failed: Optional[Frontend], options: dict) -> None:
    """A note on the input-error of a file that its name's suffix misnames (an ONNX model or
    a torch.export archive saved as `.rly`, a program saved as `.onnx`, an archive as `.onnx`):
    the kind it can be read as, and the suffix that makes gradual read it so. Each other kind
    is tried only here, where reading the file as its own kind failed."""
    from gradual.checker import messages

    kind = _readable_as(path, failed, options)
    if kind is not None:
        problem.notes = tuple(problem.notes) + (messages.misnamed_input(*kind),)


def _readable_as(path: str, failed: Optional[Frontend], options: dict) -> Optional[tuple]:
    """(what the file is, its suffix) for the first other kind that reads it: a model through
    another frontend (one whose import finds no input-error), or, for a model file, program
    text that parses into at least one definition. Only a regular file is read again (a pipe
    was read to its end: opening it again would wait for a writer that never comes)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except (OSError, ValueError):
        return None
    for other in frontends():
        if other is failed:
            continue
        try:
            model = other.load(path, dict(options))
        except Exception:  # noqa: BLE001 - not installed, or a file it cannot take at all: not this kind
            continue
        if model.module is not None or not any(d.code == INPUT_ERROR for d in model.diagnostics):
            return f"a model the `{other.name}` frontend reads", other.suffixes[0]
    if failed is None:
        return None
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_FILE_BYTES + 1).decode("utf-8")
        from gradual.checker.driver import parse

        if len(text) <= MAX_FILE_BYTES and parse(text, path).defs:  # an empty file is no program either
            return "a program in gradual's language", ".rly"
    except Exception:  # noqa: BLE001 - unreadable, not UTF-8, not a program: not this kind either
        return None
    return None


#: how a Git LFS pointer file begins (git-lfs spec v1): what a checkout without LFS holds
LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def _lfs_pointer(path: str) -> Optional[object]:
    """An input-error for a model file that is a Git LFS pointer (a CI checkout without LFS,
    a pre-commit run in such a clone), which the frontend read as a corrupt model ("Wire
    format was corrupt", "File is not a zip file"); None otherwise."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(LFS_POINTER))
    except OSError:
        return None
    if head != LFS_POINTER:
        return None
    from gradual.checker import messages

    return messages.input_unavailable(Span(Source("", path), 0, 0), messages.lfs_pointer_detail())


def check_input(loaded: Input) -> Checked:
    """Check a loaded input: its diagnostics (load problems included) and, when there was
    something to check, the CheckResult."""
    from gradual.checker.driver import CheckResult, check

    if loaded.problem is not None:
        return Checked(loaded, None, [loaded.problem])
    model = loaded.model
    if model is not None:
        if not model.ok:
            return Checked(loaded, CheckResult(None, None, list(model.diagnostics)), list(model.diagnostics))
        result = model.check() if model.check is not None else check(model.module, loaded.path)
        if model.notes is not None:
            for diagnostic in result.diagnostics:
                diagnostic.notes = tuple(model.notes(diagnostic)) + tuple(diagnostic.notes)
        return Checked(loaded, result, list(result.diagnostics))
    result = (
        check(loaded.text or "", loaded.path) if loaded.claims else _check_unclaimed(loaded.text or "", loaded.path)
    )
    return Checked(loaded, result, list(result.diagnostics))


def _check_unclaimed(text: str, path: str) -> CheckResult:
    """Check a program whose definitions' `claimed=[...]` dims are promises (`--strict-dims`
    on a printed model: a node that constrains one is an error, as it is when the model is
    checked with the option; it stayed a warning whose help said `--strict-dims makes this an
    error`)."""
    from dataclasses import replace

    from gradual.checker.driver import SyntaxProblem, check, parse
    from gradual.syntax import ast

    try:
        module = parse(text, path)
    except SyntaxProblem:
        return check(text, path)  # its parse error, as always
    if not any(d.claimed_dims for d in module.defs):
        return check(text, path)
    defs = tuple(replace(d, claimed_dims=frozenset()) for d in module.defs)
    return check(ast.compact_lets(ast.Module(defs, span=module.span)), path)
