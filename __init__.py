"""aten-mlir: torch.export programs -> an ATen MLIR dialect -> linalg -> loops -> CPU / Triton."""
