"""`aten-opt`: mlir-opt for the aten dialect. Runs a pass pipeline on a `.mlir` file, or imports a
program saved with `torch.export.save` (`--import model.pt2`), and prints the result."""

from __future__ import annotations

import argparse
import logging
import re
import sys
import warnings
from dataclasses import dataclass, field

from mlir import ir

from aten_mlir.backends import triton as _triton_passes  # noqa: F401  (registers its passes)
from aten_mlir.backends.isolate import ChildCrashed, crashing_pass, run_isolated
from aten_mlir.dialects import make_context, warm_up_meta
from aten_mlir.frontend.program import IRParseError, parse_module
from aten_mlir.passes import (
    PASSES,
    PipelineFailedError,
    build_pass_manager,
    parse_pipeline,
    run_pipeline,
)
from aten_mlir.passes.registry import format_option_value

from .diagnostics import Diag, ToolError, diags_of, parse_expectations, verify_diagnostics
from .source import read_input, split_input, write_output
from .stages import TARGETS, list_stages, stage_pipeline, target_of

EPILOG = """\
passes:
  --pass-pipeline / -p takes an mlir-opt pipeline mixing aten passes (--list-passes) and
  upstream MLIR passes, with or without the builtin.module(...) wrapper:
      -p 'builtin.module(aten-verify,canonicalize,func.func(cse),aten-drop-dead)'
  Alternatively, each pass is a flag, run in order: --aten-verify --cse
  --aten-verify='target=core'.

importing:
  aten-opt --import model.pt2 [-p PIPELINE]   imports a program saved with torch.export.save
                                              (also `aten-opt aten-import F` and `aten-import F`)
  into the aten dialect, runs the pipeline (if any) and prints the module.

exit status: 0 on success, 1 on an error diagnostic (or a --verify-diagnostics mismatch).
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aten-opt",
        description="Runs passes over aten-dialect MLIR, as mlir-opt does.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-': stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file ('-': stdout)")
    p.add_argument("-p", "--pass-pipeline", help="the pass pipeline to run")
    p.add_argument(
        "--import",
        dest="import_pt2",
        action="store_true",
        help="the input is a .pt2 file from torch.export.save: import it first",
    )
    p.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each chunk between '// -----' lines on its own",
    )
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against expected-error/warning/note/remark comments",
    )
    p.add_argument(
        "--print-ir-after-all",
        "--mlir-print-ir-after-all",
        action="store_true",
        help="print the IR after every pass to stderr",
    )
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print the generic form")
    p.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="accepted for mlir-opt compatibility (aten contexts always allow them)",
    )
    p.add_argument(
        "--stage",
        action="append",
        default=[],
        metavar="NAME",
        help="run a lowering stage (repeatable, in order; 'decompose..llvm' runs a range)",
    )
    p.add_argument(
        "--target",
        choices=TARGETS,
        help="whose stages --stage and --list-stages name (default: cpu, or triton for a "
        "stage only Triton has)",
    )
    p.add_argument("--list-stages", action="store_true", help="list the lowering stages and exit")
    p.add_argument("--list-passes", action="store_true", help="list the aten passes and exit")
    p.add_argument("--version", action="store_true", help="print versions and exit")
    return p


def _pass_flag(arg: str) -> str:
    """`--cse` -> `cse`; `--aten-verify=target=core` -> `aten-verify{target=core}`."""
    name, eq, options = arg.lstrip("-").partition("=")
    if not name or not re.fullmatch(r"[A-Za-z][\w.-]*", name):
        raise ToolError(f"unknown argument '{arg}' (see aten-opt --help)")
    options = options[1:-1] if options.startswith("{") and options.endswith("}") else options
    return name + (f"{{{options}}}" if eq else "")


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, str]:
    """The options and the pipeline text (from -p or from pass flags)."""
    args, rest = _parser().parse_known_args(argv)
    flags = [a for a in rest if a.startswith("-") and a != "-"]
    if len(flags) != len(rest):
        raise ToolError(f"unexpected argument '{next(a for a in rest if a not in flags)}'")
    if flags and args.pass_pipeline is not None:
        raise ToolError("give the passes either as --pass-pipeline or as pass flags, not both")
    pipeline = args.pass_pipeline or ",".join(_pass_flag(a) for a in flags)
    if args.stage:
        if pipeline:
            raise ToolError("give either --stage or a pass pipeline, not both")
        args.target = args.target or target_of(args.stage)
        pipeline = ",".join(stage_pipeline(s, args.target) for s in args.stage)
    if args.import_pt2 and (args.split_input_file or args.verify_diagnostics):
        raise ToolError("--import takes a .pt2 file: no --split-input-file/--verify-diagnostics")
    return args, pipeline


def list_passes() -> str:
    lines = ["aten passes (in a --pass-pipeline, or as flags --<pass>[=<options>]):", ""]
    for name in sorted(PASSES):
        cls = PASSES[name]
        lines += [f"  {name}", f"      {cls.description()}"]
        for o in cls.options():
            spelling = f"{o.name}=<{'str,...' if o.type == tuple[str, ...] else o.type.__name__}>"
            default = format_option_value(o.default) or "none"
            lines.append(f"      {spelling:<24}{o.help} (default: {default})")
    lines += [
        "",
        "Upstream MLIR passes are accepted too (`mlir-opt --help` lists them), e.g.",
        "canonicalize, cse, func.func(...).",
    ]
    return "\n".join(lines)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    def v(dist: str) -> str:
        try:
            return dist_version(dist)
        except PackageNotFoundError:
            return "unknown"

    return (
        f"aten-opt (aten-mlir {v('aten-mlir')}, MLIR bindings {v('xtc-mlir-python-bindings')},"
        f" torch {v('torch')})"
    )


def parse_error_diags(e: IRParseError, source: str) -> list[Diag]:
    """MLIR's parse diagnostics behind an `IRParseError`: `parse_module` raises it `from None`,
    which hides, but keeps, the `MLIRError` in `__context__`."""
    cause = e.__context__
    if isinstance(cause, ir.MLIRError) and cause.error_diagnostics:
        return [d for info in cause.error_diagnostics for d in diags_of(info)]
    return [Diag("error", str(e).splitlines()[0], source)]


@dataclass
class Result:
    """What processing one module (or one chunk) gave."""

    output: str = ""
    diags: list[Diag] = field(default_factory=list)
    failed: bool = False


def _collect(ctx: ir.Context, into: list[Diag]):
    """Records warnings, remarks (and errors not captured into an MLIRError) emitted in `ctx`."""

    def handler(d) -> bool:
        into.extend(diags_of(d))
        return True

    return ctx.attach_diagnostic_handler(handler)


def run_on_module(module: ir.Module, pipeline: str, args, diags: list[Diag]) -> Result:
    result = Result(diags=diags)
    try:
        run_pipeline(
            module,
            pipeline,
            print_ir_after_all=args.print_ir_after_all,
            enable_debug_info=args.mlir_print_debuginfo,
        )
    except PipelineFailedError as e:
        result.diags += [d for info in e.diagnostics for d in diags_of(info)]
        result.failed = True
        return result
    result.output = module.operation.get_asm(
        enable_debug_info=args.mlir_print_debuginfo,
        print_generic_op_form=args.mlir_print_op_generic,
    )
    return result


def process_text(text: str, source: str, pipeline: str, args) -> Result:
    """Parses and runs `pipeline` in a forked child (see `backends/isolate.py`): an MLIR
    assertion or segfault is reported as an error located at the chunk's first line."""
    try:
        return run_isolated(_process_text, text, source, pipeline, args)
    except ChildCrashed as crash:
        return Result(diags=[_crash_diag(crash, text, source, pipeline, args)], failed=True)


def _crash_diag(crash: ChildCrashed, text: str, source: str, pipeline: str, args) -> Diag:
    """The crash as an error at the chunk's first line, naming the pass when a pass-by-pass
    replay crashes in one."""
    lines = text.splitlines()
    line = next(
        (i for i, t in enumerate(lines, 1) if t.strip() and not t.strip().startswith("//")), 1
    )
    running = " ".join(f"--stage {s}" for s in args.stage) if args.stage else "the pass pipeline"
    what = running if crash.step == "pipeline" else (crash.step or "startup")
    if crash.step == "pipeline" and text:
        failing = crashing_pass(text, pipeline)
        what = f"pass '{failing}' of {running}" if failing else what
    message = f"MLIR crashed ({crash.signal}) in {what}: {crash.reason}"
    return Diag("error", message, f"{source}:{line}:1", (source, line, 1))


def _process_text(report, text: str, source: str, pipeline: str, args) -> Result:
    ctx, diags = make_context(), []
    handler = _collect(ctx, diags)
    try:
        report("parsing")
        try:
            module = parse_module(text, source_name=source, context=ctx)
        except IRParseError as e:
            return Result(diags=diags + parse_error_diags(e, source), failed=True)
        report("pipeline")
        return run_on_module(module, pipeline, args, diags)
    finally:
        handler.detach()


def load_exported_program(path: str):
    import torch

    # torch.export.load logs a traceback before trying the legacy format; the error we raise
    # says the same in one line.
    torch_log = logging.getLogger("torch.export")
    level = torch_log.level
    torch_log.setLevel(logging.ERROR)
    try:
        return torch.export.load(path)
    except Exception as e:  # OSError, RuntimeError, zipfile.BadZipFile, KeyError...
        raise ToolError(f"cannot load an exported program: {_first_line(e)}", where=path) from None
    finally:
        torch_log.setLevel(level)


def process_pt2(path: str, pipeline: str, args) -> Result:
    from aten_mlir.frontend import import_program

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # torch's own pytree deprecations
            program = import_program(load_exported_program(path))
    except Exception as e:
        if not _is_ours(e):
            raise
        raise ToolError(_first_line(e), where=path) from None
    text = program.text(debug_info=True)
    try:  # reparsed in a fresh context: the program's may own threads the child lacks
        return run_isolated(_process_pt2, text, path, pipeline, args)
    except ChildCrashed as crash:
        crash.step = "pipeline"
        return Result(diags=[_crash_diag(crash, text, path, pipeline, args)], failed=True)


def _process_pt2(report, text: str, path: str, pipeline: str, args) -> Result:
    ctx, diags = make_context(), []
    handler = _collect(ctx, diags)
    try:
        report("pipeline")
        return run_on_module(ir.Module.parse(text, ctx), pipeline, args, diags)
    finally:
        handler.detach()


def _process_chunks(args, pipeline: str) -> tuple[list[str], list[str], bool]:
    """(outputs, stderr lines, failed) of the textual input, chunk by chunk."""
    text, source = read_input(args.input)
    chunks = split_input(text) if args.split_input_file else [text]
    if len(chunks) > 1:
        warm_up_meta()  # once here, not once per forked chunk
    outputs, messages, failed = [], [], False
    for chunk in chunks:
        result = process_text(chunk, source, pipeline, args)
        outputs.append(result.output)
        if args.verify_diagnostics:
            problems = verify_diagnostics(result.diags, parse_expectations(chunk), source)
            messages += problems
            failed |= bool(problems)
        else:
            messages += [str(d) for d in result.diags]
            failed |= result.failed
    return outputs, messages, failed


def run(argv: list[str]) -> int:
    args, pipeline = parse_args(argv)
    if args.list_passes:
        print(list_passes())
        return 0
    if args.list_stages:
        print(list_stages(args.target or "cpu"))
        return 0
    if args.version:
        print(version())
        return 0
    # Reject a bad pipeline before reading any input, as mlir-opt does.
    build_pass_manager(parse_pipeline(pipeline), context=make_context())
    if args.import_pt2:
        result = process_pt2(args.input, pipeline, args)
        outputs, messages, failed = [result.output], [str(d) for d in result.diags], result.failed
    else:
        outputs, messages, failed = _process_chunks(args, pipeline)
    for line in messages:
        print(line, file=sys.stderr)
    if any(outputs) or not failed:
        write_output(args.output, "// -----\n".join(outputs))
    return 1 if failed else 0


def _is_ours(e: BaseException) -> bool:
    """An exception of aten-mlir's own (expected user errors), or MLIR's."""
    ours = type(e).__module__.startswith("aten_mlir.")
    return ours or isinstance(e, (ToolError, ir.MLIRError))


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def import_main(argv: list[str] | None = None) -> int:
    """`aten-import FILE.pt2 [aten-opt flags]`: prints the imported module of a saved program."""
    return main(["--import", *(sys.argv[1:] if argv is None else argv)])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["aten-import"]:  # `aten-opt aten-import FILE.pt2`, as the subcommand
        argv = ["--import", *argv[1:]]
    try:
        return run(argv)
    except Exception as e:
        if not _is_ours(e):
            raise  # a bug in aten-mlir: keep the traceback
        print(f"{getattr(e, 'where', 'aten-opt')}: error: {_first_line(e)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
