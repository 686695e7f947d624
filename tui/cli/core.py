"""``chambers init``, ``config``, ``demo`` and ``local-server prepare``."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from tui.cli import exit_codes
from workspace.errors import ChambersError
from workspace.paths import Paths, write_atomically


def register(sub: Any) -> None:
    init = sub.add_parser("init", help="write a commented starter config")
    init.add_argument("--force", action="store_true", help="overwrite an existing config")
    init.set_defaults(handler=cmd_init)
    config = sub.add_parser("config", help="check the config and list the backends")
    config.add_argument(
        "--keys", action="store_true", help="list every action id and its key, as [keys] can remap"
    )
    config.set_defaults(handler=cmd_config)
    demo = sub.add_parser(
        "demo", help="start a local llama-server with the demo model and open the workstation"
    )
    demo.add_argument(
        "--adapter",
        metavar="NAME",
        help="serve this trained adapter (chambers adapters list) on the demo server; every request carries it",
    )
    demo.add_argument(
        "--max-tokens",
        type=int,
        default=512,
        metavar="N",
        help="the longest draft the demo's model writes (default 512; fewer is quicker on a slow CPU)",
    )
    demo.set_defaults(handler=cmd_demo)
    local = sub.add_parser("local-server", help="the bundled llama-server for the demo and tests")
    local.add_argument("action", choices=["prepare"], help="build or find llama-server and the demo model")
    local.set_defaults(handler=cmd_prepare)


def cmd_init(args: argparse.Namespace, paths: Paths) -> int:
    from workspace.config import starter_config_text

    if paths.config_file.exists() and not args.force:
        raise ChambersError(
            f"{paths.config_file} already exists and was left as it is. Use `chambers init --force` "
            "to replace it with the starter config.",
            title="A config already exists",
        )
    from evidence.guard import check_output

    check_output(paths.database_file, paths.config_file, what="config path (CHAMBERS_HOME)")
    write_atomically(paths.config_file, starter_config_text().encode("utf-8"))
    print(f"Wrote a starter config to {paths.config_file}. Set your servers' addresses in it.")
    return 0


def cmd_config(args: argparse.Namespace, paths: Paths) -> int:
    from backends.errors import PolicyRefusal
    from backends.fleet.profiles import listen_refusals, profiles_from_config
    from backends.policy import check_backend
    from workspace.config import load_config

    config = load_config(paths.config_file)
    profiles_from_config(config)  # a launch profile's problem (a board that is not there) is the config's
    print(
        f"{paths.config_file}: {len(config.boards)} boards, {len(config.backends)} backends, "
        f"local_only={'yes' if config.policy.local_only else 'no'}"
    )
    refusals = []
    for backend in config.backends:
        try:
            role = "/".join(backend.roles) or None
            verdict = _allowed(check_backend(backend, config.policy, role).value, backend.remote_reason)
        except PolicyRefusal as exc:
            verdict = "REFUSED (see below)"
            refusals.append(exc.message)
        print(
            f"  {backend.name:<12} {backend.kind:<9} {backend.url:<28} {','.join(backend.roles):<16} {verdict}"
        )
    refusals += listen_refusals(config)  # and a profile's extra_args that download fail to parse
    for refusal in refusals:
        print(f"\n{refusal}")
    wrong_keys = _keys(config.keys, listing=args.keys)
    if refusals:
        return exit_codes.BACKEND
    return exit_codes.USAGE if wrong_keys else exit_codes.CLEAN


def _keys(keymap: Mapping[str, str], *, listing: bool) -> list[str]:
    """His [keys] checked against the workstation's actions (read only when he has remapped a key or
    asks for the list: it imports every screen); the problems are printed and returned."""
    if not keymap and not listing:
        return []
    from tui.cli.keys import actions, keys_of, problems

    if listing:
        from tui.cli.tables import show, table

        print()
        keys_table = table("action", "keys", "what it does", title="actions ([keys] maps an id to a key)")
        for action in actions():
            keys_table.add_row(action.id, ",".join(keys_of(action, keymap)), action.description)
        show(keys_table)
    elif keymap:
        print(f"\n[keys]: {len(keymap)} remapped: " + ", ".join(f"{k} = {v}" for k, v in keymap.items()))
    wrong = problems(keymap)
    for problem in wrong:
        print(f"\n{problem}")
    return wrong


def _allowed(address_class: str, remote_reason: str | None) -> str:
    """The policy's verdict on an address it let through, in the attorney's words."""
    if address_class == "public":
        return (
            f"public, allowed: {remote_reason}" if remote_reason else "public, allowed (local_only = false)"
        )
    return f"{address_class}, allowed"


def cmd_demo(args: argparse.Namespace, paths: Paths) -> int:
    """A real local llama-server with the demo model, the sample matter, and the workstation on them."""
    from dataclasses import replace
    from functools import partial

    from backends.local_server import (
        TEST_SERVER_ARGS,
        LlamaServerProcess,
        ensure_demo_model,
        ensure_llama_server,
    )
    from corrections.sample_pairs import add_sample_pairs
    from drafting.verify.index_cache import keep_in
    from evidence.guard import check_output
    from evidence.sample_matter import SAMPLE_MATTER
    from tui.app import create_app, mouse_wanted
    from tui.cli.evidence import setup_demo_matter
    from tui.cli.exhibits import setup_demo_exhibits
    from tui.demo import (
        DEMO_BACKEND,
        DEMO_MODEL,
        DemoFirstScreen,
        _kept_ui,
        demo_adapter_flags,
        demo_config,
        demo_config_text,
    )
    from tui.widgets.demo_tour import DemoTour
    from workspace.paths import cache_dir

    def progress(message: str) -> None:
        print(message, flush=True)

    check_output(paths.database_file, paths.config_file, what="demo home (CHAMBERS_HOME)")
    setup_demo_matter(paths)
    setup_demo_exhibits(paths)
    binary = ensure_llama_server(progress)
    model = ensure_demo_model(progress)
    added = add_sample_pairs(
        paths.database_file, backend=DEMO_BACKEND, model=DEMO_MODEL, matter=SAMPLE_MATTER
    )
    if added:
        progress(
            f"Added {added} sample correction pairs (tagged 'sample data') to train the demo's adapter on"
        )
    lora = demo_adapter_flags(paths, args.adapter, model) if args.adapter else []
    server = LlamaServerProcess(
        binary,
        model,
        log_file=paths.data_dir / "demo-llama-server.log",
        extra_args=[*TEST_SERVER_ARGS, *lora],
    )
    progress(
        f"Starting llama-server on {server.url} ..." + (f" with adapter '{args.adapter}'" if lora else "")
    )
    with server:
        config = demo_config(
            server.url,
            str(paths.config_file),
            weights=str(model),
            adapter=args.adapter,
            max_tokens=args.max_tokens,
        )
        config = replace(config, ui=_kept_ui(paths))
        write_atomically(paths.config_file, demo_config_text(config).encode("utf-8"))
        progress(f"Demo config written to {paths.config_file}")
        app = create_app(config, paths.database_file, first_screen=partial(DemoFirstScreen, tour=DemoTour()))
        keep_in(cache_dir())  # the verifier's reading of the sample matter's opinions, kept between demos
        app.run(mouse=mouse_wanted(config, args.no_mouse))
    return 0


def cmd_prepare(args: argparse.Namespace, paths: Paths) -> int:
    from backends.local_server import ensure_demo_model, ensure_llama_server

    def progress(message: str) -> None:
        print(message, flush=True)

    print(f"llama-server: {ensure_llama_server(progress)}")
    print(f"demo model:   {ensure_demo_model(progress)}")
    return 0
