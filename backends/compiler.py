"""`compile()`: an ExportedProgram or Program -> a `CompiledProgram` for the CPU.

The stages are `backends.cpu.pipeline.CPU_STAGES` (`backends.triton.pipeline.TRITON_STAGES`
for Triton), run in order. After `aten-to-linalg` the ops
without a lowering (if any) are split out as eager fallbacks and the rest is outlined into segment
functions; the remaining stages lower those to LLVM and `backends.cpu` makes native code of them.
"""

from __future__ import annotations

import functools
import io
import shlex
import tempfile
from pathlib import Path

import torch
from mlir import ir
from mlir.dialects import func

from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import describe_location, make_context, verify_module, warm_up_meta
from aten_mlir.frontend.importer import import_program
from aten_mlir.frontend.program import IRParseError, Program
from aten_mlir.passes import PipelineError, PipelineFailedError, run_pipeline
from aten_mlir.passes.ir import GLUE
from aten_mlir.passes.stages import without_repeat_outlining

from .isolate import (
    ChildCrashed,
    crashing_pass,
    isolation_enabled,
    run_isolated,
    start_isolated,
)
from .partition import PartitionError, outline
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
from .warm_up import import_passes


class CompileError(RuntimeError):
    """A stage failed: names the stage, the op and its source line, and how to reproduce."""

    def __init__(self, stage: str, message: str, repro: str | None = None):
        self.stage, self.message, self.repro = stage, message, repro
        text = f"compile failed in stage '{stage}': {message}"
        if repro:
            text += f"\n  reproduce with: {repro}"
        super().__init__(text)

    def __reduce__(self):  # crosses the pipe from the isolated lowering process
        return CompileError, (self.stage, self.message, self.repro)


def _repro(stage, input_file: Path | None) -> str | None:
    if input_file is None:
        return None
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    # a Triton stage of the same name as a CPU one runs another pipeline
    target = "--target triton " if stage in TRITON_STAGES and stage not in CPU_STAGES else ""
    return f"aten-opt {target}--stage {stage.name} {shlex.quote(str(input_file))}"


def _dump(dump_dir: Path | None, index: int, name: str, module: ir.Module) -> Path | None:
    if dump_dir is None:
        return None
    path = dump_dir / f"{index:02d}-{name}.mlir"
    path.write_text(module.operation.get_asm(enable_debug_info=True))
    return path


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
    lowering = _lower(program, dump)
    keys = (key, early_key) if use_cache else None
    return functools.partial(_build, program, exported, lowering, dump, opt_level, cache_dir, keys)


def _triton(program: Program, dump: Path | None, cache_dir) -> CompiledProgram:
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    from .triton import KernelError, build  # also registers the triton-* passes

    main, module = _lower(program, dump, TRITON_STAGES)()
    try:
        library = build(module, cache_dir, dump)
    except KernelError as e:
        raise CompileError("triton", _first_line(e)) from None
    return CompiledProgram.of(program, main, library)


def _build(program, exported, lowering, dump, opt_level, cache_dir, keys) -> CompiledProgram:
    """The second half of a CPU compile: the lowered module (`lowering()`) as native code,
    stored under `keys` (the program's and the export's) unless None."""
    try:
        main, module = lowering()
    except _AliasCheckNeeded:
        main, module = _lower(program, dump, without_repeat_outlining(CPU_STAGES))()
    from .cpu import NativeBuildError, compile_llvm_module

    try:
        library = compile_llvm_module(module, opt_level=opt_level, cache_dir=cache_dir)
    except NativeBuildError as e:
        raise CompileError("native", _first_line(e), e.repro) from None
    if keys is not None:
        _store(cache_dir, [keys[0]], keys[1], main, library, program, exported)
    return CompiledProgram.of(program, main, library)


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


def _lower(program: Program, dump: Path | None, stages=CPU_STAGES):
    """Starts every stage on a copy of the program; calling what it returns gives (the
    `@main` plan, the LLVM-dialect module of its native segments), in the program's context.

    The stages run in a forked child (`isolate.start_isolated`), which hands both back as
    bytecode: an MLIR assertion or segfault in a pass becomes a `CompileError` naming the stage,
    not the end of the caller's process. Parsing the bytecode costs a few milliseconds."""
    if not isolation_enabled():
        lowered = _lower_in(program, dump, stages, program.context)
        return lambda: lowered
    warm_up_meta()  # the child inherits it; without, every compile's child redoes it
    import_passes(stages)  # likewise the pass modules (0.2-0.5 s of imports per child)
    child = start_isolated(_lower_child, program, dump, stages)

    def result():
        try:
            main_code, module_code = child.result()
        except ChildCrashed as crash:
            raise _crash_error(crash, program, dump, stages) from None
        module = ir.Module.parse(module_code, program.context)
        main = None
        if main_code is not None:
            holder = ir.Module.parse(main_code, program.context)  # alive until main is out
            main = holder.body.operations[0].operation
            main.detach_from_parent()
        return main, module

    return result


def _lower_child(report, program: Program, dump: Path | None, stages) -> tuple:
    """The isolated half of `_lower`: the stages in a fresh context, the results as bytecode
    (`@main` in a module of its own, since bytecode holds one top-level op)."""
    main, module = _lower_in(program, dump, stages, make_context(), report)
    main_code = None
    if main is not None:
        with module.context, main.location:
            holder = ir.Module.create()
            holder.body.append(main)
            with ir.InsertionPoint(holder.body):
                _declare_callees(main)
        main_code = _bytecode(holder)
    return main_code, _bytecode(module)


def _declare_callees(main: ir.Operation) -> None:
    """A private declaration of each function `main` calls (the segments, LLVM functions by
    now): parsing verifies that every `func.call` names a `func.func` of its type."""
    declared = set()
    for op in main.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "func.call":
            continue
        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        if callee in declared:
            continue
        declared.add(callee)
        ftype = ir.FunctionType.get([v.type for v in op.operands], [r.type for r in op.results])
        fn = func.FuncOp(callee, ftype)
        fn.sym_visibility = ir.StringAttr.get("private")


def _bytecode(module: ir.Module) -> bytes:
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def _crash_error(crash: ChildCrashed, program: Program, dump: Path | None, stages):
    """The `CompileError` of a child that died in stage `crash.step`, with the stage's input
    written for the repro (the dumped file, else rebuilt by another child) and the child's
    stderr (LLVM's stack dump) next to it as `crash.log`."""
    names = [s.name for s in stages]
    index = names.index(crash.step) if crash.step in names else 0
    stage = stages[index]
    if dump is not None:
        input_file = dump / f"{index:02d}-{stages[index - 1].name if index else 'input'}.mlir"
    else:
        input_file = Path(tempfile.mkdtemp(prefix="aten_mlir_repro_")) / f"{stage.name}.mlir"
        try:
            run_isolated(_write_stage_input, program, stages[:index], input_file)
        except (ChildCrashed, CompileError):
            input_file = None
    where = "this stage"
    if input_file is not None:
        (input_file.parent / "crash.log").write_text(crash.stderr)
        # a hang is not replayed pass by pass: each replay would wait out the timeout again
        failing = None if crash.hung else crashing_pass(input_file.read_text(), stage.pipeline)
        where = f"pass '{failing}'" if failing else where
    message = f"MLIR crashed ({crash.signal}) in {where}: {crash.reason}"
    return CompileError(stage.name, message, _repro(stage, input_file))


def _write_stage_input(report, program: Program, earlier, path: Path) -> None:
    path.write_text(_stage_input(program, earlier).operation.get_asm(enable_debug_info=True))


def _lower_in(program: Program, dump: Path | None, stages, context: ir.Context, report=None):
    """`_lower`'s stages, run here on a copy of the program parsed into `context`; `report`
    hears each stage's name before it runs."""
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
    module = ir.Module.parse(program.text(debug_info=True), context)
    work = program.with_module(module)
    previous = _dump(dump, 0, "input", module)
    main = None
    for index, stage in enumerate(stages, start=1):
        if report is not None:
            report(stage.name)
        replay = functools.partial(_stage_input, program, stages[: index - 1])
        _run_stage(stage, module, previous, replay)
        if stage.name == "decompose":
            verify_module(module)
        if stage.name == "bufferize" and stages is CPU_STAGES and _alias_checked(module):
            raise _AliasCheckNeeded
        if stage.name == "aten-to-linalg":
            main = work.main
            try:
                outline(module, main)
            except PartitionError as e:
                raise CompileError("outline", str(e)) from None
            main.detach_from_parent()
            if dump is not None:  # the plan: calls to segments, eager fallbacks, scalar glue
                (dump / f"{index:02d}-{stage.name}.main.mlir").write_text(
                    main.get_asm(enable_debug_info=True)
                )
        previous = _dump(dump, index, stage.name, module) or previous
    return main, module


class _AliasCheckNeeded(Exception):
    """Deallocation could not tell an outlined layer's results from each other (see
    `aten-split-fresh-deallocs`): the program lowers again with its layers inline."""


def _alias_checked(module: ir.Module) -> bool:
    """Buffers freed through a runtime alias check (`dealloc_helper`, whose `memref<?xi1>`
    stores LLVM's memref lowering rejects) in a module with outlined layers."""
    names = [
        ir.StringAttr(op.operation.attributes["sym_name"]).value
        for op in module.body.operations
        if op.operation.name == "func.func"
    ]
    glue = any(GLUE in op.operation.attributes for op in module.body.operations)
    return glue and any(n.startswith("dealloc_helper") for n in names)


def _stage_input(program: Program, earlier) -> ir.Module:
    """The module a stage after `earlier` starts from, rebuilt from the program (in a context
    of its own: in the isolated child, the program's context is the parent's)."""
    return _lower_in(program, None, earlier, make_context())[1]


def _run_stage(stage, module: ir.Module, input_file: Path | None, replay) -> None:
    """Runs one stage and verifies its result. Verifying after every pass (and keeping a copy
    of every stage's input for the repro) costs a fifth of a cold compile, so that is only done
    on failure: the stage runs again on its input (the dumped file, else rebuilt by `replay`,
    then written for the repro) with the verifier after each pass, to name the failing pass's
    op and line."""
    try:
        run_pipeline(module, stage.pipeline, verify_each=False)
        module.operation.verify()
        return
    except (PipelineFailedError, PipelineError, ir.MLIRError) as e:
        failure = e
    if input_file is None:
        again = replay()
        input_file = Path(tempfile.mkdtemp(prefix="aten_mlir_repro_")) / f"{stage.name}.mlir"
        input_file.write_text(again.operation.get_asm(enable_debug_info=True))
    else:
        again = ir.Module.parse(input_file.read_text(), module.context)
    try:
        run_pipeline(again, stage.pipeline)
        again.operation.verify()
    except (PipelineFailedError, PipelineError, ir.MLIRError) as e:
        failure = e
    diags = getattr(failure, "diagnostics", None) or getattr(failure, "error_diagnostics", None)
    first = diags[0] if diags else None
    where = f"{describe_location(first.location)}: {first.message}" if first else str(failure)
    raise CompileError(stage.name, where, _repro(stage, input_file)) from None


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]
