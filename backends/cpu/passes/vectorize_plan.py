"""Which `linalg.generic` ops on memrefs `cpu-vectorize-generics` runs as vector loops, and how.

One loop dim is vectorized: one every lane-wise operand reads or writes contiguously (unit
stride, last in its map), or, for an input, reads at a small constant stride (`ow * 2 + kw`:
`lane_stride`). It becomes the innermost loop; the other loops keep their order. A
body value that does not depend on that dim (a per-row mean, `rsqrt(var + eps)`) is computed
once per row, as a scalar, before the lane loop. When the vectorized dim is a reduction, each
output must be updated by one associative combining op (`out = out + f(x)`), so lanes can hold
partial results. Matmul-like contractions are left alone (their own stage lowers them).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from mlir import ir

from aten_mlir.passes.ir import view_root

from .lane_stride import Sum, lane_stride, parse_index, uses

# combining op -> vector.reduction kind
COMBINING_KINDS = {
    "arith.addf": "add",
    "arith.mulf": "mul",
    "arith.maximumf": "maximumf",
    "arith.minimumf": "minimumf",
    "arith.maxnumf": "maxnumf",
    "arith.minnumf": "minnumf",
    "arith.addi": "add",
    "arith.muli": "mul",
    "arith.maxsi": "maxsi",
    "arith.minsi": "minsi",
    "arith.maxui": "maxui",
    "arith.minui": "minui",
    "arith.andi": "and",
    "arith.ori": "or",
    "arith.xori": "xor",
}

# Integer division traps on a zero divisor: masked-off lanes must not divide by garbage.
INTEGER_DIVISIONS = frozenset(
    ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi")
    + ("arith.ceildivui", "arith.floordivsi")
)

# Lane-wise loads and stores need whole bytes per element (LLVM packs `<N x i1>` into bits).
_LANE_ELEMENT_BITS = (8, 16, 32, 64)

_CASTS = frozenset(("arith.extf", "arith.truncf", "arith.extsi", "arith.extui", "arith.sitofp"))


@dataclass(frozen=True)
class Access:
    """One operand: its memref, and per memref dim the loop dim (int), constant (str) or a
    linear Sum of loop dims."""

    memref: ir.Value
    indices: tuple[int | str | Sum, ...]
    lanes: bool  # indexed by the vectorized dim (last, unit stride): read/written lane-wise
    folded: int = 0  # trailing memref dims before the last that are folded into it


@dataclass
class Plan:
    op: ir.Operation
    dim: int  # the vectorized loop dim
    outer: tuple[int, ...]  # the other loop dims, outermost first
    folded: tuple[int, ...]  # loop dims folded into `dim` (contiguous in every operand)
    parallel: tuple[bool, ...]  # per loop dim
    accesses: tuple[Access, ...]  # inputs, then outputs
    num_inputs: int
    varying: set  # body values that differ across lanes of the vectorized dim
    kinds: tuple[str, ...]  # per output when `dim` is a reduction: the vector.reduction kind
    combiners: tuple  # per output when `dim` is a reduction: its combining op

    @property
    def reduces(self) -> bool:
        return not self.parallel[self.dim]

    @property
    def block(self) -> ir.Block:
        return self.op.regions[0].blocks[0]


def register_lanes(cpu: str) -> int:
    """f32 elements in one vector register of `cpu` (an -mcpu name; '' the build's CPU): 16 on
    AVX-512, 8 on AVX2, so an AVX2 target gets loops of its own width rather than split 512-bit
    vectors. The width comes from `backends/cpu/target.py` (16 until that module exists)."""
    try:
        from aten_mlir.backends.cpu.target import cpu_target
    except ModuleNotFoundError as error:
        if not (error.name or "").endswith("target"):
            raise
        return 16
    return cpu_target(cpu or None).vector_bytes // 4


def long_body_lanes(register: int) -> int:
    """Elements per step of an elementwise body holding a polynomial expansion (erf, exp, tanh:
    `cpu-fast-math`): four registers on AVX-512, whose 32 registers hold four independent FMA
    chains and their constants (ln_gelu_residual [8,512,768] 1 thread: 1.68 -> 1.55 ms against
    two), two on AVX2 (16 registers: four chains would spill)."""
    if os.environ.get("ATEN_MLIR_LONG_BODY_LANES", "1") == "0":  # A/B against two registers
        return 2 * register
    return (4 if register >= 16 else 2) * register


def long_body(block: ir.Block, expansions) -> bool:
    """The generic body computes one of the f32 `expansions` (op name -> polynomial)."""
    return any(
        op.operation.name in expansions and isinstance(op.results[0].type, ir.F32Type)
        for op in block.operations
    )


def is_scalar(t: ir.Type) -> bool:
    return isinstance(t, (ir.IntegerType, ir.IndexType, ir.FloatType))


def _lane_element(t: ir.Type) -> bool:
    if isinstance(t, ir.IntegerType):
        return t.width in _LANE_ELEMENT_BITS
    return isinstance(t, (ir.IndexType, ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def _indices(op: ir.Operation) -> list[tuple[int | str | Sum, ...]] | None:
    out = []
    for attr in ir.ArrayAttr(op.attributes["indexing_maps"]):
        indices = tuple(parse_index(e) for e in ir.AffineMapAttr(attr).value.results)
        if None in indices:
            return None
        out.append(indices)
    return out


def _unit_last_stride(t: ir.MemRefType) -> bool:
    strides, _ = t.get_strides_and_offset()
    return strides[-1] == 1


def _pick_dim(indices, types, num_loops: int, num_inputs: int) -> int | None:
    """The loop dim to vectorize: every operand indexed by it has it last with unit stride
    (an input: or a Sum stepping it by a small constant, read strided); the most such operands
    wins, then the innermost."""
    best, best_score = None, 0
    for d in range(num_loops):
        users = [(i, idx, t) for i, (idx, t) in enumerate(zip(indices, types)) if uses(idx, d)]
        ok = all(
            (idx[-1] == d or (i < num_inputs and lane_stride(idx[-1], d)))
            and uses(idx, d) == 1
            and _unit_last_stride(t)
            and _lane_element(t.element_type)
            for i, idx, t in users
        )
        if ok and users and len(users) >= best_score:
            best, best_score = d, len(users)
    return best


def _source_arg(value: ir.Value, block: ir.Block):
    """The block argument `value` is, through casts; else None."""
    while not isinstance(value.owner, ir.Block):
        owner = value.owner
        if owner.name not in _CASTS:
            return None
        value = owner.operands[0]
    return value if value.owner == block else None


def is_contraction(op: ir.Operation, num_inputs: int) -> bool:
    """Some output accumulates `a * b` of two different inputs over a reduction dim
    (matmul-like: the contraction kernels' business)."""
    if all("parallel" in str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])):
        return False
    block = op.regions[0].blocks[0]
    outputs = list(block.arguments)[num_inputs:]
    for o in block.operations:
        if o.name not in ("arith.addf", "arith.addi"):
            continue
        if not any(v in outputs for v in o.operands):
            continue
        for x in o.operands:
            mul = x.owner
            if isinstance(mul, ir.Block) or mul.name not in ("arith.mulf", "arith.muli"):
                continue
            args = [_source_arg(v, block) for v in mul.operands]
            inputs = {a.arg_number for a in args if a is not None and a.arg_number < num_inputs}
            if len(inputs) == 2:
                return True
    return False


def _combiners(block: ir.Block, num_inputs: int):
    """Per output, (kind, combining op) when its yield is `combine(out, x)` and `out` is read
    nowhere else; None when some output is not such a reduction."""
    yielded = block.operations[len(block.operations) - 1].operands
    kinds, ops = [], []
    for k, value in enumerate(yielded):
        acc = block.arguments[num_inputs + k]
        combine = value.owner
        if isinstance(combine, ir.Block) or combine.name not in COMBINING_KINDS:
            return None
        if list(combine.operands).count(acc) != 1 or len(list(acc.uses)) != 1:
            return None
        if len(list(value.uses)) != 1:
            return None  # the combined value is read again: not a plain reduction
        kinds.append(COMBINING_KINDS[combine.name])
        ops.append(combine)
    return tuple(kinds), tuple(ops)


def _lane_load(o: ir.Operation, varying: set, lane_index: set) -> bool:
    """A `memref.load` at uniform indices but for the last, the lane dim's index, of a row with
    unit stride: one vector load per step (an embedding row, gathered by a per-row index)."""
    *rest, last = list(o.operands)[1:]
    t = o.operands[0].type
    return (
        last in lane_index
        and not any(v in varying for v in rest)
        and isinstance(t, ir.MemRefType)
        and _unit_last_stride(ir.MemRefType(t))
        and _lane_element(ir.MemRefType(t).element_type)
    )


def _varying(op: ir.Operation, num_inputs: int, lane_args: set[int], dim: int) -> set | None:
    """The body values that differ across lanes; None when the body has an op that cannot run
    lane-wise (regions, non-scalar types, ops outside arith/math, loads but per-row ones and
    lane-contiguous ones from buffers the op does not write)."""
    block = op.regions[0].blocks[0]
    varying = {block.arguments[i] for i in lane_args}
    lane_index = set()
    written = {view_root(v) for v in list(op.operands)[num_inputs:]}
    ops = list(block.operations)
    for o in ops[:-1]:
        if o.name == "linalg.index":
            if ir.IntegerAttr(o.attributes["dim"]).value == dim:
                varying.add(o.results[0])
                lane_index.add(o.results[0])
            continue
        if o.name == "memref.load":
            if view_root(o.operands[0]) in written:
                return None
            if any(v in varying for v in o.operands):
                if not _lane_load(o, varying, lane_index):
                    return None  # a gather
                varying.add(o.results[0])
            continue
        if not o.name.startswith(("arith.", "math.")) or len(o.regions):
            return None
        if not all(is_scalar(v.type) for v in (*o.operands, *o.results)):
            return None
        if any(v in varying for v in o.operands):
            varying.update(o.results)
    return varying


def plan(op: ir.Operation) -> Plan | None:
    """How to run `op` as vector loops, or None when it is not a generic this pass handles."""
    if op.name != "linalg.generic" or len(op.results):
        return None
    types = [v.type for v in op.operands]
    if not types or not all(isinstance(t, ir.MemRefType) for t in types):
        return None
    types = [ir.MemRefType(t) for t in types]
    iterators = [str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])]
    parallel = tuple("parallel" in t for t in iterators)
    indices = _indices(op)
    block = op.regions[0].blocks[0]
    num_outputs = len(list(block.operations)[-1].operands)
    num_inputs = len(types) - num_outputs
    if not parallel or indices is None or is_contraction(op, num_inputs):
        return None
    if any(all(d not in idx for idx in indices) for d in range(len(parallel))):
        return None  # a loop no operand gives the size of (as a plain index)
    dim = _pick_dim(indices, types, len(parallel), num_inputs)
    if dim is None:
        return None
    lane_args = {i for i, idx in enumerate(indices) if uses(idx, dim)}
    written = {view_root(v) for v in list(op.operands)[num_inputs:]}
    for i in lane_args:
        if indices[i][-1] != dim and view_root(op.operands[i]) in written:
            return None  # a strided read of what the op writes: steps would reorder them
    outputs_lanes = [num_inputs + k in lane_args for k in range(num_outputs)]
    if (parallel[dim] and not all(outputs_lanes)) or (not parallel[dim] and any(outputs_lanes)):
        return None  # a parallel dim indexes every output, a reduction dim none
    kinds, combiners = (), ()
    if not parallel[dim]:
        found = _combiners(block, num_inputs)
        if found is None:
            return None
        kinds, combiners = found
    varying = _varying(op, num_inputs, lane_args, dim)
    if varying is None:
        return None
    folded = _foldable(block, indices, types, parallel, dim)
    accesses = tuple(
        Access(v, idx, i in lane_args, len(folded) if i in lane_args else 0)
        for i, (v, idx) in enumerate(zip(op.operands, indices))
    )
    outer = tuple(d for d in range(len(parallel)) if d != dim and d not in folded)
    return Plan(op, dim, outer, folded, parallel, accesses, num_inputs, varying, kinds, combiners)


def static_extents(p: Plan) -> list[int | None]:
    """Per loop dim, its size when some operand's type gives it statically."""
    out: list[int | None] = [None] * len(p.parallel)
    for a in p.accesses:
        t = ir.MemRefType(a.memref.type)
        for pos, d in enumerate(a.indices):
            if isinstance(d, int) and out[d] is None and not t.is_dynamic_dim(pos):
                out[d] = t.shape[pos]
    return out


def is_identity_layout(t: ir.MemRefType) -> bool:
    layout = t.layout
    identity = ir.AffineMap.get_identity(t.rank, context=t.context)
    return isinstance(layout, ir.AffineMapAttr) and layout.value == identity


def _contiguous_tail(t: ir.MemRefType, count: int) -> bool:
    """The last `count` dims of `t` are one contiguous run (collapsible into one dim)."""
    if is_identity_layout(t):
        return True
    strides, _ = t.get_strides_and_offset()
    shape = t.shape
    for i in range(t.rank - count, t.rank - 1):
        if t.is_dynamic_dim(i + 1) or t.is_dynamic_stride_or_offset(strides[i + 1]):
            return False
        if strides[i] != strides[i + 1] * shape[i + 1]:
            return False
    return True


def _foldable(block, indices, types, parallel, dim) -> tuple[int, ...]:
    """The loop dims right before `dim` in every operand indexed by it, of its iterator type,
    over which those operands are contiguous: one longer lane loop (an NCHW add runs along
    H*W, not rows of 7), outermost first."""
    users = [i for i, idx in enumerate(indices) if uses(idx, dim)]
    if any(indices[i][-1] != dim for i in users):
        return ()  # a strided read: its row does not continue into the next
    indexed = {
        ir.IntegerAttr(o.attributes["dim"]).value
        for o in block.operations
        if o.name == "linalg.index"
    }
    folded: list[int] = []
    if dim in indexed:
        return ()
    while True:
        depth = len(folded) + 2
        before = {indices[i][-depth] if len(indices[i]) >= depth else None for i in users}
        if len(before) != 1:
            break
        (u,) = before
        if not isinstance(u, int) or u in indexed or parallel[u] != parallel[dim]:
            break
        if any(uses(idx, u) for i, idx in enumerate(indices) if i not in users):
            break
        if any(uses(indices[i], u) != 1 for i in users):
            break
        if not all(_contiguous_tail(types[i], depth) for i in users):
            break
        folded.insert(0, u)
    return tuple(folded)


def neutral(kind: str, t: ir.Type) -> ir.Attribute:
    """The value `kind` combines with anything to give that thing back (NaN for maxnumf:
    maxnum(NaN, x) = x, and an all-NaN row stays NaN as it would sequentially)."""
    if isinstance(t, ir.FloatType):
        value = {
            "add": -0.0,
            "mul": 1.0,
            "maximumf": -math.inf,
            "minimumf": math.inf,
            "maxnumf": math.nan,
            "minnumf": math.nan,
        }[kind]
        return ir.FloatAttr.get(t, value)
    width = 64 if isinstance(t, ir.IndexType) else ir.IntegerType(t).width
    value = {
        "add": 0,
        "or": 0,
        "xor": 0,
        "maxui": 0,
        "mul": 1,
        "and": -1,
        "minui": -1,
        "maxsi": -(1 << (width - 1)),
        "minsi": (1 << (width - 1)) - 1,
    }[kind]
    if width == 1:
        value = -1 if value else 0
    return ir.IntegerAttr.get(t, value)
