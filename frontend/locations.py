"""MLIR locations for FX nodes: the user's source line, the node name and its module path."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import torch
from mlir import ir

_FRAME_RE = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)\n(?P<code>[^\n]*)'
)
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


@dataclass(frozen=True)
class SourceFrame:
    file: str
    line: int
    function: str
    code: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" + (f": {self.code}" if self.code else "")


def user_frame(stack_trace: str | None) -> SourceFrame | None:
    """The innermost frame outside PyTorch itself: the line the user wrote.

    A `nn.Linear` call's trace ends inside torch/nn; the user wants the `self.fc(x)` line.
    """
    if not stack_trace:
        return None
    frames = [
        SourceFrame(m["file"], int(m["line"]), m["func"], m["code"].strip())
        for m in _FRAME_RE.finditer(stack_trace)
    ]
    if not frames:
        return None
    # Frames in torch itself or in FX-generated code (`<eval_with_key>.7`) are not the user's.
    outside = [f for f in frames if not f.file.startswith((_TORCH_DIR, "<"))]
    return (outside or frames)[-1]


def module_path(node: torch.fx.Node) -> str:
    """Fully qualified path of the innermost `nn.Module` the node was traced in (`encoder.fc`)."""
    stack = node.meta.get("nn_module_stack") or {}
    for path, _type in reversed(list(stack.values())):
        if isinstance(path, str) and not path.startswith("_empty"):
            # Older exports spell paths as `L['self'].encoder.fc`.
            return re.sub(r"^L\['self'\]\.?", "", path)
    return ""


def node_location(node: torch.fx.Node) -> ir.Location:
    """`fused[FileLineColLoc(user frame), NameLoc(node name), NameLoc(module path)]`."""
    frame = user_frame(node.meta.get("stack_trace"))
    parts = [ir.Location.file(frame.file, frame.line, 0) if frame else ir.Location.unknown()]
    parts.append(ir.Location.name(node.name))
    path = module_path(node)
    if path:
        parts.append(ir.Location.name(path))
    return ir.Location.fused(parts)


def describe_node(node: torch.fx.Node) -> str:
    """`model.py:12: y = self.fc(x) (node linear_1 in fc)` for error messages."""
    frame = user_frame(node.meta.get("stack_trace"))
    path = module_path(node)
    where = f"node {node.name}" + (f" in {path}" if path else "")
    return f"{frame} ({where})" if frame else where
