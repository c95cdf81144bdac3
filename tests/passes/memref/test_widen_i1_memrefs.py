"""`aten-widen-i1-memrefs`: a program whose deallocation needs the runtime alias check
(`dealloc_helper`, flags in `memref<?xi1>`) lowers to LLVM and runs, instead of aborting in
finalize-memref-to-llvm."""

from __future__ import annotations

import torch

import aten_mlir


class _Layer(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.up = torch.nn.Linear(width, 2 * width)
        self.down = torch.nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(x)))


class _Stack(torch.nn.Module):
    def __init__(self, depth: int = 4, width: int = 16):
        super().__init__()
        self.layers = torch.nn.ModuleList(_Layer(width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x.sum(-1), x


def test_runtime_alias_check_lowers_with_i8_flags(tmp_path, monkeypatch):
    from aten_mlir.backends import lowering
    from aten_mlir.passes.bufferization import split_deallocs

    # outlined layers whose results cannot be freed one by one (as if a layer returned a view
    # of its input), and no re-lowering with the layers inline: dealloc_helper reaches `llvm`
    monkeypatch.setattr(split_deallocs, "_split", lambda dealloc, fresh: False)
    monkeypatch.setattr(lowering, "_alias_checked", lambda module: False)
    torch.manual_seed(0)
    model, x = _Stack().eval(), torch.randn(2, 8, 16)
    program = aten_mlir.compile(torch.export.export(model, (x,)), dump_dir=tmp_path)
    assert "dealloc_helper" in (tmp_path / "04-bufferize.mlir").read_text()
    with torch.no_grad():
        for got, want in zip(program(x), model(x)):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
