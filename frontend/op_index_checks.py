"""The in-program checks of ops whose indices are more than an (index, dim) pair: the offsets
of an `embedding_bag`, loss targets (`ignore_index`, multilabel's -1), `max_unpool` positions in
the output, `take`'s flat indices, a `searchsorted` sorter, `repeat_interleave` repeats against
its `output_size`, the count a `masked_scatter` mask selects. Each adds flags to an
`InProgramChecks` (`index_checks.py`) with its building blocks; eager raises in each case."""

from __future__ import annotations

import torch
from mlir import ir
from mlir.dialects import arith

from aten_mlir.dialects.ops import build_aten

from .index_ranges import i1, integral, meta_value, size_text
from .symbolic import as_index, import_sym_numel

_END = 2**63 - 1  # a slice to the end
EMBEDDING_BAGS = (
    "aten.embedding_bag.default",
    "aten.embedding_bag.padding_idx",
    "aten._embedding_bag.default",
    "aten._embedding_bag_forward_only.default",
)
# op -> (position of ignore_index, its default): the target's classes are the input's dim 1
_NLL = {
    "aten.nll_loss.default": (4, -100),
    "aten.nll_loss_nd.default": (4, -100),
    "aten.nll_loss_forward.default": (4, -100),
    "aten.nll_loss2d_forward.default": (4, -100),
    "aten.cross_entropy_loss.default": (4, -100),
}
_UNPOOL = ("aten.max_unpool2d.default", "aten.max_unpool3d.default")
_SORTED = ("aten.searchsorted.Tensor", "aten.searchsorted.Scalar")
_MULTILABEL = ("aten.multilabel_margin_loss.default", "aten.multilabel_margin_loss_forward.default")
# op -> position of its repeats; output_size is keyword-only
_REPEATS = {"aten.repeat_interleave.Tensor": 0, "aten.repeat_interleave.self_Tensor": 1}


def offsets(c, node, where):
    args = list(node.args)
    indices, offsets = args[1], args[2]
    if not integral(offsets) or not isinstance(meta_value(indices), torch.Tensor):
        return
    total = import_sym_numel(c.values[indices])
    bad = c.out_of(offsets, arith.AddIOp(total, as_index(1)).result, False)
    c.add_any(
        bad,
        f"an offset in '{offsets.name}' is outside the "
        f"{size_text(meta_value(indices).numel())} indices of '{indices.name}' in {where}",
    )
    # eager requires offsets[0] == 0 and offsets that do not decrease
    first = c.slice_of(offsets, 0, 1)
    c.add_any(
        c.bool_op("aten.ne.Scalar", first, 0, like=first),
        f"the first offset in '{offsets.name}' is not 0 in {where}",
    )
    later, earlier = c.slice_of(offsets, 1, _END), c.slice_of(offsets, 0, -1)
    c.add_any(
        c.bool_op("aten.lt.Tensor", later, earlier, like=later),
        f"the offsets in '{offsets.name}' decrease in {where}",
    )


def targets(c, node, where, ignore_at, ignore_default):
    args = list(node.args)
    x, target = args[0], args[1]
    if not integral(target) or not isinstance(meta_value(x), torch.Tensor):
        return
    ignore = node.kwargs.get(
        "ignore_index", args[ignore_at] if len(args) > ignore_at else ignore_default
    )
    dim = 1 if meta_value(x).dim() >= 2 else 0
    classes = meta_value(x).shape[dim]
    bad = c.out_of(target, c.size(x, dim, classes), False)
    if isinstance(ignore, int):
        kept = c.bool_op("aten.ne.Scalar", target, ignore, like=target)
        bad = c.bool_op("aten.logical_and", bad, kept, like=target)
    c.add_any(
        bad,
        f"a target in '{target.name}' is out of bounds for {size_text(classes)} classes in {where}",
    )


def unpool(c, node, where):
    x, indices, output_size = list(node.args)[:3]
    if not integral(indices):
        return
    n = as_index(1)
    for s in output_size:
        n = arith.MulIOp(n, as_index(c.values[s] if isinstance(s, torch.fx.Node) else s))
        n = n.result
    bad = c.out_of(indices, n, False)
    shown = "x".join(s.name if isinstance(s, torch.fx.Node) else str(s) for s in output_size)
    c.add_any(
        bad,
        f"an index in '{indices.name}' is outside the output of size {shown} in {where}",
    )


def take(c, node, where):
    """`take` indexes the flattened tensor; negative indices wrap."""
    x, index = list(node.args)[:2]
    if not integral(index) or not isinstance(meta_value(x), torch.Tensor):
        return
    numel = meta_value(x).numel()
    n = int(numel) if not isinstance(numel, torch.SymInt) else None
    bad = c.out_of(index, n if n is not None else import_sym_numel(c.values[x]), True)
    c.add_any(
        bad,
        f"an index in '{index.name}' is out of range for the {size_text(numel)} elements "
        f"of '{x.name}' in {where}",
    )


def sorter(c, node, where):
    """`sorter` indexes the sorted sequence's last dim; no wrapping (eager raises)."""
    seq, sorter = node.args[0], node.kwargs.get("sorter")
    if not integral(sorter) or not isinstance(meta_value(seq), torch.Tensor):
        return
    dim = meta_value(seq).dim() - 1
    size = meta_value(seq).shape[dim]
    bad = c.out_of(sorter, c.size(seq, dim, size), False)
    c.add_any(
        bad,
        f"an index in the sorter '{sorter.name}' is out of range for the {size_text(size)} "
        f"elements of '{seq.name}' in {where}",
    )


def multilabel(c, node, where):
    """Targets are classes of x's last dim (one class for a 0-d x), or -1 (which ends a
    sample's list)."""
    x, target = list(node.args)[:2]
    if not integral(target) or not isinstance(meta_value(x), torch.Tensor):
        return
    dim = meta_value(x).dim() - 1
    classes = meta_value(x).shape[dim] if dim >= 0 else 1
    n = c.size(x, dim, classes) if dim >= 0 else 1
    high = c.bool_op("aten.ge.Scalar", target, n, like=target)
    low = c.bool_op("aten.lt.Scalar", target, -1, like=target)
    c.add_any(
        c.bool_op("aten.logical_or", high, low, like=target),
        f"a target in '{target.name}' is out of range for {size_text(classes)} classes "
        f"(or -1) in {where}",
    )


def one_hot(c, node, where):
    """Labels are classes of the result's last dim (a static `num_classes`)."""
    labels, out = node.args[0], meta_value(node)
    if not integral(labels) or not isinstance(out, torch.Tensor):
        return
    classes = out.shape[-1]
    if isinstance(classes, torch.SymInt):
        return
    c.add_any(
        c.out_of(labels, int(classes), False),
        f"a label in '{labels.name}' is out of range for {int(classes)} classes in {where}",
    )


def repeats(c, node, where, at):
    """Negative repeats raise in eager; so do repeats not summing to `output_size`."""
    repeats = node.args[at] if len(node.args) > at else None
    if not integral(repeats):
        return
    c.add_any(
        c.bool_op("aten.lt.Scalar", repeats, 0, like=repeats),
        f"a repeat count in '{repeats.name}' is negative in {where}",
    )
    out = node.kwargs.get("output_size")
    if out is None:
        return
    out = as_index(c.values[out]) if isinstance(out, torch.fx.Node) else int(out)
    i64 = ir.IntegerType.get_signless(64)
    total = build_aten(
        "aten.sum", c.values[repeats], results=[ir.RankedTensorType.get([], i64)]
    ).result
    differs = build_aten(
        "aten.ne.Scalar", total, out, results=[ir.RankedTensorType.get([], i1())]
    ).result
    c.add(
        differs,
        f"the repeats in '{repeats.name}' do not sum to output_size "
        f"{node.kwargs['output_size']} in {where}",
    )


def masked_scatter(c, node, where):
    x, mask, source = list(node.args)[:3]
    vals = [meta_value(v) for v in (x, mask, source)]
    if not all(isinstance(v, torch.Tensor) for v in vals):
        return
    # the ones of the mask broadcast to self's shape: each of the mask's ones repeats
    # numel(self) / numel(mask) times (broadcasting only repeats), so
    # count * factor > numel(source) exactly when count > numel(source) // factor
    sx, sm, ss = (import_sym_numel(c.values[v]) for v in (x, mask, source))
    factor = arith.FloorDivSIOp(sx, arith.MaxSIOp(sm, as_index(1)).result).result
    limit = arith.FloorDivSIOp(ss, arith.MaxSIOp(factor, as_index(1)).result).result
    i64 = ir.IntegerType.get_signless(64)
    count = build_aten(
        "aten.sum", c.values[mask], results=[ir.RankedTensorType.get([], i64)]
    ).result
    bad = build_aten(
        "aten.gt.Scalar", count, limit, results=[ir.RankedTensorType.get([], i1())]
    ).result
    c.add(
        bad,
        f"the mask '{mask.name}' selects more elements than '{source.name}' has in {where}",
    )


# op -> (its check, the check's extra arguments)
OWN_CHECKS = {
    **{t: (offsets,) for t in EMBEDDING_BAGS},
    **{t: (targets, *v) for t, v in _NLL.items()},
    **{t: (unpool,) for t in _UNPOOL},
    **{t: (sorter,) for t in _SORTED},
    **{t: (multilabel,) for t in _MULTILABEL},
    **{t: (repeats, at) for t, at in _REPEATS.items()},
    "aten.masked_scatter.default": (masked_scatter,),
    "aten.take.default": (take,),
    "aten.one_hot.default": (one_hot,),
}
