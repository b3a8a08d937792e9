"""The shape algebra: dimensions and shapes, independent of the language.

`Dimension`, `PartialShape`, `Shape`, `Interval` and `Symbol` follow OpenVINO's API and
semantics (intervals saturating at int64, `?`, merge, broadcast merge with NumPy or PDPD rules,
relaxes/refines, symbols labelling dimensions, `symbols.are_equal` / `symbols.set_equal`);
dimensions are extended with exact symbolic polynomials (`n`, `2 * n + 1`, `(h - 1) // 2 + 1`,
`n % 4`, `max(n, m)`).
`consistency` grades a flow of one dimension into another as EQUAL, CHECK or NEVER; `join` is
the total join used for branches.
"""

from gradual.shapes import symbols
from gradual.shapes.dimension import Dimension, Grade, as_dimension, consistency, join, parse_dimension
from gradual.shapes.interval import INT64_MAX, Interval
from gradual.shapes.partial_shape import PartialShape, ShapeError, as_partial_shape, format_shape
from gradual.shapes.poly import Extremum, FloorDiv, Poly, Symbol, extremum
from gradual.shapes.shape import Shape

__all__ = [
    "Dimension",
    "Extremum",
    "FloorDiv",
    "Grade",
    "INT64_MAX",
    "Interval",
    "PartialShape",
    "Poly",
    "Shape",
    "ShapeError",
    "Symbol",
    "as_dimension",
    "as_partial_shape",
    "consistency",
    "extremum",
    "format_shape",
    "join",
    "parse_dimension",
    "symbols",
]
