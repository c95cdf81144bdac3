"""The compiled-program cache keyed before import: a hit runs neither torch's decompositions nor
MLIR and binds the ExportedProgram's own state; whatever changes the compiled code misses."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import torch
from torch import nn

import aten_mlir
from aten_mlir.backends import compiler, lowering, program_cache
from aten_mlir.backends.cpu.cache import CacheWarning
from aten_mlir.backends.cpu.cache_dir import evict
from aten_mlir.backends.program_cache import export_key, saved_signature
from aten_mlir.frontend.fingerprint import fingerprint
from tests.support.cache_faults import FAULTS, damage, intact_artifact, listing, read_only


class Net(nn.Module):
    """Parameters, buffers BatchNorm updates in place, a lifted constant, a keyword input, and
    nested outputs with non-tensor leaves."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(4)
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x, *, shift):
        y = self.bn(self.fc(x)) * self.scale + torch.tensor([1.0, 2.0, 3.0, 4.0])
        return {"y": (y, y.sum() + shift), "rest": [torch.relu(y), None, 3]}


class SameNetOtherLine(Net):
    def forward(self, x, *, shift):
        y = self.bn(self.fc(x)) * self.scale + torch.tensor([1.0, 2.0, 3.0, 4.0])
        return {"y": (y, y.sum() + shift), "rest": [torch.relu(y), None, 3]}


def make(seed: int = 0, cls=Net, batch: int = 3, dtype=torch.float32):
    torch.manual_seed(seed)
    model = cls().to(dtype).train()
    x, shift = torch.randn(batch, 4, dtype=dtype), torch.randn((), dtype=dtype)
    return model, (x,), {"shift": shift}


def export(model, args, kwargs, **options):
    return torch.export.export(model, args, kwargs, **options)


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache directory holding the compiled `Net`."""
    cache = tmp_path_factory.mktemp("warm")
    first = aten_mlir.compile(export(*make()), cache_dir=cache)
    assert not first.from_cache
    return cache


def forbid_import(monkeypatch):
    """Makes importing (torch's decompositions included) and lowering fail."""

    def fail(*args, **kwargs):
        raise AssertionError("a cache hit imported or lowered the program")

    monkeypatch.setattr(torch.export.ExportedProgram, "run_decompositions", fail)
    monkeypatch.setattr(compiler, "import_program", fail)
    monkeypatch.setattr(lowering, "lower", fail)


@pytest.fixture
def no_import(monkeypatch):
    forbid_import(monkeypatch)


def assert_same(got, want):
    got_leaves, got_spec = torch.utils._pytree.tree_flatten(got)
    want_leaves, want_spec = torch.utils._pytree.tree_flatten(want)
    assert got_spec == want_spec
    for g, w in zip(got_leaves, want_leaves, strict=True):
        if isinstance(w, torch.Tensor):
            torch.testing.assert_close(g, w)
        else:
            assert g == w


def test_a_fresh_export_hits_and_binds_its_own_state(warm, no_import):
    # other weights than the cached compile's: state is bound, not compiled in
    model, args, kwargs = make(seed=1)
    eager = make(seed=1)[0]
    ep = export(model, args, kwargs)
    compiled = aten_mlir.compile(ep, cache_dir=warm)
    assert compiled.from_cache and compiled.program is None
    for _ in range(2):  # the second call sees the buffers the first one updated
        assert_same(compiled(*args, **kwargs), eager(*args, **kwargs))
    for name in ("bn.running_mean", "bn.running_var", "bn.num_batches_tracked"):
        torch.testing.assert_close(ep.state_dict[name], eager.state_dict()[name])
    with pytest.raises(ValueError, match=r"expected tensor<3x4xf32>"):
        compiled(torch.randn(2, 4), **kwargs)


_FRESH_PROCESS = """
import sys, pytest, torch, aten_mlir
from tests.backends.test_program_cache import assert_same, export, forbid_import, make
with pytest.MonkeyPatch.context() as patch:
    forbid_import(patch)
    compiled = aten_mlir.compile(export(*make(dtype=torch.float64)), cache_dir=sys.argv[1])
model, args, kwargs = make(dtype=torch.float64)
assert_same(compiled(*args, **kwargs), model(*args, **kwargs))
print(compiled.from_cache)
"""


def test_a_fresh_process_hits_without_importing(tmp_path):
    assert not aten_mlir.compile(export(*make(dtype=torch.float64)), cache_dir=tmp_path).from_cache
    run = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(lambda: make(cls=SameNetOtherLine), id="source-line"),
        pytest.param(lambda: make(batch=5), id="shape"),
        pytest.param(lambda: make(dtype=torch.float64), id="dtype"),
    ],
)
def test_what_changes_the_program_changes_the_key(other):
    key = export_key(export(*make()), "cpu", 2)
    assert key is not None and key == export_key(export(*make(seed=2)), "cpu", 2)
    assert export_key(export(*other()), "cpu", 2) != key


def test_a_changed_graph_or_option_changes_the_key():
    model, args, kwargs = make()
    key = export_key(export(model, args, kwargs), "cpu", 2)
    model.bn.eval()  # reads the running statistics instead of updating them
    assert export_key(export(model, args, kwargs), "cpu", 2) != key
    model.bn.train()
    assert export_key(export(model, args, kwargs), "cpu", 3) != key
    assert export_key(export(model, args, kwargs), "cpu", 2) == key


@pytest.mark.parametrize(
    "switch, keys",
    [
        ("ATEN_MLIR_VNNI", True),
        ("ATEN_MLIR_AMX", True),
        ("ATEN_MLIR_THREADS", False),
        ("ATEN_MLIR_PASS_TIMING", False),
    ],
)
def test_kernel_switches_key_the_cache(monkeypatch, switch, keys):
    """A kernel switch (`ATEN_MLIR_VNNI=0`: FMA kernels instead of vdpbf16ps) changes the code,
    so it must not hit an entry built without it; the thread count does not."""
    monkeypatch.delenv(switch, raising=False)
    ep = export(*make())
    key = export_key(ep, "cpu", 2)
    monkeypatch.setenv(switch, "0")
    assert (export_key(ep, "cpu", 2) != key) == keys


def test_changed_compiler_sources_miss(warm, monkeypatch):
    monkeypatch.setattr(program_cache, "source_digest", lambda: "other compiler sources")
    model, args, kwargs = make()
    compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=warm)
    assert not compiled.from_cache
    assert_same(compiled(*args, **kwargs), make()[0](*args, **kwargs))


def _entry(cache, ep):
    return program_cache._path(cache, export_key(ep, "cpu", 2))


def reseal(path: Path, edit) -> None:
    """Applies `edit` to the entry's body and gives it a matching first line: an entry that
    passes the hash check yet is wrong (as a bug or another version could write it)."""
    key = path.name.removesuffix(".program.mlir")
    body = edit(path.read_bytes().partition(b"\n")[2].decode()).encode()
    path.write_bytes(program_cache._header(key, body) + b"\n" + body)


def _signature(text: str, value: str) -> str:
    lines = text.split("\n")
    return "\n".join([lines[0], f"// signature: {value}", *lines[2:]])


RESEALED = {
    "garbage": lambda text: "garbage",
    "json": lambda text: text.replace("// signature: {", "// signature: {{"),
    "function-type": lambda text: text.replace('"function_type": "(', '"function_type": "(('),
    "state-name": lambda text: text.replace("bn.running_mean", "bn.missing"),
    "input-count": lambda text: text.replace('["user_input", "x"], ', ""),
    "truncated": lambda text: text[: len(text) // 2],
    "declaration": lambda text: text.replace("@segment0", "@segment9", 1),
    "library-function": lambda text: text.replace("@segment0", "@segment9"),
    "signature-a-number": lambda text: _signature(text, "5"),
    "signature-a-list": lambda text: _signature(text, "[]"),
    "signature-empty": lambda text: _signature(text, "{}"),
    "signature-deeply-nested": lambda text: _signature(text, "[" * 100_000 + "]" * 100_000),
    "input-roles-not-strings": lambda text: text.replace('["user_input", "x"]', "[1, 2]"),
    "constant-position-not-int": lambda text: text.replace(
        '"constant_outputs": [[', '"constant_outputs": [["a", "1"], ['
    ),
    "library-outside-the-cache": lambda text: re.sub(
        r"// library: (\w+)", r"// library: ../\1", text
    ),
    "library-missing": lambda text: re.sub(r"// library: \w+", "// library: " + "0" * 64, text),
    "no-main": lambda text: text.replace("func.func @main", "func.func @other"),
}


@pytest.mark.parametrize("edit", RESEALED.values(), ids=RESEALED)
def test_a_consistent_but_wrong_entry_is_ignored_then_rewritten(warm, tmp_path, monkeypatch, edit):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    model, args, kwargs = make()
    path = _entry(cache, export(model, args, kwargs))
    text = path.read_text()
    reseal(path, edit)
    assert path.read_text() != text
    compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
    assert_same(compiled(*args, **kwargs), make()[0](*args, **kwargs))
    assert path.read_text() == text  # rewritten from the plan found under the IR key
    forbid_import(monkeypatch)
    assert aten_mlir.compile(export(*make()), cache_dir=cache).from_cache


def test_an_entry_copied_under_another_key_is_ignored(warm, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    model, args, kwargs = make()
    path = _entry(cache, export(model, args, kwargs))
    text = path.read_text()
    other = export(*make(batch=5))  # the same module, for 5 rows: another plan, another key
    aten_mlir.compile(other, cache_dir=cache)
    shutil.copyfile(_entry(cache, other), path)
    compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
    assert path.read_text() == text
    assert_same(compiled(*args, **kwargs), make()[0](*args, **kwargs))


# what each artifact is, and the batch of the program compiled over it: the runtime support is
# only linked by a build, so a new program (batch 5) is compiled over a damaged one
ARTIFACTS = {
    "plans": ("*.program.mlir", 3),
    "library": ("[0-9a-f]*[0-9a-f].so", 3),
    "sidecar": ("[0-9a-f]*[0-9a-f].json", 3),
    "support-object": ("support/runtime_support-*.o", 5),
    "support-hash": ("support/runtime_support-*.o.sha256", 5),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("artifact", ARTIFACTS)
def test_a_damaged_artifact_is_rebuilt_and_never_used(warm, tmp_path, artifact, fault):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)  # a path this process never dlopen'ed a library from
    pattern, batch = ARTIFACTS[artifact]
    damage(sorted(cache.glob(pattern)), fault, f"{artifact}/{fault}")
    model, args, kwargs = make(batch=batch)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # the directory is writable
        compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
    assert_same(compiled(*args, **kwargs), make(batch=batch)[0](*args, **kwargs))
    assert not compiled.from_cache
    if artifact in ("library", "sidecar"):
        assert not compiled.library.from_cache
    if artifact.startswith("support"):
        (support,) = cache.glob("support/runtime_support-*.o")
        assert intact_artifact(support)
    again = aten_mlir.compile(export(*make(batch=batch)), cache_dir=cache)
    assert again.from_cache and again.library.path == compiled.library.path


def test_a_program_keeps_its_ir_key_and_an_ir_hit_fills_the_export_key(warm, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    model, args, kwargs = make()
    _entry(cache, export(model, args, kwargs)).unlink()
    program = aten_mlir.import_program(export(model, args, kwargs))
    compiled = aten_mlir.compile(program, cache_dir=cache)
    assert compiled.from_cache and compiled.program is program
    assert not _entry(cache, export(model, args, kwargs)).exists()
    with pytest.MonkeyPatch.context() as patch:
        forbid_import(patch)
        with pytest.raises(AssertionError, match="imported"):
            aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
    assert aten_mlir.compile(export(model, args, kwargs), cache_dir=cache).from_cache
    with pytest.MonkeyPatch.context() as patch:
        forbid_import(patch)
        compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
    assert compiled.from_cache
    assert_same(compiled(*args, **kwargs), make()[0](*args, **kwargs))


def test_saved_signature_refuses_state_the_exported_program_lacks():
    ep = export(*make())
    program = aten_mlir.import_program(ep)
    saved = saved_signature(program, ep)
    assert saved is not None and ["buffer", "bn.running_mean"] in saved["inputs"]
    program.state = {name: t.clone() for name, t in program.state.items()}
    assert saved_signature(program, ep) is None


def test_a_custom_op_is_not_keyed():
    # one registration of the op per process: a second one of the same name is an error
    from tests.frontend.test_errors import twice

    class UsesCustomOp(nn.Module):
        def forward(self, x):
            return twice(x) + 1

    ep = torch.export.export(UsesCustomOp(), (torch.randn(3),))
    assert fingerprint(ep) is None and export_key(ep, "cpu", 2) is None


class Scale(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1) * 2 + 1


def test_dynamic_shapes_hit_and_run_any_size(tmp_path, monkeypatch):
    batch = torch.export.Dim("batch", min=2, max=64)

    def exported():
        return torch.export.export(Scale(), (torch.randn(4, 3),), dynamic_shapes=({0: batch},))

    assert not aten_mlir.compile(exported(), cache_dir=tmp_path).from_cache
    forbid_import(monkeypatch)
    compiled = aten_mlir.compile(exported(), cache_dir=tmp_path)
    assert compiled.from_cache
    x = torch.randn(7, 3)
    torch.testing.assert_close(compiled(x), Scale()(x))


class Identity(nn.Module):
    def forward(self, x):
        return x


def test_a_sparse_input_is_not_keyed_and_import_reports_it(tmp_path):
    ep = torch.export.export(Identity(), (torch.randn(3).to_sparse(),))
    assert fingerprint(ep) is None
    with pytest.raises(aten_mlir.UnsupportedOpError, match="sparse"):
        aten_mlir.compile(ep, cache_dir=tmp_path)


class UsesSin(nn.Module):
    def forward(self, x):
        return torch.sin(x) + 1  # SIN_LINE


def test_a_hit_runs_its_fallbacks_and_names_their_source_lines(tmp_path, monkeypatch):
    from aten_mlir.passes.aten_to_linalg import LOWERINGS

    monkeypatch.delitem(LOWERINGS, "aten.sin", raising=False)
    x = torch.randn(5)
    first = aten_mlir.compile(torch.export.export(UsesSin(), (x,)), cache_dir=tmp_path)
    forbid_import(monkeypatch)
    hit = aten_mlir.compile(torch.export.export(UsesSin(), (x,)), cache_dir=tmp_path)
    assert hit.from_cache and hit.fallbacks == first.fallbacks
    source = Path(__file__).read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if text.endswith("# SIN_LINE"))
    assert [f.op for f in hit.fallbacks] == ["aten.sin"]
    assert f"test_program_cache.py:{line}" in hit.fallbacks[0].location
    torch.testing.assert_close(hit(x), UsesSin()(x))


def test_a_read_only_cache_hits_and_compiles_the_rest_uncached(warm, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    before = listing(cache)
    with read_only(cache), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert aten_mlir.compile(export(*make()), cache_dir=cache).from_cache
        assert not [w for w in caught if issubclass(w.category, CacheWarning)]
        for batch in (5, 6):
            model, args, kwargs = make(batch=batch)
            compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
            assert not compiled.from_cache and not compiled.library.stored
            assert_same(compiled(*args, **kwargs), make(batch=batch)[0](*args, **kwargs))
    (warning,) = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert f"cannot write the compile cache {cache}" in str(warning.message)
    assert listing(cache) == before


def test_an_uncreatable_cache_directory_compiles_uncached_with_one_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in (0, 1):
            model, args, kwargs = make(seed=seed)
            compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=blocker / "cache")
            assert_same(compiled(*args, **kwargs), make(seed=seed)[0](*args, **kwargs))
    assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1


_RACE = """
import sys, aten_mlir
from tests.backends.test_program_cache import assert_same, export, make
compiled = aten_mlir.compile(export(*make()), cache_dir=sys.argv[1])
model, args, kwargs = make()
assert_same(compiled(*args, **kwargs), model(*args, **kwargs))
print(compiled.library.key)
"""


def test_processes_compiling_one_program_at_once_both_succeed(tmp_path):
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _RACE, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        for _ in range(2)
    ]
    results = [child.communicate(timeout=600) for child in children]
    assert [child.returncode for child in children] == [0, 0], [err for _, err in results]
    (key,) = {out.strip() for out, _ in results}
    assert [p.name for p in tmp_path.glob("*.so")] == [f"{key}.so"]
    assert len(list(tmp_path.glob("*.program.mlir"))) == 2  # its export key and IR key
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_plan_whose_library_was_evicted_compiles_again(warm, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    (library,) = cache.glob("[0-9a-f]*[0-9a-f].so")
    past = time.time() - 3600
    for path in (library, library.with_suffix(".json")):
        os.utime(path, (past, past))
    total = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    (evicted,) = evict(cache, cap=total - 1)  # the least recently used group alone
    assert evicted.kind == "library" and not library.exists()
    model, args, kwargs = make()
    compiled = aten_mlir.compile(export(model, args, kwargs), cache_dir=cache)
    assert not compiled.library.from_cache and library.exists()
    assert_same(compiled(*args, **kwargs), make()[0](*args, **kwargs))
