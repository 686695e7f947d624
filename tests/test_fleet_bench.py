"""``chambers bench`` against the real llama-server, with small settings (one short length).

The demo model prefills about 250 tok/s on two CPU cores, so a 4k prompt
takes ~16 s per run; these tests use ~500-token prompts and check the 16k
cap by planning against the server's real n_ctx instead of running it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from backends.adapters import LlamaCppServer
from backends.fleet import schema as fleet_schema
from backends.fleet.bench import Bench, BenchSettings, Progress, plan_lengths
from backends.fleet.bench_prompts import drafting_prompt
from backends.fleet.store import latest_results, save_results
from tests.test_fleet_servers import write_config
from tui.cli.fleet_tables import bench_table
from tui.cli.main import main
from tui.cli.tables import render
from workspace.audit import AuditLog
from workspace.config import Backend, Policy
from workspace.database import connect

SMALL = BenchSettings(lengths=(500,), warmup=1, runs=2, max_tokens=16)


def test_prompts_are_unique_from_the_first_line_and_sized() -> None:
    a, b = drafting_prompt(500, 1), drafting_prompt(500, 2)
    assert a.splitlines()[0] != b.splitlines()[0]
    assert 1500 < len(a) < 2600 and "Do not invent facts" in a
    assert len(drafting_prompt(4000, 1)) > 7 * len(a)


def test_lengths_are_capped_by_the_context() -> None:
    assert plan_lengths((500, 4000, 16000), 8192, 128) == [(500, None), (4000, None), (7968, 16000)]
    assert plan_lengths((500, 16000, 32000), 2048, 128) == [(500, None), (1824, 16000)]
    assert plan_lengths((16000,), None, 128)[0][0] < 4096  # unknown context: Ollama's usual default


async def test_the_16k_length_is_capped_by_the_real_servers_n_ctx(llama_backend: Backend) -> None:
    props = await LlamaCppServer(llama_backend, Policy()).props()
    assert props.n_ctx
    plan = plan_lengths((500, 4000, 16000), props.n_ctx, 128)
    assert plan[-1][1] == 16000 and plan[-1][0] < props.n_ctx


async def test_small_bench_reports_pp_and_tg_from_server_timings(
    llama_backend: Backend, isolated_home: Path
) -> None:
    audit = AuditLog(isolated_home / "chambers.sqlite3")
    seen: list[Progress] = []
    bench = Bench(llama_backend, Policy(), audit, SMALL)
    (result,) = await bench.run(seen.append)
    assert [p.phase for p in seen] == ["warm-up", "run", "run"] and seen[-1].done == seen[-1].total == 3
    assert len(result.runs) == 2 and not result.interrupted
    assert 350 < result.prompt_tokens < 700  # "about 500", measured by the server
    assert all(r.cache_n == 0 and r.predicted_n == 16 for r in result.runs)  # the cache did not help
    pp, tg = result.pp_stats(), result.tg_stats()
    assert pp.min is not None and pp.max is not None and 0 < pp.min <= pp.median <= pp.max  # type: ignore[operator]
    assert tg.min is not None and tg.min > 0 and result.total_s > 0
    assert result.model == "smollm2-135m-instruct" and result.build
    rows = audit.recent()
    assert (
        len(rows) == 3 and {r.role for r in rows} == {"bench"} and {r.outcome for r in rows} == {"completed"}
    )
    assert len({r.messages_sha256 for r in rows}) == 3  # three different prompts
    table = render(bench_table([result]), width=200)  # one line a row, as piped
    assert "PP tok/s min/max/mean/median" in table and "2/2" in table

    assert save_results(isolated_home / "chambers.sqlite3", "s1", [result]) == 1
    (stored,) = latest_results(isolated_home / "chambers.sqlite3")["local"]
    assert stored.runs_done == 2 and stored.tg_median == tg.median


async def test_an_interrupted_bench_keeps_its_finished_runs(
    llama_backend: Backend, isolated_home: Path
) -> None:
    bench = Bench(
        llama_backend,
        Policy(),
        AuditLog(isolated_home / "a.sqlite3"),
        BenchSettings(lengths=(500,), warmup=0, runs=5, max_tokens=16),
    )
    first_run = asyncio.Event()
    task = asyncio.create_task(bench.run(lambda p: first_run.set()))
    await first_run.wait()
    task.cancel()  # what Ctrl-C does to the CLI's task
    with pytest.raises(asyncio.CancelledError):
        await task
    (result,) = bench.results
    assert result.interrupted and 1 <= len(result.runs) < 5
    assert save_results(isolated_home / "r.sqlite3", "s", bench.results) == 1
    (stored,) = latest_results(isolated_home / "r.sqlite3")["local"]
    assert stored.interrupted and stored.runs_done == len(result.runs)


def test_bench_command_prints_json_and_stores_it(
    llama_backend: Backend, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, llama_backend)
    argv = ["bench", "--lengths", "500", "--warmup", "0", "--runs", "1", "--max-tokens", "8", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    (result,) = report["results"]
    assert result["runs_done"] == 1 and result["tg_tok_s"]["median"] > 0 and not report["interrupted"]
    database = next(isolated_home.rglob("*.sqlite3"))
    assert list(latest_results(database)) == ["local"]


def test_migration_creates_the_bench_table(tmp_path: Path) -> None:
    db = connect(tmp_path / "x.sqlite3", fleet_schema.SCHEMA)
    columns = [row[1] for row in db.execute("PRAGMA table_info(bench_results)")]
    db.close()
    assert {"pp_median", "tg_median", "runs_json", "interrupted"} <= set(columns)
