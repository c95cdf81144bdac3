"""Kernel count and bytes moved per model on the Triton backend, against the ideal.

    python -m bench.triton_report [--models bert,gpt2] [--kernels]

Runs each model once (in Triton's interpreter when there is no GPU) with every launch traced
(`backends/triton/host/traffic.py`): kernels generated, launches, bytes loaded + stored, the ideal
(inputs and state read once, outputs written once, matmul intermediates written and read once)
and their ratio. `--kernels` also lists each launch with its bytes and the aten ops fused in.
"""

from __future__ import annotations

import argparse


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--kernels", action="store_true", help="list every launch")
    args = parser.parse_args(argv)
    import torch

    import aten_mlir
    from aten_mlir.backends.triton.host.traffic import report
    from tests.models.model_zoo import MODEL_ZOO

    names = args.models.split(",") if args.models else list(MODEL_ZOO)
    print(f"{'model':14}{'kernels':>8}{'launches':>9}{'moved':>12}{'ideal':>12}{'ratio':>7}")
    for name in names:
        model, inputs, _ = MODEL_ZOO[name].build()
        ep = torch.export.export(model, inputs, strict=False)
        compiled = aten_mlir.compile(ep, target="triton")
        r = report(compiled, *inputs)
        print(
            f"{name:14}{r['kernels']:>8}{r['launches']:>9}{r['bytes_moved']:>12,}"
            f"{r['bytes_ideal']:>12,}{r['ratio']:>7.2f}"
        )
        if args.kernels:
            for launch in r["per_kernel"]:
                ops = "; ".join(launch.ops)[:90]
                print(f"    {launch.kernel:28}{launch.read:>11,}{launch.written:>11,}  {ops}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
