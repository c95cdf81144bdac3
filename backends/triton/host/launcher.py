"""A segment function at loop level -> Triton kernels + the Python launcher that runs them.

The launcher is plain Python over torch tensors: allocations (from a pool that reuses buffers
whose lifetime ended), views (`as_strided`, `view`), copies and size arithmetic run on the host;
each outermost `scf.parallel` becomes one kernel launch, and each maximal piece of sequential
code that touches memory (a scan, a scatter loop) one single-program kernel. Loops that contain
kernels stay host loops around their launches.
"""

from __future__ import annotations

from mlir import ir

from aten_mlir.dialects import describe_location

from ..codegen import epilogue, matmul, operand_prologue
from ..codegen.kernel import KernelWriter
from ..codegen.kernel_types import Kernel, KernelError, NeedScalar
from ..codegen.source_text import launcher_name
from ..loop_ir import all_ops
from ..products import is_matmul_call
from .ops import HOST, host_constant, torch_dtype, typed


class SegmentWriter:
    """Writes the launcher `def run_<name>(...)` of one segment function (the `index`th of the
    module) and collects its kernels."""

    def __init__(self, fn: ir.Operation, prefix: str, index: int):
        self.fn = fn
        self.symbol = ir.StringAttr(fn.attributes["sym_name"]).value
        self.name = launcher_name(self.symbol, index)  # never the symbol itself: see source_text
        self.prefix = prefix
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict = {}
        self.kernels: list[Kernel] = []
        self.counter = 0
        self.prologues: dict = {}  # product call -> the nest deferred to run as its prologue

    def fresh(self, p: str = "t") -> str:
        self.counter += 1
        return f"{p}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def v(self, value: ir.Value) -> str:
        if value in self.names:
            return self.names[value]
        owner = value.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "arith.constant":
            return host_constant(owner.operation)
        raise KernelError(f"launcher: value used before its definition: {value}")

    def write(self) -> str:
        entry = self.fn.regions[0].blocks[0]
        args = []
        for i, arg in enumerate(entry.arguments):
            name = f"arg{i}"
            self.names[arg] = name
            args.append(name)
        for name, arg in zip(args, entry.arguments):
            # an argument typed contiguous may come strided (a transposed input): host reshapes
            # are `.view`s that assume the layout, so it is made what its type says, as the CPU
            # runtime does (a no-op for a contiguous tensor)
            if _identity_layout(arg.type):
                self.emit(f"{name} = {name}.contiguous()")
        self.emit("pool = Pool()")
        self.emit(f"dev = {args[0]}.device" if args else "dev = DEVICE")
        self.emit_block(entry)
        return f"def {self.name}({', '.join(args)}):\n" + "\n".join(self.lines) + "\n"

    def emit_block(self, block: ir.Block, skip_yield: bool = False) -> None:
        ops = [op.operation for op in block.operations]
        i = 0
        while i < len(ops):
            op = ops[i]
            i += 1
            if skip_yield and op.name == "scf.yield":
                continue
            if op.name == "func.call" and is_matmul_call(op):
                i += self.launch_matmul(op, ops[i:])
            elif op.name == "scf.parallel" and self._defer(op, ops[i:]):
                continue
            else:
                self.emit_op(op)

    def emit_op(self, op: ir.Operation) -> None:
        name = op.name
        try:
            self._emit_op(op, name)
        except KernelError as e:
            if str(e).startswith(describe_location(op.location)):
                raise
            raise KernelError(f"{describe_location(op.location)}: {e}") from None

    def _emit_op(self, op: ir.Operation, name: str) -> None:
        rule = HOST.get(name)
        if rule is not None:
            rule(self, op)
        elif name == "scf.parallel":
            self.launch(op)
        elif name in ("scf.for", "scf.if") and (_contains_parallel(op) or _frees_only(op)):
            self.host_control(op)
        elif name in ("scf.for", "scf.if", "scf.while"):
            self.serial(op)
        elif name == "func.call" and is_matmul_call(op):
            self.launch_matmul(op, [])
        else:
            raise KernelError(f"'{name}' has no Triton launcher translation")

    def define(self, value: ir.Value, expr: str) -> None:
        name = self.fresh()
        self.emit(f"{name} = {expr}")
        self.names[value] = name

    # -- kernels -------------------------------------------------------------------------------
    def _kernel(self, op: ir.Operation, mode: str) -> Kernel:
        name = f"{self.prefix}_{self.name}_k{len(self.kernels)}"
        try:
            return KernelWriter(name, op, mode).write()
        except NeedScalar:
            if mode != "block":
                raise KernelError("lane-dependent control flow in a scalar kernel") from None
            return KernelWriter(name, op, "scalar").write()

    def launch(self, op: ir.Operation) -> None:
        kernel = self._kernel(op, "block")
        self.kernels.append(kernel)
        counts = []
        for lb, ub, step in kernel.bounds:
            n = self.fresh("n")
            self.emit(f"{n} = count({self.v(lb)}, {self.v(ub)}, {self.v(step)})")
            counts.append(n)
        total = " * ".join(counts) or "1"
        self.emit(f"total = {total}")
        self.emit("if total > 0:")
        self.depth += 1
        args = self._args(kernel, counts)
        if kernel.mode == "block":
            self.emit("xb = xblock(total)")
            self.emit(f"{kernel.name}[(cdiv(total, xb),)]({args}, XBLOCK=xb)")
        else:
            self.emit(f"{kernel.name}[(total,)]({args})")
        self.depth -= 1

    def launch_matmul(self, op: ir.Operation, rest: list) -> int:
        """Launches the product `op`, with the elementwise nest after it (among `rest`) as its
        epilogue when that is legal, and the next product beside it when they share A;
        returns how many ops of `rest` the launch stands for."""
        name = f"{self.prefix}_{self.name}_mm{len(self.kernels)}"
        j = epilogue.partner_of(op, rest)
        if j is not None and op not in self.prologues and rest[j] not in self.prologues:
            primary, after = rest[j], rest[j + 1 :]
            planned = epilogue.find(primary, after)
            if planned is None or epilogue.reads_partner_in_tile(primary, planned, op):
                found, tail, store_c = self._tail(name, primary, after, op)
                if (found is None) == (planned is None):  # else pairing lost the epilogue
                    self._launch(name, primary, after, found, tail, store_c, rest[:j], op)
                    return j + 1 + (found.consumed if found else 0)
        found, tail, store_c = self._tail(name, op, rest)
        self._launch(name, op, rest, found, tail, store_c)
        return found.consumed if found else 0

    def _tail(self, name: str, op: ir.Operation, rest: list, partner=None):
        """(epilogue, its writer, whether C is stored) of `op`, the largest that can be written."""
        found = epilogue.find(op, rest)
        while found is not None:
            try:
                later = rest[found.consumed :]
                return (found, *epilogue.write_tail(name, op, found, later, partner))
            except (NeedScalar, KernelError):
                found = found.alone  # without the row nest that could not be written
        return None, None, True

    def _launch(self, name, op, rest, found, tail, store_c, before=(), partner=None) -> None:
        """The launch of `op`'s kernel (`before`: host ops to run first; `partner`: the
        product computed beside it)."""
        locs = [describe_location(o.location) for o in ([partner] if partner else []) + [op]]
        locations = [loc for loc in locs if loc != "<unknown>"]
        pair = None
        if partner is not None:
            later = rest[found.consumed :] if found else rest
            pair = (partner, epilogue.stores_partner(op, found, partner, later))
        prologue = self._prologue(name, op)
        kernel = matmul.kernel(name, op, locations, tail, store_c, pair, prologue)
        self.kernels.append(kernel)
        for host_op in [*before, *(found.hoisted if found else [])]:
            self.emit_op(host_op)
        first = 5 if partner is not None else 3  # a, b, c (bq, cq): the template's own
        extra = self._args(kernel.params[first:], [])
        rows = found is not None and found.row is not None
        grid, args = matmul.launch_args(self, op, extra, rows=rows, partner=partner)
        self.emit("if M * N * B0 * B1 > 0:")
        self.depth += 1
        self.emit(f"{name}[{grid}]({args})")
        self.depth -= 1
        for host_op in found.deferred if found else []:
            self.emit_op(host_op)

    def _defer(self, nest: ir.Operation, rest: list) -> bool:
        """Whether `nest` waits to run as the operand prologue of a product among `rest`."""
        found = operand_prologue.find(nest, rest)
        if found is None or found[0] in self.prologues:
            return False
        self.prologues[found[0]] = found[1]
        return True

    def _prologue(self, name: str, op: ir.Operation):
        """(writer, code, operand) of the prologue deferred to `op`'s kernel; when it cannot
        be written, its nest runs now, as it could have where it stood."""
        found = self.prologues.pop(op, None)
        if found is None:
            return None
        try:
            return (*operand_prologue.write(name, op, found), found.operand)
        except (NeedScalar, KernelError):
            self.launch(found.nest)
            return None

    def serial(self, op: ir.Operation) -> None:
        """Sequential code with memory effects: one program; its scalar results come back
        through one-element device tensors."""
        kernel = self._kernel(op, "serial")
        self.kernels.append(kernel)
        outs = []
        for r in op.results:
            name = self.fresh("out")
            self.emit(f"{name} = torch.empty(1, dtype={torch_dtype(r.type)}, device=dev)")
            outs.append(name)
        self.results_of_serial = outs
        self.emit(f"{kernel.name}[(1,)]({self._args(kernel, [])})")
        for r, name in zip(op.results, outs):
            self.define(r, typed(f"scalar({name}[0])", r.type))

    def _args(self, kernel: Kernel | list, counts: list[str]) -> str:
        out = []
        for p in kernel.params if isinstance(kernel, Kernel) else kernel:
            if p.kind == "memref":
                out.append(self.v(p.source))
            elif p.kind == "stride":
                out.append(f"{self.v(p.source)}.stride({p.dim})")
            elif p.kind == "size":
                out.append(f"{self.v(p.source)}.shape[{p.dim}]")
            elif p.kind == "count":
                out.append(counts[p.dim])
            elif p.kind == "result":
                out.append(self.results_of_serial[p.dim])
            elif p.kind == "scalar" and isinstance(p.source.type, ir.FloatType):
                # host floats are numpy scalars of their precision; Triton (JIT and interpreter)
                # takes a float argument only as a Python float (np.float32 is not one)
                out.append(f"float({self.v(p.source)})")
            else:
                out.append(self.v(p.source))
        return ", ".join(out)

    def host_control(self, op: ir.Operation) -> None:
        if op.name == "scf.if":
            if op.results:
                raise KernelError("host scf.if with results is not supported yet")
            self.emit(f"if {self.v(op.operands[0])}:")
            for i, region in enumerate(op.regions):
                if i == 1:
                    if not region.blocks or len(region.blocks[0].operations) <= 1:
                        break
                    self.emit("else:")
                self.depth += 1
                self.emit("pass")
                # no results: the terminator yields nothing
                self.emit_block(region.blocks[0], skip_yield=True)
                self.depth -= 1
            return
        lb, ub, step, *inits = op.operands
        body = op.regions[0].blocks[0]
        iv, *carried = body.arguments
        names = []
        for init, arg in zip(inits, carried):
            name = self.fresh("c")
            self.emit(f"{name} = {self.v(init)}")
            self.names[arg] = name
            names.append(name)
        k = self.fresh("k")
        self.names[iv] = k
        self.emit(f"for {k} in range({self.v(lb)}, {self.v(ub)}, {self.v(step)}):")
        self.depth += 1
        self.emit("pass")
        for inner in body.operations:
            inner = inner.operation
            if inner.name == "scf.yield":
                for name, y in zip(names, inner.operands):
                    self.emit(f"{name} = {self.v(y)}")
            else:
                self.emit_op(inner)
        self.depth -= 1
        for res, name in zip(op.results, names):
            self.names[res] = name


def _identity_layout(t: ir.Type) -> bool:
    if not isinstance(t, ir.MemRefType) or ir.MemRefType(t).rank == 0:
        return False
    layout = ir.MemRefType(t).layout
    if not isinstance(layout, ir.AffineMapAttr):
        return False
    rank = ir.MemRefType(t).rank
    return ir.AffineMapAttr(layout).value == ir.AffineMap.get_identity(rank, context=t.context)


def _frees_only(op: ir.Operation) -> bool:
    """`op` only frees buffers (the deallocation pipeline's check of a buffer that may alias
    another): host code."""
    inner = [o for o in all_ops(op) if o != op and o.name != "scf.yield"]
    return bool(inner) and all(o.name == "memref.dealloc" for o in inner)


def _contains_parallel(op: ir.Operation) -> bool:
    return any(o.name == "scf.parallel" for o in all_ops(op))
