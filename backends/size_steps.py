"""The symbolic size steps of the call-time guards (`guards.CallGuards`): each export size
expression (sympy text) read once into closures over plain ints, so that a call binds every
symbol from the first dim that is exactly it (or solves a derived dim for it), checks every other
symbolic dim against its expression and every size against `range_constraints`, in microseconds.
"""

from __future__ import annotations

import logging
import math
from fractions import Fraction

import sympy
import torch.utils._sympy.functions as sympy_functions
from torch.utils._sympy.solve import try_solve

from aten_mlir.frontend.program import Signature

log = logging.getLogger(__name__)


_SYMPY_LOCALS = {name: getattr(sympy_functions, name) for name in sympy_functions.__all__}


def parse_size(text: str) -> sympy.Expr:
    return sympy.sympify(text, locals=_SYMPY_LOCALS)


def size_steps(signature: Signature, tensors: list, names: list[str]) -> list:  # of TensorSpec
    """Steps `step(values, env)`: bind each symbol from the first dim that is exactly it (or,
    failing that, solve a derived dim for it), check every other symbolic dim against its
    expression, then every range whose symbols are known. `names` are quoted for messages."""
    dims = _symbolic_dims(signature, tensors)
    if not dims:
        return []
    steps, sources = _binding_steps(dims, names)
    for k, d, expr in dims:
        if sources.get(expr) != (k, d) and expr.free_symbols <= set(sources):
            _add(steps, _equal, expr, k, d, names, sources)
    at = {expr: (k, d) for k, d, expr in reversed(dims)}
    for text, (low, high) in signature.size_ranges.items():
        expr = _parsed(text)
        if expr is not None and expr.free_symbols and expr.free_symbols <= set(sources):
            where = at.get(expr, sources[next(iter(expr.free_symbols))])
            if (low is not None and low > 2) or high is not None:
                _add(steps, _in_range, expr, low, high, where, names)
    return steps


def _symbolic_dims(signature: Signature, tensors: list) -> list:
    """(tensor index, dim, sympy expression) of every dynamic dim."""
    dims = []
    for k, (sizes, spec) in enumerate(zip(signature.input_sizes, tensors)):
        for d, (text, static) in enumerate(zip(sizes, spec.shape)):
            expr = _parsed(text) if static is None else None
            if expr is not None and not expr.is_number:
                dims.append((k, d, expr))
    return dims


def _binding_steps(dims: list, names: list[str]) -> tuple[list, dict]:
    """Steps giving each symbol its value, and the dim each is read from; a dim that binds its
    symbol is keyed by the symbol itself (a derived one by its expression, see `size_steps`)."""
    steps, sources = [], {}
    for k, d, expr in dims:
        if isinstance(expr, sympy.Symbol) and expr not in sources:
            sources[expr] = (k, d)
            steps.append(_bind(expr.name, k, d))
    for k, d, expr in dims:
        free = expr.free_symbols
        if len(free) != 1 or next(iter(free)) in sources:
            continue
        symbol = next(iter(free))
        solved = _solve(expr, symbol)
        if solved is not None:
            sources[symbol] = sources[expr] = (k, d)
            steps.append(_bind_solved(symbol.name, solved, expr, k, d, names[k]))
    return steps, sources


def _parsed(text: str):
    try:
        return parse_size(text)
    except (sympy.SympifyError, SyntaxError, TypeError):
        log.debug("size expression %r left unchecked: not understood", text)
        return None


def _add(steps: list, make, *args) -> None:
    """Appends `make(*args)`; a size function the evaluator lacks leaves that check out (the
    dims it binds are still checked where they occur alone)."""
    try:
        steps.append(make(*args))
    except NotImplementedError as e:
        log.debug("size check left out: %s", e)


def _bind(symbol: str, k: int, d: int):
    def step(values, env):
        env[symbol] = values[k].shape[d]

    return step


def _solve(expr, symbol):
    """`symbol` as a function of the size `expr` takes, as torch's `_check_symint` solves."""
    size = sympy.Symbol("_size")
    solution = try_solve(sympy.Eq(expr, size), symbol)
    if solution is None:
        return None
    try:
        return _evaluator(solution[1]), size.name
    except NotImplementedError:
        return None


def _bind_solved(symbol: str, solved, expr, k: int, d: int, name: str):
    solve, size_name = solved
    evaluate = _evaluator(expr)

    def step(values, env):
        size = values[k].shape[d]
        value = solve({size_name: size})
        if value != int(value) or evaluate({symbol: int(value)}) != size:
            raise ValueError(
                f"argument {name} dim {d}: expected a size of the form {expr} (exported as "
                f"that expression of an integer {symbol}), got {size}"
            )
        env[symbol] = int(value)

    return step


def _equal(expr, k: int, d: int, names: list[str], sources: dict):
    evaluate = _evaluator(expr)
    origin = ", ".join(
        f"{s} from {names[sources[s][0]]} dim {sources[s][1]}"
        for s in sorted(expr.free_symbols, key=str)
    )

    def step(values, env):
        want, got = evaluate(env), values[k].shape[d]
        if want != got:
            raise ValueError(
                f"argument {names[k]} dim {d}: expected {want} ({expr} where {origin}: "
                f"they share a symbolic size), got {got}"
            )

    return step


def _in_range(expr, low, high, where, names: list[str]):
    evaluate = _evaluator(expr)
    k, d = where
    bounds = f"[{low if low is not None else 0}, {high if high is not None else 'inf'}]"
    low = low if low is not None and low > 2 else None  # torch lets sizes 0 and 1 through

    def step(values, env):
        value = evaluate(env)
        if (low is not None and value < low) or (high is not None and value > high):
            size = values[k].shape[d]
            what = "a size" if value == size else f"a size making {expr} = {value}"
            raise ValueError(
                f"argument {names[k]} dim {d}: expected {what} in the range {bounds} of "
                f"{expr} (the Dim's min/max), got {size}"
            )

    return step


def _evaluator(expr):
    """`expr` as a function of `{symbol name: int}` (ints, or a Fraction for a solved
    division); NotImplementedError for a function it does not know."""
    if isinstance(expr, sympy.Symbol):
        name = expr.name
        return lambda env: env[name]
    if isinstance(expr, sympy.Integer):
        value = int(expr)
        return lambda env: value
    if isinstance(expr, sympy.Rational):
        value = Fraction(int(expr.p), int(expr.q))
        return lambda env: value
    parts = [_evaluator(a) for a in expr.args]
    combine = _COMBINE.get(type(expr))
    if combine is None:
        raise NotImplementedError(f"size expression {expr}")
    return lambda env: combine([p(env) for p in parts])


def _product(xs):
    return math.prod(xs)


def _power(xs):
    base, exponent = xs
    return base**exponent


_COMBINE = {
    sympy.Add: sum,
    sympy.Mul: _product,
    sympy.Pow: _power,
    sympy.Max: max,
    sympy.Min: min,
    sympy_functions.FloorDiv: lambda xs: xs[0] // xs[1],
    sympy_functions.CleanDiv: lambda xs: xs[0] // xs[1],
    sympy_functions.CeilDiv: lambda xs: -(-xs[0] // xs[1]),
    sympy_functions.Mod: lambda xs: xs[0] % xs[1],
    sympy_functions.PythonMod: lambda xs: xs[0] % xs[1],
}
