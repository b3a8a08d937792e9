"""When the value a `let` bound is dead, so that the interpreter can let it go.

Without this a chain of n operators keeps all n intermediate tensors alive until its function
returns: memory grows with the program instead of with what it computes at once (a model's
activations, every one of them). One pass over a module gives, for each body, the binders whose
last use is each of its statements; the interpreter drops them from the frame after running
that statement. A use inside a nested `if` or block counts at the statement of the body that
holds it. A binder used inside a closure is never dropped (the closure may run later, after the
body is done), nor one the body's result uses (the frame ends with the body).
"""

from __future__ import annotations

from typing import Any

from gradual.syntax import ast

#: per body id: for each statement index, the binders dead once that statement has run
Plans = dict


def drop_plans(module: ast.Module, uses: dict, binders: dict) -> Plans:
    """The plans of every body in the module (`uses`: a Var's binder by the Var's id,
    `binders`: a let's binder by the Let's id, as name resolution gives them)."""
    walk = _Walk(uses, binders)
    for d in module.defs:
        walk.run(d.body)
    return walk.plans()


class _Walk:
    """One iterative pass (a program nested 10,000 deep must not overflow the stack)."""

    def __init__(self, uses: dict, binders: dict) -> None:
        self.uses = uses
        self.binders = binders
        self.home: dict = {}  # binder -> (body, the index of its let)
        self.position: dict[int, int] = {}  # body id -> the statement being walked
        self.closure_depth: dict[int, int] = {}  # body id -> closures around it
        self.last: dict = {}  # binder -> index of the statement that uses it last
        self.captured: set = set()

    def run(self, root: ast.Body) -> None:
        stack: list = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            if node.__class__ is tuple:  # (body, index, statement): the body moves on to it
                body, index, stmt = node
                self.position[id(body)] = index
                if stmt.__class__ is ast.Let:
                    self.home[self.binders[id(stmt)]] = (body, index)
                    stack.append((stmt.value, depth))
                elif stmt is not None:  # the body's result
                    stack.append((stmt, depth))
            elif node.__class__ is ast.Body:
                self.closure_depth[id(node)] = depth
                stack.append(((node, len(node.stmts), node.result), depth))
                stack.extend(((node, i, node.stmts[i]), depth) for i in range(len(node.stmts) - 1, -1, -1))
            elif node.__class__ is ast.Var:
                self.use(node, depth)
            else:
                stack.extend(_children(node, depth))

    def use(self, var: ast.Var, depth: int) -> None:
        binder = self.uses.get(id(var))
        found = self.home.get(binder)
        if found is None:
            return  # a parameter: the frame holds it as long as it holds the arguments
        body = found[0]
        if depth > self.closure_depth[id(body)]:
            self.captured.add(binder)
        else:
            self.last[binder] = self.position[id(body)]

    def plans(self) -> Plans:
        out: dict = {}
        for binder, (body, index) in self.home.items():
            if binder in self.captured:
                continue
            at = self.last.get(binder, index)  # never used: dead at once
            if at < len(body.stmts):
                plan = out.get(id(body))
                if plan is None:
                    plan = out[id(body)] = [[] for _ in body.stmts]
                plan[at].append(binder)
        return {key: tuple(tuple(dead) for dead in plan) for key, plan in out.items()}


def _children(node: Any, depth: int) -> list:
    """The expressions and bodies inside one expression, with the closure depth they run at."""
    kind = node.__class__
    if kind is ast.Call:
        return [(node.callee, depth)] + [(a, depth) for a in node.args]
    if kind is ast.TupleExpr:
        return [(f, depth) for f in node.fields]
    if kind is ast.Proj:
        return [(node.tuple, depth)]
    if kind is ast.Cast:
        return [(node.expr, depth)]
    if kind is ast.If:
        return [(node.cond, depth), (node.then, depth), (node.otherwise, depth)]
    if kind is ast.Block:
        return [(node.body, depth)]
    if kind is ast.Fn:
        return [(node.body, depth + 1)]
    if kind is ast.Match:
        return [(node.scrutinee, depth)] + [(c.body, depth) for c in node.clauses]
    return []
