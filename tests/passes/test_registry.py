"""The pass registry, options and pipelines (tests/passes/test_passes.py runs the passes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from aten_mlir.passes import (
    PASSES,
    ModulePass,
    NestedPipeline,
    PassElement,
    PassOptionError,
    PipelineError,
    UnknownPassError,
    get_pass,
    parse_pipeline,
    register_pass,
)


@pytest.fixture
def registry():
    """PASSES as it is, restored after the test registers passes of its own."""
    saved = dict(PASSES)
    yield PASSES
    PASSES.clear()
    PASSES.update(saved)


@dataclass(frozen=True)
class Options(ModulePass):
    """A pass with one option of every supported type."""

    name: ClassVar[str] = "test-options"
    count: int = 1
    mode: str = "fast"
    strict: bool = False
    ops: tuple[str, ...] = ()

    def run(self, module_op) -> None:
        pass


def test_shipped_passes_are_registered():
    assert {"aten-verify", "aten-drop-dead"} <= set(PASSES)
    for cls in PASSES.values():
        assert cls.description() and "\n" not in cls.description()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", Options()),
        ("count=3 mode=slow", Options(count=3, mode="slow")),
        ("count=0x10,strict=true", Options(count=16, strict=True)),
        ("strict", Options(strict=True)),
        ("strict=0", Options(strict=False)),
        (
            "ops=aten.add.Tensor,aten.mul.Tensor count=2",
            Options(2, ops=("aten.add.Tensor", "aten.mul.Tensor")),
        ),
        ("ops=a,b,count=2", Options(count=2, ops=("a", "b"))),
        ("ops=a,b,strict", Options(strict=True, ops=("a", "b"))),
        ('mode="a b,c"', Options(mode="a b,c")),
        ("ops=", Options(ops=())),
        ("ops_=x", None),
    ],
)
def test_option_parsing(text, expected):
    if expected is None:
        with pytest.raises(
            PassOptionError, match=r"unknown option 'ops_' \(did you mean 'ops'\?\)"
        ):
            Options.from_options(text)
    else:
        assert Options.from_options(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("count=many", "option 'count' expects an integer, got 'many'"),
        ("strict=yes", "option 'strict' expects true or false, got 'yes'"),
        ("count=1,2", "option piece '2' has no '=value'"),
        ('mode="open', "unbalanced quotes or braces"),
    ],
)
def test_bad_options(text, message):
    with pytest.raises(PassOptionError, match=message):
        Options.from_options(text)


def test_pass_spelling_round_trips():
    p = Options(count=2, ops=("a", "b"), strict=True)
    assert str(p) == "test-options{count=2 strict=true ops=a,b}"
    assert Options.from_options(str(p)[len("test-options{") : -1]) == p
    assert str(Options()) == "test-options"
    assert [o.name for o in Options.options()] == ["count", "mode", "strict", "ops"]


def test_register_pass(registry):
    register_pass(Options)
    assert get_pass("test-options") is Options
    with pytest.raises(KeyError, match="pass 'test-options' registered twice"):
        register_pass(Options)

    @dataclass(frozen=True)
    class Other(ModulePass):
        """Another pass taking the same name."""

        name: ClassVar[str] = "test-options"

    with pytest.raises(KeyError, match="registered twice") as e:
        register_pass(Other)
    assert "test_registry.Options" in str(e.value) and "Other" in str(e.value)  # both owners


def test_register_pass_checks_the_class(registry):
    @dataclass(frozen=True)
    class BadName(ModulePass):
        """Not kebab case."""

        name: ClassVar[str] = "Bad_Name"

    class NoDataclass(ModulePass):
        """Options would be ignored without @dataclass."""

        name: ClassVar[str] = "no-dataclass"

    @dataclass(frozen=True)
    class BadOption(ModulePass):
        """A float option is not supported."""

        name: ClassVar[str] = "bad-option"
        scale: float = 1.0

    @dataclass(frozen=True)
    class NoDoc(ModulePass):
        name: ClassVar[str] = "no-doc"

    with pytest.raises(TypeError, match="needs a docstring"):
        register_pass(NoDoc)
    with pytest.raises(TypeError, match="kebab-case"):
        register_pass(BadName)
    with pytest.raises(TypeError, match="@dataclass"):
        register_pass(NoDataclass)
    with pytest.raises(TypeError, match="option 'scale' has unsupported type"):
        register_pass(BadOption)
    with pytest.raises(TypeError, match="not a ModulePass"):
        register_pass(int)
    assert not {"Bad_Name", "no-dataclass", "bad-option", "no-doc"} & set(PASSES)


def test_unknown_pass_names_close_matches():
    with pytest.raises(
        UnknownPassError, match=r"unknown pass 'aten-verfy' \(did you mean 'aten-verify'\?\)"
    ):
        get_pass("aten-verfy")
    with pytest.raises(UnknownPassError, match=r"unknown pass 'zzz'$"):
        get_pass("zzz")


def test_parse_pipeline():
    wrapped = parse_pipeline(
        "builtin.module(aten-verify{target=core allow=a,b}, canonicalize,"
        "func.func(cse,aten-drop-dead))"
    )
    assert wrapped == [
        PassElement("aten-verify", "target=core allow=a,b"),
        PassElement("canonicalize"),
        NestedPipeline("func.func", [PassElement("cse"), PassElement("aten-drop-dead")]),
    ]
    assert (
        parse_pipeline(
            "aten-verify{target=core allow=a,b},canonicalize,func.func(cse,aten-drop-dead)"
        )
        == wrapped
    )
    assert parse_pipeline("  ") == []
    assert parse_pipeline("func.func(cse),cse") == [
        NestedPipeline("func.func", [PassElement("cse")]),
        PassElement("cse"),
    ]
    # Braces nest and may hold quoted text with commas and parentheses.
    assert parse_pipeline('p{a={b,c} d="x,)"}') == [PassElement("p", 'a={b,c} d="x,)"')]
    assert str(NestedPipeline("func.func", [PassElement("p", "a=1")])) == "func.func(p{a=1})"


@pytest.mark.parametrize(
    "text, message",
    [
        ("builtin.module(cse", r"expected ',' or '\)' at column 19"),
        ("cse,", "unexpected end at column 5"),
        ("cse cse", "expected ',' or 'end' at column 5"),
        ("p{a=1", "unbalanced braces"),
        ("(cse)", "expected a pass or operation name at column 1"),
    ],
)
def test_pipeline_syntax_errors(text, message):
    with pytest.raises(PipelineError, match=message):
        parse_pipeline(text)
