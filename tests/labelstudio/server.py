"""Install and run a real Label Studio server for integration tests.

Standard library only (POSIX), so it imports without the SDK. The server runs from its own venv
(``<repo>/.cache/label-studio/venv``, pinned by ``requirements.txt``); each server starts from a
copy of a template data dir that was initialised once with the fixed admin user and token.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = Path(__file__).with_name("requirements.txt")
ADMIN_EMAIL = "admin@iaa-gate.test"
ADMIN_PASSWORD = "iaa-gate-admin-password"
ADMIN_TOKEN = "iaa-gate-test-token-0123456789abcdef"  # legacy token: 6-40 characters
TEMPLATE_VERSION = "1"  # bump to rebuild cached templates after changing how they are made
TIMEOUT = float(os.environ.get("IAA_GATE_LS_TIMEOUT", "180"))
# Only these variables reach the server: Label Studio reads many plain names (USERNAME, PASSWORD,
# PORT, HOST, USER_TOKEN, DEBUG, DJANGO_DB, ...) and LABEL_STUDIO_* / HEARTEX_* variants of each.
PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")


class Annotator(NamedTuple):
    """A Label Studio user created for tests."""

    id: int
    email: str


class LabelStudioError(RuntimeError):
    """The Label Studio server could not be installed or started."""


def cache_dir(root: Path = REPO_ROOT) -> Path:
    """Return ``$IAA_GATE_CACHE_DIR/label-studio`` (default ``<repo>/.cache``), creating it."""
    base = os.environ.get("IAA_GATE_CACHE_DIR")
    path = (Path(base).resolve() if base else root.resolve() / ".cache") / "label-studio"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _digest(*parts: str) -> str:
    """Hash the pins, the interpreter version and ``parts``."""
    h = hashlib.sha256(REQUIREMENTS.read_bytes())
    h.update(f"{sys.version_info.major}.{sys.version_info.minor}".encode())
    for part in parts:
        h.update(b"\0" + part.encode())
    return h.hexdigest()[:16]


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """Hold an exclusive file lock (serialises concurrent test sessions)."""
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no log>"


def ensure_venv(root: Path = REPO_ROOT) -> Path:
    """Create or reuse the server venv; the stamp, written last, holds the requirements hash."""
    base = cache_dir(root)
    venv, digest = base / "venv", _digest()
    stamp = venv / ".iaa-gate-stamp"
    with _lock(base / ".venv.lock"):
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return venv
        shutil.rmtree(venv, ignore_errors=True)  # missing or stale stamp: never trust the contents
        log = base / "pip-install.log"
        python = os.environ.get("IAA_GATE_LS_PYTHON", sys.executable)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-input"]
        steps = [[python, "-m", "venv", str(venv)], [*pip, "-r", str(REQUIREMENTS)]]
        with log.open("w") as out:
            for cmd in steps:
                if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode:
                    raise LabelStudioError(f"{' '.join(cmd)} failed:\n{_tail(log)}")
        stamp.write_text(digest)
    return venv


def _child_setup() -> None:
    """Run in the server child: own process group; on Linux, SIGTERM it if its parent dies."""
    os.setsid()
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on (Label Studio moves on if busy)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise LabelStudioError("no free port on 127.0.0.1")


def api(
    url: str,
    method: str,
    path: str,
    payload: Any = None,
    token: str = ADMIN_TOKEN,
    timeout: float = 60,
) -> Any:
    """Call the REST API with ``Authorization: Token``; return parsed JSON (None when empty)."""
    body = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(
        url + path,
        data=body,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


class LabelStudioServer:
    """A Label Studio server on 127.0.0.1 with a fresh copy of the template data dir."""

    def __init__(
        self, root: Path = REPO_ROOT, *, data_dir: Path | None = None, timeout: float = TIMEOUT
    ) -> None:
        """``data_dir`` given: start on it as is (used to build the template)."""
        self.root, self.timeout = root, timeout
        self.token, self.admin_email, self.admin_password = ADMIN_TOKEN, ADMIN_EMAIL, ADMIN_PASSWORD
        self.port = 0
        self.url = ""
        self._data_dir = data_dir
        self._workdir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self.log_path = cache_dir(root) / "logs" / "server.log"

    @property
    def data_dir(self) -> Path:
        assert self._data_dir is not None, "server not started"
        return self._data_dir

    def start(self) -> LabelStudioServer:
        """Install if needed, copy the template, launch and wait until whoami answers 200."""
        venv = ensure_venv(self.root)
        if self._data_dir is None:
            template = ensure_template(self.root)
            self._workdir = Path(tempfile.mkdtemp(prefix="iaa-gate-ls-"))
            self._data_dir = self._workdir / "data"
            shutil.copytree(template, self._data_dir, symlinks=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = cache_dir(self.root) / "logs" / f"server-{os.getpid()}-{self.port}.log"
        self.log_path.parent.mkdir(exist_ok=True)
        for old in sorted(self.log_path.parent.glob("server-*.log"), key=os.path.getmtime)[:-20]:
            old.unlink(missing_ok=True)
        env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
        env.update(
            HOME=str(self.data_dir),
            LABEL_STUDIO_BASE_DATA_DIR=str(self.data_dir),
            LATEST_VERSION_CHECK="false",
            COLLECT_ANALYTICS="false",
            SENTRY_DSN="",
            FRONTEND_SENTRY_DSN="",
            PYTHONUNBUFFERED="1",
            # LS runs `git describe --dirty` in its package dir, which would find (and
            # lock the index of) the repo around .cache/: stop the search at the cache.
            GIT_CEILING_DIRECTORIES=str(cache_dir(self.root)),
            # webhooks to the service under test on 127.0.0.1 (refused by default)
            SSRF_PROTECTION_ENABLED="false",
        )
        options = {
            "--internal-host": "127.0.0.1",
            "--port": str(self.port),
            "--data-dir": str(self.data_dir),
            "--username": self.admin_email,
            "--password": self.admin_password,
            "--user-token": self.token,
            "--log-level": "WARNING",
        }
        cmd = [str(venv / "bin" / "python"), "-m", "label_studio.server", "start", "--no-browser"]
        cmd += [*itertools.chain(*options.items()), "--enable-legacy-api-token"]
        with self.log_path.open("wb") as log:
            self._proc = subprocess.Popen(
                cmd,
                env=env,
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_child_setup,
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline, last = time.monotonic() + self.timeout, "no answer yet"
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                last = f"server exited with code {self._proc.returncode}"
                break
            try:
                user = self.api("GET", "/api/current-user/whoami", timeout=5)
                if user.get("email") == self.admin_email:
                    return
                last = f"whoami answered {user!r}"
            except (OSError, ValueError) as exc:  # URLError, HTTPError, resets, bad JSON
                last = repr(exc)
                if isinstance(exc, urllib.error.HTTPError) and exc.code in (401, 403):
                    break  # up, but the token is refused: waiting will not help
            time.sleep(0.25)
        else:
            last = f"not ready after {self.timeout:.0f} s ({last})"
        raise LabelStudioError(
            f"Label Studio on {self.url}: {last}\n--- {self.log_path} (tail) ---\n"
            f"{_tail(self.log_path)}"
        )

    def api(self, method: str, path: str, payload: Any = None, timeout: float = 60) -> Any:
        """Call this server's REST API as the admin."""
        return api(self.url, method, path, payload, self.token, timeout)

    def list_tasks(
        self, project: int, page_size: int = 1000, include: str | None = None
    ) -> list[dict[str, Any]]:
        """All tasks of ``project`` with annotations, via paged ``GET /api/tasks/?fields=all``.

        Careful: ``include`` filters task AND annotation fields with one list, so
        ``include=id,data,annotations`` returns annotations as bare ``{"id": ...}``.
        """
        tasks: list[dict[str, Any]] = []
        query = f"/api/tasks/?project={project}&fields=all&page_size={page_size}"
        query += f"&include={include}" if include else ""
        for page in itertools.count(1):
            try:
                batch = self.api("GET", f"{query}&page={page}")["tasks"]
            except urllib.error.HTTPError as exc:
                if exc.code == 404 and page > 1:  # a page past the end answers 404
                    break
                raise
            tasks += batch
            if len(batch) < page_size:
                break
        return tasks

    def kill(self) -> None:
        """Kill the server at once (SIGKILL to its process group), keeping the data dir: a crash
        that :meth:`start` can recover from."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def stop(self) -> None:
        """Terminate, then kill the process group; remove the copied data dir."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = self._data_dir = None

    def __enter__(self) -> LabelStudioServer:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def ensure_template(root: Path = REPO_ROOT) -> Path:
    """Return a data dir initialised once with the fixed admin (cached per hash)."""
    base = cache_dir(root)
    name = "template-" + _digest(TEMPLATE_VERSION, ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN)
    template = base / name
    with _lock(base / ".template.lock"):
        if (template / ".ready").is_file():
            return template
        for stale in base.glob("template-*"):
            shutil.rmtree(stale, ignore_errors=True)
        building = base / f"{name}.building"
        building.mkdir()
        with LabelStudioServer(root, data_dir=building, timeout=max(TIMEOUT, 240)):
            pass  # a first start creates the database, the admin user and the token
        (building / ".ready").write_text("ok\n")
        building.rename(template)
    return template
