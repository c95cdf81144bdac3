"""Tensors that end at a guard page, and running code that may crash in a child process.

A lowering that reads one element past a buffer usually returns garbage instead of crashing;
a copy of the input whose last element ends right before a PROT_NONE page turns that read into
a segfault, and running the call in a subprocess turns the segfault into a failed assertion
instead of a dead test runner.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import subprocess
import sys

import torch


def guarded_copy(t: torch.Tensor):
    """(`t` copied into memory that ends right before a PROT_NONE page, the mapping to keep
    alive): any read or write past the last element faults."""
    t = t.contiguous()
    page = mmap.PAGESIZE
    nbytes = t.numel() * t.element_size()
    size = -(-(nbytes + t.element_size()) // page) * page
    buf = mmap.mmap(-1, size + page)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    assert ctypes.CDLL(None).mprotect(ctypes.c_void_p(address + size), page, 0) == 0
    # one element more than needed, dropped: an empty tensor still points at the guard page
    item = t.element_size()
    raw = torch.frombuffer(buf, dtype=t.dtype, count=t.numel() + 1, offset=size - nbytes - item)
    out = raw[1:].view(t.shape)
    out.copy_(t)
    return out, buf


def run_isolated(code: str, env: dict | None = None, timeout: float = 900):
    """Runs `code` with `python -c`; returns the CompletedProcess (a segfault is returncode
    -11, never a dead test runner)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )
