"""Binding a call's `args`/`kwargs` to the leaves of the exported input pytree, as the module's
forward binds them: positional arguments by position or by name, keyword-only ones by name, in
any order. What does not fit raises one `ValueError` saying which argument is wrong and how the
program was exported, not a `TreeSpec` dump.
"""

from __future__ import annotations

import torch.utils._pytree as pytree

from aten_mlir.frontend.program import Signature

_LEAF = pytree.tree_flatten(0)[1]
_STRUCTURE = "the arguments do not have the structure the program was exported with"


class ArgumentBinder:
    """`bind(args, kwargs)` -> the input leaves in `in_spec` order; `names[i]` is leaf i's name
    as the user wrote it (`x`, `ys[1]['k']`)."""

    def __init__(self, signature: Signature, num_leaves: int):
        spec = signature.in_spec
        is_call = (
            spec is not None
            and spec.type is tuple
            and spec.num_children == 2
            and spec.child(0).type is tuple
            and spec.child(1).type is dict
        )
        if is_call:
            self.positional_specs = list(spec.child(0).children())
            self.keywords = list(spec.child(1).context)
            self.keyword_specs = dict(zip(self.keywords, spec.child(1).children()))
        else:  # no exported structure (IR text): every leaf is one positional tensor
            self.positional_specs = [_LEAF] * num_leaves
            self.keywords, self.keyword_specs = [], {}
        count = len(self.positional_specs)
        given = list(signature.arg_names or [])[:count]
        user = signature.user_inputs
        if not given and not self.keywords and len(user) == num_leaves == count:
            given = [s.name for s in user]  # one leaf per argument: the graph's input names
        self.positional_names = given + [f"args[{i}]" for i in range(len(given), count)]
        self.names = self._leaf_names()
        # Calls shaped as exported with flat positional leaves skip binding altogether.
        flat = all(s.is_leaf() for s in self.positional_specs) and not self.keywords
        self.flat_positional = count if flat else -1

    def _leaf_names(self) -> list[str]:
        names = []
        parts = [(n, s) for n, s in zip(self.positional_names, self.positional_specs)]
        parts += [(k, self.keyword_specs[k]) for k in self.keywords]
        for name, spec in parts:
            dummy = pytree.tree_unflatten(list(range(spec.num_leaves)), spec)
            for path, _ in pytree.tree_flatten_with_path(dummy)[0]:
                names.append(name + pytree.keystr(path))
        return names

    def signature_text(self) -> str:
        """The exported call's shape, as `(x, ys=[*, {'k': *}], *, shift)`."""
        parts = [
            _with_structure(n, s) for n, s in zip(self.positional_names, self.positional_specs)
        ]
        if self.keywords:
            parts.append("*")
            parts += [_with_structure(k, self.keyword_specs[k]) for k in self.keywords]
        return "(" + ", ".join(parts) + ")"

    def bind(self, args: tuple, kwargs: dict) -> list:
        if len(args) > len(self.positional_specs):
            self._fail(
                f"takes {len(self.positional_specs)} positional argument(s) but "
                f"{len(args)} were given"
            )
        values = list(args)
        kwargs = dict(kwargs)
        for name in self.positional_names[: len(args)]:
            if name in kwargs:
                self._fail(f"got multiple values for argument '{name}'")
        for name in self.positional_names[len(args) :]:
            if name not in kwargs:
                self._fail(f"missing argument '{name}'")
            values.append(kwargs.pop(name))
        unexpected = [k for k in kwargs if k not in self.keyword_specs]
        if unexpected:
            self._fail(
                f"unexpected keyword argument(s) {', '.join(map(repr, unexpected))} (an "
                "argument left at its default when exporting is compiled in)"
            )
        missing = [k for k in self.keywords if k not in kwargs]
        if missing:
            self._fail(f"missing keyword argument(s) {', '.join(map(repr, missing))}")
        named = list(zip(self.positional_names, self.positional_specs, values))
        named += [(k, self.keyword_specs[k], kwargs[k]) for k in self.keywords]
        leaves = []
        for name, spec, value in named:
            if spec.is_leaf():
                leaves.append(value)
                continue
            got, got_spec = pytree.tree_flatten(value)
            if got_spec != spec:  # dicts match by key, in any order, as in Python
                got, got_spec = pytree.tree_flatten(_ordered_as(value, spec))
            if got_spec != spec:
                self._fail(
                    f"argument '{name}' is {_structure(got_spec)}, exported as {_structure(spec)}"
                )
            leaves.extend(got)
        return leaves

    def _fail(self, why: str):
        raise ValueError(f"{_STRUCTURE}: {why}; exported as {self.signature_text()}")


def _ordered_as(value, spec):
    """`value` with its dicts' keys in `spec`'s order (where the keys are the same)."""
    if spec.type is dict and isinstance(value, dict) and set(value) == set(spec.context):
        return {k: _ordered_as(value[k], c) for k, c in zip(spec.context, spec.children())}
    if spec.type in (list, tuple) and type(value) is spec.type:
        if len(value) == spec.num_children:
            return spec.type(_ordered_as(v, c) for v, c in zip(value, spec.children()))
    return value


def _with_structure(name: str, spec) -> str:
    return name if spec.is_leaf() else f"{name}={_structure(spec)}"


def _structure(spec) -> str:
    """A pytree spec as Python-like text: `*` a leaf, `[*, {'k': *}]`, `None`."""
    if spec.is_leaf():
        return "*"
    children = [_structure(c) for c in spec.children()]
    if spec.type is dict:
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(spec.context, children)) + "}"
    if spec.type is list:
        return "[" + ", ".join(children) + "]"
    if spec.type is tuple:
        return "(" + ", ".join(children) + ("," if len(children) == 1 else "") + ")"
    if spec.type is type(None):
        return "None"
    return f"{getattr(spec.type, '__name__', spec.type)}(" + ", ".join(children) + ")"
