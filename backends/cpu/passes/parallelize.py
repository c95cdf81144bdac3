"""`cpu-parallelize-loops`: the outer parallel loops of CPU code run on the thread pool.

Each outermost loop whose iterations are independent, with enough work to pay for waking the
workers, is outlined into `func.func private @<f>_parallel<i>(%ctx: !llvm.ptr, %begin: index, %end:
index)`: the loop itself, restricted to iterations [begin, end) of its outer dim (or of its leading
dims flattened, when the first has too few trips to share). What the loop reads from the function
(memrefs, scalars, vectors) is stored in a context struct on the caller's stack; constants are
cloned instead, and a broadcast is rebuilt inside from its source (a hoisted `vector<32xindex>` of a
`?` size: one i64 crosses instead of 256 bytes). Index values cross as i64 (vectors of index as
vectors of i64: LLVM has no index type, and a struct field of `vector<Nxindex>` made mlir-translate
assert). The loop's place gets the stores and `aten_mlir_parallel_for(@outlined, ctx, trips)`, which
`backends/cpu/threads.c` runs on `torch.get_num_threads()` threads, and at one thread as one call
over every iteration. A loop's body is untouched: inner vector loops stay whole, and loops nested in
an outlined one run serially on their thread.

`scf.parallel` nests without reductions are independent by construction; an `scf.for` (what the
vectorize passes emit) is when `parallel_deps` proves it. Memrefs cross as their LLVM
descriptors through `unrealized_conversion_cast`, which `reconcile-unrealized-casts` folds away
once `finalize-memref-to-llvm` has lowered both sides, as upstream's GPU outlining does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, func, llvm, scf

from aten_mlir.passes.ir import constant_int, defined_functions, walked_ops
from aten_mlir.passes.registry import ModulePass, option, register_pass

from . import parallel_captures as crossing
from .parallel_deps import iterations_independent

RUNTIME = "aten_mlir_parallel_for"
# Estimated ops (a vector op counts its lanes / 8) below which a loop stays serial: waking the
# workers and joining them costs a few microseconds.
MIN_WORK = 1 << 16
# Leading dims of an scf.parallel are flattened until there are this many shares to split.
SHARES = 64
# Trips assumed for a loop whose bounds are dynamic.
DYNAMIC_TRIPS = 16
# An AMX tile product (16 x 16 f32 results over 32 bf16 k) counted as the 8-lane ops it
# replaces, not as one op: a 256^3 bf16 product otherwise looked too small to share out.
_TILE_PRODUCTS = {"amx.tile_mulf": 16 * 16 * 32 // 8}


@dataclass
class _Plan:
    loop: ir.Operation
    flattened: int  # leading dims iterated as one range (1 for an scf.for)
    trips: list  # static trips per dim, None where dynamic
    # with dynamic trips too few for MIN_WORK at DYNAMIC_TRIPS: the shares below which the
    # call runs the loop serially (decided at run time), else 0
    min_shares: int = 0


def _dims(loop: ir.Operation) -> int:
    return 1 if loop.name == "scf.for" else len(loop.regions[0].blocks[0].arguments)


def _static_trips(loop: ir.Operation) -> list:
    d = _dims(loop)
    out = []
    for k in range(d):
        lb, ub, step = (constant_int(loop.operands[k + j * d]) for j in range(3))
        out.append(None if None in (lb, ub, step) or step <= 0 else max(0, -(-(ub - lb) // step)))
    return out


def _trip_product(loop: ir.Operation) -> int:
    total = 1
    for t in _static_trips(loop):
        total *= DYNAMIC_TRIPS if t is None else t
    return total


def _work(block: ir.Block, memo: dict) -> int:
    """Estimated ops one run of `block` executes. `memo` holds the blocks counted so far: the
    search asks again at every depth of a nest (a fifth of the pass on train_transformer)."""
    total = memo.get(block)
    if total is not None:
        return total
    total = 0
    for op in block.operations:
        op = op.operation
        if op.name in ("scf.for", "scf.parallel"):
            total += _trip_product(op) * _work(op.regions[0].blocks[0], memo)
        elif len(op.regions):
            total += sum(_work(b, memo) for r in op.regions for b in r.blocks)
        elif op.name in _TILE_PRODUCTS:
            total += _TILE_PRODUCTS[op.name]
        else:
            lanes = [r.type for r in op.results if isinstance(r.type, ir.VectorType)]
            total += max([1] + [_elements(v) // 8 for v in lanes])
    memo[block] = total
    return total


def _elements(t: ir.VectorType) -> int:
    n = 1
    for s in t.shape:
        n *= s
    return n


def _plan(loop: ir.Operation, min_work: int, memo: dict) -> _Plan | None:
    body = loop.regions[0].blocks[0]
    trips = _static_trips(loop)
    small = _trip_product(loop) * _work(body, memo) < min_work
    if small and None not in trips:
        return None
    plan = _shares(loop, trips)
    if plan is not None and small:
        rest = math.prod(t or DYNAMIC_TRIPS for t in trips[plan.flattened :])
        plan.min_shares = -(-min_work // max(1, rest * _work(body, memo)))
    return plan


def _shares(loop: ir.Operation, trips: list) -> _Plan | None:
    """How `loop`'s iterations are shared, or None when they cannot be."""
    if trips[0] is not None and trips[0] < 2 and (loop.name == "scf.for" or len(trips) == 1):
        return None  # nothing to share here; the loops inside may have something
    if loop.name == "scf.for":
        independent = len(loop.results) == 0 and iterations_independent(loop)
        return _Plan(loop, 1, trips) if independent else None
    if len(loop.results):
        return None  # scf.reduce combines across iterations
    # a dynamic dim counts as DYNAMIC_TRIPS: a dynamic batch of 1 still shares its rows
    flattened, shares = 1, trips[0] or DYNAMIC_TRIPS
    while shares < SHARES and flattened < len(trips):
        shares *= trips[flattened] or DYNAMIC_TRIPS
        flattened += 1
    return _Plan(loop, flattened, trips)


def _find(block: ir.Block, min_work: int, out: list, memo: dict) -> None:
    """The outermost loops in `block` to parallelize; looks inside sequential loops. `memo`:
    `_work`'s, for this search (nothing is rewritten until it ends)."""
    for op in block.operations:
        op = op.operation
        if op.name not in ("scf.for", "scf.parallel", "scf.if"):
            continue
        plan = None if op.name == "scf.if" else _plan(op, min_work, memo)
        if plan is not None:
            out.append(plan)
            continue
        dynamic = _has_dynamic_loop(op)
        for region in op.regions:
            for inner in region.blocks:
                if dynamic or _work(inner, memo) * _trip_product(op) >= min_work:
                    _find(inner, min_work, out, memo)


def _has_dynamic_loop(op: ir.Operation) -> bool:
    """Some loop in `op` (or `op`) has trips known only at run time."""
    loops = [o for o in walked_ops(op) if o.name in ("scf.for", "scf.parallel")]
    return any(None in _static_trips(o) for o in loops)


def _dim_trips(plan: _Plan, bounds, k: int) -> ir.Value:
    """The trips of dim `k`: a constant, or computed from its bounds at run time."""
    if plan.trips[k] is not None:
        return arith.constant(ir.IndexType.get(), plan.trips[k])
    lb, ub, step = bounds[k]
    return arith.ceildivsi(arith.subi(ub, lb), step)


def _trips_value(plan: _Plan, bounds) -> ir.Value:
    """The number of shares: the trips of the flattened dims."""
    static = plan.trips[: plan.flattened]
    if None not in static:
        return arith.constant(ir.IndexType.get(), math.prod(static))
    total = _dim_trips(plan, bounds, 0)
    for k in range(1, plan.flattened):
        total = arith.muli(total, _dim_trips(plan, bounds, k))
    return total


def _restrict(plan: _Plan, begin: ir.Value, end: ir.Value) -> None:
    """Makes the (moved) loop run shares [begin, end) only."""
    loop, d = plan.loop, _dims(plan.loop)
    index = ir.IndexType.get()
    if plan.flattened == 1:
        with ir.InsertionPoint(loop):
            lb, ub, step = (loop.operands[j * d] for j in range(3))
            first = arith.addi(lb, arith.muli(begin, step))
            last = arith.minsi(arith.addi(lb, arith.muli(end, step)), ub)
        loop.operands[0], loop.operands[d] = first, last
        return
    with ir.InsertionPoint(loop):
        bounds = [tuple(loop.operands[k + j * d] for j in range(3)) for k in range(d)]
        dim_trips = [_dim_trips(plan, bounds, k) for k in range(plan.flattened)]
        share_loop = scf.ForOp(begin, end, arith.constant(index, 1))
    with ir.InsertionPoint(share_loop.body):
        rest = share_loop.induction_variable
        for k in reversed(range(plan.flattened)):
            trips = dim_trips[k]
            at = arith.remui(rest, trips) if k else rest
            rest = arith.divui(rest, trips) if k else rest
            lb, step = loop.operands[k], loop.operands[k + 2 * d]
            first = arith.addi(lb, arith.muli(at, step))
            loop.operands[k], loop.operands[k + d] = first, arith.addi(first, step)
        yield_op = scf.YieldOp([])
    loop.move_before(yield_op)


def _call(plan: _Plan, name: str, body_t: ir.Type, ctx: ir.Value, trips: ir.Value) -> None:
    """`aten_mlir_parallel_for(@name, ctx, trips)`; with `min_shares`, only when there are that
    many shares, else `@name(ctx, 0, trips)` on this thread (too little work to wake others)."""
    if not plan.min_shares:
        fn = func.constant(body_t, ir.FlatSymbolRefAttr.get(name))
        func.call([], RUNTIME, [fn, ctx, trips])
        return
    index = ir.IndexType.get()
    enough = arith.cmpi(arith.CmpIPredicate.uge, trips, arith.constant(index, plan.min_shares))
    branch = scf.IfOp(enough, [], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        fn = func.constant(body_t, ir.FlatSymbolRefAttr.get(name))
        func.call([], RUNTIME, [fn, ctx, trips])
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        func.call([], name, [ctx, arith.constant(index, 0), trips])
        scf.YieldOp([])


def _outline(module_op: ir.Operation, f: ir.Operation, plan: _Plan, name: str) -> bool:
    loop = plan.loop
    used, ops = crossing.captures(loop)  # `ops`: the ops whose operands are remapped below
    rebuilt = {v: s for v in used if (s := crossing.rebuilt(v)) is not None}
    # the scalars of the rebuilt broadcasts take their place, in order of first use
    passed = list(dict.fromkeys(rebuilt.get(v, v) for v in used))
    captures = [v for v in passed if not crossing.is_cloned(v)]
    fields = [crossing.field_type(v.type) for v in captures]
    if None in fields:
        return False
    ptr, index = ir.Type.parse("!llvm.ptr"), ir.IndexType.get()
    struct_t = ir.Type.parse(f"!llvm.struct<({', '.join(map(str, fields))})>")
    body_t = ir.FunctionType.get([ptr, index, index], [])
    with loop.location:
        with ir.InsertionPoint.at_block_begin(f.regions[0].blocks[0]):
            one = llvm.mlir_constant(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1))
            ctx = llvm.alloca(ptr, one, struct_t, alignment=64)
        d = _dims(loop)
        bounds = [tuple(loop.operands[k + j * d] for j in range(3)) for k in range(d)]
        with ir.InsertionPoint(loop):
            for k, (v, field_t) in enumerate(zip(captures, fields)):
                crossing.store(v, field_t, crossing.field(ctx, struct_t, k))
            trips = _trips_value(plan, bounds)
            _call(plan, name, body_t, ctx, trips)
        with ir.InsertionPoint(module_op.regions[0].blocks[0]):
            outlined = func.FuncOp(name, body_t, visibility="private")
        entry = outlined.add_entry_block()
        with ir.InsertionPoint(entry):
            ctx_arg, begin, end = entry.arguments
            mapping = {}
            for v in passed:
                if crossing.is_cloned(v):
                    mapping[v] = v.owner.clone().results[0]
            for k, (v, field_t) in enumerate(zip(captures, fields)):
                mapping[v] = crossing.load(v.type, field_t, crossing.field(ctx_arg, struct_t, k))
            for v, source in rebuilt.items():
                again = v.owner.clone()
                again.operands[0] = mapping[source]
                mapping[v] = again.results[0]
            ret = func.ReturnOp([])
        loop.move_before(ret)
        # per op of the loop, not per use of each value: a constant has thousands of uses
        # across a model's function
        for op in ops:
            for k, value in enumerate(op.operands):
                new = mapping.get(value)
                if new is not None:
                    op.operands[k] = new
        _restrict(plan, begin, end)
    return True


def _declare_runtime(module_op: ir.Operation) -> None:
    block = module_op.regions[0].blocks[0]
    for op in block.operations:
        name = ir.StringAttr(op.operation.attributes["sym_name"]).value
        if op.operation.name == "func.func" and name == RUNTIME:
            return
    ptr, index = ir.Type.parse("!llvm.ptr"), ir.IndexType.get()
    body_t = ir.FunctionType.get([ptr, index, index], [])
    with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(block):
        func.FuncOp(RUNTIME, ir.FunctionType.get([body_t, ptr, index], []), visibility="private")


@register_pass
@dataclass(frozen=True)
class ParallelizeLoops(ModulePass):
    """Outlines each outermost independent loop with enough work into a function of [begin,
    end) that `aten_mlir_parallel_for` runs on the thread pool."""

    name: ClassVar[str] = "cpu-parallelize-loops"
    min_work: int = option(MIN_WORK, "estimated ops below which a loop stays serial")

    def run(self, module_op: ir.Operation) -> None:
        with module_op.context:
            outlined = False
            for f in defined_functions(module_op):
                plans: list[_Plan] = []
                _find(f.regions[0].blocks[0], self.min_work, plans, {})
                base = ir.StringAttr(f.attributes["sym_name"]).value
                for i, plan in enumerate(plans):
                    outlined |= _outline(module_op, f, plan, f"{base}_parallel{i}")
            if outlined:
                _declare_runtime(module_op)
