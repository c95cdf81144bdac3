"""Sizes as monomials, for matching reshapes whose sizes are partly symbolic: `coefficient *
product of symbols`, a symbol standing for an SSA size value (`%b`) that is only known at run
time. Two products are equal when their monomials are; the view lowering and
`aten-split-dynamic-expands` group dims by these equalities."""

from __future__ import annotations

Mono = tuple[int, tuple]  # (coefficient, sorted symbol keys)


def mul(a: Mono, b: Mono) -> Mono:
    return a[0] * b[0], tuple(sorted(a[1] + b[1]))


def divides(a: Mono, b: Mono) -> bool:
    """`a` divides `b`: its coefficient divides b's and its symbols are among b's."""
    if a[0] == 0 or b[0] % a[0]:
        return False
    rest = list(b[1])
    for s in a[1]:
        if s not in rest:
            return False
        rest.remove(s)
    return True


def div(a: Mono, b: Mono) -> Mono:
    """`a / b`, for a `b` that divides `a`."""
    rest = list(a[1])
    for s in b[1]:
        rest.remove(s)
    return a[0] // b[0], tuple(rest)
