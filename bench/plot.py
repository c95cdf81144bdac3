"""`python -m bench --plot out.png`: a bar chart of aten-mlir's speedups over eager and Inductor."""

from __future__ import annotations


def plot(rows: list[dict], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install -e '.[bench]'") from None
    done = [r for r in rows if {"eager", "inductor", "aten_mlir"} <= set(r.get("seconds", {}))]
    labels = [f"{r['workload']} {r.get('size', '')} ({r['threads']})" for r in done]
    x = range(len(done))
    fig, ax = plt.subplots(figsize=(max(6, len(done) * 0.5), 4))
    for k, other in enumerate(("eager", "inductor")):
        speedups = [r["seconds"][other] / r["seconds"]["aten_mlir"] for r in done]
        ax.bar([i + 0.4 * k for i in x], speedups, width=0.4, label=f"vs {other}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")  # speedups and slowdowns alike: 0.1x is as far below 1 as 10x above
    ax.set_xticks([i + 0.2 for i in x], labels, rotation=60, ha="right")
    ax.set_ylabel("aten-mlir speedup (x)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
