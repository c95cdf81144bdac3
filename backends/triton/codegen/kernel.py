"""One loop nest (or serial region) of a segment function -> the source of one `@triton.jit` kernel.

Modes:
- `block`: the outermost `scf.parallel`'s iterations are flattened into `xindex` (row-major, the
  last dim fastest, so neighbouring lanes touch neighbouring elements); each program runs XBLOCK
  lanes, masked by `xmask`. Values that do not depend on a lane stay scalars. Inner `scf.for`
  loops run in every lane with uniform bounds; an accumulator the loop loads and stores at one
  address is kept in a register across the loop (the looped reduction).
- `scalar`: one program per iteration, every value a scalar. Used when control flow depends on
  the lane (a loop bound or branch read from memory), which blocks cannot express.
- `serial`: one program runs a region with no parallel loop (scans, scatters, sort merges).

Memrefs are pointer parameters with their strides (and sizes, where read) as int parameters;
views made inside the kernel are offset/stride expressions over them.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from aten_mlir.dialects import describe_location
from aten_mlir.registry import Registry

from ..loop_ir import all_ops, dead_after, defined_inside, ops_after, refills, root_of
from . import kernel_loops
from .kernel_memory import Memory, private
from .kernel_types import Kernel, KernelError, NeedScalar, Param, View, param_signature, tl_type
from .ops import OPS, expression
from .source_text import comment
from .views import kernel_view

# op name -> the KernelWriter method that writes it (scalar ops are in ops.OPS), registered
# right above each method; `_emit_op` calls the method of that name on the writer, so a
# subclass's override (a row tail's emit_load, a prologue's emit_store) is the one that runs.
KERNEL_OPS: Registry[Callable] = Registry("Triton kernel statement")


class KernelWriter:
    """Writes the kernel of `root` (an op of a segment function) in `mode`."""

    def __init__(self, name: str, root: ir.Operation, mode: str):
        self.name, self.root, self.mode = name, root, mode
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict = {}
        self.block: set = set()
        self.views: dict = {}
        self.params: list[Param] = []
        self.param_of: dict = {}
        self.span = [root]  # the nests the kernel runs, in order (a tail may chain two)
        self.inside = defined_inside(root)
        self.counter = 0
        self.locations: dict[str, None] = {}
        self.memory = Memory()
        self.store_lines: list[tuple[int, str]] = []  # (line index, pointer) of every store
        self.ptr_root: dict[str, ir.Value] = {}
        self.read: set[str] = set()
        self.loop_ivs: set[str] = set()
        self.widened: set = set()  # bf16 values an f32 rule reads as f32 (ops.expression)
        self.written: set[str] = set()
        self.loop_registers: dict = {}  # memref.load/store -> the register an scf.for holds
        self.lanes = "[BM, BN]" if mode == "tile" else "[XBLOCK]"  # the shape of a block value

    # -- names ---------------------------------------------------------------------------------
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def tl_type(self, t: ir.Type) -> str:
        return tl_type(t)

    def _param(self, key, name: str, kind: str, source, dim: int = -1) -> str:
        if key not in self.param_of:
            self.param_of[key] = name
            self.params.append(Param(name, kind, source, dim, param_signature(kind, source)))
        return self.param_of[key]

    def v(self, value: ir.Value) -> str:
        """The expression of a scalar/block value (outside values become parameters, outside
        constants are inlined)."""
        if value in self.names:
            return self.names[value]
        owner = value.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "arith.constant":
            return OPS["arith.constant"](self, owner.operation)
        if value in self.inside:
            raise KernelError(f"value used before its definition: {value}")
        return self._param(value, self.fresh("s"), "scalar", value)

    def t(self, value: ir.Value) -> str:
        """`v(value)` as a tl tensor: an index literal, or a loop counter (a Python int in the
        interpreter), becomes a typed 0-d tensor."""
        expr = self.v(value)
        if expr.lstrip("-").isdigit() or expr in self.loop_ivs:
            return f"tl.full([], {expr}, {tl_type(value.type)})"
        return expr

    def unsigned(self, expr: str, t: ir.Type) -> str:
        if isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1:
            return expr
        if isinstance(t, ir.IndexType):  # lane indices are int32: widen (signed) first
            return f"{expr}.to(tl.int64).to(tl.uint64, bitcast=True)"
        return f"{expr}.to(tl.uint{ir.IntegerType(t).width}, bitcast=True)"

    def is_block(self, *values) -> bool:
        return any(v in self.block for v in values)

    def define(self, value: ir.Value, expr: str, block: bool | None = None) -> str:
        name = self.fresh()
        self.emit(f"{name} = {expr}")
        self.names[value] = name
        if block:
            self.block.add(value)
        return name

    # -- memrefs -------------------------------------------------------------------------------
    def view(self, memref: ir.Value) -> View:
        if memref in self.views:
            return self.views[memref]
        if memref in self.inside:
            raise KernelError(f"memref {memref.type} made by an op the emitter does not know")
        t = ir.MemRefType(memref.type)
        ptr = self._param(memref, self.fresh("p"), "memref", memref)
        self.ptr_root[ptr] = root_of(memref)
        strides = [
            self._param((memref, "stride", d), f"{ptr}_s{d}", "stride", memref, d)
            for d in range(t.rank)
        ]
        sizes = [
            str(t.get_dim_size(d))
            if not t.is_dynamic_dim(d)
            else self._param((memref, "size", d), f"{ptr}_n{d}", "size", memref, d)
            for d in range(t.rank)
        ]
        view = View(ptr, "0", strides, sizes)
        self.views[memref] = view
        return view

    def address(self, memref: ir.Value, indices, write: bool = False) -> str:
        view = self.view(memref)
        (self.written if write else self.read).add(view.ptr)
        terms = [view.offset] if view.offset != "0" else []
        terms += [f"{self.v(i)} * {s}" for i, s in zip(indices, view.strides)]
        return f"{view.ptr} + " + (" + ".join(terms) if terms else "0")

    # -- the nest ------------------------------------------------------------------------------
    def write(self) -> Kernel:
        bounds = []
        root = self.root
        self.emit("pid = tl.program_id(0)")
        if self.mode == "serial":
            self.emit_op(root)
            for i, r in enumerate(root.results):  # scalar results go back through memory
                ptr = self._param(("result", i), f"out{i}", "result", r, i)
                self.emit(f"tl.store({ptr}, {self.v(r)})")
        else:
            lbs, ubs, steps = _parallel_bounds(root)
            bounds = list(zip(lbs, ubs, steps))
            rank = len(lbs)
            counts = [self._param(("count", d), f"n{d}", "count", None, d) for d in range(rank)]
            if self.mode == "block":
                self.emit("xindex = pid * XBLOCK + tl.arange(0, XBLOCK)")
                self.emit(f"xmask = xindex < {' * '.join(counts) or '1'}")
                rest = "xindex"
            else:
                rest = "pid"
            ivs = list(root.regions[0].blocks[0].arguments)
            for d in reversed(range(rank)):
                lane = f"({rest} % {counts[d]})" if d else rest
                name = self.fresh("i")
                self.emit(f"{name} = {self.v(lbs[d])} + {lane} * {self.v(steps[d])}")
                self.names[ivs[d]] = name
                if self.mode == "block":
                    self.block.add(ivs[d])
                if d:
                    nxt = self.fresh("r")
                    self.emit(f"{nxt} = {rest} // {counts[d]}")
                    rest = nxt
            self.emit_block(root.regions[0].blocks[0])
        args = ", ".join(p.name for p in self.params)
        xblock = ", XBLOCK: tl.constexpr" if self.mode == "block" else ""
        ops = "\n".join(comment(loc) for loc in self.locations)
        header = f"{ops}\n@triton.jit\ndef {self.name}({args}{xblock}):"
        self._drop_dead_stores()
        body = "\n".join(line for line in self.lines if line)
        return Kernel(
            self.name,
            self.mode,
            header + "\n" + body + "\n",
            self.params,
            bounds,
            list(self.locations),
            # what the emitted code still loads and stores (forwarding removed some)
            {p for p in self.read if f"tl.load({p} +" in body},
            {p for p in self.written if f"tl.store({p} +" in body},
        )

    def _drop_dead_stores(self) -> None:
        """Stores to a buffer only this kernel uses (or that the program refills or frees before
        reading it again), when no load of it is left here (forwarding removed them all), write
        what nothing reads."""
        loaded = {
            self.ptr_root[p]
            for p in self.ptr_root
            if any(f"tl.load({p} +" in x for x in self.lines)
        }
        inside_ops = None
        for line, ptr in self.store_lines:
            root = self.ptr_root[ptr]
            if root in loaded:
                continue
            if inside_ops is None:
                inside_ops = {op for nest in self.span for op in all_ops(nest)}
            text = self.lines[line]
            if text and (private(root, inside_ops) or self._dead_after(root)):
                self.lines[line] = text[: len(text) - len(text.lstrip())] + "pass"

    def _dead_after(self, root: ir.Value) -> bool:
        # a kernel inside a host loop runs again: its later ops are not all that follows
        last = self.span[-1]
        if last.parent is None or last.parent.name != "func.func":
            return False
        return dead_after(root, root, ops_after(last), refills)

    def store_line(self, addr: str, memref: ir.Value, value: str, block: bool, mask: str) -> None:
        ptr = addr.split(" ")[0]
        self.written.add(ptr)
        self.emit(f"tl.store({addr}, {value}{mask})")
        line = len(self.lines) - 1
        self.store_lines.append((line, ptr))
        self.memory.store(addr, memref, value, block, line)

    def emit_block(self, block: ir.Block) -> None:
        for op in block.operations:
            op = op.operation
            if op.name in ("scf.reduce", "scf.yield"):
                continue
            self.emit_op(op)

    def mask(self, *values) -> str:
        if not self.is_block(*values):
            return ""
        return {"block": ", mask=xmask", "tile": ", mask=cmask"}.get(self.mode, "")

    def emit_op(self, op: ir.Operation) -> None:
        self._emit_op(op)
        if op.regions and op.name != "scf.for":  # emit_for records what its loop leaves
            self.memory.region(op)

    def _emit_op(self, op: ir.Operation) -> None:
        loc = describe_location(op.location)
        if loc and loc != "<unknown>":
            self.locations.setdefault(loc)
        if op.name in OPS:
            self.define(op.results[0], expression(self, op), self.is_block(*op.operands))
            return
        method = KERNEL_OPS.get(op.name)
        if method is None:
            raise KernelError(f"{loc}: '{op.name}' has no Triton translation")
        getattr(self, method.__name__)(op)

    @KERNEL_OPS.register("memref.load")
    def emit_load(self, op: ir.Operation) -> None:
        memref, *indices = op.operands
        block = self.is_block(*indices)
        addr = self.address(memref, indices)
        known = self.memory.load(addr, memref)
        if known is not None:  # store-to-load forwarding
            self.names[op.results[0]] = known.expr
            if known.block:
                self.block.add(op.results[0])
            return
        self.define(op.results[0], f"tl.load({addr}{self.mask(*indices)})", block)

    @KERNEL_OPS.register("memref.store")
    def emit_store(self, op: ir.Operation) -> None:
        value, memref, *indices = op.operands
        if self.is_block(value) and not self.is_block(*indices) and self.mode in ("block", "tile"):
            raise NeedScalar()
        addr = self.address(memref, indices, write=True)
        self.store_line(
            addr, memref, self.v(value), self.is_block(value), self.mask(value, *indices)
        )

    @KERNEL_OPS.register("memref.dim")
    def emit_dim(self, op: ir.Operation) -> None:
        dim = self._const_index(op.operands[1])
        self.names[op.results[0]] = self.view(op.operands[0]).sizes[dim]

    @KERNEL_OPS.register_each("memref.subview", "memref.expand_shape", "memref.collapse_shape")
    def emit_view(self, op: ir.Operation) -> None:
        self.views[op.results[0]] = kernel_view(self, op)

    @KERNEL_OPS.register_each("memref.cast", "memref.assume_alignment")
    def emit_alias(self, op: ir.Operation) -> None:
        self.views[op.results[0]] = self.view(op.operands[0])

    def _const_index(self, v: ir.Value) -> int:
        owner = v.owner.operation
        if owner.name != "arith.constant":
            raise KernelError("memref.dim with a dynamic dim index")
        return ir.IntegerAttr(owner.attributes["value"]).value

    def _uniform_bounds(self, *values) -> None:
        if self.mode in ("block", "tile") and self.is_block(*values):
            raise NeedScalar()

    @KERNEL_OPS.register("scf.for")
    def emit_for(self, op: ir.Operation) -> None:
        kernel_loops.emit_for(self, op)

    @KERNEL_OPS.register("scf.if")
    def emit_if(self, op: ir.Operation) -> None:
        cond = op.operands[0]
        self._uniform_bounds(cond)
        results = [self.fresh("b") for _ in op.results]
        self.memory.region(op)
        before = dict(self.memory.stored)
        self.emit(f"if {self.v(cond)}:")
        for region_index, region in enumerate(op.regions):
            if region_index == 1:
                if not region.blocks:
                    break
                self.emit("else:")
            self.depth += 1
            self.memory.stored = dict(before)
            block = region.blocks[0]
            start = len(self.lines)
            self.emit_block(block)
            term = block.operations[len(block.operations) - 1] if len(block.operations) else None
            if term is not None and term.operation.name == "scf.yield":
                for name, y in zip(results, term.operation.operands):
                    self.emit(f"{name} = {self.v(y)}")
                    if self.is_block(y):
                        raise NeedScalar()
            if len(self.lines) == start:
                self.emit("pass")
            self.depth -= 1
        for res, name in zip(op.results, results):
            self.names[res] = name

    @KERNEL_OPS.register("scf.parallel")  # nested: sequential loops inside the lane
    def emit_nested_parallel(self, op: ir.Operation) -> None:
        lbs, ubs, steps = _parallel_bounds(op)
        ivs = list(op.regions[0].blocks[0].arguments)
        self._uniform_bounds(*lbs, *ubs, *steps)
        for lb, ub, step, iv in zip(lbs, ubs, steps, ivs):
            name = self.fresh("k")
            self.loop_ivs.add(name)
            self.emit(f"for {name} in range({self.v(lb)}, {self.v(ub)}, {self.v(step)}):")
            self.names[iv] = name
            self.depth += 1
        start = len(self.lines)
        self.memory.region(op)
        self.emit_block(op.regions[0].blocks[0])
        if len(self.lines) == start:
            self.emit("pass")
        self.depth -= len(ivs)


def _parallel_bounds(op: ir.Operation):
    n = (len(op.operands) - len(op.results)) // 3
    ops = list(op.operands)
    return ops[:n], ops[n : 2 * n], ops[2 * n : 3 * n]
