"""``chambers experts`` and ``chambers requant``: which experts his text wakes, and a requantization that follows them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tui.cli.experts_inputs import corpus_text, measure, model_path, say
from workspace.paths import Paths


def register(sub: Any) -> None:
    experts = sub.add_parser("experts", help="measure which MoE experts his own text wakes (llama-imatrix)")
    experts.add_argument("profile", nargs="?", help="a profile's name or a GGUF file")
    experts.add_argument(
        "--corpus", default="finals", help="'finals' (his accepted corrections) or a text FILE"
    )
    experts.add_argument("--json", action="store_true", help="print the result as JSON")
    experts.add_argument(
        "--place",
        metavar="PROFILE",
        help="turn the ranking into -ot rules: the most-used expert tensors on the GPUs, the rest on the CPU",
    )
    experts.add_argument("--vram-gib", type=float, help="with --place: the GPU memory the weights may take")
    experts.add_argument("--to", metavar="NAME", help="with --place: the new profile's name (PROFILE-placed)")
    experts.set_defaults(handler=cmd_experts)
    requant = sub.add_parser(
        "requant", help="requantize an MoE model along his routed traffic, within a budget"
    )
    requant.add_argument("profile", help="a profile's name or a GGUF file (F16 is best)")
    requant.add_argument("--to", required=True, metavar="NAME", help="the new model's name (NAME.gguf)")
    requant.add_argument("--budget-gib", required=True, type=float, help="the largest file to write, in GiB")
    requant.add_argument("--hot", default="Q4_K", help="type of the most-used tensors (default Q4_K)")
    requant.add_argument("--cold", default="Q2_K", help="type of the rest (default Q2_K)")
    requant.add_argument(
        "--corpus", default="finals", help="'finals' (his accepted corrections) or a text FILE"
    )
    requant.add_argument("--reference", help="the profile or GGUF to agree with (default: the source model)")
    requant.add_argument(
        "--mc", metavar="FILE", help="multiple-choice questions (JSON lines) to count answer changes"
    )
    requant.add_argument(
        "--no-proof", action="store_true", help="skip the before/after agreement and speed runs"
    )
    requant.set_defaults(handler=cmd_requant)


def cmd_experts(args: argparse.Namespace, paths: Paths) -> int:
    import time

    from backends.fleet.experts import format_report

    if args.place:
        from tui.cli.fleet_place import cmd_place

        return cmd_place(args, paths)
    if not args.profile:
        from backends.fleet.imatrix import ExpertsError

        raise ExpertsError("Name the model: chambers experts PROFILE (a profile's name or a GGUF file).")
    started = time.perf_counter()
    model = model_path(paths, args.profile)
    run, report, corpus_name = measure(paths, model, args.corpus)
    if args.json:
        print(
            json.dumps(
                {
                    "model": str(model),
                    "corpus": corpus_name,
                    "imatrix": str(run.imatrix.path),
                    "curve": [{"top_fraction": f, "experts": k, "share": s} for f, k, s in report.curve],
                    "counts": {str(layer.layer): list(layer.counts) for layer in report.layers},
                    "never_woken": report.never_woken(),
                },
                indent=2,
            )
        )
        return 0
    print(format_report(report, model.name, corpus_name))
    whole = time.perf_counter() - started
    print(f"llama-imatrix {run.tool_s:.1f} s, experts in all {whole:.1f} s")
    return 0


def cmd_requant(args: argparse.Namespace, paths: Paths) -> int:
    from dataclasses import asdict
    from datetime import UTC, datetime

    from backends.fleet.requant import write_requant
    from backends.fleet.requant_plan import GIB, RequantError, expert_line, format_plan, make_plan
    from backends.fleet.store import save_requant_plan
    from backends.local_server import ensure_llama_tool

    if args.budget_gib <= 0:
        raise RequantError(
            f"--budget-gib {args.budget_gib} is not a size; give the largest file in GiB, e.g. 20."
        )
    if "/" in args.to or not args.to.strip():
        raise RequantError(
            f"--to '{args.to}' must be a plain name; the file is written as NAME.gguf beside the source."
        )
    source = model_path(paths, args.profile)
    target = source.with_name(f"{args.to.removesuffix('.gguf')}.gguf")
    if target.exists():
        raise RequantError(f"{target} already exists; choose another --to name or remove it.")
    run, _report, _ = measure(paths, source, args.corpus)
    plan = make_plan(source, run.imatrix, args.hot, args.cold, int(args.budget_gib * GIB))
    line = expert_line(plan, run.imatrix.expert_counts())
    print(format_plan(plan, line))
    say(f"writing {target.name} with llama-quantize")
    quantize = ensure_llama_tool("llama-quantize", say)
    written = write_requant(quantize, plan, run.imatrix.path, target)
    print(f"wrote {target} ({written.size / GIB:.4f} GiB) in {written.quantize_s:.1f} s")
    if source != Path(args.profile).expanduser():  # a profile's name: its new sibling goes beside it
        from backends.fleet.profile_entry import add_commented_entry

        note = (
            f"chambers requant {datetime.now(UTC).date()}: {args.profile} along his routed traffic, "
            f"{plan.hot} hot / {plan.cold} cold, {written.size / GIB:.2f} of {args.budget_gib} GiB"
        )
        add_commented_entry(paths.config_file, args.profile, args.to, target, note)
        print(
            f"added a commented [[profiles]] entry '{args.to}' beside '{args.profile}' in {paths.config_file}"
        )
    proof = None
    if not args.no_proof:
        proof = _prove(args, paths, plan, run, source, target, quantize)
    save_requant_plan(
        paths.database_file,
        datetime.now(UTC).isoformat(),
        str(source),
        str(target),
        plan.budget,
        plan.planned,
        plan.hot,
        plan.cold,
        [asdict(t) for t in plan.tensors],
        asdict(line),
        proof,
    )
    return 0


def _prove(
    args: argparse.Namespace, paths: Paths, plan: Any, run: Any, source: Path, target: Path, quantize: Path
) -> Any:
    """The all-cold file beside the source (made once), then agreement and speed of it and of ``target``."""
    from dataclasses import asdict, replace
    from datetime import UTC, datetime

    from backends.fleet.agree import AgreementRunner
    from backends.fleet.requant import write_requant
    from backends.fleet.requant_proof import format_proof, prove
    from backends.fleet.store import save_agreement
    from backends.local_server import ensure_llama_server, ensure_llama_tool

    before = source.with_name(f"{source.name.removesuffix('.gguf')}.all-{plan.cold}.gguf")
    if not before.exists():
        cold_plan = replace(plan, tensors=tuple(replace(t, qtype=plan.cold) for t in plan.tensors))
        say(f"writing {before.name}, every tensor at {plan.cold}, for the comparison")
        write_requant(quantize, cold_plan, run.imatrix.path, before)
    reference = model_path(paths, args.reference) if args.reference else source
    text, corpus_name = corpus_text(paths, args.corpus)
    answers = None
    if args.mc:
        from tui.cli.fleet_agree import _answer_changes

        answers = _answer_changes(Path(args.mc), reference, [before, target], paths, say)
    runner = AgreementRunner(ensure_llama_tool("llama-perplexity", say), paths.data_dir / "agree")
    say(f"proving it on {corpus_name}: agreement with {reference.name}, then speed, for both files")
    sides = prove(
        runner,
        ensure_llama_server(say),
        reference,
        before,
        target,
        text,
        corpus_name,
        paths.data_dir / "logs",
        answers,
    )
    now = datetime.now(UTC).isoformat()
    for side in sides:
        save_agreement(paths.database_file, side.agreement, now, side.answers_changed, side.answers_total)
    print(format_proof(*sides))
    return {"before": asdict(sides[0]), "after": asdict(sides[1])}
