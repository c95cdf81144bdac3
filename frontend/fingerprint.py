"""`fingerprint`: a digest of what `import_program` makes of an ExportedProgram, taken before
`run_decompositions` (which costs far more than loading a compiled program from the cache).

It covers the inputs of torch's decomposition and of the importer: the graph (targets, arguments,
example values with shapes, dtypes and strides), the source lines and module paths that become
locations, the graph signature, the state's names and metadata, the pytree specs and torch
itself. State values are left out: they are bound when the program runs, not compiled in.
"""

from __future__ import annotations

import hashlib
import operator

import torch

from .locations import module_path
from .symbolic import SYMBOLIC_IMPORTERS

# Leaves whose repr names their value exactly (floats round-trip), so equal reprs are equal args.
_EXACT_LEAVES = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    torch.dtype,
    torch.device,
    torch.layout,
    torch.memory_format,
    type(Ellipsis),
)
# Op namespaces whose kernels and decompositions ship with torch (its version is in the digest).
_TORCH_NAMESPACES = ("aten", "prims")


class Unkeyable(Exception):
    """The program holds something whose meaning its text does not pin down (a submodule, a
    custom op written in Python, an opaque constant): it is imported every time."""


class _Ref:
    """A node argument: its repr `%name` is no string's repr."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"%{self.name}"


def fingerprint(ep: torch.export.ExportedProgram) -> str | None:
    """sha256 hex of everything importing `ep` depends on, or None when that cannot be seen."""
    h = hashlib.sha256()

    def put(*parts) -> None:
        h.update(repr(parts).encode())
        h.update(b"\0")

    try:
        put(torch.__version__, torch.__file__, getattr(ep, "dialect", None))
        for node in ep.graph.nodes:
            put(
                node.op,
                node.name,
                _target(node),
                _args(node.args),
                _args(node.kwargs),
                _value(node.meta.get("val")),
                node.meta.get("stack_trace"),
                module_path(node),
            )
        for spec in (*ep.graph_signature.input_specs, *ep.graph_signature.output_specs):
            put(spec.kind.name, _argument(spec.arg), spec.target, getattr(spec, "persistent", None))
        put(str(ep.call_spec.in_spec), str(ep.call_spec.out_spec), str(ep.range_constraints))
        _put_state(put, {**ep.state_dict, **ep.constants})
    except Unkeyable:
        return None
    return h.hexdigest()


def _target(node: torch.fx.Node) -> str | None:
    """The target's qualified name, if its behaviour is fixed by torch's version."""
    if node.op in ("placeholder", "output"):
        return None
    target = node.target
    if node.op != "call_function":
        raise Unkeyable(f"{node.op} {target}")
    if isinstance(target, torch._ops.OpOverload):
        if target.namespace not in _TORCH_NAMESPACES:
            raise Unkeyable(str(target))
        return str(target)
    if target is operator.getitem or target in SYMBOLIC_IMPORTERS:
        return f"{target.__module__}.{target.__qualname__}"
    module = getattr(target, "__module__", None) or ""
    if module.split(".")[0] == "torch" and not isinstance(target, torch._ops.HigherOrderOperator):
        return f"{module}.{target.__qualname__}"  # e.g. torch._C._set_grad_enabled
    raise Unkeyable(repr(target))


def _argument(arg):
    """A graph-signature argument: its kind, name and (for a constant) value."""
    return (type(arg).__name__, getattr(arg, "name", None), _args(getattr(arg, "value", None)))


def _args(args):
    if isinstance(args, torch.fx.Node):
        return _Ref(args.name)
    if isinstance(args, (list, tuple)):
        return (type(args).__name__, *(_args(a) for a in args))
    if isinstance(args, dict):
        return ("dict", *((_args(k), _args(v)) for k, v in args.items()))
    if isinstance(args, _EXACT_LEAVES):
        return args
    raise Unkeyable(f"argument of type {type(args).__name__}")


def _value(val):
    """An example value's type: a tensor's metadata, a symbol's expression, a constant."""
    if isinstance(val, torch.Tensor):
        if val.layout != torch.strided:
            raise Unkeyable(f"a {val.layout} tensor")  # has no strides; import rejects it
        return (
            "tensor",
            tuple(str(s) for s in val.shape),
            tuple(str(s) for s in val.stride()),
            str(val.storage_offset()),
            val.dtype,
            val.device,
            val.layout,
            val.requires_grad,
        )
    if isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return ("symbol", str(val))
    if isinstance(val, (list, tuple)):
        return tuple(_value(v) for v in val)
    return _args(val)


def _put_state(put, state: dict) -> None:
    """Each entry's name and metadata, and which entries share storage (functionalization of a
    mutated buffer depends on its aliases)."""
    storages: dict[int, int] = {}
    for name in sorted(state):
        t = state[name]
        if not isinstance(t, torch.Tensor):
            raise Unkeyable(f"state '{name}' of type {type(t).__name__}")
        meta = _value(t)
        storage = storages.setdefault(t.untyped_storage().data_ptr(), len(storages))
        put(name, type(t).__name__, meta, storage)
