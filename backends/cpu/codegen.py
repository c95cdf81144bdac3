"""LLVM IR -> object files: `opt`'s pipeline, then `llc`, with a fallback pipeline for each known
tool failure and, when the fallbacks fail too, a repro file and command.

`opt` first gives every loop nest of a segment a function of its own (`loop-extract`) and keeps
one copy of identical ones (`mergefunc`: a 12-layer model runs the same kernels 12 times), then
runs `-O{n}` on those kernels; what is left of a segment is glue (allocations, descriptors,
calls; code outside any loop runs once per call), compiled without optimization (`optnone`).
opt's loop passes cost more than linearly in the size of a function, and optimizing the glue
gains nothing: on GPT-2 small this takes opt + llc from ~7 s to ~0.6 s of CPU time, the run time
unchanged.

A large module is optimized on every core (`_optimize`): that first pipeline stops after the
extraction and deduplication (and `forceattrs`, so the glue attributes are in the IR rather
than in flags naming functions), `llvm-split --preserve-locals` cuts the result into parts that
keep each kernel with its callers (internal functions stay internal: interprocedural constant
propagation into a kernel still sees its call sites), and `-O{n}` runs on the parts at once,
each then compiled by its own `llc`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .tools import NativeBuildError
from .tools import run as _run
from .tools import run_all as _run_all
from .tools import tool as _tool

# llc processes a build runs at once, at most (one per core), for modules of SPLIT_BYTES of
# bitcode or more (GPT-2 small's is 110 KB and takes llc 0.3 s; below, the extra processes cost
# about what they save)
CODEGEN_PROCESSES = 2
SPLIT_BYTES = 48 << 10
# `opt -O{n}` runs on parts at once for modules of OPT_SPLIT_BYTES of LLVM IR text or more (the
# extra pass over the whole module costs ~0.1 s per MB; a training step's backward module is
# 1-2 MB and takes opt 1-2 s)
OPT_SPLIT_BYTES = 384 << 10

# llc without loop strength reduction: our kernels' loops are vectorized and their addressing
# laid out before LLVM sees them, and LSR was a fifth to a third of llc's time (train_cnn's
# backward: llc 0.85 -> 0.60 s CPU) for run times within noise (1 thread, same process,
# alternated: training steps, matmul, attention, mlp, softmax, resnet, bert, lstm, bf16 rows)
LLC_FLAGS = ("-disable-lsr",)

# `opt -O{n}` on a part without the verifier on its input and output (same output, ~6% less
# of its CPU with the wheel's assertion-enabled LLVM: train_transformer's backward part 0.34
# -> 0.32 s, medians of 7): the input is the verified output of the whole-module opt, cut by
# llvm-split, and llc verifies its input, which is this output
PART_OPT_FLAGS = ("-disable-verify",)

# LLVM's pipeline level for the extracted kernels at each `opt_level`: at 2 (the default) -O1,
# which runs a third less of opt's time than -O2 (train_cnn's backward: 1.0 -> 0.66 s CPU);
# -O2's extra unrolling and vectorizing of loops MLIR already vectorized gains nothing: 1 thread
# same process alternated, thread_time medians -O2/-O1: train_cnn step 12.36/10.83 ms,
# train_transformer 41.28/41.45 (44.73/45.09, 43.08/43.99 in earlier rounds), train_mlp
# 4.50/4.46, resnet50 53.31/52.86, bert_base_b1 120.31/120.46, gpt2_decode256 18.87/18.98,
# llama7b_decode128 24.15/23.69, dyn_convnet 2.141/2.138, matmul512 1.400/1.378, attention
# 1.737/1.752, mlp 2.552/2.530, lstm 3.494/3.587 (min 3.448/3.365), bf16_layer 10.17/10.16
KERNEL_LEVELS = {1: 1, 2: 1, 3: 3}

# optnone requires noinline (the verifier rejects it alone)
_GLUE_ATTRS = ("noinline", "optnone")


def opt_flags(
    opt_level: int, functions: list[str], glue: list[str] = (), *, extract: bool = True
) -> list[str]:
    """`opt`'s pipeline: kernels out of the segments `functions` and the `glue` functions,
    deduplicated, at LLVM's -O{KERNEL_LEVELS[opt_level]}; the segments, their C wrappers and
    the glue, by then without loops, unoptimized. `extract=False`: every function whole at
    -O{opt_level}."""
    if opt_level == 0:
        return ["-passes=default<O0>"]
    if not extract:
        return [f"-passes=default<O{opt_level}>"]
    # early-cse: a loop reads a descriptor field extracted once before it, so its kernel takes
    # that pointer rather than the whole descriptor by value; loop-extract skips loops not in
    # simplified form (no preheader, several latches)
    level = KERNEL_LEVELS[opt_level]
    passes = f"-passes=function(early-cse,loop-simplify),loop-extract,mergefunc,default<O{level}>"
    # forceattrs, the first pass of default<On>, adds these after the extraction; the inliner
    # never inlines into an optnone function, so the kernels stay out of the glue
    names = [name for f in functions for name in (f, f"_mlir_ciface_{f}")] + list(glue)
    return [passes] + [f"-force-attribute={name}:{a}" for name in names for a in _GLUE_ATTRS]


def objects(
    module_ir: bytes,
    target: list[str],
    opt_level: int,
    functions: list[str],
    glue: list[str],
    work: Path,
) -> list[Path]:
    """Object files of `module_ir` in `work`: the kernel/glue pipeline, else the fallback its
    failure calls for. A failure of the last try carries a repro (`NativeBuildError.repro`)."""
    llc = [
        _tool("llvm", "llc"),
        f"-O{opt_level}",
        *LLC_FLAGS,
        "-filetype=obj",
        "-relocation-model=pic",
    ]
    tries = [opt_flags(opt_level, functions, glue)]
    while True:
        try:
            optimized = _optimize(module_ir, tries[-1], target, opt_level, work)
        except NativeBuildError as error:
            # loop-extract makes a function of a loop whose AMX tiles live across its bounds
            # (a product whose m/n loops folded away), and the verifier rejects a function
            # taking x86_amx: then nothing is extracted
            if "x86_amx" in str(error) and len(tries) == 1:
                tries.append(opt_flags(opt_level, [], [], extract=False))
                continue
            _add_repro(error)
            raise
        try:
            return _codegen(optimized, [*llc, *target], work)
        except NativeBuildError as error:
            if opt_level == 0 or not str(error).startswith("llc failed") or len(tries) > 1:
                _add_repro(error)
                raise
            # llc -O3 asserts on some vector code of an optnone function (a v8i16 blend with
            # zero, the masked tail of a loop-free f16 reduction left in the glue, with any
            # AVX-512 -mcpu; the same code optimized compiles): again with the glue optimized
            tries.append(opt_flags(opt_level, [], []))


def _optimize(
    module_ir: bytes, flags: list[str], target: list[str], opt_level: int, work: Path
) -> list[Path]:
    """`opt` with `flags` on `module_ir`: the optimized bitcode, one file, or one per part
    when the module is large and `flags` extract kernels (see the module docstring). A
    failure carries the opt run that failed (`rerun`)."""
    opt = _tool("llvm", "opt")
    optimize = f",default<O{KERNEL_LEVELS.get(opt_level)}>"
    parts = _processes() if len(module_ir) >= OPT_SPLIT_BYTES else 1
    if parts == 1 or not flags[0].endswith(optimize):
        whole = work / "module.bc"
        _checked_run([opt, *flags, *target, "native.ll", "-o", str(whole)], module_ir)
        return [whole]
    prepared = work / "prepared.bc"
    prepare = [opt, flags[0].removesuffix(optimize) + ",forceattrs", *flags[1:], *target]
    _checked_run([*prepare, "native.ll", "-o", str(prepared)], module_ir)
    split = [_tool("llvm", "llvm-split"), f"-j{parts}", "--preserve-locals"]
    _run([*split, "-o", str(work / "in"), str(prepared)])
    inputs = [work / f"in{i}" for i in range(parts)]
    outputs = [work / f"opt{i}.bc" for i in range(parts)]
    passes = [opt, f"-passes=default<O{KERNEL_LEVELS[opt_level]}>", *PART_OPT_FLAGS, *target]
    try:
        _run_all([[*passes, str(i), "-o", str(o)] for i, o in zip(inputs, outputs)])
    except NativeBuildError as error:
        error.rerun = ([*passes, "native.bc", "-o", "/dev/null"], inputs[error.index or 0])
        raise
    return outputs


def _checked_run(command: list[str], data: bytes) -> None:
    """`command` reading `data` where it names `native.ll` (stdin); a failure carries the
    command on `data` (`rerun`)."""
    try:
        _run([a if a != "native.ll" else "-" for a in command], data)
    except NativeBuildError as error:
        error.rerun = ([*command[:-2], "-o", "/dev/null"], data)
        raise


def _add_repro(error: NativeBuildError) -> None:
    """Sets `error.repro` from `error.rerun`: the command on a private copy of its input (its
    file name argument, `native.ll` or `native.bc`, replaced by that copy's path)."""
    if error.rerun is None:
        return
    command, data = error.rerun
    name = next(a for a in command if a in ("native.ll", "native.bc"))
    try:
        data = data.read_bytes() if isinstance(data, Path) else data
        path = Path(tempfile.mkdtemp(prefix="aten_mlir_repro_")) / name
        path.write_bytes(data)
    except OSError:  # no repro rather than a second error hiding the first
        return
    error.repro = " ".join(str(path) if a == name else a for a in command)


def _codegen(inputs: list[Path], llc: list[str], work: Path) -> list[Path]:
    """`llc` on the optimized bitcode, into objects in `work`, one process per input at once.
    One input of several cores' worth is first split by function (`llvm-split --round-robin`,
    an even share of the kernels each): code generation is the largest step of a large
    model's cold compile."""
    given = inputs
    parts = _processes() if len(inputs) == 1 and inputs[0].stat().st_size >= SPLIT_BYTES else 1
    if parts > 1:
        split = [_tool("llvm", "llvm-split"), f"-j{parts}", "--round-robin"]
        _run([*split, "-o", str(work / "part"), str(inputs[0])])
        inputs = [work / f"part{i}" for i in range(parts)]
    objects = [path.with_suffix(".o") for path in inputs]
    try:
        _run_all([[*llc, "-o", str(o), str(i)] for i, o in zip(inputs, objects)])
    except NativeBuildError as error:  # the repro: llc on the whole module unless opt split it
        failed = given[error.index or 0] if len(given) > 1 else given[0]
        error.rerun = ([*llc, "native.bc", "-o", "/dev/null"], failed)
        raise
    return objects


def _processes() -> int:
    """Tool processes a build runs at once: one per core, at most CODEGEN_PROCESSES."""
    return min(CODEGEN_PROCESSES, _cores())


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def assembly(llvm_ir: bytes, target: list[str], opt_level: int = 3) -> str:
    """The assembly that `target`'s flags (triple, -mcpu, -mattr) make of `llvm_ir` with the
    build's opt and llc flags (code for a CPU this host lacks can be read, not run)."""
    optimized = _run([_tool("llvm", "opt"), *opt_flags(opt_level, []), *target, "-o", "-"], llvm_ir)
    llc = [
        _tool("llvm", "llc"),
        f"-O{opt_level}",
        *LLC_FLAGS,
        "-relocation-model=pic",
        *target,
        "-o",
        "-",
    ]
    return _run(llc, optimized).decode(errors="replace")
