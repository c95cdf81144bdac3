"""Compiled vs eager results: same structure, shape and dtype; integers and bools exact; floats
within a dtype-aware tolerance with NaN in the same places and infinities of the same sign."""

from __future__ import annotations

import torch

# (rtol, atol): torch.testing's defaults are per-op; a chain of ops accumulates more rounding
# (and a compiled bf16 chain may keep f32 between ops where eager rounds each op)
TOLERANCES = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-4, 1e-4),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (5e-2, 5e-2),
}


def loosest(dtypes) -> torch.dtype | None:
    """The float dtype of least precision among `dtypes`: a compiled program may keep more
    precision between ops than eager's rounding to it (as Inductor does), so results are only as
    close as that dtype allows."""
    floats = [d for d in dtypes if d in TOLERANCES]
    return max(floats, key=lambda d: TOLERANCES[d]) if floats else None


def mismatch(expected, actual, chain: torch.dtype | None = None) -> str | None:
    """None when `actual` matches `expected` (floats within the tolerance of their dtype or of
    `chain`, the loosest dtype the computation went through), else what differs."""
    if isinstance(expected, torch.Tensor):
        expected, actual = (expected,), actual if isinstance(actual, (tuple, list)) else (actual,)
    if len(expected) != len(actual):
        return f"{len(actual)} outputs, eager returns {len(expected)}"
    for k, (e, a) in enumerate(zip(expected, actual)):
        why = _tensor_mismatch(e, a, chain)
        if why is not None:
            return f"output {k}: {why}"
    return None


def _tensor_mismatch(e: torch.Tensor, a, chain) -> str | None:
    if not isinstance(a, torch.Tensor):
        return f"got {type(a).__name__}, eager returns a tensor"
    if a.shape != e.shape:
        return f"shape {list(a.shape)}, eager {list(e.shape)}"
    if a.dtype != e.dtype:
        return f"dtype {a.dtype}, eager {e.dtype}"
    bad = bad_elements(e, a, chain)
    return _first_difference(e, a, bad) if bad.any() else None


def bad_elements(e: torch.Tensor, a: torch.Tensor, chain=None) -> torch.Tensor:
    if not e.dtype.is_floating_point:
        return a != e
    rtol, atol = TOLERANCES[e.dtype]
    if chain is not None:
        rtol, atol = max(rtol, TOLERANCES[chain][0]), max(atol, TOLERANCES[chain][1])
    e64, a64 = e.double(), a.double()
    nan_e, nan_a = e64.isnan(), a64.isnan()
    bad = nan_e != nan_a
    inf_e = e64.isinf()
    bad |= inf_e & (a64 != e64)
    finite = ~nan_e & ~inf_e & ~nan_a
    bad |= finite & ((a64 - e64).abs() > atol + rtol * e64.abs())
    return bad


def finite_differences_only(expected, actual, chain=None) -> bool:
    """Every differing element is a finite float on both sides: with inf/huge values in the
    inputs that is what a different summation order gives (1e30 - 1e30 + x), not a wrong kernel.
    NaN or inf in one place and not the other is never excused."""
    if isinstance(expected, torch.Tensor):
        expected, actual = (expected,), actual if isinstance(actual, (tuple, list)) else (actual,)
    for e, a in zip(expected, actual):
        if not isinstance(a, torch.Tensor) or a.shape != e.shape or a.dtype != e.dtype:
            return False
        bad = bad_elements(e, a, chain)
        if bad.any() and not (
            e.dtype.is_floating_point and e[bad].isfinite().all() and a[bad].isfinite().all()
        ):
            return False
    return True


def _first_difference(e, a, bad) -> str:
    where = tuple(int(i) for i in bad.nonzero()[0])
    count = int(bad.sum())
    return (
        f"{count}/{e.numel()} elements differ, first at {list(where)}: "
        f"{a[where].item()} vs eager {e[where].item()}"
    )
