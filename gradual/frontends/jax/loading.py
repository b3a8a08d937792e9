"""`FILE.py:NAME` on the command line: the file imported, the function found, traced on the
`--arg` specs and converted (program.py), as a model the command line checks, prints and runs.

The file is imported from its path as a module of its own name (another name where a module
of that name is already loaded from elsewhere), with its directory first on sys.path while it
is imported and traced (so it imports its neighbours), and its prints sent to stderr (stdout is
the command's: `--format json`). What goes wrong in the file is a diagnostic located in it: a
syntax error at its line and columns, an exception at the innermost line of the user's code
that raised it, a name it lacks, a function JAX cannot trace at the failing line.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import sysconfig
from types import ModuleType
from typing import Any, Iterator, Optional

from gradual import builder as gb
from gradual.frontends import FrontendUnavailable, FrontendUsageError, LoadedModel
from gradual.frontends.jax import messages


def load(path: str, file: str, member: str, args: list) -> LoadedModel:
    """The model `FILE.py:NAME` makes (see the module docstring)."""
    _require_jax()
    if not all(part.isidentifier() for part in member.split(".")):
        raise FrontendUsageError(messages.not_a_name(file, member))
    from jax import export

    from gradual.frontends.jax import program

    scope = export.SymbolicScope()
    specs = []
    for text in args:
        try:
            specs.append(program.parse_spec(text, scope))
        except ValueError as exc:
            raise FrontendUsageError(messages.bad_arg(text, str(exc))) from None
    with _importing(file):
        module, problem = import_file(file)
        if module is None:
            return LoadedModel(path, None, [problem])
        fn, problem = find(module, member, file)
        if fn is None:
            return LoadedModel(path, None, [problem])
        _require_arity(fn, member, file, len(specs))
        with contextlib.redirect_stdout(sys.stderr):
            traced = program.convert(fn, *specs)
    if traced.module is None:
        return LoadedModel(path, None, list(traced.check().diagnostics))
    import jax

    shown = [f"{name}: {_shape_text(spec.shape)} {spec.dtype}" for name, spec in zip(traced.inputs, specs)]
    return LoadedModel(
        path,
        traced.module,
        [],
        messages.header(member, file, jax.__version__, shown),
        inputs={name: name for name in traced.inputs},
        constants=dict(traced.constants),
        check=traced.check,
        reference=lambda inputs: _run_jax(fn, file, [inputs[name] for name in traced.inputs]),
    )


def _run_jax(fn: Any, file: str, arrays: list) -> list:
    """The function's outputs from JAX itself (its leaves, as NumPy arrays), its prints on
    stderr, its neighbours importable."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    with _importing(file), contextlib.redirect_stdout(sys.stderr):
        outputs = fn(*[jnp.asarray(a) for a in arrays])  # JAX arrays: `x[i]` is JAX's indexing, not NumPy's
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(outputs)]


def _shape_text(shape: tuple) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(str(d) for d in shape) + ")"


def _require_jax() -> None:
    """A usage error saying to install JAX where it cannot be imported."""
    try:
        import jax  # noqa: F401
        from jax import export  # noqa: F401
    except ImportError as exc:
        detail = None if exc.name in ("jax", "jax.export") else str(exc)
        raise FrontendUnavailable(messages.jax_not_installed(detail)) from None


@contextlib.contextmanager
def _importing(file: str) -> Iterator[None]:
    """The file's directory first on sys.path (its neighbours import), then as it was."""
    directory = os.path.dirname(os.path.abspath(file))
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        if directory in sys.path:
            sys.path.remove(directory)


def import_file(file: str) -> tuple:
    """(the module, None), or (None, the diagnostic of why it does not import)."""
    name = _module_name(file)
    # the path as given (importlib's own spec makes it absolute): diagnostics name the file as
    # the command line did, as they name a program or a model
    spec = importlib.util.spec_from_loader(name, importlib.machinery.SourceFileLoader(name, file))
    if spec is None or spec.loader is None:
        return None, messages.import_failed(ImportError("not a Python source file"), _file_start(file), file)
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(name)
    sys.modules[name] = module  # a module that looks itself up (dataclasses do) finds itself
    try:
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except SyntaxError as exc:
        _restore(name, previous)
        return None, messages.syntax_error(exc, _syntax_loc(exc, file).span, file)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the file's own code failed: a diagnostic
        _restore(name, previous)
        return None, messages.import_failed(exc, _raise_loc(exc, file).span, file)
    return module, None


def _module_name(file: str) -> str:
    """The file's own name as a module, unless a module of that name is loaded from elsewhere
    (a file `json.py` must not replace the standard library's)."""
    stem = os.path.splitext(os.path.basename(file))[0]
    loaded = sys.modules.get(stem)
    if loaded is None or _same_file(getattr(loaded, "__file__", None), file):
        return stem
    return f"gradual_jax_{stem}"


def _same_file(a: Optional[str], b: str) -> bool:
    return a is not None and os.path.abspath(a) == os.path.abspath(b)


def _restore(name: str, previous: Optional[ModuleType]) -> None:
    if previous is None:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = previous


def _file_start(file: str) -> Any:
    return gb.Loc.at(file, 1, 1).span


def _syntax_loc(exc: SyntaxError, file: str) -> gb.Loc:
    """A syntax error's place (in the file, or in a module it imports), its columns where the
    parser gave them."""
    path = exc.filename if exc.filename and os.path.exists(exc.filename) else file
    line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else 1
    column = exc.offset if isinstance(exc.offset, int) and exc.offset > 0 else 1
    end_line = getattr(exc, "end_lineno", None)
    end_column = getattr(exc, "end_offset", None)
    if not (isinstance(end_line, int) and isinstance(end_column, int)) or (end_line, end_column) <= (line, column):
        return gb.Loc.at(path, line, column, data=exc)
    return gb.Loc.at(path, line, column, end_line, end_column, data=exc)


def _raise_loc(exc: BaseException, file: str) -> gb.Loc:
    """Where an exception of the import was raised: the innermost line of the user's code
    (not JAX's, gradual's, the standard library's or an installed package's), else the
    innermost line of the file itself, else its first line."""
    from gradual.frontends.jax.locations import Locator, at

    locator = Locator()
    library = tuple(
        os.path.abspath(p) + os.sep
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
        if (p := sysconfig.get_paths().get(key))
    )
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code, tb.tb_lasti))
        tb = tb.tb_next
    target = os.path.abspath(file)
    choices = (
        lambda path: not os.path.abspath(path).startswith(library),
        lambda path: os.path.abspath(path) == target,
    )
    for wanted in choices:
        for code, lasti in reversed(frames):
            if wanted(code.co_filename):
                place = locator.frame_place(code, lasti)
                if place is not None:
                    return at(place, exc)
    return gb.Loc.at(file, 1, 1, data=exc)


def find(module: ModuleType, member: str, file: str) -> tuple:
    """(the function `member` names, None), or (None, the diagnostic of why not)."""
    value: Any = module
    for part in member.split("."):
        if not hasattr(value, part):
            defined = _functions(module)
            return None, messages.no_such_function(file, member, _file_start(file), defined)
        value = getattr(value, part)
    if not callable(value) or isinstance(value, type):
        return None, messages.not_a_function(file, member, value, _binding_loc(file, member.split(".")[0]).span)
    return value, None


def _functions(module: ModuleType) -> list:
    """The functions the module itself defines, in order."""
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and callable(value)
        and not isinstance(value, type)
        and getattr(value, "__module__", None) == module.__name__
    ]


def _binding_loc(file: str, name: str) -> gb.Loc:
    """The top-level statement of the file that binds `name` (its first line), else its start."""
    try:
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return gb.Loc.at(file, 1, 1)
    lines = text.splitlines()
    for node in tree.body:
        names: list = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        if name in names:
            end = len(lines[node.lineno - 1]) + 1 if node.lineno <= len(lines) else node.col_offset + 2
            return gb.Loc.at(file, node.lineno, node.col_offset + 1, node.lineno, max(end, node.col_offset + 2))
    return gb.Loc.at(file, 1, 1)


def _require_arity(fn: Any, member: str, file: str, given: int) -> None:
    """A usage error where the `--arg`s cannot be the function's positional arguments."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to hold them against: JAX will say
        return
    kinds = inspect.Parameter
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    keyword_only = [p.name for p in params if p.kind is kinds.KEYWORD_ONLY and p.default is p.empty]
    high = None if any(p.kind is kinds.VAR_POSITIONAL for p in params) else len(positional)
    where = _where(fn, file)
    if keyword_only:
        raise FrontendUsageError(messages.keyword_only(member, where, keyword_only))
    if given < len(required) or high is not None and given > high:
        raise FrontendUsageError(
            messages.wrong_arg_count(member, where, [p.name for p in positional], len(required), high, given)
        )


def _where(fn: Any, file: str) -> str:
    """`models.py:8`: the line that defines the function."""
    try:
        _, line = inspect.getsourcelines(inspect.unwrap(fn))
    except (TypeError, OSError, ValueError):
        return file
    return f"{file}:{max(line, 1)}"
