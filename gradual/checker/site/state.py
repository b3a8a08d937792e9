"""The state one call site keeps while its rule runs: what the call's arguments were opened to,
and every check, requirement and binding the rule's constraints record for finalizing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from gradual.checker.site.values import ArgInfo, Callee, Opened, SDim, Slot
from gradual.diagnostics import Diagnostic
from gradual.ops.context import ArgView, ShapeContext
from gradual.shapes import Dimension, Symbol
from gradual.syntax.source import Span
from gradual.types import DimVar, DTypeVar, Type, TypeVar
from gradual.types.unify import SiteVar, Solver

#: a slot's or check's key: the argument's index, the path into it, and an axis where it has one
Key = tuple[Any, ...]


class SiteState(ShapeContext):
    """A call site's tables (the mixins of CallSite read and write them)."""

    args: list[ArgView]  # the arguments opened (`Opening`), as the rule sees them

    if TYPE_CHECKING:  # what CallSite gives its mixins (and the messages about a call)

        def _error(self, diag: Diagnostic) -> None: ...

        def _shown(self, d: SDim) -> Dimension: ...

        def _final_dim(self, d: SDim) -> Dimension: ...

    #: existentials bound to a dim that was not known (records.Env.loose; True: it may be 1): one
    #: meets another dim as `?` would, with a check (`_loose_equal`); one that may be 1 is not
    #: claimed by a broadcast of an unknown dim against it (a more precise program binds it to 1,
    #: and a check that the unknown dim is it or 1 fails where that program runs). Against a dim
    #: it can never equal (`n1` against `n1 + 1`) it stays an error.
    loose: Mapping[Any, bool] = {}

    #: a call of a definition inside its own recursive component: an unannotated parameter's
    #: dim that meets another value here is widened to `?` (next pass), not an error
    recursive_call = False
    #: where each attribute of an operator call is written (a failure about one points there)
    attr_spans: Mapping[str, Span] = {}

    def __init__(
        self,
        solver: Solver,
        callee: Callee,
        args: Sequence[ArgInfo],
        attrs: dict[str, Any],
        span: Span,
        report: Callable[[Diagnostic], None],
        new_def_var: Callable[[TypeVar, int], Optional[DimVar]],
        new_def_dtype: Callable[[TypeVar], DTypeVar],
    ) -> None:
        self.solver = solver
        self.callee = callee
        self.op_name = callee.display
        self.arg_infos = list(args)
        self.attrs = attrs
        self.span = span
        self.report_diag = report
        self.new_def_var = new_def_var
        self.new_def_dtype = new_def_dtype
        self.slots: dict[Key, Slot] = {}
        self.bound_checks: dict[Key, tuple[Any, ...]] = {}
        self.learned: list[tuple[Any, Any, Any]] = []
        self.claim_checks: dict[Key, Any] = {}  # argument dims checked to equal a dim, or (Broadcast) it or 1 (spec §6)
        self.rank_checks: dict[Key, int] = {}
        self.rank_min_checks: dict[Key, int] = {}
        #: dims at either end of an argument of unknown rank, by axis (negative: from the end)
        self.edges: dict[Key, dict[int, SDim]] = {}
        #: the run `*b` an argument's own type has (`(*b, k)`) and how many dims are on each side
        self.known_runs: dict[Key, tuple[Any, ...]] = {}
        #: arguments of unknown rank whose middle dims must be an enclosing signature's run
        self.run_checks: dict[Key, Symbol] = {}
        self.contracts: dict[Key, Type] = {}  # a function type, or an ADT's (compared whole)
        #: the symbols of function-typed parameters that only the callee binds, made fresh
        self.chosen_for: dict[Symbol, Symbol] = {}
        self.chosen_dtype_for: dict[DTypeVar, DTypeVar] = {}
        self.chosen: set[object] = set()
        self.dtype_slots: dict[Key, DTypeVar] = {}
        self.kind_checks: dict[Key, str] = {}
        self.opened: dict[Key, Opened] = {}
        self.memo: dict[Key, SiteVar] = {}
        self.binder_first: dict[int, int] = {}
        self.bindings: tuple[Any, ...] = ()  # (dims, sequences, dtypes) the signature bound
        self.flow_dims: dict[Any, Any] = {}
        self.errors = 0
        self.bottom = False
        self.after_error = False
