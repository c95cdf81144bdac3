"""Dumps every stage of the bench workloads and the model zoo on both targets, to compare two
trees byte for byte (a layout change must not change the lowered IR):

    PYTHONPATH=<tree-parent> python -m tests.layout.dump_stages OUT_DIR
    python -m tests.layout.dump_stages --compare OLD_DIR NEW_DIR

Paths of the tree that made a dump (source locations of the bench's own modules) are written
as `<root>`, so two checkouts of one commit give identical dumps."""

from __future__ import annotations

import argparse
import filecmp
import sys
from pathlib import Path

import torch


def _programs():
    """(name, build() -> (model, inputs, dynamic_shapes)): the bench workloads as the bench
    exports them (static), the zoo with a dynamic batch."""
    from bench.workloads import WORKLOADS, in_set
    from tests.models.model_zoo import MODEL_ZOO

    for name in in_set("small"):  # the realistic set's weights are gigabytes
        w = WORKLOADS[name]
        yield f"bench-{name}", lambda w=w: (*w.build(), None)
    for name, entry in MODEL_ZOO.items():
        yield f"zoo-{name}", lambda entry=entry: tuple(entry.build(dynamic_batch=True))


def dump(out: Path, only: set[str] | None = None) -> None:
    import aten_mlir

    root = str(Path(aten_mlir.__file__).resolve().parent)
    for name, build in _programs():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        model, inputs, dynamic_shapes = build()
        ep = torch.export.export(model, tuple(inputs), dynamic_shapes=dynamic_shapes)
        for target in ("cpu", "triton"):
            where = out / target / name
            where.mkdir(parents=True, exist_ok=True)
            try:
                aten_mlir.compile(ep, target=target, dump_dir=where, cache=False)
            except Exception as e:  # the failure itself is part of what must not change
                (where / "error.txt").write_text(f"{type(e).__name__}: {e}\n")
            for f in where.iterdir():
                if f.is_file():
                    f.write_text(f.read_text(errors="replace").replace(root, "<root>"))
        print(name, flush=True)


def compare(old: Path, new: Path) -> int:
    differ, missing = [], []

    def walk(cmp: filecmp.dircmp, prefix: str) -> None:
        missing.extend(f"{prefix}{n}" for n in cmp.left_only + cmp.right_only)
        differ.extend(f"{prefix}{n}" for n in cmp.diff_files)
        for sub, c in cmp.subdirs.items():
            walk(c, f"{prefix}{sub}/")

    walk(filecmp.dircmp(old, new), "")
    files = sum(1 for p in old.rglob("*") if p.is_file())
    for d in differ:
        print("differs:", d)
    for m in missing:
        print("only on one side:", m)
    print(f"{files} files compared, {len(differ)} differ, {len(missing)} on one side only")
    return 1 if differ or missing else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    if a.compare:
        return compare(Path(a.compare[0]), Path(a.compare[1]))
    dump(Path(a.out), set(a.only) if a.only else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
