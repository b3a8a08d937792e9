"""Python shape rules for what a signature cannot say, one module per operator family.

Every rule is written against `gradual.ops.context.ShapeContext`, so the same function runs in
the checker (symbolic dims) and in the runtime (concrete sizes). Importing this package
registers them all.
"""

from . import elementwise, shape, data, nn, reduce  # noqa: F401
