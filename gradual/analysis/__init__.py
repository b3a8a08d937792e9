"""The one layer every front end stands on: load an input (program text, or a model through
the frontend registered for its file kind), check it, and answer questions about it as data.

* `inputs` — `load(path, options)` and `check_input(...)`: what `gradual check`, `elaborate`,
  `run` and `import` do first;
* `document` — `Document`: a program being edited, re-analyzed incrementally (only the
  definitions an edit touched, and their callers when a signature changed);
* `queries` — hover, definitions, references, symbols, inlay hints, check sites, by offset;
* `fixes` — quick fixes and rewrites as text edits, and formatting.

The command line (`gradual/cli/`), the language server (`gradual/lsp/`) and the library
(`gradual/api.py`) are front ends over it; none of them checks anything itself.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradual.analysis.document import Analysis, Cancelled, Document
    from gradual.analysis.inputs import Checked, Input, Unavailable, check_input, load, read_text

#: each name and its module, loaded on first use: reading a program (`gradual format`) needs
#: `inputs` alone, not the checker that `document` stands on
_LAZY = {
    **dict.fromkeys(("Analysis", "Cancelled", "Document"), "gradual.analysis.document"),
    **dict.fromkeys(("Checked", "Input", "Unavailable", "check_input", "load", "read_text"), "gradual.analysis.inputs"),
}


def __getattr__(name: str) -> object:
    import importlib

    if name not in _LAZY:
        raise AttributeError(f"module 'gradual.analysis' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = ["Analysis", "Cancelled", "Checked", "Document", "Input", "Unavailable", "check_input", "load", "read_text"]
