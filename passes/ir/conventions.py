"""What the passes and the driver agree on about the IR: how the aten -> linalg lowering stores
bool and unsigned tensors (the driver casts across native boundaries with the same
`storage_type`), and the attribute marking the glue functions `aten-outline-repeats` makes
(the native build keeps them out of line)."""

from __future__ import annotations

from mlir import ir

# The unit attribute on a function outlined as glue between repeated blocks.
GLUE = "aten.glue"


def is_bool_tensor(t: ir.Type) -> bool:
    return (
        isinstance(t, ir.RankedTensorType)
        and isinstance(t.element_type, ir.IntegerType)
        and ir.IntegerType(t.element_type).width == 1
    )


def is_unsigned_type(t: ir.Type) -> bool:
    """A tensor (or element) type of unsigned ints."""
    e = ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t
    return isinstance(e, ir.IntegerType) and ir.IntegerType(e).is_unsigned


def has_storage_type(t: ir.Type) -> bool:
    """Bool and unsigned tensors are built, and cross native boundaries, as signless ints."""
    return isinstance(t, ir.RankedTensorType) and (is_bool_tensor(t) or is_unsigned_type(t))


def storage_type(t: ir.Type) -> ir.Type:
    """The type a tensor is built as: bool tensors are i8 tensors holding 0 or 1, unsigned ints
    are signless ints of the same width (the same bytes)."""
    if has_storage_type(t):
        t = ir.RankedTensorType(t)
        bits = max(8, ir.IntegerType(t.element_type).width)
        signless = ir.IntegerType.get_signless(bits, context=t.context)
        return ir.RankedTensorType.get(
            t.shape, signless, t.encoding, loc=ir.Location.unknown(t.context)
        )
    return t
