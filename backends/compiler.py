"""`compile()`: an ExportedProgram or Program -> a `CompiledProgram` for the CPU.

The stages are `backends.cpu.pipeline.CPU_STAGES` (`backends.triton.pipeline.TRITON_STAGES`
for Triton), run in order. After `aten-to-linalg` the ops
without a lowering (if any) are split out as eager fallbacks and the rest is outlined into segment
functions; the remaining stages lower those to LLVM and `backends.cpu` makes native code of them.
The stages (and the CPU's native build) run in a forked child: `lowering.py`. Here: the cache
lookups before them, and the `CompiledProgram` after.
"""

from __future__ import annotations

import functools
from pathlib import Path

import torch
from mlir import ir

from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import describe_location
from aten_mlir.frontend.importer import import_program
from aten_mlir.frontend.program import IRParseError, Program
from aten_mlir.passes.stages import without_repeat_outlining

from . import lowering
from .lowering import AliasCheckNeeded, CompileError, first_line
from .program_cache import (
    discard_plan,
    export_key,
    load_plan,
    plan_context,
    program_key,
    saved_signature,
    store_plan,
)
from .runtime import CompiledProgram

__all__ = ["CompileError", "compile", "compile_later"]


def compile(
    program: torch.export.ExportedProgram | Program,
    target: str = "cpu",
    dump_dir: str | Path | None = None,
    opt_level: int = 2,
    cache_dir: str | Path | None = None,
    cache: bool = True,
) -> CompiledProgram:
    """Compiles `program` for `target` ("cpu" or "triton"); the result is called like the
    exported module (same args/kwargs) and returns what it returned. `dump_dir` receives the IR
    after every stage (`00-input.mlir`, `01-decompose.mlir`, ...; for Triton also
    `07-triton.py`, the kernels and launchers). CPU programs are cached on disk (`cache_dir`,
    default `$ATEN_MLIR_CACHE_DIR` or `~/.cache/aten_mlir`): compiling the same program again,
    in any process, loads it without running MLIR (`.from_cache`); an ExportedProgram is looked up
    before it is imported, so a hit skips torch's decompositions too."""
    return compile_later(program, target, dump_dir, opt_level, cache_dir, cache)()


def compile_later(
    program: torch.export.ExportedProgram | Program,
    target: str = "cpu",
    dump_dir: str | Path | None = None,
    opt_level: int = 2,
    cache_dir: str | Path | None = None,
    cache: bool = True,
):
    """`compile()` in two halves: this call starts the CPU stages in their forked child and
    returns at once; calling what it returns waits for them, builds the native code and
    returns the `CompiledProgram` (or raises what `compile()` would). Between the two the
    caller may start other compiles (the dynamo backend lowers a training step's forward and
    backward graphs at once, and builds the first while the second lowers). A cache hit, a
    Triton compile and an invalid program are done (or raise) here."""
    finish = _compile(program, target, dump_dir, opt_level, cache_dir, cache)

    def result() -> CompiledProgram:
        compiled = finish()
        if isinstance(program, torch.export.ExportedProgram):
            # a call whose mutated input aliases another input runs the module as eager would
            compiled.eager = program.module
        return compiled

    return result


def _compile(program, target, dump_dir, opt_level, cache_dir, cache):
    """What `compile_later` returns before its `eager` fallback is set."""
    if target not in ("cpu", "triton"):
        raise ValueError(f"unknown target '{target}' (targets: cpu, triton)")
    # a dump asks for the stages to run; Triton programs are rebuilt (their kernels are cached
    # by Triton itself)
    use_cache = cache and dump_dir is None and target == "cpu"
    exported, early_key = None, None
    if isinstance(program, torch.export.ExportedProgram):
        # keyed before import: torch's run_decompositions costs more than a whole cache hit
        exported = program
        early_key = export_key(exported, target, opt_level) if use_cache else None
        hit = _load(cache_dir, early_key, plan_context(), exported) if early_key else None
        if hit is not None:
            return lambda: hit
        program = import_program(exported)
    if not isinstance(program, Program):
        raise TypeError(f"compile() takes an ExportedProgram or a Program, got {type(program)}")
    _check_terminators(program)
    key = program_key(program, target, opt_level) if use_cache else None
    hit = _load(cache_dir, key, program.context, program=program) if use_cache else None
    if hit is not None:
        if early_key:  # written by compile(Program): the next compile of `exported` skips import
            _store(cache_dir, [], early_key, hit._main, hit.library, program, exported)
        return lambda: hit
    dump = Path(dump_dir) if dump_dir is not None else None
    if target == "triton":
        compiled = _triton(program, dump, cache_dir)
        return lambda: compiled
    lowered = lowering.lower(program, dump, native=(opt_level, cache_dir))
    keys = (key, early_key) if use_cache else None
    return functools.partial(_build, program, exported, lowered, dump, opt_level, cache_dir, keys)


def _triton(program: Program, dump: Path | None, cache_dir) -> CompiledProgram:
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    from .triton import KernelError, build  # also registers the triton-* passes

    lowered = lowering.lower(program, dump, TRITON_STAGES)()
    try:
        library = build(lowered.module(), cache_dir, dump)
    except KernelError as e:
        raise CompileError("triton", first_line(e)) from None
    main = lowered.main
    return CompiledProgram.of(program, main, library)


def _build(program, exported, lowered, dump, opt_level, cache_dir, keys) -> CompiledProgram:
    """The second half of a CPU compile: the lowered module (`lowered()`) as native code (the
    library the lowering child stored, else built here), stored under `keys` (the program's and
    the export's) unless None."""
    try:
        result = lowered()
    except AliasCheckNeeded:
        stages = without_repeat_outlining(CPU_STAGES)
        result = lowering.lower(program, dump, stages, native=(opt_level, cache_dir))()
    from .cpu import NativeBuildError, compile_llvm_module, load_cached_library

    library = None
    if result.library is not None:  # checked as any hit; None: missing or damaged since
        key, found = result.library
        library = load_cached_library(key, cache_dir, from_cache=found)
    if library is None:
        try:
            library = compile_llvm_module(result.module(), opt_level=opt_level, cache_dir=cache_dir)
        except NativeBuildError as e:
            raise CompileError("native", first_line(e), e.repro) from None
    if keys is not None:
        _store(cache_dir, [keys[0]], keys[1], result.main, library, program, exported)
    return CompiledProgram.of(program, result.main, library)


def _check_terminators(program: Program) -> None:
    """Every function body ends in a terminator. MLIR's verifier cannot tell: an unregistered
    op (every aten op) might be one, so a `@main` whose `return` was deleted verifies."""
    for op in program.module.body.operations:
        op = op.operation
        if op.name != "func.func":
            continue
        for block in op.regions[0].blocks:
            last = block.operations[-1].operation if len(block.operations) else None
            if last is None or last.name not in ("func.return", "cf.br", "cf.cond_br"):
                name = ir.StringAttr(op.attributes["sym_name"]).value
                where = describe_location((last or op).location)
                raise IRParseError(
                    f"{where}: 'func.func' op @{name}: a block does not end in a terminator"
                    " (func.return)"
                )


def _store(cache_dir, keys, early_key, main, library, program, exported) -> None:
    """Writes the plan under `keys`, and under `early_key` if `exported` alone can rebuild what
    `program` adds to it."""
    saved = saved_signature(program, exported) if early_key else None
    keys = keys + ([early_key] if saved is not None else [])
    if keys and library.stored:  # the JIT's or an uncached build's cannot be found again
        store_plan(cache_dir, keys, main, library.key, saved)


def _load(cache_dir, key, context, exported=None, program=None) -> CompiledProgram | None:
    """The cached compile `key` of `exported` (whose own state it binds) or of `program`."""
    plan = load_plan(cache_dir, key, context, exported)
    if plan is None:
        return None
    try:
        if program is not None:
            compiled = CompiledProgram.of(program, plan.main, plan.library)
        else:
            state, signature, ftype = plan.restored
            compiled = CompiledProgram(plan.main, plan.library, state, signature, ftype)
    except Exception:  # the plan does not fit its library or signature: a corrupt entry
        discard_plan(cache_dir, key)
        return None
    compiled.from_cache, compiled._keep_alive = True, plan.keep_alive
    return compiled
