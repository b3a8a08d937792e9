"""Inference: a type for every expression, a static error for every provable mismatch, and a
recorded runtime check wherever consistency could not be proven.

Definitions are checked callees first (by strongly connected component: fixpoint.py). Each
call becomes a `CallSite` (site/) that runs the operator's rule or the callee's signature
symbolically (calls.py). Recursion is solved to a fixpoint: a recursive function without a
return annotation starts from "no information", `can_unify` hints seed unannotated parameters,
and between iterations anything that changed is widened to `?` (spec §3.5). Unannotated
parameters of a definition are inferred from their uses and generalized at the end
(finalize.py), so inferred signatures stay sound for every caller.

`Checker` stacks the concerns: its state (records.py), the fixpoint driver, bodies and
expressions, calls, closures.
"""

from __future__ import annotations

from gradual.checker.closures import Closures
from gradual.checker.names import Resolution
from gradual.ops.registry import Registry


def check_module(resolution: Resolution, registry: Registry) -> Checker:
    """Run inference over a resolved module."""
    checker = Checker(resolution, registry)
    checker.run()
    return checker


class Checker(Closures):
    """Checks a resolved module (see the module docstring)."""
