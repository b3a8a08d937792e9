"""Relay's data and kernel layouts: `NCHW`, `NHWC`, `OIHW`, `NCW`, `NCDHW`, and packed layouts
such as `NCHW4c` or `NCHW4n4c`, where a lower-case letter with a factor is the inner part of
the upper-case dim it splits (`NCHW4c` is (N, C / 4, H, W, 4)).

Shared by the shape rules (over either domain's dims) and the kernels (over arrays), so both
read a layout alike. A layout is a list of `Axis`: its letter (upper case: a whole dim or the
outer part of a split one; lower case: the inner part) and, for inner parts, its factor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_AXIS = re.compile(r"([0-9]*)([A-Za-z])")


@dataclass(frozen=True)
class Axis:
    """One axis of a layout: `C`, or the inner part `4c` of a split C."""

    letter: str
    factor: Optional[int] = None

    @property
    def primal(self) -> str:
        """The upper-case letter of the dim this axis is (part of)."""
        return self.letter.upper()


def parse_layout(text: str, letters: str) -> Optional[list]:
    """The axes of a layout whose whole dims are exactly `letters` (in any order), each split
    at most once by an inner part written after it with a factor > 0; None if it is not one."""
    if not isinstance(text, str) or not text:
        return None
    axes, pos = [], 0
    for match in _AXIS.finditer(text):
        if match.start() != pos:
            return None
        pos = match.end()
        digits, letter = match.groups()
        if letter.isupper() != (digits == ""):
            return None
        axes.append(Axis(letter, int(digits) if digits else None))
    if pos != len(text):
        return None
    whole = [a.letter for a in axes if a.factor is None]
    inner = [a.primal for a in axes if a.factor is not None]
    if sorted(whole) != sorted(letters) or len(set(inner)) != len(inner) or any(f.factor == 0 for f in axes):
        return None
    if any(axes.index(Axis(p)) > next(i for i, a in enumerate(axes) if a.factor and a.primal == p) for p in inner):
        return None
    return axes


def factors(axes: list) -> dict:
    """The factor of each split dim, by its upper-case letter."""
    return {a.primal: a.factor for a in axes if a.factor is not None}
