"""``chambers agree --reference A --candidate B``: quantization drift on the attorney's own text."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workspace.paths import Paths


def register(sub: Any) -> None:
    agree = sub.add_parser("agree", help="measure how far a quantized model drifts from its reference (KLD)")
    agree.add_argument("--reference", required=True, help="a profile's name or a GGUF file")
    agree.add_argument(
        "--candidate", required=True, action="append", help="a profile or GGUF (repeat for several)"
    )
    agree.add_argument(
        "--corpus", default="finals", help="'finals' (his accepted corrections) or a text FILE"
    )
    agree.add_argument("--ctx", type=int, help="context per chunk (default: the largest the corpus fills)")
    agree.add_argument(
        "--mc", metavar="FILE", help="multiple-choice questions (JSON lines) to count answer changes"
    )
    agree.add_argument("--json", action="store_true", help="print the results as JSON")
    agree.set_defaults(handler=cmd_agree)


def _model(config: Any, name: str) -> Path:
    from backends.fleet.profiles import profile_named

    path = Path(name).expanduser()
    if path.suffix == ".gguf" or path.exists():
        return path
    return Path(profile_named(config, name).model)


def cmd_agree(args: argparse.Namespace, paths: Paths) -> int:
    from dataclasses import asdict
    from datetime import UTC, datetime

    from backends.fleet.agree import AgreeError, AgreementRunner, finals_corpus, format_agreement
    from backends.fleet.store import save_agreement
    from backends.local_server import ensure_llama_tool
    from corrections.store import accepted_finals
    from workspace.config import load_config

    config = load_config(paths.config_file) if paths.config_file.exists() else None
    if config is None and not all(Path(x).suffix == ".gguf" for x in [args.reference, *args.candidate]):
        raise AgreeError(f"Profiles need a config ({paths.config_file}); without one give GGUF files.")
    reference = _model(config, args.reference)
    candidates = [_model(config, c) for c in args.candidate]
    if args.corpus == "finals":
        text, corpus_name = finals_corpus(accepted_finals(paths.database_file)), "finals"
    else:
        try:
            text, corpus_name = Path(args.corpus).read_text(encoding="utf-8"), str(args.corpus)
        except (OSError, UnicodeDecodeError) as exc:
            raise AgreeError(f"The corpus {args.corpus} cannot be read as UTF-8 text ({exc}).") from None
    if args.ctx is not None and args.ctx < 16:
        raise AgreeError(f"--ctx {args.ctx} is too small; use 64 or more.")
    say = lambda m: print(m, file=sys.stderr)  # noqa: E731
    runner = AgreementRunner(ensure_llama_tool("llama-perplexity", say), paths.data_dir / "agree")
    mc: dict[str, tuple[int, int]] = {}
    if args.mc:
        mc = _answer_changes(Path(args.mc), reference, candidates, paths, say)
    results = []
    for candidate in candidates:
        say(f"scoring {candidate.name} against {reference.name} on {corpus_name}")
        a = runner.measure(reference, candidate, text, corpus_name, args.ctx)
        changed, total = mc.get(str(candidate), (None, None))
        save_agreement(paths.database_file, a, datetime.now(UTC).isoformat(), changed, total)
        results.append((a, changed, total))
    if args.json:
        print(
            json.dumps(
                [{**asdict(a), "answers_changed": c, "answers_total": t} for a, c, t in results], indent=2
            )
        )
        return 0
    print(format_agreement([a for a, _, _ in results]))
    for a, changed, total in results:
        if total:
            print(f"{Path(a.candidate).name}: {changed} of {total} multiple-choice answers changed")
    spent = sum(a.perplexity_s for a, _, _ in results)
    whole = sum(a.total_s for a, _, _ in results)
    if spent > 0:
        print(
            f"llama-perplexity {spent:.1f} s, agree in all {whole:.1f} s (+{(whole / spent - 1) * 100:.1f}%)"
        )
    return 0


def _answer_changes(
    mc_file: Path, reference: Path, candidates: list[Path], paths: Paths, say: Any
) -> dict[str, tuple[int, int]]:
    from backends.fleet.agree_mc import answer_changes, answers_of, load_questions
    from backends.local_server import ensure_llama_server

    questions = load_questions(mc_file)
    binary = ensure_llama_server(say)
    logs = paths.data_dir / "logs"
    say(f"asking {len(questions)} questions to {reference.name}")
    base = answers_of(binary, reference, questions, logs)
    out = {}
    for candidate in candidates:
        say(f"asking {len(questions)} questions to {candidate.name}")
        out[str(candidate)] = (
            answer_changes(base, answers_of(binary, candidate, questions, logs)),
            len(questions),
        )
    return out
