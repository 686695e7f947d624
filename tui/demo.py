"""``chambers demo``: a real local llama-server, a demo config, and the workstation.

The demo config is written with tomli-w into the current home (the Makefile
sets ``CHAMBERS_HOME=.demo`` so a real config is never overwritten). The
server is stopped when the workstation closes.
"""

from __future__ import annotations

from backends.fleet.mission import MISSION_BOARDS, mission_telemetry
from backends.local_server import LlamaServerProcess, ensure_demo_model, ensure_llama_server
from workspace.config import Backend, Config, Policy, Sampling, config_to_toml
from workspace.paths import Paths, write_atomically

DEMO_ROLES = ("router", "gate", "drafter", "heavy", "reviewer", "extractor")


def demo_config(url: str, file: str) -> Config:
    backend = Backend(
        name="demo-smollm2",
        kind="llamacpp",
        url=url,
        roles=DEMO_ROLES,
        model="smollm2-135m-instruct",
        board="board-a",  # the live demo server shown on the recorded installation's workhorse board
        sampling=Sampling(
            temperature=0.7, top_p=0.95, top_k=40, min_p=0.01, repeat_penalty=1.2, max_tokens=512
        ),
    )
    return Config(
        file=file, policy=Policy(local_only=True), boards=MISSION_BOARDS, backends=(backend,),
        telemetry=mission_telemetry(),
    )  # fmt: skip


def run_demo(paths: Paths) -> int:
    from tui.app import create_app

    def progress(message: str) -> None:
        print(message, flush=True)

    from tui.commands.evidence import setup_demo_matter

    setup_demo_matter(paths)
    from tui.commands.exhibits import setup_demo_exhibits

    setup_demo_exhibits(paths)
    binary = ensure_llama_server(progress)
    model = ensure_demo_model(progress)
    server = LlamaServerProcess(binary, model, log_file=paths.data_dir / "demo-llama-server.log")
    progress(f"Starting llama-server on {server.url} ...")
    with server:
        config = demo_config(server.url, str(paths.config_file))
        write_atomically(paths.config_file, config_to_toml(config).encode("utf-8"))
        progress(f"Demo config written to {paths.config_file}")
        create_app(config, paths.database_file).run()
    return 0
