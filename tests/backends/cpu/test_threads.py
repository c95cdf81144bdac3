"""The thread pool of compiled code (`threads.c`): shares, thread count, no threads at one.

Each test runs in a fresh interpreter: the pool is per process and keeps its workers."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

COMPILE = """
import torch, aten_mlir
from aten_mlir.backends.cpu import threads
from tests.modules import Fn
a, b = torch.randn(1024, 320), torch.randn(320, 384)  # 8 blocks of rows: loops of >= 3 shares
compiled = aten_mlir.compile(torch.export.export(Fn(lambda a, b: a @ b), (a, b)), target="cpu")
"""

POOL = """
import ctypes
from aten_mlir.backends.cpu import threads
lib = threads.load()
threads.share_openmp(False)  # the pool's own threads (the shared team: test_shared_openmp_team)
BODY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
lib.aten_mlir_parallel_for.argtypes = [BODY, ctypes.c_void_p, ctypes.c_int64]
shares = []
body = BODY(lambda ctx, begin, end: shares.append((begin, end)))
"""


def _run(code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parents[3],  # the repository root: `tests.modules`
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_one_thread_creates_no_thread():
    _run(
        COMPILE
        + """
torch.set_num_threads(1)
for _ in range(3):
    torch.testing.assert_close(compiled(a, b), a @ b, atol=1e-4, rtol=1e-4)
assert threads.num_threads() == 1
assert threads.workers_started() == 0
"""
    )


def test_thread_count_follows_torch():
    _run(
        COMPILE
        + """
torch.set_num_threads(1)
one = compiled(a, b)
torch.set_num_threads(3)
three = compiled(a, b)
# torch's own OpenMP team runs the loops (libgomp is loaded with torch): no threads of ours
assert threads.num_threads() == 3 and threads.workers_started() == 0
threads.share_openmp(False)
assert torch.equal(compiled(a, b), three) and threads.workers_started() == 2
threads.share_openmp(True)
torch.set_num_threads(2)
two = compiled(a, b)
assert threads.num_threads() == 2
assert torch.equal(one, two) and torch.equal(one, three)
"""
    )


def test_shares_cover_the_range_once():
    _run(
        POOL
        + """
def covered(n):
    ranges = sorted(shares)
    shares.clear()
    bounds = [b for r in ranges for b in r]
    return all(b < e for b, e in ranges) and bounds[0] == 0 and bounds[-1] == n and all(
        e == b for e, b in zip(bounds[1::2], bounds[2::2])
    )
threads.set_num_threads(3)
for n in (1, 2, 10, 1000, 100003):  # fewer trips than threads, than chunks, many more
    lib.aten_mlir_parallel_for(body, None, n)
    assert covered(n), n
threads.set_num_threads(1)
lib.aten_mlir_parallel_for(body, None, 5)
assert shares == [(0, 5)], shares
"""
    )


def test_nested_loops_run_serially():
    _run(
        POOL
        + """
inner = []
inner_body = BODY(lambda ctx, begin, end: inner.append((begin, end)))
def outer(ctx, begin, end):
    lib.aten_mlir_parallel_for(inner_body, None, 4)
outer_body = BODY(outer)
threads.set_num_threads(2)
lib.aten_mlir_parallel_for(outer_body, None, 2)
assert inner == [(0, 4), (0, 4)], inner
"""
    )


def test_forked_child_starts_its_own_workers():
    _run(
        POOL
        + """
import os
threads.set_num_threads(2)
lib.aten_mlir_parallel_for(body, None, 8)
pid = os.fork()
if pid == 0:
    shares.clear()
    lib.aten_mlir_parallel_for(body, None, 8)
    os._exit(0 if sorted(shares) == [(k, k + 1) for k in range(8)] else 1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
"""
    )


def test_without_any_c_compiler_the_jit_runs_outlined_loops_serially():
    _run(
        """
        import os, tempfile, torch, aten_mlir
        from aten_mlir.backends.cpu import link, threads
        os.environ["ATEN_MLIR_CACHE_DIR"] = tempfile.mkdtemp()  # no pool built before
        from tests.modules import Fn
        link._which = lambda name: None  # no linker: the in-process JIT
        threads.shutil.which = lambda name: None  # and no compiler for the pool
        torch.set_num_threads(2)
        a, b = torch.randn(256, 320), torch.randn(320, 384)
        ep = torch.export.export(Fn(lambda a, b: a @ b), (a, b))
        compiled = aten_mlir.compile(ep, target="cpu", cache=False, dump_dir=None)
        assert not compiled.library.cached
        torch.testing.assert_close(compiled(a, b), a @ b, rtol=1e-4, atol=1e-4)
        assert threads.load_if_possible() is None
        """
    )


def test_loops_share_torchs_openmp_team():
    _run(
        POOL
        + """
assert threads.share_openmp(True)  # torch's libgomp is in the process
for count in (2, 3):
    threads.set_num_threads(count)
    for n in (1, 2, 10, 1001):
        lib.aten_mlir_parallel_for(body, None, n)
        ranges = sorted(shares)
        shares.clear()
        # chunks claimed by the team's members: 8 per thread (a preempted member holds one)
        assert len(ranges) == min(8 * count, n), (count, n, ranges)
        assert ranges[0][0] == 0 and ranges[-1][1] == n, ranges
        assert all(e == b for (_, e), (b, _) in zip(ranges, ranges[1:])), ranges
inner = []
inner_body = BODY(lambda ctx, begin, end: inner.append((begin, end)))
outer_body = BODY(lambda ctx, begin, end: lib.aten_mlir_parallel_for(inner_body, None, 4))
lib.aten_mlir_parallel_for(outer_body, None, 2)
assert inner == [(0, 4), (0, 4)], inner  # nested: serial inside each member
assert threads.workers_started() == 0
"""
    )
