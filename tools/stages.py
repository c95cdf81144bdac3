"""The lowering stages `aten-opt --stage` runs: the CPU's (`backends.cpu.pipeline.CPU_STAGES`)
or Triton's (`backends.triton.pipeline.TRITON_STAGES`, with `--target triton`), by name or as a
range `first..last`."""

from __future__ import annotations

from .diagnostics import ToolError

TARGETS = ("cpu", "triton")


def _stages(target: str) -> list:
    from aten_mlir.backends.cpu.pipeline import CPU_STAGES
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    return {"cpu": CPU_STAGES, "triton": TRITON_STAGES}[target]


def target_of(specs: list[str]) -> str:
    """Triton when a named stage exists only there (`triton-loops`), else the CPU."""
    cpu = {s.name for s in _stages("cpu")}
    named = {n for spec in specs for n in spec.split("..") if n}
    return "triton" if named - cpu and named <= {s.name for s in _stages("triton")} else "cpu"


def stage_pipeline(spec: str, target: str = "cpu") -> str:
    """The pipeline text of a stage name or a range `first..last` of `target`'s stages."""
    stages = _stages(target)
    names = [s.name for s in stages]
    first, dots, last = spec.partition("..")
    if not dots:
        last = first
    for n in (first, last):
        if n and n not in names:
            raise ToolError(f"unknown {target} stage '{n}' (stages: {', '.join(names)})")
    lo = names.index(first) if first else 0
    hi = names.index(last) if last else len(names) - 1
    if lo > hi:
        raise ToolError(f"stage range '{spec}' is empty: '{first}' comes after '{last}'")
    return ",".join(s.pipeline for s in stages[lo : hi + 1])


def list_stages(target: str = "cpu") -> str:
    lines = [
        f"{target} lowering stages, in order (aten-opt --target {target} --stage NAME, or "
        "--stage FIRST..LAST):",
        "",
    ]
    for s in _stages(target):
        lines += [f"  {s.name}", f"      {s.summary}", f"      pipeline: {s.pipeline}"]
    return "\n".join(lines)
