"""The layout's rules, checked on the source: no import cycle between the package's modules, no
target-neutral pass importing a backend, no private name imported across rooms or across the
Triton backend's modules (tests/layout/imports.py prints them: `python -m tests.layout.imports`)."""

from .imports import cycles, forbidden, graph


def test_no_import_cycles():
    assert cycles(graph(module_level_only=False)) == []


def test_no_forbidden_imports():
    assert forbidden() == []


def test_backend_passes_live_in_their_backend():
    from .imports import ROOT

    for path in (ROOT / "passes").rglob("*.py"):
        text = path.read_text()
        for prefix in ("cpu-", "triton-"):
            assert f'ClassVar[str] = "{prefix}' not in text, f"{path}: a {prefix} pass in passes/"
