"""A recursion over a list of 100,000 elements: built by a recursive definition, measured by
the prelude's `@length` (both non-tail: one level of Python recursion a level), summed by
`@foldl` (a tail call: a loop). Prints the result, the wall time, the peak memory (RSS) and the
steps the run took (GRADUAL_MAX_STEPS bounds them: a million by default).

    python bench/adt_recursion.py [N]
"""

import resource
import sys
import time

import numpy as np

import gradual
from gradual.runtime.api import run

PROGRAM = """
def @build(%n: int32) -> List[int32] {
  if (equal(%n, 0)) { Nil } else { Cons(%n, @build(subtract(%n, 1))) }
}

def @main(%n: int32) {
  %l = @build(%n);
  (@length(%l), @sum(%l))
}
"""


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    result = gradual.check(PROGRAM)
    assert result.ok, result.diagnostics
    start = time.perf_counter()
    length, total = run(PROGRAM, {"n": np.asarray(n, dtype="int32")})
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"n={n}: length {int(length)}, sum {int(total)}; {seconds:.1f} s, peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
