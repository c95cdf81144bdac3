"""The `Registry` mechanism every table uses: decorator and plain-call registration, the
duplicate check naming both owners, "did you mean", sorted listing and lazy loading."""

from __future__ import annotations

import functools
import sys
import textwrap

import pytest

from aten_mlir.registry import DuplicateKeyError, Registry, UnknownKeyError, did_you_mean


def first():
    """first"""


def second():
    """second"""


def test_decorator_and_plain_call_register():
    table = Registry("thing")

    @table.register("b")
    def fn():
        pass

    for name in ("c", "a"):  # a family registered in a loop over literal names
        table.register(name, functools.partial(first))
    assert table["b"] is fn and "a" in table and "zz" not in table
    assert table.names() == ["a", "b", "c"]
    assert list(table) == ["b", "c", "a"]  # iteration keeps registration order
    assert dict(table.items())["c"].func is first
    assert table.owner("a").endswith("test_registry.first")


def test_register_each_takes_several_keys():
    table = Registry("kernel")
    table.register_each("x.add", "x.mul")(first)
    assert table["x.add"] is table["x.mul"] is first


def test_a_key_registered_twice_names_both_owners():
    table = Registry("rule")
    table.register("aten.silu", first)
    with pytest.raises(DuplicateKeyError) as e:
        table.register("aten.silu", second)
    message = str(e.value)
    assert "rule 'aten.silu' registered twice" in message
    assert "test_registry.first" in message and "test_registry.second" in message
    assert isinstance(e.value, KeyError)


def test_unknown_key_says_did_you_mean():
    table = Registry("pass")
    table.register("aten-verify", first)
    with pytest.raises(
        UnknownKeyError, match=r"unknown pass 'aten-verfy' \(did you mean 'aten-verify'\?\)"
    ):
        table["aten-verfy"]
    with pytest.raises(KeyError, match=r"unknown pass 'zzz'$"):
        table["zzz"]
    assert table.get("zzz") is None
    assert did_you_mean("ab", [len, "abc"]) == " (did you mean 'abc'?)"
    assert did_you_mean(len, ["abc"]) == ""


def test_non_string_keys_list_by_dotted_name():
    import operator

    table = Registry("importer")
    table.register(operator.sub, first)
    table.register(operator.add, second)
    assert table.names() == [operator.add, operator.sub]
    with pytest.raises(UnknownKeyError, match="_operator.mul"):
        table[operator.mul]


def test_patching_items_bypasses_the_check():
    table = Registry("rule")
    table.register("a", first)
    table["a"] = second  # what monkeypatch.setitem does
    assert table["a"] is second
    del table["a"]
    assert "a" not in table
    saved = dict(table)
    table.clear()
    table.update(saved)


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Writes modules `name -> source` into a package on sys.path; forgets them afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    written = []

    def write(**sources):
        for name, source in sources.items():
            (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
            written.append(name)

    yield write
    for name in written:
        sys.modules.pop(name, None)


def test_one_module_per_key_imports_only_the_key_looked_up(modules):
    table = Registry("pass", modules={"p-one": "reg_lazy_one", "p-two": "reg_lazy_two"})
    sys.modules["reg_lazy_table"] = type(sys)("reg_lazy_table")
    sys.modules["reg_lazy_table"].TABLE = table
    modules(
        reg_lazy_one="import reg_lazy_table\nreg_lazy_table.TABLE.register('p-one', 1)\n",
        reg_lazy_two="import reg_lazy_table\nreg_lazy_table.TABLE.register('p-two', 2)\n",
    )
    try:
        assert "reg_lazy_one" not in sys.modules
        assert table["p-one"] == 1
        assert "reg_lazy_one" in sys.modules and "reg_lazy_two" not in sys.modules
        assert table.names() == ["p-one", "p-two"]  # listing imports every module
        assert "reg_lazy_two" in sys.modules
        assert table.modules == {"p-one": "reg_lazy_one", "p-two": "reg_lazy_two"}
    finally:
        del sys.modules["reg_lazy_table"]


def test_a_module_list_is_imported_on_first_lookup(modules):
    table = Registry("rule", modules=["reg_lazy_family"])
    sys.modules["reg_lazy_table"] = type(sys)("reg_lazy_table")
    sys.modules["reg_lazy_table"].TABLE = table
    # the module looks keys up while it registers: no nested loading
    modules(
        reg_lazy_family="""
        import reg_lazy_table
        T = reg_lazy_table.TABLE
        assert "a" not in T
        for name in ("a", "b"):
            T.register(name, name.upper())
        """
    )
    try:
        assert "reg_lazy_family" not in sys.modules
        assert "b" in table and table["a"] == "A" and len(table) == 2
    finally:
        del sys.modules["reg_lazy_table"]
