"""The reference runtime: runs elaborated programs on NumPy with every check live (spec §5).

* `interpreter.py` walks the elaborated program (tail calls trampolined, closures, recursion);
* `match.py` runs casts: a value against a type, binding new symbols, wrapping functions;
* `context.py` is the concrete `ShapeContext` (ints as dims) that runs each operator's shape
  rule on its actual inputs, and `operators.py` runs rule, kernel and their agreement check;
* `kernels/` holds the NumPy kernels, one module per operator family;
* `errors.py` the failures (`CheckFailure` is what a failed check raises), `inputs.py` the
  inputs of a run, `cli.py` `gradual run`.

Decisions where the spec is silent:

* Blame. An inserted cast blames the span the checker recorded (`CheckNote.blame`) and quotes
  its reason; a written cast blames itself; an annotated let blames its value (pointing at the
  annotation); an entry point's input blames its parameter's type; a result blames the return
  annotation. A function passed through a function type is wrapped: a bad argument blames the
  call (the caller broke the contract), a bad result or a parameter that rejects an argument
  its type accepts blames the place that gave the function its type.
* An operator's shape rule rejecting concrete inputs is `check-failed` at the call (two unknown
  dims that do not broadcast are caught this way); a kernel failing on its values (an index out
  of range with `mode="fast"`) is `runtime-error`; a kernel whose output differs from its rule's
  result (shape, dtype or shape values) is `internal-error`, a bug in gradual.
* `gradual run` exits 0 ok, 1 type errors, 2 usage (bad or missing inputs), 3 a failed check or
  runtime error, 4 an internal error.
* Shape values: integer tensors of rank <= 1 and at most 64 elements expose their elements to
  the rules, as the checker's shape values do (`dyn.reshape(x, shape_of(y))`).
* bfloat16 has no NumPy type: a run that needs one stops with a runtime error.
* Random inputs (`--shape`, omitted static parameters): standard normal floats, integers in
  [0, 10), random booleans, of the declared dtype (float32 where it is not known).
"""

from gradual.runtime.api import run, run_elaborated
from gradual.runtime.errors import CheckFailure, InputError, KernelFailure, ProgramRejected, RunFailure
from gradual.runtime.interpreter import Interpreter

__all__ = [
    "CheckFailure",
    "InputError",
    "Interpreter",
    "KernelFailure",
    "ProgramRejected",
    "RunFailure",
    "run",
    "run_elaborated",
]
