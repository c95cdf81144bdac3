"""The tracer's guards (`ExportedProgram._guards_code`: `L['x'].size()[0] != 7`, from
`torch._check` or a branch on a size), which `ep.module()` runs as generated Python. Here each is
parsed once into closures over the input leaves: only sizes, ints, arithmetic, comparisons and
`and`/`or`/`not` are understood, so no text from the program is ever executed. A guard using
anything else is left out (the size checks of `guards.py` do not depend on these).
"""

from __future__ import annotations

import ast
import logging
import operator
import re

log = logging.getLogger(__name__)

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.Div: operator.truediv,
}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


class _Unsupported(Exception):
    pass


def compile_shape_guards(guards: list[str], names: list[str]):
    """A function of the input leaves raising ValueError when one of `guards` fails; None when
    there is nothing to check."""
    sources = _sources(names)
    checks = []
    for text in guards:
        try:
            tree = ast.parse(text, mode="eval").body
            checks.append((_compile(tree, sources), _readable(text, sources, names)))
        except (SyntaxError, _Unsupported) as e:
            log.debug("shape guard %r left out: %s", text, e)
    if not checks:
        return None

    def check(leaves):
        for test, readable in checks:
            if not test(leaves):
                raise ValueError(
                    f"the inputs break a condition export recorded: {readable} (got sizes "
                    f"{_sizes(leaves, names)})"
                )

    return check


def _sources(names: list[str]) -> dict[str, int]:
    """`L[...]` texts (as `ast.unparse` prints them) -> leaf index: the user's path, the flat
    one, and `L['args'][0]` for a forward's `*args` (named `args_0`)."""
    table = {}
    for index, name in enumerate(names):
        head, _, rest = name.partition("[")
        rest = "[" + rest if rest else ""
        table[f"L[{head!r}]{rest}"] = index
        table[f"L['flat_args'][{index}]"] = index
        star = re.fullmatch(r"(.+)_(\d+)", head)
        if star:
            table[f"L[{star[1]!r}][{star[2]}]{rest}"] = index
    return table


def _readable(text: str, sources: dict, names: list[str]) -> str:
    for source, index in sorted(sources.items(), key=lambda s: -len(s[0])):
        text = text.replace(source, names[index])
    return text


def _sizes(leaves, names) -> str:
    return ", ".join(f"{n} {list(v.shape)}" for n, v in zip(names, leaves) if hasattr(v, "shape"))


def _compile(node, sources):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        value = node.value
        return lambda leaves: value
    if isinstance(node, ast.Subscript) and _is_size_call(node.value):
        return _size(node.value.func.value, node.slice, sources)
    if _is_size_call(node) and len(node.args) == 1:
        return _size(node.func.value, node.args[0], sources)
    if isinstance(node, ast.Subscript):  # a non-tensor argument itself
        index = _leaf(node, sources)
        return lambda leaves: leaves[index]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op, a, b = (
            _BINARY[type(node.op)],
            _compile(node.left, sources),
            _compile(node.right, sources),
        )
        return lambda leaves: op(a(leaves), b(leaves))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        a = _compile(node.operand, sources)
        if isinstance(node.op, ast.USub):
            return lambda leaves: -a(leaves)
        return lambda leaves: not a(leaves)
    if isinstance(node, ast.BoolOp):
        parts = [_compile(v, sources) for v in node.values]
        if isinstance(node.op, ast.And):
            return lambda leaves: all(p(leaves) for p in parts)
        return lambda leaves: any(p(leaves) for p in parts)
    if isinstance(node, ast.Compare) and all(type(o) in _COMPARE for o in node.ops):
        terms = [_compile(node.left, sources)] + [_compile(c, sources) for c in node.comparators]
        ops = [_COMPARE[type(o)] for o in node.ops]

        def compare(leaves):
            values = [t(leaves) for t in terms]
            return all(op(a, b) for op, a, b in zip(ops, values, values[1:]))

        return compare
    raise _Unsupported(ast.dump(node))


def _is_size_call(node) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "size"
        and not node.keywords
        and len(node.args) <= 1
    )


def _size(tensor, dim, sources):
    index = _leaf(tensor, sources)
    if not (isinstance(dim, ast.Constant) and type(dim.value) is int):
        raise _Unsupported(ast.dump(dim))
    d = dim.value
    return lambda leaves: leaves[index].shape[d]


def _leaf(node, sources) -> int:
    text = ast.unparse(node)
    if text not in sources:
        raise _Unsupported(f"no input {text}")
    return sources[text]
