"""Damage done to cache files by the cache tests: each fault takes (path, rng), rng a seeded
`random.Random`, so every case damages the same bytes on every run."""

from __future__ import annotations

import errno
import hashlib
import os
import random
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest


def random_bytes(path: Path, rng: random.Random) -> None:
    path.write_bytes(rng.randbytes(max(path.stat().st_size, 16)))


def flip_byte(path: Path, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    data[rng.randrange(len(data))] ^= 0xFF
    path.write_bytes(bytes(data))


def truncate(path: Path, rng: random.Random) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: rng.randrange(len(data))])


def empty(path: Path, rng: random.Random) -> None:
    path.write_bytes(b"")


def non_utf8(path: Path, rng: random.Random) -> None:
    data = path.read_bytes()
    at = rng.randrange(len(data))
    path.write_bytes(data[:at] + b"\xff\xfe\xc3" + data[at:])


def delete(path: Path, rng: random.Random) -> None:
    path.unlink()


def symlink(path: Path, rng: random.Random) -> None:
    """The same bytes behind a symlink: a cache file is never one (it could point anywhere)."""
    real = path.with_name(path.name + ".real")
    path.rename(real)
    path.symlink_to(real)


def fifo(path: Path, rng: random.Random) -> None:
    """A named pipe in the file's place: opening it to read would wait for a writer."""
    path.unlink()
    os.mkfifo(path)


def foreign_owner(path: Path, rng: random.Random) -> None:
    """The same bytes owned by another user (nobody): not ours to load."""
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    os.chown(path, 65534, 65534)


FAULTS = {
    f.__name__: f
    for f in (
        random_bytes,
        flip_byte,
        truncate,
        empty,
        non_utf8,
        delete,
        symlink,
        fifo,
        foreign_owner,
    )
}


def damage(paths: list[Path], fault: str, seed: str) -> None:
    """Applies `FAULTS[fault]` to each of `paths`, seeded by `seed`."""
    assert paths, "nothing to damage"
    rng = random.Random(seed)
    for path in paths:
        FAULTS[fault](path, rng)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def intact_artifact(path: Path) -> bool:
    """A lone artifact (thread pool, runtime support object) matches its `.sha256`."""
    sidecar = path.with_name(path.name + ".sha256")
    return (
        path.is_file()
        and not path.is_symlink()
        and path.stat().st_uid == os.geteuid()
        and sidecar.read_text() == sha256_file(path)
    )


@contextmanager
def read_only(directory: Path):
    """`directory` and its subdirectories made read-only. Root ignores permissions, so for
    root creating a file under `directory` fails as on a read-only mount (EROFS)."""
    folders = [directory, *(p for p in directory.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).resolve().is_relative_to(directory.resolve()):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dir))
        return real(*args, dir=dir, **kwargs)

    try:
        with pytest.MonkeyPatch.context() as patch:
            if os.geteuid() == 0:
                patch.setattr(tempfile, "mkstemp", mkstemp)
            yield
    finally:
        for folder in folders:
            folder.chmod(0o755)


def listing(directory: Path) -> dict[str, bytes]:
    """Every file under `directory` and its bytes."""
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }
