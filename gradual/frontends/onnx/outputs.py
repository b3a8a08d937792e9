"""The graph outputs' declared types, and `@main`'s result annotation made from them.

A declared output type is a claim the checker verifies: `@main`'s result is annotated with it.
But a model often declares less than the checker infers: an output with no shape, a `?` dim, or
a dim named by the exporter that no input has (`Reluy_dim_2`, which only says "some size").
Annotating with those would hide what the checker knows (`Tensor[*, float32]` where it
inferred `(2 * N, 64)`). So the declared parts are checked and the undeclared parts show the
inferred type: a model whose outputs are all fully declared is annotated as declared; otherwise
it is checked without an annotation first, and, where the declared parts say something the
inference did not already prove, checked again with the inferred type filled into the
declaration's gaps.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from gradual import builder as gb
from gradual.frontends.onnx.types import DimExpr, TensorInfo
from gradual.syntax import ast
from gradual.types import DYN_DTYPE, TensorType, TupleType, Type


def declared(info: Optional[TensorInfo], input_dims: set) -> Optional[TensorInfo]:
    """What an output's declaration says (None dims or dtype where it says nothing): a named
    dim counts only when it is one of the inputs' dims."""
    if info is None:
        return None
    dims = info.dims
    if dims is not None:
        dims = tuple(
            d if isinstance(d, (int, DimExpr)) or isinstance(d, str) and d in input_dims else None for d in dims
        )
    return TensorInfo(info.dtype if info.elem_type else None, dims, info.elem_type)


def complete(info: Optional[TensorInfo]) -> bool:
    """Whether a declaration says everything: dtype, rank and every dim."""
    return info is not None and info.dtype is not None and info.dims is not None and None not in info.dims


def annotation(infos: list) -> Optional[ast.TypeExpr]:
    """The result annotation of fully declared outputs (a tuple for several)."""
    if not infos or not all(complete(i) for i in infos):
        return None
    types = [i.type_expr() for i in infos]
    return types[0] if len(types) == 1 else gb.TupleOf(*types)


def says_something(infos: list) -> bool:
    """Whether any output declares a dtype, a rank or a dim."""
    return any(i is not None and (i.dtype is not None or i.dims is not None) for i in infos)


def refined(infos: list, result: Type) -> Optional[ast.TypeExpr]:
    """The annotation that checks each declared part against the inferred result type and keeps
    the inferred type elsewhere; None when the inference already proves every declared part."""
    fields = list(result.fields) if len(infos) > 1 and isinstance(result, TupleType) else [result]
    if len(fields) != len(infos):
        return None
    merged, needed = [], False
    for info, inferred in zip(infos, fields):
        expr, differs = _merge(info, inferred)
        merged.append(expr)
        needed |= differs
    if not needed:
        return None
    return merged[0] if len(merged) == 1 else gb.TupleOf(*merged)


def _merge(info: Optional[TensorInfo], inferred: Type) -> tuple:
    from gradual.checker.elaboration import type_syntax

    shown = type_syntax(inferred)
    if info is None:
        return shown, False
    if not isinstance(inferred, TensorType) or not isinstance(shown, ast.TensorTypeExpr):
        return info.type_expr(), True
    differs = info.dtype is not None and info.dtype != inferred.dtype
    dtype = info.dtype or (inferred.dtype if isinstance(inferred.dtype, str) else DYN_DTYPE)
    if info.dims is None:
        return ast.TensorTypeExpr(shown.dims, dtype), differs
    if shown.dims is None or inferred.dims is None or len(shown.dims) != len(info.dims):
        return info.type_expr(), True
    dims: list = []
    for declared_dim, inferred_dim, inferred_expr in zip(info.dims, inferred.dims, shown.dims):
        if declared_dim is None:
            dims.append(inferred_expr)
            continue
        declared = TensorInfo(None, (declared_dim,)).type_expr().dims
        assert declared is not None, "a TensorInfo of known rank writes its dims"
        dims.append(declared[0])
        differs |= str(declared_dim) != str(inferred_dim)
    return ast.TensorTypeExpr(tuple(dims), dtype), differs


def with_result_type(module: ast.Module, ret: ast.TypeExpr) -> ast.Module:
    """The module with `@main`'s result annotated (located at the graph outputs' line, where
    `@main` itself is)."""
    defs = tuple(replace(d, ret=gb.located(ret, d.span)) if d.name == "main" else d for d in module.defs)
    return replace(module, defs=defs)
