"""Shrinks a failing program while its failure keeps the same signature: fewer outputs, earlier
outputs (dropping later ops), ops removed (their users read the op's first operand), no dynamic
dims, contiguous plain-valued f32 inputs, smaller shapes. Each candidate must still run in eager
(checked here, cheaply) before a child runs it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from .program import FuzzProgram, Step
from .runner import Outcome, run


def prune(p: FuzzProgram) -> FuzzProgram:
    """Drops the steps and inputs no output depends on, renumbering the values."""
    n = len(p.inputs)
    live = set(p.outputs)
    for k in range(len(p.steps) - 1, -1, -1):
        if n + k in live:
            live.update(p.steps[k].args)
    keep_inputs = [i for i in range(n) if i in live]
    if not keep_inputs:  # a program keeps an input (its outputs may not read any)
        keep_inputs = [0]
    keep_steps = [k for k in range(len(p.steps)) if n + k in live]
    new_id = {old: new for new, old in enumerate(keep_inputs)}
    for k in keep_steps:
        new_id[n + k] = len(new_id)
    q = FuzzProgram(
        inputs=[p.inputs[i] for i in keep_inputs],
        steps=[
            Step(
                p.steps[k].op,
                [new_id[a] for a in p.steps[k].args],
                p.steps[k].params,
                p.steps[k].consts,
            )
            for k in keep_steps
        ],
        outputs=[new_id[o] for o in p.outputs],
        seed=p.seed,
    )
    q.dynamic = {new_id[i]: d for i, d in p.dynamic.items() if i in new_id}
    used = {name for dims in q.dynamic.values() for name in dims.values()}
    q.sizes_b = {k: v for k, v in p.sizes_b.items() if k in used}
    if not q.sizes_b:
        q.dynamic = {}
    return q


def _without_step(p: FuzzProgram, k: int) -> FuzzProgram | None:
    n = len(p.inputs)
    step = p.steps[k]
    if not step.args:
        return None
    q = copy.deepcopy(p)
    target, replacement = n + k, step.args[0]
    for s in q.steps[k + 1 :]:
        s.args = [replacement if a == target else a for a in s.args]
    q.outputs = [replacement if o == target else o for o in q.outputs]
    return prune(q)


def candidates(p: FuzzProgram):
    n = len(p.inputs)
    if len(p.outputs) > 1:
        for o in p.outputs:
            yield prune(_with(p, outputs=[o]))
    for v in range(n, n + len(p.steps) - 1):
        yield prune(_with(p, outputs=[v]))
    for k in range(len(p.steps)):
        q = _without_step(p, k)
        if q is not None:
            yield q
    if p.dynamic:
        yield _with(p, dynamic={}, sizes_b={})
    for i in range(n):
        yield from _simpler_input(p, i)


def _simpler_input(p: FuzzProgram, i: int):
    spec = p.inputs[i]
    for field, simple in (("layout", "c"), ("special", False), ("dtype", "f32")):
        if getattr(spec, field) != simple:
            q = copy.deepcopy(p)
            setattr(q.inputs[i], field, simple)
            yield q
    for d, size in enumerate(spec.shape):
        for smaller in sorted({1, size - 1}):
            if 1 <= smaller < size and d not in p.dynamic.get(i, {}):
                q = copy.deepcopy(p)
                q.inputs[i].shape[d] = smaller
                yield q


def _with(p: FuzzProgram, **changes) -> FuzzProgram:
    q = copy.deepcopy(p)
    for k, v in changes.items():
        setattr(q, k, v)
    return q


def runs_in_eager(p: FuzzProgram) -> bool:
    try:
        module = p.module()
        for v in [0, 1] if p.dynamic else [0]:
            module(*p.example_inputs(v))
    except Exception:
        return False
    return True


def shrink(p: FuzzProgram, target: str, failure: Outcome, budget: int = 40, timeout: float = 60):
    """The smallest program found (within `budget` child runs) failing like `failure`."""
    want = failure.signature()
    best, best_outcome, runs = p, failure, 0
    improved = True
    while improved and runs < budget:
        improved = False
        for cand in candidates(best):
            if runs >= budget:
                break
            if not runs_in_eager(cand):
                continue
            runs += 1
            outcome = run(cand, target, timeout=timeout)
            if outcome.signature() == want:
                best, best_outcome, improved = cand, outcome, True
                break
    return best, best_outcome


def write_regression(directory: Path, name: str, p: FuzzProgram, target: str, outcome: Outcome):
    """A regression case test_regressions.py replays; `xfail` names the bug until it is fixed."""
    directory.mkdir(parents=True, exist_ok=True)
    record = {
        "target": target,
        "class": outcome.cls,
        "detail": outcome.detail,
        "xfail": f"{outcome.cls}: {outcome.detail}"[:200],
        "describe": p.describe().splitlines(),
        "program": json.loads(p.to_json()),
    }
    path = directory / f"{name}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path
