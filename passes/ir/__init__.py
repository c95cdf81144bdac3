"""Shared IR queries, defined once, below every pass and both backends.

- `walk`: the ops of a module (`nested_ops`, `walked_ops`, `function_blocks`,
  `defined_functions`, `outside_uses`).
- `memory`: which ops only view memory (`MEMREF_VIEWS`, `view_root`) and which compute a value
  from their operands only (`PURE_PREFIXES`, `is_pure`).
- `conventions`: what a pass and the driver agree on: bool and unsigned tensors stored as
  signless ints (`storage_type`), the `aten.glue` attribute of outlined glue functions (`GLUE`).
- `monomials`: sizes as monomials over symbolic sizes, for matching partly dynamic reshapes.
- `reshapes`: collapse/expand_shape groups (`reassociation`, `unit_groups`).

May import: `mlir` only (no module of `aten_mlir`): everything else in `passes/` and
`backends/` imports from here, so nothing here may import them back.
"""

from .conventions import (
    GLUE,
    has_storage_type,
    is_bool_tensor,
    is_unsigned_type,
    storage_type,
)
from .memory import MEMREF_ALIASES, MEMREF_VIEWS, PURE_PREFIXES, constant_int, is_pure, view_root
from .reshapes import reassociation, unit_groups
from .walk import defined_functions, function_blocks, nested_ops, outside_uses, walked_ops

__all__ = [
    "GLUE",
    "MEMREF_ALIASES",
    "MEMREF_VIEWS",
    "PURE_PREFIXES",
    "constant_int",
    "defined_functions",
    "function_blocks",
    "has_storage_type",
    "is_bool_tensor",
    "is_pure",
    "is_unsigned_type",
    "nested_ops",
    "outside_uses",
    "reassociation",
    "storage_type",
    "unit_groups",
    "view_root",
    "walked_ops",
]
