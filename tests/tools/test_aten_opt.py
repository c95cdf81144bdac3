"""aten-opt in-process: arguments, split files, --verify-diagnostics and error reporting."""

from __future__ import annotations

import os
import textwrap

import pytest

from aten_mlir.tools import aten_opt
from aten_mlir.tools.aten_opt import main, parse_args, split_input
from aten_mlir.tools.diagnostics import Diag, parse_expectations, verify_diagnostics

T = "tensor<2xf32>"
GOOD = f"""\
func.func @f(%a: {T}) -> {T} {{
  %0 = "aten.relu"(%a) : ({T}) -> {T}
  %1 = "aten.exp"(%a) : ({T}) -> {T}
  return %0 : {T}
}}
"""
BAD_ATTR = f"""\
func.func @g(%a: {T}) {{
  // expected-error@+1 {{{{unknown attributes ['x']}}}}
  %0 = "aten.relu"(%a) {{x = 1}} : ({T}) -> {T}
  return
}}
"""


def write(tmp_path, text: str, name: str = "in.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_runs_a_pipeline_and_prints(tmp_path, capsys):
    assert main([write(tmp_path, GOOD), "-p", "builtin.module(aten-verify,aten-drop-dead)"]) == 0
    out = capsys.readouterr().out
    assert '"aten.relu"' in out and "aten.exp" not in out


def test_output_file_and_pass_flags(tmp_path, capsys):
    out_file = tmp_path / "out.mlir"
    assert main([write(tmp_path, GOOD), "--aten-drop-dead", "--cse", "-o", str(out_file)]) == 0
    assert capsys.readouterr().out == ""
    assert "aten.exp" not in out_file.read_text()


@pytest.mark.parametrize(
    "argv, pipeline",
    [
        (["x.mlir", "--cse", "--aten-verify=target=core"], "cse,aten-verify{target=core}"),
        (["--aten-verify={allow=a,b}", "x.mlir"], "aten-verify{allow=a,b}"),
        (
            ["-cse", "x.mlir", "--canonicalize={max-iterations=2}"],
            "cse,canonicalize{max-iterations=2}",
        ),
        (["x.mlir", "-p", "cse"], "cse"),
        (["x.mlir"], ""),
    ],
)
def test_pass_flags_become_a_pipeline(argv, pipeline):
    args, text = parse_args(argv)
    assert (args.input, text) == ("x.mlir", pipeline)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["x.mlir", "-p", "cse", "--cse"], "either as --pass-pipeline or as pass flags"),
        (["x.mlir", "y.mlir"], "unexpected argument 'y.mlir'"),
        (["--import", "m.pt2", "--split-input-file"], "--import takes a .pt2 file"),
    ],
)
def test_bad_arguments(argv, message, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("aten-opt: error: ") and message in err and err.count("\n") == 1


def test_split_input_keeps_line_numbers():
    chunks = split_input("a\n// -----\nb\nc\n  // ----- trailing\nd")
    assert chunks == ["a\n", "\n\nb\nc\n", "\n\n\n\n\nd"]
    assert [c.splitlines()[-1] for c in chunks] == ["a", "c", "d"]
    assert split_input("no marker\n") == ["no marker\n"]


def test_split_input_file_reports_every_chunk(tmp_path, capsys):
    text = GOOD + "// -----\n" + BAD_ATTR + "// -----\n" + GOOD.replace("@f", "@h")
    path = write(tmp_path, text)
    assert main([path, "--split-input-file", "-p", "aten-verify"]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"{path}:9:8: error: 'aten.relu' op has unknown attributes ['x'] "
        "(schema: aten::relu(Tensor self) -> Tensor)\n"
    )
    chunks = captured.out.split("// -----\n")
    assert len(chunks) == 3 and "@f" in chunks[0] and chunks[1] == "" and "@h" in chunks[2]


def test_parse_error_is_one_located_line(tmp_path, capsys):
    path = write(
        tmp_path,
        'func.func @f() {\n  %0 = "aten.relu"(%nope) : (tensor<2xf32>) -> tensor<2xf32>\n}\n',
    )
    assert main([path]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"{path}:2:20: error: use of undeclared SSA value name\n"


def test_verify_diagnostics_all_matched(tmp_path, capsys):
    assert main([write(tmp_path, BAD_ATTR), "--verify-diagnostics", "-p", "aten-verify"]) == 0
    assert capsys.readouterr().err == ""


def test_verify_diagnostics_mismatch_returns_1(tmp_path, capsys):
    text = BAD_ATTR.replace("unknown attributes ['x']", "no such thing")
    path = write(tmp_path, text)
    assert main([path, "--verify-diagnostics", "-p", "aten-verify"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:3:8: error: unexpected error: 'aten.relu' op has unknown attributes ['x'] "
        "(schema: aten::relu(Tensor self) -> Tensor)",
        f'{path}:2:6: error: expected error "no such thing" was not produced',
    ]


def test_verify_diagnostics_on_parse_errors(tmp_path, capsys):
    text = textwrap.dedent(
        """\
        func.func @f() {
          // expected-error@+1 {{undeclared SSA value}}
          "aten.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
        }
        """
    )
    assert main([write(tmp_path, text), "--verify-diagnostics"]) == 0
    assert main([write(tmp_path, text.replace("@+1", "@-1")), "--verify-diagnostics"]) == 1
    assert "unexpected error: use of undeclared SSA value name" in capsys.readouterr().err


def test_expectation_designators():
    text = textwrap.dedent(
        """\
        op1
        // expected-error {{same line}}
        // expected-warning@+3 {{three below}}
        // expected-note@-3 {{three above}}
        // expected-remark@above {{above skips designators}}
        // expected-error@below {{below skips designators}}
        op7
        // expected-error@unknown {{nowhere}}
        // expected-error-re@-2 {{a {{[0-9]+}} b.}}
        """
    )
    got = [(e.severity, e.text, e.line, e.comment) for e in parse_expectations(text)]
    assert got == [
        ("error", "same line", 2, (2, 4)),
        ("warning", "three below", 6, (3, 4)),
        ("note", "three above", 1, (4, 4)),
        ("remark", "above skips designators", 1, (5, 4)),
        ("error", "below skips designators", 7, (6, 4)),
        ("error", "nowhere", None, (8, 4)),
        ("error", "a {{[0-9]+}} b.", 7, (9, 4)),
    ]
    regex = parse_expectations(text)[-1]
    at = ("f.mlir", 7, 1)
    assert regex.matches(Diag("error", "x a 12 b. y", "f.mlir:7:1", at), "f.mlir")
    assert not regex.matches(Diag("error", "a 12 bc", "f.mlir:7:1", at), "f.mlir")
    assert not regex.matches(Diag("error", "a 12 b.", "g.mlir:7:1", ("g.mlir", 7, 1)), "f.mlir")


def test_each_expectation_takes_one_diagnostic():
    expected = parse_expectations("x // expected-error {{boom}}\n")
    d = Diag("error", "boom", "f.mlir:1:1", ("f.mlir", 1, 1))
    problems = verify_diagnostics([d, d], expected, "f.mlir")
    assert problems == ["f.mlir:1:1: error: unexpected error: boom"]


def test_list_passes(capsys):
    assert main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    assert "  aten-verify\n" in out and "  aten-drop-dead\n" in out
    assert "keep-random=<bool>" in out and "allow=<str,...>" in out
    assert "Upstream MLIR passes are accepted too" in out


def test_bad_pt2_is_one_line(tmp_path, capsys):
    path = write(tmp_path, "not a zip archive", "model.pt2")
    assert main(["--import", path]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith(f"{path}: error: cannot load an exported program: ") and err.count("\n") == 1
    )


def test_a_bug_keeps_its_traceback(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(aten_opt, "run_pipeline", broken)
    with pytest.raises(KeyError, match="a bug"):
        main([write(tmp_path, GOOD)])


def test_import_runs_a_pipeline(tmp_path, capsys):
    torch = pytest.importorskip("torch")

    class Model(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x) + 1

    path = str(tmp_path / "m.pt2")
    torch.export.save(torch.export.export(Model(), (torch.randn(2, 3),)), path)
    assert main(["--import", path, "-p", "aten-verify,aten-drop-dead"]) == 0
    out = capsys.readouterr().out
    assert "func.func @main" in out and '"aten.relu"' in out
    assert main(["--import", path, "-p", "aten-verify{target=core allow=aten.relu}"]) == 0


# memref.expand_shape with two dynamic sizes in one group: expand-strided-metadata asserts
# ("There must be at most one dynamic size per group") in upstream MLIR.
EXPAND = (
    "\nfunc.func @f(%m: memref<?xf32>, %d: index) -> memref<2x?x?xf32> {\n"
    "  %0 = memref.expand_shape %m [[0, 1, 2]] output_shape [2, %d, %d]"
    " : memref<?xf32> into memref<2x?x?xf32>\n"
    "  return %0 : memref<2x?x?xf32>\n"
    "}\n"
)


def test_an_abort_in_a_pass_is_exit_1_with_a_located_error(tmp_path, capsys):
    path = write(tmp_path, EXPAND)
    assert main([path, "-p", "expand-strided-metadata"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    first = f"{path}:2:1: error: MLIR crashed (SIGABRT) in pass 'expand-strided-metadata' of "
    assert captured.err.startswith(first)
    assert "at most one dynamic size per group" in captured.err


def test_an_abort_in_a_stage_names_the_stage(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(aten_opt, "run_pipeline", lambda *a, **k: os.abort())
    assert main([write(tmp_path, GOOD), "--stage", "llvm"]) == 1
    assert f"{tmp_path}/in.mlir:1:1: error: MLIR crashed (SIGABRT) in --stage llvm: " in (
        capsys.readouterr().err
    )


def test_invalid_utf8_is_located(tmp_path, capsys):
    path = tmp_path / "in.mlir"
    path.write_bytes(b"func.func @f() {\n  return // caf\xe9\n}\n")
    assert main([str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:2:16: error: invalid UTF-8 byte 0xe9 in the input\n"


@pytest.mark.parametrize(
    "argv, target, name",
    [
        (["--stage", "fusion"], "cpu", "fusion"),
        (["--target", "triton", "--stage", "fusion"], "triton", "fusion"),
        (["--stage", "triton-loops"], "triton", "triton-loops"),  # only Triton has it
    ],
)
def test_stages_of_either_target(argv, target, name):
    from aten_mlir.backends.cpu.pipeline import CPU_STAGES
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    stages = {"cpu": CPU_STAGES, "triton": TRITON_STAGES}[target]
    args, pipeline = parse_args([*argv, "x.mlir"])
    assert (args.target, pipeline) == (target, next(s for s in stages if s.name == name).pipeline)


def test_triton_stage_range_and_unknown_stage(capsys):
    from aten_mlir.backends.triton.pipeline import TRITON_STAGES

    _, pipeline = parse_args(["--target", "triton", "--stage", "loops..", "x.mlir"])
    assert pipeline == ",".join(s.pipeline for s in TRITON_STAGES[-2:])
    assert main(["--target", "cpu", "--stage", "triton-loops", "x.mlir"]) == 1
    assert "unknown cpu stage 'triton-loops'" in capsys.readouterr().err
