"""`torch.compile(model, backend="aten_mlir")`: the dynamo backend.

Dynamo hands over an FX graph of torch ops; AOTAutograd (`aot_autograd`) functionalizes it,
decomposes it with our table and splits it into a forward and a backward graph (one inference
graph when nothing needs a gradient). Each graph is compiled by `compile()`, the same stages as a
`torch.export` program (`frontend/fx_graphs.py` makes the graph an ExportedProgram), and is called
boxed: AOTAutograd passes a list of arguments the callee may free as it goes.

Registered under "aten_mlir" by the `torch_dynamo_backends` entry point in pyproject.toml (so
the name works after install, with nothing imported first); `register()` does it by hand where
the package is not installed.

Options (`torch.compile(m, backend="aten_mlir", options={...})`):
  target     "cpu" (default) or "triton"
  dump_dir   a folder: each graph's stages go to `<dump_dir>/<n>-<forward|backward|inference>/`
             (default `$ATEN_MLIR_DUMP_DIR`)
  cache      False to skip the on-disk cache (default True)
  cache_dir  the on-disk cache's folder (default `$ATEN_MLIR_CACHE_DIR` or ~/.cache/aten_mlir)
  fallback   "eager" (default): a graph that does not compile runs eagerly, with a warning and
             `counters["aten_mlir"]["graph_fallbacks"]` counted; "error": raise instead

Ops a compiled graph runs eagerly between its native segments (ops without a lowering, ops of
other namespaces such as a user's `torch.library` ops) are counted in
`counters["aten_mlir"]["op_fallbacks"]`, by name in `counters["aten_mlir_op_fallbacks"]`, and
logged once per graph at INFO (`logging.getLogger("aten_mlir.backends.dynamo")`).
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

log = logging.getLogger(__name__)
_COUNTS = itertools.count()
_OPTIONS = ("target", "dump_dir", "cache", "cache_dir", "fallback", "opt_level")


@dataclass(frozen=True)
class BackendOptions:
    target: str = "cpu"
    dump_dir: str | None = None
    cache: bool = True
    cache_dir: str | None = None
    fallback: str = "eager"
    opt_level: int = 2

    @staticmethod
    def parse(options: dict | None) -> BackendOptions:
        options = dict(options or {})
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ValueError(
                f"aten_mlir backend: unknown option(s) {unknown}; options: {list(_OPTIONS)}"
            )
        options.setdefault("dump_dir", os.environ.get("ATEN_MLIR_DUMP_DIR") or None)
        parsed = BackendOptions(**options)
        if parsed.target not in ("cpu", "triton"):
            raise ValueError(f"aten_mlir backend: unknown target '{parsed.target}' (cpu, triton)")
        if parsed.fallback not in ("eager", "error"):
            raise ValueError("aten_mlir backend: fallback must be 'eager' or 'error'")
        return parsed


def aten_mlir_backend(gm: torch.fx.GraphModule, example_inputs, options: dict | None = None):
    """The dynamo backend: `torch.compile(m, backend="aten_mlir", options=...)`."""
    from functorch.compile import min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd

    parsed = BackendOptions.parse(options)
    if parsed.target == "cpu":  # the directory's `cc` builds overlap the tracing below
        from aten_mlir.backends import warm_up

        warm_up.start(parsed.cache_dir)
    compile_as = functools.partial(_compile_graph, parsed)
    # the backward graph is handed over with the forward one, not at the first backward call:
    # both lower at once (`CompiledGraph`); a forward never differentiated still pays for its
    # backward's lowering, on the other core
    eager_backward = torch._functorch.config.patch(
        force_non_lazy_backward_lowering=parsed.target == "cpu"
    )
    backend = aot_autograd(
        # as Inductor: the forward saves fewer activations (elementwise ops such as a batch
        # norm's ReLU are recomputed in the backward, where they fuse into its generics)
        partition_fn=min_cut_rematerialization_partition,
        fw_compiler=functools.partial(compile_as, "forward"),
        bw_compiler=functools.partial(compile_as, "backward"),
        inference_compiler=functools.partial(compile_as, "inference"),
        decompositions=decompositions(),
    )
    with eager_backward:
        return backend(gm, example_inputs)


def register() -> None:
    """Registers the backend name where the package's entry point is not installed."""
    from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend

    if "aten_mlir" not in _COMPILER_FNS:
        register_backend(aten_mlir_backend, name="aten_mlir")


@functools.cache
def decompositions() -> dict:
    """What AOTAutograd decomposes while tracing: torch's core-ATen table, less every op our
    decompose stage takes itself (its MLIR rules keep the core backward ops whole, for the
    vectorized kernels that lower them)."""
    from torch._decomp import core_aten_decompositions

    from aten_mlir.dialects.opdefs import op_name_of_overload
    from aten_mlir.frontend.importer import handled_by_decompose

    ours = handled_by_decompose()
    return {
        op: fn
        for op, fn in core_aten_decompositions().items()
        if not (isinstance(op, torch._ops.OpOverload) and op_name_of_overload(op) in ours)
    }


class CompiledGraph:
    """One compiled AOTAutograd graph, called boxed. Its compile finishes at the first call
    (`finish`, from `compile_later`): a training step's forward and backward graphs lower at
    once, each in its own child, and the forward's native build runs while the backward's
    lowering goes on. A graph that does not finish runs eagerly, as one that does not start."""

    def __init__(self, finish, plan, options: BackendOptions, kind: str, gm):
        self.compiled, self.plan = None, plan
        self._finish, self._options, self._kind, self._graph = finish, options, kind, gm
        self._eager, self._lock = None, threading.Lock()
        # an instance attribute: the wrappers AOTAutograd puts around the backward copy
        # `__dict__`, not class attributes
        self._boxed_call = True
        self._inputs, self._outputs = _gather(plan)

    def __call__(self, args: list):
        if self._finish is not None:
            with self._lock:  # one finish, whichever thread calls first
                if self._finish is not None:
                    self._compile()
        if self.compiled is None:
            return self._eager(args)
        results = self.compiled(*self._inputs(args))
        outputs = self._outputs(args, results)
        args.clear()
        return outputs

    def _compile(self) -> None:
        from torch._dynamo.utils import counters

        try:
            compiled = self._finish()
        except Exception as e:  # noqa: BLE001 - any failure of ours leaves the graph to eager
            self._eager = _fallback(self._options, self._kind, self._graph, e)
        else:
            compiled.warn_requires_grad = False  # AOTAutograd differentiates around the call
            self.compiled = compiled
            counters["aten_mlir"]["graphs_compiled"] += 1
            counters["aten_mlir"]["op_fallbacks"] += len(compiled.fallbacks)
            _report_op_fallbacks(self._kind, compiled.fallbacks)
        finally:
            self._finish, self._graph = None, None


def _report_op_fallbacks(kind: str, fallbacks) -> None:
    """Names the ops a compiled graph runs eagerly: once per graph at INFO (with where each is
    written), and counted per op in `counters["aten_mlir_op_fallbacks"]` beside the totals in
    `counters["aten_mlir"]`, so a test or user reads which ops, not only how many."""
    from torch._dynamo.utils import counters

    for f in fallbacks:
        counters["aten_mlir_op_fallbacks"][f.op] += 1
    if fallbacks:
        log.info(
            "aten_mlir: the %s graph runs %d op(s) eagerly: %s",
            kind,
            len(fallbacks),
            "; ".join(str(f) for f in fallbacks),
        )


def _gather(plan):
    """(`inputs(args)`, `outputs(args, results)`): `plan.inputs` and `plan.results` as one
    `itemgetter` each where no size is computed (no `SymInt` carrier or output): a training
    graph has dozens of each, picked one by one in Python per call before."""
    from aten_mlir.backends.plan import picker

    if plan.carrier_args or any(kind == "size" for kind, _ in plan.outputs):
        return plan.inputs, plan.results
    inputs = picker(plan.tensor_args)
    constants = tuple(what for kind, what in plan.outputs if kind == "constant")
    getters: dict = {}  # (results, arguments) -> picker over `(*results, *args, *constants)`

    def outputs(args, results):
        if not isinstance(results, (tuple, list)):
            results = (results,)  # a program with one result returns it bare, as modules do
        key = (len(results), len(args))
        picks = getters.get(key)
        if picks is None:
            picks = getters[key] = picker(_output_positions(plan.outputs, *key))
        return list(picks((*results, *args, *constants)))

    return inputs, outputs


def _output_positions(outputs, results: int, arguments: int) -> list[int]:
    """Where each output is in `(*results, *args, *constants)`."""
    positions, constant = [], results + arguments
    for kind, what in outputs:
        if kind == "result":
            positions.append(what)
        elif kind == "argument":
            positions.append(results + what)
        else:
            positions.append(constant)
            constant += 1
    return positions


def _fallback(options: BackendOptions, kind: str, gm, error: Exception):
    """`gm` run eagerly (boxed) for a graph that did not compile, with a warning; raises
    `error` instead with `fallback="error"`."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.utils import counters

    from aten_mlir.backends.compiler import CompileError
    from aten_mlir.frontend import UnsupportedOpError
    from aten_mlir.frontend.fx_graphs import GraphImportError

    if options.fallback == "error":
        raise error
    known = isinstance(error, (GraphImportError, UnsupportedOpError, CompileError))
    first = (str(error).splitlines() or [""])[0]
    reason = first if known else f"internal error {type(error).__name__}: {first}"
    counters["aten_mlir"]["graph_fallbacks"] += 1
    warnings.warn(f"aten_mlir: the {kind} graph runs eagerly: {reason}", UserWarning, stacklevel=3)
    return make_boxed_func(gm.forward)


def _compile_graph(options: BackendOptions, kind: str, gm, example_inputs):
    from torch._dispatch.python import no_python_dispatcher
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    from aten_mlir.backends.compiler import compile_later
    from aten_mlir.frontend import import_program
    from aten_mlir.frontend.fx_graphs import exported_from_graph

    number = next(_COUNTS)
    if options.target == "cpu":  # joined before any compile (or fork) runs beside it
        from aten_mlir.backends import warm_up

        warm_up.wait()
    dump_dir = Path(options.dump_dir) / f"{number}-{kind}" if options.dump_dir else None
    try:
        ep, plan = exported_from_graph(gm)
        # AOTAutograd calls its compilers with its fake mode and the Python dispatcher on: the
        # torch calls of our stages (constants, meta result types) must run as plain eager
        # ones. Under the Python dispatcher a meta `_to_copy` to another device recursed
        # through torch's decomposition until the C stack overflowed (a crashed process).
        with unset_fake_temporarily(), no_python_dispatcher():
            program = import_program(ep, functional=True)
            finish = compile_later(
                program,
                target=options.target,
                dump_dir=dump_dir,
                opt_level=options.opt_level,
                cache_dir=options.cache_dir,
                cache=options.cache,
            )
    except Exception as e:  # noqa: BLE001 - any failure of ours leaves the graph to eager
        return _fallback(options, kind, gm, e)
    return CompiledGraph(finish, plan, options, kind, gm)
