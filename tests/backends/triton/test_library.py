"""The generated Triton module runs only text we generated (`backends/triton/host/library.py`,
`module_files.py`, `source_text.py`): program strings (module names, stack traces, node names,
also from a `.pt2` file) cannot add code to it, and a file planted where it is written is
never imported."""

from __future__ import annotations

import builtins
import inspect
import os
import stat
import tempfile
from pathlib import Path

import pytest
import torch

import aten_mlir
from aten_mlir.backends.triton.codegen import source_text
from aten_mlir.backends.triton.host import module_files

MARKER = "ATEN_MLIR_PAYLOAD_RAN"
# each line a payload if it ever starts a line of the module (no dots: torch forbids them in
# module names); the quotes and triple quotes would end a string literal the name was put in
PAYLOAD = f'x\nsetattr(__import__("builtins"), "{MARKER}", 1)\n#\'"""\r\x0c\u2028\x00'


class Evil(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.add_module(PAYLOAD, torch.nn.Linear(4, 4))

    def forward(self, x):
        return torch.relu(getattr(self, PAYLOAD)(x)) * 2 + x.amax(-1, keepdim=True)


@pytest.fixture(autouse=True)
def _no_marker():
    if hasattr(builtins, MARKER):
        delattr(builtins, MARKER)
    yield
    assert not hasattr(builtins, MARKER), "a program string ran as code"


def _check(compiled, args, eager) -> None:
    torch.testing.assert_close(compiled(*args), eager)
    source = compiled.library.source
    assert MARKER in source  # the name is there, escaped inside one comment line
    for line in source.splitlines():
        assert MARKER not in line or line.startswith("# "), line
    compile(source, "<check>", "exec")  # and the module is still valid Python


def test_submodule_names_stay_in_comments():
    model, x = Evil(), torch.randn(2, 4)
    compiled = aten_mlir.compile(torch.export.export(model, (x,)), target="triton")
    _check(compiled, (x,), model(x))


def _plant_strings(ep) -> None:
    """Stack traces and module paths of every node carry the payload (what a crafted `.pt2`
    can hold)."""
    for node in ep.graph.nodes:
        if node.op == "call_function":
            node.meta["stack_trace"] = f'  File "{PAYLOAD}.py", line 3, in forward\n    x\n'
            node.meta["nn_module_stack"] = {PAYLOAD: (PAYLOAD, "torch.nn.Linear")}


def test_pt2_metadata_stays_in_comments(tmp_path):
    model, x = Evil(), torch.randn(2, 4)
    ep = torch.export.export(model, (x,))
    _plant_strings(ep)
    torch.export.save(ep, tmp_path / "evil.pt2")
    loaded = torch.export.load(tmp_path / "evil.pt2")
    traces = [n.meta.get("stack_trace") or "" for n in loaded.graph.nodes]
    assert any(MARKER in t for t in traces)  # the strings survive the file
    compiled = aten_mlir.compile(loaded, target="triton", cache_dir=tmp_path / "cache")
    _check(compiled, (x,), model(x))


def test_comment_is_one_escaped_line():
    line = source_text.comment(PAYLOAD)
    assert line.startswith("# ") and len(line.splitlines()) == 1
    assert all(" " <= c <= "~" for c in line)
    assert len(source_text.comment("a" * 10_000)) < 300


@pytest.mark.parametrize(
    "symbol, name",
    [("segment0", "run_segment0"), ("a b", "run3"), ("x\nimport os", "run3"), ("ｍain", "run3")],
)
def test_launcher_names(symbol, name):
    assert source_text.launcher_name(symbol, 3) == name


def test_planted_file_is_not_imported(tmp_path):
    """A file waiting at the path the module is written to (or at the old shared path) is
    replaced, and the module runs from the text we generated either way."""
    fn = torch.nn.Module()
    fn.forward = lambda x: x * 3
    x = torch.randn(5)
    ep = torch.export.export(fn, (x,))
    first = aten_mlir.compile(ep, target="triton", cache_dir=tmp_path)
    planted = f'import builtins\nsetattr(builtins, "{MARKER}", 1)\n'
    first.library.path.write_text(planted)
    old = Path(tempfile.gettempdir()) / "aten_mlir_triton" / "triton" / first.library.path.name
    if os.access(old.parent.parent, os.W_OK) or not old.parent.parent.exists():
        old.parent.mkdir(parents=True, exist_ok=True)
        old.write_text(planted)
    for cache_dir in (tmp_path, None):
        again = aten_mlir.compile(ep, target="triton", cache_dir=cache_dir)
        torch.testing.assert_close(again(x), x * 3)
        assert again.library.path.read_text() == again.library.source
    if old.exists():
        old.unlink()


def test_private_dir_is_checked(tmp_path):
    shared = tmp_path / "shared"
    (shared / "triton").mkdir(parents=True)
    os.chmod(shared / "triton", 0o777)  # another user could write here
    with pytest.warns(UserWarning, match="not a private directory"):
        module_files._fallback = None
        d = module_files.private_dir(shared)
    assert d != shared / "triton" and stat.S_IMODE(os.lstat(d).st_mode) == 0o700
    module_files._fallback = None
    (tmp_path / "elsewhere" / "triton").mkdir(parents=True)
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "triton").symlink_to(tmp_path / "elsewhere" / "triton")
    with pytest.warns(UserWarning, match="not a private directory"):
        assert module_files.private_dir(tmp_path / "linked") != tmp_path / "linked" / "triton"
    mine = module_files.private_dir(tmp_path / "mine")
    assert mine == tmp_path / "mine" / "triton"
    assert stat.S_IMODE(os.lstat(mine).st_mode) & 0o077 == 0


def test_default_dir_is_private():
    d = module_files.private_dir(None)
    st = os.lstat(d)
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077 == 0
    assert st.st_uid == os.getuid()


def test_kernel_source_is_served_from_memory(tmp_path):
    """Triton reads a kernel's source through `inspect`: it comes from the text we hold, not
    from the file, which may have changed since."""
    fn = torch.nn.Module()
    fn.forward = lambda x: torch.sin(x) + 1
    x = torch.randn(7)
    compiled = aten_mlir.compile(torch.export.export(fn, (x,)), target="triton", cache_dir=tmp_path)
    compiled.library.path.write_text("# replaced\n")
    kernel = getattr(compiled.library.module, compiled.library.kernels[0].name)
    text = inspect.getsource(getattr(kernel, "fn", kernel))
    assert f"def {compiled.library.kernels[0].name}(" in text
    torch.testing.assert_close(compiled(x), torch.sin(x) + 1)


def test_aot_compiles_from_the_generated_text():
    """`compile_for` executes the same text again with interpretation off (JIT functions whose
    source `inspect` serves from memory) and compiles every kernel for sm_90."""
    from triton.backends.compiler import GPUTarget

    model, x = Evil(), torch.randn(2, 4)
    compiled = aten_mlir.compile(torch.export.export(model, (x,)), target="triton")
    compiled.library.path.write_text("# replaced\n")
    out = compiled.library.compile_for(GPUTarget("cuda", 90, 32))
    assert set(out) == {k.name for k in compiled.library.kernels}
    assert all("cubin" in asm for asm in out.values())
