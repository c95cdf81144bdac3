"""Every bench workload by name, in report order: the small static float32 set, the dynamic set,
the bf16 set, the realistic set and the training steps (`bench/workload.py` says what a
workload is)."""

from __future__ import annotations

from . import bf16, dynamic, realistic, small, training
from .workload import SETS, Workload, io_bytes

__all__ = ["SETS", "WORKLOADS", "Workload", "in_set", "io_bytes"]

WORKLOADS: dict[str, Workload] = {
    w.name: w for family in (small, dynamic, bf16, realistic, training) for w in family.WORKLOADS
}


def in_set(name: str) -> list[str]:
    """The workload names of a set ("all": every one)."""
    return [n for n, w in WORKLOADS.items() if name in ("all", w.group)]
