"""Seeded random programs: a few ops chained over 1-3 inputs, each step run eagerly as it is
chosen (on both sizes of a dynamic program), so every program the generator returns runs in
eager. The shapes and dtypes the ops see are those of the real tensors, not a model of them."""

from __future__ import annotations

import random
import warnings

import torch

from .ops import OPS, const
from .program import FuzzProgram, Step, TensorSpec

_DTYPE_WEIGHTS = {
    "f32": 45, "f64": 10, "f16": 8, "bf16": 8, "i64": 8, "i32": 6,
    "i8": 4, "i16": 3, "u8": 4, "bool": 4,
}  # fmt: skip
_FAMILY_WEIGHTS = {
    "elementwise": 30, "cast": 6, "reduction": 12, "scan": 4, "view": 18, "copy": 6,
    "product": 8, "conv": 4, "pool": 4, "norm": 6, "index": 8, "sort": 4,
}  # fmt: skip
_BY_FAMILY: dict[str, list] = {}
for _op in OPS.values():
    _BY_FAMILY.setdefault(_op.family, []).append(_op)
MAX_NUMEL = 4096
# Ops whose result jumps at a threshold (floor(2.9999) vs floor(3.0001), x > 0 at x ~ 1e-8): fed
# an operand that carries rounding error they amplify it into a difference of 1 (or true vs
# false) that no tolerance covers, whichever side rounds right. They only read exact values.
DISCONTINUOUS = frozenset(
    ["u_floor", "u_ceil", "u_round", "u_trunc", "u_sign", "b_floor_divide", "b_remainder",
     "b_fmod", "b_eq", "b_ne", "b_lt", "b_le", "b_gt", "b_ge", "where_gt", "masked_fill", "cast",
     "u_logical_not", "b_logical_and", "b_logical_or", "b_logical_xor", "where", "all", "any"]
)  # fmt: skip
# Ops that compute no new float value (they move, pick or compare values): exact operands give an
# exact result. Any op's integer or bool result is exact.
_EXACT_FAMILIES = frozenset(["view", "copy", "index", "sort"])
_EXACT_OPS = DISCONTINUOUS | frozenset(
    ["u_relu", "u_neg", "u_abs", "b_maximum", "b_minimum", "amax", "amin", "max_dim", "min_dim",
     "argmax", "argmin", "cummax", "clamp", "u_isnan", "u_isinf", "cast_float"]
)  # fmt: skip


def _weighted(rng, table: dict):
    return rng.choices(list(table), weights=list(table.values()))[0]


def _inputs(rng, dynamic: bool):
    rank = rng.choice([1, 2, 2, 3, 3, 4])
    shape = [rng.choice([1, 2, 3, 4, 5]) for _ in range(rank)]
    if dynamic:
        shape[0] = rng.randint(2, 4)
    dtype = _weighted(rng, _DTYPE_WEIGHTS)
    special = rng.random() < 0.4
    specs = []
    for i in range(rng.choice([1, 1, 2, 2, 3])):
        s = list(shape)
        if i:
            s = [1 if rng.random() < 0.3 else d for d in s]
            s = s[rng.randrange(len(s)) if rng.random() < 0.3 else 0 :]
        dt = dtype if not i or rng.random() < 0.6 else _weighted(rng, _DTYPE_WEIGHTS)
        layout = rng.choice("cccccctso")
        specs.append(TensorSpec(s, dt, rng.randrange(1 << 30), special=special, layout=layout))
    return specs


def _dynamic_dims(rng, specs):
    """Dim 0 of the first input is the batch `b` (second size larger, so constant indices into it
    stay in bounds); sometimes its last dim is a second Dim `d`. Inputs aligned with a dynamic dim
    (same size, right-aligned broadcasting) share it."""
    first = specs[0].shape
    picks = {"b": 0}
    if len(first) >= 2 and first[-1] >= 2 and rng.random() < 0.3:
        picks["d"] = len(first) - 1
    dynamic, sizes_b = {}, {}
    for name, dim in picks.items():
        sizes_b[name] = first[dim] + rng.randint(1, 3)
        offset = len(first) - dim
        for i, spec in enumerate(specs):
            d = len(spec.shape) - offset
            if d >= 0 and spec.shape[d] == first[dim] and first[dim] != 1:
                dynamic.setdefault(i, {})[d] = name
    return dynamic, sizes_b


def _broadcast_const(rng, x, op_name):
    shape = list(x.shape)
    if op_name == "cat":
        if not shape:
            return None
        shape[rng.randrange(len(shape))] = rng.randint(1, 3)
    else:
        shape = [1 if rng.random() < 0.4 else d for d in shape]
        shape = shape[rng.randrange(len(shape) + 1) :] if shape and rng.random() < 0.3 else shape
    dt = _weighted(rng, _DTYPE_WEIGHTS) if rng.random() < 0.3 else _dtype_name(x)
    return const(rng, shape, dt)


def _dtype_name(x):
    from .program import NAMES

    return NAMES[x.dtype]


class _Builder:
    def __init__(self, rng, program: FuzzProgram):
        self.rng, self.program = rng, program
        self.variants = [list(program.example_inputs(0))]
        if program.dynamic:
            self.variants.append(list(program.example_inputs(1)))
        self.module = program.module()
        self.exact = [True] * len(program.inputs)  # per value: free of rounding error

    def try_step(self, op, args, params, consts) -> bool:
        step = Step(op.name, args, params, consts)
        from .program import make_tensor

        const_tensors = [make_tensor(TensorSpec(**c), c["shape"]) for c in consts]
        results = []
        for values in self.variants:
            try:
                with warnings.catch_warnings():  # std() of one element warns, and is valid
                    warnings.simplefilter("ignore")
                    out = op.apply(*[values[a] for a in args], *const_tensors, **params)
            except Exception:
                return False
            if not isinstance(out, torch.Tensor) or out.is_complex():
                return False
            if out.numel() == 0 or out.numel() > MAX_NUMEL:
                return False
            results.append(out)
        for values, out in zip(self.variants, results):
            values.append(out)
        exact_op = op.family in _EXACT_FAMILIES or op.name in _EXACT_OPS
        self.exact.append(
            not results[0].dtype.is_floating_point
            or (exact_op and all(self.exact[a] for a in args))
        )
        self.program.steps.append(step)
        return True

    def add_step(self) -> bool:
        rng, values = self.rng, self.variants[0]
        n = len(values)
        first = n - 1 if rng.random() < 0.7 else rng.randrange(n)
        op = rng.choice(_BY_FAMILY[_weighted(rng, _FAMILY_WEIGHTS)])
        if op.name in DISCONTINUOUS and not self.exact[first]:
            return False
        proposal = op.propose(rng, values[first])
        if proposal is None:
            return False
        params, consts = proposal
        args = [first]
        if op.arity == 2:
            others = [k for k in range(n) if _broadcastable(values[first], values[k])]
            if op.name in DISCONTINUOUS:
                others = [k for k in others if self.exact[k]]
            if others and rng.random() < 0.5:
                args.append(rng.choice(others))
            else:
                c = _broadcast_const(rng, values[first], op.name)
                if c is None:
                    return False
                consts = [c, *consts]
        return self.try_step(op, args, params, consts)


def _broadcastable(x, y) -> bool:
    try:
        torch.broadcast_shapes(x.shape, y.shape)
    except RuntimeError:
        return False
    return True


def generate(seed: int, index: int) -> FuzzProgram:
    """Program number `index` of campaign `seed` (the same pair always gives the same program)."""
    rng = random.Random(f"{seed}:{index}")
    dynamic = rng.random() < 0.25
    specs = _inputs(rng, dynamic)
    program = FuzzProgram(inputs=specs, steps=[], outputs=[], seed=seed * 1_000_003 + index)
    if dynamic:
        program.dynamic, program.sizes_b = _dynamic_dims(rng, specs)
    builder = _Builder(rng, program)
    wanted = rng.randint(1, 5)
    for _ in range(wanted * 12):
        if len(program.steps) >= wanted:
            break
        builder.add_step()
    if not program.steps:  # every proposal failed: still a program
        builder.try_step(OPS["scalar"], [len(specs) - 1], {"op": "add", "s": 1}, [])
    n_inputs = len(specs)
    last = n_inputs + len(program.steps) - 1
    program.outputs = [last]
    if len(program.steps) > 1 and rng.random() < 0.2:
        program.outputs.append(rng.randrange(n_inputs, last))
    return program
