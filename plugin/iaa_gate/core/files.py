"""Writing output files: atomically, with the user's umask (what every sink uses)."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import BinaryIO

from .fork import in_child


def write_atomic(path: Path, text: str | bytes | Iterable[bytes]) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends; bytes as they are; an iterable of bytes chunk by
    chunk, never held whole) so ``path`` is never seen half-written.

    The text goes to a temporary file in the same directory, which is then renamed over
    ``path``. The file is created with mode 0666 minus the umask (0644 by default), like any
    file the user's shell would create, so a CI artifact server or a teammate can read it.
    """
    with _temporary(path) as (tmp, f):
        if isinstance(text, (str, bytes)):
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
        else:
            f.writelines(text)
        f.close()
        _install(tmp, path)


SWAP_MIN = 1 << 25
"""Bytes from which a file written over an existing one is swapped in (:func:`_install`)."""


def _install(tmp: Path, path: Path) -> None:
    """Put the written file ``tmp`` at ``path`` in one step, as :func:`os.replace` does.

    A large file (:data:`SWAP_MIN` bytes or more) over an existing one is swapped with it
    (Linux ``renameat2`` with ``RENAME_EXCHANGE``) and the old one, now at ``tmp``, removed:
    ext4 writes a file renamed over another out to disk before the rename returns
    (``auto_da_alloc``), 0.4–0.7 s for the 685 MB ``disputed-tasks.jsonl`` of issue 31's
    Prodigy round run again into the same directory, while a swap takes no time and is as
    atomic for readers (bench/README.md "2026-11-28 (2)"). Elsewhere, or where the swap is
    refused (another file system, no such call), :func:`os.replace`.
    """
    if tmp.stat().st_size >= SWAP_MIN and path.is_file() and _swap(tmp, path):
        tmp.unlink()
        return
    os.replace(tmp, path)


def _swap(a: Path, b: Path) -> bool:
    """Exchange the files at ``a`` and ``b`` atomically; False where this cannot be done."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # not glibc 2.28+ on Linux
        return False
    at_cwd, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    return bool(renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), exchange) == 0)


@contextmanager
def _temporary(path: Path) -> Iterator[tuple[Path, BinaryIO]]:
    """A new temporary file beside ``path`` (mode 0666 minus the umask), open for writing;
    removed on leaving unless it was renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            yield tmp, f
    finally:
        tmp.unlink(missing_ok=True)  # renamed: nothing left to remove


@contextmanager
def writing_parts(path: Path, parts: Sequence[Iterable[bytes]]) -> Iterator[None]:
    """Write the concatenation of ``parts`` to ``path`` as :func:`write_atomic` does, every
    part after the first made and written by a forked child (into a temporary file beside
    ``path``) while this process writes the first and then runs the body of the ``with``.

    Leaving the ``with`` waits for the children and appends their files in order (in the
    kernel, :func:`os.copy_file_range`, where it can), then renames the whole over ``path``:
    a reader never sees a part. A part whose child failed is made and written here, so the
    file is the same either way (an error the part raises is then raised here). Every
    temporary file is removed on every path, a failure included. It forks, so only a caller
    asked to use more than one process calls it.

    Parameters
    ----------
    path : Path
        The file to write.
    parts : sequence of iterables of bytes
        The file's content in order, each part a chunk at a time; the parts after the first
        are iterated only in a child (or here, after the body, if it failed).

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "lines.txt"
    >>> with writing_parts(out, [[b"a\\n", b"b\\n"], iter([b"c\\n"])]):
    ...     pass  # this process's other work, while the child writes its part
    >>> out.read_bytes(), sorted(p.name for p in out.parent.iterdir())
    (b'a\\nb\\nc\\n', ['lines.txt'])
    """
    with ExitStack() as stack:
        tmp, f = stack.enter_context(_temporary(path))
        children = []
        try:
            for part in parts[1:]:
                part_tmp, part_f = stack.enter_context(_temporary(path))
                part_f.close()  # the child opens it anew: this process never writes to it
                children.append((part, part_tmp, in_child(partial(_write, part_tmp, part))))
            f.writelines(parts[0])
            yield
        finally:
            done = [child() for _, _, child in children]  # never leave a child behind
        for (part, part_tmp, _), written in zip(children, done, strict=True):
            f.flush()  # what is written so far comes before the part
            if written:
                with part_tmp.open("rb") as src:
                    _append(src, f)
            else:  # the child failed: the part is made here
                f.writelines(part)
        f.close()
        _install(tmp, path)


def _write(path: Path, chunks: Iterable[bytes]) -> bool:
    """Write ``chunks`` into the existing file ``path`` (a part of :func:`writing_parts`)."""
    with path.open("wb") as f:
        f.writelines(chunks)
    return True


def _append(src: BinaryIO, dst: BinaryIO) -> None:
    """Append the file ``src`` to ``dst`` (flushed) at its end: copied in the kernel where the
    platform can, else through this process."""
    start = dst.tell()
    try:
        while os.copy_file_range(src.fileno(), dst.fileno(), 1 << 30):
            pass
    except (AttributeError, OSError):  # not Linux, or not between these two files
        dst.seek(start)
        dst.truncate()
        src.seek(0)
        shutil.copyfileobj(src, dst)
