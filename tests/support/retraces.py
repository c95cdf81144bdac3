"""A fixture counting torch's re-trace (`ExportedProgram.run_decompositions`), for the tests of
the importer's fast path."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture
def retraces(monkeypatch):
    """Counts calls of `ExportedProgram.run_decompositions`."""
    calls = []
    original = torch.export.ExportedProgram.run_decompositions

    def counted(self, *args, **kwargs):
        calls.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.export.ExportedProgram, "run_decompositions", counted)
    return calls
