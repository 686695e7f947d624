"""One real llama-server with a LoRA adapter, shared by two roles as the seed attorney runs his boards.

The server is started by hand the way the README once said to (``--lora FILE --lora-init-without-apply``,
with sampling flags of its own), next to the session's server without any adapter. The adapter is a real
LoRA GGUF with random weights (tests/support/lora_files.py): what it writes does not matter, only which requests it
reaches. Its registry record says it was trained on another file, as an adapter trained on the Q8_0 file
and served over the Q4_1 one would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest

from backends.chat import ChatClient, ChatRequest
from backends.fleet.profiles import SEED_SAMPLING
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess, free_port
from backends.lora import launch_flags
from corrections.adapters import get_adapter, register
from tests.support.lora_files import write_random_lora
from tests.support.train_pairs import store_pairs
from tests.test_train_checks import record
from tests.test_train_lora import adapter_for_another_base
from tui.cli.main import main
from workspace.config import Backend, LoraRef, Policy, Sampling
from workspace.digest import file_sha256
from workspace.paths import Paths

NAME = "style-v1"
PROMPTS = ["Write one sentence about a harbor.", "Name three colors."]
SAMPLING = Sampling(temperature=0.0, seed=0, max_tokens=8)  # short: two cores decode slowly


@dataclass
class Shared:
    adapter: Path
    other_base: Path  # the file the registry says the adapter was trained on
    by_hand: LlamaServerProcess  # --lora FILE --lora-init-without-apply --temp 1.5 --repeat-penalty 1.0
    served: LlamaServerProcess  # the adapter loaded with chambers' own launch flags


@pytest.fixture(scope="module")
def shared(
    tmp_path_factory: pytest.TempPathFactory, llama_server_binary: Path, demo_model: Path
) -> Iterator[Shared]:
    folder = tmp_path_factory.mktemp("shared-lora")
    adapter = write_random_lora(folder / f"{NAME}.gguf")
    other = folder / "SmolLM2-135M-Instruct.Q8_0.gguf"
    other.write_bytes(b"GGUF" + bytes(4096))  # only its name, size and hash are ever read
    by_hand = LlamaServerProcess(
        llama_server_binary,
        demo_model,
        log_file=folder / "by-hand.log",
        extra_args=[
            *TEST_SERVER_ARGS,
            "--lora",
            str(adapter),
            "--lora-init-without-apply",
            "--temp",
            "1.5",
            "--repeat-penalty",
            "1.0",
        ],
    )
    served = LlamaServerProcess(
        llama_server_binary,
        demo_model,
        log_file=folder / "served.log",
        extra_args=[*TEST_SERVER_ARGS, *launch_flags([str(adapter)])],
    )
    by_hand.start()
    try:
        served.start()
        yield Shared(adapter, other, by_hand, served)
    finally:
        by_hand.stop()
        served.stop()


async def role_answers(backend: Backend) -> list[str]:
    answers = []
    async with ChatClient(backend, Policy(), None) as client:
        for p in PROMPTS:
            request = ChatRequest(
                [{"role": "user", "content": p}], sampling=SAMPLING, extra={"cache_prompt": False}
            )
            answers.append((await client.complete(request)).text)
    return answers


def unlisted_answers(url: str) -> list[str]:
    """What another client gets: the same requests, naming no adapter."""
    out = []
    for p in PROMPTS:
        body = {"messages": [{"role": "user", "content": p}], "cache_prompt": False, **SAMPLING.as_dict()}
        out.append(
            httpx.post(url + "/v1/chat/completions", json=body, timeout=120).json()["choices"][0]["message"][
                "content"
            ]
        )
    return out


def test_a_role_without_the_adapter_answers_exactly_as_the_base(
    shared: Shared, llama_server: LlamaServerProcess
) -> None:
    url = shared.by_hand.url
    drafter = Backend(name="drafter", kind="llamacpp", url=url, roles=("drafter",), lora=(LoraRef(NAME),))
    router = Backend(name="router", kind="llamacpp", url=url, roles=("router",))
    base = asyncio.run(role_answers(Backend(name="plain", kind="llamacpp", url=llama_server.url)))
    assert asyncio.run(role_answers(router)) == base  # byte for byte, on the server that has the adapter
    adapted = asyncio.run(role_answers(drafter))
    assert all(a != b for a, b in zip(adapted, base, strict=True))  # the adapter does change what it writes
    # The pinned llama-server gives a request that names no adapter each one at its start-up scale:
    # 1 after --lora, even with --lora-init-without-apply; 0 after chambers' --lora-scaled FILE:0.
    assert httpx.get(url + "/lora-adapters").json()[0]["scale"] == 1.0
    assert unlisted_answers(url) == adapted
    assert httpx.get(shared.served.url + "/lora-adapters").json()[0]["scale"] == 0.0
    assert unlisted_answers(shared.served.url) == base


def write_home(home: Path, url: str, demo_model: Path, shared: Shared, binary: Path | None = None) -> Paths:
    home.mkdir(parents=True, exist_ok=True)
    paths = Paths(home / "config.toml", home / "data")
    profile_binary = f'binary = "{binary}"\n' if binary else ""
    paths.config_file.write_text(
        f'[[backends]]\nname = "drafter"\nkind = "llamacpp"\nurl = "{url}"\nroles = ["drafter"]\n'
        f'lora = [{{ name = "{NAME}" }}]\n\n'
        f'[[backends]]\nname = "router"\nkind = "llamacpp"\nurl = "{url}"\nroles = ["router"]\n\n'
        f'[[profiles]]\nname = "drafting"\nmodel = "{demo_model}"\nbackend = "drafter"\n'
        f'cache_type_k = "f16"\nflash_attn = "auto"\n{profile_binary}'
        f"[profiles.sampling]\ntemperature = 0.6\nrepeat_penalty = 1.2\n",
        encoding="utf-8",
    )
    return paths


def register_on_other_base(paths: Paths, shared: Shared, file: Path, held_out: list[int]) -> None:
    other = shared.other_base
    adapter = replace(
        record(NAME, [], held_out),
        base_path=str(other),
        base_sha256=file_sha256(other),
        base_size=other.stat().st_size,
        file=str(file),
        file_sha256=file_sha256(file),
    )
    register(paths.database_file, adapter)


def test_doctor_names_sampling_drift_the_adapters_and_a_mismatched_base(
    shared: Shared,
    demo_model: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = write_home(isolated_home, shared.by_hand.url, demo_model, shared)
    register_on_other_base(paths, shared, shared.adapter, [])
    main(["doctor"])
    out = capsys.readouterr().out
    assert "samples with temperature 1.5, the profile says 0.6 (--temp)" in out
    assert "samples with repeat_penalty 1, the profile says 1.2 (--repeat-penalty)" in out
    assert SEED_SAMPLING["top_k"] == 40 and "top_k" not in out  # the server's own 40: no drift to name
    assert f"server {shared.by_hand.url} (backends drafter, router): loads the LoRA adapter(s) {NAME}" in out
    assert f"requests not sent by chambers get adapter {NAME} at scale 1" in out
    assert f"adapter {NAME} was trained on {shared.other_base}, not on the served {demo_model}" in out
    assert "not checked, as a running llama-server does not report them: cache_type_k, flash_attn" in out
    assert f" {demo_model.name} " in out  # the model column: the file's name, whole

    write_home(isolated_home, shared.served.url, demo_model, shared)  # loaded as chambers serve loads it
    main(["doctor"])
    out = capsys.readouterr().out
    assert f"loads the LoRA adapter(s) {NAME}" in out and "requests not sent by chambers" not in out


def test_eval_refuses_an_adapter_over_another_base_unless_told_why(
    shared: Shared,
    demo_model: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = write_home(isolated_home, shared.served.url, demo_model, shared)
    ids = store_pairs(paths.database_file, count=2)
    register_on_other_base(paths, shared, shared.adapter, ids)
    before = get_adapter(paths.database_file, NAME).eval
    assert main(["eval", "--role", "drafter", "--adapter", NAME, "--max-tokens", "4"]) != 0
    refused = capsys.readouterr().err
    assert f"adapter {NAME} was trained on {shared.other_base}, not on the served {demo_model}" in refused
    assert "--other-base REASON" in refused
    assert get_adapter(paths.database_file, NAME).eval == before  # nothing overwritten

    reason = "the Q8_0 file is on the other workstation"
    assert (
        main(["eval", "--role", "drafter", "--adapter", NAME, "--max-tokens", "4", "--other-base", reason])
        == 0
    )
    model = get_adapter(paths.database_file, NAME).eval["model"]
    assert model["path"] == str(demo_model) and model["size"] == demo_model.stat().st_size
    assert model["other_base"] == reason and str(shared.other_base) in model["mismatch"]
    assert main(["adapters", "show", NAME]) == 0
    assert f"scored over {demo_model} (not its base: {reason})" in capsys.readouterr().out


def test_serve_names_the_base_of_an_adapter_the_server_refuses(
    shared: Shared,
    demo_model: Path,
    llama_server_binary: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    paths = write_home(isolated_home, url, demo_model, shared, binary=llama_server_binary)
    wrong = paths.data_dir / "adapters" / NAME / f"{NAME}.gguf"
    wrong.parent.mkdir(parents=True)
    adapter_for_another_base(wrong)
    register_on_other_base(paths, shared, wrong, [])
    assert main(["serve", "drafting"]) != 0
    err = capsys.readouterr().err
    assert f"adapter {NAME} was trained on {shared.other_base}, not on the served {demo_model}" in err
