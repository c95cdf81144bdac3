"""Import skips torch's `run_decompositions({})` (a full re-trace) for a program that is already
functional and whose composite ops the caller decomposes itself; anything else still goes
through it."""

from __future__ import annotations

import torch

import aten_mlir
from aten_mlir.frontend.importer import import_program
from aten_mlir.passes.decompose import DECOMPOSITIONS, target_set


class Composites(torch.nn.Module):
    """Leaves composite ops (dropout, reshape, to, layer_norm) and a constant made in forward
    (`lift_fresh_copy` + `detach_`) in the exported graph."""

    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(8)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        scale = torch.tensor(2.0)
        y = self.drop(self.ln(x)).reshape(4, 8).to(torch.float64)
        return (y * scale).to(torch.float32)


class InPlace(torch.nn.Module):
    """Writes through a view: only torch's functionalization rewrites that."""

    def forward(self, x):
        y = x * 2
        y[0].add_(1)
        return y


class FreshInPlace(torch.nn.Module):
    """In-place ops on temporaries nothing else reads (T5's `relative_buckets += ...`)."""

    def forward(self, x, n):
        y = x * 2
        y.add_(1)
        buckets = n + 0
        buckets += torch.where(n > 2, n, 7)
        return y.mul_(y), buckets


def _handled() -> frozenset[str]:
    return frozenset(DECOMPOSITIONS) | target_set()


def test_functional_program_is_imported_as_exported(retraces):
    model = Composites().eval()
    x = torch.randn(2, 2, 8)
    program = import_program(torch.export.export(model, (x,)), decomposed_later=_handled())
    assert not retraces
    assert "aten.detach_" not in program.text()  # a constant's detach_ passes its input on
    torch.testing.assert_close(aten_mlir.run_reference(program, x), model(x))
    compiled = aten_mlir.compile(torch.export.export(model, (x,)), cache=False)
    assert not retraces and compiled.fallbacks == []
    torch.testing.assert_close(compiled(x), model(x))


def test_mutation_or_unhandled_composite_still_retraces(retraces):
    x = torch.randn(3)
    import_program(torch.export.export(InPlace(), (x,)), decomposed_later=_handled())
    assert len(retraces) == 1
    ep = torch.export.export(Composites().eval(), (torch.randn(2, 2, 8),))
    import_program(ep, decomposed_later=_handled() - {"aten.dropout"})
    assert len(retraces) == 2
    import_program(ep, decomposed_later=())  # nothing named: always re-traced
    assert len(retraces) == 3
    import_program(ep)  # the default is the decompose stage's set: no re-trace
    assert len(retraces) == 3


def test_in_place_op_on_a_fresh_temporary_is_its_functional_twin(retraces):
    x, n = torch.randn(3), torch.arange(5)
    ep = torch.export.export(FreshInPlace(), (x, n))
    program = import_program(ep)
    assert not retraces
    text = program.text()
    assert "aten.add_" not in text and "aten.mul_" not in text and '"aten.add.Tensor"' in text
    for got, want in zip(aten_mlir.run_reference(program, x, n), FreshInPlace()(x, n)):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
