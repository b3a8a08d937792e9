"""The shape algebra: dimensions and shapes, independent of the language.

`Dimension` and `PartialShape` follow OpenVINO's API and semantics (intervals, `?`, merge,
broadcast merge, relaxes/refines); dimensions are extended with exact symbolic polynomials
(`n`, `2 * n + 1`, `(h - 1) // 2 + 1`). `consistency` grades a flow of one dimension into
another as EQUAL, CHECK or NEVER; `join` is the total join used for branches.
"""

from .dimension import Dimension, Grade, as_dimension, consistency, join, parse_dimension
from .partial_shape import PartialShape, ShapeError, as_partial_shape, format_shape
from .poly import FloorDiv, Poly, Symbol

__all__ = [
    "Dimension",
    "FloorDiv",
    "Grade",
    "PartialShape",
    "Poly",
    "ShapeError",
    "Symbol",
    "as_dimension",
    "as_partial_shape",
    "consistency",
    "format_shape",
    "join",
    "parse_dimension",
]
