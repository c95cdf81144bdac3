"""lit configuration for aten-mlir: `lit lit_tests` (or `pytest`, through tests/test_lit.py)."""
# ruff: noqa: F821  (lit provides `config` and `lit_config`)

import os
import sys
from pathlib import Path

import lit.formats

config.name = "aten-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Inputs", "Output"]
config.test_source_root = os.path.dirname(__file__)
# Temporary files (%t) and lit's .lit_test_times.txt go under lit_tests/Output/, which
# .gitignore ignores (lit_tests/**/Output/).
config.test_exec_root = os.path.join(config.test_source_root, "Output")

python = sys.executable


def _package_dir(name: str) -> Path:
    """Where an installed package (`llvm`, `mlir`: the wheels' tool directories) lives, without
    importing it."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        lit_config.fatal(f"package '{name}' is not installed; run `pip install -e .[dev]`")
    return Path(list(spec.submodule_search_locations)[0])


llvm_bin = _package_dir("llvm") / "bin"
mlir_bin = _package_dir("mlir") / "bin"


def _tool(word: str, replacement: str) -> tuple[str, str]:
    """A substitution of `word` as a whole command word (not inside a path, flag or name)."""
    pattern = r"(?<![\w./%-])" + word.replace("-", r"\-") + r"(?![\w./-])"
    return pattern, replacement.replace("\\", "\\\\")


config.substitutions.append(("%PYTHON", python.replace("\\", "\\\\")))
config.substitutions.append(_tool("aten-opt", f"{python} -m aten_mlir.tools.aten_opt"))
config.substitutions.append(_tool("FileCheck", str(llvm_bin / "FileCheck")))
config.substitutions.append(_tool("mlir-opt", str(mlir_bin / "mlir-opt")))
# lit's internal shell runs `not` itself when the wheel lacks LLVM's `not`.
if (llvm_bin / "not").exists():
    config.substitutions.append(_tool("not", str(llvm_bin / "not")))

# Keep what Python and torch need from the caller's environment (lit starts from a clean one).
for var in ("HOME", "TMPDIR", "PYTHONPATH", "TORCH_HOME", "XDG_CACHE_HOME", "LD_LIBRARY_PATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
