"""Writing output files: atomically, with the user's umask (what every sink uses)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path


def write_atomic(path: Path, text: str | bytes | Iterable[bytes]) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends; bytes as they are; an iterable of bytes chunk by
    chunk, never held whole) so ``path`` is never seen half-written.

    The text goes to a temporary file in the same directory, which is then renamed over
    ``path``. The file is created with mode 0666 minus the umask (0644 by default), like any
    file the user's shell would create, so a CI artifact server or a teammate can read it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(text, (str, bytes)):
                f.write(text.encode("utf-8") if isinstance(text, str) else text)
            else:
                f.writelines(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
