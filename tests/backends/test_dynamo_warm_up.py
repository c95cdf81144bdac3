"""The backend's background build of a cache directory's support artifacts (backends/warm_up.py):
what it builds, that a compile after it reuses them, and that its failures stay silent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from aten_mlir.backends import dynamo, warm_up
from aten_mlir.backends.cpu import threads
from aten_mlir.tests.support.dynamo import fresh_dynamo

ROOT = Path(__file__).resolve().parents[2]


def _artifacts(directory):
    support = directory / "support"
    return sorted(p.name for p in support.iterdir()) if support.exists() else []


def test_builds_the_pool_and_the_support_object_once(tmp_path):
    warm_up.start(tmp_path)
    warm_up.start(tmp_path)  # a second start of the same directory is a no-op
    warm_up.wait()
    names = _artifacts(tmp_path)
    assert any(n.startswith("threads-") and n.endswith(".so") for n in names), names
    assert any(n.startswith("runtime_support-") and n.endswith(".o") for n in names), names
    assert sum(n.endswith(".sha256") for n in names) == 2, names


def test_a_compile_after_it_reuses_the_artifacts_and_matches_eager(tmp_path, monkeypatch):
    built = []
    inner = threads._compile

    def spy(out):
        built.append(out)
        return inner(out)

    monkeypatch.setattr(threads, "_compile", spy)
    model = torch.nn.Sequential(torch.nn.Linear(7, 17), torch.nn.GELU(), torch.nn.Linear(17, 3))
    x = torch.randn(5, 7, requires_grad=True)
    with fresh_dynamo():
        compiled = torch.compile(
            model, backend=dynamo.aten_mlir_backend, options={"cache_dir": str(tmp_path)}
        )
        got = compiled(x)
        got.sum().backward()
    want_x = x.detach().clone().requires_grad_()
    want = model(want_x)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert len(built) == 1  # the pool: built once, by the warm-up, not again by the compile
    names = _artifacts(tmp_path)
    assert sum(n.startswith("runtime_support-") for n in names) == 2  # the object, its hash


def test_a_failing_build_is_silent_and_left_to_the_compile(tmp_path, monkeypatch):
    def broken(out):
        raise RuntimeError("no compiler today")

    monkeypatch.setattr(threads, "_compile", broken)
    warm_up.start(tmp_path)
    warm_up.wait()  # no exception
    assert not any(n.startswith("threads-") for n in _artifacts(tmp_path))


# In a fresh interpreter (the test process may have imported the passes already): which pass
# modules of the CPU stages are missing before and after `wait()`.
IMPORT_CHILD = """
import re, sys
from aten_mlir.backends import warm_up
from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.pass_table import PASS_MODULES
named = {
    module for name, module in PASS_MODULES.items() for s in CPU_STAGES
    if re.search(rf"(^|[,(]){name}($|[,){{])", s.pipeline)
}
before = sorted(m for m in named if m not in sys.modules)
warm_up.wait()
print(len(named), len(before), sorted(m for m in named if m not in sys.modules))
"""


def test_wait_imports_the_cpu_stages_passes_before_a_compile_forks():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_CHILD], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    named, missing_before, missing_after = done.stdout.split(" ", 2)
    assert int(named) > 10 and int(missing_before) > 0  # the child would have imported them
    assert missing_after.strip() == "[]"


def test_the_directory_it_creates_is_private_to_its_user(tmp_path):
    warm_up.start(tmp_path / "new")
    warm_up.wait()
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    assert any(n.startswith("threads-") for n in _artifacts(tmp_path / "new"))


# In a fresh interpreter: whether this process asked LLVM about the host target (cached by
# `target._host`) after a warm-up, and after a compile whose stages ran in a forked child.
PROBE_CHILD = """
import sys, tempfile
import torch
import aten_mlir
from aten_mlir.backends import warm_up
from aten_mlir.backends.cpu import target
how = sys.argv[1]
if how == "warm-up":
    warm_up.start(tempfile.mkdtemp())
    warm_up.wait()
else:
    ep = torch.export.export(torch.nn.Linear(8, 3), (torch.randn(5, 8),))
    x = torch.randn(5, 8)
    got = aten_mlir.compile(ep, cache_dir=tempfile.mkdtemp())(x)
    torch.testing.assert_close(got, ep.module()(x))
print(target._host.cache_info().currsize, target._llvm_features.cache_info().currsize)
"""


@pytest.mark.parametrize("how", ["warm-up", "compile"])
def test_the_target_is_probed_before_the_lowering_children_fork(how):
    done = subprocess.run(
        [sys.executable, "-c", PROBE_CHILD, how],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "1"]  # the children inherit the answers
