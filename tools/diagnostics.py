"""Diagnostics for `aten-opt`: plain records of MLIR diagnostics, and `--verify-diagnostics`.

`--verify-diagnostics` follows mlir-opt: a comment `// expected-error {{text}}` expects an error
containing `text` on its own line; `@+N`/`@-N` shift the line, `@above`/`@below` name the closest
line before/after without an `expected-` comment, `@unknown` an unknown location;
`expected-warning`, `-note` and `-remark` likewise, and `expected-error-re {{a {{[0-9]+}} b}}`
matches the `{{...}}` parts as regular expressions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlir import ir

from aten_mlir.dialects import describe_location, file_position

_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


@dataclass(frozen=True)
class Diag:
    """One diagnostic: severity, message and where (file, line, col when it has a file)."""

    severity: str
    message: str
    where: str  # as printed: `file.mlir:3:8`, or `model.py:12 (node add in fc)`
    position: tuple[str, int, int] | None = None

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


class ToolError(Exception):
    """An error the user can fix; printed as one line `<where>: error: <message>`, exit 1."""

    def __init__(self, message: str, where: str = "aten-opt"):
        super().__init__(message)
        self.where = where


def diags_of(d) -> list[Diag]:
    """An `ir.Diagnostic` or `ir.DiagnosticInfo` and its notes, as records."""
    loc = d.location
    found = [
        Diag(
            _SEVERITY.get(d.severity, "error"),
            d.message,
            describe_location(loc),
            file_position(loc),
        )
    ]
    for note in d.notes:
        found += diags_of(note)
    return found


@dataclass
class Expectation:
    severity: str
    text: str
    line: int | None  # the line the diagnostic must be on (None: an unknown location)
    comment: tuple[int, int]  # line and column of the `expected-` comment
    regex: re.Pattern | None = None
    matched: bool = False

    def matches(self, d: Diag, source: str) -> bool:
        if self.matched or d.severity != self.severity:
            return False
        if d.position and d.position[0] != source:
            return False
        line = d.position[1] if d.position else None
        if line != self.line:
            return False
        return bool(self.regex.search(d.message)) if self.regex else self.text in d.message


_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?\s*(@([+-]\d+|above|below|unknown))?\s*\{\{(.*)\}\}"
)


class DesignatorError(ValueError):
    pass


def _regex_of(text: str) -> re.Pattern:
    """`a {{[0-9]+}} b`: literal text with `{{...}}` regular expressions."""
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return re.compile("".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts)))


def _target_line(designator: str | None, lineno: int, lines: list[str], marked: set[int]):
    if designator is None:
        return lineno
    if designator == "unknown":
        return None
    if designator in ("above", "below"):
        step = -1 if designator == "above" else 1
        i = lineno + step
        while 1 <= i <= len(lines) and i in marked:
            i += step
        if not 1 <= i <= len(lines):
            raise DesignatorError(f"no line {designator} line {lineno} to attach the diagnostic to")
        return i
    target = lineno + int(designator)
    if not 1 <= target <= len(lines):
        raise DesignatorError(f"line {lineno}: '@{designator}' points outside the file")
    return target


def parse_expectations(text: str) -> list[Expectation]:
    """The `expected-*` comments in `text`, with the source lines they point at."""
    lines = text.splitlines()
    found = [(i, m) for i, line in enumerate(lines, 1) for m in [_EXPECTED.search(line)] if m]
    marked = {i for i, _ in found}
    expectations = []
    for lineno, m in found:
        severity, is_re, _, designator, body = m.groups()
        expectations.append(
            Expectation(
                severity,
                body,
                _target_line(designator, lineno, lines, marked),
                (lineno, m.start() + 1),
                _regex_of(body) if is_re else None,
            )
        )
    return expectations


def verify_diagnostics(diags: list[Diag], expected: list[Expectation], source: str) -> list[str]:
    """mlir-opt's verdict: one line per unexpected diagnostic and per expectation not met."""
    problems = []
    for d in diags:
        hit = next((e for e in expected if e.matches(d, source)), None)
        if hit is not None:
            hit.matched = True
        else:
            problems.append(f"{d.where}: error: unexpected {d.severity}: {d.message}")
    for e in expected:
        if not e.matched:
            line, col = e.comment
            problems.append(
                f'{source}:{line}:{col}: error: expected {e.severity} "{e.text}" was not produced'
            )
    return problems
