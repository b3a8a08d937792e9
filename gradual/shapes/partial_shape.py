"""Shapes with static or dynamic rank, with the meaning OpenVINO gives `ov::PartialShape`."""

from __future__ import annotations

from typing import Iterable, Iterator

from .dimension import DimLike, Dimension, as_dimension


class ShapeError(ValueError):
    """Raised when shapes cannot be merged, or a dynamic shape is used as a static one."""


class PartialShape:
    """A shape whose rank is static (a list of dimensions) or dynamic (`*`).

    Mutable like its OpenVINO counterpart: `merge_into`, `broadcast_merge_into` and
    `merge_rank` update the shape in place; `merge` and `broadcast_merge` return new shapes.
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

    def to_shape(self) -> tuple[int, ...]:
        """The concrete shape; ShapeError if any dimension or the rank is dynamic."""
        if not self.is_static:
            raise ShapeError(f"to_shape was called on the dynamic shape {self}")
        return tuple(d.get_length() for d in self._dims)  # type: ignore[union-attr]

    def get_shape(self) -> tuple[int, ...]:
        """Alias of to_shape, as OpenVINO."""
        return self.to_shape()

    def get_min_shape(self) -> tuple[int, ...]:
        """Lower bound of every dimension (empty for dynamic rank)."""
        return () if self._dims is None else tuple(d.get_min_length() for d in self._dims)

    def get_max_shape(self) -> tuple[int, ...]:
        """Upper bound of every dimension, -1 when unbounded (empty for dynamic rank)."""
        return () if self._dims is None else tuple(d.get_max_length() for d in self._dims)

    def all_non_negative(self) -> bool:
        """Always true: dimensions cannot be negative here."""
        return True

    # relations ----------------------------------------------------------------------------
    def compatible(self, other: "PartialShape | Iterable[DimLike]") -> bool:
        """Whether the two shapes can be merged."""
        other = as_partial_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a.compatible(b) for a, b in zip(self._dims, other._dims)
        )

    def same_scheme(self, other: "PartialShape | Iterable[DimLike]") -> bool:
        """Both dynamic rank, or equal rank with dimensions of the same scheme."""
        other = as_partial_shape(other)
        if self._dims is None or other._dims is None:
            return self._dims is None and other._dims is None
        return len(self._dims) == len(other._dims) and all(
            a.same_scheme(b) for a, b in zip(self._dims, other._dims)
        )

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
        dst: "PartialShape", src: "PartialShape | Iterable[DimLike]", autob: str = "numpy"
    ) -> bool:
        """NumPy-broadcast `src` into `dst` in place (autob "none" leaves dst as is)."""
        if autob.lower() == "none":
            return True
        if autob.lower() != "numpy":
            raise ValueError(f"unsupported broadcast kind {autob!r}")
        src = as_partial_shape(src)
        if dst._dims is None or src._dims is None:
            dst._dims = None
            return True
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

    def broadcast_merge(self, other: "PartialShape | Iterable[DimLike]") -> "PartialShape":
        """The NumPy broadcast of two shapes; ShapeError when they conflict."""
        result = PartialShape(self._dims)
        if not PartialShape.broadcast_merge_into(result, other):
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

    def __getitem__(self, index: int) -> Dimension:
        return self._static_dims()[index]

    def __setitem__(self, index: int, value: DimLike) -> None:
        self._static_dims()[index] = as_dimension(value)

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

    def __repr__(self) -> str:
        return f"PartialShape({self})"


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


def _parse_shape_text(text: str) -> list[Dimension] | None:
    text = text.strip()
    if text in ("*", "...", "[...]"):
        return None
    if text[:1] in "([" and text[-1:] in ")]":
        text = text[1:-1]
    parts = [p for p in (s.strip() for s in text.split(",")) if p]
    return [Dimension(p) for p in parts]
