"""``chambers serve`` obeys the local-only policy: its listen address, the flags that download, the
API key every chambers client sends, and the doctor's word on a server open to any web page.

The server a refused profile would start is a shell script that only leaves a mark: the point is
that nothing is started at all. Where a server must really answer, the HTTP side is
tests/support/hostile_server.py on loopback (it records the headers each request carried); the real
llama-server with its key is in tests/test_fleet_runs_real.py.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from backends.adapters import LlamaCppServer
from backends.fleet.key_check import key_findings
from backends.fleet.profiles import ProfileError, profile_named, profiles_from_config
from backends.fleet.serve import server_environment
from backends.server_key import KEY_FILE, ensure_key, read_key
from tests.conftest import make_backend
from tests.support.hostile_server import Handler, hostile_server, props_json
from tests.support.scripted_network import ScriptedResolver, loopback_connections  # noqa: F401 (the connections fixture)
from tui.cli.main import main
from workspace.config import Policy, load_config
from workspace.paths import Paths

URL = "http://203.0.113.7/model.gguf"  # TEST-NET-3: public by its class, routed nowhere


def write_config(home: Path, profile: str, extra: str = "") -> Path:
    """A config with one profile whose "llama-server" only marks that it was started."""
    home.mkdir(parents=True, exist_ok=True)
    marker = home / "started"
    script = home / "fake-llama-server"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    script.chmod(0o755)
    (home / "m.gguf").write_bytes(b"GGUF")
    path = home / "config.toml"
    path.write_text(
        f'[[profiles]]\nname = "p"\nmodel = "m.gguf"\nbinary = "{script}"\n{profile}\n{extra}',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("listen", ["8.8.8.8", "0.0.0.0", "::", "2001:4860:4860::8888"])
def test_a_public_listen_host_is_refused_before_anything_starts(
    isolated_home: Path, listen: str, connections: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, f'listen_host = "{listen}"\nport = 18080')
    assert main(["serve", "p"]) == 3
    err = capsys.readouterr().err
    assert "will not start profile 'p'" in err and "nothing was started" in err
    assert ("every interface" in err) if listen in ("0.0.0.0", "::") else (listen in err)
    assert not (isolated_home / "started").exists() and connections == []
    assert main(["config"]) == 3  # the config check says the same before any serve
    assert "will not start profile 'p'" in capsys.readouterr().out


def test_a_listen_name_that_resolves_to_a_public_address_is_refused(
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    connections: list[Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    ScriptedResolver(monkeypatch, "gpu.office.test", ["8.8.4.4"])
    write_config(isolated_home, 'listen_host = "gpu.office.test"')
    assert main(["serve", "p", "--unit"]) == 3  # the unit would start it as well
    err = capsys.readouterr().err
    assert "'gpu.office.test'" in err and "8.8.4.4" in err and "public" in err
    assert not (isolated_home / "data/units").exists() and connections == []
    write_config(isolated_home, 'listen_host = "192.168.10.5"')  # an office address is allowed
    assert main(["serve", "p", "--print-command"]) == 0
    assert "--host 192.168.10.5" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["-mu", URL],
        [f"--model-url={URL}"],
        ["-hf", "org/model"],
        ["-hfr", "org/model"],
        ["--hf-repo=org/m"],
        ["-hff", "m.gguf"],
        ["-hft", "hf_token"],
        ["-dr", "ai/smollm2"],
        ["--docker-repo=ai/smollm2"],
        ["--metrics", "-mmu", URL],
        ["--webui-mcp-proxy"],
        ["--mcp-servers-json", "{}"],
        ["-ag"],
        ["--tools", "all"],
        ["--tools-runtime", "ssh:host"],
    ],
)
def test_flags_that_download_are_refused_at_config_and_at_serve(
    isolated_home: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    quoted = ", ".join(f'"{a}"' for a in args)
    write_config(isolated_home, f"extra_args = [{quoted}]")
    assert main(["config"]) == 2
    err = capsys.readouterr().err
    assert "profiles[0].extra_args" in err and "download" in err and "allow_remote" in err
    flag = next(a for a in args if a != "--metrics")
    assert repr(flag) in err
    assert main(["serve", "p"]) == 2
    assert not (isolated_home / "started").exists()


def test_allow_remote_with_a_reason_lets_a_profile_download(isolated_home: Path) -> None:
    config_file = write_config(isolated_home, f'extra_args = ["-mu", "{URL}"]\nallow_remote = true')
    with pytest.raises(ProfileError, match="remote_reason"):  # a permission needs its reason
        profiles_from_config(load_config(config_file))
    config_file = write_config(
        isolated_home,
        f'extra_args = ["-mu", "{URL}"]\nallow_remote = true\nremote_reason = "vendor model, no file"',
    )
    profile = profile_named(load_config(config_file), "p")
    assert profile.extra_args == ("-mu", URL) and profile.remote_reason == "vendor model, no file"


def test_llama_server_reads_no_flag_from_the_environment_chambers_was_given(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLAMA_ARG_HF_REPO", "org/model")
    monkeypatch.setenv("LLAMA_ARG_MODEL_URL", URL)
    profile = profile_named(load_config(write_config(isolated_home, "")), "p")
    env = server_environment(profile)
    assert not [k for k in env if k.startswith("LLAMA_ARG_")] and env["PATH"]


def test_serve_gives_the_server_a_key_made_once_and_private(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, "")
    assert main(["serve", "p", "--print-command"]) == 0
    line = capsys.readouterr().out.split()
    key_file = Path(line[line.index("--api-key-file") + 1])
    assert key_file == Paths.from_environment().data_dir / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = read_key(key_file)
    assert key and len(key) >= 40 and key not in " ".join(line)  # the key itself is never on the command line
    assert main(["serve", "p", "--print-command"]) == 0 and read_key(key_file) == key  # made once
    key_file.chmod(0o644)
    assert ensure_key(key_file.parent) == key_file and stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_every_chambers_client_sends_the_key_and_the_doctors_probe_does_not(isolated_home: Path) -> None:
    key = read_key(ensure_key(Paths.from_environment().data_dir))

    def props(h: Handler) -> None:
        h.send_body(200, props_json())

    import asyncio

    with hostile_server({("GET", "/props"): props}) as (url, seen):
        backend = make_backend(url, name="open")
        assert asyncio.run(LlamaCppServer(backend, Policy()).props()).build == "b9999-hostile"
        findings = asyncio.run(key_findings([backend], Policy()))
    sent = [headers.get("Authorization") for _, _, headers in seen.requests]
    assert sent == [f"Bearer {key}", None]
    assert len(findings) == 1 and findings[0].level == "warning"
    assert f"answers {url}/props without an API key" in findings[0].message


def test_the_doctor_says_nothing_of_a_server_that_demands_a_key(isolated_home: Path) -> None:
    def guarded(h: Handler) -> None:
        if h.headers.get("Authorization"):
            h.send_body(200, props_json())
        else:
            h.send_body(
                401, b'{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}'
            )

    import asyncio

    with hostile_server({("GET", "/props"): guarded}) as (url, _):
        assert asyncio.run(key_findings([make_backend(url, name="keyed")], Policy())) == []


def test_doctor_exits_non_zero_when_the_policy_refuses_a_telemetry_source(
    isolated_home: Path, connections: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text(
        '[[telemetry]]\nkind = "dcgm"\nhost = "gpu-1"\nurl = "http://8.8.8.8:9400/metrics"\n',
        encoding="utf-8",
    )
    assert main(["doctor"]) == 3
    assert "refused" in capsys.readouterr().out and connections == []
