"""The CPU the native build generates code for: its LLVM name, its ISA features and what the
codegen makes of them (vector width, the AMX / AVX512-BF16 / AVX512-FP16 paths).

`cpu_target(cpu)` resolves an `-mcpu` name (None: `native.CPU`). "native" is the host: LLVM's
name for it (`llc --version`, "Host CPU") and the features /proc/cpuinfo lists, renamed to
LLVM's spelling and kept when `llc -mattr=help` knows them. A named CPU is asked of LLVM
itself rather than of a table that goes stale: `llc -mcpu=NAME` compiles one small function
per feature whose code shows whether the feature is on (a `<16 x float>` add is one `vaddps
%zmm` only with AVX-512F, a `<16 x bfloat>` truncation one `vcvtneps2bf16` only with
AVX512-BF16, ...), and AMX is on when `llc` can select `tdpbf16ps`. So the features of a named
CPU are the ones our code paths care about (`PROBES`, AMX), those of the host all it has.

AMX needs the OS's permission for the tile state on Linux (`arch_prctl(ARCH_REQ_XCOMP_PERM,
XFEATURE_XTILEDATA)`, once per process, before the first tile instruction): `request_amx()`;
the host has `amx_bf16` only when it is granted.
"""

from __future__ import annotations

import ctypes
import functools
import platform
import re
import subprocess
import sys
from dataclasses import dataclass

from .tools import NativeBuildError, default_triple, host_cpu, tool

# /proc/cpuinfo flag -> LLVM feature name, where they differ
_RENAMES = {
    "pni": "sse3",
    "sse4_1": "sse4.1",
    "sse4_2": "sse4.2",
    "pclmulqdq": "pclmul",
    "lahf_lm": "sahf",
    "abm": "lzcnt",
    "rdrand": "rdrnd",
    "sha_ni": "sha",
    "3dnowprefetch": "prfchw",
    "avx_vnni": "avxvnni",
    "avx512_bf16": "avx512bf16",
    "avx512_fp16": "avx512fp16",
    "avx512_vbmi2": "avx512vbmi2",
    "avx512_vnni": "avx512vnni",
    "avx512_bitalg": "avx512bitalg",
    "avx512_vpopcntdq": "avx512vpopcntdq",
    "avx512_vp2intersect": "avx512vp2intersect",
    "amx_tile": "amx-tile",
    "amx_bf16": "amx-bf16",
    "amx_int8": "amx-int8",
    "amx_fp16": "amx-fp16",
    "amx_complex": "amx-complex",
}

# feature -> (an IR function using it, the assembly that shows llc had it); one llc run checks
# them all. "prefer-vector-width"="512": a CPU tuned for 256-bit vectors still shows zmm
_PROBES = {
    "avx512f": ("fadd <16 x float> %a, %a", "<16 x float>", r"vaddps\s+%zmm"),
    "avx512bw": ("add <32 x i16> %a, %a", "<32 x i16>", r"vpaddw\s+%zmm"),
    "avx512vl": ("call <4 x i64> @llvm.abs.v4i64(<4 x i64> %a, i1 0)", "<4 x i64>", r"vpabsq"),
    "avx2": ("add <8 x i32> %a, %a", "<8 x i32>", r"vpaddd\s+%ymm"),
    "fma": (
        "call <8 x float> @llvm.fma.v8f32(<8 x float> %a, <8 x float> %a, <8 x float> %a)",
        "<8 x float>",
        r"vfmadd",
    ),
    "f16c": ("fpext <8 x half> %a to <8 x float>", "<8 x half>", r"vcvtph2ps"),
    "avx512bf16": ("fptrunc <16 x float> %a to <16 x bfloat>", "<16 x float>", r"vcvtneps2bf16"),
    "avx512fp16": ("fadd <32 x half> %a, %a", "<32 x half>", r"vaddph\s+%zmm"),
}
_DECLARATIONS = (
    "declare <4 x i64> @llvm.abs.v4i64(<4 x i64>, i1)\n"
    "declare <8 x float> @llvm.fma.v8f32(<8 x float>, <8 x float>, <8 x float>)\n"
    'attributes #0 = { "prefer-vector-width"="512" "min-legal-vector-width"="512" }\n'
)
# AMX: llc fails ("Cannot select") when the CPU lacks the instruction
_AMX_PROBES = {
    "amx-bf16": "tdpbf16ps",
    "amx-fp16": "tdpfp16ps",
}


@dataclass(frozen=True)
class CpuTarget:
    """A CPU to generate code for."""

    name: str  # the LLVM cpu name given to -mcpu ("rocketlake", "x86-64-v3"...), never "native"
    features: frozenset[str]  # LLVM feature names ("avx2", "avx512f", "amx-bf16"...)
    host: bool = False  # resolved from "native": built with -mcpu=native, AMX needs the OS

    @property
    def vector_bytes(self) -> int:
        """Bytes in the vector registers the generated code uses: 64 with AVX-512F, 32 with
        AVX2, else 16."""
        if "avx512f" in self.features:
            return 64
        return 32 if "avx2" in self.features else 16

    @property
    def amx_bf16(self) -> bool:
        """AMX bf16 tile products; on the host, only when the OS grants the tile state."""
        has = {"amx-tile", "amx-bf16"} <= self.features
        return has and (not self.host or request_amx())

    @property
    def avx512_bf16(self) -> bool:
        return "avx512bf16" in self.features

    @property
    def avx512_fp16(self) -> bool:
        return "avx512fp16" in self.features

    def llvm_flags(self) -> list[str]:
        """`-mcpu` / `-mattr` for opt and llc. "native" for the host: LLVM then reads every
        feature (and lack of one) from CPUID itself. `-prefer-256-bit`: LLVM tunes recent
        Intel CPUs for 256-bit vectors, so opt's loop and SLP vectorizers emit ymm code beside
        our zmm kernels; our loops are written for the whole register (`vector_bytes`)."""
        flags = [f"-mcpu={'native' if self.host else self.name}"]
        if self.vector_bytes == 64:
            flags.append("-mattr=-prefer-256-bit")
        return flags

    def describe(self) -> str:
        """One line for the bench: name, vector width, which paths are on."""
        paths = {
            "AMX bf16": self.amx_bf16,
            "avx512_bf16": self.avx512_bf16,
            "avx512_fp16": self.avx512_fp16,
        }
        on = ", ".join(f"{name} {'on' if value else 'off'}" for name, value in paths.items())
        where = " (host)" if self.host else ""
        return f"{self.name}{where}: {self.vector_bytes * 8}-bit vectors, {on}"


def cpu_target(cpu: str | None = None) -> CpuTarget:
    """The target `cpu` names (an -mcpu name; None: `native.CPU`, "native": the host)."""
    if cpu is None:
        cpu = build_cpu()
    return _host() if cpu == "native" else _named(cpu)


def target_key(cpu: str | None = None) -> str:
    """What the cache key holds of the target `cpu` (None: `native.CPU`) without running a
    tool (a cache hit must stay cheap): a named CPU is its name (its features are fixed by the
    LLVM version, also in the key); the host is what LLVM derives its name and features from,
    the vendor, family and model the CPU reports and every feature flag. Hosts of one kind
    sharing a cache directory share entries, hosts of different kinds do not."""
    if cpu is None:
        cpu = build_cpu()
    if cpu != "native":
        return f"cpu={cpu}"
    fields = _cpuinfo()
    model = "/".join(fields.get(k, "") for k in ("vendor_id", "cpu family", "model"))
    flags = sorted({_RENAMES.get(f, f) for f in fields.get("flags", "").split()})
    return f"host={platform.machine()}/{model}+{','.join(flags)}"


def build_cpu() -> str:
    """`native.CPU`, the -mcpu the build uses (settable: tests build for generic CPUs); read
    through sys.modules, as native imports this module: "native" until native is loaded."""
    native = sys.modules.get(f"{__package__}.native")
    return getattr(native, "CPU", "native")


@functools.cache
def _host() -> CpuTarget:
    known = _llvm_features()
    flags = {_RENAMES.get(flag, flag) for flag in _cpuinfo().get("flags", "").split()}
    return CpuTarget(host_cpu(), frozenset(flags & known), host=True)


@functools.cache
def _cpuinfo() -> dict[str, str]:
    """The fields of the first processor in /proc/cpuinfo ("Features" as "flags": aarch64)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                key = "flags" if key.strip() == "Features" else key.strip()
                fields[key] = value.strip()
    except OSError:
        pass
    return fields


@functools.cache
def _llvm_features() -> frozenset[str]:
    """The feature names llc knows for the host triple (`-mattr=help`)."""
    out = _llc(["-mattr=help"], "")
    return frozenset(re.findall(r"^\s+([a-z0-9][\w.-]*)\s+- ", out, re.M))


@functools.cache
def _named(cpu: str) -> CpuTarget:
    if not re.fullmatch(r"[\w.-]+", cpu):
        raise ValueError(f"not a CPU name: {cpu!r}")
    lines = []
    for feature, (op, arg, _) in _PROBES.items():
        name = feature.replace("-", "_")
        lines.append(f"define void @{name}({arg} %a, ptr %p) #0 {{\n  %r = {op}\n")
        lines.append(f"  store volatile {_result(op, arg)} %r, ptr %p\n  ret void\n}}\n")
    asm = _llc([f"-mcpu={cpu}", "-O1"], "".join(lines) + _DECLARATIONS)
    features = {f for f, (_, _, shows) in _PROBES.items() if re.search(shows, _body(asm, f))}
    # every CPU with AMX has AVX512-BF16; a failing llc run costs 0.15 s (a crash report)
    for feature, instruction in _AMX_PROBES.items() if "avx512bf16" in features else ():
        ir = f"declare void @llvm.x86.{instruction}(i8, i8, i8)\ndefine void @f() {{\n"
        ir += f"  call void @llvm.x86.{instruction}(i8 0, i8 1, i8 2)\n  ret void\n}}\n"
        try:
            _llc([f"-mcpu={cpu}", "-O0"], ir)
        except NativeBuildError:
            continue
        features |= {feature, "amx-tile"}
    return CpuTarget(cpu, frozenset(features))


def _result(op: str, arg: str) -> str:
    """The result type of a probe's op."""
    if " to " in op:
        return op.rsplit(" to ", 1)[1]
    return arg


def _body(asm: str, feature: str) -> str:
    """The assembly of the probe function of `feature`."""
    name = feature.replace("-", "_")
    match = re.search(rf"^{re.escape(name)}:.*?^\s+\.size", asm, re.M | re.S)
    return match.group(0) if match else ""


def _llc(flags: list[str], ir: str) -> str:
    """llc's output for `ir` (stdout and stderr: `-mattr=help` prints to either, depending on
    the LLVM version). NativeBuildError when llc fails; ValueError for a CPU LLVM does not
    know (llc only warns and falls back to a generic CPU)."""
    command = [tool("llvm", "llc"), f"-mtriple={default_triple()}", *flags, "-o", "-"]
    try:
        done = subprocess.run(command, input=ir.encode(), capture_output=True, check=False)
    except OSError as error:
        raise NativeBuildError(f"cannot run llc: {error}") from error
    out = (done.stdout + done.stderr).decode(errors="replace")
    if "not a recognized processor" in out:
        raise ValueError(f"LLVM does not know the CPU {flags[0].removeprefix('-mcpu=')!r}")
    if ir and done.returncode != 0:
        raise NativeBuildError(f"llc failed ({done.returncode}) on a feature probe")
    return out


# arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): syscall 158 on x86-64 Linux
_ARCH_PRCTL = 158
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18


@functools.cache
def request_amx() -> bool:
    """Asks Linux for the AMX tile state for this process (needed once, before the first tile
    instruction, else it faults with SIGILL); False when refused or not on x86-64 Linux."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
    except (OSError, AttributeError):
        return False
    syscall.restype = ctypes.c_long
    syscall.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_long]
    return syscall(_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) == 0
