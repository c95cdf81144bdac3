"""The native build's opt pipeline: loop nests out of the segments as kernels, identical kernels
merged, the remaining glue unoptimized; results unchanged at every opt level."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import torch

import aten_mlir
from aten_mlir.backends.cpu import codegen, compile_llvm_module, native

from .test_native import lower

# Two identical loop nests (the same op on different buffers, like one op in two layers; `%x` is
# read again later, so the second add is not done in place), a different one, and a function
# without loops (rank 0: straight-line code in the glue).
SOURCE = """
#map = affine_map<(d0) -> (d0)>
#scalar = affine_map<() -> ()>
func.func @layers(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %x = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
  } -> tensor<64xf32>
  %z = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%y, %x : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %s = arith.mulf %p, %q : f32
      linalg.yield %s : f32
  } -> tensor<64xf32>
  return %z : tensor<64xf32>
}
func.func @scalar(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%a, %b : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.subf %m, %q : f32
      linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
"""


@pytest.fixture(scope="module")
def text() -> str:
    return lower(SOURCE)


def optimized_ir(text: str, opt_level: int) -> str:
    """The LLVM IR after the build's opt step (as text)."""
    functions = native._CIFACE.findall(text)
    translate = [native._tool("mlir", "mlir-translate"), "--mlir-to-llvmir"]
    llvm_ir = native._run(translate, text.encode())
    flags = codegen.opt_flags(opt_level, functions)
    return native._run([native._tool("llvm", "opt"), *flags, "-S", "-o", "-"], llvm_ir).decode()


def defined(ir_text: str) -> dict[str, str]:
    """Function name -> its attributes: the inline ones and those of its `#N` groups."""
    groups = dict(re.findall(r"^attributes (#\d+) = \{(.*)\}$", ir_text, re.M))
    out = {}
    for line in re.findall(r"^define .*$", ir_text, re.M):
        name = re.search(r'@"?([\w.$]+)"?\(', line).group(1)
        tail = line[line.rindex(")") :]
        out[name] = tail + " ".join(groups.get(g, "") for g in re.findall(r"#\d+", tail))
    return out


def test_identical_loop_nests_share_one_kernel(text):
    ir_text = optimized_ir(text, 2)
    kernels = [n for n in defined(ir_text) if ".extracted" in n]
    calls = Counter(c for c in re.findall(r"call [^@]*@([\w.]+)\(", ir_text) if c in kernels)
    # the add kernel runs twice, the mul kernel once
    assert len(kernels) == 2 and sorted(calls.values()) == [1, 2], (kernels, calls)


def test_glue_is_unoptimized_and_kernels_are_not(text):
    functions = defined(optimized_ir(text, 2))
    for glue in ("layers", "_mlir_ciface_layers", "scalar", "_mlir_ciface_scalar"):
        assert "optnone" in functions[glue], (glue, functions[glue])
    kernels = [n for n in functions if ".extracted" in n]
    assert kernels and not any("optnone" in functions[k] for k in kernels)


def test_opt_level_zero_runs_no_extraction(text):
    functions = defined(optimized_ir(text, 0))
    assert not any(".extracted" in n for n in functions)


def test_results_equal_at_every_opt_level(text, tmp_path):
    a, b = torch.randn(64), torch.randn(64)
    s, t = torch.randn(()), torch.randn(())
    keys = set()
    for level in range(4):
        lib = compile_llvm_module(text, opt_level=level, cache_dir=tmp_path)
        keys.add(lib.key)
        layers = lib.function("layers", ["memref<64xf32>"] * 2, ["memref<64xf32>"])
        scalar = lib.function("scalar", ["memref<f32>"] * 2, ["memref<f32>"])
        assert torch.equal(layers(a, b)[0], (a + b + b) * (a + b)), level
        assert torch.equal(scalar(s, t)[0], s * t - t), level
    assert len(keys) == 4


def test_functions_marked_as_glue_are_left_unoptimized_too(text):
    # what aten-outline-repeated-blocks makes of a layer: glue of its own, called per layer
    header = 'llvm.func @layers_block0(%arg0: i64) attributes {aten.glue, sym_visibility = "p"} {'
    glue = native._GLUE.findall(header)
    assert glue == ["layers_block0"]
    flags = codegen.opt_flags(2, native._CIFACE.findall(text), glue)
    assert {f"-force-attribute=layers_block0:{a}" for a in ("optnone", "noinline")} <= set(flags)


def test_split_code_generation_gives_the_same_library(text, tmp_path, monkeypatch):
    ran = []
    run = codegen._run

    def recording(command, stdin=None):
        ran.append(command[0])
        return run(command, stdin)

    monkeypatch.setattr(codegen, "SPLIT_BYTES", 0)
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    monkeypatch.setattr(codegen, "_run", recording)
    lib = compile_llvm_module(text, opt_level=2, cache_dir=tmp_path)
    assert any(c.endswith("llvm-split") for c in ran)
    a, b = torch.randn(64), torch.randn(64)
    layers = lib.function("layers", ["memref<64xf32>"] * 2, ["memref<64xf32>"])
    assert torch.equal(layers(a, b)[0], (a + b + b) * (a + b))


def test_amx_tiles_across_an_extracted_loop_build_without_extraction():
    # a bf16 grad-weight product [16, 27] whose tile loops fold away: its k loop, top level in
    # the segment, carries x86_amx tiles, and loop-extract would make a function of it that
    # the verifier rejects (opt aborted): the build runs opt again without the extraction
    from aten_mlir.backends.cpu.target import request_amx

    if not request_amx():
        pytest.skip("no AMX on this host")
    args = (
        torch.randn(8, 16, 16, 16, dtype=torch.bfloat16),
        torch.randn(8, 3, 16, 16, dtype=torch.bfloat16),
        torch.randn(16, 3, 3, 3, dtype=torch.bfloat16),
    )

    class GradWeight(torch.nn.Module):
        def forward(self, g, x, w):
            conv = torch.ops.aten.convolution_backward
            return conv(g, x, w, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [0, 1, 1])[1:]

    compiled = aten_mlir.compile(torch.export.export(GradWeight(), args), cache=False)
    for ours, eager in zip(compiled(*args), GradWeight()(*args)):
        torch.testing.assert_close(ours.float(), eager.float(), rtol=1e-2, atol=1e-2)


def test_a_failing_tool_leaves_a_repro(tmp_path):
    with pytest.raises(native.NativeBuildError) as failure:
        codegen.objects(b"define void @f() { not llvm }", [], 2, [], [], tmp_path)
    command = failure.value.repro.split()
    assert command[0].endswith("opt") and Path(command[-3]).read_bytes().startswith(b"define")
    with pytest.raises(native.NativeBuildError, match="opt failed"):
        codegen._run(command)


def _split_optimize(text: str, work: Path, monkeypatch) -> list[Path]:
    """`codegen._optimize` on `text`'s LLVM IR as a large module on two cores."""
    monkeypatch.setattr(codegen, "OPT_SPLIT_BYTES", 0)
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    functions, glue = native._CIFACE.findall(text), native._GLUE.findall(text)
    translate = [native._tool("mlir", "mlir-translate"), "--mlir-to-llvmir"]
    llvm_ir = native._run(translate, text.encode())
    return codegen._optimize(llvm_ir, codegen.opt_flags(2, functions, glue), [], 2, work)


def test_split_optimization_keeps_merged_kernels_and_unoptimized_glue(text, tmp_path, monkeypatch):
    parts = _split_optimize(text, tmp_path, monkeypatch)
    assert len(parts) == 2
    dis = native._tool("llvm", "llvm-dis")
    texts = [native._run([dis, str(p), "-o", "-"]).decode() for p in parts]
    functions = {name: attrs for t in texts for name, attrs in defined(t).items()}
    # every function defined once over the parts, each kernel with all of its callers
    assert sum(len(defined(t)) for t in texts) == len(functions)
    for glue in ("layers", "_mlir_ciface_layers", "scalar", "_mlir_ciface_scalar"):
        assert "optnone" in functions[glue], (glue, functions[glue])
    kernels = [n for n in functions if ".extracted" in n]
    assert len(kernels) == 2 and not any("optnone" in functions[k] for k in kernels)
    for t in texts:  # a kernel called from a part is defined in it: kernels stay internal
        called = {c for c in re.findall(r"call [^@]*@([\w.]+)\(", t) if ".extracted" in c}
        assert called <= set(defined(t)), called


def test_split_optimization_gives_the_same_results(text, tmp_path, monkeypatch):
    ran = []
    run_all = codegen._run_all

    def recording(commands):
        ran.extend(c[:2] for c in commands)
        return run_all(commands)

    monkeypatch.setattr(codegen, "OPT_SPLIT_BYTES", 0)
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    monkeypatch.setattr(codegen, "_run_all", recording)
    lib = compile_llvm_module(text, opt_level=2, cache_dir=tmp_path)
    kernels = f"-passes=default<O{codegen.KERNEL_LEVELS[2]}>"
    assert sum(c[0].endswith("opt") and c[1] == kernels for c in ran) == 2
    assert sum(c[0].endswith("llc") for c in ran) == 2
    a, b = torch.randn(64), torch.randn(64)
    s, t = torch.randn(()), torch.randn(())
    layers = lib.function("layers", ["memref<64xf32>"] * 2, ["memref<64xf32>"])
    scalar = lib.function("scalar", ["memref<f32>"] * 2, ["memref<f32>"])
    assert torch.equal(layers(a, b)[0], (a + b + b) * (a + b))
    assert torch.equal(scalar(s, t)[0], s * t - t)


@pytest.mark.parametrize("tool", ["opt", "llc"])
def test_a_failing_part_leaves_a_repro_of_that_part(text, tmp_path, monkeypatch, tool):
    run_all = codegen._run_all

    def damaging(commands):  # the second part's input is not bitcode
        if commands[0][0].endswith(tool):
            Path(commands[1][-3] if tool == "opt" else commands[1][-1]).write_bytes(b"junk")
        return run_all(commands)

    monkeypatch.setattr(codegen, "OPT_SPLIT_BYTES", 0)
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    monkeypatch.setattr(codegen, "_run_all", damaging)
    functions = native._CIFACE.findall(text)
    translate = [native._tool("mlir", "mlir-translate"), "--mlir-to-llvmir"]
    llvm_ir = native._run(translate, text.encode())
    with pytest.raises(native.NativeBuildError, match=f"{tool} failed") as failure:
        codegen.objects(llvm_ir, [], 2, functions, [], tmp_path)
    command = failure.value.repro.split()
    assert command[0].endswith(tool) and Path(command[-3]).read_bytes() == b"junk"
    with pytest.raises(native.NativeBuildError, match=f"{tool} failed"):
        codegen._run(command)


def test_llc_runs_without_loop_strength_reduction_and_results_are_unchanged(
    text, tmp_path, monkeypatch
):
    commands = []
    run_all = codegen._run_all

    def recording(batch):
        commands.extend(batch)
        return run_all(batch)

    monkeypatch.setattr(codegen, "_run_all", recording)
    a, b = torch.randn(64), torch.randn(64)
    results = []
    for flags, where in ((codegen.LLC_FLAGS, "without"), ((), "with")):
        monkeypatch.setattr(codegen, "LLC_FLAGS", flags)
        lib = compile_llvm_module(text, opt_level=2, cache_dir=tmp_path / where)
        layers = lib.function("layers", ["memref<64xf32>"] * 2, ["memref<64xf32>"])
        results.append(layers(a, b)[0])
    llc = [c for c in commands if Path(c[0]).name == "llc"]
    assert llc and all(("-disable-lsr" in c) == (i < len(llc) // 2) for i, c in enumerate(llc))
    assert torch.equal(results[0], results[1])
    assert torch.equal(results[0], (a + b + b) * (a + b))


def test_kernels_run_llvm_o1_at_the_default_level_and_o3_at_3(text, tmp_path, monkeypatch):
    commands = []
    run, run_all = codegen._run, codegen._run_all
    monkeypatch.setattr(codegen, "_run", lambda c, *a: commands.append(c) or run(c, *a))
    monkeypatch.setattr(codegen, "_run_all", lambda cs: commands.extend(cs) or run_all(cs))
    monkeypatch.setattr(codegen, "OPT_SPLIT_BYTES", 0)  # the split pipeline too
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    a, b = torch.randn(64), torch.randn(64)
    for level, pipeline in ((2, "default<O1>"), (3, "default<O3>")):
        commands.clear()
        lib = compile_llvm_module(text, opt_level=level, cache_dir=tmp_path / str(level))
        passes = [a for c in commands if Path(c[0]).name == "opt" for a in c if "-passes" in a]
        assert passes and all(p.endswith(",forceattrs") or pipeline in p for p in passes), passes
        assert any(p == f"-passes={pipeline}" for p in passes), passes  # the parts
        layers = lib.function("layers", ["memref<64xf32>"] * 2, ["memref<64xf32>"])
        assert torch.equal(layers(a, b)[0], (a + b + b) * (a + b))


# %y is used before the instruction defining it: it parses, only the verifier rejects it
UNDOMINATED = b"""
define i32 @f(i32 %a) {
  %x = add i32 %y, 1
  %y = add i32 %a, 1
  ret i32 %x
}
"""


def test_parts_skip_the_verifier_the_whole_module_and_llc_run(text, tmp_path, monkeypatch):
    commands = []
    run, run_all = codegen._run, codegen._run_all
    monkeypatch.setattr(codegen, "_run", lambda c, *a: commands.append(c) or run(c, *a))
    monkeypatch.setattr(codegen, "_run_all", lambda cs: commands.extend(cs) or run_all(cs))
    monkeypatch.setattr(codegen, "OPT_SPLIT_BYTES", 0)
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    lib = compile_llvm_module(text, opt_level=2, cache_dir=tmp_path)
    opt = [c for c in commands if Path(c[0]).name == "opt"]
    parts = [c for c in opt if "-passes=default<O1>" in c]
    assert len(parts) == 2 and all("-disable-verify" in c for c in parts)
    assert len(opt) == 3 and "-disable-verify" not in opt[0]  # the whole module's, verified
    llc = [c for c in commands if Path(c[0]).name == "llc"]
    assert len(llc) == 2 and not any("-disable-verify" in c for c in llc)
    a, b = torch.randn(64), torch.randn(64)
    layers = lib.function("layers", ["memref<64xf32>"] * 2, ["memref<64xf32>"])
    assert torch.equal(layers(a, b)[0], (a + b + b) * (a + b))


@pytest.mark.parametrize("split", [True, False])
def test_invalid_ir_is_refused_by_the_verifier(tmp_path, monkeypatch, split):
    monkeypatch.setattr(codegen, "OPT_SPLIT_BYTES", 0 if split else 1 << 40)
    monkeypatch.setattr(codegen, "_cores", lambda: 2)
    with pytest.raises(native.NativeBuildError, match="does not dominate") as failure:
        codegen.objects(UNDOMINATED, [], 2, ["f"], [], tmp_path)
    assert Path(failure.value.repro.split()[0]).name == "opt"
