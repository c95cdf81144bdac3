"""Export OpInfo samples as tiny programs and compare a runner's outputs with eager PyTorch.

Shared by the importer (reference interpreter), decomposition and backend suites: a sample is
one `torch.export` of `op(sample.input, *sample.args, **sample.kwargs)` with every tensor leaf
a user input and every other leaf baked in as a constant.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from dataclasses import dataclass

import torch
from torch.utils import _pytree as pytree


@dataclass
class Case:
    """One OpInfo sample as an exportable module and its flat tensor inputs."""

    opinfo: object
    index: int
    module: torch.nn.Module
    inputs: tuple

    @property
    def id(self) -> str:
        variant = f".{self.opinfo.variant_test_name}" if self.opinfo.variant_test_name else ""
        return f"{self.opinfo.name}{variant}-{self.index}"

    kind: str = "exact"  # "random" / "uninitialized" once the exported graph is known


class _SampleModule(torch.nn.Module):
    def __init__(self, fn, spec, constants):
        super().__init__()
        self.fn, self.spec, self.constants = fn, spec, constants

    def forward(self, *tensors):
        it = iter(tensors)
        leaves = [next(it) if c is _TENSOR else c for c in self.constants]
        sample_input, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(sample_input, *args, **kwargs)


_TENSOR = object()


def op_db():
    from torch.testing._internal.common_methods_invocations import op_db as db

    return db


def cases(opinfo, dtype=torch.float32, limit: int | None = None):
    """The OpInfo's samples on CPU as `Case`s (at most `limit`)."""
    if dtype not in opinfo.supported_dtypes("cpu"):
        return []
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            samples = list(opinfo.sample_inputs("cpu", dtype, requires_grad=False))
        except Exception:  # an OpInfo's own sample generator failing is not ours to count
            return []
    for i, s in enumerate(samples[:limit] if limit else samples):
        leaves, spec = pytree.tree_flatten((s.input, tuple(s.args), dict(s.kwargs)))
        tensors = tuple(x for x in leaves if isinstance(x, torch.Tensor))
        constants = [_TENSOR if isinstance(x, torch.Tensor) else x for x in leaves]
        out.append(Case(opinfo, i, _SampleModule(opinfo.op, spec, constants), tensors))
    return out


def export_case(case: Case):
    """The ExportedProgram of a case, or None when torch.export itself rejects it. Sets
    `case.kind`: results of seeded-random ops are compared on statistics, of `empty*` ops
    (uninitialised memory) on shape and dtype only."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            ep = torch.export.export(case.module, _clone(case.inputs), strict=False)
        except Exception:
            return None
    targets = [n.target for n in ep.graph.nodes if isinstance(n.target, torch._ops.OpOverload)]
    if any(torch.Tag.nondeterministic_seeded in t.tags for t in targets):
        case.kind = "random"
    if "empty" in case.opinfo.name:  # empty, new_empty, empty_like, empty_strided, ...
        case.kind = "uninitialized"
    return ep


def _clone(inputs):
    return tuple(t.clone() for t in inputs)


def eager(case: Case):
    with torch.no_grad():
        return case.module(*_clone(case.inputs))


def _stats_close(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.numel() < 256 or not a.is_floating_point():
        return True
    fa, fb = a.double(), b.double()
    if not (fa.isfinite().all() and fb.isfinite().all()):
        return bool(fa.isfinite().all() == fb.isfinite().all())
    spread = float(fb.std()) + 1e-6
    return abs(float(fa.mean() - fb.mean())) <= 0.5 * spread and (
        0.5 <= (float(fa.std()) + 1e-6) / spread <= 2.0
    )


def compare(case: Case, actual, expected) -> None:
    """Raises AssertionError when `actual` is not `expected` for this case's kind of op."""
    a_leaves, a_spec = pytree.tree_flatten(actual)
    e_leaves, e_spec = pytree.tree_flatten(expected)
    assert len(a_leaves) == len(e_leaves), f"{len(a_leaves)} outputs, eager has {len(e_leaves)}"
    for a, e in zip(a_leaves, e_leaves):
        if not isinstance(e, torch.Tensor):
            assert a == e or (isinstance(e, float) and math.isnan(e) and math.isnan(a)), (a, e)
            continue
        assert isinstance(a, torch.Tensor), f"expected a tensor, got {type(a).__name__}"
        assert a.shape == e.shape and a.dtype == e.dtype, (a.shape, a.dtype, e.shape, e.dtype)
        if case.kind == "random":
            assert _stats_close(a, e), "random output statistics differ from eager"
        elif case.kind == "exact":
            torch.testing.assert_close(a, e, equal_nan=True, atol=1e-5, rtol=1.3e-6)
