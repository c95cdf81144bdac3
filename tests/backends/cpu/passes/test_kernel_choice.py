"""kernel_choice: a `?` rows extent picks the dot kernel or the packed one (B^T copied) at run
time, as a static compile at that size would; values vs eager from one compile."""

from __future__ import annotations

import pytest
import torch
from mlir import ir
from torch.export import Dim

import aten_mlir
from aten_mlir.backends.cpu.passes import b_panels


def _ops(region: ir.Region):
    for block in region.blocks:
        for op in block.operations:
            op = op.operation
            yield op
            for inner in op.regions:
                yield from _ops(inner)


def _choices(path) -> list[ir.Operation]:
    """The `scf.if`s holding the packed kernel (B's panels, A broadcast) in the then branch and
    the dot kernel (reductions across lanes, no broadcast of A) in the else branch."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse((path / "05-vectorize.mlir").read_text())
        found = []
        for op in _ops(module.operation.regions[0]):
            if op.name != "scf.if" or len(op.results) or len(op.regions[1].blocks) == 0:
                continue
            then = {o.name for o in _ops(op.regions[0])}
            other = {o.name for o in _ops(op.regions[1])}
            packed = {"memref.alloc", "vector.broadcast", "vector.fma"} <= then
            dot = "vector.reduction" in other and "vector.broadcast" not in other
            if packed and dot:
                found.append(op.name)
        return found


def _scalar_copies(path) -> int:
    """Stores of a value straight from a load: a scalar copy loop (the old B^T copy)."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse((path / "05-vectorize.mlir").read_text())
        count = 0
        for op in _ops(module.operation.regions[0]):
            if op.name == "memref.store":
                owner = op.operands[0].owner
                count += isinstance(owner, ir.Operation) and owner.name == "memref.load"
        return count


def test_linear_with_dynamic_rows_picks_its_kernel_at_run_time(tmp_path):
    """x[?, 128] @ W[384, 128].T: the dot kernel for few rows, B^T packed from 43 rows (k < 3
    rows), from one compile."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(128, 384)
    ep = torch.export.export(layer, (torch.randn(9, 128),), dynamic_shapes=({0: Dim("b")},))
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert len(_choices(tmp_path)) == 1
    with torch.no_grad():
        for rows in (1, 9, 42, 43, 100, 257):
            x = torch.randn(rows, 128)
            torch.testing.assert_close(compiled(x), layer(x), rtol=1e-4, atol=1e-4)


def test_static_rows_keep_one_kernel(tmp_path):
    layer = torch.nn.Linear(128, 384)
    ep = torch.export.export(layer, (torch.randn(9, 128),))
    aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    assert _choices(tmp_path) == []


class _GRUNet(torch.nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(64, 128, batch_first=True)
        self.fc = torch.nn.Linear(128, 5)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


@pytest.mark.parametrize("cell", [torch.nn.GRU, torch.nn.LSTM], ids=["gru", "lstm"])
def test_recurrent_steps_with_a_dynamic_batch(cell, tmp_path):
    """Each of the 20 steps' h @ W_hh.T chooses at run time (a small batch: the dot kernel, no
    copy of W_hh per step), and no step copies B with scalar loads and stores."""
    torch.manual_seed(0)
    model = _GRUNet(cell).eval()
    ep = torch.export.export(
        model, (torch.randn(9, 20, 64),), dynamic_shapes=({0: Dim("b", max=64)},)
    )
    compiled = aten_mlir.compile(ep, target="cpu", dump_dir=tmp_path, cache=False)
    # the 20 steps' cells are outlined into one function (aten-outline-repeated-blocks), so
    # the choice is emitted once per product there, not once per step
    assert len(_choices(tmp_path)) >= 1
    assert _scalar_copies(tmp_path) == 0
    with torch.no_grad():
        for batch in (1, 9, 33):
            x = torch.randn(batch, 20, 64)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)


def test_a_long_k_with_enough_rows_takes_the_blocked_outer_kernel(tmp_path):
    """k >= 2048 and >= 64 rows: B^T packed into k-blocked panels (the dot kernel's B block no
    longer fits L2), decided at run time for `?` rows; values at both sides of the line."""
    from aten_mlir.backends.cpu.passes.kernel_choice import packs_b

    assert packs_b(11008, 128) and not packs_b(11008, 9) and not packs_b(1024, 128)
    torch.manual_seed(0)
    layer = torch.nn.Linear(2048, 48)
    ep = torch.export.export(layer, (torch.randn(9, 2048),), dynamic_shapes=({0: Dim("b")},))
    compiled = aten_mlir.compile(ep, target="cpu", cache=False, dump_dir=tmp_path)
    assert _choices(tmp_path), "no run-time choice for a ? -row product with k = 2048"
    for rows in (9, 63, 64, 100):
        x = torch.randn(rows, 2048)
        torch.testing.assert_close(compiled(x), layer(x), atol=1e-3, rtol=1e-4)


def _panel_choices(path) -> int:
    """`scf.if`s with the outer kernel reading B in place (no alloc, tiles of 8, 4, 2 and 1
    rows: broadcasts of A in groups) in the then branch and B copied as panels in the else."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse((path / "05-vectorize.mlir").read_text())
        count = 0
        for op in _ops(module.operation.regions[0]):
            if op.name != "scf.if" or len(op.results) or len(op.regions[1].blocks) == 0:
                continue
            then = [o.name for o in _ops(op.regions[0])]
            other = {o.name for o in _ops(op.regions[1])}
            in_place = "memref.alloc" not in then and then.count("vector.broadcast") >= 15
            count += in_place and {"memref.alloc", "vector.fma"} <= other
        return count


class _Conv1D(torch.nn.Module):
    """GPT-2's Conv1D (`x @ W`, B along n): the outer-product kernel."""

    def __init__(self, k: int, n: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(k, n) / k**0.5)
        self.bias = torch.nn.Parameter(torch.randn(n))

    def forward(self, x):
        out = torch.addmm(self.bias, x.view(-1, x.shape[-1]), self.weight)
        return out.view(x.shape[0], x.shape[1], self.weight.shape[1])


def test_outer_kernel_with_dynamic_rows_reads_b_in_place_for_few_rows(tmp_path, monkeypatch):
    """x[b, s, 64] @ W[64, 67]: below PANEL_MIN_ROWS rows B is read in place (as a static
    compile does), the rest of the rows in blocks of 4, 2, 1; every row count's values."""
    # the panel path (an unaliased f32 B would be read in place: test_b_in_place.py)
    monkeypatch.setattr(b_panels, "IN_PLACE_UNALIASED_B", False)
    torch.manual_seed(0)
    layer = _Conv1D(64, 67).eval()
    shapes = ({0: Dim("b", max=64), 1: Dim("s", max=512)},)
    ep = torch.export.export(layer, (torch.randn(2, 9, 64),), dynamic_shapes=shapes)
    compiled = aten_mlir.compile(ep, target="cpu", cache=False, dump_dir=tmp_path)
    assert _panel_choices(tmp_path) == 1
    for b, s in [(1, 1), (1, 7), (1, 15), (3, 5), (1, 63), (1, 64), (2, 33), (4, 100), (0, 3)]:
        x = torch.randn(b, s, 64)
        torch.testing.assert_close(compiled(x), layer(x), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="dim 2"):
        compiled(torch.randn(2, 9, 63))


def test_outer_kernel_with_static_rows_keeps_one_path(tmp_path):
    layer = _Conv1D(64, 67).eval()
    ep = torch.export.export(layer, (torch.randn(1, 7, 64),))
    aten_mlir.compile(ep, target="cpu", cache=False, dump_dir=tmp_path)
    assert _panel_choices(tmp_path) == 0
