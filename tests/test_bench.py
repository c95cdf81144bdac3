"""The bench's own logic: FLOP counting, the report's notes for failures and mismatches, the
set selection and the FMA-peak kernel (built through backends/cpu like our kernels)."""

from __future__ import annotations

import torch

from bench import nets, report
from bench.limits import fma_peak_gflops
from bench.workload import SETS, counted_flops
from bench.workloads import WORKLOADS, in_set


def test_counted_flops_counts_attention_products():
    q, k, v = torch.randn(2, 8, 33, 64), torch.randn(2, 8, 77, 64), torch.randn(2, 8, 77, 64)
    assert counted_flops(nets.Attention(), (q, k, v)) == 4 * 2 * 8 * 33 * 77 * 64
    layer = nets.TransformerLayer(64, 4, 128).eval()
    tokens = 3 * 5
    linear = 2 * tokens * (64 * 192 + 64 * 64 + 2 * 64 * 128)
    assert counted_flops(layer, (torch.randn(3, 5, 64),)) == linear + 4 * 3 * 4 * 5 * 5 * 16


def test_sets_cover_every_workload():
    assert sorted(n for s in SETS for n in in_set(s)) == sorted(WORKLOADS)
    assert all(in_set(s) for s in SETS)
    assert all(w.dynamic is not None for w in map(WORKLOADS.get, in_set("dynamic")))


def test_report_flags_failures_mismatches_and_limits():
    limits = {"1": {"threads": 1, "fma_core_gflops": 100.0, "copy_gbps": 10.0}}
    row = {
        "workload": "mlp",
        "group": "small",
        "threads": "1",
        "flops": 1e9,
        "seconds": {"eager": 0.02, "inductor": 0.01, "aten_mlir": 0.02},
        "rel_error": {"aten_mlir": 0.5},
        "mismatch": ["aten_mlir"],
        "errors": {"inductor": "call: RuntimeError: boom"},
        "compile_s": {"aten_mlir": 1.0, "inductor": 2.0},
    }
    text = report.line(row, limits)
    assert "50.0 GFLOP/s" in text and "   50" in text  # 50% of 100 GFLOP/s
    assert "MISMATCH(aten_mlir)" in text and "inductor FAILED: call: RuntimeError" in text
    crashed = report.line({"workload": "x", "threads": "1", "error": "Segfault"}, limits)
    assert "FAILED: Segfault" in crashed
    lines = report.summary([row])
    assert any("geomean small" in t and "1.00x vs eager, 0.50x vs Inductor" in t for t in lines)
    assert any("failure or mismatch" in t for t in lines)


def test_fma_peak_kernel_runs():
    assert fma_peak_gflops(8, seconds=0.02) > 0.5
