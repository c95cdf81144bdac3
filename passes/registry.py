"""The pass registry: small named pass objects with typed options (xDSL `ModulePass` style).

A pass is a frozen dataclass deriving from `ModulePass`, registered with `@register_pass` right
above it. Its options are its fields, spelled in kebab case in pipelines
(`aten-verify{target=core allow=aten.add.Tensor,aten.mul.Tensor}`); their types come from the
annotations: `str`, `int`, `bool` or `tuple[str, ...]` (a comma-separated list).
"""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import ClassVar

from mlir import ir

from aten_mlir.pass_table import PASS_MODULES
from aten_mlir.registry import Registry, did_you_mean  # noqa: F401  (did_you_mean: re-exported)

# The IR walks and memref views live once in passes/ir; re-exported for the modules that still
# import them from here (the Triton passes).
from .ir import (  # noqa: F401
    MEMREF_VIEWS,
    defined_functions,
    function_blocks,
    nested_ops,
    outside_uses,
    view_root,
    walked_ops,
)


class PipelineError(ValueError):
    """A pass pipeline, pass name or pass option that cannot be used; one readable line."""


class UnknownPassError(PipelineError):
    pass


class PassOptionError(PipelineError):
    pass


class PassFailure(Exception):
    """Raised by `ModulePass.run` after it reported its problems as MLIR error diagnostics."""


OPTION_TYPES = (str, int, bool, tuple[str, ...])


def option(default, help: str):
    """A pass option field: its default and the one line `aten-opt --list-passes` shows."""
    return dataclasses.field(default=default, metadata={"help": help})


@dataclasses.dataclass(frozen=True)
class PassOption:
    name: str  # kebab case, as written in pipelines
    field: str  # the dataclass field
    type: object
    default: object
    help: str


@dataclasses.dataclass(frozen=True)
class ModulePass:
    """Base of every aten pass: `name` is its kebab-case pipeline name."""

    name: ClassVar[str] = ""

    def run(self, module_op: ir.Operation) -> None:
        """Transforms or checks `module_op` (or whatever op the pipeline anchors the pass on);
        reports problems with `loc.emit_error(...)`, then raises `PassFailure`."""
        raise NotImplementedError(f"pass {type(self).__name__} does not implement run()")

    @classmethod
    def description(cls) -> str:
        """The first line of the pass's docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def options(cls) -> list[PassOption]:
        hints = typing.get_type_hints(cls)
        return [
            PassOption(
                f.name.replace("_", "-"),
                f.name,
                hints[f.name],
                f.default,
                f.metadata.get("help", ""),
            )
            for f in dataclasses.fields(cls)
        ]

    @classmethod
    def from_options(cls, text: str = "") -> ModulePass:
        """An instance from the text between the braces of `name{...}`."""
        return cls(**parse_options(cls, text))

    def __str__(self) -> str:
        """The pipeline spelling, with the options that differ from their defaults."""
        changed = [
            f"{o.name}={format_option_value(getattr(self, o.field))}"
            for o in self.options()
            if getattr(self, o.field) != o.default
        ]
        return self.name + (f"{{{' '.join(changed)}}}" if changed else "")


# Every pass, filled lazily: looking a pass up imports the module `PASS_MODULES` names for it.
PASSES: Registry[type[ModulePass]] = Registry("pass", modules=PASS_MODULES)


def register_pass(cls: type[ModulePass]) -> type[ModulePass]:
    """Class decorator adding a `ModulePass` subclass to `PASSES`; a name taken twice raises,
    naming both classes. A pass of the tree also needs its line in `aten_mlir.pass_table`."""
    if not (isinstance(cls, type) and issubclass(cls, ModulePass)):
        raise TypeError(f"{cls!r} is not a ModulePass subclass")
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", cls.name or ""):
        raise TypeError(f"pass {cls.__name__} needs a kebab-case `name`, got {cls.name!r}")
    if "__dataclass_fields__" not in vars(cls):
        raise TypeError(f"pass {cls.name} needs a @dataclass decorator (its fields are options)")
    # @dataclass gives a class without a docstring one that spells its signature.
    if not cls.__doc__ or cls.__doc__.startswith(f"{cls.__name__}("):
        raise TypeError(f"pass {cls.name} needs a docstring (one line: what it does)")
    for o in cls.options():
        if o.type not in OPTION_TYPES:
            raise TypeError(f"pass {cls.name}: option '{o.name}' has unsupported type {o.type}")
    return PASSES.register(cls.name, cls)


def get_pass(name: str) -> type[ModulePass]:
    """The registered pass class called `name`; `UnknownPassError` names close matches."""
    if name not in PASSES:  # imports the pass's module on first use
        raise UnknownPassError(f"unknown pass '{name}'{did_you_mean(name, PASSES)}")
    return PASSES[name]


def format_option_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


def _split_top_level(text: str, separators: str) -> list[str]:
    """Splits at `separators` outside double quotes and braces; drops empty pieces."""
    pieces, current, depth, quoted = [], [], 0, False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "{}":
            depth += 1 if ch == "{" else -1
        if ch in separators and not quoted and depth == 0:
            pieces.append("".join(current))
            current = []
        else:
            current.append(ch)
    if quoted or depth:
        raise PassOptionError(f"unbalanced quotes or braces in options '{text}'")
    pieces.append("".join(current))
    return [p for p in pieces if p.strip()]


def _convert(pass_name: str, opt: PassOption, raw: str):
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        raw = raw[1:-1]
    if opt.type is bool:
        lowered = raw.lower()
        if lowered not in ("true", "false", "1", "0"):
            raise PassOptionError(
                f"{pass_name}: option '{opt.name}' expects true or false, got '{raw}'"
            )
        return lowered in ("true", "1")
    if opt.type is int:
        try:
            return int(raw, 0)
        except ValueError:
            raise PassOptionError(
                f"{pass_name}: option '{opt.name}' expects an integer, got '{raw}'"
            ) from None
    return raw


def parse_options(cls: type[ModulePass], text: str) -> dict:
    """Field name -> value from `key=value key2=a,b` (or `key=value,key2=a,b`); a bare bool
    option name means true. A comma piece without `=` continues the previous list option."""
    by_name = {}
    for o in cls.options():
        by_name[o.name] = by_name[o.field] = o
    values: dict[str, object] = {}
    current: PassOption | None = None
    for piece in (
        p for chunk in _split_top_level(text, " \t\n") for p in _split_top_level(chunk, ",")
    ):
        key, eq, raw = piece.partition("=")
        key = key.strip()
        if not eq and by_name.get(key) is not None and by_name[key].type is bool:
            current, values[by_name[key].field] = None, True
            continue
        if not eq:
            if current is None or current.type != tuple[str, ...]:
                raise PassOptionError(f"{cls.name}: option piece '{piece}' has no '=value'")
            values[current.field] += (_convert(cls.name, current, piece),)
            continue
        opt = by_name.get(key)
        if opt is None:
            known = sorted(o.name for o in cls.options())
            raise PassOptionError(
                f"{cls.name}: unknown option '{key}'{did_you_mean(key, known)}"
                f" (options: {', '.join(known) or 'none'})"
            )
        if opt.type == tuple[str, ...]:
            values[opt.field] = (_convert(cls.name, opt, raw),) if raw.strip() else ()
            current = opt
        else:
            values[opt.field], current = _convert(cls.name, opt, raw), None
    return values
