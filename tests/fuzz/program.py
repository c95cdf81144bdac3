"""A fuzz program as data: inputs, constant tensors and a chain of op steps, all JSON-able, so a
failure can be shrunk, saved as a regression file and rebuilt exactly in another process.

`FuzzProgram.module()` is a `torch.nn.Module` whose forward interprets the steps (torch.export
traces through the interpretation, so the exported graph holds only the aten ops); constants
become buffers (state of the exported program). Tensors are made from per-tensor seeds, so the
same spec gives the same inputs everywhere.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import torch

DTYPES = {
    "f32": torch.float32,
    "f64": torch.float64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "u8": torch.uint8,
    "bool": torch.bool,
}
NAMES = {v: k for k, v in DTYPES.items()}
FLOATS = ("f32", "f64", "f16", "bf16")


@dataclass
class TensorSpec:
    """How to make one tensor: `kind` is "normal" (random values; `special` mixes in inf/nan/
    ±0/huge/tiny/denormals or integer edge values), "index" (ints in [0, high)), or "perm"
    (a permutation of range(shape[dim]) along `dim`, broadcast elsewhere: scatter indices without
    duplicates). `layout` makes user inputs non-contiguous: "t" (a transposed buffer), "s" (every
    other element of a wider one), "o" (a storage offset)."""

    shape: list
    dtype: str = "f32"
    seed: int = 0
    kind: str = "normal"
    special: bool = False
    high: int = 1
    dim: int = 0
    layout: str = "c"


@dataclass
class Step:
    op: str
    args: list  # value ids (inputs first, then step results in order)
    params: dict = field(default_factory=dict)
    consts: list = field(default_factory=list)  # TensorSpec dicts, passed after the args


@dataclass
class FuzzProgram:
    inputs: list  # TensorSpec
    steps: list  # Step
    outputs: list  # value ids
    # {input index: {dim: dim name}} and each name's second size (the first is the spec's)
    dynamic: dict = field(default_factory=dict)
    sizes_b: dict = field(default_factory=dict)
    seed: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> FuzzProgram:
        raw = json.loads(text)
        raw["inputs"] = [TensorSpec(**t) for t in raw["inputs"]]
        raw["steps"] = [Step(**s) for s in raw["steps"]]
        raw["dynamic"] = {
            int(k): {int(d): n for d, n in v.items()} for k, v in raw["dynamic"].items()
        }
        return FuzzProgram(**raw)

    def module(self) -> torch.nn.Module:
        return FuzzModule(self)

    def example_inputs(self, variant: int = 0) -> tuple:
        """The user inputs; variant 1 gives each dynamic dim its second size."""
        out = []
        for i, spec in enumerate(self.inputs):
            shape = list(spec.shape)
            if variant:
                for d, name in self.dynamic.get(i, {}).items():
                    shape[d] = self.sizes_b[name]
            out.append(make_tensor(spec, shape, user_input=True))
        return tuple(out)

    def dynamic_shapes(self):
        if not self.dynamic:
            return None
        dims = {}
        for name in self.sizes_b:
            dims[name] = torch.export.Dim(name, min=2, max=32)
        # forward(*inputs): the spec of the varargs is one tuple
        return (
            tuple(
                {d: dims[n] for d, n in self.dynamic.get(i, {}).items()} or None
                for i in range(len(self.inputs))
            ),
        )

    def describe(self) -> str:
        """One line per step: what a bug report shows."""
        lines = [f"in{i}: {t.dtype}{list(t.shape)} {t.layout}" for i, t in enumerate(self.inputs)]
        n = len(self.inputs)
        for k, s in enumerate(self.steps):
            consts = "".join(
                f" {c['kind'] if c['kind'] != 'normal' else 'const'}"
                f"{c['dtype'] if c['kind'] == 'normal' else ''}{c['shape']}"
                for c in s.consts
            )
            lines.append(
                f"v{n + k} = {s.op}({', '.join(f'v{a}' for a in s.args)}{consts}) {s.params}"
            )
        lines.append(f"return {', '.join(f'v{o}' for o in self.outputs)}")
        if self.dynamic:
            lines.append(f"dynamic {self.dynamic} second sizes {self.sizes_b}")
        return "\n".join(lines)


class FuzzModule(torch.nn.Module):
    def __init__(self, program: FuzzProgram):
        super().__init__()
        from .ops import OPS

        self._ops = OPS
        self._steps = program.steps
        self._outputs = program.outputs
        self.dtypes_seen: set = set()  # of every value an eager run made: the compare's tolerance
        for k, step in enumerate(program.steps):
            for j, c in enumerate(step.consts):
                spec = TensorSpec(**c)
                self.register_buffer(f"c{k}_{j}", make_tensor(spec, spec.shape))

    def forward(self, *inputs):
        values = list(inputs)
        for k, step in enumerate(self._steps):
            consts = [getattr(self, f"c{k}_{j}") for j in range(len(step.consts))]
            args = [values[a] for a in step.args] + consts
            values.append(self._ops[step.op].apply(*args, **step.params))
        self.dtypes_seen.update(v.dtype for v in values)
        outs = tuple(values[o] for o in self._outputs)
        return outs[0] if len(outs) == 1 else outs


_FLOAT_SPECIALS = [float("inf"), float("-inf"), float("nan"), 0.0, -0.0, 1e30, -1e30, 1e-30]


def _int_edges(dtype) -> list:
    info = torch.iinfo(dtype)
    return [0, 1, -1, info.min, info.max] if info.min < 0 else [0, 1, info.max]


def make_tensor(spec: TensorSpec, shape, user_input: bool = False) -> torch.Tensor:
    gen = torch.Generator().manual_seed(spec.seed)
    dtype = DTYPES[spec.dtype]
    shape = list(shape)
    if spec.kind == "index":
        return torch.randint(0, max(spec.high, 1), shape, generator=gen, dtype=torch.int64)
    if spec.kind == "perm":
        n = shape[spec.dim]
        perm = torch.randperm(n, generator=gen)
        view = [1] * len(shape)
        view[spec.dim] = n
        return perm.view(view).expand(shape).contiguous()
    base = shape
    if user_input and spec.layout == "t" and len(shape) >= 2:
        base = shape[:-2] + [shape[-1], shape[-2]]
    elif user_input and spec.layout == "s" and len(shape) >= 1:
        base = shape[:-1] + [shape[-1] * 2]
    elif user_input and spec.layout == "o":
        base = [1 + int(torch.tensor(shape).prod())]
    t = _values(base, dtype, gen, spec.special)
    if user_input and spec.layout == "t" and len(shape) >= 2:
        t = t.transpose(-1, -2)
    elif user_input and spec.layout == "s" and len(shape) >= 1:
        t = t[..., ::2]
    elif user_input and spec.layout == "o":
        t = t[1:].view(shape)
    return t


def _values(shape, dtype, gen, special: bool) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape, generator=gen) > 0.5
    if dtype.is_floating_point:
        t = torch.randn(shape, generator=gen, dtype=torch.float64) * 2
        if special and t.numel():
            specials = torch.tensor(_FLOAT_SPECIALS + [torch.finfo(dtype).tiny / 4], dtype=t.dtype)
            pick = torch.rand(shape, generator=gen) < 0.15
            which = torch.randint(0, len(specials), shape, generator=gen)
            t = torch.where(pick, specials[which], t)
        return t.to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -20), min(info.max, 20)
    t = torch.randint(lo, hi + 1, shape, generator=gen, dtype=torch.int64)
    if special and t.numel():
        edges = torch.tensor(_int_edges(dtype), dtype=torch.int64)
        pick = torch.rand(shape, generator=gen) < 0.15
        t = torch.where(pick, edges[torch.randint(0, len(edges), shape, generator=gen)], t)
    return t.to(dtype)
