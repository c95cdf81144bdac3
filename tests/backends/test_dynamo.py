"""`torch.compile(m, backend="aten_mlir")`: the name, options, graph breaks, dynamic recompiles,
inference on `torch.nn` models and training steps against eager (backends/dynamo.py)."""

from __future__ import annotations

import copy
import importlib.metadata
import warnings

import pytest
import torch
from torch import nn

from aten_mlir.backends import dynamo
from aten_mlir.tests.support.dynamo import compiled, fresh_dynamo, train_both
from aten_mlir.tests.support.triton import triton_interpreter  # noqa: F401 (fixture)


@pytest.fixture
def counts():
    with fresh_dynamo() as c:
        yield c


def _close(got, want, tol=1e-5):
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)


# -- the name and the options --------------------------------------------------------------------


def test_the_entry_point_names_the_backend():
    points = importlib.metadata.entry_points(group="torch_dynamo_backends")
    assert points["aten_mlir"].value == "aten_mlir.backends.dynamo:aten_mlir_backend"


def test_the_name_resolves_to_the_backend(counts):
    from torch._dynamo.backends.registry import lookup_backend

    assert lookup_backend("aten_mlir") is dynamo.aten_mlir_backend
    f = torch.compile(lambda x: torch.tanh(x) * 2, backend="aten_mlir")
    x = torch.randn(5)
    _close(f(x), torch.tanh(x) * 2)
    assert counts["graphs_compiled"] == 1


def test_unknown_options_are_refused(counts):
    f = torch.compile(torch.sin, backend=dynamo.aten_mlir_backend, options={"targte": "cpu"})
    with pytest.raises(Exception, match="unknown option.*targte"):
        f(torch.randn(3))


def test_dump_dir_gets_every_graphs_stages(tmp_path, counts):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    f = compiled(model, options={"dump_dir": str(tmp_path), "cache": False})
    f(torch.randn(3, 4)).sum().backward()
    forward = list(tmp_path.glob("*-forward/00-input.mlir"))
    backward = list(tmp_path.glob("*-backward/00-input.mlir"))
    assert len(forward) == 1 and len(backward) == 1
    assert "aten.mm" in backward[0].read_text()


def test_cache_dir_option_holds_the_libraries(tmp_path, counts):
    with torch.no_grad():
        compiled(nn.Tanh(), options={"cache_dir": str(tmp_path)})(torch.randn(5))
    assert list(tmp_path.rglob("*.so")), sorted(p.name for p in tmp_path.rglob("*"))


def test_dump_dir_from_the_environment(tmp_path, monkeypatch, counts):
    monkeypatch.setenv("ATEN_MLIR_DUMP_DIR", str(tmp_path))
    with torch.no_grad():
        compiled(torch.nn.GELU())(torch.randn(4))
    assert list(tmp_path.glob("*-inference/00-input.mlir"))


def test_a_graph_that_does_not_compile_runs_eagerly_with_a_warning(monkeypatch, counts):
    from aten_mlir.frontend import fx_graphs

    def refuse(gm):
        raise fx_graphs.GraphImportError("refused for the test")

    monkeypatch.setattr(fx_graphs, "exported_from_graph", refuse)
    f = torch.compile(lambda x: x.exp() + 1, backend="aten_mlir")
    x = torch.randn(6)
    with pytest.warns(UserWarning, match="runs eagerly: refused for the test"):
        _close(f(x), x.exp() + 1)
    assert counts["graph_fallbacks"] == 1 and counts["graphs_compiled"] == 0


# -- graphs: breaks, fullgraph, dynamic sizes ----------------------------------------------------


class _Broken(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 3)

    def forward(self, x):
        h = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return self.b(h).softmax(-1)


def test_each_subgraph_of_a_graph_break_compiles(counts):
    model = _Broken()
    x = torch.randn(4, 8)
    with torch.no_grad():
        _close(compiled(model)(x), model(x))
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0


def test_fullgraph_is_one_program(counts):
    model = nn.Sequential(nn.Linear(8, 8), nn.SiLU(), nn.LayerNorm(8))
    x = torch.randn(4, 8)
    with torch.no_grad():
        _close(compiled(model, fullgraph=True)(x), model(x))
    assert counts["graphs_compiled"] == 1


def test_a_dynamic_batch_compiles_once_after_the_first_recompile(counts):
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
    f = compiled(model)
    with torch.no_grad():
        for batch in (4, 7, 33):
            x = torch.randn(batch, 16)
            _close(f(x), model(x))
    # batch 4: static; batch 7: dynamo marks the dim dynamic and recompiles; 33 reuses that
    assert counts["graphs_compiled"] == 2


def test_symbolic_sizes_in_the_graph(counts):
    def f(x):
        return x * (1.0 / x.shape[0]) + x.shape[1], x.sum(0) / x.shape[0]

    g = compiled(f, dynamic=True)
    for n in (2, 6, 11):
        x = torch.randn(n, 3)
        for got, want in zip(g(x), f(x)):
            _close(got, want)
    assert counts["graphs_compiled"] == 1


# -- inference: torch.nn models ------------------------------------------------------------------


def _encoder():
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), torch.randn(2, 9, 32)


def _lstm():
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(12, 16, num_layers=2, batch_first=True)
            self.head = nn.Linear(16, 5)

        def forward(self, x):
            return self.head(self.lstm(x)[0])

    return Tagger(), torch.randn(3, 7, 12)


def _depthwise_cnn():
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU6(),
        nn.Conv2d(16, 16, 3, padding=1, groups=16),
        nn.Conv2d(16, 24, 1),
        nn.Hardswish(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(24, 10),
    )
    return model, torch.randn(2, 3, 20, 20)


@pytest.mark.parametrize("build", [_encoder, _lstm, _depthwise_cnn], ids=lambda b: b.__name__)
def test_nn_models_match_eager(build, counts):
    torch.manual_seed(0)
    model, x = build()
    model.eval()
    # dynamo traces recurrent modules only when asked; then they compile like the rest
    with torch.no_grad(), torch._dynamo.config.patch(allow_rnn=True):
        _close(compiled(model)(x), model(x), tol=1e-4)
    assert counts["graphs_compiled"] >= 1 and counts["op_fallbacks"] == 0


# -- training ------------------------------------------------------------------------------------


def _check_training(model, batches, loss_fn, **kwargs):
    got, want, twin = train_both(model, batches, loss_fn, **kwargs)
    torch.testing.assert_close(torch.tensor(got), torch.tensor(want), rtol=1e-4, atol=1e-6)
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-5, msg=name)
    for p, q in zip(model.buffers(), twin.buffers()):
        torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-5)


def test_training_a_cnn_with_batch_norm(counts):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 8, 3, padding=1),
        nn.AvgPool2d(2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 4),
    )
    batches = [(torch.randn(4, 3, 16, 16), torch.randint(0, 4, (4,))) for _ in range(20)]
    _check_training(model, batches, nn.CrossEntropyLoss())
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0


class _TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        layer = nn.TransformerEncoderLayer(
            32, 4, 64, dropout=0.0, batch_first=True, activation="gelu", norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 50)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens), is_causal=False)).flatten(0, 1)


def test_training_a_two_layer_transformer(counts):
    torch.manual_seed(0)
    batches = [(torch.randint(0, 50, (3, 10)), torch.randint(0, 50, (30,))) for _ in range(20)]
    _check_training(_TinyLM(), batches, nn.CrossEntropyLoss())
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0


def test_training_an_mlp_with_a_dynamic_batch(counts):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 1))
    batches = [(torch.randn(b, 16), torch.randn(b, 1)) for b in [8, 5, 13] * 7][:20]
    _check_training(model, batches, nn.MSELoss(), lr=0.01, dynamic=True)
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0


def test_training_under_bf16_autocast(counts):
    # autocast's bf16 convolutions and products, f32 norms: mixed-dtype graphs both ways, and
    # the backward's AMX grad-weight products (a loop carrying tiles once aborted opt)
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.GELU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, stride=2, padding=1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.LayerNorm(32),
        nn.Linear(32, 10),
    )
    twin = copy.deepcopy(model)
    step = compiled(model)
    losses = {}
    for name, m, f in (("ours", model, step), ("eager", twin, twin)):
        opt = torch.optim.SGD(m.parameters(), lr=0.05)
        g = torch.Generator().manual_seed(1)
        for _ in range(3):
            x, y = torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g)
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(f(x).float(), y)
            loss.backward()
            opt.step()
            losses.setdefault(name, []).append(loss.item())
    torch.testing.assert_close(losses["ours"], losses["eager"], rtol=2e-3, atol=0)
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0


def test_a_compiled_adamw_step_updates_in_place_as_eager(counts):
    # dynamo writes the step's `addcmul_` as `prims.fma`, a prim torch registers late
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 4))
    twin = copy.deepcopy(model)
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (model, twin)]
    steps = [compiled(opts[0].step), opts[1].step]
    for _ in range(3):
        x, y = torch.randn(8, 16), torch.randn(8, 4)
        for m, opt, step in zip((model, twin), opts, steps):
            opt.zero_grad()
            nn.functional.mse_loss(m(x), y).backward()
            step()
    for p, q in zip(model.parameters(), twin.parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    assert counts["graphs_compiled"] >= 1 and counts["op_fallbacks"] == 0


def test_dropout_masks_are_random_seeded_and_shared_with_the_backward(counts):
    model = nn.Sequential(nn.Linear(64, 256), nn.Dropout(0.3))
    f = compiled(model)
    x = torch.randn(64, 64, requires_grad=True)
    torch.manual_seed(1)
    first = f(x)
    torch.manual_seed(1)
    again = f(x)
    other = f(x)
    dropped = first == 0
    assert torch.equal(first, again) and not torch.equal(dropped, other == 0)
    assert 0.27 < dropped.float().mean().item() < 0.33
    first.backward(torch.ones_like(first))
    # d(first)/dx through the kept units only: the backward read the forward's mask
    kept = (~dropped).float() / 0.7
    _close(x.grad, kept @ model[0].weight, tol=1e-4)
    assert counts["op_fallbacks"] == 0


def test_training_on_the_triton_target(triton_interpreter, counts):  # noqa: F811
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 16), nn.Tanh(), nn.Linear(16, 3))
    batches = [(torch.randn(6, 12), torch.randint(0, 3, (6,))) for _ in range(3)]
    _check_training(model, batches, nn.CrossEntropyLoss(), options={"target": "triton"})
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0


def test_no_requires_grad_warning_from_compiled_graphs(counts):
    model = nn.Linear(4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled(model)(torch.randn(2, 4)).sum().backward()


def test_stages_run_outside_fake_mode_and_the_python_dispatcher(monkeypatch, counts):
    # AOTAutograd calls the compilers with both on; under the Python dispatcher a meta
    # `_to_copy` to another device (a result type inferred in a stage) recursed through torch's
    # decomposition until the C stack overflowed and the process died
    import aten_mlir.frontend

    real, seen = aten_mlir.frontend.import_program, []

    def probing(ep, **kwargs):
        keys = str(torch._C._dispatch_tls_local_include_set())
        seen.append(keys)
        with pytest.raises(NotImplementedError, match="meta"):
            torch.ops.aten._to_copy(torch.empty(3, device="meta"), device="cpu")
        return real(ep, **kwargs)

    monkeypatch.setattr(aten_mlir.frontend, "import_program", probing)
    x = torch.randn(4)
    with torch.no_grad():
        _close(compiled(torch.nn.Tanh())(x), torch.tanh(x))
    assert seen and "PythonDispatcher" not in seen[0] and "Python," not in seen[0]


def test_the_backward_graph_lowers_beside_the_forward_before_backward_runs(counts, monkeypatch):
    from aten_mlir.backends import compiler

    started = []
    real = compiler.compile_later
    monkeypatch.setattr(
        compiler, "compile_later", lambda *a, **k: started.append(1) or real(*a, **k)
    )
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    twin = copy.deepcopy(model)
    x = torch.randn(3, 4)
    loss = compiled(model)(x).square().sum()
    # both graphs started with the forward; only the forward finished (it ran)
    assert len(started) == 2 and counts["graphs_compiled"] == 1
    loss.backward()
    assert counts["graphs_compiled"] == 2 and counts["op_fallbacks"] == 0
    twin(x).square().sum().backward()
    for p, q in zip(model.parameters(), twin.parameters()):
        _close(p.grad, q.grad)


def test_a_graph_whose_lowering_fails_runs_eagerly_at_its_first_call(counts, monkeypatch):
    from aten_mlir.passes.aten_to_linalg import LOWERINGS
    from aten_mlir.passes.rules import Rule

    def broken(op, rw):
        raise RuntimeError("boom")

    monkeypatch.setitem(LOWERINGS, "aten.exp", Rule("aten.exp", broken, "aten.exp -> boom"))
    f = compiled(lambda x: x.exp() + 1, options={"fallback": "eager", "cache": False})
    x = torch.randn(6)
    with torch.no_grad(), pytest.warns(UserWarning, match="runs eagerly: .*boom"):
        _close(f(x), x.exp() + 1)
    assert counts["graph_fallbacks"] == 1 and counts["graphs_compiled"] == 0
