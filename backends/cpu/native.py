"""Native code from an LLVM-dialect MLIR module: build, cache on disk, load.

Build: `mlir-translate --mlir-to-llvmir`, then `codegen.objects` (`opt` | `llc -O{n}
-relocation-model=pic`, tools from the mlir / llvm wheels, both for the host triple and the CPU
`CPU` names, `target.py`'s `CpuTarget.llvm_flags()`), then `cc -shared`. Without a linker the
module is JIT-compiled in process by MLIR's ExecutionEngine and nothing is cached.
"""

from __future__ import annotations

import ctypes
import functools
import io
import re
import tempfile
from pathlib import Path

from mlir import ir

from aten_mlir.backends import warm_up
from aten_mlir.passes.ir import GLUE

from . import codegen, threads
from .abi import NativeFunction
from .cache import (
    KEY,
    Entry,
    atomic_path,
    cache_directory,
    cache_key,
    check_writable,
    file_sha256,
    private_dir,
    warn_uncached,
)
from .cache_dir import stored
from .link import link, link_command
from .runtime_ir import RUNTIME_IR, route_allocations
from .target import CpuTarget, cpu_target, request_amx, target_key
from .tools import NativeBuildError
from .tools import default_triple as _default_triple
from .tools import run as _run
from .tools import tool as _tool

# `-mcpu` for opt and llc ("native": the host); the cache key holds what it resolves to
# (`target.target_key`), not the string. Tests set a generic CPU to build portable code.
CPU = "native"
_FREE = ctypes.CDLL(None).free
_FREE.argtypes, _FREE.restype = [ctypes.c_void_p], None
# a call of an AMX intrinsic (tile loads, stores, products, configuration) in LLVM IR
_AMX = re.compile(rb"@llvm\.x86\.(?:t[a-z0-9]+|ldtilecfg|sttilecfg)(?:\.internal)?\(")
_CIFACE = re.compile(r'llvm\.func\s+(?:\w+\s+)*@"?_mlir_ciface_([^"(\s]+)')
# a function of glue the MLIR pipeline outlined (`aten-outline-repeated-blocks`), in text
_GLUE = re.compile(r'llvm\.func\s+(?:\w+\s+)*@"?([^"(\s]+)[^\n]*attributes \{[^\n]*aten\.glue')


class NativeLibrary:
    """Compiled code for one module: a loaded .so (or an in-process JIT engine)."""

    def __init__(
        self, handle, *, path, key, functions, from_cache, cached=True, stored=True, keepalive=()
    ):
        self._handle = handle  # ctypes.CDLL, or an ExecutionEngine when not cached
        self._keepalive = keepalive
        self.path: Path | None = path  # None when not stored
        self.key: str | None = key
        self.functions: tuple[str, ...] = tuple(functions)
        self.from_cache: bool = from_cache
        self.cached: bool = cached  # a shared library (not the JIT)
        # in the cache directory: `load_cached_library(key)` finds it again
        self.stored: bool = cached and stored
        # frees a result buffer the compiled code allocated: into the library's cache of
        # temporaries when it has one (runtime_support.c), else libc's free
        self.free = _FREE
        self._release = None
        if cached:
            try:
                self.free = handle["aten_mlir_free"]
                self._release = handle["aten_mlir_release_temporaries"]
            except AttributeError:  # linked without runtime_support.c (`ld -shared`)
                pass
            else:
                self.free.argtypes, self.free.restype = [ctypes.c_void_p], None
                self._release.argtypes, self._release.restype = [], ctypes.c_size_t

    def release_temporaries(self) -> int:
        """Gives the temporaries the library keeps for its next calls back to malloc; the
        bytes released. (One dlopen'ed file is one cache, shared by the libraries over it.)"""
        return self._release() if self._release is not None else 0

    def __del__(self):
        if getattr(self, "_release", None) is not None:
            self._release()

    def __repr__(self) -> str:
        where = "in-process JIT" if not self.cached else self.path or "not stored"
        return f"<NativeLibrary {where} from_cache={self.from_cache} functions={self.functions}>"

    def function(self, name: str, arg_types: list, result_types: list) -> NativeFunction:
        """The function `name` with memref argument / result types (text or `ir.MemRefType`)."""
        count = len(arg_types) + (1 if result_types else 0)
        symbol = f"_mlir_ciface_{name}"
        if self.cached:
            try:
                raw = self._handle[symbol]
            except AttributeError:
                where = self.path or "the library"
                raise ValueError(f"{where} has no function {name!r} ({symbol})") from None
            raw.argtypes = [ctypes.c_void_p] * count
            raw.restype = None
        else:
            address = self._handle.raw_lookup(symbol)
            if not address:
                raise ValueError(f"the JIT-compiled module has no function {name!r} ({symbol})")
            raw = _packed_caller(address, count)
        return NativeFunction(name, raw, arg_types, result_types, owner=self)


def _packed_caller(address: int, count: int):
    """Adapts ExecutionEngine's packed wrapper `void f(void **args)` to `f(*pointers)`."""
    packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
    slots_t = ctypes.c_void_p * max(count, 1)

    def call(*pointers):
        values = slots_t(*pointers)
        base = ctypes.addressof(values)
        args = slots_t(*(base + 8 * i for i in range(count)))
        packed(ctypes.addressof(args))

    return call


def compile_llvm_module(
    module_or_text: ir.Module | str,
    *,
    opt_level: int = 3,
    cache_dir: str | Path | None = None,
) -> NativeLibrary:
    """Compiles (or loads from the disk cache) an LLVM-dialect module with C interfaces. Text is
    keyed as it is; a module on the LLVM IR mlir-translate makes of it, which is the same in
    every process (its bytecode is not: tables ordered by pointer). Built in a private temporary
    directory, not kept, when the cache directory cannot be written."""
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0..3, got {opt_level!r}")
    directory = cache_directory(cache_dir)
    if link_command([Path("x.o")], Path("x.so")) is None:
        return _jit(str(module_or_text), opt_level)
    source, functions, glue = _source(module_or_text)
    llvm_ir = None if isinstance(module_or_text, str) else _translate(source)
    keyed = source if llvm_ir is None else llvm_ir
    entry = Entry(directory, cache_key(keyed, opt_level, target_key()))
    loaded, _ = _load(entry)
    if loaded is not None:
        handle, functions = loaded
        return NativeLibrary(
            handle, path=entry.so, key=entry.key, functions=functions, from_cache=True
        )
    _start_support_builds(directory)
    llvm_ir = _translate(source) if llvm_ir is None else llvm_ir
    build = functools.partial(
        _build, llvm_ir, opt_level=opt_level, functions=functions, glue=glue, cpu=cpu_target()
    )
    try:  # over a corrupt or partial entry: os.replace publishes each file whole
        check_writable(directory)
        handle = build(entry)
    except OSError as error:  # tool failures are NativeBuildErrors: this is the directory
        warn_uncached(directory, error)
    else:
        stored(directory, _size(entry.so) + _size(entry.sidecar))
        return NativeLibrary(
            handle, path=entry.so, key=entry.key, functions=functions, from_cache=False
        )
    try:
        with private_dir() as private:
            handle = build(Entry(private, entry.key))
    except OSError as error:
        raise NativeBuildError(f"cannot build in a temporary directory: {error}") from error
    return NativeLibrary(
        handle, path=None, key=entry.key, functions=functions, from_cache=False, stored=False
    )


def store_llvm_module(
    module: ir.Module, *, opt_level: int = 3, cache_dir: str | Path | None = None
) -> tuple[str, bool] | None:
    """`compile_llvm_module`'s build without the load: the module's library in the cache
    directory, built unless a valid entry for this target is there; (its key, whether it was
    there). None when nothing can be stored (no linker: the JIT; a directory that cannot be
    written). The isolated lowering child builds its module this way, so a graph's build starts
    as soon as its lowering ends; the caller loads the entry (`load_cached_library`), which
    checks it like any cache hit, and builds the module itself when that fails."""
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0..3, got {opt_level!r}")
    directory = cache_directory(cache_dir)
    if link_command([Path("x.o")], Path("x.so")) is None:
        return None
    try:
        check_writable(directory)
    except OSError:  # the caller's own compile builds privately and warns
        return None
    source, functions, glue = _source(module)
    llvm_ir = _translate(source)
    entry = Entry(directory, cache_key(llvm_ir, opt_level, target_key()))
    meta = entry.read_sidecar()
    if meta is not None and meta.get("target") == target_key():
        return entry.key, True
    _start_support_builds(directory)
    try:
        _build(
            llvm_ir,
            entry,
            opt_level=opt_level,
            functions=functions,
            glue=glue,
            cpu=cpu_target(),
            load=False,
        )
    except OSError:  # the directory went away or filled up: the caller builds
        return None
    stored(directory, _size(entry.so) + _size(entry.sidecar))
    return entry.key, False


def _source(module_or_text: ir.Module | str) -> tuple[bytes, list[str], list[str]]:
    """What mlir-translate reads, the functions with a C interface, and the other functions of
    glue. Bytecode, not text: on GPT-2 small it is a quarter of the size, and writing plus
    translating it takes 0.25 s against 0.55 s for printing and translating the text."""
    if isinstance(module_or_text, str):
        text = module_or_text
        return text.encode(), _CIFACE.findall(text), _GLUE.findall(text)
    buffer = io.BytesIO()
    module_or_text.operation.write_bytecode(buffer)
    functions, glue = [], []
    for op in module_or_text.body.operations:
        if op.operation.name == "llvm.func":
            name = ir.StringAttr(op.operation.attributes["sym_name"]).value
            if name.startswith("_mlir_ciface_"):
                functions.append(name.removeprefix("_mlir_ciface_"))
            elif GLUE in op.operation.attributes:
                glue.append(name)
    return buffer.getvalue(), functions, glue


def _start_support_builds(directory: Path) -> None:
    """The directory's runtime support object and thread pool, when missing, built by `cc` in
    a background thread (`warm_up`) while this build runs translate, opt and llc; `_build`
    joins it before its link. Not for the directory whose pool this process already loaded
    and whose support object exists: nothing to build there."""
    if threads._library is not None and any(directory.glob("support/runtime_support-*.o")):
        return
    warm_up.start(directory)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # already replaced or evicted by another process
        return 0


def _translate(source: bytes) -> bytes:
    """The LLVM IR of an LLVM-dialect module (text or bytecode)."""
    return _run([_tool("mlir", "mlir-translate"), "--mlir-to-llvmir"], source)


def load_cached_library(
    key: str, cache_dir: str | Path | None = None, *, from_cache: bool = True
) -> NativeLibrary | None:
    """The library of cache entry `key` (a `NativeLibrary.key`), or None when it is missing,
    corrupt or not ours: lets a caller that keys on its own input skip MLIR entirely.
    `from_cache=False`: an entry a `store_llvm_module` of this compile just built."""
    if not isinstance(key, str) or not KEY.fullmatch(key):
        return None
    entry = Entry(cache_directory(cache_dir), key)
    loaded, _ = _load(entry)
    if loaded is None:
        return None
    return NativeLibrary(
        loaded[0], path=entry.so, key=key, functions=loaded[1], from_cache=from_cache
    )


def _load(entry: Entry):
    """((CDLL, function names), None) for a valid entry built for the current target, else
    (None, why). The target check guards callers that key on their own input (the program
    cache): an entry another kind of host wrote in a shared directory may not run here."""
    meta = entry.read_sidecar()
    if meta is None:
        return None, f"{entry.sidecar} missing, unreadable or not matching {entry.so}"
    if meta.get("target") != target_key():
        return None, f"{entry.so} was built for another CPU ({meta.get('cpu')})"
    try:
        handle = _open(entry.so, meta["functions"], entry.directory, amx=meta.get("amx") is True)
        return (handle, meta["functions"]), None
    except NativeBuildError as error:
        return None, str(error)


def _open(path: Path, functions: list[str], directory: Path, *, amx: bool) -> ctypes.CDLL:
    """dlopen's `path` and checks it defines `functions`' C interfaces. Code with AMX
    instructions (`amx`) loads only once the OS grants the tile state (else its first tile
    instruction kills the process with SIGILL)."""
    if amx and not request_amx():
        raise NativeBuildError(f"{path} uses AMX, which the OS does not grant this process")
    threads.load(directory)  # first: the library binds aten_mlir_parallel_for to the global pool
    try:
        handle = ctypes.CDLL(str(path))
    except OSError as error:
        raise NativeBuildError(f"{path} does not load: {error}") from None
    for name in functions:
        try:
            handle[f"_mlir_ciface_{name}"]
        except AttributeError:
            raise NativeBuildError(f"{path} lacks _mlir_ciface_{name}") from None
    return handle


def _build(
    llvm_ir: bytes,
    entry: Entry,
    *,
    opt_level: int,
    functions: list[str],
    glue: list[str],
    cpu: CpuTarget,
    load: bool = True,
) -> ctypes.CDLL | None:
    """Runs the tools and publishes `<key>.so`, then `<key>.json`, each atomically; returns the
    library, loaded from our own file before it is published (a racing process may replace
    the published one). `load=False`: published unloaded (whoever loads it checks it)."""
    amx = _AMX.search(llvm_ir) is not None
    target = [f"-mtriple={_default_triple()}", *cpu.llvm_flags()]

    # memref.alloc's malloc / free go to runtime_support.c's cache when it is linked in
    module_ir = route_allocations(llvm_ir) if _links_support() else llvm_ir

    with tempfile.TemporaryDirectory(prefix="aten_mlir_build_") as work:
        try:
            objects = codegen.objects(
                module_ir + RUNTIME_IR, target, opt_level, functions, glue, Path(work)
            )
        finally:  # the support builds `compile_llvm_module` started: none outlives the build
            warm_up.join(entry.directory)
        with atomic_path(entry.so) as so:
            link(objects, so, entry.directory)
            digest = file_sha256(so)
            handle = _open(so, functions, entry.directory, amx=amx) if load else None
    entry.write_sidecar(digest, functions, opt_level, cpu, target=target_key(), amx=amx)
    return handle


def _links_support() -> bool:
    """Whether the link adds runtime_support.c (`cc -shared`; `ld -shared` does not)."""
    support = Path("support.o")
    command = link_command([Path("x.o")], Path("x.so"), support)
    return command is not None and str(support) in command


def assembly(llvm_ir: bytes, cpu: CpuTarget, opt_level: int = 3) -> str:
    """The assembly a build for `cpu` makes of `llvm_ir` (code for a CPU this host lacks can be
    read, not run)."""
    target = [f"-mtriple={_default_triple()}", *cpu.llvm_flags()]
    return codegen.assembly(llvm_ir, target, opt_level)


def _jit(text: str, opt_level: int) -> NativeLibrary:
    """In-process fallback when no linker exists: MLIR's ExecutionEngine, nothing on disk."""
    from mlir.execution_engine import ExecutionEngine

    # the engine compiles for the host; tile ops in the text (amx dialect, x86 intrinsics)
    if re.search(r"\bamx\.|x86\.amx|tdpbf16ps", text) and not request_amx():
        raise NativeBuildError("the module uses AMX, which the OS does not grant this process")
    context = ir.Context()
    with context:
        module = ir.Module.parse(text)
        # the engine resolves the pool in the process; built privately: nothing stays on disk
        with private_dir() as private:
            pool = threads.load_if_possible(private)
        engine = ExecutionEngine(module, opt_level=opt_level)
        if pool is None:  # no C compiler for the pool either: outlined loops run serially
            # (register_runtime would bind `_mlir_ciface_<name>`; the call is to the plain name)
            serial = ctypes.cast(threads.serial_parallel_for, ctypes.c_void_p)
            engine.raw_register_runtime("aten_mlir_parallel_for", serial)
    functions = _CIFACE.findall(text)
    return NativeLibrary(
        engine,
        path=None,
        key=None,
        functions=functions,
        from_cache=False,
        cached=False,
        keepalive=(context, module),
    )
