"""`gradual lsp` with a bug planted in the checker: checking a call of `nn.softmax` crashes.
The tests start this to see that a crash inside a check leaves the server serving."""

import sys

from gradual.checker.infer import Checker

_call_operator = Checker.call_operator


def _crashing(self, e, op, *rest):
    if op.name == "nn.softmax":
        raise ZeroDivisionError("planted by tests/lsp/faulty_server.py")
    return _call_operator(self, e, op, *rest)


Checker.call_operator = _crashing

from gradual.lsp import serve  # noqa: E402

sys.exit(serve())
