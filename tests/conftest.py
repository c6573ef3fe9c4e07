"""Shared fixtures: paths to the bundled examples and small export builders."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        help="also run the tests marked slow (seeded simulations, the Dask cluster); .ci/run does",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` are skipped, with the reason, unless ``--run-slow`` is given."""
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow (the README's test command does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The session's own user cache (the HTML template compiled once, for every run and
    subprocess of the session), so the tests neither read nor fill the tester's ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        yield


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The Label Studio client's waits between retries, recorded instead of slept: the retries
    and their backoff are the real ones, the wall clock is not spent (a test may assert on the
    waits)."""
    from iaa_gate.adapters.label_studio import client

    waits: list[float] = []
    monkeypatch.setattr(client, "sleep", waits.append)
    return waits


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[Any, str], Path]:
    def write(data: Any, name: str = "export.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return write
