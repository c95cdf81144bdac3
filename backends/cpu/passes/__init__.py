"""The CPU target's passes: the `cpu-*` passes its stages (`backends/cpu/pipeline.py`) run, and
the vector kernels and loop analyses they build on.

- `contractions`, `kernels`, `conv`: `cpu-vectorize-contractions` (matmul-like contractions and
  convs -> register-tiled vector micro-kernels).
- `copies`, `vectorize`, `vectorize_plan`, `bf16_rounding`: `cpu-copies-to-generics`,
  `cpu-vectorize-generics` (elementwise and reduction generics -> loops over vectors).
- `fuse_row_nests`: `cpu-fuse-row-nests`; `row_buffers`: `cpu-contract-row-buffers`;
  `row_reuse`: `cpu-reuse-dead-rows`; `narrow_extrema`: `cpu-narrow-extrema`;
  `row_pairs`: `cpu-pair-rows`;
  `parallelize`, `parallel_deps`:
  `cpu-parallelize-loops` (independent outer loops -> thread-pool calls).
- `outline_nests`, `c_interface`, `fast_math`, `accurate_math`, `bf16_extrema`: the llvm
  stage's `cpu-outline-loop-nests`, `cpu-emit-c-interface`, `cpu-fast-math`,
  `cpu-accurate-math`, `cpu-exact-bf16-extrema`.

The room may import the pass registry and the shared IR helpers of `aten_mlir.passes`, and
`mlir`; never `backends/triton`, and nothing of `passes/` imports it. Each pass has its line
in `aten_mlir/pass_table.py` (pass name -> module), which imports the module on first use.
"""
