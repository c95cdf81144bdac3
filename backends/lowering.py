"""The lowering half of a compile: the stages on a copy of the program, in a forked child
(`isolate.start_isolated`), and, for the CPU, that module's native build in the same child.

`lower(program, dump, stages, native=...)` forks the child and returns at once; calling what it
returns gives a `Lowered`: the `@main` plan, the lowered module (parsed in the caller's context
when asked for) and the key of the library the child stored in the cache directory, if it could.
The child building its own library lets a training step's backward graph build while the
forward one builds and runs, instead of after it; the caller loads the library from the cache
(checked like any hit) and builds the module itself when that fails. An MLIR assertion or
segfault in a pass becomes a `CompileError` naming the stage and the failing pass, with the
stage's input written for the repro.
"""

from __future__ import annotations

import functools
import io
import shlex
import tempfile
from pathlib import Path
from typing import Callable, NamedTuple

from mlir import ir
from mlir.dialects import func

from aten_mlir.backends.cpu.pipeline import CPU_STAGES
from aten_mlir.dialects import describe_location, make_context, verify_module, warm_up_meta
from aten_mlir.frontend.program import Program
from aten_mlir.passes import PipelineError, PipelineFailedError, run_pipeline
from aten_mlir.passes.ir import GLUE

from .isolate import ChildCrashed, crashing_pass, isolation_enabled, run_isolated, start_isolated
from .partition import PartitionError, outline
from .warm_up import import_passes, probe_target


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


class Lowered(NamedTuple):
    """What `lower`'s result gives: the `@main` plan (None for a module without one), the
    LLVM-dialect module of its native segments (`module()`, parsed on first call, in the
    program's context) and `library`: (key, found already) of the library the child stored, or
    None."""

    main: ir.Operation | None
    module: Callable[[], ir.Module]
    library: tuple[str, bool] | None = None


def lower(program: Program, dump: Path | None, stages=CPU_STAGES, native=None):
    """Starts every stage on a copy of the program; calling what it returns gives the
    `Lowered` result, or raises the stage's `CompileError`. `native`: (opt_level, cache_dir),
    for the child to build and store the module's library too (`store_llvm_module`).

    The stages run in a forked child, which hands the results back as bytecode; parsing it
    costs a few milliseconds."""
    if not isolation_enabled():
        main, module = _lower_in(program, dump, stages, program.context)
        return lambda: Lowered(main, lambda: module)
    warm_up_meta()  # the child inherits it; without, every compile's child redoes it
    import_passes(stages)  # likewise the pass modules (0.2-0.5 s of imports per child)
    if native is not None:
        probe_target()  # and the target's llc probes (two llc runs per child)
    child = start_isolated(_lower_child, program, dump, stages, native)

    def result() -> Lowered:
        try:
            main_code, module_code, library = child.result()
        except ChildCrashed as crash:
            raise _crash_error(crash, program, dump, stages) from None
        main = None
        if main_code is not None:
            holder = ir.Module.parse(main_code, program.context)  # alive until main is out
            main = holder.body.operations[0].operation
            main.detach_from_parent()
        module = functools.cache(lambda: ir.Module.parse(module_code, program.context))
        return Lowered(main, module, library)

    return result


def _lower_child(report, program: Program, dump: Path | None, stages, native) -> tuple:
    """The isolated half of `lower`: the stages in a fresh context, the results as bytecode
    (`@main` in a module of its own, since bytecode holds one top-level op), and with `native`
    the library stored (see `lower`)."""
    main, module = _lower_in(program, dump, stages, make_context(), report)
    main_code = None
    if main is not None:
        with module.context, main.location:
            holder = ir.Module.create()
            holder.body.append(main)
            with ir.InsertionPoint(holder.body):
                _declare_callees(main)
        main_code = _bytecode(holder)
    library = None
    if native is not None:
        report("native")
        library = _store_library(module, *native)
    return main_code, _bytecode(module), library


def _store_library(module: ir.Module, opt_level: int, cache_dir) -> tuple[str, bool] | None:
    from .cpu import NativeBuildError
    from .cpu.native import store_llvm_module

    try:
        return store_llvm_module(module, opt_level=opt_level, cache_dir=cache_dir)
    except NativeBuildError as e:
        raise CompileError("native", first_line(e), e.repro) from None


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
    """`lower`'s stages, run here on a copy of the program parsed into `context`; `report`
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
            raise AliasCheckNeeded
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


class AliasCheckNeeded(Exception):
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


def first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]
