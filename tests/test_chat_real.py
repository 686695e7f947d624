"""The streaming client against a real llama-server running a real GGUF model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from backends.adapters import LlamaCppServer
from backends.chat import ChatClient, ChatRequest
from backends.errors import ServerUnreachable, StreamBroken
from backends.events import ContentDelta, Finished, PromptProgress
from backends.local_server import TEST_SERVER_ARGS, LlamaServerProcess
from tests.conftest import make_backend
from tests.support.fakes import closed_port
from workspace.audit import AuditLog, messages_sha256
from workspace.config import Backend, Policy, Sampling

QUESTION = [{"role": "user", "content": "In one sentence, what is a lease?"}]
LONG_RUN = {"ignore_eos": True}  # keeps the model generating so a mid-stream event can be staged


def audit_log(home: Path) -> AuditLog:
    return AuditLog(home / "audit.sqlite3")


async def test_stream_yields_deltas_then_server_timings(llama_backend: Backend, isolated_home: Path) -> None:
    log = audit_log(isolated_home)
    async with ChatClient(llama_backend, Policy(), log) as client:
        events = [e async for e in client.stream(ChatRequest(QUESTION, return_progress=True), role="drafter")]
    deltas = [e for e in events if isinstance(e, ContentDelta)]
    finished = events[-1]
    assert isinstance(finished, Finished)
    assert deltas and finished.text == "".join(d.text for d in deltas)
    assert finished.timings is not None and finished.timings.prompt_n > 0
    assert finished.timings.predicted_n > 0 and finished.timings.predicted_per_second > 0
    assert finished.usage is not None and finished.usage.completion_tokens == finished.timings.predicted_n
    assert any(isinstance(e, PromptProgress) for e in events)

    (row,) = log.recent()
    assert row.outcome == "completed" and row.role == "drafter"
    assert row.server_build and row.server_build.startswith("b")
    assert row.messages_sha256 == messages_sha256(QUESTION)
    assert json.loads(row.messages_json) == QUESTION
    assert json.loads(row.sampling_json)["temperature"] == 0.0
    assert json.loads(row.timings_json)["predicted_n"] == finished.timings.predicted_n
    assert row.response_text == finished.text


async def test_calls_in_a_row_share_one_client(llama_backend: Backend) -> None:
    """llama-server closes a connection as soon as a streamed answer ends: a call sent straight
    after another (no audit write between them) must not be sent into that closing connection."""
    async with ChatClient(llama_backend, Policy(), None) as client:
        for n in range(8):
            ask = ChatRequest([{"role": "user", "content": f"Say {n}."}], sampling=Sampling(max_tokens=4))
            assert (await client.complete(ask)).text
    await client.aclose()  # closing twice is harmless


async def test_structured_output_follows_the_schema(llama_backend: Backend) -> None:
    schema = {
        "type": "object",
        "properties": {
            "task": {"type": "string", "enum": ["summary", "motion", "letter"]},
            "urgent": {"type": "boolean"},
        },
        "required": ["task", "urgent"],
        "additionalProperties": False,
    }
    request = ChatRequest([{"role": "user", "content": "Classify: draft a demand letter to the landlord."}])
    async with ChatClient(llama_backend, Policy(), None) as client:
        answer = await client.complete_json(request, schema)
    assert set(answer) == {"task", "urgent"}
    assert answer["task"] in {"summary", "motion", "letter"} and isinstance(answer["urgent"], bool)


async def test_cancel_closes_the_connection_and_frees_the_slot(
    llama_backend: Backend, isolated_home: Path
) -> None:
    log = audit_log(isolated_home)
    client = ChatClient(llama_backend, Policy(), log)
    native = LlamaCppServer(llama_backend, Policy())
    request = ChatRequest(QUESTION, sampling=Sampling(max_tokens=4000), extra=LONG_RUN)
    got: list[str] = []
    busy_seen = asyncio.Event()

    async def consume() -> None:
        async for event in client.stream(request):
            if isinstance(event, ContentDelta):
                got.append(event.text)
                if len(got) == 10:
                    busy_seen.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(busy_seen.wait(), timeout=60)
    assert any(s.is_processing for s in await native.slots())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The slot must be freed by the cancel itself: the client's pool stays open until the end.
    # 4000 tokens at ~100 tok/s would take ~40 s; a freed slot within 10 s shows the cancel reached it.
    for _ in range(100):
        if not any(s.is_processing for s in await native.slots()):
            break
        await asyncio.sleep(0.1)
    assert not any(s.is_processing for s in await native.slots())
    (row,) = log.recent()
    assert row.outcome == "cancelled" and row.response_text == "".join(got)
    await client.aclose()


async def test_server_killed_mid_stream_keeps_partial_text(
    llama_server_binary: Path, demo_model: Path, tmp_path: Path
) -> None:
    server = LlamaServerProcess(
        llama_server_binary, demo_model, extra_args=TEST_SERVER_ARGS, log_file=tmp_path / "doomed.log"
    )
    server.start()
    try:
        log = audit_log(tmp_path)
        request = ChatRequest(QUESTION, sampling=Sampling(max_tokens=4000), extra=LONG_RUN)
        got: list[str] = []
        async with ChatClient(make_backend(server.url, name="doomed"), Policy(), log) as client:
            with pytest.raises(StreamBroken) as info:
                async for event in client.stream(request):
                    if isinstance(event, ContentDelta):
                        got.append(event.text)
                        if len(got) == 10:
                            server.kill()
    finally:
        server.stop()
    error = info.value
    assert error.incomplete and error.partial.startswith("".join(got))
    assert "doomed" in error.message and "incomplete" in error.message
    (row,) = log.recent()
    assert row.outcome == "failed" and "StreamBroken" in row.error


async def test_server_down_is_reported_plainly() -> None:
    backend = make_backend(f"http://127.0.0.1:{closed_port()}", name="asleep")
    async with ChatClient(backend, Policy(), None) as client:
        with pytest.raises(ServerUnreachable) as info:
            await client.complete(ChatRequest(QUESTION))
    assert "asleep" in info.value.message and "connection refused" in info.value.message
    assert not info.value.incomplete


async def test_native_endpoints(llama_backend: Backend) -> None:
    native = LlamaCppServer(llama_backend, Policy())
    assert (await native.health()).ok
    props = await native.props()
    assert props.model == "smollm2-135m-instruct" and props.n_ctx and props.n_ctx > 0
    assert props.total_slots == 2 and props.endpoint_metrics and props.build
    slots = await native.slots()
    assert [s.id for s in slots] == [0, 1]
    metrics = await native.metrics()
    assert "llamacpp:prompt_tokens_total" in metrics
    assert "llamacpp:requests_processing" in metrics
