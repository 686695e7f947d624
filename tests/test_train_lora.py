"""A real LoRA, end to end on the CPU: trained from twelve correction pairs with SmolLM2-135M, converted by
llama.cpp's own converter, served by the real llama-server with ``--lora``, and evaluated.

The training runs once for the module (about two to four minutes on two cores): first a run that is
killed outright at its first step, then the run the other tests use. Nothing here asserts that the
adapter generalises; the memorisation check only shows that what was trained is what is served.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from backends.chat import ChatClient, ChatRequest
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from backends.lora import AdapterMissing, adapter_findings
from corrections import schema as corrections_schema
from corrections.adapters import AdapterRecord, get_adapter, list_adapters
from corrections.chrf import chrf
from corrections.store import get_pair
from drafting.replay import Replayer
from tests.support.train_pairs import store_pairs
from tui.cli.main import main
from workspace.audit import AuditLog
from workspace.config import Backend, LoraRef, Policy, load_config
from workspace.database import connect
from workspace.digest import file_sha256
from workspace.errors import ChambersError
from workspace.paths import Paths

pytestmark = pytest.mark.timeout(1800)

REPO = Path(__file__).resolve().parent.parent
NAME = "harbor-v1"
# Small on purpose: 9 training pairs, 6 epochs of batches of 3 = 18 optimizer steps.
TRAIN_ARGS = [
    "train",
    "--role",
    "drafter",
    "--name",
    NAME,
    "--epochs",
    "6",
    "--batch-size",
    "3",
    "--lr",
    "3e-3",
]


@dataclass
class Trained:
    home: Path
    record: AdapterRecord
    output: str
    killed_output: str
    left_after_kill: list[str]


def write_config(home: Path, url: str, weights: Path, lora: str = "") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[[backends]]\nname = "local"\nkind = "llamacpp"\nurl = "{url}"\nroles = ["drafter"]\n'
        f'weights = "{weights}"\n{lora}',
        encoding="utf-8",
    )


def chambers(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CHAMBERS_HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", *args],
        cwd=REPO,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, demo_model: Path) -> Trained:
    home = tmp_path_factory.mktemp("lora-home")
    write_config(home, "http://127.0.0.1:9", demo_model)  # no server is needed to train
    store_pairs(Paths(home / "config.toml", home / "data").database_file)

    killed = chambers(home, *TRAIN_ARGS)
    seen = []
    assert killed.stdout is not None
    for line in killed.stdout:
        seen.append(line)
        if line.startswith("step 1/"):
            killed.send_signal(signal.SIGKILL)  # no chance to clean up: the hardest kind of stop
            break
    killed.wait(timeout=60)
    adapters = home / "data" / "adapters"
    left = sorted(p.name for p in adapters.iterdir()) if adapters.exists() else []

    again = chambers(home, *TRAIN_ARGS)
    output, _ = again.communicate(timeout=1500)
    assert again.returncode == 0, output[-3000:]
    print(output[-1500:])
    record = get_adapter(Paths(home / "config.toml", home / "data").database_file, NAME)
    return Trained(home, record, output, "".join(seen), left)


@pytest.fixture(scope="module")
def served(trained: Trained, llama_server_binary: Path, demo_model: Path) -> Iterator[LlamaServerProcess]:
    """The real llama-server with the adapter loaded at scale 0 (each request switches it on)."""
    log = trained.home / "server.log"
    server = LlamaServerProcess(
        llama_server_binary,
        demo_model,
        log_file=log,
        extra_args=[*TEST_SERVER_ARGS, "--lora", trained.record.file, "--lora-init-without-apply"],
    )
    server.start()
    write_config(trained.home, server.url, demo_model, f'lora = [{{ name = "{NAME}", scale = 1.0 }}]\n')
    yield server
    server.stop()


def db_of(trained: Trained) -> Path:
    return Paths(trained.home / "config.toml", trained.home / "data").database_file


def test_a_killed_run_leaves_nothing_registered_and_the_rerun_trains(
    trained: Trained, demo_model: Path
) -> None:
    assert "step 1/18" in trained.killed_output
    # Only the hidden work folder and the lock its run held (which died with it), never NAME itself.
    assert trained.left_after_kill == [f".{NAME}.partial", f".{NAME}.partial.lock"]
    record = trained.record
    assert [r.name for r in list_adapters(db_of(trained))] == [NAME]
    assert not (trained.home / "data" / "adapters" / f".{NAME}.partial").exists()
    assert len(record.train_pair_ids) == 9 and len(record.held_out_pair_ids) == 3
    assert record.base_sha256 == file_sha256(demo_model)
    assert record.file_sha256 == file_sha256(Path(record.file))
    assert record.architecture == "LlamaForCausalLM"
    assert len(record.loss_curve) == 18
    assert record.loss_curve[-1] < record.loss_curve[0] / 2, record.loss_curve
    assert f"--lora-scaled {record.file}:0 --lora-init-without-apply" in trained.output
    # The killed run dequantized the GGUF and kept the copy; the rerun started from it.
    assert "(its dequantized copy from an earlier run)" in trained.output
    assert "earlier run" not in trained.killed_output
    assert (trained.home / "data" / "training-bases" / record.base_sha256 / "model.safetensors").is_file()
    print(
        f"training: {record.train_seconds:.0f} s for {record.trained_tokens} tokens; loss {record.loss_curve}"
    )


async def replay_scores(
    server: LlamaServerProcess, trained: Trained, pair_ids: list[int]
) -> tuple[list[float], list[float]]:
    backend = Backend(name="local", kind="llamacpp", url=server.url, roles=("drafter",))
    base, adapted = [], []
    async with Replayer(backend, Policy(), None, 0, role="drafter", max_tokens=48) as replay:
        for pair_id in pair_ids:
            pair = get_pair(db_of(trained), pair_id)
            base.append(chrf((await replay(pair.messages, 0.0))[0], pair.final))
            adapted.append(chrf((await replay(pair.messages, 1.0))[0], pair.final))
    return base, adapted


def test_memorisation_sanity_check_served_adapter_writes_closer_to_the_trained_finals(
    trained: Trained, served: LlamaServerProcess
) -> None:
    """On the prompts it was trained on, the adapter (scale 1) must be closer to his finals than the base
    (scale 0) on the same server: proof that the trained, converted adapter is the one being served."""
    base, adapted = asyncio.run(replay_scores(served, trained, trained.record.train_pair_ids))
    print(
        f"training prompts, mean chrF: base {sum(base) / len(base):.1f}, adapter {sum(adapted) / len(adapted):.1f}"
    )
    assert sum(adapted) / len(adapted) > sum(base) / len(base) + 10
    assert sum(a > b for a, b in zip(adapted, base, strict=True)) >= 6


async def adapter_answers(replay: Replayer, pairs: list[list[dict[str, str]]], *, grouped: bool) -> list[str]:
    """Each pair's adapter answer, in an eval that asks every base answer first (``grouped``) or each pair's
    base answer just before its adapter answer."""
    answers = []
    async with replay:  # closed on the loop of this call: each asyncio.run is a loop of its own
        if grouped:
            for messages in pairs:
                await replay(messages, 0.0)
        for messages in pairs:
            if not grouped:
                await replay(messages, 0.0)
            answers.append((await replay(messages, 1.0))[0])
    return answers


def test_an_eval_answer_does_not_depend_on_what_the_server_answered_before(
    trained: Trained, served: LlamaServerProcess
) -> None:
    """With the prompt cache, the server reads only the part of a prompt its slot has not seen, and at
    temperature 0 that changed some adapter answers here: a pair's score would depend on the eval's order."""
    backend = Backend(name="local", kind="llamacpp", url=served.url, roles=("drafter",))
    replay = Replayer(backend, Policy(), None, 0, role="drafter", max_tokens=48)
    pairs = [get_pair(db_of(trained), i).messages for i in trained.record.train_pair_ids]
    interleaved = asyncio.run(adapter_answers(replay, pairs, grouped=False))
    grouped = asyncio.run(adapter_answers(replay, pairs, grouped=True))
    assert grouped == interleaved


async def role_call(client: ChatClient, messages: list[dict[str, str]]) -> str:
    sampling = replace(client.backend.sampling, temperature=0.0, seed=0, max_tokens=48)
    # Read in full, as the eval's replays are, so that the answers can be compared with theirs.
    request = ChatRequest(messages, sampling=sampling, extra={"cache_prompt": False})
    async with client:  # closed on the loop of this call: each asyncio.run is a loop of its own
        return (await client.complete(request, role="drafter")).text


async def replayed(replay: Replayer, messages: list[dict[str, str]], scale: float) -> str:
    async with replay:
        return (await replay(messages, scale))[0]


def test_each_request_of_the_role_carries_the_adapter_by_the_servers_id(
    trained: Trained, served: LlamaServerProcess
) -> None:
    config = load_config(trained.home / "config.toml")
    backend = config.backend_for_role("drafter")
    assert backend.lora == (LoraRef(NAME, 1.0),)
    pair = get_pair(db_of(trained), trained.record.train_pair_ids[0])
    client = ChatClient(backend, Policy(), AuditLog(db_of(trained)))
    text = asyncio.run(role_call(client, pair.messages))
    assert client.adapter_record() == (NAME, trained.record.file_sha256)  # what the run's stage records
    db = connect(db_of(trained), corrections_schema.SCHEMA)
    try:
        sent = db.execute("SELECT request_json FROM audit ORDER BY id DESC LIMIT 1").fetchone()[0]
    finally:
        db.close()
    assert '"lora": [{"id": 0, "scale": 1.0}]' in sent
    replay = Replayer(backend, Policy(), None, 0, role="drafter", max_tokens=48)
    assert text == asyncio.run(replayed(replay, pair.messages, 1.0))
    assert text != asyncio.run(replayed(replay, pair.messages, 0.0))


def test_eval_prints_and_stores_base_against_adapter_per_task(
    trained: Trained,
    served: LlamaServerProcess,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CHAMBERS_HOME", str(trained.home))
    assert main(["eval", "--role", "drafter", "--adapter", NAME, "--max-tokens", "48"]) == 0
    printed = capsys.readouterr().out
    table = get_adapter(db_of(trained), NAME).eval
    assert table is not None
    tasks = {row["task"]: row for row in table["table"]}
    assert set(tasks) == {"client_email", "demand_letter", "all"}
    assert tasks["all"]["pairs"] == 3 and len(table["pairs"]) == 6  # 3 held-out pairs, base and adapter
    assert all(0 <= row["adapter_chrf"] <= 100 and row["base_edit_ratio"] >= 0 for row in table["table"])
    assert "demand_letter" in printed and "chrF" in printed
    with capsys.disabled():
        print("\nheld-out eval (not asserted to improve):\n" + printed)
    assert main(["adapters", "show", NAME]) == 0
    assert "--lora-init-without-apply" in capsys.readouterr().out


def test_a_server_without_the_configured_adapter_is_named(
    trained: Trained, llama_server: LlamaServerProcess
) -> None:
    """The session's plain server (no --lora): drafting must not quietly run on the bare base."""
    backend = Backend(
        name="local", kind="llamacpp", url=llama_server.url, roles=("drafter",), lora=(LoraRef(NAME),)
    )
    with pytest.raises(
        AdapterMissing, match=rf"'local' at {llama_server.url} has not loaded the adapter\(s\) {NAME}"
    ):
        asyncio.run(role_call(ChatClient(backend, Policy(), None), [{"role": "user", "content": "Hello"}]))
    findings = asyncio.run(adapter_findings([backend], Policy()))
    assert findings and findings[0][:2] == ("error", "backend local") and NAME in findings[0][2]


def adapter_for_another_base(path: Path) -> None:
    """A LoRA GGUF for a model with hidden size 640 (SmolLM2-135M's is 576), written with the gguf package
    in the layout convert_lora_to_gguf.py writes: what an adapter trained on another base looks like."""
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", 16.0)
    for block in range(30):
        for proj in ("q", "v"):
            writer.add_tensor(f"blk.{block}.attn_{proj}.weight.lora_a", np.zeros((8, 640), dtype=np.float32))
            writer.add_tensor(f"blk.{block}.attn_{proj}.weight.lora_b", np.zeros((640, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_an_adapter_for_another_base_is_refused_by_the_server_and_named(
    tmp_path: Path, llama_server_binary: Path, demo_model: Path
) -> None:
    wrong = tmp_path / "other-base.gguf"
    adapter_for_another_base(wrong)
    server = LlamaServerProcess(
        llama_server_binary,
        demo_model,
        log_file=tmp_path / "server.log",
        extra_args=[*TEST_SERVER_ARGS, "--lora", str(wrong), "--lora-init-without-apply"],
    )
    with pytest.raises(
        ChambersError,
        match=rf"refused the LoRA adapter {wrong} \(tensor 'blk.0.attn_q.weight' has incorrect shape",
    ):
        server.start(timeout=60)
    server.stop()
