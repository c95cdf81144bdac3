"""One mechanism for every name -> entry table of the compiler: passes, decompositions, lowerings,
reference kernels, symbolic importers, codegen ops.

A `Registry` is a mapping filled by a one-line decorator right above the entry
(`@TABLE.register("aten.silu")`), or by a plain call for a family registered in a loop over
literal names (`TABLE.register(name, fn)`). Registering a key twice raises and names both
owners. A lookup of a missing key raises `UnknownKeyError` naming close matches ("did you
mean"). `names()` lists the keys sorted; iterating keeps registration order (pattern sets built
from a table are built in the order they always were).

A table can fill itself lazily: `modules` names the modules that register its entries, either
as a list (all imported on the first lookup or listing) or as a mapping key -> module (only the
module of the key looked up is imported; listing imports them all). The names are strings, so a
table below a package may name modules above it without importing them at load time.

This module is at the bottom of the package: it imports nothing of aten_mlir.
"""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Generic, TypeVar

V = TypeVar("V")

_MISSING = object()


class DuplicateKeyError(KeyError):
    """A key registered twice; the message names both owners."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnknownKeyError(KeyError):
    """A key no entry has; the message names close matches."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def did_you_mean(name, candidates: Iterable) -> str:
    """` (did you mean 'a', 'b'?)` for the string candidates close to `name`, else ``."""
    if not isinstance(name, str):
        return ""
    words = sorted(c for c in candidates if isinstance(c, str))
    close = difflib.get_close_matches(name, words, n=3, cutoff=0.7)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def key_text(key) -> str:
    """A key as a reader sees it: strings as they are, functions by their dotted name."""
    if isinstance(key, str):
        return key
    qualname = getattr(key, "__qualname__", None) or getattr(key, "__name__", None)
    if qualname is None:
        return repr(key)
    module = getattr(key, "__module__", None)
    return f"{module}.{qualname}" if module else qualname


def owner_of(value) -> str:
    """Where an entry comes from: the dotted name of its function or class, looking through a
    `Rule`'s `fn` and a `functools.partial`."""
    for _ in range(4):
        if isinstance(value, functools.partial):
            value = value.func
        elif not hasattr(value, "__qualname__") and hasattr(value, "fn"):
            value = value.fn
        else:
            break
    if hasattr(value, "__qualname__"):
        return key_text(value)
    return repr(value)


class Registry(MutableMapping, Generic[V]):
    """A table `key -> entry` of one `kind` ("pass", "decomposition", ...); see the module
    docstring. Item assignment and deletion bypass the checks (tests patch entries with them);
    `register` is the checked way in."""

    def __init__(self, kind: str, *, modules: Iterable[str] | Mapping[object, str] = ()):
        self.kind = kind
        self._entries: dict[object, V] = {}
        self._owners: dict[object, str] = {}
        self._by_key: dict[object, str] = dict(modules) if isinstance(modules, Mapping) else {}
        every = self._by_key.values() if isinstance(modules, Mapping) else modules
        self._pending: list[str] = list(dict.fromkeys(every))  # modules not imported yet
        self._importing = False  # a module being imported looks keys up: no nested loading

    # -- filling ---------------------------------------------------------------------------
    def register(self, key, value=_MISSING, *, owner: str | None = None):
        """`register(key)` is a decorator adding the function or class below it;
        `register(key, value)` adds `value` now (families in a loop). Returns the value."""
        if value is _MISSING:
            return lambda v: self.register(key, v, owner=owner)
        owner = owner or owner_of(value)
        if key in self._entries:
            raise DuplicateKeyError(
                f"{self.kind} '{key_text(key)}' registered twice: by "
                f"{self._owners.get(key, owner_of(self._entries[key]))} and by {owner}"
            )
        self._entries[key] = value
        self._owners[key] = owner
        return value

    def register_each(self, *keys, owner: str | None = None):
        """A decorator registering the function below it under each of `keys`
        (`@REFERENCE_KERNELS.register_each("arith.addi", "arith.muli")`)."""

        def wrap(value):
            for key in keys:
                self.register(key, value, owner=owner)
            return value

        return wrap

    def owner(self, key) -> str:
        """Who registered `key` (a dotted function/class name or the owner given)."""
        self._load(key)
        return self._owners.get(key) or owner_of(self[key])

    @property
    def modules(self) -> Mapping[object, str]:
        """key -> the module that registers it, for a table given one module per key."""
        return dict(self._by_key)

    # -- lazy loading ----------------------------------------------------------------------
    def _load(self, key) -> None:
        if not self._pending or self._importing or key in self._entries:
            return
        module = self._by_key.get(key) if self._by_key else None
        if module is None:
            if self._by_key:  # a key the table does not name: nothing to import for it
                return
            self.load_all()
        elif module in self._pending:
            self._pending.remove(module)
            self._import(module)

    def load_all(self) -> None:
        """Imports every module the table names (for listing)."""
        while self._pending and not self._importing:
            self._import(self._pending.pop(0))

    def _import(self, module: str) -> None:
        self._importing = True
        try:
            importlib.import_module(module)
        except BaseException:
            self._pending.insert(0, module)  # a failed import is retried (and fails) next time
            raise
        finally:
            self._importing = False

    # -- lookup ----------------------------------------------------------------------------
    def __getitem__(self, key) -> V:
        self._load(key)
        try:
            return self._entries[key]
        except KeyError:
            pass
        self.load_all()  # the candidates for "did you mean"
        raise UnknownKeyError(
            f"unknown {self.kind} '{key_text(key)}'{did_you_mean(key, self._entries)}"
        )

    def get(self, key, default=None):
        self._load(key)
        return self._entries.get(key, default)

    def __contains__(self, key) -> bool:
        self._load(key)
        return key in self._entries

    def __iter__(self) -> Iterator:
        self.load_all()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self.load_all()
        return len(self._entries)

    def names(self) -> list:
        """Every key, sorted (strings alphabetically, functions by dotted name)."""
        return sorted(self, key=key_text)

    def sorted_items(self) -> list[tuple[object, V]]:
        return [(k, self._entries[k]) for k in self.names()]

    # -- patching (tests) ------------------------------------------------------------------
    def __setitem__(self, key, value: V) -> None:
        self._entries[key] = value
        self._owners.pop(key, None)

    def __delitem__(self, key) -> None:
        self._load(key)
        del self._entries[key]
        self._owners.pop(key, None)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} entries)"
