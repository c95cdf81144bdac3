"""The host line at the top of the report: LLVM's host CPU name, the features the kernels use, the
vector width chosen, and whether the AMX / avx512_bf16 paths are on.

From `backends/cpu/target.py`'s `cpu_target().describe()` when that module exists; otherwise
from `llc --version` (its "Host CPU" line) and /proc/cpuinfo's flags, said so in the line.
"""

from __future__ import annotations

import os
import re

_VECTOR = ("avx", "amx", "fma", "f16c")
_FLAGS = ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_fp16")


def _cpuinfo_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            match = re.search(r"^flags\s*:\s*(.*)$", f.read(), re.M)
    except OSError:
        return set()
    return set(match.group(1).split()) if match else set()


def _llc_host_cpu() -> str:
    try:
        from aten_mlir.backends.cpu.tools import run, tool

        text = run([tool("llvm", "llc"), "--version"]).decode()
    except Exception:  # noqa: BLE001 - a report line, not a failure
        return "unknown"
    match = re.search(r"Host CPU:\s*(\S+)", text)
    return match.group(1) if match else "unknown"


def host_line() -> str:
    cores = f"{os.cpu_count()} cores"
    try:
        from aten_mlir.backends.cpu.target import cpu_target

        target = cpu_target()
        # the vector and matrix features the kernels can use (not cx16, sahf...)
        features = " ".join(sorted(f for f in target.features if f.startswith(_VECTOR)))
        flags = " ".join(target.llvm_flags())
        return f"host: {target.describe()}; llc/opt {flags}; features {features}; {cores}"
    except ImportError:
        pass
    except Exception as error:  # noqa: BLE001 - fall back to what LLVM and the kernel say
        cores += f" (cpu_target failed: {type(error).__name__}: {str(error)[:80]})"
    flags = _cpuinfo_flags()
    present = [f for f in _FLAGS if f in flags]
    width = 512 if "avx512f" in flags else 256 if "avx2" in flags else 128
    return (
        f"host: LLVM host CPU {_llc_host_cpu()}; flags {' '.join(present)}; widest vectors "
        f"{width}-bit (from /proc/cpuinfo: backends/cpu/target.py absent, so the width the "
        f"kernels chose is not known); AMX {'present' if 'amx_bf16' in flags else 'absent'}, "
        f"avx512_bf16 {'present' if 'avx512_bf16' in flags else 'absent'}; {cores}"
    )
