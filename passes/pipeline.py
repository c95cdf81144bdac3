"""Pass pipelines in mlir-opt syntax, mixing aten passes and upstream MLIR passes.

    builtin.module(aten-verify,canonicalize,func.func(cse,aten-drop-dead),aten-verify{target=core})

The outer `builtin.module(...)` is optional. Upstream passes go to the `PassManager` as text;
aten passes are Python passes (`PassManager.add(callable)`). The bindings cannot nest a Python
pass, so an aten pass inside `func.func(...)` runs at module level on every `func.func` directly
in the module, in pipeline order, as the nested pass manager would for a function-local pass.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from mlir import ir, passmanager

from aten_mlir.dialects import describe_location

from .registry import PASSES, ModulePass, PassFailure, PipelineError, UnknownPassError, did_you_mean


@dataclass
class PassElement:
    name: str
    options: str = ""  # the text between the braces, verbatim

    def __str__(self) -> str:
        return self.name + (f"{{{self.options}}}" if self.options else "")


@dataclass
class NestedPipeline:
    op_name: str  # `func.func`, or `any`
    elements: list = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.op_name}({','.join(str(e) for e in self.elements)})"


class PipelineFailedError(RuntimeError):
    """A pass failed; `diagnostics` holds MLIR's error diagnostics (`ir.DiagnosticInfo`)."""

    def __init__(self, diagnostics: list, message: str):
        self.diagnostics = diagnostics
        super().__init__(message)


# set (to 1) to print each pipeline run's time per pass to stderr
TIMING_ENV = "ATEN_MLIR_PASS_TIMING"
_NAME = re.compile(r"[A-Za-z_][\w.$-]*")


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def error(self, what: str) -> PipelineError:
        return PipelineError(f"pass pipeline: {what} at column {self.pos + 1} of '{self.text}'")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def elements(self, closing: str | None) -> list:
        found = []
        while True:
            self.skip_space()
            if closing and self.text.startswith(closing, self.pos):
                return found
            found.append(self.element())
            self.skip_space()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif self.pos == len(self.text) and closing is None:
                return found
            elif not (closing and self.text.startswith(closing, self.pos)):
                raise self.error(f"expected ',' or '{closing or 'end'}'")

    def element(self):
        m = _NAME.match(self.text, self.pos)
        if not m:
            at_end = self.pos == len(self.text)
            raise self.error("unexpected end" if at_end else "expected a pass or operation name")
        self.pos = m.end()
        self.skip_space()
        if self.text.startswith("(", self.pos):
            self.pos += 1
            inner = self.elements(")")
            if not self.text.startswith(")", self.pos):
                raise self.error("unbalanced parentheses")
            self.pos += 1
            return NestedPipeline(m.group(), inner)
        if self.text.startswith("{", self.pos):
            return PassElement(m.group(), self.braced())
        return PassElement(m.group())

    def braced(self) -> str:
        start, depth, quoted = self.pos, 0, False
        for i in range(self.pos, len(self.text)):
            ch = self.text[i]
            if ch == '"':
                quoted = not quoted
            elif not quoted and ch in "{}":
                depth += 1 if ch == "{" else -1
                if depth == 0:
                    self.pos = i + 1
                    return self.text[start + 1 : i]
        raise self.error("unbalanced braces")


def parse_pipeline(text: str) -> list:
    """The elements of the module-level pipeline; a single outer `builtin.module(...)` is
    unwrapped."""
    if not text.strip():
        return []
    elements = _Parser(text.strip()).elements(None)
    if len(elements) == 1 and isinstance(elements[0], NestedPipeline):
        if elements[0].op_name == "builtin.module":
            return elements[0].elements
    return elements


def _leaves(elements: list, path: tuple[str, ...] = ()):
    """(nesting path, PassElement) for every pass, in pipeline order."""
    for e in elements:
        if isinstance(e, NestedPipeline):
            yield from _leaves(e.elements, (*path, e.op_name))
        else:
            yield path, e


def _nest(path: tuple[str, ...], text: str) -> str:
    for op_name in reversed(path):
        text = f"{op_name}({text})"
    return text


def _anchored_ops(op: ir.Operation, path: tuple[str, ...]) -> list[ir.Operation]:
    """The ops a nested pass manager at `path` below `op` would run on (directly nested ops)."""
    if not path:
        return [op]
    found = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                if path[0] in ("any", child.name):
                    found.extend(_anchored_ops(child, path[1:]))
    return found


def _python_pass(p: ModulePass, path: tuple[str, ...]):
    def run(op: ir.Operation, pass_) -> None:
        failed = False
        for target in _anchored_ops(op, path):
            try:
                p.run(target)
            except PassFailure:
                failed = True
        if failed:
            pass_.signal_pass_failure()

    return run


@functools.cache
def upstream_pass_names() -> tuple[str, ...]:
    """Names of the upstream passes (from `mlir-opt --help`; only used to suggest names)."""
    import mlir

    mlir_opt = Path(list(mlir.__path__)[0]) / "bin" / "mlir-opt"
    try:
        out = subprocess.run([mlir_opt, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(re.findall(r"^\s+--([a-z][\w.-]*)\s+-\s", out.stdout, re.MULTILINE))


def _add_upstream(pm: passmanager.PassManager, path: tuple[str, ...], passes: list, context):
    try:
        pm.add(_nest(path, ",".join(str(e) for e in passes)))
    except ValueError as e:
        raise _upstream_error(path, passes, str(e), context) from None


def _upstream_error(path: tuple[str, ...], passes: list, message: str, context) -> PipelineError:
    """The error naming the element (of `passes`) MLIR would not add."""
    text = _nest(path, ",".join(str(e) for e in passes))
    for e in passes:
        try:
            passmanager.PassManager("builtin.module", context).add(_nest(path, str(e)))
            continue
        except ValueError as err:
            message, text = str(err), _nest(path, str(e))
        if "does not refer to a registered pass" in message:
            known = set(PASSES) | set(upstream_pass_names())
            return UnknownPassError(
                f"pass pipeline: unknown pass '{e.name}'{did_you_mean(e.name, known)}"
                " (`aten-opt --list-passes` lists the aten passes)"
            )
        break
    detail = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return PipelineError(f"pass pipeline: cannot add '{text}': {detail}")


def build_pass_manager(pipeline: str | list, context: ir.Context | None = None):
    """A `PassManager` anchored on `builtin.module` running `pipeline` (text or parsed)."""
    elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
    pm = passmanager.PassManager("builtin.module", context=context)
    # Consecutive upstream passes at one nesting path go in together, as one nested pipeline.
    runs = itertools.groupby(_leaves(elements), key=lambda pe: (pe[0], pe[1].name in PASSES))
    for (path, ours), run in runs:
        passes = [e for _, e in run]
        if not ours:
            _add_upstream(pm, path, passes, context)
            continue
        for e in passes:
            instance = PASSES[e.name].from_options(e.options)
            pm.add(
                _python_pass(instance, path),
                name=e.name,
                argument=e.name,
                description=instance.description(),
            )
    return pm


def run_pipeline(
    module: ir.Module | ir.Operation,
    pipeline: str | list,
    print_ir_after_all: bool = False,
    enable_debug_info: bool = False,
    verify_each: bool = True,
) -> None:
    """Runs `pipeline` on `module` in place.

    Raises `PipelineError` for a malformed pipeline, unknown pass or bad option, and
    `PipelineFailedError` (with MLIR's diagnostics) when a pass fails. `print_ir_after_all`
    prints the IR after every pass to stderr, as `mlir-opt --mlir-print-ir-after-all`. With
    `ATEN_MLIR_PASS_TIMING=1` in the environment each run prints MLIR's wall time per pass
    (ours by their names) to stderr, as `mlir-opt --mlir-timing`: a compile prints one report
    per stage (from the isolated child, forwarded when it is done).
    """
    op = module.operation
    pm = build_pass_manager(pipeline, context=op.context)
    pm.enable_verifier(verify_each)
    if print_ir_after_all:
        pm.enable_ir_printing(print_after_all=True, enable_debug_info=enable_debug_info)
    if os.environ.get(TIMING_ENV, "0").strip().lower() not in ("", "0", "false", "no", "off"):
        pm.enable_timing()  # the report goes to stderr when `pm` is destroyed, below
    try:
        pm.run(op)
    except ir.MLIRError as e:
        diags = list(e.error_diagnostics)
        first = f"{describe_location(diags[0].location)}: {diags[0].message}" if diags else str(e)
        more = f" (and {len(diags) - 1} more)" if len(diags) > 1 else ""
        raise PipelineFailedError(diags, f"pass pipeline failed: {first}{more}") from None
    finally:
        del pm
