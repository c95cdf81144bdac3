"""`aten_mlir.compile`: the runtime contract (DESIGN.md section 6), dumps, errors, fallbacks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.frontend.program import IRParseError, Program
from aten_mlir.passes.stages import stage_names
from tests.modules import Fn

_REPO = Path(__file__).resolve().parents[2]


class Pair(torch.nn.Module):
    def forward(self, x, *, scale):
        y = torch.relu(x) * scale
        return {"sum": y + 1, "mask": y > 0.5}


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        self.count.add_(x)
        return x * 2


def test_called_like_the_module_returns_its_pytree():
    x, scale = torch.randn(4, 3), torch.randn(3)
    ep = torch.export.export(Pair(), (x,), {"scale": scale})
    program = aten_mlir.compile(ep)
    out = program(x, scale=scale)
    expected = Pair()(x, scale=scale)
    assert set(out) == {"sum", "mask"} and out["mask"].dtype == torch.bool
    torch.testing.assert_close(out["sum"], expected["sum"])
    assert torch.equal(out["mask"], expected["mask"])


def test_inputs_are_checked():
    x, scale = torch.randn(4, 3), torch.randn(3)
    program = aten_mlir.compile(torch.export.export(Pair(), (x,), {"scale": scale}))
    with pytest.raises(ValueError, match="expected tensor<4x3xf32>"):
        program(torch.randn(4, 4), scale=scale)
    with pytest.raises(ValueError, match="float32"):
        program(x.double(), scale=scale)
    with pytest.raises(ValueError, match="structure"):
        program(x, scale)


def test_mutated_buffers_are_written_back():
    module = Counter()
    ep = torch.export.export(module, (torch.ones(3),))
    program = aten_mlir.compile(ep)
    program(torch.ones(3))
    program(torch.full((3,), 2.0))
    assert torch.equal(program.state["count"], torch.full((3,), 3.0))


def test_dynamic_batch_stays_dynamic():
    batch = torch.export.Dim("batch")
    x = torch.randn(5, 3)
    ep = torch.export.export(
        Pair(), (x,), {"scale": torch.randn(3)}, dynamic_shapes={"x": {0: batch}, "scale": None}
    )
    program = aten_mlir.compile(ep)
    for n in (2, 9):
        x = torch.randn(n, 3)
        torch.testing.assert_close(program(x, scale=torch.ones(3))["sum"], torch.relu(x) + 1)


def test_dump_dir_has_every_stage(tmp_path):
    ep = torch.export.export(Counter(), (torch.ones(3),))
    aten_mlir.compile(ep, dump_dir=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    for i, stage in enumerate(stage_names(CPU_STAGES), start=1):
        assert f"{i:02d}-{stage}.mlir" in names
    assert "00-input.mlir" in names and "02-aten-to-linalg.main.mlir" in names
    assert "llvm.func" in (tmp_path / f"{len(stage_names(CPU_STAGES)):02d}-llvm.mlir").read_text()


def test_every_dumped_stage_replays_with_aten_opt(tmp_path):
    ep = torch.export.export(Counter(), (torch.ones(3),))
    aten_mlir.compile(ep, dump_dir=tmp_path)
    names = stage_names(CPU_STAGES)
    for i, stage in enumerate(names[2:], start=3):
        source = tmp_path / f"{i - 1:02d}-{names[i - 2]}.mlir"
        run = subprocess.run(
            [sys.executable, "-m", "aten_mlir.tools.aten_opt", "--stage", stage, str(source)],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr


class UsesCumsum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(torch.sin(x), 0) * 2 + x


def test_a_rule_that_fails_raises_compile_error_with_repro(monkeypatch):
    from aten_mlir.passes.aten_to_linalg import LOWERINGS
    from aten_mlir.passes.rules import Rule

    def broken(op, rw):
        raise RuntimeError("boom")

    monkeypatch.setitem(LOWERINGS, "aten.sin", Rule("aten.sin", broken, "aten.sin -> boom"))
    ep = torch.export.export(UsesCumsum(), (torch.randn(4),))
    with pytest.raises(aten_mlir.CompileError) as info:
        aten_mlir.compile(ep, cache=False)
    text = str(info.value)
    assert "stage 'aten-to-linalg'" in text and "'aten.sin'" in text and "boom" in text
    assert "test_compile.py" in text.splitlines()[0]  # the user's source line
    assert "aten-opt --stage aten-to-linalg" in text


def test_fallbacks_are_reported_and_run_eagerly(monkeypatch):
    from aten_mlir.passes.aten_to_linalg import LOWERINGS

    monkeypatch.delitem(LOWERINGS, "aten.sin", raising=False)
    x = torch.randn(6)
    program = aten_mlir.compile(torch.export.export(UsesCumsum(), (x,)), cache=False)
    assert [f.op for f in program.fallbacks if f.op == "aten.sin"] == ["aten.sin"]
    assert "test_compile.py" in program.fallbacks[0].location
    torch.testing.assert_close(program(x), UsesCumsum()(x))


def test_unknown_target():
    with pytest.raises(ValueError, match="unknown target"):
        aten_mlir.compile(torch.export.export(Counter(), (torch.ones(3),)), target="tpu")


_FRESH_PROCESS = """
import sys, torch, aten_mlir
import aten_mlir.backends.lowering as lowering
from tests.backends.test_compile import Counter
def no_mlir(*a, **k):
    raise AssertionError("the MLIR pipeline ran")
lowering.lower = no_mlir
ep = torch.export.export(Counter(), (torch.ones(3),))
program = aten_mlir.compile(ep, cache_dir=sys.argv[1])
assert program.from_cache
print(program(torch.full((3,), 2.0)).tolist())
"""


def test_a_fresh_process_loads_the_compiled_program_from_disk(tmp_path):
    ep = torch.export.export(Counter(), (torch.ones(3),))
    first = aten_mlir.compile(ep, cache_dir=tmp_path)
    assert not first.from_cache
    assert list(tmp_path.glob("*.program.mlir")) and list(tmp_path.glob("*.so"))
    run = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=_REPO,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[4.0, 4.0, 4.0]"


def test_a_corrupt_cache_entry_is_ignored_and_rebuilt(tmp_path):
    ep = torch.export.export(Counter(), (torch.ones(3),))
    aten_mlir.compile(ep, cache_dir=tmp_path / "first")
    # Corrupt a copy: this process has the original library mapped, and a library is never
    # rewritten in place (entries are replaced by rename), so a copy stands for another run's.
    cache = tmp_path / "copy"
    shutil.copytree(tmp_path / "first", cache)
    for plan in cache.glob("*.program.mlir"):
        plan.write_text(plan.read_text().replace("func.call", "func.cal"))
    for so in cache.glob("*.so"):
        so.write_bytes(b"garbage")
    program = aten_mlir.compile(ep, cache_dir=cache)
    assert not program.from_cache
    torch.testing.assert_close(program(torch.ones(3)), torch.full((3,), 2.0))
    assert aten_mlir.compile(ep, cache_dir=cache).from_cache


def _abort_in(pipeline_part: str, monkeypatch):
    """Makes the stage whose pipeline contains `pipeline_part` abort the process it runs in,
    as an MLIR assertion does (the forked compile child inherits the patch)."""
    from aten_mlir.backends import lowering

    real = lowering.run_pipeline

    def aborting(module, pipeline, **kwargs):
        if pipeline_part in str(pipeline):
            os.abort()
        return real(module, pipeline, **kwargs)

    monkeypatch.setattr(lowering, "run_pipeline", aborting)


def test_an_abort_in_a_stage_is_a_compile_error(monkeypatch):
    _abort_in("expand-strided-metadata", monkeypatch)
    ep = torch.export.export(Fn(lambda x: torch.relu(x) + 1), (torch.randn(3, 4),))
    with pytest.raises(aten_mlir.CompileError) as info:
        aten_mlir.compile(ep, cache=False)
    error = info.value
    assert error.stage == "llvm" and "MLIR crashed (SIGABRT)" in str(error)
    stage_input = Path(error.repro.split()[-1])
    assert error.repro == f"aten-opt --stage llvm {stage_input}"
    text = stage_input.read_text()  # the loops stage's output: memrefs, not yet LLVM
    assert "func.func @segment0(%arg0: memref<3x4xf32>" in text and "llvm.func" not in text
    assert (stage_input.parent / "crash.log").exists()
    monkeypatch.undo()  # and this process lives on
    x = torch.randn(3, 4)
    torch.testing.assert_close(aten_mlir.compile(ep, cache=False)(x), torch.relu(x) + 1)


def test_a_triton_stage_failure_repro_names_the_triton_pipeline(monkeypatch):
    from aten_mlir.backends import lowering
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES
    from aten_mlir.passes import PipelineError

    fusion = next(s for s in TRITON_STAGES if s.name == "fusion")
    real = lowering.run_pipeline

    def failing(module, pipeline, **kwargs):
        if pipeline == fusion.pipeline:
            raise PipelineError("injected")
        return real(module, pipeline, **kwargs)

    monkeypatch.setattr(lowering, "run_pipeline", failing)
    ep = torch.export.export(Fn(lambda x: torch.relu(x) + 1), (torch.randn(3, 4),))
    with pytest.raises(aten_mlir.CompileError) as info:
        aten_mlir.compile(ep, target="triton")
    assert info.value.repro.startswith("aten-opt --target triton --stage fusion ")


def test_a_main_without_return_is_rejected_before_lowering():
    text = (
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        '  %0 = "aten.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
        "}\n"
    )
    program = Program.from_text(text, "m.mlir")
    with pytest.raises(IRParseError, match=r"^m\.mlir:2:8: .*@main: a block does not end in a"):
        aten_mlir.compile(program, cache=False)


def test_compile_later_lowers_and_builds_in_the_background(monkeypatch, tmp_path):
    from aten_mlir.backends import compiler, cpu

    calls = []
    build = cpu.compile_llvm_module
    monkeypatch.setattr(
        cpu, "compile_llvm_module", lambda *a, **k: calls.append(1) or build(*a, **k)
    )
    x = torch.randn(3, 4)
    first = compiler.compile_later(
        torch.export.export(Fn(torch.tanh), (x,)), cache=False, cache_dir=tmp_path
    )
    second = compiler.compile_later(
        torch.export.export(Fn(torch.sigmoid), (x,)), cache=False, cache_dir=tmp_path
    )
    # both lowered and built by their children, which stored the libraries: this process
    # only loads them
    for finish, fn in ((second, torch.sigmoid), (first, torch.tanh)):
        compiled = finish()
        torch.testing.assert_close(compiled(x), fn(x))
        assert not compiled.library.from_cache and compiled.library.path.parent == tmp_path
    assert calls == []


def test_a_library_the_child_stored_that_does_not_load_is_built_here(monkeypatch, tmp_path):
    from aten_mlir.backends import compiler, cpu

    stored = []
    # as if the entry were damaged or evicted between the child's store and this load
    monkeypatch.setattr(cpu, "load_cached_library", lambda key, *a, **k: stored.append(key))
    x = torch.randn(3, 4)
    finish = compiler.compile_later(torch.export.export(Fn(torch.tanh), (x,)), cache_dir=tmp_path)
    compiled = finish()
    torch.testing.assert_close(compiled(x), torch.tanh(x))
    assert stored == [compiled.library.key]  # the child's key is the module's own
    assert compiled.library.from_cache  # the child's entry, found valid by the build here


def test_a_stage_failure_of_compile_later_is_raised_by_its_result(monkeypatch):
    from aten_mlir.backends import compiler
    from aten_mlir.passes.aten_to_linalg import LOWERINGS
    from aten_mlir.passes.rules import Rule

    def broken(op, rw):
        raise RuntimeError("boom")

    monkeypatch.setitem(LOWERINGS, "aten.sin", Rule("aten.sin", broken, "aten.sin -> boom"))
    finish = compiler.compile_later(
        torch.export.export(UsesCumsum(), (torch.randn(4),)), cache=False
    )
    with pytest.raises(aten_mlir.CompileError, match="stage 'aten-to-linalg'"):
        finish()
