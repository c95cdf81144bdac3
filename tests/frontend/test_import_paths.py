"""One import path: `import_program(ep)` is the program `compile(ep)` compiles (same printed IR,
locations included, same signature) on the model zoo and the OpInfo corpus, and the fast path
(no `run_decompositions` re-trace) takes the programs real models make: `.contiguous()` (its
MemoryFormat default is the number 0), `nn.Transformer*` layers, transformers models, bf16,
a symbolic batch, `prims` views torch's re-trace cannot functionalize."""

from __future__ import annotations

import sys

import pytest
import torch
from torch.export import Dim

import aten_mlir
from aten_mlir.backends import compiler
from aten_mlir.dialects.attrs import _LAYOUT_CODES, _MEMORY_FORMAT_CODES
from aten_mlir.frontend.importer import import_program
from tests.models.model_zoo import MODEL_ZOO
from tests.modules import Fn
from tests.opinfo import harness


class _Imported(Exception):
    """Stops compile() right after its import, carrying the program it imported."""

    def __init__(self, program):
        super().__init__("imported")
        self.program = program


def _compiled_import(monkeypatch, ep):
    """The program `compile(ep)` goes on to lower (stopped before any stage runs)."""
    real = compiler.import_program

    def spy(*args, **kwargs):
        raise _Imported(real(*args, **kwargs))

    with monkeypatch.context() as patch:
        patch.setattr(compiler, "import_program", spy)
        with pytest.raises(_Imported) as stopped:
            aten_mlir.compile(ep, cache=False)
    return stopped.value.program


def _assert_one_path(monkeypatch, ep):
    compiled = _compiled_import(monkeypatch, ep)
    imported = import_program(ep)
    assert imported.text(debug_info=True) == compiled.text(debug_info=True)
    assert imported.signature == compiled.signature


@pytest.mark.parametrize("name", sorted(MODEL_ZOO))
def test_model_zoo_imports_as_compile_imports(monkeypatch, name):
    model, inputs, dynamic = MODEL_ZOO[name].build(dynamic_batch=True)
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic, strict=False)
    _assert_one_path(monkeypatch, ep)


def _opinfo_id(opinfo) -> str:
    return opinfo.name + (f".{opinfo.variant_test_name}" if opinfo.variant_test_name else "")


_OPINFOS = harness.op_db()
# Every 4th OpInfo (one sample each) keeps the default run under a minute; `-m slow` runs
# every OpInfo's first two samples.
_SAMPLED = _OPINFOS[::4]


def _check_opinfo(monkeypatch, opinfo, limit):
    torch.manual_seed(0)
    compared = 0
    for case in harness.cases(opinfo, limit=limit):
        ep = harness.export_case(case)
        if ep is None:
            continue  # torch.export rejects the sample
        try:
            imported = import_program(ep)
        except aten_mlir.UnsupportedOpError as e:
            with pytest.raises(aten_mlir.UnsupportedOpError) as also:
                _compiled_import(monkeypatch, ep)
            assert str(also.value) == str(e)  # the same refusal on both paths
            continue
        compiled = _compiled_import(monkeypatch, ep)
        assert imported.text(debug_info=True) == compiled.text(debug_info=True)
        compared += 1
    if not compared:
        pytest.skip("no sample exports and imports")


@pytest.mark.parametrize("opinfo", _SAMPLED, ids=_opinfo_id)
def test_opinfo_imports_as_compile_imports(monkeypatch, opinfo):
    _check_opinfo(monkeypatch, opinfo, 1)


@pytest.mark.slow
@pytest.mark.parametrize("opinfo", _OPINFOS, ids=_opinfo_id)
def test_opinfo_imports_as_compile_imports_all(monkeypatch, opinfo):
    _check_opinfo(monkeypatch, opinfo, 2)


def test_enum_numbers_are_c10s(tmp_path, monkeypatch):
    """The c10 numbers of MemoryFormat and Layout (schema defaults carry them) are what
    TorchScript's constants say each enum value is."""
    calls = [f"x.contiguous(memory_format=torch.{str(m)[6:]})" for m in _MEMORY_FORMAT_CODES]
    calls += [f"torch.empty([1], layout=torch.{str(m)[6:]})" for m in _LAYOUT_CODES]
    source = tmp_path / "enum_numbers.py"
    source.write_text(f"import torch\ndef f(x: torch.Tensor):\n    return {', '.join(calls)}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import enum_numbers

    graph = torch.jit.script(enum_numbers.f).graph
    numbers = {"aten::contiguous": [], "aten::empty": []}
    for node in graph.nodes():
        if node.kind() in numbers:
            inputs = list(node.inputs())
            numbers[node.kind()].append(
                (inputs[1] if node.kind() == "aten::contiguous" else inputs[2]).toIValue()
            )
    sys.modules.pop("enum_numbers", None)
    assert numbers["aten::contiguous"] == list(range(len(_MEMORY_FORMAT_CODES)))
    assert numbers["aten::empty"] == list(range(len(_LAYOUT_CODES)))


def test_contiguous_takes_the_fast_path(retraces):
    def fn(x):
        return x.transpose(0, 1).contiguous() * 2

    x = torch.randn(3, 4)
    ep = torch.export.export(Fn(fn), (x,))
    program = import_program(ep)
    assert not retraces
    assert 'memory_format = "contiguous_format"' in program.text()
    compiled = aten_mlir.compile(ep, cache=False)
    assert not retraces and compiled.fallbacks == []
    torch.testing.assert_close(compiled(x), fn(x))


class _FirstOutput(torch.nn.Module):
    """Calls `model` with keyword `key` (or positionally) and returns its first output."""

    def __init__(self, model, key=None):
        super().__init__()
        self.model, self.key = model, key

    def forward(self, x):
        return self.model(**{self.key: x})[0] if self.key else self.model(x, x, x)[0]


def _t5_encoder():
    from transformers import T5Config, T5EncoderModel

    config = T5Config(
        vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
    )  # fmt: skip
    return _FirstOutput(T5EncoderModel(config), "input_ids")


def _encoder_layer():
    return torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True),
        2,
        enable_nested_tensor=False,
    )


def _attention():
    return _FirstOutput(torch.nn.MultiheadAttention(32, 4, batch_first=True))


_MODELS = {
    "transformer_encoder": (_encoder_layer, lambda b: torch.randn(b, 12, 32)),
    "multihead_attention": (_attention, lambda b: torch.randn(b, 12, 32)),
    "t5_encoder": (_t5_encoder, lambda b: torch.randint(0, 128, (b, 12))),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", sorted(_MODELS))
def test_transformer_models_compile_on_the_fast_path(retraces, name, dtype):
    build, make_input = _MODELS[name]
    torch.manual_seed(0)
    model = build().eval().to(dtype)

    def inputs(batch):
        x = make_input(batch)
        return (x.to(dtype) if x.is_floating_point() else x,)

    dynamic = ({0: Dim("batch", min=1, max=16)},)
    ep = torch.export.export(model, inputs(2), dynamic_shapes=dynamic, strict=False)
    compiled = aten_mlir.compile(ep, cache=False)
    assert not retraces and compiled.fallbacks == []
    tolerance = {"atol": 3e-2, "rtol": 3e-2} if dtype == torch.bfloat16 else {}
    for batch in (2, 3):
        args = inputs(batch)
        with torch.no_grad():
            torch.testing.assert_close(compiled(*args), model(*args), **tolerance)


def test_prims_views_import_where_the_retrace_fails(retraces):
    def fn(x):
        return (
            torch.ops.prims.collapse_view(x, 1, 3),
            torch.ops.prims.collapse(x, 0, 2),
            torch.ops.prims.split_dim(x, 3, 1),
            torch.ops.prims.squeeze(x.unsqueeze(0), [0]),
            torch.ops.prims.transpose(x, [3, 1, 0, 2]),
            torch.ops.prims.broadcast_in_dim(x[0, 0], [2, 4, 5], [1, 2]),
            torch.ops.prims.view_of(x),
            torch.ops.prims.convert_element_type(x, torch.float64),
        )

    x = torch.randn(2, 3, 4, 5)
    batch = Dim("batch", min=2, max=64)
    ep = torch.export.export(Fn(fn), (x,), dynamic_shapes=(({0: batch},),))
    with pytest.raises(Exception, match="alias annotations"):
        ep.run_decompositions({})  # why these need the fast path
    retraces.clear()
    program = import_program(ep)
    assert not retraces and '"prims.collapse_view"' in program.text()
    for target in ("cpu", "triton"):
        compiled = aten_mlir.compile(ep, target=target, cache=False)
        assert compiled.fallbacks == []
        for arg in (x, torch.randn(3, 3, 4, 5)):
            for got, want in zip(compiled(arg), fn(arg), strict=True):
                assert got.dtype == want.dtype
                torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_prim_without_decomposition_is_refused_at_import():
    ep = torch.export.export(Fn(lambda x: torch.ops.prims.sum(x, [0])), (torch.randn(3, 4),))
    with pytest.raises(aten_mlir.UnsupportedOpError, match="'prims.sum' has no decomposition"):
        import_program(ep)
