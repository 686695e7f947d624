"""A prompt longer than the server's context is the attorney's input to change, not a server failure.

The real llama-server (SmolLM2-135M) is started with a 1,024-token context, so its own tokenizer counts
the prompt and its own refusal is what chambers turns into the message: how far over, which part is
largest, and what fits. Exit 2, as for any input to change; the server stays up and is not blamed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backends.local_server import LlamaServerProcess
from drafting.refusal import too_long
from drafting.store import RunStore
from evidence.sample_matter import SAMPLE_MATTER
from tests.support.pipeline_setup import demo_database, role_config
from tests.support.scripted_server import scripted_server
from tui.cli import exit_codes
from tui.cli.main import main
from workspace.config import Backend, Config, Policy, Sampling, config_to_toml
from workspace.paths import Paths


@pytest.fixture(scope="module")
def small_server(
    llama_server_binary: Path, demo_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServerProcess]:
    log = tmp_path_factory.mktemp("small-ctx") / "server.log"
    server = LlamaServerProcess(
        llama_server_binary, demo_model, extra_args=("--jinja", "-np", "1", "-c", "1024"), log_file=log
    )
    server.start()
    yield server
    server.stop()


def configured(paths: Paths, url: str) -> None:
    roles = ("router", "gate", "drafter", "heavy", "extractor", "reviewer")
    backend = Backend(
        name="small",
        kind="llamacpp",
        url=url,
        roles=roles,
        sampling=Sampling(temperature=0.0, seed=1, max_tokens=64),
    )
    config = Config(file=str(paths.config_file), policy=Policy(), boards=(), backends=(backend,))
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(config_to_toml(config))


def test_instructions_too_long_for_the_context_exit_2_naming_the_overage_and_the_largest_part(
    isolated_home: Path, tmp_path: Path, small_server: LlamaServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = Paths.from_environment()
    demo_database(tmp_path / "matter", paths.database_file)
    configured(paths, small_server.url)
    ask = tmp_path / "ask.txt"
    ask.write_text("Demand the balance owed under the agreement of January 10, 2024. " * 120)
    code = main(["draft", "--matter", SAMPLE_MATTER, "--task", "demand-letter", "--instructions", str(ask)])
    err = capsys.readouterr().err
    assert code == exit_codes.USAGE, err
    assert "more than the 1,024-token context of backend 'small'" in err
    assert "Its parts, in tokens: your instructions ~" in err and "Shorten your instructions" in err
    assert "--reroute" not in err and "Start that server" not in err  # the server is up; neither helps
    run = RunStore(paths.database_file).list(1)[0]
    assert run.status == "refused"


def test_sources_too_long_offer_a_context_that_fits_and_draft_takes_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The advice's window is the context less the overage and a margin; ``--max-context`` then caps
    the window the sources are fitted to (the model stand-ins only answer: the cap is what is checked)."""
    backend = Backend(name="small", kind="llamacpp", url="http://127.0.0.1:9", roles=("reviewer",))
    refusal = too_long(
        "Adversarial review",
        "review",
        7,
        backend,
        (1500, 1024),
        {"the sources": 4000, "the draft": 1200, "the task's own prompt": 300},
    )
    assert "476 more than the 1,024-token context" in refusal.message
    assert "draft again with `--max-context 292`" in refusal.message
    assert exit_codes.for_error(refusal) == exit_codes.USAGE
    paths = Paths.from_environment()
    demo_database(tmp_path / "matter", paths.database_file)
    ask = tmp_path / "ask.txt"
    ask.write_text("Demand the balance owed under the agreement of January 10, 2024.")
    answers = {"basis": "yes", "reasons": ["The agreement."], "evidence": ["S1"]}
    with (
        scripted_server(answers) as (gate, _),
        scripted_server("Dear Mr. Calder,\n\nPlease pay.\n") as (drafter, _),
        scripted_server({"findings": []}) as (reviewer, _),
    ):
        config = role_config({"drafter": drafter, "reviewer": reviewer}, gate)
        paths.config_file.parent.mkdir(parents=True, exist_ok=True)
        paths.config_file.write_text(config_to_toml(config))
        main(
            [
                "draft",
                "--matter",
                SAMPLE_MATTER,
                "--task",
                "demand-letter",
                "--instructions",
                str(ask),
                "--max-context",
                "600",
            ]
        )
    run = RunStore(paths.database_file).list(1)[0]
    assert "capped at 600" in run.context_note, run.context_note
