"""_cdist_forward / _pdist_forward lowerings against eager."""

import pytest
import torch

from tests.support.lowering import assert_lowers

TOL = dict(atol=1e-4, rtol=1e-4)
PS = [0.0, 1.0, 2.0, 3.0, 0.5, float("inf")]


def _r(*shape, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


@pytest.mark.parametrize("p", PS)
def test_cdist_direct(p):
    a, b = _r(2, 5, 4), _r(2, 6, 4, seed=1)
    b[0, 0] = a[0, 0]  # a zero distance
    a[1, 1, 1] = b[1, 1, 1]  # a zero difference (p = 0 counts them)
    assert_lowers("aten._cdist_forward", [a, b], p=p, compute_mode=None, **TOL)


@pytest.mark.parametrize("p", PS)
def test_pdist(p):
    assert_lowers("aten._pdist_forward", [_r(6, 4)], p=p, **TOL)


@pytest.mark.parametrize("rows,mode", [(30, None), (3, 1), (30, 2)])
def test_cdist_euclidean_routes(rows, mode):
    """p = 2 takes ATen's matmul route for mode 1, or mode 0/None with > 25 rows."""
    assert_lowers(
        "aten._cdist_forward", [_r(rows, 4), _r(7, 4, seed=1)], p=2.0, compute_mode=mode, **TOL
    )


def test_cdist_broadcast_batch_and_double():
    assert_lowers(
        "aten._cdist_forward",
        [_r(3, 1, 5, 4), _r(2, 6, 4, seed=1)],
        p=1.0,
        compute_mode=None,
        **TOL,
    )
    assert_lowers(
        "aten._cdist_forward",
        [_r(3, 5, 4).double(), _r(3, 6, 4, seed=1).double()],
        p=2.0,
        compute_mode=None,
    )


def test_dynamic_and_small():
    assert_lowers(
        "aten._cdist_forward",
        [_r(3, 5, 4), _r(3, 6, 4, seed=1)],
        p=1.0,
        compute_mode=None,
        dynamic=True,
        **TOL,
    )
    assert_lowers(
        "aten._cdist_forward",
        [_r(3, 5, 4), _r(3, 6, 4, seed=1)],
        p=2.0,
        compute_mode=1,
        dynamic=True,
        **TOL,
    )
    assert_lowers("aten._pdist_forward", [_r(7, 3)], p=2.0, dynamic=True, **TOL)
    assert_lowers("aten._pdist_forward", [_r(1, 3)], p=2.0)
    assert_lowers("aten._cdist_forward", [_r(4, 0), _r(3, 0)], p=2.0, compute_mode=None)


@pytest.mark.parametrize("rows", [5, 30])
def test_cdist_dynamic_rows_pick_the_route_at_run_time(rows):
    assert_lowers(
        "aten._cdist_forward",
        [_r(rows, 4), _r(6, 4, seed=1)],
        p=2.0,
        compute_mode=None,
        dynamic=True,
        **TOL,
    )
