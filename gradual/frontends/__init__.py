"""Frontends: importers that turn models of other formats into gradual programs, registered
by file kind.

Each builds its program through `gradual.builder` (never by formatting text), so diagnostics
point at the model (a node's name, operator and tensors) rather than at generated text. A
frontend registers itself with `register_frontend(Frontend(...))`: the file suffixes it
reads, a `load(path, options)` that returns a `LoadedModel`, and the options it takes (the
command line offers them on `check`, `elaborate`, `run` and `import`). The command line, the
language server and the library find it by a path's suffix (`frontend_for`); none of them
names a frontend. A frontend outside this package registers through the `gradual.frontends`
entry point group (the entry point names a module that registers on import).

* `onnx` — ONNX models (the optional extra `gradual[onnx]`); `onnx_frontend` registers it
  without importing the `onnx` package.
* `torch.export` — archives written by `torch.export.save` (`.pt2`), read without torch;
  `torch_frontend` registers it.
* `jax` — a JAX function in a Python file (`model.py:NAME`), traced with JAX; it is written on
  gradual's public API alone (layer 9, above everything here), so it registers as a
  third-party frontend would: `gradual.frontends.jax.registration`, named in `BUILTIN` and
  imported by name, never by an import statement.

A frontend whose paths name a member of a file (`Frontend.members`: `model.py:mlp`) is found
by the file's suffix, with or without the member; `model_file` is the file such a path names.

Frontends that take the same option share one `FrontendOption` (`STRICT_DIMS`): the command
line offers it once.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from importlib.machinery import PathFinder
from typing import Any, Callable, Mapping, Optional

#: modules of this package that register a frontend when imported
BUILTIN = (
    "gradual.frontends.onnx_frontend",
    "gradual.frontends.torch_frontend",
    "gradual.frontends.jax.registration",
)
ENTRY_POINT_GROUP = "gradual.frontends"


class LoadError(Exception):
    """A file a frontend cannot read as a model of its kind; `diagnostic` says why."""

    def __init__(self, diagnostic: Any) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class FrontendUnavailable(Exception):
    """The frontend cannot run here (its package is not installed); the message says how to
    install it."""


class FrontendUsageError(Exception):
    """What the command asked of the frontend cannot be done as asked (a path that names no
    member where one is needed, an option's value the frontend cannot read, too few or too many
    of a repeated option): a usage error whose message says what to write instead."""


@dataclass(frozen=True)
class FrontendOption:
    """An option a frontend takes: `--name` on the command line (`flag`: no value), and
    `options[dest]` in `load`; `parse` reads its value (a ValueError says what is wrong with
    it: a usage error on the command line); `needs` names the option it works with."""

    name: str
    help: str
    metavar: Optional[str] = None
    flag: bool = False
    parse: Optional[Callable[[str], Any]] = None
    needs: Optional[str] = None  # the name of an option without which this one does nothing
    programs: bool = False  # whether it applies to programs (`.rly`) too
    repeated: bool = False  # given any number of times: `options[dest]` is the list, in order

    @property
    def dest(self) -> str:
        """The key under which `load` finds it."""
        return self.name.replace("-", "_")


#: words a dimension name cannot be (the language's keywords; dtypes read as types there)
_NOT_DIM_NAMES = frozenset({"def", "let", "if", "else", "fn", "as", "Tensor", "can_unify", "None", "True", "False"})


def dim_name(text: str) -> str:
    """`text` when it is a dimension name of the language (`N`, `batch`), else a ValueError
    saying why: a frontend writes it into the program as a symbol."""
    import re

    from gradual.types import DTYPES

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) or text in _NOT_DIM_NAMES or text in DTYPES:
        raise ValueError(
            f"`{text}` is not a dimension name: write a name such as `N` or `batch` (letters, digits "
            "and `_`, not starting with a digit, no keyword or dtype)"
        )
    return text


#: exporter dims as promises (spec §6): a node that constrains one is an error, not a warning
STRICT_DIMS = FrontendOption(
    "strict-dims",
    "a node that constrains a dynamic dim of the model (height = 32) is an "
    "error, not a warning with a runtime check (in a program: a dim its definition's "
    "`claimed=[...]` lists, as a printed model's does)",
    flag=True,
    programs=True,
)


@dataclass
class LoadedModel:
    """What a frontend made of a model: the module (None when the import failed), the
    import's diagnostics, and what running it needs: the graph inputs' names and their
    parameters, the outputs' names, the values of constants passed as parameters (any
    mapping: a frontend may read them only when asked), and a reader for tensor files in the
    model's own format. `notes` gives the extra notes a frontend adds to a diagnostic of the
    check (the torch.export frontend: the ATen node behind a Python line). `check`, when a
    frontend gives it, checks the model as its own library API does (ONNX: the declared output
    types are checked too), so the command line and the library agree. `reference`, when a
    frontend gives it, runs the model in its own framework on the inputs `gradual run` built
    (by parameter name) and returns its outputs as arrays, which `run` compares with its own."""

    path: str
    module: Any
    diagnostics: list
    header: tuple = ()
    inputs: dict = field(default_factory=dict)
    outputs: tuple = ()
    constants: Mapping[str, Any] = field(default_factory=dict)
    read_tensor: Optional[Callable[[str], Any]] = None
    tensor_suffixes: tuple = ()
    notes: Optional[Callable[[Any], tuple]] = None
    check: Optional[Callable[[], Any]] = None
    reference: Optional[Callable[[dict], list]] = None

    @property
    def ok(self) -> bool:
        """True when the whole model was imported."""
        return self.module is not None and not any(d.is_error for d in self.diagnostics)

    def text(self) -> str:
        """The model as a program in gradual's language, with its header comments."""
        from gradual.syntax.printer import format_module

        lines = "".join(f"// {line}\n" for line in self.header)
        return lines + (format_module(self.module) if self.module is not None else "")


@dataclass(frozen=True)
class Frontend:
    """A model format: its name, file suffixes, loader and options; `members`: its paths may
    name a member of the file after a colon (`model.py:mlp`), and `load` gets the whole path."""

    name: str
    suffixes: tuple
    load: Callable[[str, dict], LoadedModel]
    options: tuple = ()
    members: bool = False

    @property
    def kinds(self) -> str:
        """Its file kinds as a person reads them: `.onnx`, `.py:NAME`."""
        return ", ".join(f"{s}:NAME" if self.members else s for s in self.suffixes)


_FRONTENDS: dict[str, Frontend] = {}
_loaded = False


def register_frontend(frontend: Frontend) -> None:
    """Make a frontend available for its suffixes (a later registration replaces one of
    the same name)."""
    _FRONTENDS[frontend.name] = frontend


def frontends() -> list[Frontend]:
    """Every registered frontend (built-in ones and those of installed packages)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN:
            importlib.import_module(module)
        for entry in _entry_points():
            try:
                importlib.import_module(entry.value.split(":")[0])
            except Exception:  # noqa: BLE001 - a broken plugin must not break gradual
                continue
    return list(_FRONTENDS.values())


def _entry_points() -> list:
    if not _may_declare_entry_points():
        return []
    from importlib.metadata import entry_points

    return list(entry_points(group=ENTRY_POINT_GROUP))


def _may_declare_entry_points() -> bool:
    """Whether an installed distribution may declare a `gradual.frontends` entry point, from a
    look at the `entry_points.txt` of each `*.dist-info` / `*.egg-info` in the directories of
    `sys.path`, where importlib.metadata finds them (importing it costs 70 ms, a sixth of a
    start). Anything this look cannot see into (a zip or egg, a finder of distributions other
    than the standard one) answers yes, and importlib.metadata decides."""
    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return True
    section = f"[{ENTRY_POINT_GROUP}]"  # in every file that declares the group, however spelled
    for entry in sys.path:
        directory = entry or "."
        try:
            names = os.listdir(directory)
        except (FileNotFoundError, NotADirectoryError):
            if os.path.exists(directory):
                return True  # a zip file or an egg
            continue
        except OSError:
            return True
        for name in names:
            lower = name.lower()
            if lower.endswith(".egg"):
                return True
            if lower.endswith((".dist-info", ".egg-info")) and _declares(os.path.join(directory, name), section):
                return True
    return False


def _declares(distribution: str, section: str) -> bool:
    try:
        with open(os.path.join(distribution, "entry_points.txt"), encoding="utf-8", errors="replace") as handle:
            return section in handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


def frontend_for(path: str) -> Optional[Frontend]:
    """The frontend that reads this file, by suffix (None: a program in the language); a
    frontend of members reads `FILE.py:NAME` as well as `FILE.py` (whose `load` says to name
    the member)."""
    lower = path.lower()
    if lower.endswith(".rly") or lower == "-":
        return None
    file, colon, _ = lower.rpartition(":")
    for frontend in frontends():
        suffixes = tuple(frontend.suffixes)
        if lower.endswith(suffixes) or frontend.members and colon and file.endswith(suffixes):
            return frontend
    return None


def model_file(path: str) -> str:
    """The file a model's path names: `model.py` for `model.py:mlp` when a frontend of members
    reads it, else the path itself."""
    frontend = frontend_for(path)
    if frontend is None or not frontend.members or path.lower().endswith(tuple(frontend.suffixes)):
        return path
    return path.rpartition(":")[0]
