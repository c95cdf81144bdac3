"""The bench's table: one line per row (workload, size, thread count), then the geomeans per set
and overall, the dynamic cost, cold compile times, and every failure or mismatch.

Columns: times in ms (median of alternating samples); `x eager` / `x ind` = the other's time over
aten-mlir's (above 1: aten-mlir is faster); `rate` = aten-mlir's GFLOP/s or GB/s; `%lim` = that
rate over the workload's limit measured in the same run (f32 FMA peak x threads, bf16: the bf16
matmul rate, bytes: the copy bandwidth); `dyn/st` = aten-mlir's dynamic compile's time over a
static compile at the same size; `rel err` = max |ours - eager| / max |eager|.
"""

from __future__ import annotations

import math

from .workload import SETS

HEADER = (
    f"{'workload':20}{'size':>10}{'thr':>4}{'eager ms':>10}{'ind ms':>10}{'ours ms':>10}"
    f"{'x eager':>8}{'x ind':>7}{'rate':>14}{'%lim':>6}{'dyn/st':>7}{'rel err':>9}"
    f"  {'compile s ours/ind':<19}notes"
)


def limit_of(row: dict, limits: dict) -> tuple[float, str] | None:
    """(the limit in the rate's unit, the unit) for this row, or None."""
    at = limits.get(row["threads"])
    if not at:
        return None
    if "flops" in row:
        if row.get("group") == "bf16" and "bf16_gflops" in at:
            return at["bf16_gflops"], "GFLOP/s"
        if "fma_core_gflops" in at:
            return at["fma_core_gflops"] * at["threads"], "GFLOP/s"
        return None
    if "bytes" in row:
        return at["copy_gbps"], "GB/s"
    return None


def rate(row: dict) -> tuple[float, str] | None:
    ours = row.get("seconds", {}).get("aten_mlir")
    if not ours:
        return None
    if "flops" in row:
        return row["flops"] / ours / 1e9, "GFLOP/s"
    if "bytes" in row:
        return row["bytes"] / ours / 1e9, "GB/s"
    return None


def _ms(seconds: dict, key: str) -> str:
    return f"{seconds[key] * 1e3:.3f}" if key in seconds else "-"


def _ratio(seconds: dict, other: str, ours: str = "aten_mlir") -> str:
    if other in seconds and ours in seconds:
        return f"{seconds[other] / seconds[ours]:.2f}"
    return "-"


def _notes(row: dict) -> str:
    notes = [f"MISMATCH({','.join(row['mismatch'])})"] if row.get("mismatch") else []
    for name, ops in row.get("fallbacks", {}).items():
        notes.append(f"{name} falls back: {','.join(ops)[:60]}")
    for name, text in row.get("errors", {}).items():
        notes.append(f"{name} FAILED: {text[:140]}")
    return "; ".join(notes)


def line(row: dict, limits: dict) -> str:
    if "error" in row:  # the process itself failed
        return f"{row['workload']:20}{'':>10}{row['threads']:>4}  FAILED: {row['error'][-300:]}"
    s = row.get("seconds", {})
    r, lim = rate(row), limit_of(row, limits)
    rate_text = f"{r[0]:.1f} {r[1]}" if r else ""
    frac = f"{100 * r[0] / lim[0]:.0f}" if r and lim and lim[1] == r[1] else ""
    dyn = _ratio(s, "aten_mlir", "aten_mlir_static") if "aten_mlir_static" in s else ""
    # dyn/st is ours dynamic over ours static: the inverse of _ratio's convention
    if dyn and dyn != "-":
        dyn = f"{s['aten_mlir'] / s['aten_mlir_static']:.2f}"
    err = row.get("rel_error", {}).get("aten_mlir")
    c = row.get("compile_s", {})
    compile_text = (
        f"{c['aten_mlir']:.2f}/{c['inductor']:.2f}" if "aten_mlir" in c and "inductor" in c else ""
    )
    return (
        f"{row['workload']:20}{row.get('size', ''):>10}{row['threads']:>4}"
        f"{_ms(s, 'eager'):>10}{_ms(s, 'inductor'):>10}{_ms(s, 'aten_mlir'):>10}"
        f"{_ratio(s, 'eager'):>8}{_ratio(s, 'inductor'):>7}{rate_text:>14}{frac:>6}{dyn:>7}"
        f"{'' if err is None else f'{err:.1e}':>9}  {compile_text:<19}{_notes(row)}"
    )


def geomean(rows: list[dict], other: str, ours: str = "aten_mlir") -> tuple[float, int] | None:
    ratios = [
        r["seconds"][other] / r["seconds"][ours]
        for r in rows
        if other in r.get("seconds", {}) and ours in r.get("seconds", {})
    ]
    if not ratios:
        return None
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)), len(ratios)


def summary(rows: list[dict]) -> list[str]:
    out = []
    for threads in sorted({r["threads"] for r in rows}):
        at = [r for r in rows if r["threads"] == threads]
        for name in (*SETS, "all"):
            chosen = [r for r in at if name in ("all", r.get("group"))]
            e, i = geomean(chosen, "eager"), geomean(chosen, "inductor")
            if e is None:
                continue
            text = f"geomean {name:9} at {threads:>3} thread(s): {e[0]:.2f}x vs eager"
            text += f", {i[0]:.2f}x vs Inductor" if i else ""
            text += f" ({e[1]} rows)"
            if name == "dynamic":
                d = geomean(chosen, "aten_mlir_static")  # static time / dynamic time
                if d:
                    text += f"; dynamic/static time {1 / d[0]:.2f}"
            out.append(text)
    out += compile_lines(rows)
    bad = [r for r in rows if "error" in r or r.get("errors") or r.get("mismatch")]
    if bad:
        out.append(
            f"{len(bad)} row(s) with a failure or mismatch (see notes): "
            + ", ".join(sorted({r["workload"] for r in bad}))
        )
    return out


def compile_lines(rows: list[dict]) -> list[str]:
    """Cold compile seconds (each workload's first process: empty caches), aten-mlir / Inductor."""
    parts, seen = [], set()
    for row in rows:
        c = row.get("compile_s", {})
        if row["workload"] in seen or "aten_mlir" not in c or "inductor" not in c:
            continue
        seen.add(row["workload"])
        parts.append(
            f"{row['workload']} {c['aten_mlir']:.1f}/{c['inductor']:.1f}"
            f" ({c['aten_mlir'] / max(c['inductor'], 1e-9):.2f}x)"
        )
    return ["cold compile s, aten-mlir/Inductor: " + ", ".join(parts)] if parts else []
