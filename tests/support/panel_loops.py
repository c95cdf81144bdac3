"""Where the outer kernel copies B's panels: the loops around both the copy and the FMA tiles."""

from __future__ import annotations

from pathlib import Path

from mlir import ir

from aten_mlir.passes.ir import nested_ops


def _loops_around(op: ir.Operation) -> list[ir.Operation]:
    out, parent = [], op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "scf.for":
            out.append(parent)
        parent = parent.parent
    return out


def loops_around_copy_and_tiles(dump_dir: Path) -> int | None:
    """How many `scf.for`s enclose both a store into B's panels (a rank-3 `memref.alloc`) and
    an FMA of the tiles, in the dump's 05-vectorize.mlir (the most over any such pair); None
    when there are no panels. GotoBLAS's order has 2 (the n and k blocks), a copy per m block
    3."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse((Path(dump_dir) / "05-vectorize.mlir").read_text())
        ops = list(nested_ops(module.operation))
        panels = [
            op.results[0]
            for op in ops
            if op.name == "memref.alloc" and ir.MemRefType(op.results[0].type).rank == 3
        ]
        stores = [op for op in ops if op.name == "vector.store" and op.operands[1] in panels]
        if not stores:
            return None
        fmas = [op for op in ops if op.name == "vector.fma"]
        copy_loops = {loop for store in stores for loop in _loops_around(store)}
        return max(len(copy_loops & set(_loops_around(fma))) for fma in fmas)
