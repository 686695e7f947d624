"""The context builder against the real llama-server: its n_ctx, its tokenizer, its own prompt count."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from backends.adapters import LlamaCppServer
from backends.local_server import LlamaServerProcess
from evidence.context import ContextChunk, Provenance, build_context, render_messages, save_context
from evidence.errors import NonPrimaryChunk
from evidence.ingest import ingest_matter
from evidence.provenance import register_output
from tests.conftest import make_backend
from tests.support.evidence_files import make_pdf
from tests.test_evidence_ingest import new_matter, rows
from workspace.config import Policy

TASK = "Summarise what the record shows about the compressor failures and the delivery dates."


def ledger_matter(tmp_path: Path, pages: int = 40, db_path: Path | None = None) -> Path:
    texts = [
        f"Service log entry {i}. The technician found compressor number {i % 4 + 1} short-cycling and the "
        f"freezer at minus {8 + i % 5} degrees instead of minus twenty. Delivery of the replacement part was "
        f"promised for day {i + 3} of the month; the customer reported spoiled stock worth {i * 130} dollars."
        for i in range(pages)
    ]
    make_pdf(tmp_path / "src" / "service-log.pdf", texts, bates=[f"HPP-{i + 1:06d}" for i in range(pages)])
    make_pdf(tmp_path / "src" / "lease.pdf", ["The lease of the warehouse runs for five years."])
    db_path = db_path or tmp_path / "c.sqlite3"
    new_matter(db_path, tmp_path / "src")
    ingest_matter(db_path, "acme", tessdata=None)
    return db_path


def test_context_fits_the_window_by_the_servers_own_count(
    tmp_path: Path, llama_server: LlamaServerProcess
) -> None:
    db_path = ledger_matter(tmp_path)
    client = LlamaCppServer(make_backend(llama_server.url), Policy())
    n_ctx = asyncio.run(client.props()).n_ctx
    assert n_ctx
    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return asyncio.run(client.count_tokens(text))

    # A large reserve keeps the prompt small enough to prefill quickly on two cores.
    bundle = build_context(
        db_path, "acme", TASK, n_ctx=lambda: n_ctx, count_tokens=count, reserve_for_answer=n_ctx - 1500
    )

    assert bundle.counted_by == "llama-server /tokenize" and calls
    assert bundle.budget == 1500 and bundle.tokens <= bundle.budget and bundle.left_out > 0
    assert 3 <= len(bundle.chunks) < 40
    first = bundle.chunks[0]
    assert (
        first.provenance.primary
        and first.provenance.bates
        and first.provenance.path.endswith("service-log.pdf")
    )
    user = bundle.messages[1]["content"]
    assert (
        f"[S1] file: service-log.pdf | page {first.provenance.page_no} | Bates {first.provenance.bates}"
        in user
    )
    assert "lease of the warehouse" not in user  # irrelevant pages are not sent

    response = httpx.post(
        llama_server.url + "/v1/chat/completions",
        timeout=120,
        json={"messages": bundle.messages, "max_tokens": 1, "temperature": 0},
    )
    assert response.status_code == 200, response.text
    prompt_tokens = response.json()["usage"]["prompt_tokens"]
    assert prompt_tokens <= bundle.tokens <= bundle.budget  # the server's count of what was really sent

    context_id = save_context(db_path, bundle)
    (stored,) = rows(
        db_path,
        "SELECT messages_json, chunks_json, counted_by FROM evidence_contexts WHERE id = ?",
        context_id,
    )
    assert json.loads(stored["messages_json"]) == bundle.messages
    assert json.loads(stored["chunks_json"])[0]["sha256"] == first.provenance.sha256


def test_without_a_counter_the_count_is_labelled_an_estimate(tmp_path: Path) -> None:
    db_path = ledger_matter(tmp_path, pages=10)
    bundle = build_context(db_path, "acme", TASK, n_ctx=2048, reserve_for_answer=1024)
    assert bundle.counted_by.startswith("estimate") and "not counted" in bundle.counted_by
    assert bundle.tokens <= 1024 and bundle.chunks


def test_non_primary_chunks_are_refused(tmp_path: Path) -> None:
    db_path = ledger_matter(tmp_path, pages=5)
    register_output(db_path, tmp_path / "src" / "service-log.pdf", "draft")  # now it is one of ours
    bundle = build_context(db_path, "acme", TASK, n_ctx=4096)
    assert bundle.chunks == [] and len(bundle.refused) == 5  # the lease matches no word of the task
    assert "registered chambers output" in bundle.refused[0]

    ours = ContextChunk("S1", "Model text.", Provenance("draft.pdf", "", 1, "RTX 3060", "0" * 64, False, 1))
    with pytest.raises(NonPrimaryChunk, match="not a primary source"):
        render_messages(TASK, [ours])


def test_the_context_command_shows_and_stores_what_the_model_is_given(
    tmp_path: Path, llama_server: LlamaServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli.main import main
    from tui.demo import demo_config
    from workspace.config import config_to_toml
    from workspace.paths import Paths, write_atomically

    paths = Paths.from_environment()
    write_atomically(
        paths.config_file, config_to_toml(demo_config(llama_server.url, str(paths.config_file))).encode()
    )
    ledger_matter(tmp_path, pages=12, db_path=paths.database_file)
    n_ctx = asyncio.run(LlamaCppServer(make_backend(llama_server.url), Policy()).props()).n_ctx or 0

    assert main(["evidence", "context", "acme", TASK, "--reserve", str(n_ctx - 800)]) == 0

    out = capsys.readouterr().out
    assert "--- system ---" in out and "[S1] file: service-log.pdf | page" in out
    assert "counted by demo-smollm2 /tokenize" in out and "/800 tokens" in out
    assert rows(paths.database_file, "SELECT count(*) FROM evidence_contexts")[0][0] == 1
