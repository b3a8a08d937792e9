"""The reference runtime: runs elaborated programs on NumPy with every check live (SPEC 5).

* `interpreter.py` walks the elaborated program (tail calls trampolined, closures, recursion);
* `match.py` runs casts: a value against a type, binding new symbols, wrapping functions;
* `context.py` is the concrete `ShapeContext` (ints as dims) that runs each operator's shape
  rule on its actual inputs, and `operators.py` runs rule, kernel and their agreement check;
* `kernels/` holds the NumPy kernels, one module per operator family;
* `errors.py` the failures (`CheckFailure` is what a failed check raises), `cli.py` `gradual run`.
"""

from .api import run, run_elaborated
from .errors import CheckFailure, InputError, KernelFailure, ProgramRejected, RunFailure
from .interpreter import Interpreter

__all__ = ["CheckFailure", "InputError", "Interpreter", "KernelFailure", "ProgramRejected", "RunFailure", "run",
           "run_elaborated"]
