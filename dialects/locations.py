"""Reading the user's source position back out of MLIR locations.

The importer gives every op `fused[FileLineColLoc, NameLoc(fx node), NameLoc(module path)]`;
parsed IR has plain file locations. Error messages use `describe_location`.
"""

from __future__ import annotations

from mlir import ir


def file_position(loc: ir.Location) -> tuple[str, int, int] | None:
    """(file, line, column) of the first file location inside `loc`, or None."""
    if loc.is_a_file():
        return loc.filename, loc.start_line, loc.start_col
    if loc.is_a_name():
        return file_position(loc.child_loc)
    if loc.is_a_fused():
        for inner in loc.locations:
            found = file_position(inner)
            if found:
                return found
    if loc.is_a_callsite():
        return file_position(loc.callee)
    return None


def location_names(loc: ir.Location) -> list[str]:
    """The NameLoc names inside `loc`, outermost first (FX node name, then module path)."""
    if loc.is_a_name():
        return [loc.name_str, *location_names(loc.child_loc)]
    if loc.is_a_fused():
        return [n for inner in loc.locations for n in location_names(inner)]
    return []


def describe_location(loc: ir.Location) -> str:
    """`model.py:12 (node linear_1 in encoder.fc)`, or the location text when it has no file."""
    pos = file_position(loc)
    names = location_names(loc)
    text = (
        (f"{pos[0]}:{pos[1]}" + (f":{pos[2]}" if pos[2] else ""))
        if pos
        else ("<unknown>" if not names else "")
    )
    if names:
        where = f"node {names[0]}" + (f" in {names[1]}" if len(names) > 1 and names[1] else "")
        text = f"{text} ({where})" if text else where
    return text
