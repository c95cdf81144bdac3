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
    closer: bool = False  # passed by being nearer the float64 result than eager (`compare`)


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
    """Raises AssertionError when `actual` is not `expected` for this case's kind of op.

    A reduced-float output outside the dtype's tolerance of eager still passes where, element by
    element, it is no farther from the float64 result than eager's (within that tolerance):
    some ATen CPU kernels compute in the narrow type (`grid_sampler_2d`'s coordinates,
    `adaptive_avg_pool3d`'s sums) where we compute in float32 and round once. `case.closer` is
    then set so sweeps count these apart."""
    a_leaves, a_spec = pytree.tree_flatten(actual)
    e_leaves, e_spec = pytree.tree_flatten(expected)
    assert len(a_leaves) == len(e_leaves), f"{len(a_leaves)} outputs, eager has {len(e_leaves)}"
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        if not isinstance(e, torch.Tensor):
            assert a == e or (isinstance(e, float) and math.isnan(e) and math.isnan(a)), (a, e)
            continue
        assert isinstance(a, torch.Tensor), f"expected a tensor, got {type(a).__name__}"
        assert a.shape == e.shape and a.dtype == e.dtype, (a.shape, a.dtype, e.shape, e.dtype)
        if case.kind == "random":
            assert _stats_close(a, e), "random output statistics differ from eager"
        elif case.kind == "exact":
            atol, rtol = tolerance(case.opinfo, e.dtype)
            try:
                torch.testing.assert_close(a, e, equal_nan=True, atol=atol, rtol=rtol)
            except AssertionError:
                if e.dtype not in DEFAULT_TOLERANCE or not _closer(case, i, a, e, atol, rtol):
                    raise
                case.closer = True


def _closer(case: Case, i: int, a, e, atol: float, rtol: float) -> bool:
    """Every element of `a` equals eager's `e` within (atol, rtol) or is no farther than `e`
    from output `i` of the case run on float64 inputs (up to the same tolerance)."""
    reference = _float64_outputs(case)
    if reference is None or i >= len(reference) or not isinstance(reference[i], torch.Tensor):
        return False
    r = reference[i].double()
    if r.shape != a.shape:
        return False
    a64, e64 = a.double(), e.double()
    slack = atol + rtol * r.abs()
    same = (a64 - e64).abs() <= atol + rtol * e64.abs()
    nearer = (a64 - r).abs() <= (e64 - r).abs() + slack
    both_nan = a64.isnan() & e64.isnan()
    return bool((same | nearer | both_nan).all())


def _float64_outputs(case: Case):
    """The case's output leaves with every reduced-float input widened to float64 (None when the
    op rejects float64 or the sample then fails)."""
    if not hasattr(case, "_float64"):
        widened = tuple(t.double() if t.dtype in DEFAULT_TOLERANCE else t for t in case.inputs)
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case._float64 = pytree.tree_leaves(case.module(*widened))
        except Exception:
            case._float64 = None
    return case._float64


# torch.testing.assert_close's defaults per dtype (float32's for every other dtype: exact for
# integers and bool either way).
DEFAULT_TOLERANCE = {torch.bfloat16: (1e-5, 1.6e-2), torch.float16: (1e-5, 1e-3)}
# OpInfo tolerance overrides that compare a compiled or decomposed op with eager at the same
# dtype (Inductor's and the decompositions' suites) or eager with itself on CPU.
_OVERRIDE_TESTS = {"TestInductorOpInfo", "TestDecomp", "TestCommon"}


def tolerance(opinfo, dtype: torch.dtype) -> tuple[float, float]:
    """(atol, rtol) for comparing with eager at `dtype`: assert_close's default for the dtype,
    widened by the OpInfo's own CPU override for that dtype where it declares one (reduced
    floats only: float32 keeps its default, which every sample met before overrides were read)."""
    if dtype not in DEFAULT_TOLERANCE:
        return 1e-5, 1.3e-6
    atol, rtol = DEFAULT_TOLERANCE[dtype]
    for info in getattr(opinfo, "decorators", ()):
        if getattr(info, "cls_name", None) not in _OVERRIDE_TESTS:
            continue
        if info.device_type not in (None, "cpu") or (info.dtypes and dtype not in info.dtypes):
            continue
        for decorator in info.decorators:
            tol = getattr(decorator, "d", {}).get(dtype) if _is_override(decorator) else None
            if tol is not None:
                atol, rtol = max(atol, tol.atol), max(rtol, tol.rtol)
    return atol, rtol


def _is_override(decorator) -> bool:
    from torch.testing._internal.common_device_type import toleranceOverride

    return isinstance(decorator, toleranceOverride)


# OpInfos whose index outputs depend on how ties are ordered: eager's non-stable sort is
# implementation-defined, ours is always stable; values must match, indices must select them.
TIE_ORDER = {"sort", "topk", "argsort", "msort"}


def compare_up_to_ties(case: Case, actual, expected) -> None:
    """`compare`, except that sort-like ops' indices may order ties differently from eager."""
    if case.opinfo.name not in TIE_ORDER:
        compare(case, actual, expected)
        return
    a_leaves = torch.utils._pytree.tree_leaves(actual)
    e_leaves = torch.utils._pytree.tree_leaves(expected)
    if len(a_leaves) == 1 and a_leaves[0].dtype == torch.int64:  # argsort: indices only
        a, e = a_leaves[0], e_leaves[0]
        assert a.shape == e.shape
        x, dim = case.inputs[0], _sort_dim(case, a)
        if x.dim() > 0 and dim is not None:
            torch.testing.assert_close(x.gather(dim, a), x.gather(dim, e), equal_nan=True)
        return
    for a, e in zip(a_leaves, e_leaves):
        assert a.shape == e.shape and a.dtype == e.dtype
        if not a.dtype.is_floating_point and a.dtype == torch.int64 and len(a_leaves) > 1:
            continue  # indices of ties: checked through the values they select, below
        atol, rtol = tolerance(case.opinfo, e.dtype)
        torch.testing.assert_close(a, e, equal_nan=True, atol=atol, rtol=rtol)
    if len(a_leaves) == 2 and case.inputs and a_leaves[1].dtype == torch.int64:
        values, indices = a_leaves
        dim = _sort_dim(case, values)
        if dim is not None and case.inputs[0].dim() > 0:
            picked = case.inputs[0].gather(dim, indices)
            torch.testing.assert_close(picked, values, equal_nan=True, atol=0, rtol=0)


def _sort_dim(case, values):
    module = case.module
    leaves = [c for c in module.constants if isinstance(c, int) and not isinstance(c, bool)]
    if case.opinfo.name == "topk":
        dim = leaves[1] if len(leaves) > 1 else -1
    else:
        dim = leaves[0] if leaves else -1
    return dim if -values.dim() <= dim < max(values.dim(), 1) else None
