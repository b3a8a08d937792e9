"""The JAX frontend's cost against JAX's own tracing (gradual/frontends/jax).

A chain of 2,500 blocks of four equations (`tanh(h @ w) * 0.5 + h`: dot_general, tanh, mul,
add), 10,000 equations on a symbolic batch, is traced with `jax.make_jaxpr`; the jaxpr is then
converted and checked. The target: converting plus checking costs no more than tracing
(ratio <= 1). Best of `--repeat` runs of each; prints one line per measure and the ratio.

    python bench/jax_frontend.py [--blocks 2500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=2500, help="blocks of four equations")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import jax
    import jax.numpy as jnp

    from gradual.frontends import jax as gj

    def make_chain():  # a new function each time: make_jaxpr caches by function
        def chain(x, w):
            h = x
            for _ in range(args.blocks):
                h = jnp.tanh(h @ w) * 0.5 + h
            return h

        return chain

    specs = gj.abstract("b, 64 float32", "64, 64 float32")
    trace_times, convert_times, check_times = [], [], []
    for _ in range(args.repeat):
        chain = make_chain()
        gc.collect()
        start = time.perf_counter()
        closed = jax.make_jaxpr(chain)(*specs)
        trace_times.append(time.perf_counter() - start)
        gc.collect()
        start = time.perf_counter()
        program = gj.convert_jaxpr(closed, ["x", "w"])
        middle = time.perf_counter()
        result = program.check()
        end = time.perf_counter()
        convert_times.append(middle - start)
        check_times.append(end - middle)
        assert result.ok, [d.message for d in result.errors]
    equations = len(closed.jaxpr.eqns)
    trace, convert, check = min(trace_times), min(convert_times), min(check_times)
    print(f"equations            {equations}")
    print(f"jax.make_jaxpr       {trace:.3f} s")
    print(f"convert              {convert:.3f} s")
    print(f"check                {check:.3f} s")
    print(f"convert + check      {convert + check:.3f} s")
    print(f"ratio to make_jaxpr  {(convert + check) / trace:.2f}  (target <= 1)")
    print(f"result type          {program.types()}")


if __name__ == "__main__":
    main()
