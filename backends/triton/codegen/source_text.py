"""Program strings as generated Python text: comments and identifiers that cannot run code.

The Triton module is Python source that is executed, so nothing the program carries (node
names, module paths from `nn_module_stack`, source files, function symbols: all under the
control of whoever wrote the model or the `.pt2` file) may reach it verbatim. A location
becomes a one-line ASCII comment with every other character escaped; a symbol becomes an
identifier only after a strict ASCII check, behind a prefix no generated name of ours uses.
"""

from __future__ import annotations

import keyword
import re

from .kernel_types import KernelError

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT_LIMIT = 240  # a location is a file:line and two names; longer text is noise


def comment(text: str) -> str:
    """`# <text>` on one line: non-ASCII and non-printable characters (newlines, carriage
    returns, form feeds, NUL) escaped as `repr` does, so the line ends where we end it."""
    escaped = "".join(c if " " <= c <= "~" else ascii(c)[1:-1] for c in text)
    if len(escaped) > _COMMENT_LIMIT:
        escaped = escaped[: _COMMENT_LIMIT - 3] + "..."
    return f"# {escaped}"


def is_identifier(name: str) -> bool:
    """`name` is a plain ASCII Python identifier (Python normalises non-ASCII identifiers with
    NFKC, so two symbols could meet in one name) and not a keyword."""
    return bool(_IDENTIFIER.fullmatch(name)) and not keyword.iskeyword(name)


def launcher_name(symbol: str, index: int) -> str:
    """The Python name of the launcher of function `symbol` (the `index`th of the module):
    `run_<symbol>` when `symbol` is a plain identifier, else `run<index>`; no name of the
    generated module's header or of a kernel (`k_...`) starts with `run`."""
    return f"run_{symbol}" if is_identifier(symbol) else f"run{index}"


def integer(text: str) -> str:
    """`text` (a number the outlining wrote into a string attribute) as a Python int literal."""
    try:
        return str(int(text.strip()))
    except ValueError:
        raise KernelError(f"expected an integer in a product's attribute, got {text!r}") from None
