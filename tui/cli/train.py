"""``chambers train``, ``chambers eval`` and ``chambers adapters``: LoRA adapters from his corrections.

torch and the rest of the ``[train]`` extra are imported only inside ``train`` (and the converter it
runs); ``eval`` and ``adapters`` work on a workstation without them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workspace.errors import ChambersError
from workspace.paths import Paths

if TYPE_CHECKING:
    from backends.lora_base import TrainedOn
    from corrections.model import AdapterRecord
    from corrections.train_eval import PairScore


def register(sub: Any) -> None:
    tr = sub.add_parser(
        "train", help="train a LoRA adapter for a role from the attorney's accepted corrections"
    )
    tr.add_argument("--role", required=True, help="the role whose drafts he corrected, e.g. drafter")
    tr.add_argument("--name", required=True, help="the adapter's name (its file is NAME.gguf)")
    tr.add_argument("--task", help="only pairs of this task type (default: every task)")
    tr.add_argument("--model", help="only pairs drafted by this model (default: the one model of the pairs)")
    tr.add_argument(
        "--since", metavar="YYYY-MM-DD", help="only pairs accepted on or after this date (default: all)"
    )
    tr.add_argument(
        "--min-edit-ratio",
        type=float,
        metavar="R",
        help="only drafts he changed at least this much (default: every accepted pair)",
    )
    tr.add_argument(
        "--base",
        type=Path,
        help="the role's GGUF (or a Hugging Face folder); default: the backend's `weights`",
    )
    tr.add_argument("--r", type=int, default=8, help="LoRA rank (default 8)")
    tr.add_argument("--alpha", type=int, default=16, help="LoRA alpha (default 16)")
    tr.add_argument(
        "--target-modules", default="q_proj,v_proj", help="comma-separated (default q_proj,v_proj)"
    )
    tr.add_argument("--epochs", type=int, default=3, help="passes over the pairs (default 3)")
    tr.add_argument(
        "--max-steps", type=int, help="stop after this many optimizer steps (default: every epoch's steps)"
    )
    tr.add_argument("--batch-size", type=int, default=4, help="pairs per optimizer step (default 4)")
    tr.add_argument("--lr", type=float, default=1e-3, help="learning rate (default 1e-3)")
    tr.add_argument(
        "--max-tokens",
        type=int,
        help="leave out pairs longer than this (default: as long as the longest pair, so none is left out)",
    )
    tr.add_argument(
        "--4bit",
        dest="four_bit",
        action="store_true",
        help="QLoRA: a 4-bit base (CUDA + bitsandbytes; default: fp16 on CUDA, fp32 on the CPU)",
    )
    tr.set_defaults(handler=cmd_train)

    ev = sub.add_parser("eval", help="replay an adapter's held-out pairs with and without it, and score both")
    ev.add_argument("--role", required=True, help="the role the adapter was trained for, e.g. drafter")
    ev.add_argument("--adapter", required=True, help="the adapter's name (chambers adapters list)")
    ev.add_argument("--max-tokens", type=int, help="longest answer asked for (default 256)")
    ev.add_argument(
        "--other-base",
        metavar="REASON",
        help="score it over a model other than its base anyway (the reason is stored with the scores)",
    )
    ev.set_defaults(handler=cmd_eval)

    top = sub.add_parser("adapters", help="the LoRA adapters trained from the corrections")
    cmds = top.add_subparsers(dest="adapters_command", required=True)
    cmds.add_parser("list", help="every adapter, its base, pairs and scores").set_defaults(handler=cmd_list)
    show = cmds.add_parser("show", help="one adapter in full, with the llama-server flags that load it")
    show.add_argument("name")
    show.set_defaults(handler=cmd_show)
    delete = cmds.add_parser("delete", help="forget an adapter and remove its files")
    delete.add_argument("name")
    delete.add_argument("--yes", action="store_true", help="confirm: its files are removed")
    delete.set_defaults(handler=cmd_delete)


def trained_on_of(record: AdapterRecord) -> TrainedOn:
    from backends.lora_base import TrainedOn

    return TrainedOn(record.name, record.base_path, record.base_sha256, record.base_size)


def trained_on(paths: Paths) -> dict[str, TrainedOn]:
    """What the registry says each adapter (by name) was trained on; empty before the first one."""
    from corrections.adapters import list_adapters

    if not paths.database_file.exists():
        return {}
    return {r.name: trained_on_of(r) for r in list_adapters(paths.database_file)}


def cmd_train(args: argparse.Namespace, paths: Paths) -> int:
    from backends.local_server import ensure_lora_converter
    from corrections.store import PairFilters
    from corrections.train_data import TrainingSelection
    from corrections.train_loop import LoraSettings
    from corrections.train_run import TrainRequest, train_adapter
    from tui.corrections.model_names import stored_model_names
    from workspace.config import load_config

    config = load_config(paths.config_file)
    backend = config.backend_for_role(args.role)
    base = args.base or (Path(backend.weights).expanduser() if backend.weights else None)
    if base is None:
        raise ChambersError(
            f"No base model for backend '{backend.name}': name the GGUF its server loads with --base, or set "
            f'weights = "/path/to/model.gguf" on that backend in the config.',
            title="Training was not started",
        )
    _need_train_extra()
    filters = PairFilters(
        task=args.task, model=args.model, since=args.since, min_edit_ratio=args.min_edit_ratio
    )
    settings = LoraSettings(
        r=args.r,
        alpha=args.alpha,
        target_modules=tuple(m.strip() for m in args.target_modules.split(",") if m.strip()),
        learning_rate=args.lr,
        epochs=args.epochs,
        max_steps=args.max_steps,
        batch_size=args.batch_size,
        max_tokens=args.max_tokens,
    )
    request = TrainRequest(
        name=args.name,
        role=args.role,
        base=base,
        selection=TrainingSelection(
            backend.name, filters, model_names=stored_model_names(config, paths.database_file)
        ),
        settings=settings,
        quantize_4bit=args.four_bit,
    )
    try:
        record = train_adapter(
            paths.database_file,
            paths.data_dir,
            request,
            ensure_lora_converter(_say),
            on_stage=_say,
            on_progress=lambda p: _say(p.line()),
        )
    except KeyboardInterrupt:
        # The run removed its partial folder on the way out (train_run), so this is the whole story.
        print(
            f"Stopped (Ctrl+C): adapter '{args.name}' was not kept (no file, no registry entry); the "
            "accepted pairs are unchanged. Run the same command to train again.",
            file=sys.stderr,
            flush=True,
        )
        raise
    curve = record.loss_curve
    print(
        f"Adapter '{record.name}': {len(record.train_pair_ids)} pairs, {len(curve)} steps in {record.train_seconds:.0f} s, "
        f"loss {curve[0]:.3f} -> {curve[-1]:.3f}; {len(record.held_out_pair_ids)} pairs held out."
    )
    print(f"File: {record.file}\nsha256: {record.file_sha256}")
    print("Serve it:  " + launch_line(record.base_path, record.file))
    print(
        f"Then in the config, on backend '{backend.name}':  lora = [{{ name = \"{record.name}\", scale = 1.0 }}]"
    )
    from tui.demo import DEMO_BACKEND

    if backend.name == DEMO_BACKEND:
        print(f"In the demo:  chambers demo --adapter {record.name}  (its server loads the adapter)")
    print(f"Measure it:  chambers eval --role {args.role} --adapter {record.name}")
    return 0


def _need_train_extra() -> None:
    from tui.corrections.train_extra import train_extra_problem

    problem = train_extra_problem()
    if problem is not None:
        raise ChambersError(problem + ", on the machine that trains.", title="Training was not started")


def _say(message: str) -> None:
    print(message, flush=True)


def _eval_progress(done: int, total: int, score: PairScore) -> None:
    print(
        f"  {done}/{total}  pair {score.pair_id} {score.variant:<7}  chrF {score.chrf:5.1f}  "
        f"edit ratio {score.edit_ratio:.3f}",
        file=sys.stderr,
        flush=True,
    )


def launch_line(base: str, adapter_file: str) -> str:
    from backends.lora import launch_flags

    return " ".join(["llama-server", "-m", base, *launch_flags([adapter_file])])


def cmd_eval(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio  # here, not at the top: every chambers command would pay for it at start-up

    from corrections.adapters import get_adapter, store_eval
    from corrections.store import get_pair
    from corrections.train_eval import DEFAULT_MAX_TOKENS, EvalResult, evaluate, format_table, verifier_blocks
    from corrections.train_time import decode_rate, expected_line
    from drafting.replay import Replayer, adapter_id
    from tui.drafting.wiring import issued_ranges_on
    from workspace.audit import AuditLog
    from workspace.config import load_config

    config = load_config(paths.config_file)
    backend = config.backend_for_role(args.role)
    record = get_adapter(paths.database_file, args.adapter)
    if record.role != args.role:
        raise ChambersError(
            f"Adapter '{record.name}' was trained for the {record.role}, not the {args.role}: its held-out "
            f"pairs are the {record.role}'s drafts. Run `chambers eval --role {record.role} --adapter "
            f"{record.name}`, or train an adapter for the {args.role}.",
            title="Nothing was evaluated",
        )
    pairs = []
    for pair_id in record.held_out_pair_ids:
        try:
            pairs.append(get_pair(paths.database_file, pair_id))
        except ChambersError:
            print(f"Held-out pair {pair_id} was deleted; it is left out of the eval.", file=sys.stderr)
    if not pairs:
        raise ChambersError(
            f"Adapter '{record.name}' has no held-out pairs left to replay. Train a new adapter.",
            title="Nothing to evaluate",
        )
    model = asyncio.run(_served_model_checked(backend, config.policy, record, args.other_base))
    lora_id = asyncio.run(adapter_id(backend, config.policy, record.name))
    replay = Replayer(
        backend,
        config.policy,
        AuditLog(paths.database_file),
        lora_id,
        role=args.role,
        max_tokens=args.max_tokens or DEFAULT_MAX_TOKENS,
    )
    _say(
        f"Replaying {len(pairs)} held-out pairs on '{backend.name}' at adapter scale 0 and 1 (temperature 0)"
    )
    answers = 2 * len(pairs) * (args.max_tokens or DEFAULT_MAX_TOKENS)
    _say(
        expected_line("eval", answers, decode_rate(paths.database_file, backend.name), f"on '{backend.name}'")
        + " That counts the answers at their longest; reading each prompt adds to it."
    )
    blocks = verifier_blocks(paths.database_file, issued_ranges_on(paths.database_file))
    done: list[int] = []

    def progress(count: int, total: int, score: PairScore) -> None:
        done.append(count)
        _eval_progress(count, total, score)

    async def replayed() -> EvalResult:
        # Its connections are closed on the loop that opened them; on Ctrl+C that closes the stream
        # in flight, which tells the server to stop reading the abandoned prompt.
        async with replay:
            return await evaluate(pairs, replay, blocks, on_progress=progress)

    try:
        result = asyncio.run(replayed())
    except KeyboardInterrupt:
        earlier = "keeps its earlier scores" if record.eval else "stays not evaluated"
        print(
            f"Stopped (Ctrl+C) after {done[-1] if done else 0} of {2 * len(pairs)} replays: no scores were "
            f"stored, and adapter '{record.name}' {earlier}. The request in flight was closed on the server.",
            file=sys.stderr,
            flush=True,
        )
        raise
    scores = result.as_dict()
    scores["backend"], scores["server_decode_tok_s"] = backend.name, replay.decode_tok_s
    scores["model"] = model
    store_eval(paths.database_file, record.name, scores)
    print(format_table(scores["table"]))
    print("Lower edit ratio (what he would still change), higher chrF and fewer verifier blocks are better.")
    return 0


async def _served_model_checked(
    backend: Any, policy: Any, record: AdapterRecord, other_base: str | None
) -> dict[str, Any]:
    """The model the role's server loads, for the scores' record; refused when it is not the adapter's base
    unless ``other_base`` says why it is scored over another one."""
    from backends.adapters import adapter_for
    from backends.lora_base import mismatch, served_model

    server = adapter_for(backend, policy)
    props = await server.props() if server.REPORTS_PROPS else None  # a server with adapters reports it
    path = (str(props.raw.get("model_path") or "") or None) if props is not None else None
    served = served_model(path) if path else None
    why = mismatch(trained_on_of(record), served) if served is not None else None
    if why and not (other_base or "").strip():
        raise ChambersError(
            f"Backend '{backend.name}': {why}. Its scores would not be the adapter's. Serve it over its base "
            f"(`chambers adapters show {record.name}` prints the line), or run the eval again with "
            "--other-base REASON to score it over this model anyway; the reason is stored with the scores.",
            title="The eval was not run",
        )
    reason = (other_base or "").strip() if why else None  # a reason is kept only where one was needed
    return {
        "path": path,
        "size": served.size if served else None,
        "base": record.base_path,
        "mismatch": why,
        "other_base": reason,
    }


def cmd_list(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.adapters import list_adapters
    from tui.cli.tables import show, table

    records = list_adapters(paths.database_file)
    if not records:
        print("No adapters yet. `chambers train --role drafter --name NAME` makes one.")
        return 0
    listing = table("adapter", "role", "base model", "pairs", "evaluation", right=("pairs",))
    stale: list[str] = []
    for r in records:
        evaluated = (r.eval or {}).get("table", [])
        overall = evaluated[-1] if evaluated else None
        score = (
            (
                f"edit ratio {overall['base_edit_ratio']:.3f}->{overall['adapter_edit_ratio']:.3f}, "
                f"chrF {overall['base_chrf']:.1f}->{overall['adapter_chrf']:.1f}"
            )
            if overall
            else "not evaluated"
        )
        listing.add_row(
            r.name + (" (STALE)" if r.stale_reason else ""),
            r.role,
            r.base_model,
            str(len(r.train_pair_ids)),
            score,
        )
        if r.stale_reason:
            stale.append(f"{r.name} is STALE: {r.stale_reason}")
    show(listing)
    print("\n".join(stale), end="\n" if stale else "")
    return 0


def cmd_show(args: argparse.Namespace, paths: Paths) -> int:
    from dataclasses import asdict

    from corrections.adapters import get_adapter
    from corrections.train_eval import format_table

    record = get_adapter(paths.database_file, args.name)
    shown = {k: v for k, v in asdict(record).items() if k not in ("eval", "loss_curve")}
    print(json.dumps(shown, indent=2))
    curve = record.loss_curve
    print(
        f"loss curve ({len(curve)} steps): "
        + " ".join(f"{x:.2f}" for x in curve[:: max(1, len(curve) // 20)])
    )
    if record.eval:
        print(format_table(record.eval["table"]))
        model = record.eval.get("model") or {}
        if model.get("path"):
            other = f" (not its base: {model['other_base']})" if model.get("other_base") else ""
            print(f"scored over {model['path']}{other}")
    print("Serve it:  " + launch_line(record.base_path, record.file))
    return 0


def cmd_delete(args: argparse.Namespace, paths: Paths) -> int:
    from corrections.adapters import delete_adapter, get_adapter

    if not args.yes:
        record = get_adapter(paths.database_file, args.name)
        print(f"This removes adapter '{record.name}' and its folder {record.folder}. Add --yes to confirm.")
        return 2  # a usage error, as for `corrections delete` without --yes (tui.cli.exit_codes)
    record = delete_adapter(paths.database_file, args.name)
    print(f"Adapter '{record.name}' deleted (its folder {record.folder} is removed).")
    return 0
