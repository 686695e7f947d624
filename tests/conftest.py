"""Shared fixtures: an isolated home for every test, and one real llama-server per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backends.local_server import (
    TEST_SERVER_ARGS,
    LlamaServerProcess,
    ensure_demo_model,
    ensure_llama_server,
)
from workspace.config import Backend, Config, Policy, Sampling
from workspace.errors import ChambersError


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep the developer's own config and data out of every test."""
    home = tmp_path / "chambers-home"
    monkeypatch.setenv("CHAMBERS_HOME", str(home))
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def no_kept_readings() -> Iterator[None]:
    """A command run in-process (`verify`, `authorities`) opts the process into keeping the verifier's
    readings, as the one-shot CLI does; every test starts without, whatever ran before it."""
    yield
    import sys

    index_cache = sys.modules.get("drafting.verify.index_cache")
    if index_cache is not None:
        index_cache.keep_in(None)


@pytest.fixture(scope="session")
def llama_server_binary() -> Path:
    """The real llama-server; the suite fails (never skips) when it cannot be had."""
    try:
        return ensure_llama_server(progress=print)
    except ChambersError as exc:
        pytest.fail(f"No llama-server for the tests: {exc.message}", pytrace=False)


@pytest.fixture(scope="session")
def demo_model() -> Path:
    try:
        return ensure_demo_model(progress=print)
    except ChambersError as exc:
        pytest.fail(f"No demo model for the tests: {exc.message}", pytrace=False)


@pytest.fixture(scope="session")
def llama_server(
    llama_server_binary: Path, demo_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServerProcess]:
    """A real llama-server (SmolLM2-135M) on a free loopback port, for the whole session."""
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    server = LlamaServerProcess(llama_server_binary, demo_model, extra_args=TEST_SERVER_ARGS, log_file=log)
    try:
        server.start()
    except ChambersError as exc:
        pytest.fail(f"The real llama-server did not start: {exc.message}", pytrace=False)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def llama_server_np4(
    llama_server_binary: Path, demo_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServerProcess]:
    """A second real llama-server decoding four sequences at once (-np 4), for the batch tests."""
    log = tmp_path_factory.mktemp("llama-server-np4") / "server.log"
    args = ("--metrics", "--slots", "--jinja", "-np", "4")
    server = LlamaServerProcess(llama_server_binary, demo_model, extra_args=args, log_file=log)
    try:
        server.start()
    except ChambersError as exc:
        pytest.fail(f"The real llama-server (-np 4) did not start: {exc.message}", pytrace=False)
    yield server
    server.stop()


def make_backend(url: str, *, name: str = "local", kind: str = "llamacpp", **kw: object) -> Backend:
    return Backend(name=name, kind=kind, url=url, roles=("drafter",), **kw)  # type: ignore[arg-type]


@pytest.fixture
def llama_backend(llama_server: LlamaServerProcess) -> Backend:
    return make_backend(llama_server.url, sampling=Sampling(temperature=0.0, seed=1, max_tokens=48))


@pytest.fixture
def local_config(llama_backend: Backend) -> Config:
    return Config(file="test-config.toml", policy=Policy(), boards=(), backends=(llama_backend,))
