"""`aten-outline-repeated-blocks`: a run of identical blocks of ops (a model's layers) becomes
calls of one function.

A 12-layer transformer's segment holds the same ~35 fused linalg ops 12 times, and every later
stage (bufferization, vectorization, loops, the LLVM lowering, translation, `opt`, `llc`) costs
in proportion to the code. Found on tensors right after fusion, each repeat is outlined into a
private function and upstream `duplicate-function-elimination` keeps one of them: on GPT-2 small
the stages after fusion see one layer instead of twelve.

Finding: the function's top-level ops, less the ones cloned rather than passed (constants, empty
tensors and their fills and reshapes, `tensor.dim`s of the function's arguments that size
them), get a shallow signature (name, types, attributes, the names of the ops in their
regions). The longest tandem repeat of that sequence (a period `P` seen `k` times in a row)
gives the candidate blocks; of its phases, the one whose blocks agree in how their ops connect
(inside a block, and to what comes in and goes out) is taken. Its ops are then taken out of the
search and the next repeat is looked for (an unrolled 2-layer LSTM has a run of cells per
layer); a run whose blocks compute nothing but copies stays inline. Equality is decided by
`duplicate-function-elimination` on the outlined functions (the signature only proposes
blocks): blocks that turn out to differ stay separate functions, still correct.

An unrolled recurrence's cells differ in the static offset of the slice reading their time
step: the signature leaves `extract_slice` offsets out, and the offsets that differ within a
run are passed as `index` arguments (`repeat_offsets.py`). LSTM(256, 256, 2 layers) over 32
steps: 62 calls of one function instead of 64 inline cells.

A block's function takes the values its ops read from outside (in order of first use) and
returns its values read after it (in order of definition), so identical blocks get identical
signatures. The functions carry `aten.glue`: the native build keeps them out of LLVM's
optimization like the segment itself (their loops have their own functions by then).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir
from mlir.dialects import func

from ..ir import GLUE, defined_functions, outside_uses, walked_ops
from ..registry import ModulePass, option, register_pass
from .repeat_offsets import make_dynamic, offset_constants, signature_attributes, varying_offsets

# Ops rematerialized in each block's function (when their operands are) rather than passed.
_CLONED = frozenset(
    {
        "arith.constant",
        "tensor.empty",
        "linalg.fill",
        "tensor.expand_shape",
        "tensor.collapse_shape",
        "tensor.cast",
        "tensor.dim",  # of a function argument (a `Dim` batch): the sizes of cloned empties
    }
)
# Cuts (of the fewest crossing values) tried per repeat.
_PHASES = 4
# Constants up to this many elements are cloned (a weight folded to a constant is passed).
_SMALL_CONSTANT = 16
# Runs (tandem repeats) looked for per function: a 2-layer LSTM has one per layer.
_RUNS = 8


class _Function:
    """The top-level ops of one function body, with what outlining needs to know about them,
    read once before anything changes."""

    def __init__(self, block: ir.Block):
        self.ops = [op.operation for op in block.operations]
        self.producer: dict = {}  # value -> (index of its top-level op, result number)
        for i, op in enumerate(self.ops):
            for r, value in enumerate(op.results):
                self.producer[value] = (i, r)
        self.cloned = self._cloned()
        self.sequence = [
            i for i, op in enumerate(self.ops) if i not in self.cloned and op.name != "func.return"
        ]
        # per top-level op: (nested op, operand index, value) for each value it reads from
        # outside itself
        self.reads = [outside_uses(walked_ops(op)) for op in self.ops]
        self.readers: dict = {}  # value -> indices of the top-level ops reading it
        for i, reads in enumerate(self.reads):
            for _, _, value in reads:
                self.readers.setdefault(value, set()).add(i)
        self._clone_keys: dict = {}
        self._link_cache: dict = {}
        self._last_reader: dict = {}
        self.result_counts = [len(op.results) for op in self.ops]

    def _cloned(self) -> set[int]:
        cloned: set[int] = set()
        for i, op in enumerate(self.ops):
            if op.name not in _CLONED or len(op.regions) and op.name != "linalg.fill":
                continue
            if op.name == "arith.constant" and not _small(op.results[0].type):
                continue
            inside = [self.producer.get(v) for v in op.operands]
            # a `tensor.dim` reads the function's argument, which the block's function takes
            if all(p[0] in cloned if p else op.name == "tensor.dim" for p in inside):
                cloned.add(i)
        return cloned

    def signature(self, i: int) -> tuple:
        op = self.ops[i]
        body = tuple(o.name for o in walked_ops(op)[1:]) if len(op.regions) else ()
        return (
            op.name,
            tuple(str(v.type) for v in op.operands),
            tuple(str(r.type) for r in op.results),
            signature_attributes(op),
            body,
        )

    def clone_key(self, i: int) -> tuple:
        """What a cloned value is, independent of where it sits."""
        if i not in self._clone_keys:
            inner = tuple(
                self.clone_key(self.producer[v][0]) if v in self.producer else ("arg", v)
                for v in self.ops[i].operands
            )
            self._clone_keys[i] = (self.signature(i), inner)
        return self._clone_keys[i]

    def _links(self, i: int) -> list[tuple]:
        """What op `i` reads, as `block_shape` compares it: ("op", index, result, type) for a
        value of another top-level op, ("clone", key) for a cloned one, ("arg", value, type)
        else."""
        if i not in self._link_cache:
            links = []
            for _, _, value in self.reads[i]:
                p = self.producer.get(value)
                if p is not None and p[0] in self.cloned:
                    links.append(("clone", self.clone_key(p[0])))
                elif p is not None:
                    links.append(("op", *p, str(value.type)))
                else:
                    links.append(("arg", value, str(value.type)))
            self._link_cache[i] = links
        return self._link_cache[i]

    def last_reader(self, i: int, r: int) -> int:
        """The index of the last top-level op reading result `r` of op `i` (-1: none)."""
        if (i, r) not in self._last_reader:
            readers = self.readers.get(self.ops[i].results[r], ())
            self._last_reader[i, r] = max(readers, default=-1)
        return self._last_reader[i, r]

    def block_shape(self, members: list[int]) -> tuple:
        """How a block's ops connect: equal for blocks that outline to the same function (up
        to what the signatures leave out)."""
        position = {m: j for j, m in enumerate(members)}
        inputs: dict = {}
        shape = []
        for m in members:
            for link in self._links(m):
                if link[0] == "op" and link[1] in position:
                    shape.append(("in", position[link[1]], link[2]))
                elif link[0] == "op":
                    key = link[1:3]
                    shape.append(("arg", inputs.setdefault(key, len(inputs)), link[3]))
                elif link[0] == "arg":
                    shape.append(("arg", inputs.setdefault(link[1], len(inputs)), link[2]))
                else:
                    shape.append(link)
        outputs = tuple((position[m], r) for m, r in self.outputs(members))
        return tuple(shape), outputs

    def outputs(self, members: list[int]) -> list[tuple[int, int]]:
        """(op, result) of the block's values read after it, in order of definition (only a
        cloned op sits between members, and it reads no value of theirs)."""
        last = members[-1]
        return [
            (m, r)
            for m in members
            for r in range(self.result_counts[m])
            if self.last_reader(m, r) > last
        ]


def _small(t: ir.Type) -> bool:
    if not isinstance(t, ir.ShapedType):
        return True
    shaped = ir.ShapedType(t)
    if not shaped.has_static_shape:
        return False
    return math.prod(shaped.shape) <= _SMALL_CONSTANT


def _tandem_repeat(keys: list[int], min_period: int) -> tuple[int, int, int] | None:
    """(period, first index of the run, length of the run) of the tandem repeat covering the
    most ops: `keys[i] == keys[i + period]` for every i in the run. Vectorized over positions
    (one comparison of shifted copies per period): a 48-layer model has thousands of ops."""
    a = np.asarray(keys)
    best, found = 0, None
    for period in range(min_period, len(keys) // 2 + 1):
        same = np.concatenate(([False], a[:-period] == a[period:], [False]))
        edges = np.flatnonzero(same[1:] != same[:-1])
        if not len(edges):
            continue
        starts, lengths = edges[0::2], edges[1::2] - edges[0::2]
        longest = int(lengths.argmax())
        saved = (int(lengths[longest]) // period) * period
        if saved > best:
            best, found = saved, (period, int(starts[longest]), int(lengths[longest]))
    return found


def _crossing(fn: _Function) -> list[int]:
    """For each position q of the sequence: how many values of earlier ops are read at or after
    it (what a block starting there would take in)."""
    where = {i: q for q, i in enumerate(fn.sequence)}
    end = len(fn.sequence)
    delta = [0] * (end + 2)
    for i in fn.sequence:
        for r in range(fn.result_counts[i]):
            last = fn.last_reader(i, r)
            if last > i:  # crosses the cuts after op i up to the one right before its reader
                delta[where[i] + 1] += 1
                delta[where.get(last, end) + 1] -= 1
    return list(itertools.accumulate(delta))


def _runs(fn: _Function, min_period: int) -> list[list[list[int]]]:
    """The runs of blocks to outline (each a list of blocks, lists of top-level op indices).
    After each repeat found, its ops are taken out of the search and the next one is looked
    for (an unrolled 2-layer recurrence repeats one cell per layer, apart)."""
    ids: dict = {}
    keys = [ids.setdefault(fn.signature(i), len(ids)) for i in fn.sequence]
    runs = []
    for _ in range(_RUNS):
        repeat = _tandem_repeat(keys, min_period)
        if repeat is None:
            break
        period, start, run = repeat
        for q in range(start, start + run + period):
            keys[q] = -1 - q  # matches nothing
        blocks = _blocks(fn, repeat)
        if blocks and any(_computes(fn.ops[i]) for i in blocks[0]):
            runs.append(blocks)
    return runs


def _computes(op: ir.Operation) -> bool:
    """Whether `op` is worth a call: a structured op with a body, other than a copy (a run of
    copies and slices assembling an output is not)."""
    return len(op.regions) > 0 and op.name != "linalg.copy"


def _blocks(fn: _Function, repeat: tuple[int, int, int]) -> list[list[int]]:
    """The blocks of the tandem `repeat` to outline, or none."""
    period, start, run = repeat
    span = run + period  # the ops covered, copies of the first period included
    # Cuts where the fewest values cross (a transformer's residual stream rather than the middle
    # of its attention) are tried; of those, the one with the most blocks alike, then the
    # fewest values out of each.
    crossing = _crossing(fn)
    phases = sorted(
        range(start, start + min(period, span - 2 * period + 1)), key=crossing.__getitem__
    )
    best, rank = [], (0, 0)
    for phase in phases[:_PHASES]:
        count = (start + span - phase) // period
        blocks = [fn.sequence[phase + b * period : phase + (b + 1) * period] for b in range(count)]
        groups: dict = {}
        for block in blocks:
            groups.setdefault(fn.block_shape(block), []).append(block)
        shape, largest = max(groups.items(), key=lambda item: len(item[1]))
        if (len(largest), -len(shape[1])) > rank:
            best, rank = largest, (len(largest), -len(shape[1]))
    return best if len(best) >= 2 else []


def _interface(fn: _Function, members: list[int]):
    """(inputs, cloned op indices, outputs) of a block: values read from outside (not cloned),
    in order of first use; cloned ops read; values read after the block, in order."""
    inside = set(members)
    inputs: dict = {}
    clones: dict = {}
    for m in members:
        for _, _, value in fn.reads[m]:
            p = fn.producer.get(value)
            if p is not None and p[0] in fn.cloned:
                clones.setdefault(p[0])
            elif p is None or p[0] not in inside:
                inputs.setdefault(value)
    clones = _with_operands(fn, clones)
    for i in sorted(clones):  # the function arguments cloned `tensor.dim`s read
        inputs.update((v, None) for v in fn.ops[i].operands if v not in fn.producer)
    outputs = [fn.ops[m].results[r] for m, r in fn.outputs(members)]
    return list(inputs), clones, outputs


def _outline(fn: _Function, members, varying, name: str, module_body, renamed: dict) -> list:
    """Moves the ops `members` into `func.func private @name` and calls it in their place;
    `renamed` maps values earlier outlining replaced to their replacements (and is extended).
    The slice offsets `varying` ((position, dimension) in the block) are passed after the
    values; returns (slice, {dimension: argument}) for `make_dynamic` once all are outlined."""
    inputs, clones, outputs = _interface(fn, members)
    first = fn.ops[members[0]]
    with first.context, first.location:
        index = ir.IndexType.get()
        types = [v.type for v in inputs] + [index] * len(varying)
        with ir.InsertionPoint(module_body):
            f = func.FuncOp(name, (types, [v.type for v in outputs]))
            f.sym_visibility = ir.StringAttr.get("private")
            f.attributes[GLUE] = ir.UnitAttr.get()
            entry = f.add_entry_block()
        with ir.InsertionPoint(entry):
            ret = func.ReturnOp(outputs)
        offsets = offset_constants(fn.ops, members, varying, ir.InsertionPoint(first))
        with ir.InsertionPoint(first):
            call = func.CallOp(
                [v.type for v in outputs],
                ir.FlatSymbolRefAttr.get(name),
                [renamed.get(v, v) for v in inputs] + offsets,
            )
    dynamic: dict = {}
    for (j, d), argument in zip(varying, entry.arguments[len(inputs) :]):
        dynamic.setdefault(members[j], {})[d] = argument
    mapping = dict(zip(inputs, entry.arguments))
    for i in sorted(clones):
        copy = fn.ops[i].clone(ip=ir.InsertionPoint(ret))
        for k, value in enumerate(fn.ops[i].operands):
            copy.operands[k] = mapping[value]
        mapping.update(zip(fn.ops[i].results, copy.results))
    for m in members:
        for op, k, value in fn.reads[m]:
            if value in mapping:
                op.operands[k] = mapping[value]
        fn.ops[m].move_before(ret)
    _rewire(fn, set(members), dict(zip(outputs, call.results)), renamed)
    return [(fn.ops[m], dims) for m, dims in dynamic.items()]


def _rewire(fn: _Function, inside: set[int], results: dict, renamed: dict) -> None:
    """Points the readers after a block at the call's `results` (value -> result)."""
    renamed.update(results)
    for value, result in results.items():
        for reader in fn.readers[value] - inside:
            for op, k, read in fn.reads[reader]:
                if read == value:
                    op.operands[k] = result


def _with_operands(fn: _Function, clones: dict) -> set[int]:
    """The cloned ops `clones` and the cloned ops they read, transitively."""
    found, stack = set(), list(clones)
    while stack:
        i = stack.pop()
        if i not in found:
            found.add(i)
            stack.extend(fn.producer[v][0] for v in fn.ops[i].operands if v in fn.producer)
    return found


@register_pass
@dataclass(frozen=True)
class AtenOutlineRepeatedBlocks(ModulePass):
    """Outlines each block of a tandem repeat of top-level ops (a model's identical layers)
    into a private function of its own, for `duplicate-function-elimination` to merge."""

    name: ClassVar[str] = "aten-outline-repeated-blocks"
    min_period: int = option(4, "ops (cloned ones not counted) below which a block stays")

    def run(self, module_op: ir.Operation) -> None:
        body = module_op.regions[0].blocks[0]
        for function in defined_functions(module_op):
            fn = _Function(function.regions[0].blocks[0])
            prefix = ir.StringAttr(function.attributes["sym_name"]).value
            renamed: dict = {}
            runs = [
                (block, varying_offsets(fn.ops, blocks))
                for blocks in _runs(fn, self.min_period)
                for block in blocks
            ]
            runs.sort(key=lambda run: run[0][0])  # outlined in order: `renamed` is forward
            slices = []
            for b, (block, varying) in enumerate(runs):
                name = f"{prefix}_block{b}"
                slices += _outline(fn, block, varying, name, body, renamed)
            # after all outlining: the old slices' values are keys of `renamed` until then
            for op, dims in slices:
                make_dynamic(op, dims)
