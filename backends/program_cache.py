"""The compiled-program cache: a second compile of the same program (any process) runs no MLIR.

Two keys lead to an entry, each hashing the target, the options and the compiler (version and
sources) with the program. `program_key` hashes the imported IR (with locations, so fallback
reports keep their lines). `export_key` hashes `frontend.fingerprint` of an ExportedProgram,
taken before torch's `run_decompositions`, which alone costs more than the rest of a cached
compile; its entry also holds what the importer would have added to the plan (the signature and
`@main`'s type), and the state is the ExportedProgram's own, bound at run time.

An entry is `<key>.program.mlir`: a line with its key and the sha256 of the rest, a line naming
the native library's cache key, a line with the saved signature (JSON, `null` in an IR-keyed
entry), then a module of the `@main` plan (calls to native segments, eager fallbacks) and
declarations of the segments. Written atomically; an entry that is not ours, does not match its
hash or key, or fails to parse, restore or bind in any way is a miss and is deleted: the
compile runs and writes it again. When the directory cannot be written, nothing is stored (one
`CacheWarning`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import NamedTuple

import torch
from mlir import ir
from mlir.dialects import func

from aten_mlir.frontend.arguments import call_fields
from aten_mlir.frontend.fingerprint import fingerprint
from aten_mlir.frontend.program import (
    INPUT_ROLES,
    OUTPUT_ROLES,
    InputSpec,
    OutputSpec,
    Program,
    Signature,
)

# every CPU compile uses these: imported with the package, not inside the first cache hit
from .cpu import compiler_version, load_cached_library
from .cpu.cache import atomic_path, cache_directory, read_owned, remove, touch, warn_uncached
from .cpu.cache_dir import stored

PLAN_VERSION = "3"


class Restored(NamedTuple):
    """What import_program would have given besides the module: state, signature, `@main`'s
    type."""

    state: dict
    signature: Signature
    function_type: ir.FunctionType


class Plan(NamedTuple):
    main: ir.Operation
    library: object  # a `NativeLibrary`
    keep_alive: ir.Module  # the module that held `main`
    restored: Restored | None  # given an ExportedProgram: its state and the saved signature


@functools.cache
def source_digest() -> str:
    """sha256 of the compiler's own Python sources: a changed lowering must not reuse old code."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    h = hashlib.sha256()
    for sub in ("dialects", "frontend", "passes", "backends"):
        # os.walk and plain strings, not Path.rglob: this runs on every cache hit
        for directory, subdirs, files in os.walk(os.path.join(root, sub)):
            subdirs.sort()
            relative = os.path.relpath(directory, root).replace(os.sep, "/")
            for name in sorted(f for f in files if f.endswith(".py")):
                with open(os.path.join(directory, name), "rb") as f:
                    h.update(f"{relative}/{name}".encode() + b"\0" + f.read())
    return h.hexdigest()


def plan_context() -> ir.Context:
    """A context for a plan read from the cache: parsing loads the few dialects it uses, where
    `make_context` loads every dialect (most of the cost of a cache hit's context)."""
    context = ir.Context(load_on_create_dialects=[])
    context.allow_unregistered_dialects = True  # the aten ops of eager fallbacks
    return context


# `ATEN_MLIR_*` variables that do not change generated code (every other one is a kernel
# switch, `ATEN_MLIR_VNNI=0` say, and keys the cache)
_NOT_CODEGEN = frozenset(
    {
        "ATEN_MLIR_CACHE_DIR",
        "ATEN_MLIR_CACHE_MAX_BYTES",
        "ATEN_MLIR_DUMP_DIR",
        "ATEN_MLIR_ISOLATE",
        "ATEN_MLIR_PASS_TIMING",
        "ATEN_MLIR_STEP_TIMEOUT",
        "ATEN_MLIR_THREADS",
    }
)


def _codegen_choices(target: str) -> str:
    """What else decides the code of a `target` program: the CPU it is built for (AMX or FMA
    kernels, vector width) and the kernel switches (`ATEN_MLIR_AMX=0`, `ATEN_MLIR_VNNI=0`...);
    hosts of different kinds sharing a cache directory then keep entries of their own."""
    if target != "cpu":
        return ""
    from aten_mlir.backends.cpu.target import target_key

    switches = sorted(
        f"{k}={v}"
        for k, v in os.environ.items()
        if k.startswith("ATEN_MLIR_") and k not in _NOT_CODEGEN
    )
    return "\0".join([target_key(), *switches])


def _key(kind: str, target: str, opt_level: int, program: str) -> str:
    h = hashlib.sha256()
    parts = (PLAN_VERSION, kind, compiler_version(), source_digest(), target, f"O{opt_level}")
    for part in (*parts, _codegen_choices(target)):
        h.update(part.encode() + b"\0")
    h.update(program.encode())
    return h.hexdigest()


def program_key(program: Program, target: str, opt_level: int) -> str:
    return _key("ir", target, opt_level, program.text(debug_info=True))


def export_key(ep: torch.export.ExportedProgram, target: str, opt_level: int) -> str | None:
    """The key of `ep` before it is imported; None when `fingerprint` cannot see all of it."""
    digest = fingerprint(ep)
    return None if digest is None else _key("export", target, opt_level, digest)


def _state_of(ep: torch.export.ExportedProgram) -> dict:
    return {**ep.state_dict, **ep.constants}


def saved_signature(program: Program, ep: torch.export.ExportedProgram) -> dict | None:
    """What an `export_key` entry must hold to rebuild `program`'s signature, or None when `ep`
    alone would not bind the same (a state tensor the import made, other pytree specs, a
    constant output without an exact literal)."""
    sig, state = program.signature, _state_of(ep)
    named = [s.name for s in sig.inputs if s.role != "user_input"]
    named += [s.name for s in sig.outputs if s.role == "mutated_buffer"]
    if any(name not in state or program.state.get(name) is not state[name] for name in named):
        return None
    if sig.in_spec != ep.call_spec.in_spec or sig.out_spec != ep.call_spec.out_spec:
        return None
    constants = [[pos, repr(value)] for pos, value in sorted(sig.constant_outputs.items())]
    try:
        exact = all(
            type(_literal(text)) is type(sig.constant_outputs[pos]) and repr(_literal(text)) == text
            for pos, text in constants
        )
    except ValueError:
        exact = False
    if not exact:
        return None
    ftype = ir.TypeAttr(program.main.attributes["function_type"]).value
    return {
        "inputs": [[s.role, s.name] for s in sig.inputs],
        "outputs": [[s.role, s.name] for s in sig.outputs],
        "constant_outputs": constants,
        "function_type": str(ftype),
    }


def _literal(text: str):
    try:
        return ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        raise ValueError(f"not a literal: {text}") from e


def restore(saved: dict, ep: torch.export.ExportedProgram, context: ir.Context) -> Restored:
    """`saved_signature`'s dict read back against `ep`; ValueError when it is malformed or
    names state `ep` lacks."""
    try:
        inputs = [InputSpec(role, name) for role, name in saved["inputs"]]
        outputs = [OutputSpec(role, name) for role, name in saved["outputs"]]
        constants = {int(pos): _literal(text) for pos, text in saved["constant_outputs"]}
        ftype = ir.FunctionType(ir.Type.parse(saved["function_type"], context))
    except (KeyError, TypeError, ir.MLIRError) as e:
        raise ValueError(f"malformed saved signature: {e}") from None
    state = _state_of(ep)
    if (
        any(s.role not in INPUT_ROLES for s in inputs)
        or any(s.role not in OUTPUT_ROLES for s in outputs)
        or len(ftype.inputs) != len(inputs)
        or len(ftype.results) != len(outputs)
        or not all(isinstance(s.name, str) for s in inputs + outputs)
        or any(s.role != "user_input" and s.name not in state for s in inputs)
    ):
        raise ValueError("the saved signature does not fit the program")
    signature = Signature(
        inputs, outputs, constants, ep.call_spec.in_spec, ep.call_spec.out_spec, **call_fields(ep)
    )
    return Restored(state, signature, ftype)


def _path(cache_dir, key: str) -> Path:
    return cache_directory(cache_dir) / f"{key}.program.mlir"


def _header(key: str, body: bytes) -> bytes:
    """The entry's first line: a copy under another key, or any changed byte, is a miss."""
    return f"// plan {key} sha256 {hashlib.sha256(body).hexdigest()}".encode()


def store_plan(
    cache_dir, keys: list[str], main: ir.Operation, library_key: str, signature=None
) -> None:
    """Writes the entry under each key: the library key, `signature`, then a module of `main`
    and its callees' signatures."""
    with main.context, ir.Location.unknown():
        module = ir.Module.create()
        seen = set()
        with ir.InsertionPoint(module.body):
            for op in main.regions[0].blocks[0].operations:
                op = op.operation
                if op.name != "func.call":
                    continue
                name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                if name not in seen:
                    seen.add(name)
                    ftype = ir.FunctionType.get(
                        [v.type for v in op.operands], [r.type for r in op.results]
                    )
                    func.FuncOp(name, ftype, visibility="private")
        module.body.append(main.clone())
    body = (
        f"// library: {library_key}\n// signature: {json.dumps(signature)}\n"
        + module.operation.get_asm(enable_debug_info=True)
    ).encode()
    size = 0
    try:
        for key in keys:
            with atomic_path(_path(cache_dir, key)) as tmp:
                size += tmp.write_bytes(_header(key, body) + b"\n" + body)
    except OSError as error:
        warn_uncached(cache_directory(cache_dir), error)
        return
    stored(cache_directory(cache_dir), size)


def load_plan(cache_dir, key: str, context: ir.Context, ep=None) -> Plan | None:
    """The entry `key` if it is valid (and, given the ExportedProgram `ep`, holds a signature
    that fits it), else None; a corrupt entry is deleted."""
    path = _path(cache_dir, key)
    touch(path)  # first: an eviction running now spares an entry being loaded
    data = read_owned(path)
    if data is None:  # missing, or another user's
        return None
    header, _, body = data.partition(b"\n")
    plan = None
    if header == _header(key, body):
        try:
            plan = _parse_entry(body.decode(), cache_dir, context, ep)
        except Exception:  # whatever a damaged entry raises, it is a miss, never an error
            plan = None
    if plan is None:
        remove(path)
    return plan


def discard_plan(cache_dir, key: str) -> None:
    """Deletes the entry `key` (found corrupt)."""
    remove(_path(cache_dir, key))


def _parse_entry(text: str, cache_dir, context: ir.Context, ep) -> Plan | None:
    library_line, _, rest = text.partition("\n")
    signature_line, _, body = rest.partition("\n")
    if not (
        library_line.startswith("// library: ") and signature_line.startswith("// signature: ")
    ):
        return None
    try:
        saved = json.loads(signature_line.removeprefix("// signature: "))
        restored = None if ep is None else restore(saved, ep, context)
    except ValueError:
        return None
    library = load_cached_library(library_line.removeprefix("// library: ").strip(), cache_dir)
    if library is None:
        return None
    try:
        module = ir.Module.parse(body, context)
    except ir.MLIRError:
        return None
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            op.detach_from_parent()
            return Plan(op, library, module, restored)
    return None
