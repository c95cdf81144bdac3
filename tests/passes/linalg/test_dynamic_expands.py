"""Products with dynamic batch and sequence dims (aten-split-dynamic-expands): their batch
folding used to lower to an expand_shape group with two dynamic sizes, on which
expand-strided-metadata aborted the process."""

from __future__ import annotations

import pytest
import torch

from tests.support.dynamic_products import PRODUCTS, compile_product


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_dynamic_product_cpu(name):
    compiled, fn, call = compile_product(name, "cpu")
    torch.testing.assert_close(compiled(*call), fn(*call))
    # and at the export size
    example = PRODUCTS[name][1]
    torch.testing.assert_close(compiled(*example), fn(*example))


class _LinearBlock(torch.nn.Module):
    """A transformer MLP over [batch, seq, features]: Linear, GELU, Linear, residual add."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 48)
        self.proj = torch.nn.Linear(48, 16)

    def forward(self, x):
        return x + self.proj(torch.nn.functional.gelu(self.fc(x)))


def _fusion_generics(dump) -> int:
    return (dump / "03-fusion.mlir").read_text().count("linalg.generic")


def test_dynamic_rows_fuse_as_static(tmp_path):
    """With batch and sequence both `?`, fusion's views back of the flattened product rows
    (`expand(collapse(..))`) fold (`fold-only`), so the bias, GELU and residual fuse as in the
    static compile (the same number of generics), and the answer is eager's at odd sizes."""
    import aten_mlir

    torch.manual_seed(0)
    block = _LinearBlock().eval()
    batch, seq = torch.export.Dim("batch", max=64), torch.export.Dim("seq", max=256)
    dynamic = torch.export.export(
        block, (torch.randn(2, 5, 16),), dynamic_shapes=({0: batch, 1: seq},)
    )
    static = torch.export.export(block, (torch.randn(2, 5, 16),))
    compiled = aten_mlir.compile(dynamic, cache=False, dump_dir=tmp_path / "dyn")
    aten_mlir.compile(static, cache=False, dump_dir=tmp_path / "static")
    assert "collapse_shape" not in (tmp_path / "dyn" / "03-fusion.mlir").read_text()
    assert _fusion_generics(tmp_path / "dyn") == _fusion_generics(tmp_path / "static")
    for b, s in ((1, 1), (1, 7), (3, 33), (2, 129)):
        x = torch.randn(b, s, 16)
        torch.testing.assert_close(compiled(x), block(x))
