"""How close a narrow-type (bf16/f16) product must be: as close to float64 as eager's."""

from __future__ import annotations

import torch


def assert_close_as_eager(ours, eager, exact):
    """Each element no farther from the float64 result than eager's, plus half an ulp of the
    narrow type at that size (the two sums round in other orders)."""
    ulp = torch.finfo(eager.dtype).eps * exact.abs().clamp_min(1.0)
    ours_err = (ours.double() - exact).abs()
    eager_err = (eager.double() - exact).abs()
    assert torch.all(ours_err <= eager_err + ulp), (ours_err - eager_err).max()
