"""The fleet run for real: ``chambers serve`` a profile, the doctor against /props, sweeps, agreement.

Everything here starts the real llama-server (and llama-perplexity,
llama-quantize) built from the pinned llama.cpp source, on the demo model
(SmolLM2-135M), on the CPU. The sweep varies real flags (``--n-cpu-moe 0/1``,
``-np``) and includes a variant with a broken ``-ot`` regex. Agreement uses an
F16 reference dequantized from the demo model and Q8_0 / Q2_K copies of it,
scored on the verification corpus of this repo (tests/verify_corpus, prose
written for chambers's tests).
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from backends.fleet import schema as fleet_schema
from backends.fleet.agree import AgreementRunner, finals_corpus
from backends.fleet.doctor import run_doctor
from backends.fleet.quantize import quantized
from backends.fleet.store import best_per_board, latest_by_model_file, save_agreement
from backends.local_server import LlamaServerProcess, ensure_llama_tool, free_port
from backends.server_key import KEY_FILE, read_key
from corrections.store import accepted_finals
from tui.cli.main import main
from workspace.config import Backend, Config, Policy, load_config
from workspace.database import connect

ROOT = Path(__file__).resolve().parent.parent
CORPUS = "\n\n".join(
    p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests/verify_corpus").glob("*.md"))
)


def write_config(home: Path, model: Path, port: int, extra: str = "") -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(
        f"""
[[boards]]
name = "cpu-board"
host = "localhost"
gpus = []
[[backends]]
name = "local"
kind = "llamacpp"
url = "http://127.0.0.1:{port}"
roles = ["drafter"]
board = "cpu-board"
[[profiles]]
name = "demo"
model = "{model}"
board = "cpu-board"
backend = "local"
ctx_size = 1024
parallel = 2
extra_args = ["--metrics", "--slots"]
{extra}
""",
        encoding="utf-8",
    )
    return path


def test_serve_brings_up_the_profile_and_stops_cleanly_on_sigterm(
    isolated_home: Path, demo_model: Path, llama_server_binary: Path
) -> None:
    port = free_port()
    config_file = write_config(
        isolated_home,
        demo_model,
        port,
        """
[[profiles]]
name = "drifted"
model = "/models/other-model.gguf"
backend = "local"
ctx_size = 4096
parallel = 4
""",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", "serve", "demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    announced: list[str] = []
    try:
        assert proc.stderr is not None
        # Serve's own announcement first: stopped before it has seen the server healthy, it says nothing of it.
        for line in iter(proc.stderr.readline, ""):
            announced.append(line)
            if "healthy at" in line:
                break
        key_file = isolated_home / "data" / KEY_FILE
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        with httpx.Client(trust_env=False, timeout=2) as client:
            healthy = client.get(f"http://127.0.0.1:{port}/health").status_code == 200
            assert healthy, "the profile's server never answered /health"
            # A web page's script has no key: the served server does not answer it.
            assert client.get(f"http://127.0.0.1:{port}/props").status_code == 401
            bearer = {"Authorization": f"Bearer {read_key(key_file)}"}
            props = client.get(f"http://127.0.0.1:{port}/props", headers=bearer).json()
        assert props["total_slots"] == 2 and props["model_path"] == str(demo_model)
        config = load_config(config_file)
        report = asyncio.run(run_doctor(config, []))  # its clients send the key: /props is read
        assert not [f for f in report.findings if "without an API key" in f.message]
        drift = [f.message for f in report.findings if f.level == "warning" and "profile" in f.message]
        assert all("(profile drifted)" in m for m in drift), drift  # the served profile matches itself
        unchecked = [f.message for f in report.findings if f.level == "info" and "not checked" in f.message]
        assert unchecked == [
            "not checked, as a running llama-server does not report them: extra_args (profile demo)"
        ]
        assert any(
            m.startswith(f"runs model {demo_model.name}, the profile says other-model.gguf") for m in drift
        )
        assert any("has 2 slots, the profile says -np 4" in m for m in drift)
        assert any("the profile says -c 4096" in m for m in drift)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        err = "".join(announced) + err
    assert proc.returncode == 0, err
    assert "demo healthy at http://127.0.0.1:" in err and "stopped (exit 0)" in err
    assert "CUDA_VISIBLE_DEVICES=)" in err  # a CPU board: every GPU hidden
    assert "llama" in out  # the server's own log is passed through
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
    assert (isolated_home / "data/logs/serve-demo.log").stat().st_size > 0


def test_ctrl_c_on_serve_stops_the_server_once_and_exits_130(
    isolated_home: Path, demo_model: Path, llama_server_binary: Path
) -> None:
    """The terminal's Ctrl+C goes to the whole foreground process group, as killpg does here."""
    port = free_port()
    write_config(isolated_home, demo_model, port)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", "serve", "demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    announced: list[str] = []
    try:
        assert proc.stderr is not None
        for line in iter(proc.stderr.readline, ""):
            announced.append(line)
            if "healthy at" in line:
                break
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    said = "".join(announced) + err + out
    assert proc.returncode == 130, said
    assert "stopped (exit 130)" in said
    assert "second interrupt" not in said and "terminate called" not in said, said
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)


async def test_the_doctor_warns_of_a_llama_server_that_answers_without_a_key(
    llama_server: LlamaServerProcess,
) -> None:
    backend = Backend(name="open", kind="llamacpp", url=llama_server.url, roles=("drafter",))
    report = await run_doctor(Config(file="c.toml", policy=Policy(), boards=(), backends=(backend,)), [])
    warned = [f for f in report.findings if f.subject == "backend open" and "without an API key" in f.message]
    assert len(warned) == 1 and warned[0].level == "warning" and "chambers serve" in warned[0].message


def test_sweep_runs_each_variant_and_keeps_going_past_a_broken_one(
    isolated_home: Path, demo_model: Path, llama_server_binary: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(isolated_home, demo_model, free_port())
    rules = isolated_home / "ot-rules.txt"
    rules.write_text(
        "# keep the token embeddings on the CPU; then a regex that does not compile\n"
        "token_embd=CPU\nblk.(=CPU\n"
    )
    code = main(
        [
            "bench",
            "--sweep",
            "demo",
            "--vary",
            "n-cpu-moe=0,1",
            "--vary",
            f"ot=@{rules}",
            "--lengths",
            "48,160",
            "--warmup",
            "1",
            "--runs",
            "2",
            "--max-tokens",
            "12",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    for variant in ("n-cpu-moe=0 ot=#1", "n-cpu-moe=1 ot=#1"):
        row = next(line for line in lines if line.startswith(variant))
        assert "2/2" in row and row.split()[-1] in ("ok", "BELOW")
    failed = [line for line in lines if "FAILED" in line]
    assert len(failed) == 2 and all(
        line.startswith(("n-cpu-moe=0 ot=#2", "n-cpu-moe=1 ot=#2")) for line in failed
    )
    assert "regular expression" in failed[0] and "model loading error" in failed[0]  # the server's own words
    assert any("--n-cpu-moe 1" in line and "-ot token_embd=CPU" in line for line in lines)
    db = connect(isolated_home / "data/chambers.sqlite3", fleet_schema.SCHEMA)
    try:
        rows = db.execute(
            "SELECT variant, error, tg_median, command FROM sweep_results ORDER BY id"
        ).fetchall()
    finally:
        db.close()
    assert len(rows) == 6  # two lengths for each of the two good variants, one row for each failure
    assert sum(1 for r in rows if r["error"]) == 2 and all(r["tg_median"] > 0 for r in rows if not r["error"])
    assert all("-np 2" in r["command"] and "-c 1024" in r["command"] for r in rows)
    best = best_per_board(isolated_home / "data/chambers.sqlite3")
    assert best["cpu-board"].profile == "demo" and best["cpu-board"].variant.endswith("ot=#1")


@pytest.fixture(scope="module")
def quantized_models(demo_model: Path) -> dict[str, Path]:
    return {q: quantized(demo_model, q, progress=print) for q in ("F16", "Q8_0", "Q2_K")}


def test_agreement_orders_the_quantizations_as_it_should(
    quantized_models: dict[str, Path], isolated_home: Path
) -> None:
    runner = AgreementRunner(ensure_llama_tool("llama-perplexity", print), isolated_home / "agree")
    ref = quantized_models["F16"]
    q8 = runner.measure(ref, quantized_models["Q8_0"], CORPUS, "verify_corpus")
    q2 = runner.measure(ref, quantized_models["Q2_K"], CORPUS, "verify_corpus")
    assert q2.mean_kld > q8.mean_kld > 0
    assert q8.same_top1_pct > q2.same_top1_pct
    assert q8.p99_kld is not None and q2.p99_kld is not None and q2.p99_kld > q8.p99_kld
    assert q8.tokens and q8.tokens == q2.tokens
    assert len(q8.commands) == 2 and len(q2.commands) == 1  # the reference's logits are computed once
    save_agreement(isolated_home / "db.sqlite3", q8, "2026-01-01T00:00:00+00:00")
    stored = latest_by_model_file(isolated_home / "db.sqlite3")
    assert stored[quantized_models["Q8_0"].name].mean_kld == q8.mean_kld


def test_agree_cli_on_an_empty_finals_corpus_says_what_to_do(
    quantized_models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["agree", "--reference", str(quantized_models["F16"]), "--candidate", str(quantized_models["Q8_0"])]
    )
    assert code == 2
    assert "Accept some corrections first" in capsys.readouterr().err
    assert accepted_finals(Path("/nonexistent/db.sqlite3")) == []
    assert finals_corpus([]) == ""
