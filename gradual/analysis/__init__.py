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

from gradual.analysis.document import Analysis, Cancelled, Document
from gradual.analysis.inputs import Checked, Input, Unavailable, check_input, load, read_text

__all__ = ["Analysis", "Cancelled", "Checked", "Document", "Input", "Unavailable", "check_input", "load", "read_text"]
