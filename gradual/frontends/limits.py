"""The limits of what an import reads: one table, each limit raised by an environment variable.

A model file is input like any other, and a small one can declare huge things: a zip member
of 200 KB that inflates to 200 MB, a weight whose sizes multiply past memory. The torch.export
reader checks what an archive declares against these limits *before* it allocates, and a file past one is an `input-error`
that names the part, the limit and the variable that raises it (`exceeded`). docs/limits.md
is this table in words.

A variable holding anything but a non-negative integer is ignored (the default holds).
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """One limit: `variable` raises it from `default`; `what` says what it counts (for the
    table), `says` how a part past it is described (`{n}`: the part's amount)."""

    variable: str
    default: int
    what: str
    says: str

    def value(self) -> int:
        """The limit in force (the environment's, else the default)."""
        text = os.environ.get(self.variable, "").strip()
        return int(text) if text.isdigit() else self.default


MiB = 1 << 20
GiB = 1 << 30

#: torch.export archives (zip files)
ARCHIVE_MEMBERS = Limit("GRADUAL_MAX_ARCHIVE_MEMBERS", 100_000, "members in one archive", "has {n} members")
JSON_BYTES = Limit(
    "GRADUAL_MAX_JSON_BYTES", 256 * MiB, "bytes of one JSON member, expanded", "expands to {n} bytes of JSON"
)
MEMBER_BYTES = Limit(
    "GRADUAL_MAX_MEMBER_BYTES", 4 * GiB, "bytes of one archive member, expanded", "expands to {n} bytes"
)
EXPANSION_RATIO = Limit(
    "GRADUAL_MAX_EXPANSION_RATIO",
    256,
    "times a compressed member may expand (members over 1 MiB expanded)",
    "expands to {n} times its compressed size",
)
#: a member this small expanded is never refused for its ratio (a 3-byte member compresses to 5)
RATIO_FREE_BYTES = MiB

#: torch.export weights
TENSOR_BYTES = Limit(
    "GRADUAL_MAX_WEIGHT_BYTES",
    4 * GiB,
    "bytes of one weight, initializer or constant, as its dims declare",
    "declares {n} bytes of data",
)

TABLE = (
    ARCHIVE_MEMBERS,
    JSON_BYTES,
    MEMBER_BYTES,
    EXPANSION_RATIO,
    TENSOR_BYTES,
)


class LimitExceeded(Exception):
    """A part of a file past a limit: `part` names it (`member model/models/model.json`),
    `amount` is what it declares or needs, in the limit's unit."""

    def __init__(self, limit: Limit, part: str, amount: int) -> None:
        super().__init__(exceeded(limit, part, amount))
        self.limit = limit
        self.part = part
        self.amount = amount


def exceeded(limit: Limit, part: str, amount: int) -> str:
    """`the member m/models/model.json expands to 1,017 times its compressed size, past the limit of 256`."""
    return f"{part} {limit.says.format(n=f'{amount:,}')}, past the limit of {limit.value():,}"


def how_to_raise(limit: Limit) -> str:
    """The help of a diagnostic past a limit."""
    return (
        f"if the file is genuine, raise the limit: set {limit.variable} (now {limit.value():,}) "
        "in the environment (docs/limits.md lists every limit)"
    )


def check(limit: Limit, part: str, amount: int) -> None:
    """Raise LimitExceeded when `amount` passes the limit."""
    if amount > limit.value():
        raise LimitExceeded(limit, part, amount)
