"""Which model-local functions ONNX's inliner can expand, and why the others cannot.

A model-local function (a FunctionProto a node calls by its domain and name) is expanded in
place by `onnx.inliner` before the import. The inliner refuses a whole model when one function
calls itself (directly or through others) or when calls nest deeper than it follows
(`INLINER_DEPTH`); then every call of every function stayed, reported as an unsupported
operator without a reason, even calls of functions that could be expanded (a recursive
function nobody called was enough). Here the call graph is read first: the functions that
cannot be expanded are left out of the inlining, and each keeps its reason for the node that
calls it. Everything here is a loop over an explicit stack: a model may nest calls and
subgraphs arbitrarily deep.
"""

from __future__ import annotations

from typing import Any, Iterator

#: how deep ONNX's inliner follows calls of functions ("Function call chain depth exceeds
#: limit (100)"): a function whose calls nest deeper is not expanded
INLINER_DEPTH = 100


def function_key(domain: str, name: str) -> tuple:
    """How a node names the function it calls (the inliner matches domain and name)."""
    return (domain, name)


def _nodes(nodes: Any) -> Iterator[Any]:
    """Every node of a node list and of the subgraphs in its attributes, at any depth."""
    stack = [iter(nodes)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        yield node
        for attr in node.attribute:
            if attr.HasField("g"):
                stack.append(iter(attr.g.node))
            for graph in attr.graphs:
                stack.append(iter(graph.node))


def calls(model: Any) -> dict:
    """Each model-local function -> the model-local functions its body calls."""
    local = {function_key(f.domain, f.name) for f in model.functions}
    out = {}
    for f in model.functions:
        called = (function_key(n.domain, n.op_type) for n in _nodes(f.node))
        out[function_key(f.domain, f.name)] = sorted({k for k in called if k in local})
    return out


def unexpandable(model: Any) -> dict:
    """The model-local functions the inliner cannot expand -> why (a phrase that follows
    "it cannot be expanded: "): those on a cycle of calls, those that call one, and those whose
    calls nest deeper than INLINER_DEPTH."""
    graph = calls(model)
    depth: dict = {}  # function -> how deep its calls nest (1: it calls no function)
    why: dict = {}
    state: dict = {}  # function -> "open" while its callees are walked, "done" after
    recursive: dict = {}  # function -> the function on a cycle it is or calls
    for root in graph:
        if root in state:
            continue
        path = [root]
        state[root] = "open"
        pending = [iter(graph[root])]
        while pending:
            callee = next(pending[-1], None)
            if callee is not None:
                if state.get(callee) == "open":  # a cycle: the functions on the path from the
                    # callee down to here are on it, and each learns so as it is done (it calls
                    # one that cannot be expanded): naming the whole cycle at every call back to
                    # it would cost the path's length a call
                    caller = path[-1]
                    recursive.setdefault(callee, callee)
                    why.setdefault(
                        callee,
                        "it calls itself" if caller == callee else f"it calls itself (`{caller[1]}` calls it again)",
                    )
                elif callee not in state:
                    state[callee] = "open"
                    path.append(callee)
                    pending.append(iter(graph[callee]))
                continue
            done = path.pop()
            pending.pop()
            state[done] = "done"
            callees = graph[done]
            depth[done] = 1 + max((depth.get(c, 0) for c in callees), default=0)
            if done not in why:
                blocked = next((c for c in callees if c in recursive), None)
                if depth[done] > INLINER_DEPTH:
                    why[done] = (
                        f"its calls of functions nest {depth[done]} deep, and ONNX's inliner "
                        f"expands at most {INLINER_DEPTH}"
                    )
                elif blocked is not None:
                    root = recursive[blocked]
                    recursive[done] = root
                    why[done] = (
                        f"it calls `{blocked[1]}`, which calls itself"
                        if root == blocked
                        else f"it calls `{blocked[1]}`, which calls `{root[1]}`, which calls itself"
                    )
    return why


def without(model: Any, functions: dict) -> Any:
    """A copy of the model without these model-local functions (their calls stay nodes)."""
    copy = type(model)()
    copy.CopyFrom(model)
    kept = [f for f in copy.functions if function_key(f.domain, f.name) not in functions]
    del copy.functions[:]
    copy.functions.extend(kept)
    return copy
