"""The compiled-program cache: a second compile of the same program (any process) runs no MLIR.

Keyed by sha256 of the input IR (with locations, so fallback reports keep their lines), the
target, the options and the compiler version. An entry is `<key>.program.mlir`: the `@main`
plan (calls to native segments, eager fallbacks) with declarations of the segments, and a first
line naming the native library's own cache key. Written atomically; a corrupt entry is ignored.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path

from mlir import ir
from mlir.dialects import func

from aten_mlir.frontend.program import Program

PLAN_VERSION = "1"


@functools.cache
def source_digest() -> str:
    """sha256 of the compiler's own Python sources: a changed lowering must not reuse old code."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for sub in ("dialects", "frontend", "passes", "backends"):
        for path in sorted((root / sub).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def program_key(program: Program, target: str, opt_level: int) -> str:
    from .cpu import compiler_version

    h = hashlib.sha256()
    for part in (PLAN_VERSION, compiler_version(), source_digest(), target, f"O{opt_level}"):
        h.update(part.encode() + b"\0")
    h.update(program.text(debug_info=True).encode())
    return h.hexdigest()


def _path(cache_dir, key: str) -> Path:
    from .cpu import default_cache_dir

    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return directory / f"{key}.program.mlir"


def store_plan(cache_dir, key: str, main: ir.Operation, library_key: str | None) -> None:
    """Writes the entry: the library key, then a module of `main` and its callees' signatures."""
    if library_key is None:
        return  # an in-process (uncached) library cannot be found again
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
    text = f"// library: {library_key}\n" + module.operation.get_asm(enable_debug_info=True)
    path = _path(cache_dir, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def load_plan(cache_dir, key: str, context: ir.Context):
    """(`@main` op, library, the module that held it: keep it alive) of a valid entry, else None
    (a corrupt entry is deleted)."""
    from .cpu import load_cached_library

    path = _path(cache_dir, key)
    try:
        text = path.read_text()
    except OSError:
        return None
    first, _, body = text.partition("\n")
    library_key = first.removeprefix("// library: ").strip()
    library = load_cached_library(library_key, cache_dir) if library_key else None
    try:
        module = ir.Module.parse(body, context) if library is not None else None
    except ir.MLIRError:
        module = None
    if module is None:
        path.unlink(missing_ok=True)
        return None
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            op.detach_from_parent()
            return op, library, module
    path.unlink(missing_ok=True)
    return None
