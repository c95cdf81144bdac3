"""The malformed-IR corpus (`tests/tools/malformed_ir.py`) through `aten-opt`: every input exits
0, or 1 with a located first line; never a traceback, a signal or a hang. The default run (about
700 runs, a minute or two on two busy cores) takes every input with no pipeline, every second
with `aten-decompose` and every twentieth with each CPU and Triton `--stage`; the `slow` run
takes every input with every one of them (4830 runs)."""

from __future__ import annotations

import pytest

from tests.tools import malformed_ir

STAGE_SAMPLE = 20


def _failures(tmp_path, select) -> tuple[list, dict]:
    inputs = malformed_ir.corpus()
    assert len(inputs) >= 300
    files = malformed_ir.write(inputs, tmp_path)
    jobs = [
        (name, path, argv)
        for i, (name, path) in enumerate(files)
        for argv in malformed_ir.BASE_ARGVS + malformed_ir.stage_argvs()
        if select(i, argv)
    ]
    outcomes = malformed_ir.run(jobs)
    failed = [
        f"{o.name} {' '.join(o.argv)}: {o.status}: {o.first_line}" for o in outcomes if not o.ok
    ]
    return failed, malformed_ir.summary(outcomes)


def test_corpus_exits_cleanly(tmp_path):
    def sampled(i: int, argv: list[str]) -> bool:
        if not argv:
            return True
        return i % 2 == 0 if argv in malformed_ir.BASE_ARGVS else i % STAGE_SAMPLE == 0

    failed, counts = _failures(tmp_path, sampled)
    assert not failed, "\n".join(failed)
    assert counts["exit 1"] > counts["exit 0"]  # the corpus is mostly broken, as meant


@pytest.mark.slow
def test_whole_corpus_through_every_stage(tmp_path):
    failed, _ = _failures(tmp_path, lambda i, argv: True)
    assert not failed, "\n".join(failed)


def test_mutants_are_reproducible():
    assert malformed_ir.corpus(per_seed=5) == malformed_ir.corpus(per_seed=5)
