"""Shapes with static or dynamic rank, with the meaning OpenVINO gives `ov::PartialShape`."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, overload

from gradual.shapes.dimension import Dimension, DimLike, as_dimension
from gradual.shapes.interval import upper_bound
from gradual.shapes.shape import Shape


class ShapeError(ValueError):
    """Raised when shapes cannot be merged, or a dynamic shape is used as a static one."""


class PartialShape:
    """A shape whose rank is static (a list of dimensions) or dynamic (`*`).

    Mutable like its OpenVINO counterpart: `merge_into`, `broadcast_merge_into`,
    `merge_rank`, item assignment, `append` and `emplace_back` update the shape in place;
    `merge` and `broadcast_merge` return new shapes. `str()` writes the shape in gradual's
    type syntax (`(1, ?, 3)`), `to_string()` as OpenVINO does (`[1,?,3]`).
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: "Iterable[DimLike] | str | PartialShape | None" = ()) -> None:
        if isinstance(dims, str):
            dims = _parse_shape_text(dims)
        elif isinstance(dims, PartialShape):
            dims = dims._dims
        self._dims: list[Dimension] | None = None if dims is None else [as_dimension(d) for d in dims]

    @staticmethod
    def dynamic(rank: int | Dimension | None = None) -> "PartialShape":
        """Dynamic rank (no argument, None, -1 or a dynamic Dimension), or the given rank
        with every dimension `?`."""
        rank = None if rank is None else as_dimension(rank)
        if rank is None or not rank.is_static:
            return PartialShape(None)
        return PartialShape([Dimension.dynamic()] * rank.get_length())

    # inspection ---------------------------------------------------------------------------
    @property
    def rank(self) -> Dimension:
        """The rank as a Dimension: static, or `?` for dynamic rank."""
        return Dimension.dynamic() if self._dims is None else Dimension.static(len(self._dims))

    @property
    def is_static(self) -> bool:
        """Static rank and every dimension static."""
        return self._dims is not None and all(d.is_static for d in self._dims)

    @property
    def is_dynamic(self) -> bool:
        """Not static."""
        return not self.is_static

    @property
    def dims(self) -> tuple[Dimension, ...] | None:
        """The dimensions, or None for dynamic rank."""
        return None if self._dims is None else tuple(self._dims)

    def get_dimension(self, index: int) -> Dimension:
        """The dimension at `index` (negative counts from the end), as OpenVINO."""
        return self[index]

    def to_shape(self) -> Shape:
        """The concrete shape; ShapeError if any dimension or the rank is dynamic."""
        if not self.is_static:
            raise ShapeError(f"to_shape was called on the dynamic shape {self}")
        return Shape(d.get_length() for d in self._static_dims())

    def get_shape(self) -> Shape:
        """Alias of to_shape, as OpenVINO."""
        return self.to_shape()

    def get_min_shape(self) -> Shape:
        """Lower bound of every dimension (empty for dynamic rank)."""
        return Shape() if self._dims is None else Shape(d.min_length for d in self._dims)

    def get_max_shape(self) -> Shape:
        """Upper bound of every dimension, the int64 maximum when unbounded as in OpenVINO
        (empty for dynamic rank)."""
        return Shape() if self._dims is None else Shape(upper_bound(d.max_length) for d in self._dims)

    def all_non_negative(self) -> bool:
        """Always true: dimensions cannot be negative here."""
        return True

    # relations ----------------------------------------------------------------------------
    def compatible(self, other: "PartialShape | Iterable[DimLike]") -> bool:
        """Whether the two shapes can be merged."""
        other = as_partial_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(a.compatible(b) for a, b in zip(self._dims, other._dims))

    def same_scheme(self, other: "PartialShape | Iterable[DimLike]") -> bool:
        """Both dynamic rank, or equal rank with dimensions of the same scheme."""
        other = as_partial_shape(other)
        if self._dims is None or other._dims is None:
            return self._dims is None and other._dims is None
        return len(self._dims) == len(other._dims) and all(a.same_scheme(b) for a, b in zip(self._dims, other._dims))

    def relaxes(self, other: "PartialShape | Iterable[DimLike]") -> bool:
        """Whether this shape is at least as permissive as `other`."""
        other = as_partial_shape(other)
        if self._dims is None:
            return True
        if other._dims is None or len(other._dims) != len(self._dims):
            return False
        return all(a.relaxes(b) for a, b in zip(self._dims, other._dims))

    def refines(self, other: "PartialShape | Iterable[DimLike]") -> bool:
        """Whether this shape is at most as permissive as `other` (dual of relaxes)."""
        return as_partial_shape(other).relaxes(self)

    # merging ------------------------------------------------------------------------------
    def merge_rank(self, rank: int | Dimension) -> bool:
        """Give a dynamic-rank shape the static rank `rank`; False if the ranks conflict."""
        rank = as_dimension(rank)
        if not rank.is_static:
            return True
        if self._dims is None:
            self._dims = [Dimension.dynamic()] * rank.get_length()
            return True
        return len(self._dims) == rank.get_length()

    @staticmethod
    def merge_into(dst: "PartialShape", src: "PartialShape | Iterable[DimLike]") -> bool:
        """Merge `src` into `dst` in place; False (dst unspecified) when they conflict."""
        _changeable(dst, "merge_into")
        src = as_partial_shape(src)
        if dst._dims is None:
            dst._dims = None if src._dims is None else list(src._dims)
            return True
        if src._dims is None:
            return True
        if len(dst._dims) != len(src._dims):
            return False
        success = True
        for i, (a, b) in enumerate(zip(dst._dims, src._dims)):
            merged = Dimension.merge(a, b)
            if merged is None:
                success = False
            else:
                dst._dims[i] = merged
        return success

    def merge(self, other: "PartialShape | Iterable[DimLike]") -> "PartialShape":
        """The most permissive shape refining both; ShapeError when they conflict."""
        result = PartialShape(self._dims)
        if not PartialShape.merge_into(result, other):
            raise ShapeError(f"shapes {self} and {as_partial_shape(other)} cannot be merged")
        return result

    @staticmethod
    def broadcast_merge_into(
        dst: "PartialShape", src: "PartialShape | Iterable[DimLike]", autob: str = "numpy", axis: int = -1
    ) -> bool:
        """Broadcast `src` into `dst` in place, as OpenVINO's `broadcast_merge_into` with
        `AutoBroadcastSpec(autob, axis)`: "numpy" aligns the trailing dims; "pdpd" (PaddlePaddle)
        lays `src` over `dst` from dim `axis` (-1: trailing) and `src` must not be the larger;
        "none" leaves `dst` as is. False (dst unspecified) when they conflict."""
        _changeable(dst, "broadcast_merge_into")
        kind = autob.lower()
        if kind == "none":
            return True
        if kind not in ("numpy", "pdpd"):
            raise ValueError(f"unsupported broadcast kind {autob!r}")
        src = as_partial_shape(src)
        if dst._dims is None or src._dims is None:
            dst._dims = None
            return True
        if kind == "pdpd":
            return _pdpd_broadcast_into(dst._dims, src._dims, axis)
        rank = max(len(dst._dims), len(src._dims))
        padded_dst = [Dimension.static(1)] * (rank - len(dst._dims)) + dst._dims
        padded_src = [Dimension.static(1)] * (rank - len(src._dims)) + src._dims
        success = True
        merged_dims = []
        for a, b in zip(padded_dst, padded_src):
            merged = Dimension.broadcast_merge(a, b)
            success &= merged is not None
            merged_dims.append(Dimension.dynamic() if merged is None else merged)
        dst._dims = merged_dims
        return success

    def broadcast_merge(
        self, other: "PartialShape | Iterable[DimLike]", autob: str = "numpy", axis: int = -1
    ) -> "PartialShape":
        """The broadcast of two shapes (see `broadcast_merge_into`); ShapeError when they
        conflict."""
        result = PartialShape(self._dims)
        if not PartialShape.broadcast_merge_into(result, other, autob, axis):
            raise ShapeError(f"shapes {self} and {as_partial_shape(other)} do not broadcast")
        return result

    # container protocol -------------------------------------------------------------------
    def _static_dims(self) -> list[Dimension]:
        if self._dims is None:
            raise ShapeError("a shape of dynamic rank has no indexable dimensions")
        return self._dims

    def __len__(self) -> int:
        return len(self._static_dims())

    def __iter__(self) -> Iterator[Dimension]:
        return iter(self._static_dims())

    @overload
    def __getitem__(self, index: int) -> Dimension: ...
    @overload
    def __getitem__(self, index: slice) -> PartialShape: ...
    def __getitem__(self, index: "int | slice") -> "Dimension | PartialShape":
        """The dimension at `index`, or the shape of a slice (`shape[::2]`)."""
        if isinstance(index, slice):
            return PartialShape(self._static_dims()[index])
        return self._static_dims()[index]

    def __setitem__(self, index: int, value: DimLike) -> None:
        self._static_dims()[index] = as_dimension(value)

    def append(self, dim: DimLike) -> None:
        """Add a dimension at the end (the shape must have static rank)."""
        self._static_dims().append(as_dimension(dim))

    def emplace_back(self, *args: object) -> None:
        """Add `Dimension(*args)` at the end, as OpenVINO's `emplace_back(3, 5)`."""
        self.append(Dimension(*args))

    def __copy__(self) -> "PartialShape":
        return PartialShape(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> "PartialShape":
        return PartialShape(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            other = as_partial_shape(other)
        if not isinstance(other, PartialShape):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(None if self._dims is None else tuple(self._dims))

    def __str__(self) -> str:
        return format_shape(self.dims)

    def to_string(self) -> str:
        """The shape as OpenVINO prints it: `[1,?,..8]`, `[...]` for dynamic rank."""
        if self._dims is None:
            return "[...]"
        return "[" + ",".join(d.to_string() for d in self._dims) + "]"

    def __repr__(self) -> str:
        return f"<PartialShape: {self.to_string()}>"


def format_shape(dims: tuple[Dimension, ...] | None) -> str:
    """`(1, ?, n + 1)`, `(3,)` for rank 1, `()` for a scalar, `*` for dynamic rank."""
    if dims is None:
        return "*"
    if len(dims) == 1:
        return f"({dims[0]},)"
    return "(" + ", ".join(str(d) for d in dims) + ")"


def as_partial_shape(value: "PartialShape | Iterable[DimLike] | None") -> PartialShape:
    """Coerce a list of dimension-likes (or None for dynamic rank) to a PartialShape."""
    if isinstance(value, PartialShape):
        return value
    return PartialShape(value)


def _pdpd_broadcast_into(dst: list[Dimension], src: list[Dimension], axis: int) -> bool:
    """PaddlePaddle broadcasting of `src` into `dst` from dim `axis`, in place."""
    if len(src) > len(dst) or axis < -1:
        return False
    start = len(dst) - len(src) if axis == -1 else axis
    if start + len(src) > len(dst):
        return False
    success = True
    for i, s in enumerate(src):
        d = dst[start + i]
        if d.is_static and s.is_static and s.get_length() > d.get_length():
            return False
        merged = Dimension.broadcast_merge(d, s)
        success &= merged is not None
        if merged is not None:
            dst[start + i] = merged
    return success


def _parse_shape_text(text: str) -> list[Dimension] | None:
    """`[1,?,3]` and `[...]` (OpenVINO's text), `(1, ?, 3)`, `(3,)` and `*` (gradual's)."""
    text = text.strip()
    tuple_form = text[:1] == "(" and text[-1:] == ")"
    if tuple_form or (text[:1] == "[" and text[-1:] == "]"):
        text = text[1:-1].strip()
    if text in ("*", "..."):
        return None
    if not text:
        return []
    parts = [p.strip() for p in text.split(",")]
    if tuple_form and len(parts) > 1 and not parts[-1]:
        parts.pop()  # `(3,)`, a shape of rank 1
    if not all(parts):
        raise ValueError(f"cannot read {text!r} as a shape: a dimension is missing between commas")
    return [Dimension(p) for p in parts]


def _changeable(dst: object, method: str) -> None:
    """`dst` of an in-place merge must be a PartialShape (a list failed with an AttributeError
    about `_dims`): the merge changes it, as in OpenVINO."""
    if not isinstance(dst, PartialShape):
        raise TypeError(
            f"PartialShape.{method} changes `dst` in place: it takes a PartialShape, "
            f"not {type(dst).__name__} (use `PartialShape(dst)`, or `a.merge(b)` for a new shape)"
        )
