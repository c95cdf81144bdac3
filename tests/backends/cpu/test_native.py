"""The CPU backend's calling convention: dtypes, shapes, results' ownership, input checks."""

from __future__ import annotations

import ctypes
import gc

import pytest
import torch
from mlir import ir
from mlir.passmanager import PassManager

from aten_mlir.backends.cpu import (
    NativeLibrary,
    compile_llvm_module,
    link,
    native,
    parse_memref_type,
)

# A test-only lowering to the LLVM dialect; the real pipeline lives in backends/cpu/pipeline.py.
PIPELINE = (
    "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, "
    "convert-bufferization-to-memref, convert-linalg-to-loops, lower-affine, convert-scf-to-cf, "
    "expand-strided-metadata, convert-math-to-llvm, convert-math-to-libm, finalize-memref-to-llvm, "
    "convert-arith-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-index-to-llvm, "
    "reconcile-unrealized-casts)"
)


def lower(source: str) -> str:
    """func/linalg/arith on tensors -> LLVM-dialect text with `_mlir_ciface_` wrappers."""
    with ir.Context():
        module = ir.Module.parse(source)
        for op in module.body.operations:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        PassManager.parse(PIPELINE).run(module.operation)
        return str(module)


def binary(name: str, ty: str, body: str = "arith.addf", dims: tuple[int, ...] = ()) -> str:
    """`name(a, b) = body(a, b)` elementwise on `ty`; `dims` are its dynamic dimensions."""
    rank = ty.count("x") if "<" in ty else 0
    index = ", ".join(f"d{i}" for i in range(rank))
    identity = f"affine_map<({index}) -> ({index})>"
    element = ty[ty.rindex("x") + 1 if rank else ty.index("<") + 1 : -1]
    consts = "".join(f"%c{i} = arith.constant {i} : index\n" for i in dims)
    sizes = "".join(f"%d{i} = tensor.dim %a, %c{i} : {ty}\n" for i in dims)
    empty_args = ", ".join(f"%d{i}" for i in dims)
    return f"""
func.func @{name}(%a: {ty}, %b: {ty}) -> {ty} {{
  {consts}{sizes}%e = tensor.empty({empty_args}) : {ty}
  %r = linalg.generic {{indexing_maps = [{identity}, {identity}, {identity}],
      iterator_types = [{", ".join(['"parallel"'] * rank)}]}}
      ins(%a, %b : {ty}, {ty}) outs(%e : {ty}) {{
    ^bb0(%x: {element}, %y: {element}, %o: {element}):
      %z = {body} %x, %y : {element}
      linalg.yield %z : {element}
  }} -> {ty}
  return %r : {ty}
}}"""


# element -> (torch dtype, the element type the IR computes on, the elementwise op).
# i1 tensors are stored as i8 0/1 bytes: MLIR 22's memref-to-llvm asserts (aborts the process)
# on memref loads/stores of sub-byte integers, so a lowering keeps bools in i8 memrefs.
ELEMENTS = {
    "f16": (torch.float16, "f16", "arith.addf"),
    "bf16": (torch.bfloat16, "bf16", "arith.addf"),
    "f32": (torch.float32, "f32", "arith.addf"),
    "f64": (torch.float64, "f64", "arith.addf"),
    "i1": (torch.bool, "i8", "arith.xori"),
    "i8": (torch.int8, "i8", "arith.addi"),
    "i16": (torch.int16, "i16", "arith.addi"),
    "i32": (torch.int32, "i32", "arith.addi"),
    "i64": (torch.int64, "i64", "arith.addi"),
}


def dtype_module(element: str) -> str:
    _, storage, body = ELEMENTS[element]
    t = storage
    return "\n".join(
        [
            binary("add", f"tensor<2x3x{t}>", body),
            binary("add_dyn", f"tensor<?x?x{t}>", body, dims=(0, 1)),
            binary("add_mixed", f"tensor<?x3x{t}>", body, dims=(0,)),
            binary("add0", f"tensor<{t}>", body),
            f"func.func @copy(%a: tensor<?x?x{t}>) -> tensor<?x?x{t}> "
            f"{{ return %a : tensor<?x?x{t}> }}",
        ]
    )


ALIASING = """
func.func @ident(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }
func.func @cst() -> tensor<3xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func @twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r, %r : tensor<4xf32>, tensor<4xf32>
}
func.func @mixed(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %a, %c, %a : tensor<4xf32>, tensor<3xf32>, tensor<4xf32>
}
func.func @dynid(%a: tensor<?xf32>) -> tensor<?xf32> { return %a : tensor<?xf32> }
func.func @sink(%a: tensor<4xf32>) { return }
func.func @exp(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %r = linalg.exp ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def sample(dtype: torch.dtype, shape) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.randn(shape).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape).bool()
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, dtype=torch.int64).to(dtype)


def plus(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """`arith.add*` semantics: i1 addition is xor; integers wrap."""
    return a ^ b if a.dtype == torch.bool else a + b


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("native_cache")


@pytest.fixture(scope="module")
def aliasing(cache_dir) -> NativeLibrary:
    return compile_llvm_module(lower(ALIASING), cache_dir=cache_dir)


@pytest.fixture(scope="module")
def dtype_lib(cache_dir):
    """Compiles each dtype's module once, on first use."""
    libs: dict[str, NativeLibrary] = {}

    def get(element: str) -> NativeLibrary:
        if element not in libs:
            libs[element] = compile_llvm_module(lower(dtype_module(element)), cache_dir=cache_dir)
        return libs[element]

    return get


def test_parse_memref_type():
    spec = parse_memref_type("memref<2x?xf32>")
    assert (spec.rank, spec.dtype, spec.sizes) == (2, torch.float32, (2, None))
    assert spec.static_shape is None and spec.strides is None
    spec = parse_memref_type("memref<bf16>")
    assert (spec.rank, spec.static_shape, spec.strides) == (0, (), ())
    assert parse_memref_type("memref<0x3x4xi1>").strides == (12, 4, 1)
    with ir.Context():
        assert parse_memref_type(ir.MemRefType.parse("memref<4x?xi64>")).sizes == (4, None)
    for bad in ("memref<4xf32, strided<[2]>>", "memref<4xf32, 1>", "tensor<4xf32>", "memref<4xc8>"):
        with pytest.raises(ValueError):
            parse_memref_type(bad)


@pytest.mark.parametrize("element", ELEMENTS)
def test_dtype_round_trips(dtype_lib, element):
    lib, dtype = dtype_lib(element), ELEMENTS[element][0]
    a, b = sample(dtype, (2, 3)), sample(dtype, (2, 3))
    (out,) = lib.function("add", [f"memref<2x3x{element}>"] * 2, [f"memref<2x3x{element}>"])(a, b)
    assert out.dtype == dtype and out.shape == (2, 3) and torch.equal(out, plus(a, b))

    dyn = lib.function("add_dyn", [f"memref<?x?x{element}>"] * 2, [f"memref<?x?x{element}>"])
    for shape in ((5, 7), (1, 1), (0, 3), (4, 0)):
        a, b = sample(dtype, shape), sample(dtype, shape)
        (out,) = dyn(a, b)
        assert out.shape == shape and out.dtype == dtype and torch.equal(out, plus(a, b))

    mixed = lib.function("add_mixed", [f"memref<?x3x{element}>"] * 2, [f"memref<?x3x{element}>"])
    a, b = sample(dtype, (6, 3)), sample(dtype, (6, 3))
    assert torch.equal(mixed(a, b)[0], plus(a, b))

    a, b = sample(dtype, ()), sample(dtype, ())
    (out,) = lib.function("add0", [f"memref<{element}>"] * 2, [f"memref<{element}>"])(a, b)
    assert out.shape == () and torch.equal(out, plus(a, b))

    copy = lib.function("copy", [f"memref<?x?x{element}>"], [f"memref<?x?x{element}>"])
    a = sample(dtype, (3, 4))
    (out,) = copy(a)
    assert torch.equal(out, a) and out.data_ptr() != a.data_ptr()
    assert copy(sample(dtype, (0, 0)))[0].shape == (0, 0)


def test_uint8_is_passed_as_i8_bits(dtype_lib):
    lib = dtype_lib("i8")
    a = torch.tensor([[200, 255, 0], [1, 128, 77]], dtype=torch.uint8)
    (out,) = lib.function("add", ["memref<2x3xui8>"] * 2, ["memref<2x3xui8>"])(a, a)
    assert out.dtype == torch.uint8 and torch.equal(out, a + a)
    # signless i8 takes either byte type and returns int8 bits
    (out,) = lib.function("add", ["memref<2x3xi8>"] * 2, ["memref<2x3xi8>"])(a, a)
    assert torch.equal(out, (a + a).view(torch.int8))


def test_non_contiguous_inputs_are_made_contiguous(dtype_lib):
    add = dtype_lib("f32").function("add_dyn", ["memref<?x?xf32>"] * 2, ["memref<?x?xf32>"])
    a, b = torch.randn(4, 6).t(), torch.randn(6, 8)[:, ::2]
    assert torch.equal(add(a, b)[0], a + b)
    c = torch.randn(3, 1).expand(3, 5)
    assert torch.equal(add(c, c)[0], c + c)


def test_aliasing_and_constant_results(aliasing):
    a = torch.arange(4, dtype=torch.float32)
    ident = aliasing.function("ident", ["memref<4xf32>"], ["memref<4xf32>"])
    cst = aliasing.function("cst", [], ["memref<3xf32>"])
    twice = aliasing.function("twice", ["memref<4xf32>"], ["memref<4xf32>"] * 2)
    mixed = aliasing.function(
        "mixed", ["memref<4xf32>"], ["memref<4xf32>", "memref<3xf32>", "memref<4xf32>"]
    )
    dynid = aliasing.function("dynid", ["memref<?xf32>"], ["memref<?xf32>"])
    sink = aliasing.function("sink", ["memref<4xf32>"], [])
    # Enough rounds that a double or foreign free would abort (glibc checks its tcache).
    for _ in range(200):
        (out,) = ident(a)
        assert torch.equal(out, a) and out.data_ptr() != a.data_ptr()
        assert torch.equal(cst()[0], torch.tensor([1.0, 2.0, 3.0]))
        x, y = twice(a)
        assert torch.equal(x, a + a) and torch.equal(y, a + a) and x.data_ptr() != y.data_ptr()
        x, c, y = mixed(a)
        assert torch.equal(x, a) and torch.equal(y, a) and torch.equal(c, cst()[0])
        assert torch.equal(dynid(torch.ones(5))[0], torch.ones(5))
        assert dynid(torch.ones(0))[0].shape == (0,)
        assert sink(a) == []
    assert torch.equal(a, torch.arange(4, dtype=torch.float32))


def spy_results(fn) -> list:
    """Records the raw result words and input pointers of each call of `fn`."""
    seen, take = [], fn._take_results
    fn._take_results = lambda raw, pointers: seen.append((raw, pointers)) or take(raw, pointers)
    return seen


def test_results_own_fresh_heap_buffers(aliasing):
    """The deallocation pipeline clones aliases of arguments and globals: results are malloc'd."""
    calls = {
        "ident": (["memref<4xf32>"], ["memref<4xf32>"]),
        "dynid": (["memref<?xf32>"], ["memref<?xf32>"]),
        "cst": ([], ["memref<3xf32>"]),
        "twice": (["memref<4xf32>"], ["memref<4xf32>"] * 2),
        "mixed": (["memref<4xf32>"], ["memref<4xf32>", "memref<3xf32>", "memref<4xf32>"]),
    }
    a, seen = torch.ones(4), {}
    for name, (args, results) in calls.items():
        fn = aliasing.function(name, args, results)
        seen[name] = spy_results(fn)
        fn(*[a] * len(args))
    for name, [(raw, pointers)] in seen.items():
        allocated = raw[0 :: len(raw) // len(calls[name][1])]
        assert not set(allocated) & {0, 0xDEADBEEF, *pointers}, name
    assert len(set(seen["twice"][0][0][0::5])) == 1  # `return %r, %r`: one buffer, freed once
    assert len(set(seen["mixed"][0][0][0::5])) == 3  # `return %a, %cst, %a`: three copies


def test_foreign_results_are_not_freed(tmp_path):
    """Without buffer deallocation, results alias the argument or a global: copied, never freed."""
    source = "\n".join(ALIASING.split("\n")[1:6])  # @ident and @cst
    with ir.Context():
        module = ir.Module.parse(source)
        for op in module.body.operations:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        PassManager.parse(PIPELINE.replace("buffer-deallocation-pipeline, ", "")).run(
            module.operation
        )
        lib = compile_llvm_module(module, cache_dir=tmp_path)
    ident = lib.function("ident", ["memref<4xf32>"], ["memref<4xf32>"])
    cst = lib.function("cst", [], ["memref<3xf32>"])
    raw = spy_results(ident)
    a = torch.arange(4.0)
    for _ in range(100):
        (out,) = ident(a)
        assert torch.equal(out, a) and out.data_ptr() != a.data_ptr()
        assert torch.equal(cst()[0], torch.tensor([1.0, 2.0, 3.0]))
    assert raw[0][0][0] == a.data_ptr()


def test_libm_and_libc_free_match(aliasing):
    (out,) = aliasing.function("exp", ["memref<?xf32>"], ["memref<?xf32>"])(torch.zeros(3))
    assert torch.equal(out, torch.ones(3))
    own_malloc = ctypes.cast(ctypes.CDLL(str(aliasing.path)).malloc, ctypes.c_void_p).value
    assert own_malloc == ctypes.cast(ctypes.CDLL(None).malloc, ctypes.c_void_p).value


@pytest.mark.parametrize(
    "args, match",
    [
        ((torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3)), "argument 0.*float64"),
        ((torch.ones(2, 3), torch.ones(3, 2)), r"argument 1.*memref<2x3xf32>.*\[3, 2\]"),
        ((torch.ones(2, 3), torch.ones(2, 3, 1)), "argument 1"),
        ((torch.ones(2, 3), torch.ones(2, 3, device="meta")), "argument 1.*meta"),
        ((torch.ones(2, 3), [1.0]), "argument 1.*list"),
        ((torch.ones(2, 3),), "expected 2 arguments, got 1"),
    ],
)
def test_input_checks(dtype_lib, args, match):
    add = dtype_lib("f32").function("add", ["memref<2x3xf32>"] * 2, ["memref<2x3xf32>"])
    with pytest.raises(ValueError, match=match):
        add(*args)


def test_dynamic_input_checks(dtype_lib):
    mixed = dtype_lib("f32").function("add_mixed", ["memref<?x3xf32>"] * 2, ["memref<?x3xf32>"])
    with pytest.raises(ValueError, match="argument 0"):
        mixed(torch.ones(2, 4), torch.ones(2, 4))
    with pytest.raises(ValueError, match="argument 1"):
        mixed(torch.ones(2, 3), torch.ones(2))
    # shapes that passed are remembered with their strides; others are still checked each time
    for rows in (5, 1, 5):
        a, b = torch.randn(rows, 3), torch.randn(rows, 3)
        assert torch.equal(mixed(a, b)[0], a + b)
        for bad in (torch.ones(rows, 4), torch.ones(rows, 3, 1), torch.ones(rows * 3)):
            with pytest.raises(ValueError, match="argument 1"):
                mixed(a, bad)


def test_bound_arguments_are_checked_once_and_read_at_every_call(dtype_lib, aliasing):
    mixed = dtype_lib("f32").function("add_mixed", ["memref<?x3xf32>"] * 2, ["memref<?x3xf32>"])
    weight = torch.randn(4, 3)
    add = mixed.bind({1: weight})
    x = torch.randn(4, 3)
    assert torch.equal(add(x)[0], x + weight)
    weight.mul_(2)  # an in-place update (a mutated buffer) is seen: the pointer was bound
    assert torch.equal(add(x)[0], x + weight)
    with pytest.raises(ValueError, match="argument 0"):  # the free argument is still checked
        add(torch.ones(4, 2))
    with pytest.raises(ValueError, match="expected 1 unbound arguments, got 2"):
        add(x, x)
    with pytest.raises(ValueError, match="argument 1.*memref<\\?x3xf32>"):  # checked at bind
        mixed.bind({1: torch.ones(2)})
    # a bound input is an input: a result aliasing it is copied, never freed or wrapped
    ident = aliasing.function("ident", ["memref<4xf32>"], ["memref<4xf32>"]).bind(
        {0: torch.arange(4.0)}
    )
    for _ in range(50):
        (out,) = ident()
        assert torch.equal(out, torch.arange(4.0))


def test_unknown_function(aliasing):
    with pytest.raises(ValueError, match="no function 'nope'"):
        aliasing.function("nope", [], [])


def test_module_functions_do_not_bind_to_libc(tmp_path):
    """`-Bsymbolic`: a function named like a libc one (`abs`) calls itself, not libc's."""
    lib = compile_llvm_module(
        lower(binary("abs", "tensor<4xf32>")), opt_level=0, cache_dir=tmp_path
    )
    a = torch.randn(4)
    assert torch.equal(
        lib.function("abs", ["memref<4xf32>"] * 2, ["memref<4xf32>"])(a, a)[0], a + a
    )


def test_portable_cpu_build_rounds_bf16(tmp_path, monkeypatch):
    """A CPU without native bf16 conversion uses the bundled `__truncsfbf2`."""
    monkeypatch.setattr(native, "CPU", "x86-64")
    lib = compile_llvm_module(lower(binary("add", "tensor<?xbf16>", dims=(0,))), cache_dir=tmp_path)
    add = lib.function("add", ["memref<?xbf16>"] * 2, ["memref<?xbf16>"])
    a = torch.randn(1000).to(torch.bfloat16)
    b = (torch.randn(1000) * 1e-2).to(torch.bfloat16)
    # Exact ties (round to even both ways) and specials.
    a = torch.cat([a, torch.tensor([1.0, 1.0 + 2**-7, float("inf"), -float("inf"), float("nan")])])
    b = torch.cat([b, torch.tensor([2**-8, 2**-8, 1.0, 1.0, 1.0])])
    a, b = a.to(torch.bfloat16), b.to(torch.bfloat16)
    (out,) = add(a, b)
    expected = a + b
    assert torch.equal(out[:-1], expected[:-1]) and out[-1].isnan()
    assert out[-5].item() == 1.0 and out[-4].item() == 1.0 + 2**-6


def test_jit_fallback_without_linker(monkeypatch, tmp_path):
    monkeypatch.setattr(link, "_which", lambda name: None)
    lib = compile_llvm_module(lower(ALIASING), cache_dir=tmp_path)
    assert (
        not lib.cached and not lib.from_cache and lib.path is None and not list(tmp_path.iterdir())
    )
    a = torch.arange(4, dtype=torch.float32)
    x, y = lib.function("twice", ["memref<4xf32>"], ["memref<4xf32>"] * 2)(a)
    assert torch.equal(x, a + a) and torch.equal(y, a + a)
    assert torch.equal(lib.function("exp", ["memref<?xf32>"], ["memref<?xf32>"])(a)[0], a.exp())
    assert lib.function("sink", ["memref<4xf32>"], [])(a) == []


def test_ld_when_no_cc(monkeypatch, tmp_path):
    import shutil

    monkeypatch.setattr(link, "_which", lambda name: shutil.which(name) if name == "ld" else None)
    lib = compile_llvm_module(lower(ALIASING), cache_dir=tmp_path)
    assert lib.cached and lib.path.is_file()
    a = torch.arange(4, dtype=torch.float32)
    assert torch.equal(lib.function("exp", ["memref<?xf32>"], ["memref<?xf32>"])(a)[0], a.exp())


def test_comparisons_return_bool(tmp_path):
    """A lowering stores i1 results as 0/1 bytes; declared `i1`, they come back as torch.bool."""
    identity = "affine_map<(d0) -> (d0)>"
    source = f"""
func.func @gt(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xi8> {{
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xi8>
  %r = linalg.generic {{indexing_maps = [{identity}, {identity}, {identity}],
      iterator_types = ["parallel"]}} ins(%a, %b : tensor<?xf32>, tensor<?xf32>)
      outs(%e : tensor<?xi8>) {{
    ^bb0(%x: f32, %y: f32, %o: i8):
      %c = arith.cmpf ogt, %x, %y : f32
      %z = arith.extui %c : i1 to i8
      linalg.yield %z : i8
  }} -> tensor<?xi8>
  return %r : tensor<?xi8>
}}"""
    lib = compile_llvm_module(lower(source), cache_dir=tmp_path)
    gt = lib.function("gt", ["memref<?xf32>"] * 2, ["memref<?xi1>"])
    a, b = torch.randn(50), torch.randn(50)
    (out,) = gt(a, b)
    assert out.dtype == torch.bool and torch.equal(out, a > b)


def test_a_fresh_result_buffer_is_the_tensors_storage_until_its_last_view_goes(aliasing):
    twice = aliasing.function("twice", ["memref<4xf32>"], ["memref<4xf32>"] * 2)
    a = torch.arange(4, dtype=torch.float32)
    x, _ = twice(a)
    view = x[1:]
    # no copy was made: the storage is the native buffer, not one torch allocated (resizable)
    assert not x.untyped_storage().resizable()
    del x
    gc.collect()
    # the buffer was not freed with `x`: calls that malloc and fill would reuse it
    for _ in range(50):
        twice(a + 100)
    assert torch.equal(view, torch.tensor([2.0, 4.0, 6.0]))


def test_a_fresh_directory_compiles_its_support_beside_the_build_once(tmp_path, monkeypatch):
    import threading

    from aten_mlir.backends import warm_up

    compiled = []  # (thread name, command) of each cc run compiling runtime_support.c
    run = link._run

    def recording(command, stdin=None):
        if "-c" in command:
            compiled.append((threading.current_thread().name, command))
        return run(command, stdin)

    monkeypatch.setattr(link, "_run", recording)
    lib = compile_llvm_module(lower(binary("add", "tensor<33xf32>")), cache_dir=tmp_path)
    a, b = torch.randn(33), torch.randn(33)
    add = lib.function("add", ["memref<33xf32>"] * 2, ["memref<33xf32>"])
    assert torch.equal(add(a, b)[0], a + b)
    # built once, by the background thread, which the build joined before its link
    assert [name for name, _ in compiled] == ["aten_mlir-warm-up"], compiled
    assert not warm_up._started[tmp_path].is_alive()
    assert list((tmp_path / "support").glob("runtime_support-*.o"))
