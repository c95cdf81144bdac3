"""Programs of a single aten op on given tensors: the unit a decomposition or a lowering is
checked on (`single_op_program`; `list_op_program` for ops taking a `Tensor[]`)."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import func

from aten_mlir.dialects import ArgKind, build_aten, get_op_def, make_context, tensor_type
from aten_mlir.frontend.program import InputSpec, OutputSpec, Program, Signature


def single_op_program(
    op_name: str, tensors: list[torch.Tensor], dynamic=False, names=None, **kwargs
) -> Program:
    """`@main(tensors...)` returning `op_name(tensors..., **kwargs)`. `dynamic`: True makes every
    input dim `?`, a list gives the `?` dims of each tensor (ops like layer_norm check a static
    normalized shape); `names` binds the tensors to those schema arguments instead of positions."""
    return _program(op_name, tensors, dynamic, names, build_aten, kwargs)


def list_op_program(op_name: str, tensors: list[torch.Tensor], dynamic=False, lead=None, **kwargs):
    """`single_op_program`, but the op's `Tensor[]` argument takes the tensors after the first
    `lead` (default: all of them, or all after the Tensor arguments before the list):
    `aten.stack([x0, x1], dim=1)`. An op without a `Tensor[]` argument is `single_op_program`."""
    args = get_op_def(op_name).args
    lists = [a for a in args if a.kind is ArgKind.TENSOR_LIST]
    if not lists:
        return single_op_program(op_name, tensors, dynamic=dynamic, **kwargs)
    if lead is None:
        lead = sum(1 for a in args[: args.index(lists[0])] if a.kind is ArgKind.TENSOR)

    def build_with_list(name, *values, **kw):
        return build_aten(name, *values[:lead], **{lists[0].name: list(values[lead:])}, **kw)

    return _program(op_name, tensors, dynamic, None, build_with_list, kwargs)


def _program(op_name, tensors, dynamic, names, build, kwargs) -> Program:
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
            op = build(op_name, *args, **kwargs)
            func.ReturnOp(op.results)
        result_types = [r.type for r in op.results]
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, result_types))
    signature = Signature(
        [InputSpec("user_input", f"x{i}") for i in range(len(tensors))],
        [OutputSpec("user_output", f"out{i}") for i in range(len(result_types))],
    )
    return Program(module, {}, signature)
