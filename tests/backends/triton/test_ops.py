"""Every core ATen overload with OpInfo samples, compiled for the Triton backend (kernels run in
the interpreter) and compared with eager: one float32 sample each by default, all float32 and
integer samples under `slow`. Ops on complex values stay eager on this backend (Triton has no
complex type); everything else must not fall back."""

from __future__ import annotations

import pytest
import torch

from tests.opinfo.test_opinfo_compile import CORE_MAP, OTHER_DTYPES, _check, _opinfos

# Core overloads whose only samples have complex values on the way (FFTs): eager here.
COMPLEX_ONLY = {"aten._fft_r2c", "aten._fft_c2r"}
# Core overloads whose first OpInfo sample takes minutes in the interpreter (sort's is an argsort
# of 8000 elements: 100-180 s on 2 cores, a tenth of the default suite's budget). They run under
# `slow` here; test_low_precision.py sorts small and dynamic rows by default.
INTERPRETER_SLOW = {"aten.sort"}


def _default_ops():
    return [
        pytest.param(name, marks=pytest.mark.slow) if name in INTERPRETER_SLOW else name
        for name in sorted(set(CORE_MAP) - COMPLEX_ONLY)
    ]


@pytest.mark.parametrize("op_name", _default_ops())
def test_core_op_on_triton(op_name):
    opinfo = _opinfos()[CORE_MAP[op_name][0]]
    if not _check(opinfo, torch.float32, 1, op_name, backend="triton"):
        pytest.skip("no sample of this OpInfo exports")


@pytest.mark.slow
@pytest.mark.parametrize("op_name", sorted(set(CORE_MAP) - COMPLEX_ONLY))
def test_core_op_on_triton_all_samples(op_name):
    opinfo = _opinfos()[CORE_MAP[op_name][0]]
    checked = 0
    for dtype in (torch.float32, *OTHER_DTYPES):
        if dtype in opinfo.supported_dtypes("cpu"):
            checked += _check(opinfo, dtype, None, op_name, backend="triton")
    if not checked:
        pytest.skip("no sample of this OpInfo exports")
