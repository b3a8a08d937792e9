"""Static shapes, as OpenVINO's `ov::Shape`: a tuple of natural numbers."""

from __future__ import annotations

from typing import Iterable, SupportsIndex, overload

from gradual.shapes.dimension import Dimension
from gradual.shapes.poly import int_text


class Shape(tuple[int, ...]):
    """An immutable static shape. It is a tuple of ints (so it prints, hashes and unpacks as
    one), compares equal to a list or tuple of the same sizes, and slices to a `Shape`."""

    __slots__ = ()

    def __new__(cls, dims: Iterable[object] = ()) -> "Shape":
        return super().__new__(cls, (_size(d) for d in dims))

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Shape: ...
    def __getitem__(self, index: "SupportsIndex | slice") -> "int | Shape":
        if isinstance(index, slice):
            return Shape(super().__getitem__(index))
        return super().__getitem__(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return tuple.__eq__(self, tuple(other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    def to_string(self) -> str:
        """The shape as OpenVINO prints it: `[1,2,3]`."""
        return "[" + ",".join(int_text(d) for d in self) + "]"

    def __str__(self) -> str:
        return tuple.__repr__(self)

    def __repr__(self) -> str:
        return f"<Shape: {self.to_string()}>"


def _size(value: object) -> int:
    """A natural number from an int or a static dimension."""
    if isinstance(value, bool):
        raise TypeError(f"not a size: {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"a size cannot be negative: {value}")
        return value
    if isinstance(value, Dimension):
        return value.get_length()
    raise TypeError(f"not a size: {value!r}")
