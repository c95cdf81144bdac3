"""Programs of a single aten op on given tensors: the unit a decomposition is checked on."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import func

from aten_mlir.dialects import build_aten, make_context, tensor_type
from aten_mlir.frontend.program import InputSpec, OutputSpec, Program, Signature


def single_op_program(
    op_name: str, tensors: list[torch.Tensor], dynamic=False, names=None, **kwargs
) -> Program:
    """`@main(tensors...)` returning `op_name(tensors..., **kwargs)`. `dynamic`: True makes every
    input dim `?`, a list gives the `?` dims of each tensor (ops like layer_norm check a static
    normalized shape); `names` binds the tensors to those schema arguments instead of positions."""
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        dyn = ir.ShapedType.get_dynamic_size()
        if not isinstance(dynamic, (list, tuple)):
            dynamic = [range(t.dim()) if dynamic else () for t in tensors]
        types = [
            ir.RankedTensorType.get(
                [dyn if d in dims else s for d, s in enumerate(t.shape)],
                tensor_type(t.shape, t.dtype).element_type,
            )
            for t, dims in zip(tensors, dynamic)
        ]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", ir.FunctionType.get(types, []))
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            args = list(block.arguments)
            if names:
                kwargs.update(zip(names, args))
                args = []
            op = build_aten(op_name, *args, **kwargs)
            func.ReturnOp(op.results)
        result_types = [r.type for r in op.results]
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, result_types))
    signature = Signature(
        [InputSpec("user_input", f"x{i}") for i in range(len(tensors))],
        [OutputSpec("user_output", f"out{i}") for i in range(len(result_types))],
    )
    return Program(module, {}, signature)


def assert_decomposes_like(program: Program, tensors: list[torch.Tensor], **close):
    """Decomposes `program`, asserts only target-set ops remain and that it computes what the
    original computes (dtype and shape too); returns (expected, actual)."""
    import aten_mlir
    from aten_mlir.passes.decompose import ops_outside, target_set

    expected = aten_mlir.run_reference(program, *tensors)
    decomposed = aten_mlir.decompose(program)
    assert not ops_outside(decomposed.module.operation, target_set()), str(decomposed)
    actual = aten_mlir.run_reference(decomposed, *tensors)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    torch.testing.assert_close(actual, expected, equal_nan=True, **close)
    return expected, actual
