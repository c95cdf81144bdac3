"""Differential fuzzer: random programs compiled by aten_mlir vs eager PyTorch (see runner.py)."""
