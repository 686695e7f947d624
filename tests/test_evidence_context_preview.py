"""The context preview (`chambers evidence context`) and a real run choose the same pages, in the same messages.

Both go through one context builder with the drafter's own window and tokenizer (the real
llama-server). The matter is big enough that the budget binds, so a different count would choose
different pages: the test shows that the labelled estimate does.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from drafting.events import PipelineEvent, StageStarted
from drafting.pipeline import Pipeline
from drafting.stages.sources import task_text
from drafting.store import RunStore
from drafting.wiring import wire
from evidence.context import build_context
from evidence.ingest import ingest_matter
from tests.support.evidence_files import make_pdf
from tests.test_evidence_ingest import new_matter, rows
from workspace.config import Backend, Config, Policy, Sampling, config_to_toml
from workspace.paths import Paths, write_atomically

INSTRUCTIONS = "Summarise what the service log shows about the compressor failures and the delivery dates."
PAGE = (
    "Service log entry {i}. The technician found compressor number {n} short-cycling and the freezer at minus "
    "{t} degrees instead of minus twenty. Delivery of the replacement part was promised for day {d} of the "
    "month; the customer reported spoiled stock worth {v} dollars. The compressor was reset, the condenser "
    "coils were cleaned, and the door gaskets were checked for leaks; the compressor kept failing overnight "
    "and the delivery was late again, so the customer asked for a written account of each failure."
)


def service_log(paths: Paths, tmp_path: Path, pages: int = 90) -> None:
    texts = [PAGE.format(i=i, n=i % 4 + 1, t=8 + i % 5, d=i + 3, v=i * 130) for i in range(pages)]
    make_pdf(tmp_path / "src" / "service-log.pdf", texts, bates=[f"HPP-{i + 1:06d}" for i in range(pages)])
    new_matter(paths.database_file, tmp_path / "src")
    ingest_matter(paths.database_file, "acme", tessdata=None)


def local_config(url: str, file: Path) -> Config:
    """One llama-server in every role but the router (routing is then settled by the rules)."""
    backend = Backend(
        name="local",
        kind="llamacpp",
        url=url,
        roles=("drafter", "heavy", "extractor", "gate", "reviewer"),
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=16),
    )
    return Config(file=str(file), policy=Policy(), boards=(), backends=(backend,))


async def context_of_a_run(config: Config, paths: Paths) -> int:
    """A real summary run, cancelled as its draft stage starts: its evidence is chosen and its messages made."""
    pipe = Pipeline(wire(config, paths.database_file, prompts=paths.config_file.parent / "prompts"))
    run = pipe.start("acme", "summary", INSTRUCTIONS)

    def stop_at_the_draft(event: PipelineEvent) -> None:
        if isinstance(event, StageStarted) and event.stage == "draft":
            task.cancel()

    pipe.on_event = stop_at_the_draft
    task = asyncio.ensure_future(pipe.execute(run.id))
    with pytest.raises(asyncio.CancelledError):
        await task
    return run.id


def test_the_preview_shows_the_pages_and_messages_a_real_run_gives_the_drafter(
    tmp_path: Path, llama_server: LlamaServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli.main import main

    paths = Paths.from_environment()
    config = local_config(llama_server.url, paths.config_file)
    write_atomically(paths.config_file, config_to_toml(config).encode())
    service_log(paths, tmp_path)

    run_id = asyncio.run(context_of_a_run(config, paths))
    assert main(["evidence", "context", "acme", INSTRUCTIONS, "--type", "summary"]) == 0
    out = capsys.readouterr().out

    run = RunStore(paths.database_file).load(run_id)
    drafted = [s for s in run.stages if s.stage == "draft"][-1]
    (preview,) = rows(
        paths.database_file,
        "SELECT messages_json, chunks_json, counted_by, n_ctx, budget FROM evidence_contexts",
    )
    chosen = [(c["path"], c["page_no"]) for c in json.loads(preview["chunks_json"])]

    assert "local /tokenize" in run.context_note and preview["counted_by"] == "local /tokenize"
    assert "relevant pages did not fit" in out and " 0 relevant pages did not fit" not in run.context_note
    assert chosen == [(s.path, s.page_no) for s in run.sources] and len(chosen) > 3
    assert json.loads(preview["messages_json"]) == drafted.messages  # what the drafter was sent, exactly

    # Each source keeps the message and span that carried it to the drafter.
    for source in run.sources:
        assert source.message is not None and source.start is not None and source.end is not None
        carried = drafted.messages[source.message]["content"][source.start : source.end]
        assert carried.startswith(f"[{source.label}] file: service-log.pdf | page {source.page_no} |")
        assert carried.rstrip().endswith(source.text.strip()[-40:])

    # The count decides: the evidence room's estimate, in the same window and budget, fits other pages.
    estimated = build_context(
        paths.database_file,
        "acme",
        task_text("summary", INSTRUCTIONS, None),
        n_ctx=preview["n_ctx"],
        query=INSTRUCTIONS,
        reserve_for_answer=preview["n_ctx"] - preview["budget"],
    )
    assert estimated.counted_by.startswith("estimate") and len(estimated.chunks) != len(chosen)
