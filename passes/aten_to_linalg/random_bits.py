"""Counter-based random bits for the random-number lowerings: splitmix64 of (seed, op, index).

Every random value is a pure function of the program's seed argument, a per-op stream number
and the element's linear index, so a `linalg.generic` can compute elements in any order (and in
parallel). The seed is a `tensor<2xi64>` argument of the enclosing function marked
`aten.rng_seed`, which the runtime fills from torch's default generator on every call; each
random op takes the next stream number, so two random ops of one program draw different numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, linalg, tensor

SEED_ATTR = "aten.rng_seed"
STREAMS_ATTR = "aten.rng_streams"  # on the function: how many streams ops have taken

_GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment
_M1, _M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _signed(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _enclosing_function(op: ir.Operation) -> ir.Operation:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    if parent is None:
        raise ValueError("a random op outside a func.func has no seed to draw from")
    return parent.operation


def seed_and_stream(op: ir.Operation) -> tuple[ir.Value, int]:
    """The function's seed argument (added on first use) and a fresh stream number for `op`."""
    with op.location:
        return _seed_and_stream(_enclosing_function(op))


def _seed_and_stream(fn: ir.Operation) -> tuple[ir.Value, int]:
    entry = fn.regions[0].blocks[0]
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    n = len(entry.arguments)
    if "arg_attrs" in fn.attributes:
        arg_attrs = [ir.DictAttr(a) for a in ir.ArrayAttr(fn.attributes["arg_attrs"])]
    else:
        arg_attrs = [ir.DictAttr.get({}) for _ in range(n)]
    seed = next((entry.arguments[i] for i, d in enumerate(arg_attrs) if SEED_ATTR in d), None)
    if seed is None:
        i64 = ir.IntegerType.get_signless(64)
        seed_type = ir.RankedTensorType.get([2], i64)
        seed = entry.add_argument(seed_type, fn.location)
        arg_attrs.append(ir.DictAttr.get({SEED_ATTR: ir.UnitAttr.get()}))
        inputs = [*ftype.inputs, seed_type]
        fn.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(inputs, list(ftype.results))
        )
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(list(arg_attrs))
    stream = 0
    if STREAMS_ATTR in fn.attributes:
        stream = ir.IntegerAttr(fn.attributes[STREAMS_ATTR]).value
    fn.attributes[STREAMS_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), stream + 1)
    return seed, stream


def _c64(v: int) -> ir.Value:
    return arith.constant(ir.IntegerType.get_signless(64), _signed(v))


def mix(z: ir.Value) -> ir.Value:
    """splitmix64's finalizer (a bijection of i64 with full avalanche)."""
    for shift, mul in ((30, _M1), (27, _M2)):
        z = arith.muli(arith.xori(z, arith.shrui(z, _c64(shift))), _c64(mul))
    return arith.xori(z, arith.shrui(z, _c64(31)))


def stream_key(seed: ir.Value, stream: int) -> ir.Value:
    """The i64 key of one op's stream (inside a body): both seed words and the stream mixed."""
    idx = ir.IndexType.get()
    s0 = tensor.extract(seed, [arith.constant(idx, 0)])
    s1 = tensor.extract(seed, [arith.constant(idx, 1)])
    return mix(arith.xori(s0, mix(arith.addi(s1, _c64((stream + 1) * _GOLDEN)))))


def bits(key: ir.Value, counter: ir.Value) -> ir.Value:
    """64 random bits for element `counter` (i64) of the stream `key`: splitmix64's output."""
    one = _c64(1)
    return mix(arith.addi(key, arith.muli(arith.addi(counter, one), _c64(_GOLDEN))))


def index_const(v: int | ir.Value) -> ir.Value:
    return v if isinstance(v, ir.Value) else arith.constant(ir.IndexType.get(), v)


def linear_index(sizes: Sequence[int | ir.Value]) -> ir.Value:
    """The row-major linear index (i64) of the current `linalg.generic` element."""
    lin = arith.constant(ir.IndexType.get(), 0)
    for d, size in enumerate(sizes):
        lin = arith.addi(arith.muli(lin, index_const(size)), linalg.IndexOp(d).result)
    return arith.index_cast(ir.IntegerType.get_signless(64), lin)


def unit_float(z: ir.Value, t: ir.Type, result: ir.Type, plus_one: bool = False) -> ir.Value:
    """A float of type `t` in [0, 1) (or (0, 1] with `plus_one`) from the top bits of `z`: as
    many bits as `result` has mantissa, so the value is exact there and never rounds up to 1."""
    mantissa = {ir.F64Type: 53, ir.F32Type: 24, ir.F16Type: 11, ir.BF16Type: 8}[type(result)]
    top = arith.shrui(z, _c64(64 - mantissa))
    if plus_one:
        top = arith.addi(top, _c64(1))
    f = arith.sitofp(t, top)
    return arith.mulf(f, arith.constant(t, 2.0**-mantissa))
