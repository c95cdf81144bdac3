"""memref views made inside a kernel (`subview`, `expand_shape`, `collapse_shape`) -> offset,
stride and size expressions over the source view: no data moves."""

from __future__ import annotations

from mlir import ir

from .kernel_types import KernelError, View


def _mixed(k, op, static_name: str, operands) -> list[str]:
    dynamic = {ir.ShapedType.get_dynamic_size(), ir.ShapedType.get_dynamic_stride_or_offset()}
    it = iter(operands)
    return [
        k.v(next(it)) if s in dynamic else str(s)
        for s in ir.DenseI64ArrayAttr(op.attributes[static_name])
    ]


def _product(terms: list[str]) -> str:
    terms = [t for t in terms if t != "1"]
    return " * ".join(f"({t})" for t in terms) if terms else "1"


def kernel_view(k, op: ir.Operation) -> View:
    src = k.view(op.operands[0])
    rt = ir.MemRefType(op.results[0].type)
    if op.name == "memref.subview":
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        rest = list(op.operands[1:])
        n_off, n_size = segments[1], segments[2]
        offs = _mixed(k, op, "static_offsets", rest[:n_off])
        sizes = _mixed(k, op, "static_sizes", rest[n_off : n_off + n_size])
        steps = _mixed(k, op, "static_strides", rest[n_off + n_size :])
        offset = " + ".join([src.offset] + [f"({o}) * ({s})" for o, s in zip(offs, src.strides)])
        strides = [f"({st}) * ({s})" for st, s in zip(steps, src.strides)]
        if rt.rank != len(sizes):  # rank-reducing: drop static unit dims, leftmost first
            drop = len(sizes) - rt.rank
            keep = []
            for d, size in enumerate(sizes):
                if drop and size == "1":
                    drop -= 1
                    continue
                keep.append(d)
            sizes, strides = [sizes[d] for d in keep], [strides[d] for d in keep]
        return View(src.ptr, offset, strides, sizes)
    groups = [
        [ir.IntegerAttr(i).value for i in g] for g in ir.ArrayAttr(op.attributes["reassociation"])
    ]
    if op.name == "memref.expand_shape":
        dyn = iter(op.operands[1:])
        sizes = [
            k.v(next(dyn)) if rt.is_dynamic_dim(d) else str(rt.get_dim_size(d))
            for d in range(rt.rank)
        ]
        strides = [""] * rt.rank
        for d, group in enumerate(groups):
            for pos, j in enumerate(group):
                strides[j] = _product([src.strides[d], *[sizes[i] for i in group[pos + 1 :]]])
        return View(src.ptr, src.offset, strides, sizes)
    if op.name == "memref.collapse_shape":
        sizes = [_product([src.sizes[d] for d in g]) for g in groups]
        strides = [src.strides[g[-1]] if g else "1" for g in groups]
        return View(src.ptr, src.offset, strides, sizes)
    raise KernelError(f"'{op.name}' is not a view the emitter knows")
