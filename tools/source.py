"""`aten-opt`'s input and output files: read as UTF-8 (a bad byte is an error at its line and
column), split at `// -----` lines for `--split-input-file`."""

from __future__ import annotations

import re
import sys

from .diagnostics import ToolError

SPLIT_MARKER = re.compile(r"^\s*//\s*-----")


def split_input(text: str) -> list[str]:
    """Chunks between `// -----` lines, each padded with newlines to keep its line numbers."""
    chunks, start, current = [], 0, []
    for i, line in enumerate(text.splitlines(keepends=True)):
        if SPLIT_MARKER.match(line):
            chunks.append("\n" * start + "".join(current))
            start, current = i + 1, []
        else:
            current.append(line)
    chunks.append("\n" * start + "".join(current))
    return chunks


def read_input(path: str) -> tuple[str, str]:
    if path == "-":
        data, source = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            with open(path, "rb") as f:
                data, source = f.read(), path
        except OSError as e:
            raise ToolError(f"cannot open input file '{path}': {e.strerror}") from None
    try:
        return data.decode("utf-8"), source
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ToolError(
            f"invalid UTF-8 byte 0x{data[e.start]:02x} in the input",
            where=f"{source}:{line}:{column}",
        ) from None


def write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise ToolError(f"cannot write output file '{path}': {e.strerror}") from None
